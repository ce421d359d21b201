#!/bin/sh
# librpcrdma.pc links librpcrdma before libtirpc whatever the order of
# pkg-config's arguments: librpcrdma interposes libtirpc's creators for the
# netid "rdma", and with --as-needed (Debian's default) a program linked
# -ltirpc first would not depend on librpcrdma at all, and clnt_create
# would say "Unknown protocol" (issue 29). The .pc under test is the
# built one with its paths pointed at the build tree; a program linked
# with each order must name librpcrdma in its NEEDED entries and get
# past the netid lookup (any error but "Unknown protocol": no rpcbind or
# RDMA device is needed on the host; without rpcbind, the text must give
# the reason, not "Port mapper failure - Success").
# Run by make check from the build directory (srcdir set by automake).
set -u
top=${srcdir:-.}
b=$(pwd)
[ -f .libs/librpcrdma.so ] || { echo "check_pkgconfig: no shared library: skipped"; exit 77; }
command -v pkg-config >/dev/null || { echo "check_pkgconfig: no pkg-config: skipped"; exit 77; }
pkg-config --exists libtirpc || { echo "check_pkgconfig: no libtirpc.pc: skipped"; exit 77; }
cc=${CC:-cc}
# A sanitizer build's library needs its runtime first in the program.
if readelf -d .libs/librpcrdma.so | grep -q 'NEEDED.*libasan'; then
	cc="$cc -fsanitize=address,undefined"
fi
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

sed -e "s|^libdir=.*|libdir=$b/.libs|" -e "s|^includedir=.*|includedir=$(cd "$top" && pwd)/include|" \
	librpcrdma.pc >"$tmp/librpcrdma.pc"
cat >"$tmp/prog.c" <<'PROG'
#include <rpc/rpc.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	CLIENT *cl = clnt_create("127.0.0.1", 0x20005299, 1, "rdma");
	const char *e;

	if (cl) {
		clnt_destroy(cl);
		puts("created");
		return 0;
	}
	e = clnt_spcreateerror("rdma");
	puts(e);
	return strstr(e, "Unknown protocol") ? 1 : 0;
}
PROG

fail=0
for order in "libtirpc librpcrdma" "librpcrdma libtirpc"; do
	# shellcheck disable=SC2086
	flags=$(PKG_CONFIG_PATH="$tmp" pkg-config --cflags --libs $order) || exit 99
	# shellcheck disable=SC2086
	if ! $cc -o "$tmp/prog" "$tmp/prog.c" -Wl,--as-needed $flags; then
		echo "check_pkgconfig: $order: the program did not build ($flags)"
		fail=1
		continue
	fi
	if ! readelf -d "$tmp/prog" | grep -q 'NEEDED.*librpcrdma'; then
		echo "check_pkgconfig: pkg-config --libs $order = $flags: the program does not depend on librpcrdma"
		fail=1
		continue
	fi
	out=$(RPCRDMA_TIMEOUT_MS=2000 LD_LIBRARY_PATH="$b/.libs" timeout 60 "$tmp/prog")
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "check_pkgconfig: $order: clnt_create(\"rdma\") did not reach librpcrdma: $out"
		fail=1
		continue
	fi
	# Without rpcbind on the host: the reason, not "Success" (issue 29).
	case $out in
	*"Port mapper failure - Success"*)
		echo "check_pkgconfig: rpcbind unreachable reads as: $out"
		fail=1
		continue ;;
	esac
	echo "check_pkgconfig: pkg-config --libs $order: $flags; clnt_create: $out"
done
exit $fail
