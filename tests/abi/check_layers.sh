#!/bin/sh
# No circle between the library's files: calls go only down the floors
# below (top first; files on one floor, separated by commas, may not call
# each other either). tools/layers.sh checks the built objects' symbols
# against the order; this test also fails when a source file of lib/,
# engine/ or xprt_rdma/ is on no floor, so a new file must take its place
# here (and in docs/design.md's map). nfs3c's files likewise, below.
# Run by make check from the build
# directory, after the library is built.
set -u
top=${srcdir:-.}

floors="
xprt_rdma/netid.c
xprt_rdma/clnt_rdma.c,xprt_rdma/svc_rdma.c
xprt_rdma/clnt_call.c
xprt_rdma/clnt_bc.c,xprt_rdma/svc_recv.c
xprt_rdma/clnt_conn.c,xprt_rdma/svc_bc.c,xprt_rdma/svc_send.c
xprt_rdma/clnt_marshal.c,xprt_rdma/svc_call.c
xprt_rdma/clnt_reply.c,xprt_rdma/clnt_decode.c
xprt_rdma/clnt_expose.c
xprt_rdma/clnt_slot.c
xprt_rdma/svc_pool.c
xprt_rdma/tirpc.c,xprt_rdma/errtext.c,xprt_rdma/log.c,xprt_rdma/opts.c,xprt_rdma/rpcb.c,xprt_rdma/xdr_grow.c,xprt_rdma/xdr_ddp.c,xprt_rdma/deadline.c
engine/cm.c
engine/ep.c
engine/conns.c
engine/reg.c,engine/xfer.c
engine/send.c,engine/recv.c
engine/core.c
engine/stats.c,engine/pin.c
engine/export.c
lib/recv.c
lib/chunks.c,lib/plan.c,lib/splice.c,lib/credits.c,lib/pvtdata.c
lib/hdr.c
"

# A source's object in this build: the library's own objects carry the
# convenience library's prefix; lib/'s have none.
obj() {
	case $1 in
	lib/*) echo "${1%.c}.o" ;;
	*) echo "$(dirname "$1")/librpcrdma_int_la-$(basename "$1" .c).o" ;;
	esac
}

fail=0
listed=$(echo "$floors" | tr ',' '\n' | grep -v '^$' | sort)
for f in $(cd "$top" && ls lib/*.c engine/*.c xprt_rdma/*.c); do
	echo "$listed" | grep -qx "$f" ||
		{ echo "check_layers: $f is on no floor (tests/abi/check_layers.sh)"; fail=1; }
done
for f in $listed; do
	[ -f "$top/$f" ] ||
		{ echo "check_layers: $f: on a floor, but no such source"; fail=1; }
done
[ "$fail" = 0 ] || exit 1

args=
for fl in $floors; do
	a=
	for f in $(echo "$fl" | tr ',' ' '); do
		a="$a${a:+,}$(obj "$f")"
	done
	args="$args $a"
done
# shellcheck disable=SC2086
out=$(sh "$top/tools/layers.sh" $args 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	echo "$out"
	exit 1
fi
echo "check_layers: $(echo "$listed" | wc -l) files on $(echo "$floors" | grep -c .) floors; $(echo "$out" | tail -n 1)"

# nfs3c, the NFS client tool: main, then its commands, then what they
# share (nfs/nfs3c_common.c).
if [ -f nfs/nfs3c-nfs3c.o ]; then
	out=$(sh "$top/tools/layers.sh" nfs/nfs3c-nfs3c.o \
		nfs/nfs3c-nfs3c_conn.o,nfs/nfs3c-nfs3c_dir.o,nfs/nfs3c-nfs3c_io.o \
		nfs/nfs3c-nfs3c_common.o 2>&1) || { echo "$out"; exit 1; }
	echo "check_layers: nfs3c: $(echo "$out" | tail -n 1)"
fi
