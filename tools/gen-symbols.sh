#!/bin/sh
# tools/gen-symbols.sh [SRCDIR]
#
# Prints the Debian symbols file of librpcrdma (debian/librpcrdma0.symbols)
# generated from the version script, librpcrdma.map: every name of every
# version node's global: list, at the version of that node. A node
# RPCRDMA_A.B first ships in release A.B.0, which is therefore the
# minimum version of its symbols (dpkg-gensymbols(1)). The soname's major
# number comes from Makefile.am's -version-info (current - age).
#
#   tools/gen-symbols.sh > debian/librpcrdma0.symbols
#
# tests/abi/check_symbols.sh fails when the committed file and this
# output differ; the package build (dh_makeshlibs -- -c4) fails when the
# library's exports and the file differ.
set -eu
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
map=$top/librpcrdma.map

vi=$(sed -n 's/.*-version-info \([0-9]*\):\([0-9]*\):\([0-9]*\).*/\1 \3/p' \
	"$top/Makefile.am" | head -n 1)
[ -n "$vi" ] || { echo "gen-symbols: no -version-info in Makefile.am" >&2; exit 1; }
set -- $vi
major=$(($1 - $2))

echo "librpcrdma.so.$major librpcrdma$major #MINVER#"
echo "* Build-Depends-Package: librpcrdma-dev"
# Comments out, then one "NODE NAME" line per global name, and one
# "NODE NODE" line for the node itself (the version definition, which
# dpkg-gensymbols lists as NODE@NODE).
sed -e 's|/\*.*\*/||g' -e '/\/\*/,/\*\//d' "$map" | awk '
	/^[A-Za-z_][A-Za-z0-9_.]*[ \t]*\{/ { node = $1; sub(/\{.*/, "", node); print node, node; glob = 0; next }
	/global:/ { glob = 1; next }
	/local:/ { glob = 0; next }
	/^\}/ { node = ""; glob = 0; next }
	glob && node != "" {
		gsub(/[ \t;]/, "")
		if ($0 != "") print node, $0
	}' | while read -r node name; do
	ver=${node#RPCRDMA_}
	case $ver in
	*.*.*) ;;
	*.*) ver=$ver.0 ;;
	*) echo "gen-symbols: version node $node is not RPCRDMA_A.B" >&2; exit 1 ;;
	esac
	echo " $name@$node $ver"
done | LC_ALL=C sort
