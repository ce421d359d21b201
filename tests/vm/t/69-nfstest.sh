# A third-party conformance tool: nfstest_rdma (NetApp's nfstest 3.2, as
# Debian trixie packages it; fetched on the host by tests/vm/nfstest-fetch.sh
# into RPCRDMA_T_NFSTEST) drives the Linux kernel's NFSv3 client over rdma
# against our nfs/nfs3d, and checks from a packet capture on the client's
# veth the RPC-over-RDMA chunk lists of every READ, WRITE, READDIR(PLUS)
# and READLINK: segments, handles, offsets, XDR positions, RDMA fragments.
# When nfs3d fails a test, the same tests run against the kernel's nfsd
# in the same boot, the reference: the suite fails on any test nfs3d
# fails where nfsd passes (a test nfsd fails too says the boot cannot
# judge); every test's verdict is printed. Without RPCRDMA_T_NFSTEST it fails when RPCRDMA_T_NEED_NFSTEST
# is set (tools/test.sh, so CI), else skips. RPCRDMA_T_NFSTEST_RUNTEST
# picks tests (nfstest's --runtest; "all": its 11). By default four, one
# per kind of chunk: basic01 (the RPC-over-RDMA header), basic04
# (READLINK replies, reply chunks: where nfs3d failed before it returned
# an unused one with length 0), read01 (READ data in write chunks) and
# write01 (WRITE data in read chunks). basic03 (READDIRPLUS in reply
# chunks, 12 s) left the default for CI's time: 66-nfs3d lists 500
# names with the kernel's client and checks the reply chunks. All 11
# take about 340 s against nfsd and 230 s against nfs3d alone under TCG
# (both passed all 11 on 2026-11-27).
# vm-timeout: 900
# vm-first-boot-only: nfs3d's wire form does not depend on the kernel; the kernel's nfsd is the reference of the same boot
name=69-nfstest
nt=${RPCRDMA_T_NFSTEST:-}
if [ -z "$nt" ] || [ ! -x "$nt/usr/bin/nfstest_rdma" ]; then
	echo "$name: nfstest not fetched (tests/vm/nfstest-fetch.sh)"
	[ -n "${RPCRDMA_T_NEED_NFSTEST:-}" ] && exit 1
	exit 77
fi
for c in rpcbind mount.nfs tcpdump python3; do
	command -v $c >/dev/null || { echo "$c not installed"; exit 77; }
done
modprobe -a rpcrdma nfs nfsv3 nfsd || { echo "no rpcrdma/nfs/nfsd modules"; exit 77; }
# The binary, not libtool's wrapper (tests/vm/prog-lib.sh).
. "$RPCRDMA_SRCDIR/tests/vm/prog-lib.sh" || exit 1
prog "$RPCRDMA_BUILDDIR" nfs/nfs3d
srv=$REPLY
[ -x "$srv" ] || { echo "$name: $srv not built"; exit 1; }
A=${RPCRDMA_ADDR_A:?}
B=${RPCRDMA_ADDR_B:?}
# nfstest's setup writes its files over tcp port 2049 whatever --port
# says: both servers take the standard ports, one after the other.
RDMA_PORT=20049
TCP_PORT=2049
MNT_PORT=20048
top=/run/nfstest-t
exp=$top/export
mnt=$top/mnt
log=$top/nfs3d.log
. "$RPCRDMA_SRCDIR/tests/vm/nfs3d-lib.sh"
. "$RPCRDMA_SRCDIR/tests/vm/nfsd-lib.sh"
cleanup() {
	nfs3d_cleanup
	nfsd_cleanup
	ip rule del pref 9 2>/dev/null
}
trap cleanup EXIT
nfsd_require
# The kernel client resolves the server's address with no source
# (xprtrdma's rdma_resolve_addr): B is local, and its connection would
# loop back inside rxe1, never crossing v0, where nfstest captures
# ("Packet trace file is empty"). For this suite what this host sends
# to B goes by v0 from A, as from another machine (guest-setup.sh's
# table 10; the replies already take v1 by table 11).
ip rule add pref 9 iif lo to "$B" lookup 10 || die "ip rule for $B by v0"
mkdir -p "$top" && mount -t tmpfs -o size=512m tmpfs "$top" || die "tmpfs on $top"
mkdir -p "$exp" "$mnt" "$top/tmp" || die "mkdir"
# The kernel's nfsd, the reference: started only when nfs3d failed a test
# (below), on the ports nfs3d gave back.
start_nfsd() {
	local o
	nfsd_export /run/nfstest-nfsd 512m 7369
	echo 0 >/proc/fs/nfsd/threads 2>/dev/null
	o=$(rpc.nfsd -N 4 -N 4.1 -N 4.2 4 2>&1) || die "rpc.nfsd: $o"
	grep -q '^rdma 20049$' /proc/fs/nfsd/portlist ||
		echo "rdma 20049" >/proc/fs/nfsd/portlist || die "nfsd on rdma 20049"
	rpc.mountd -N 4 -p $MNT_PORT || die "rpc.mountd"
}
# nfstest finds this host's address by a route to 8.8.8.8, else by
# resolving HOSTNAME (a loopback answer sends it round for ever): the
# client's address, the guest has no default route. It runs its
# commands through the shell: tcpdump by "exec", as under dash its
# default wrapper fails, writing each packet at once (-U: what it
# buffered is lost when it is stopped); with an 8 MiB buffer (its default, 192 MB, is
# a tenth of the guest) and 3 s (its default is 2) for the capture to settle under TCG.
export HOSTNAME=$A
i=$(ip -o -4 addr show | awk -v a="$A" '$4 ~ "^" a "/" { print $2; exit }')
[ -n "$i" ] || die "no interface holds $A"

