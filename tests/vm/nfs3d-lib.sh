# Sourced by the guest tests that run our server nfs/nfs3d (t/66-nfs3d.sh,
# t/67-nfs3d-creds.sh). The test sets first: name (its messages' prefix),
# srv (the nfs3d binary), B (the address served), exp (the exported
# directory), top (a tmpfs holding the test's files, unmounted at exit),
# mnt (the mount point), log (nfs3d's output), RDMA_PORT, TCP_PORT,
# MNT_PORT. It gets say, die, start_server [nfs3d options...],
# stop_server, counters, field and an EXIT trap that unmounts, stops the
# server and rpcbind (when started_rpcbind is set) and shows the log.
srv_pid=
started_rpcbind=
t0=$(date +%s)

say() { echo "$name: [$(($(date +%s) - t0)) s] $*"; }
die() { say "FAILED: $*"; exit 1; }
stop_server() {
	[ -n "$srv_pid" ] || return 0
	kill -TERM "$srv_pid" 2>/dev/null
	for _ in $(seq 50); do
		kill -0 "$srv_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$srv_pid" 2>/dev/null
	wait "$srv_pid" 2>/dev/null
	srv_pid=
}
nfs3d_cleanup() {
	umount -f "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
	stop_server
	[ -n "$started_rpcbind" ] && pkill -x rpcbind
	[ -f "$log" ] && { echo "--- server log (tail)"; tail -n 40 "$log"; }
	sleep 0.2
	umount "$top" 2>/dev/null
}
trap nfs3d_cleanup EXIT

start_server() {	# extra nfs3d options...
	"$srv" -a "$B" -p $RDMA_PORT -t $TCP_PORT -m $MNT_PORT -T 4 "$@" \
		"$exp" >>"$log" 2>&1 &
	srv_pid=$!
	for _ in $(seq 100); do
		grep -q "serving $exp" "$log" 2>/dev/null && break
		kill -0 "$srv_pid" 2>/dev/null || die "nfs3d exited: $(tail -n 5 "$log")"
		sleep 0.1
	done
	grep -q "serving $exp" "$log" || die "nfs3d did not start"
	say "nfs3d pid $srv_pid: $(grep "serving $exp" "$log" | tail -n 1)"
}
# The server's counters now (SIGUSR1 prints them), one "key=value" each.
counters() {
	local n
	n=$(grep -c "rdma chunks:" "$log")
	kill -USR1 "$srv_pid" || die "server gone"
	for _ in $(seq 50); do
		[ "$(grep -c "rdma chunks:" "$log")" -gt "$n" ] && break
		sleep 0.1
	done
	grep "^nfs3d: " "$log" | tail -n 120 |
		awk '/rdma messages:/ { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }'
}
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" | tail -n 1; }
