# The kernel's nfsd for a guest test, sourced by t/65-nfsd.sh and
# t/68-nfs41cb.sh: nfs-utils' state on a tmpfs in the guest's memory (not
# on the host's disk the guest shares) and the export on a tmpfs of its
# own (a 9p directory cannot be exported). The caller defines die() and
# calls nfsd_cleanup from its EXIT trap.

# Skips the test (77) when nfs-utils or the modules are missing.
nfsd_require() {
	local c
	for c in rpcbind exportfs rpc.mountd rpc.nfsd; do
		command -v $c >/dev/null || { echo "$c not installed"; exit 77; }
	done
	modprobe -a nfsd rpcrdma || { echo "no nfsd/rpcrdma modules"; exit 77; }
}

nfsd_started_rpcbind=
nfsd_dir=

# nfsd_export DIR SIZE FSID: a tmpfs of SIZE on DIR exported read-write
# to everyone with fsid=FSID, rpcbind running. nfsd itself is the
# caller's (its versions differ).
nfsd_export() {
	nfsd_dir=$1
	mkdir -p /proc/fs/nfsd 2>/dev/null
	grep -q ' /proc/fs/nfsd ' /proc/mounts ||
		mount -t nfsd nfsd /proc/fs/nfsd ||
		die "cannot mount the nfsd file system"
	mount -t tmpfs tmpfs /var/lib/nfs && : >/var/lib/nfs/etab &&
		: >/var/lib/nfs/rmtab || die "tmpfs on /var/lib/nfs"
	mkdir -p "$nfsd_dir" && mount -t tmpfs -o size="$2" tmpfs "$nfsd_dir" ||
		die "tmpfs on $nfsd_dir"
	if ! pgrep -x rpcbind >/dev/null; then
		rpcbind -w || die "rpcbind would not start"
		nfsd_started_rpcbind=1
	fi
	exportfs -o rw,insecure,no_root_squash,no_subtree_check,fsid="$3" \
		"*:$nfsd_dir" || die "exportfs failed"
}

# Stops what nfsd_export and the caller's nfsd started, for the tests
# after it.
nfsd_cleanup() {
	[ -w /proc/fs/nfsd/threads ] && echo 0 >/proc/fs/nfsd/threads
	exportfs -ua 2>/dev/null
	pkill -x rpc.mountd
	[ -n "$nfsd_started_rpcbind" ] && pkill -x rpcbind
	sleep 0.2
	umount /var/lib/nfs 2>/dev/null
	[ -n "$nfsd_dir" ] && umount "$nfsd_dir" 2>/dev/null
	return 0
}
