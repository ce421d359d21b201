#!/bin/bash
# bench/rpc-guest.sh BUILDDIR: RPC throughput over "rdma" against libtirpc's
# "tcp" on the same veth pair, in the same guest run (run inside the
# Soft-RoCE guest by tools/bench-rpc.sh). The same rpcgen program
# (examples/kv) does N puts and N gets of SIZE bytes, each value checked;
# what it prints is ops/s per netid and the ratio rdma / tcp. Timings under
# TCG are only meaningful as such ratios.
#
# Seen here (2026-11-22, TCG, 4 MiB max_msg): 64 B 0.25x, 16 KiB 0.30x,
# 1 MiB 0.04x of TCP. Every call registers its max_msg-sized reply chunk
# with ibv_reg_mr and deregisters it after (RPCRDMA_MAX_MSG=65536 nearly
# doubles the 64 B rate): per-call memory windows on a per-slot MR are the
# planned fix; this script is how to see whether it worked.
set -u
build=${1:?usage: rpc-guest.sh BUILDDIR}
srv=$build/examples/kv/kv_server
cli=$build/examples/kv/kv_client
B=${RPCRDMA_ADDR_B:-10.99.0.2}
export RPCRDMA_SRCADDR=${RPCRDMA_ADDR_A:-10.99.0.1}
# A 1 MiB value plus its RPC header exceeds the 1 MiB default max_msg.
export RPCRDMA_MAX_MSG=${RPCRDMA_MAX_MSG:-$((4 << 20))}
# SIZE:N pairs: inline, Long Call + Long Reply at the 4 KiB threshold, 1 MiB.
CASES=${BENCH_CASES:-"64:200 16k:60 1m:8"}
work=$(mktemp -d /tmp/rpc-bench.XXXXXX) || exit 1
spid= rpid=
trap '[ -n "$spid" ] && kill $spid; [ -n "$rpid" ] && kill $rpid; rm -rf "$work"' EXIT

if ! rpcinfo -p 127.0.0.1 >/dev/null 2>&1; then
	mkdir -p /run/rpcbind
	rpcbind -f & rpid=$!
	for _ in $(seq 50); do
		rpcinfo -p 127.0.0.1 >/dev/null 2>&1 && break
		sleep 0.2
	done
fi

# ops/s of "kv_client bench" (puts and gets together), or nothing.
run_case() {
	local netid=$1 size=$2 n=$3 out
	out=$(timeout 300 "$cli" -n "$netid" "$B" bench "$n" "$size" 2>&1) ||
		{ echo "$out" >&2; return 1; }
	echo "$out" | awk '/kv_client: bench (put|get)/ {
		for (i = 1; i <= NF; i++) if ($i == "in") t += $(i + 1); n += $4 }
		END { if (t > 0) printf "%.1f\n", n / t }'
}

declare -A rate
for netid in tcp rdma; do
	"$srv" -q -n "$netid" >"$work/$netid.log" 2>&1 & spid=$!
	for _ in $(seq 30); do
		timeout 60 "$cli" -q -n "$netid" "$B" null >/dev/null 2>&1 && break
		sleep 1
	done
	for c in $CASES; do
		r=$(run_case "$netid" "${c%%:*}" "${c##*:}") || exit 1
		rate[$netid,$c]=$r
	done
	kill "$spid"; wait "$spid" 2>/dev/null; spid=
done

printf '%-8s %6s %12s %12s %14s\n' size n "tcp ops/s" "rdma ops/s" "ratio rdma/tcp"
for c in $CASES; do
	t=${rate[tcp,$c]} r=${rate[rdma,$c]}
	printf '%-8s %6s %12s %12s %14s\n' "${c%%:*}" "${c##*:}" "$t" "$r" \
		"$(awk -v a="$r" -v b="$t" 'BEGIN { printf "%.2f", a / b }')"
done
