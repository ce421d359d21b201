#!/usr/bin/env bash
# tools/package.sh [OUTDIR]: the Debian packages, built from this tree
# with the standard tools (dpkg-buildpackage -b, debhelper; debian/ is
# part of the tree, as in rdma-core) and checked by lintian:
#   librpcrdma0      the shared library
#   librpcrdma-dev   headers, librpcrdma.pc, the section 3 manual and the
#                    kv example with a Makefile for the installed library
#   rpcrdma-tools    rpcrdma-stat, nfs3d, nfs3c and their manual pages
# (and their -dbgsym packages). The tree is copied first (without .git
# and the build directories), so the build leaves it as it was; the .deb
# files land in OUTDIR (default ./build-deb). Installs debhelper and
# lintian when missing (root needed then). Fails when the build fails,
# when the library's exports differ from debian/librpcrdma0.symbols
# (dpkg-gensymbols -c4) or when lintian reports an error.
#
#   tools/package.sh && sudo apt-get install ./build-deb/*.deb
#
# DEB_BUILD_OPTIONS is passed on; unset, it is "nocheck" (the library's
# tests are tools/test.sh's: most need the Soft-RoCE guest).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$top/build-deb}" && cd "${1:-$top/build-deb}" && pwd)

need=()
for p in debhelper lintian dpkg-dev fakeroot; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "package.sh: installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${need[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/rpcrdma-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
src=$work/librpcrdma
mkdir "$src"
# The tree's sources, committed or not (git ls-files: tracked, and new
# files not ignored), without what builds leave in it; from a release
# tarball (no .git), every file but the build directories'.
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z -c -o --exclude-standard |
		while IFS= read -r -d '' f; do
			if [ -e "$f" ]; then printf '%s\0' "$f"; fi
		done |
		tar --null -T - -cf -) | tar -C "$src" -xf -
else
	tar -C "$top" --exclude='./build*' --exclude=./.cache \
		--exclude=./autom4te.cache --exclude=./debian/build \
		--exclude=./debian/tmp --exclude=./debian/.debhelper -cf - . |
		tar -C "$src" -xf -
fi

log=$out/dpkg-buildpackage.log
echo "package.sh: dpkg-buildpackage -b in a copy of the tree (log: $log)"
if ! (cd "$src" && DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-nocheck} \
	dpkg-buildpackage -b -us -uc -j"$(nproc)") >"$log" 2>&1; then
	tail -n 40 "$log"
	echo "package.sh: dpkg-buildpackage failed" >&2
	exit 1
fi
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/

changes=$(ls "$out"/*.changes)
echo "package.sh: lintian $(basename "$changes")"
# --fail-on error: warnings are printed, errors fail. The only warnings
# expected: initial-upload-closes-no-bugs (no Debian ITP bug to close).
lrc=0
lintian --fail-on error --suppress-tags initial-upload-closes-no-bugs \
	"$changes" >"$out/lintian.txt" 2>&1 || lrc=$?
grep -v '^running with root privileges' "$out/lintian.txt" || true
if [ $lrc != 0 ]; then
	echo "package.sh: lintian reports errors (status $lrc)" >&2
	exit 1
fi
echo "package.sh: lintian: no errors"
for d in "$out"/*.deb; do
	printf '  %-44s %s\n' "$(basename "$d")" "$(dpkg-deb -f "$d" Depends)"
done
