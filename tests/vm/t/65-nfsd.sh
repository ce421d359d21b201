# Interoperability with the Linux kernel's nfsd (tests/vm/t_nfs): a tmpfs
# exported over NFSv3, nfsd listening on rdma port 20049, our CLIENT
# doing NULL, LOOKUP, GETATTR, FSINFO, READ and WRITE up to rtmax/wtmax
# with the kernel's write and read chunks (softroce-vm.md has the recipe).
# Everything it starts is stopped again for the tests after it.
# vm-timeout: 420
for c in rpcbind exportfs rpc.mountd rpc.nfsd; do
	command -v $c >/dev/null || { echo "$c not installed"; exit 77; }
done
modprobe -a nfsd rpcrdma || { echo "no nfsd/rpcrdma modules"; exit 77; }

dir=/run/rpcrdma-t-nfs
started_rpcbind=
cleanup() {
	[ -w /proc/fs/nfsd/threads ] && echo 0 >/proc/fs/nfsd/threads
	exportfs -ua 2>/dev/null
	pkill -x rpc.mountd
	[ -n "$started_rpcbind" ] && pkill -x rpcbind
	sleep 0.2
	umount /var/lib/nfs 2>/dev/null
	umount "$dir" 2>/dev/null
}
trap cleanup EXIT
die() { echo "65-nfsd: $*"; exit 1; }

mkdir -p /proc/fs/nfsd 2>/dev/null
grep -q ' /proc/fs/nfsd ' /proc/mounts ||
	mount -t nfsd nfsd /proc/fs/nfsd || die "cannot mount the nfsd file system"
# nfs-utils' state (etab, rmtab) in the guest's memory, not on the host's
# disk that the guest shares; the export on a tmpfs of its own (a 9p
# directory cannot be exported).
mount -t tmpfs tmpfs /var/lib/nfs && : >/var/lib/nfs/etab &&
	: >/var/lib/nfs/rmtab || die "tmpfs on /var/lib/nfs"
mkdir -p "$dir" && mount -t tmpfs -o size=64m tmpfs "$dir" || die "tmpfs on $dir"
if ! pgrep -x rpcbind >/dev/null; then
	rpcbind -w || die "rpcbind would not start"
	started_rpcbind=1
fi
exportfs -o rw,insecure,no_root_squash,no_subtree_check,fsid=7319 "*:$dir" ||
	die "exportfs failed"
o=$(rpc.mountd -N 2 -N 4 2>&1) || die "rpc.mountd: $o"
o=$(rpc.nfsd -N 4 -N 4.1 -N 4.2 4 2>&1) || die "rpc.nfsd: $o"
echo "rdma 20049" >/proc/fs/nfsd/portlist || die "nfsd would not listen on rdma 20049"
echo "65-nfsd: nfsd $(cat /proc/fs/nfsd/versions) on $(tr '\n' ' ' </proc/fs/nfsd/portlist)"

RPCRDMA_T_NFS_DIR=$dir ./tests/vm/t_nfs
