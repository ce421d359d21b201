#!/bin/bash
# bench/guest.sh BUILDDIR OUTDIR [quick]: the benchmarks, run inside the
# Soft-RoCE guest by bench/run (one boot). Every figure goes to
# OUTDIR/results.txt as one line "KIND key=value ..."; full tool outputs
# and profiles go beside it. Any step that fails stops the run with its
# reason and a non-zero exit: no figure is ever made up or left stale.
#
#   1. the fabric: perftest over RDMA-CM from rxe0 to rxe1 (ib_send_lat
#      64 B, ib_send_bw 64 B, ib_write_bw and ib_read_bw 4 KiB to 4 MiB)
#   2. the benchmark program (bench/rb.x) over "rdma" (with reply size
#      hints; NULL latency and rate also without) and over libtirpc
#      "tcp", both crossing v0 -> v1: NULL latency (1 in flight), NULL
#      rate (1, 8, 32, 128 in flight; one shared CLIENT, or one CLIENT per
#      thread; 32 also from 4 CLIENTs), bulk results and arguments 4 KiB
#      to 4 MiB
#      and our rdma server again with a pool of 2 threads
#      (rpcrdma_svc_run): NULL rate at 32 in flight, 1 and 4 CLIENTs
#   3. the reference server: the kernel's nfsd (NFSv3 NULL over rdma port
#      20049, and over tcp) from the same client: latency, and NULL rate
#      at 32 in flight from 1 and from 4 CLIENTs
#   4. CPU per NULL call on each side, in user-space instructions
#      (callgrind), with the top functions
#   5. a system-wide profile (perf record, cpu-clock) of 32 threads of
#      NULL calls over each netid
# "quick" makes every count small (a smoke test of the tooling; its
# figures are too short to quote).
set -u
build=${1:?usage: guest.sh BUILDDIR OUTDIR [quick]}
out=${2:?usage: guest.sh BUILDDIR OUTDIR [quick]}
quick=${3:-}
A=$RPCRDMA_ADDR_A
B=$RPCRDMA_ADDR_B
srv=$build/bench/rb_server
cli=$build/bench/rb_client
res=$out/results.txt
srcdir=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out" || exit 1
: >"$res"
export RPCRDMA_SRCADDR=$A
# The largest call or reply (Long Call / Long Reply): 4 MiB of data plus
# the RPC headers, the least this program needs; every call's reply chunk
# has this size today, so it is part of what small calls cost.
export RPCRDMA_MAX_MSG=$(((4 << 20) + (64 << 10)))
. "$srcdir/tests/vm/perftest-pair.sh"

spid= rpid=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null
	perftest_route_off
	[ -e /proc/fs/nfsd/threads ] && echo 0 >/proc/fs/nfsd/threads
}
trap cleanup EXIT
die() {
	echo "bench: FAILED: $*" >&2
	exit 1
}
say() {
	echo "bench: $* (uptime $(cut -d' ' -f1 /proc/uptime) s)"
}
rec() {
	echo "$*" >>"$res"
}

if [ -n "$quick" ]; then
	SIZES="4096 1048576"
	LAT_N=200 RATE_CALLS=400 THREADS="1 32" INSTR_N=100
else
	SIZES="4096 65536 1048576 4194304"
	LAT_N=2000 RATE_CALLS=3000 THREADS="1 8 32 128" INSTR_N=1000
fi
# Iterations per size: about 32 MiB, and at least 16.
iters() {
	local n=$(((32 << 20) / $1))
	[ "$n" -ge 16 ] || n=16
	[ "$n" -le 2000 ] || n=2000
	[ -n "$quick" ] && n=$(((n + 7) / 8))
	[ "$n" -ge 8 ] || n=8
	echo "$n"
}

# All unbound traffic to B leaves by v0 from A: perftest's client (see
# perftest-pair.sh) and libtirpc's tcp client alike, so "tcp" crosses the
# same veth pair as RoCE. Checked below by v0's byte counters.
perftest_route_on || die "cannot add the routing rule for B"

# ---- 1. the fabric ----
say "fabric: perftest rxe0 -> rxe1"
# fabric TAG COLUMN TOOL ARGS...: perftest_pair, retried up to twice when
# a run fails or its COLUMN is zero: perftest 4.5 under TCG now and then
# prints a run of 0.00 (its clock calibration), a figure it did not
# measure, or its client crashes on a rejected connection. Every retry is
# said on stderr; only a complete run's figure is recorded.
fabric() {
	local tag=$1 col=$2 try
	shift 2
	for try in 1 2 3; do
		if ! perftest_pair "$out" "$tag" "$@"; then
			echo "bench: $* failed, again (try $try)" >&2
			continue
		fi
		echo "$PERFTEST_LINE" | awk -v c="$col" '{ exit !($c > 0) }' &&
			return 0
		echo "bench: $* printed a zero result, again (try $try)" >&2
	done
	return 1
}
fabric send_lat 5 ib_send_lat -n $((LAT_N / 2)) -s 64 ||
	die "ib_send_lat failed"
