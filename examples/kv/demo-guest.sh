#!/bin/bash
# examples/kv/demo-guest.sh [BUILDDIR]
#
# The kv example end to end, run as root inside the Soft-RoCE guest by
# tools/demo.sh (through tests/vm/run) and by tests/vm/t/60-kv.sh. It
# starts rpcbind (if none runs), then kv_server (on every address, among
# them $RPCRDMA_ADDR_B) and kv_client to $RPCRDMA_ADDR_B from
# $RPCRDMA_ADDR_A (RPCRDMA_SRCADDR), first over the netid "rdma", then
# over "tcp" with the same binaries:
#   put a small value (inline), put a 200 KiB file (its bytes in a read
#   chunk at their XDR position), get it back (written straight into the
#   write chunk the client's DDP hint offers) and compare checksums and
#   bytes, list, del, stat; over rdma a client watching the store gets
#   the put and the del of another client by callback (RFC 8167), and
#   the server's live counters by rpcrdma-stat.
# Over rdma the client's transport counters must show the paths named.
# Prints every step; exits 0 when every check passed, 1 otherwise.
set -u

build=${1:-${top_builddir:-build}}
# KV_BIN: where kv_server and kv_client are (default BUILDDIR/examples/kv;
# tests/vm/t/60-kv.sh: the example built against the installed package),
# KV_STAT: the rpcrdma-stat to run (default BUILDDIR/tools/rpcrdma-stat).
srv=${KV_BIN:-$build/examples/kv}/kv_server
cli=${KV_BIN:-$build/examples/kv}/kv_client
stat=${KV_STAT:-$build/tools/rpcrdma-stat}
A=${RPCRDMA_ADDR_A:-10.99.0.1}
B=${RPCRDMA_ADDR_B:-10.99.0.2}
T=${KV_DEMO_TIMEOUT:-120}	# seconds per client command (TCG is slow)
# KV_DEMO_NETIDS: the netids to run, "rdma tcp" unless given
# (tests/vm/t/85-rdma6.sh: "rdma6" between IPv6 addresses).
BIG=204800			# 200 KiB: above any inline threshold

for p in "$srv" "$cli"; do
	if [ ! -x "$p" ]; then
		echo "demo: $p not built (make in $build first)" >&2
		exit 1
	fi
done

work=$(mktemp -d /tmp/kv-demo.XXXXXX) || exit 1
spid=
rpid=
checks=0
fails=0

cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

say() {
	printf '\n==> %s\n' "$*"
}
ok() {
	checks=$((checks + 1))
	echo "    OK: $*"
}
bad() {
	checks=$((checks + 1))
	fails=$((fails + 1))
	echo "    FAIL: $*"
}

# Runs the client; its output goes to the terminal and to $work/last.
kv() {
	echo "\$ kv_client -n $netid $B $*"
	timeout -k 5 "$T" "$cli" -n "$netid" "$B" "$@" >"$work/last" 2>&1
	local rc=$?
	sed 's/^/    /' "$work/last"
	return $rc
}
# The crc32 the client printed in its last output.
last_crc() {
	sed -n 's/.*crc32 \([0-9a-f]\{8\}\).*/\1/p' "$work/last" | head -n 1
}
# Asserts that the last output's "path:" line matches a pattern (rdma).
path_is() {
	local what=$1 re=$2 line
	case $netid in rdma | rdma6) ;; *) return 0 ;; esac
	line=$(grep ' path:' "$work/last" | head -n 1)
	if echo "$line" | grep -E -q "$re"; then
		ok "$what"
	else
		bad "$what (counters said: ${line:-no path line})"
	fi
}

start_rpcbind() {
	if rpcinfo -p 127.0.0.1 >/dev/null 2>&1; then
		echo "rpcbind already runs"
		return 0
	fi
	mkdir -p /run/rpcbind
	rpcbind -f &
	rpid=$!
	for _ in $(seq 50); do
		rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && {
			echo "rpcbind started (pid $rpid)"
			return 0
		}
		sleep 0.2
	done
	echo "demo: rpcbind did not start" >&2
	return 1
}

start_server() {
	: >"$work/server.log"
	# The plain rpcgen way: svc_tp_create on every local address ($B
	# among them), registered with rpcbind, where the client finds it.
	echo "\$ kv_server -n $netid &"
	"$srv" -n "$netid" >"$work/server.log" 2>&1 &
	spid=$!
	# Ready when it answers NULL (found through rpcbind, like any call).
	for _ in $(seq 30); do
		if ! kill -0 "$spid" 2>/dev/null; then
			echo "demo: kv_server exited:" >&2
			sed 's/^/    /' "$work/server.log" >&2
			spid=
			return 1
		fi
		if timeout -k 5 "$T" "$cli" -q -n "$netid" "$B" null \
			>/dev/null 2>&1; then
			sed 's/^/    /' "$work/server.log"
			return 0
		fi
		sleep 1
	done
	echo "demo: kv_server over $netid did not answer" >&2
	sed 's/^/    /' "$work/server.log" >&2
	return 1
}

stop_server() {
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
	say "kv_server's log over $netid (bench requests left out)"
	grep -v ': \(PUT\|GET\|DEL\) bench\.' "$work/server.log" |
		sed 's/^/    /'
}

