#!/bin/sh
# tools/gen-symbols.sh [SRCDIR]
#
# Prints the Debian symbols file of librpcrdma (debian/librpcrdma0.symbols)
# generated from the version script, librpcrdma.map: every name of every
# version node's global: list, at the version of that node. A node
# RPCRDMA_A.B first ships in release A.B.0, which is therefore the
# minimum version of its symbols (dpkg-gensymbols(1)); a symbol added
# later goes into a new node, never into one already released (the rule
# that makes the node's version the symbol's minimum). The soname's major
# number comes from Makefile.am's -version-info (current - age).
#
#   tools/gen-symbols.sh > debian/librpcrdma0.symbols
#
# Exits non-zero, printing nothing, when the map cannot be read as
# version nodes. tests/abi/check_symbols.sh fails when the committed file
# and this output differ; the package build (dh_makeshlibs -- -c4) fails
# when the library's exports and the file differ.
set -eu
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
map=$top/librpcrdma.map

vi=$(sed -n 's/.*-version-info \([0-9]*\):\([0-9]*\):\([0-9]*\).*/\1 \3/p' \
	"$top/Makefile.am" | head -n 1)
[ -n "$vi" ] || { echo "gen-symbols: no -version-info in Makefile.am" >&2; exit 1; }
set -- $vi
major=$(($1 - $2))

# The whole map at once (perl-base is essential on Debian): comments
# out, then each "NODE { ... } [PARENT];" block, its global: part split
# on ";". Local-only nodes and wildcards export nothing by name.
lines=$(perl -0777 -ne '
	s{/\*.*?\*/}{ }gs;
	s{#[^\n]*}{ }g;
	my $n = 0;
	while (/([A-Za-z_][A-Za-z0-9_.]*)\s*\{(.*?)\}\s*[A-Za-z0-9_.]*\s*;/gs) {
		my ($node, $body) = ($1, $2);
		$node =~ /^RPCRDMA_(\d+)\.(\d+)(?:\.(\d+))?$/
			or die "gen-symbols: version node $node is not RPCRDMA_A.B\n";
		my $ver = "$1.$2." . (defined $3 ? $3 : 0);
		$n++;
		print " $node\@$node $ver\n";
		$body =~ s/\blocal\s*:.*//s;
		$body =~ s/^.*?\bglobal\s*://s or next;
		for my $s (split /;/, $body) {
			$s =~ s/^\s+|\s+$//g;
			next if $s eq "";
			$s =~ /^[A-Za-z_][A-Za-z0-9_]*$/
				or die "gen-symbols: \"$s\" in $node is not a symbol name\n";
			print " $s\@$node $ver\n";
		}
	}
	$n or die "gen-symbols: no version node in the map\n";
' "$map") || exit 1

echo "librpcrdma.so.$major librpcrdma$major #MINVER#"
echo "* Build-Depends-Package: librpcrdma-dev"
printf '%s\n' "$lines" | LC_ALL=C sort