tests=${RPCRDMA_T_NFSTEST_RUNTEST:-basic01,basic04,read01,write01}

# run WHO PORT MOUNTPORT EXPORT: nfstest_rdma's verdict per test in
# $top/WHO.tests ("basic01 PASS", FAIL when any of its checks failed,
# from its xunit report), its output in $top/WHO.out.
run() {
	local who=$1 port=$2 mport=$3 e=$4 t1 rc
	t1=$(date +%s)
	PYTHONPATH=$nt/usr/lib/python3/dist-packages timeout 600 python3 \
		"$nt/usr/bin/nfstest_rdma" --server "$B" --export "$e" \
		--nfsversion 3 --proto rdma --port "$port" \
		--mtopts "hard,mountport=$mport,mountproto=tcp,nolock" \
		--mtpoint "$mnt" --interface "$i" --client-ipaddr "$A" \
		--tcpdump "exec tcpdump -U" --tbsize 8192 --trcdelay 3 \
		--tmpdir "$top/tmp" \
		--notty --rmtraces --xunit-report --runtest "$tests" \
		--xunit-report-file "$top/$who.xml" >"$top/$who.out" 2>&1
	rc=$?
	say "nfstest_rdma against $who ($tests): exit status $rc after $(($(date +%s) - t1)) s"
	cp "$top/$who.out" "$top/$who.xml" "${RPCRDMA_VM_RESULTS:?}/" 2>/dev/null
	: >"$top/$who.tests"
	[ -s "$top/$who.xml" ] || { tail -n 30 "$top/$who.out"; return 0; }
	python3 - "$top/$who.xml" >"$top/$who.tests" <<'PY'
import sys, xml.dom.minidom
v = {}
for c in xml.dom.minidom.parse(sys.argv[1]).getElementsByTagName("testcase"):
    t = c.getAttribute("classname")
    bad = bool(c.getElementsByTagName("failure"))
    v[t] = "FAIL" if bad or v.get(t) == "FAIL" else "PASS"
for t in v:
    print(t, v[t])
PY
	sed "s/^/$name:   $who: /" "$top/$who.tests"
	# The first failure in full (a traceback says where), and how the
	# capture was taken.
	awk '/^ *FAIL: / { n = 25 } n-- > 0' "$top/$who.out" | head -n 25 |
		sed "s/^/$name:   $who: /"
	grep -m 2 -i -E "trace start|tcpdump" "$top/$who.out" | sed "s/^/$name:   $who: /"
}
# The standard ports are nfs3d's: no nfsd or mountd of an earlier suite.
[ -w /proc/fs/nfsd/threads ] && echo 0 >/proc/fs/nfsd/threads
pkill -x rpc.mountd
# nfstest's setup mounts over tcp, which asks rpcbind (stopped at exit
# by nfs3d_cleanup when started here).
if ! pgrep -x rpcbind >/dev/null; then
	rpcbind -w || die "rpcbind would not start"
	started_rpcbind=1
fi
start_server -o rw,no_root_squash
run nfs3d $RDMA_PORT $MNT_PORT "$exp"
[ -s "$top/nfs3d.tests" ] || { tail -n 30 "$top/nfs3d.out"; die "nfstest_rdma ran no test against nfs3d"; }
# Every test passed: nothing for the reference to judge (it ran the same
# five in about 60 s, and passed them in every run so far).
if ! grep -q FAIL "$top/nfs3d.tests"; then
	say "nfs3d passes every nfstest_rdma test run ($(wc -l <"$top/nfs3d.tests")); the kernel's nfsd, the reference, runs only when nfs3d fails one"
	exit 0
fi
# A failure: is it nfs3d's, or this boot's? The same tests against the
# kernel's nfsd on the same ports.
stop_server
start_nfsd
run nfsd $RDMA_PORT $MNT_PORT /run/nfstest-nfsd
[ -s "$top/nfsd.tests" ] || { tail -n 30 "$top/nfsd.out"; die "nfstest_rdma ran no test against nfsd"; }
# The reference must pass here, or this boot cannot judge nfs3d.
if grep -q FAIL "$top/nfsd.tests"; then
	die "nfsd failed:$(awk '$2 == "FAIL" { printf " %s", $1 }' "$top/nfsd.tests"): the setup, not nfs3d, is wrong"
fi
worse=
while read -r t v; do
	w=$(awk -v t="$t" '$1 == t { print $2 }' "$top/nfs3d.tests")
	[ "$v" = PASS ] && [ "$w" != PASS ] && worse="$worse $t"
done <"$top/nfsd.tests"
[ -z "$worse" ] || { grep -E "^ *FAIL: " "$top/nfs3d.out" | head -n 20; die "nfs3d fails where nfsd passes:$worse"; }
say "nfs3d passes every nfstest_rdma test nfsd passes ($(grep -c PASS "$top/nfsd.tests") of $(wc -l <"$top/nfsd.tests") on nfsd, $(grep -c PASS "$top/nfs3d.tests") on nfs3d)"
