#!/bin/sh
# The shared library exports the installed API and nothing else: the
# dynamic symbols of the built librpcrdma.so, the names librpcrdma.map
# lists and the functions the installed headers declare (plus the libtirpc
# functions xprt_rdma/netid.c interposes, which the map lists apart) must
# be the same set. An internal function that leaks out, a public one the
# map forgets, or a map entry with no declaration fails, by name. Once a
# release ships a name it cannot be withdrawn without a new soname.
# Run by make check from the build directory (srcdir set by automake).
set -u
top=${srcdir:-.}
so=.libs/librpcrdma.so
[ -f "$so" ] || { echo "check_abi: no $so (static-only build): skipped"; exit 77; }
command -v nm >/dev/null || { echo "check_abi: no nm: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# Functions declared at column 0 in the installed headers (check_man.sh's
# rule), less the static inline ones, which have no symbol.
grep -hE '^[A-Za-z][^(;]*[ *](rpcrdma_[a-z0-9_]+|clnt_rdma_create|svc_rdma_create)\(' \
	"$top"/include/rpcrdma/*.h | grep -v '^static' |
	sed -E 's/^[^(]*[ *]([a-z0-9_]+)\(.*/\1/' | sort -u >"$tmp/declared"
# The interposed libtirpc functions: the map's entries after its marker
# line, each of which netid.c must define.
sed -n '/interposed libtirpc functions/,/local:/p' "$top/librpcrdma.map" |
	grep -oE '^[[:space:]]+[a-z_]+;' | tr -d ' \t;' | sort -u >"$tmp/interposed"
# Everything the map exports.
sed -n '/global:/,/local:/p' "$top/librpcrdma.map" |
	grep -oE '^[[:space:]]+[A-Za-z_][A-Za-z0-9_]*;' | tr -d ' \t;' |
	sort -u >"$tmp/map"
# What the library exports (the version node itself, type A, aside).
nm -D --defined-only "$so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' |
	sort -u >"$tmp/exported"

fail=0
say() { echo "check_abi: $*"; fail=1; }
for f in $(cat "$tmp/interposed"); do
	grep -qE "^[A-Za-z].*[ *]$f\(" "$top/xprt_rdma/netid.c" ||
		say "$f: in the map as interposed, but xprt_rdma/netid.c does not define it"
done
sort -u "$tmp/declared" "$tmp/interposed" >"$tmp/expected"
for f in $(comm -23 "$tmp/exported" "$tmp/expected"); do
	say "$f: exported by $so, declared in no installed header"
done
for f in $(comm -13 "$tmp/exported" "$tmp/expected"); do
	say "$f: declared (or interposed) but not exported"
done
for f in $(comm -3 "$tmp/map" "$tmp/expected" | tr -d '\t'); do
	say "$f: librpcrdma.map and the headers disagree"
done
[ "$(wc -l <"$tmp/expected")" -gt 40 ] || say "only $(wc -l <"$tmp/expected") names found: the header scan is broken"
[ "$fail" = 0 ] || exit 1
echo "check_abi: $(wc -l <"$tmp/exported") symbols exported: $(wc -l <"$tmp/declared") declared functions, $(wc -l <"$tmp/interposed") interposed libtirpc functions; ok"