# One round of operations over $netid.
round() {
	local crc_put crc_get crc_small

	say "netid $netid: kv_server on $B, kv_client from $A"
	if ! start_server; then
		bad "kv_server over $netid started and answered"
		return
	fi
	ok "kv_server over $netid started and answered NULL"
	echo "rpcbind lists (program 0x20004b56 = 536890198):"
	rpcinfo 127.0.0.1 2>&1 | grep -E '^ *program|^ *536890198 ' |
		sed 's/^/    /'

	say "put a small value (fits inline)"
	echo "hello over $netid from $A" >"$work/small"
	if kv put greeting "$work/small"; then
		ok "put greeting"
		crc_small=$(last_crc)
		path_is "the small put went inline" 'inline call'
	else
		bad "put greeting"
	fi

	say "put a 200 KiB file (larger than the inline threshold)"
	if kv put photo "$work/big"; then
		ok "put photo ($BIG bytes)"
		crc_put=$(last_crc)
		path_is "the 200 KiB value went in a read chunk (direct data placement)" \
			'read chunk'
	else
		bad "put photo"
		crc_put=
	fi

	say "get it back"
	rm -f "$work/big.out"
	if kv get photo "$work/big.out"; then
		crc_get=$(last_crc)
		path_is "the 200 KiB value came back in a write chunk (direct data placement)" \
			'write chunk'
		if [ -n "$crc_put" ] && [ "$crc_put" = "$crc_get" ] &&
			cmp -s "$work/big" "$work/big.out"; then
			ok "get photo: $BIG bytes, crc32 $crc_get equals the put's, bytes identical"
		else
			bad "get photo: crc32 put ${crc_put:-none} get ${crc_get:-none}, or bytes differ"
		fi
	else
		bad "get photo"
	fi
	if kv get greeting "$work/small.out" &&
		cmp -s "$work/small" "$work/small.out"; then
		ok "get greeting: crc32 $(last_crc) (put ${crc_small:-none}), bytes identical"
		path_is "the small get came back inline" 'inline repl'
	else
		bad "get greeting"
	fi

	say "list, del, stat"
	if kv list && grep -q 'list: 2 keys' "$work/last" &&
		grep -q "photo .* $BIG bytes" "$work/last"; then
		ok "list shows both keys and the sizes"
	else
		bad "list"
	fi
	if kv del greeting; then
		ok "del greeting"
	else
		bad "del greeting"
	fi
	if kv get greeting; then
		bad "get greeting after del should say not found"
	elif grep -q 'not found' "$work/last"; then
		ok "get greeting after del: not found"
	else
		bad "get greeting after del: wrong error"
	fi
	if kv stat && grep -q "stat: 1 keys, $BIG bytes" "$work/last"; then
		ok "stat: 1 key, $BIG bytes"
	else
		bad "stat"
	fi

	if [ "$netid" = rdma ] || [ "$netid" = rdma6 ]; then
		say "watch: the server calls the subscribed client back (RFC 8167)"
		echo "\$ kv_client -n $netid $B watch 30 &"
		timeout -k 5 60 "$cli" -n "$netid" "$B" watch 30 >"$work/watch" 2>&1 &
		local wpid=$! n
		for _ in $(seq 60); do
			grep -q 'watching' "$work/watch" && break
			sleep 0.5
		done
		kv put news "$work/small" >/dev/null
		kv del news >/dev/null
		for _ in $(seq 60); do
			n=$(grep -c 'changed news' "$work/watch")
			[ "$n" -ge 2 ] && break
			sleep 0.5
		done
		kill "$wpid" 2>/dev/null
		wait "$wpid" 2>/dev/null
		sed 's/^/    /' "$work/watch"
		if grep -q "changed news: put, $(stat -c %s "$work/small") bytes" "$work/watch" &&
			grep -q 'changed news: del, 0 bytes' "$work/watch"; then
			ok "watch: the put and the del came back by callback"
		else
			bad "watch: callbacks missing"
		fi
	elif kv watch 1; then
		bad "watch over $netid should be refused"
	else
		ok "watch over $netid: refused (callbacks need rdma)"
	fi

	say "a short benchmark: 20 puts and 20 gets of 64 KiB, each checked"
	if kv bench 20 64k; then
		ok "bench over $netid: every value came back byte for byte"
	else
		bad "bench over $netid"
	fi
	case $netid in
	rdma | rdma6)
		# The server's live counters, read from outside the process
		# (rpcrdma-stat(1): every process of the library exports
		# them unless RPCRDMA_STATS=0).
		say "the server's counters, as an operator sees them"
		echo "\$ rpcrdma-stat $spid"
		if [ -x "$stat" ] && "$stat" "$spid" >"$work/stat" 2>&1; then
			sed 's/^/    /' "$work/stat"
			if grep -q 'recv_msg [1-9]' "$work/stat"; then
				ok "rpcrdma-stat: the server's messages counted"
			else
				bad "rpcrdma-stat: no messages counted"
			fi
		else
			sed 's/^/    /' "$work/stat" 2>/dev/null
			bad "rpcrdma-stat $spid failed"
		fi
		;;
	esac
	stop_server
}

echo "demo: kv example over ${KV_DEMO_NETIDS:-rdma tcp}, server $B, client $A"
echo "demo: $srv, $cli, $stat; $(uname -r); RDMA devices:" \
	"$(ls /sys/class/infiniband 2>/dev/null | tr '\n' ' ')"
head -c "$BIG" /dev/urandom >"$work/big" || exit 1
start_rpcbind || exit 1

export RPCRDMA_SRCADDR=$A	# the client's source address in the guest
for netid in ${KV_DEMO_NETIDS:-rdma tcp}; do
	round
done

say "summary"
if [ "$fails" = 0 ]; then
	echo "demo: all $checks checks passed"
	exit 0
fi
echo "demo: $fails of $checks checks FAILED"
exit 1
