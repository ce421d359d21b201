#!/bin/sh
# The Debian symbols file (debian/librpcrdma0.symbols) is what
# tools/gen-symbols.sh makes of the version script: a symbol added to
# librpcrdma.map without regenerating the file fails here, before the
# package build's dpkg-gensymbols -c4 would.
set -u
top=${srcdir:-.}
want=$top/debian/librpcrdma0.symbols
got=$(sh "$top/tools/gen-symbols.sh" "$top") || { echo "check_symbols: gen-symbols failed"; exit 1; }
if ! printf '%s\n' "$got" | diff -u "$want" -; then
	echo "check_symbols: $want is not tools/gen-symbols.sh's output;" \
		"run tools/gen-symbols.sh > debian/librpcrdma0.symbols"
	exit 1
fi
n=$(grep -c '^ ' "$want")
echo "check_symbols: debian/librpcrdma0.symbols matches librpcrdma.map ($n symbols)"
