#!/bin/bash
# tests/vm/nfstest-fetch.sh DIR
#
# Fetches NetApp's nfstest (nfstest_rdma among its tools; pure Python,
# Architecture all) as Debian trixie packages it, through a private apt
# configuration (the host's own apt sources are not touched: Debian 12
# has no nfstest), and unpacks it into DIR (DIR/usr/bin/nfstest_rdma, its
# modules under DIR/usr/lib/python3/dist-packages). Nothing is installed.
# The archive is the one the host's apt already uses. Idempotent: an
# unpacked DIR is kept. Exit status 0, or 1 with the reason on stderr.
set -u
dir=${1:?usage: nfstest-fetch.sh DIR}
[ -x "$dir/usr/bin/nfstest_rdma" ] && exit 0
work=$dir.apt
rm -rf "$work" && mkdir -p "$work/sources.list.d" "$work/lists/partial" \
	"$work/cache/archives/partial" || exit 1
uri=$(apt-get indextargets --format '$(REPO_URI)' 2>/dev/null |
	grep -v -e security -e backports | head -n 1)
[ -n "$uri" ] || { echo "nfstest-fetch: no apt source on this host" >&2; exit 1; }
printf 'Types: deb\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
	"$uri" >"$work/sources.list.d/trixie.sources" || exit 1
opts=(-o "Dir::Etc::SourceList=/dev/null"
	-o "Dir::Etc::SourceParts=$work/sources.list.d"
	-o "Dir::State::Lists=$work/lists"
	-o "Dir::Cache=$work/cache"
	-o "Dir::State::Status=/dev/null"
	-o "APT::Sandbox::User=root")
apt-get "${opts[@]}" update -qq >"$work/apt.log" 2>&1 ||
	{ echo "nfstest-fetch: apt-get update of trixie failed (see $work/apt.log)" >&2; exit 1; }
(cd "$work" && apt-get "${opts[@]}" download nfstest >>apt.log 2>&1) ||
	{ echo "nfstest-fetch: apt-get download nfstest failed (see $work/apt.log)" >&2; exit 1; }
deb=$(ls "$work"/nfstest_*_all.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { echo "nfstest-fetch: no nfstest package downloaded" >&2; exit 1; }
rm -rf "$dir.tmp" && dpkg-deb -x "$deb" "$dir.tmp" && rm -rf "$dir" &&
	mv "$dir.tmp" "$dir" || exit 1
rm -rf "$work"
[ -x "$dir/usr/bin/nfstest_rdma" ] ||
	{ echo "nfstest-fetch: no nfstest_rdma in $(basename "$deb")" >&2; exit 1; }
echo "nfstest-fetch: $(basename "$deb") unpacked in $dir"