# #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
rec "$(echo "$PERFTEST_LINE" | awk '{ printf "fabric tool=ib_send_lat size=%d typical_us=%s p99_us=%s", $1, $5, $8 }')"
fabric send_bw 4 ib_send_bw -n $((LAT_N * 2)) -s 64 ||
	die "ib_send_bw failed"
# #bytes #iterations BW_peak BW_average MsgRate(Mpps); perftest's MB is 2^20.
rec "$(echo "$PERFTEST_LINE" | awk '{ printf "fabric tool=ib_send_bw size=%d MiBps=%s msg_per_s=%.0f", $1, $4, $5 * 1e6 }')"
for tool in ib_write_bw ib_read_bw; do
	for s in $SIZES; do
		fabric "$tool.$s" 4 "$tool" -n "$(iters "$s")" -s "$s" ||
			die "$tool -s $s failed"
		rec "$(echo "$PERFTEST_LINE" | awk -v t="$tool" '{ printf "fabric tool=%s size=%d MiBps=%s msg_per_s=%.0f", t, $1, $4, $5 * 1e6 }')"
	done
done

# ---- 2. the benchmark program over rdma and tcp ----
if ! rpcinfo -p 127.0.0.1 >/dev/null 2>&1; then
	mkdir -p /run/rpcbind
	rpcbind -f &
	rpid=$!
	for _ in $(seq 50); do
		rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && break
		sleep 0.2
	done
	rpcinfo -p 127.0.0.1 >/dev/null 2>&1 || die "rpcbind did not start"
fi

# start_server NETID [ARGS...] (a command prefix in PRE, e.g. valgrind)
start_server() {
	local netid=$1 i
	shift
	${PRE:-} "$srv" -n "$netid" "$@" >"$out/server.$netid.log" 2>&1 &
	spid=$!
	for i in $(seq 150); do
		grep -q '^rb_server: serving' "$out/server.$netid.log" && return 0
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.2
	done
	cat "$out/server.$netid.log" >&2
	die "rb_server over $netid did not start"
}
stop_server() {
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
}
# client_as KIND ARGS...: rb_client ARGS, its RESULT line recorded as
# "KIND ...".
client_as() {
	local kind=$1 o
	shift
	o=$(timeout 300 "$cli" "$@" 2>&1) ||
		die "rb_client $*: ${o:-timed out}"
	echo "$o" | grep '^RESULT ' | sed "s/^RESULT /$kind /" >>"$res" ||
		die "rb_client $*: no result"
}
# client NETID MODE ARGS...: the benchmark program, recorded as "rpc ...".
client() {
	local netid=$1
	shift
	client_as rpc -n "$netid" "$B" "$@"
}
v0_tx() {
	cat /sys/class/net/v0/statistics/tx_bytes
}

for netid in tcp rdma; do
	say "rpc over $netid"
	start_server "$netid"
	tx0=$(v0_tx)
	client "$netid" lat "$LAT_N"
	if [ "$netid" = rdma ]; then
		# Without reply size hints: every call offers a reply chunk.
		client_as rpcdefault -n rdma -R "$B" lat "$LAT_N"
		client_as rpcdefault -n rdma -R "$B" rate 32 \
			$(((RATE_CALLS + 31) / 32)) shared
	fi
	for t in $THREADS; do
		modes="shared own"
		# 32 in flight also from 4 CLIENTs of 8 threads each.
		[ "$t" = 32 ] && modes="shared 4 own"
		for mode in $modes; do
			client "$netid" rate "$t" $(((RATE_CALLS + t - 1) / t)) "$mode"
		done
	done
	for s in $SIZES; do
		client "$netid" read "$s" "$(iters "$s")"
		client "$netid" write "$s" "$(iters "$s")"
	done
	tx1=$(v0_tx)
	# The calls went out of v0 (TCP segments or RoCE packets), not lo.
	[ $((tx1 - tx0)) -gt $((8 << 20)) ] ||
		die "$netid traffic did not cross v0 ($((tx1 - tx0)) bytes sent)"
	rec "path netid=$netid v0_tx_bytes=$((tx1 - tx0))"
	stop_server
done
say "rpc over rdma, a pool of 2 threads"
start_server rdma -t 2
for mode in shared 4; do
	client_as rpcpool -n rdma "$B" rate 32 $(((RATE_CALLS + 31) / 32)) "$mode"
done
stop_server

