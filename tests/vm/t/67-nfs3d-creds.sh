# Our server (nfs/nfs3d) runs each call as its caller, over rdma: the
# Linux kernel's client mounts it and users other than root (setpriv)
# read, write and create through the mount. Files they create are theirs
# on the server's disk (a companion thread took their fsuid: nothing
# chowns them), modes and groups are enforced, the owner writes its
# read-only file, four users at once keep their own files (each byte
# checked); the transport's counters show that no thread that commands the
# RDMA device switched (cred_changes 0, permission_errors 0: the switches
# happen on companions) and no connection was lost. Then nfs3d -o
# ro,root_squash -M 262144: root is nobody, writes are refused and
# the kernel's rsize/wsize come within the 256 KiB messages (FSINFO from
# rpcrdma_svc_limits), with a 3 MiB file read back intact.
# vm-timeout: 300
# vm-first-boot-only: nfs3d's credential handling over the transport paths 66-nfs3d takes on every boot
for c in rpcbind mount.nfs umount cmp setpriv; do
	command -v $c >/dev/null || { echo "$c not installed"; exit 77; }
done
modprobe -a rpcrdma nfs nfsv3 || { echo "no rpcrdma/nfs modules"; exit 77; }

# The binary, not libtool's wrapper (tests/vm/prog-lib.sh).
. "$RPCRDMA_SRCDIR/tests/vm/prog-lib.sh" || exit 1
prog "$RPCRDMA_BUILDDIR" nfs/nfs3d
srv=$REPLY
[ -x "$srv" ] || { echo "67-nfs3d-creds: $srv not built"; exit 1; }
B=${RPCRDMA_ADDR_B:?}
RDMA_PORT=20052
TCP_PORT=2052
MNT_PORT=20053
top=/run/nfs3d-creds
exp=$top/export
mnt=$top/mnt
log=$top/nfs3d.log
name=67-nfs3d-creds
. "$RPCRDMA_SRCDIR/tests/vm/nfs3d-lib.sh"

do_mount() {
	local o="vers=3,proto=rdma,port=$RDMA_PORT,mountport=$MNT_PORT,mountproto=tcp,nolock,soft,timeo=300,retrans=2"
	mount -t nfs -o "$o" "$B:$exp" "$mnt" || die "mount over rdma failed"
	grep " $mnt " /proc/mounts | sed 's/^/67-nfs3d-creds:   /'
}
as() {	# uid gid groups(,-separated or -) command...
	local u=$1 g=$2 gs=$3
	shift 3
	if [ "$gs" = - ]; then
		setpriv --reuid="$u" --regid="$g" --clear-groups -- "$@"
	else
		setpriv --reuid="$u" --regid="$g" --groups="$gs" -- "$@"
	fi
}
owner() { stat -c %u:%g "$1"; }

mkdir -p "$top" && mount -t tmpfs -o size=256m tmpfs "$top" || die "tmpfs on $top"
mkdir -p "$exp" "$mnt"
chmod 0755 "$exp"
echo secret >"$exp/secret" && chmod 0600 "$exp/secret"
echo shared >"$exp/shared" && chmod 0644 "$exp/shared"
echo group >"$exp/grp" && chown 0:2000 "$exp/grp" && chmod 0640 "$exp/grp"
mkdir "$exp/pub" && chmod 0777 "$exp/pub"
if ! pgrep -x rpcbind >/dev/null; then
	rpcbind -w || die "rpcbind would not start"
	started_rpcbind=1
fi

