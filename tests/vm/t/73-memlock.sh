# A user without privileges, under Debian's locked-memory limit (ulimit -l
# 8192, no CAP_IPC_LOCK), runs an rpcgen program (bench/rb_server,
# rb_client) over rdma with the library's defaults: every call the
# defaults allow works, reply hint or not; 16 threads on one CLIENT with
# no hint (each call pins a max_msg reply chunk) all succeed, waiting for
# pinned memory rather than failing; a call whose registration alone
# passes the limit fails with a clnt_sperror text that names
# RLIMIT_MEMLOCK; a call over the server's max_msg gets ERR_CHUNK and the
# connection goes on (issue 29; xprt_rdma/opts.c, clnt_expose.c
# ct_pin_wait, engine/pin.c). Then as root, where RLIMIT_MEMLOCK is no
# bound, the library's cap RPCRDMA_MAX_PINNED bounds what a server pins
# for its clients (issue 27).
# vm-timeout: 300
set -u
for c in rpcbind setpriv rpcinfo; do
	command -v $c >/dev/null || { echo "$c not installed"; exit 77; }
done
B=${RPCRDMA_ADDR_B:-10.99.0.2}
srv=./bench/rb_server
cli=./bench/rb_client
work=$(mktemp -d /tmp/memlock.XXXXXX) || exit 1
chmod 755 "$work"
spid=
rpid=
fails=0
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# As nobody, 8 MiB of locked memory, no capability: an ordinary login.
as_user() {
	bash -c 'ulimit -l 8192 && exec "$@"' sh \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all -- "$@"
}
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# What the limit and the defaults are, seen by the user.
echo "memlock as the user: $(as_user bash -c 'ulimit -l') KiB"

. "$RPCRDMA_SRCDIR/tests/vm/rpcbind-lib.sh"
rpcbind_up || { echo "FAIL: rpcbind did not start"; exit 1; }
rpid=$rpcbind_pid
# served LOG: waits for the server started last ($spid) to say it serves.
served() {
	for _ in $(seq 100); do
		grep -q '^rb_server: serving' "$1" && return 0
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	grep -q '^rb_server: serving' "$1" ||
		{ cat "$1"; echo "FAIL: rb_server did not start"; exit 1; }
}
as_user "$srv" -n rdma >"$work/server.log" 2>&1 &
spid=$!
served "$work/server.log"

# run NAME EXPECT(0|1) [env...] -- rb_client args: as the user (as root
# with as= empty); the output kept in $work/NAME.
as=as_user
run() {
	local name=$1 want=$2 rc
	shift 2
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	$as env "${envs[@]}" "$cli" "$@" >"$work/$name" 2>&1
	rc=$?
	sed "s/^/    $name: /" "$work/$name"
	if [ "$want" = 0 ] && [ $rc -ne 0 ]; then
		bad "$name: rb_client $* exited $rc"
		return 1
	fi
	if [ "$want" = 1 ] && [ $rc -eq 0 ]; then
		bad "$name: rb_client $* succeeded where it should fail"
		return 1
	fi
	return 0
}

# Calls the defaults allow, with and without reply hints (-R: none, so
# every call offers a reply chunk of max_msg).
run null-nohint 0 -- -R "$B" lat 20 && ok "NULL calls, no hint"
run null-hint 0 -- "$B" lat 20 && ok "NULL calls, hinted"
run read-nohint 0 -- -R "$B" read 900000 4 &&
	ok "900,000-byte results in the reply chunk"
run read-ddp 0 -- "$B" read 900000 4 &&
	ok "900,000-byte results by direct placement"
run write-long 0 -- -R "$B" write 900000 4 &&
	ok "900,000-byte arguments (read chunks)"
# 16 threads, one CLIENT, no hint: 16 reply chunks of max_msg cannot be
# pinned at once under 8 MiB; calls wait for each other's memory.
run rate-nohint 0 -- -R "$B" rate 16 10 shared &&
	ok "16 threads on one CLIENT, no hint: every call answered"

# One call whose reply chunk alone passes the limit (max_msg raised by
# hand): it fails, and the text names the limit and its knobs.
run over-limit 1 RPCRDMA_MAX_MSG=16777216 -- -R "$B" lat 1 &&
	if grep -q 'RLIMIT_MEMLOCK' "$work/over-limit"; then
		ok "a call the limit cannot hold: clnt_sperror names RLIMIT_MEMLOCK"
	else
		bad "over-limit: no RLIMIT_MEMLOCK in the error text"
	fi
# An argument over the server's max_msg (1 MiB under the limit): the
# server answers ERR_CHUNK, and the server serves the next call.
run over-server 1 RPCRDMA_MAX_MSG=4194304 -- "$B" write 2000000 1 &&
	if grep -q 'ERR_CHUNK' "$work/over-server"; then
		ok "an argument over the server's max_msg: ERR_CHUNK"
	else
		bad "over-server: no ERR_CHUNK in the error text"
	fi
run after 0 -- "$B" lat 5 && ok "the server serves on"
kill -0 "$spid" 2>/dev/null || bad "rb_server exited: $(cat "$work/server.log")"

# As root RLIMIT_MEMLOCK is no bound (CAP_IPC_LOCK): the library's own cap
# (RPCRDMA_MAX_PINNED, engine/pin.c) bounds what a server pins for its
# clients.
# ($spid is the subshell of as_user: the server is its descendant.)
pkill -x -u 65534 rb_server
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
for _ in $(seq 50); do
	pgrep -x -u 65534 rb_server >/dev/null || break
	sleep 0.1
done
as=
RPCRDMA_MAX_PINNED=3M RPCRDMA_MAX_MSG=4194304 "$srv" -n rdma \
	>"$work/server-root.log" 2>&1 &
spid=$!
served "$work/server-root.log"
# The cap is the server's: a client's own calls are not held to it
# (16 threads, no hints: 16 reply chunks of 16 MiB pinned at once).
run cap-client 0 RPCRDMA_MAX_PINNED=1M -- -R "$B" rate 16 5 shared &&
	ok "root client, RPCRDMA_MAX_PINNED=1M: its own calls are not capped"
# The server under a 3 MiB cap (its max_msg 4 MiB): a 3,000,000-byte
# argument's RDMA Read sink cannot be pinned beside its connections'
# buffers: ERR_CHUNK (memlock_refusals), and it serves the next call.
run cap-server 1 -- "$B" write 3000000 1 &&
	if grep -q 'ERR_CHUNK' "$work/cap-server"; then
		ok "root server over its cap: ERR_CHUNK"
	else
		bad "cap-server: no ERR_CHUNK in the error text"
	fi
run cap-after 0 -- "$B" write 1000000 2 && ok "the capped server serves on"
kill -0 "$spid" 2>/dev/null || bad "root rb_server exited: $(cat "$work/server-root.log")"

[ $fails -eq 0 ] || exit 1
echo "memlock: every check passed"