# ---- 3. the reference server: the kernel's nfsd ----
say "reference: the kernel's nfsd"
modprobe -a nfsd rpcrdma || die "modprobe nfsd rpcrdma failed"
mkdir -p /proc/fs/nfsd 2>/dev/null
grep -q ' /proc/fs/nfsd ' /proc/mounts ||
	mount -t nfsd nfsd /proc/fs/nfsd || die "cannot mount the nfsd file system"
o=$(rpc.nfsd -N 4 -N 4.1 -N 4.2 2 2>&1) || die "rpc.nfsd: $o"
echo "rdma 20049" >/proc/fs/nfsd/portlist || die "nfsd would not listen on rdma 20049"
for netid in rdma tcp; do
	port=
	[ "$netid" = rdma ] && port="-p 20049"
	# shellcheck disable=SC2086 # $port: an option and its value, or none
	client_as nfsd -n "$netid" $port -P 100003 -V 3 "$B" lat "$LAT_N"
	for mode in shared 4; do
		# shellcheck disable=SC2086
		client_as nfsd -n "$netid" $port -P 100003 -V 3 "$B" \
			rate 32 $(((RATE_CALLS + 31) / 32)) "$mode"
	done
done
echo 0 >/proc/fs/nfsd/threads

# ---- 4. instructions per NULL call, each side (callgrind) ----
# --vgdb=no: valgrind's gdb server maps a shared file in /tmp, which is
# the host's over 9p in this guest, where that mapping fails.
W=50
for netid in tcp rdma; do
	say "callgrind over $netid"
	rm -f "$out"/cg.*."$netid".*
	PRE="valgrind --tool=callgrind --vgdb=no --callgrind-out-file=$out/cg.server.$netid.%p" \
		start_server "$netid" -w "$W" -x "$INSTR_N"
	o=$(timeout 600 valgrind --tool=callgrind --vgdb=no \
		--callgrind-out-file="$out/cg.client.$netid.%p" \
		"$cli" -n "$netid" "$B" instr "$W" "$INSTR_N" 2>&1) ||
		die "callgrind of rb_client over $netid: $o"
	# The server exits by itself after its measured calls.
	for _ in $(seq 300); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.2
	done
	kill -0 "$spid" 2>/dev/null && die "rb_server under callgrind did not finish"
	wait "$spid"
	spid=
	for side in client server; do
		f=$(grep -l "rb_$side measured" "$out"/cg."$side"."$netid".* 2>/dev/null | head -n 1)
		[ -n "$f" ] || die "no callgrind dump of the $side over $netid"
		callgrind_annotate --inclusive=no --threshold=100 --auto=no "$f" >"$out/cg.$side.$netid.txt" 2>&1 ||
			die "callgrind_annotate $f failed"
		total=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' \
			"$out/cg.$side.$netid.txt")
		[ -n "$total" ] || die "no total in $f"
		rec "instr side=$side netid=$netid calls=$INSTR_N per_call=$((total / INSTR_N))"
	done
done

# ---- 5. where the time goes: a system-wide profile ----
# perf.data goes to the guest's tmpfs (/dev/shm): perf report maps it,
# and mappings of files on the 9p share are not reliable.
for netid in tcp rdma; do
	say "perf over $netid"
	data=/dev/shm/rpcrdma-perf.$netid.data
	start_server "$netid"
	# A steady state: perf starts sampling 1.5 s into the client's run,
	# past its start-up and connection set-up (-D).
	o=$(timeout 300 perf record -q -D 1500 -a -g -e cpu-clock -o "$data" -- \
		"$cli" -n "$netid" "$B" rate 32 $((RATE_CALLS / 8)) shared 2>&1) ||
		die "perf record over $netid: $o"
	echo "$o" >"$out/perf.$netid.client.txt"
	stop_server
	perf report -q -i "$data" --no-children --sort comm,dso,symbol \
		--stdio -g none 2>"$out/perf.$netid.err" |
		grep -v '^$' | head -n 40 >"$out/perf.$netid.txt"
	# Where the client's kernel time goes, by caller (call graphs).
	perf report -q -i "$data" --no-children --comm rb_client \
		--sort symbol --stdio -g caller,0.5,callee --percent-limit 3 \
		2>>"$out/perf.$netid.err" | grep -v '^$' | head -n 150 \
		>"$out/perf.$netid.callers.txt"
	rm -f "$data"
	[ -s "$out/perf.$netid.txt" ] ||
		die "perf report over $netid is empty: $(head -c 500 "$out/perf.$netid.err")"
done

rec "guest kernel=$(uname -r) quick=${quick:-no} max_msg=$RPCRDMA_MAX_MSG"
say "done: $(wc -l <"$res") results in $res"