start_server -o rw,no_root_squash
do_mount
before=$(counters | grep "rdma other:")
# Modes and groups, checked by the server as the caller.
as 1000 1000 - cat "$mnt/secret" >/dev/null 2>&1 && die "uid 1000 read a 0600 root file"
[ "$(as 1000 1000 - cat "$mnt/shared")" = shared ] || die "uid 1000 cannot read a 0644 file"
as 1000 1000 - sh -c "echo x >>'$mnt/shared'" 2>/dev/null && die "uid 1000 wrote a 0644 root file"
as 1000 1000 - touch "$mnt/new" 2>/dev/null && die "uid 1000 created in a 0755 root directory"
as 1000 1000 - cat "$mnt/grp" >/dev/null 2>&1 && die "uid 1000 outside group 2000 read a 0640 file"
[ "$(as 1000 1000 2000 cat "$mnt/grp")" = group ] || die "uid 1000 in group 2000 cannot read a 0640 file"
say "modes and groups enforced for uid 1000"
# A new file is its creator's on the server's disk; the owner writes it
# even read-only; another user may not.
head -c 1048576 /dev/urandom >"$top/mine.src"
as 1000 1000 - sh -c "umask 022; cp '$top/mine.src' '$mnt/pub/mine'" || die "uid 1000 cannot create in a 0777 directory"
[ "$(owner "$exp/pub/mine")" = 1000:1000 ] || die "pub/mine is $(owner "$exp/pub/mine") on the server, not 1000:1000"
cmp "$top/mine.src" "$exp/pub/mine" || die "pub/mine differs on the server"
as 1000 1000 - python3 -c "
import os
fd = os.open('$mnt/pub/ro', os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o444)
os.write(fd, b'x' * 100000)
os.close(fd)" || die "the owner could not write its new read-only file"
[ "$(stat -c %s:%a "$exp/pub/ro")" = 100000:444 ] || die "pub/ro: $(stat -c %s:%a "$exp/pub/ro")"
as 1001 1001 - sh -c "echo x >>'$mnt/pub/mine'" 2>/dev/null && die "uid 1001 wrote uid 1000's 0644 file"
say "new files are their creator's (1000:1000 on disk), owner override, uid 1001 refused"
# Four users at once, each its own files, every byte checked.
for u in 1 2 3 4; do
	(
		uid=$((2000 + u))
		mkdir -p "$top/src$u" && head -c 4194304 /dev/urandom >"$top/src$u/blob" &&
			chmod 0644 "$top/src$u/blob" || exit 1
		as $uid $uid - mkdir "$mnt/pub/u$u" || exit 1
		for i in $(seq 8); do
			as $uid $uid - dd if="$top/src$u/blob" of="$mnt/pub/u$u/f$i" bs=65536 \
				skip=$((i - 1)) count=3 status=none || exit 1
		done
		for i in $(seq 8); do
			dd if="$top/src$u/blob" bs=65536 skip=$((i - 1)) count=3 status=none |
				cmp - "$exp/pub/u$u/f$i" || exit 1
			as $uid $uid - cat "$mnt/pub/u$u/f$i" | cmp - "$exp/pub/u$u/f$i" || exit 1
			[ "$(owner "$exp/pub/u$u/f$i")" = $uid:$uid ] || exit 1
		done
	) &
done
fails=0
for j in $(jobs -p); do
	[ "$j" = "$srv_pid" ] && continue
	wait "$j" || fails=$((fails + 1))
done
[ $fails = 0 ] || die "$fails of 4 concurrent users failed (content or owner)"
after=$(counters | grep "rdma other:")
say "4 users x 8 files of 192 KiB at once: contents and owners right"
say "counters: $after"
for f in cred_changes permission_errors disconnects; do
	[ "$(echo "$after" | field $f)" = "$(echo "$before" | field $f)" ] ||
		die "$f moved while users called: $before -> $after"
done
# Root, not squashed: its files are root's.
touch "$mnt/pub/rootfile" || die "root cannot create"
[ "$(owner "$exp/pub/rootfile")" = 0:0 ] || die "root's file is $(owner "$exp/pub/rootfile")"
say "no serving thread switched (cred_changes, permission_errors 0), no disconnect; root's files root's"
umount "$mnt" || die "umount"
stop_server
: >"$log"

# Read-only, root squashed, 256 KiB messages.
head -c 3145728 /dev/urandom >"$exp/big" && chmod 0644 "$exp/big"
echo open >"$exp/pub/open" && chmod 0666 "$exp/pub/open"
start_server -o ro,root_squash -M 262144
do_mount
cat "$mnt/secret" >/dev/null 2>&1 && die "squashed root read a 0600 root file"
touch "$mnt/pub/x" 2>/dev/null && die "a read-only export took a new file"
# A file anyone may write: the export refuses (ACCESS grants no MODIFY,
# as Linux's nfsd on a ro export; WRITE would be NFS3ERR_ROFS, which
# check_nfs3d asserts on the wire).
sh -c "echo x >>'$mnt/pub/open'" 2>/dev/null && die "a read-only export took a write"
[ "$(cat "$exp/pub/open")" = open ] || die "pub/open changed on a read-only export"
rs=$(sed -n "s|.* $mnt nfs .*rsize=\([0-9]*\).*|\1|p" /proc/mounts)
ws=$(sed -n "s|.* $mnt nfs .*wsize=\([0-9]*\).*|\1|p" /proc/mounts)
[ -n "$rs" ] && [ "$rs" -le $((262144 - 8192)) ] || die "rsize $rs above the 256 KiB transport's (FSINFO)"
[ -n "$ws" ] && [ "$ws" -le $((262144 - 8192)) ] || die "wsize $ws above the 256 KiB transport's (FSINFO)"
echo 3 >/proc/sys/vm/drop_caches
cmp "$mnt/big" "$exp/big" || die "3 MiB read with rsize $rs differs"
say "ro,root_squash: root refused a 0600 file, no write or create; rsize $rs wsize $ws within -M 262144, 3 MiB read intact"
umount "$mnt" || die "umount"
stop_server
say "PASS"
