#!/bin/bash
# tests/vm/siw-module.sh CACHE KVER [APTDIR]
#
# Debian's kernels do not build siw, the kernel's software iWARP provider
# (CONFIG_RDMA_SIW is not set in bookworm's 6.1 nor in its backports' 6.12).
# This builds it as an out-of-tree module for the guest kernel KVER from
# that kernel's own source package (linux-source-X.Y of the same version)
# against its headers (linux-headers-KVER, its -common and linux-kbuild),
# downloaded and unpacked under CACHE/siw/KVER, never installed on the host.
# APTDIR is tests/vm/run's private apt configuration of the suite the kernel
# came from (bookworm-backports), empty for the host's own sources. Prints
# the path of siw.ko. The module is unsigned: the guest loads it with
# insmod (no secure boot in QEMU, so the kernel only notes the taint).
#
# The source carries one fix of ours, tests/vm/siw-accept-race.patch (its
# message says what it fixes): without it a fresh connection's first
# message is now and then never read by the accepting side, which no
# library can work around (docs/conformance.md, "Providers"). A module
# is rebuilt when the patch changes.
set -euo pipefail
cache=$1 kver=$2 aptdir=${3:-}
me=siw-module
die() { echo "$me: $*" >&2; exit 1; }

out=$cache/siw/$kver
here=$(cd "$(dirname "$0")" && pwd)
patches=("$here/siw-accept-race.patch")
stamp=$(cat "${patches[@]}" | sha256sum | cut -c1-16)
if [ "$(cat "$out/.ok" 2>/dev/null)" = "$stamp" ] && [ -f "$out/siw.ko" ]; then
	echo "$out/siw.ko"
	exit 0
fi
apt_opts=()
if [ -n "$aptdir" ]; then
	apt_opts=(-o "Dir::Etc::SourceList=/dev/null"
		-o "Dir::Etc::SourceParts=$aptdir/sources.list.d"
		-o "Dir::State::Lists=$aptdir/lists"
		-o "Dir::Cache=$aptdir/cache"
		-o "Dir::State::Status=/dev/null")
fi
ver=$(apt-cache "${apt_opts[@]}" show --no-all-versions "linux-headers-$kver" \
	2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
[ -n "$ver" ] || die "no package linux-headers-$kver in the apt lists"
# linux-headers-KVER names its -common and linux-kbuild packages.
deps=$(apt-cache "${apt_opts[@]}" depends "linux-headers-$kver" 2>/dev/null |
	awk '$1 ~ /Depends:$/ && $2 ~ /^linux-(headers|kbuild)-/ { print $2 }')
mm=$(echo "$kver" | sed -n 's/^\([0-9]*\.[0-9]*\)\..*/\1/p')
[ -n "$mm" ] || die "cannot read the major.minor of $kver"

rm -rf "$out" "$out.tmp"
mkdir -p "$out.tmp/deb" "$out.tmp/root"
echo "$me: building siw.ko for $kver from linux-source-$mm $ver" >&2
pkgs=("linux-headers-$kver=$ver" "linux-source-$mm=$ver")
for d in $deps; do pkgs+=("$d=$ver"); done
(cd "$out.tmp/deb" && apt-get "${apt_opts[@]}" download "${pkgs[@]}") \
	>"$out.tmp/apt.log" 2>&1 ||
	die "apt-get download ${pkgs[*]} failed: $(tail -n 3 "$out.tmp/apt.log")"
for f in "$out.tmp"/deb/*.deb; do
	dpkg -x "$f" "$out.tmp/root" || die "dpkg -x $f failed"
done
src=$out.tmp/root/usr/src
hdr=$src/linux-headers-$kver
[ -d "$hdr" ] || die "no $hdr after unpacking"
tar -xf "$src/linux-source-$mm.tar.xz" -C "$out.tmp" --wildcards \
	"linux-source-$mm/drivers/infiniband/sw/siw/*" ||
	die "no drivers/infiniband/sw/siw in linux-source-$mm"
# The headers' Makefile includes its -common part by absolute path.
common=$(sed -n 's|^include /usr/src/\(.*\)/Makefile$|\1|p' "$hdr/Makefile")
[ -n "$common" ] && [ -d "$src/$common" ] ||
	die "cannot find the common headers $hdr/Makefile includes"
echo "include $src/$common/Makefile" >"$hdr/Makefile"
mod=$out.tmp/linux-source-$mm/drivers/infiniband/sw/siw
for p in "${patches[@]}"; do
	patch -s -p1 --forward -d "$out.tmp/linux-source-$mm" <"$p" \
		>"$out.tmp/patch.log" 2>&1 ||
		die "$(basename "$p") does not apply to linux-source-$mm $ver: $(tail -n 3 "$out.tmp/patch.log")"
done
# No BTF for the module: pahole is not needed to load it.
make -C "$hdr" M="$mod" CONFIG_RDMA_SIW=m CONFIG_DEBUG_INFO_BTF_MODULES= \
	-j"$(nproc 2>/dev/null || echo 2)" modules >"$out.tmp/make.log" 2>&1 ||
	die "building siw failed: $(tail -n 5 "$out.tmp/make.log")"
mkdir -p "$out"
cp "$mod/siw.ko" "$out/siw.ko"
rm -rf "$out.tmp"
echo "$stamp" >"$out/.ok"
echo "$out/siw.ko"
