#!/bin/sh
# The README's server main (the indented block after "rpcgen's generated
# server main() only knows udp/tcp") builds and links against this build,
# with PROG, VERS, prog_1 and prog.h taken from bench/rb.x's rpcgen
# output: a user who copies it gets a program that compiles.
# Run by make check from the build directory (srcdir set by automake).
set -u
top=${srcdir:-.}
b=$(pwd)
[ -f .libs/librpcrdma.so ] || { echo "check_readme_main: no shared library: skipped"; exit 77; }
[ -f bench/rb.h ] && [ -f bench/rb_svc.c ] || { echo "check_readme_main: bench/rb.h not generated: skipped"; exit 77; }
command -v pkg-config >/dev/null || { echo "check_readme_main: no pkg-config: skipped"; exit 77; }
cc=${CC:-cc}
# A sanitizer build's library needs its runtime first in the program.
if readelf -d .libs/librpcrdma.so | grep -q 'NEEDED.*libasan'; then
	cc="$cc -fsanitize=address,undefined"
fi
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# The block: the first indented "#include <stdio.h>" after the marker up
# to the closing brace of main, indentation removed.
awk '/server main\(\) only knows udp\/tcp/ { on = 1 }
	on && /^    #include <stdio.h>/ { grab = 1 }
	grab { sub(/^    /, ""); print }
	grab && /^}/ { exit }' "$top/README" >"$tmp/main.c"
lines=$(wc -l <"$tmp/main.c")
if [ "$lines" -lt 10 ] || ! grep -q 'svc_run' "$tmp/main.c"; then
	echo "check_readme_main: the README's server main was not found"
	exit 1
fi
sed -i -e 's/"prog.h"/"rb.h"/' -e 's/\bprog_1\b/rbprog_1/g' \
	-e 's/\bPROG\b/RBPROG/g' -e 's/\bVERS\b/RBVERS/g' "$tmp/main.c"
# The dispatch function: a stub standing for the user's rpcgen -m output.
cat >"$tmp/dispatch.c" <<'C'
#include <rpc/rpc.h>
void rbprog_1(struct svc_req *rqstp, SVCXPRT *transp)
{
	(void)rqstp;
	svc_sendreply(transp, (xdrproc_t)(void (*)(void))xdr_void, NULL);
}
C
# shellcheck disable=SC2046
if ! $cc -std=c11 -Wall -Wextra -Werror -o "$tmp/server" -I"$b/bench" \
	-I"$(cd "$top" && pwd)/include" $(pkg-config --cflags libtirpc) \
	"$tmp/main.c" "$tmp/dispatch.c" -L"$b/.libs" -lrpcrdma \
	$(pkg-config --libs libtirpc); then
	echo "check_readme_main: the README's server main does not build:"
	cat "$tmp/main.c"
	exit 1
fi
echo "check_readme_main: the README's server main ($lines lines) builds"
