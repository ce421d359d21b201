# rpcrdma-stat(1) on live processes (issue 29): the counters every
# process of the library exports (engine/export.c, /dev/shm/rpcrdma.PID)
# read while an rpcgen server (bench/rb_server) and a client making calls
# run: the summary lists both, the server's detail shows its connection
# from the client's address with messages received, a second round (-w)
# shows rates; an unprivileged process's file is read by root; a process
# killed leaves its file, which is skipped, and its connection leaves the
# server's list; a process that exits removes its file; RPCRDMA_STATS=0
# exports nothing.
# vm-timeout: 240
# vm-first-boot-only: the export is the same code on every kernel
set -u
for c in rpcbind setpriv rpcinfo; do
	command -v $c >/dev/null || { echo "$c not installed"; exit 77; }
done
B=${RPCRDMA_ADDR_B:-10.99.0.2}
A=${RPCRDMA_ADDR_A:-10.99.0.1}
srv=./bench/rb_server
cli=./bench/rb_client
stat=./tools/rpcrdma-stat
dir=/dev/shm
work=$(mktemp -d /tmp/stat.XXXXXX) || exit 1
spid=
cpid=
rpid=
fails=0
cleanup() {
	for p in $cpid $spid $rpid; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
# Waits up to 20 s for a command to succeed.
until_ok() {
	for _ in $(seq 100); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}

. "$RPCRDMA_SRCDIR/tests/vm/rpcbind-lib.sh"
rpcbind_up || { echo "FAIL: rpcbind did not start"; exit 1; }
rpid=$rpcbind_pid
# The server as nobody: its file is its own (0600); root reads it.
setpriv --reuid=65534 --regid=65534 --clear-groups -- \
	"$srv" -n rdma >"$work/server.log" 2>&1 &
spid=$!
until_ok grep -q '^rb_server: serving' "$work/server.log" ||
	{ cat "$work/server.log"; echo "FAIL: rb_server did not start"; exit 1; }

# A client that keeps calling until it is killed (2 threads on one
# CLIENT, far more calls than the test lasts). The files are made with
# each process's first RDMA endpoint.
RPCRDMA_SRCADDR=$A "$cli" -n rdma "$B" rate 2 10000000 shared >"$work/client.log" 2>&1 &
cpid=$!
until_ok test -f "$dir/rpcrdma.$cpid" || bad "no file for the client"
until_ok test -f "$dir/rpcrdma.$spid" || bad "no file for the server"
ls -l "$dir/rpcrdma.$spid" "$dir/rpcrdma.$cpid"
[ "$(stat -c '%U %a' "$dir/rpcrdma.$spid" 2>/dev/null)" = "nobody 600" ] &&
	ok "the server's file is its user's, mode 0600" ||
	bad "the server's file: $(stat -c '%U %a' "$dir/rpcrdma.$spid" 2>&1)"
until_ok sh -c "$stat $spid | grep -q 'connection .*: from $A:'"

echo "\$ rpcrdma-stat"
"$stat" | tee "$work/summary"
grep -Eq "^ *$spid +rb_server +0 +1 " "$work/summary" &&
	ok "summary: the server with 1 server connection" ||
	bad "summary: no line for the server"
grep -Eq "^ *$cpid +rb_client +1 +0 " "$work/summary" &&
	ok "summary: the client with 1 client connection" ||
	bad "summary: no line for the client"

echo "\$ rpcrdma-stat -w 1 -c 2 $spid"
"$stat" -w 1 -c 2 "$spid" | tee "$work/detail"
grep -q "connection .*: from $A:" "$work/detail" &&
	ok "detail: the connection and its peer" || bad "detail: no connection from $A"
grep -Eq 'recv_msg [1-9][0-9]* \([1-9][0-9]*/s\)' "$work/detail" &&
	ok "watch: the messages received and their rate" ||
	bad "watch: no recv_msg rate"
grep -Eq 'credits_granted [0-9]+ \(' "$work/detail" &&
	bad "a gauge shown with a rate" || ok "gauges have no rate"

# The client killed: its file stays, the summary skips it, and its
# connection leaves the server's list.
kill -9 "$cpid"
wait "$cpid" 2>/dev/null
[ -e "$dir/rpcrdma.$cpid" ] && ok "a killed process leaves its file" ||
	echo "note: the killed client's file is gone"
"$stat" | grep -Eq "^ *$cpid " && bad "a dead process listed" ||
	ok "a dead process's file is skipped"
"$stat" "$cpid" >"$work/dead"
[ $? -eq 1 ] && grep -q "no counters" "$work/dead" &&
	ok "asked for by pid: no counters, exit 1" || bad "dead pid: $(cat "$work/dead")"
rm -f "$dir/rpcrdma.$cpid"
cpid=
until_ok sh -c "! $stat $spid | grep -q 'connection '" &&
	ok "the killed client's connection is gone from the server's" ||
	bad "the server still shows a connection"

# A client that ends normally removes its file.
RPCRDMA_SRCADDR=$A "$cli" -n rdma "$B" lat 5 >"$work/short.log" 2>&1 &
short=$!
wait "$short" || bad "a short client failed: $(cat "$work/short.log")"
[ -e "$dir/rpcrdma.$short" ] && bad "the client's file outlived it" ||
	ok "a process that exits removes its file"

kill "$spid"
wait "$spid" 2>/dev/null
rm -f "$dir/rpcrdma.$spid"
spid=

# Turned off: no file.
RPCRDMA_STATS=0 RPCRDMA_PORT=20049 "$srv" -n rdma >"$work/off.log" 2>&1 &
spid=$!
until_ok grep -q '^rb_server: serving' "$work/off.log"
RPCRDMA_PORT=20049 RPCRDMA_SRCADDR=$A "$cli" -n rdma "$B" lat 3 >/dev/null ||
	bad "a call to the server without export failed"
[ -e "$dir/rpcrdma.$spid" ] && bad "RPCRDMA_STATS=0 made a file" ||
	ok "RPCRDMA_STATS=0: no file"

[ $fails -eq 0 ] || exit 1
echo "stat: every check passed"
