# Our CLIENT's backward direction (RFC 8167) against the Linux kernel's
# NFSv4.1 backchannel (tests/vm/nfs41cb): nfsd with NFSv4.1 on rdma port
# 20049, a tmpfs exported as the NFSv4 root (fsid=0); the program creates
# a session whose back channel is its rdma connection, takes a read
# delegation and has it recalled (CB_COMPOUND { CB_SEQUENCE, CB_RECALL }
# answered through rpcrdma_clnt_svc_reg's dispatch), then returns it.
# nfsd's grace period is cut to 10 s (it refuses OPENs during it) and put
# back afterwards; everything it starts is stopped again for the tests
# after it.
# vm-timeout: 240
. "$RPCRDMA_SRCDIR/tests/vm/nfsd-lib.sh" || exit 1
nfsd_require

dir=/run/rpcrdma-t-nfs41cb
old_grace=
cleanup() {
	[ -w /proc/fs/nfsd/threads ] && echo 0 >/proc/fs/nfsd/threads
	# Writable again once nfsd has no threads.
	[ -n "$old_grace" ] && echo "$old_grace" >/proc/fs/nfsd/nfsv4gracetime
	nfsd_cleanup
}
trap cleanup EXIT
die() { echo "68-nfs41cb: $*"; exit 1; }

nfsd_export "$dir" 16m 0
o=$(rpc.mountd -N 2 2>&1) || die "rpc.mountd: $o"
# Only while nfsd is down may the grace time change (minimum 10 s).
old_grace=$(cat /proc/fs/nfsd/nfsv4gracetime) || die "no nfsv4gracetime"
echo 10 >/proc/fs/nfsd/nfsv4gracetime || die "nfsv4gracetime stays $old_grace"
o=$(rpc.nfsd -N 3 -V 4 -V 4.1 -N 4.2 4 2>&1) || die "rpc.nfsd: $o"
echo "rdma 20049" >/proc/fs/nfsd/portlist || die "nfsd would not listen on rdma 20049"
echo "68-nfs41cb: nfsd $(cat /proc/fs/nfsd/versions) on $(tr '\n' ' ' </proc/fs/nfsd/portlist)," \
	"grace $(cat /proc/fs/nfsd/nfsv4gracetime) s, lease $(cat /proc/fs/nfsd/nfsv4leasetime) s"
grep -q '+4.1' /proc/fs/nfsd/versions || die "nfsd without NFSv4.1"

RPCRDMA_T_NFS41CB_DIR=$dir ./tests/vm/nfs41cb || exit 1
# nfsd forgot our client (DESTROY_CLIENTID).
n=$(ls /proc/fs/nfsd/clients 2>/dev/null | wc -l)
[ "$n" = 0 ] || die "nfsd still lists $n client(s)"
echo "68-nfs41cb: passed"
