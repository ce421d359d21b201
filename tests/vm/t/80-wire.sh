# The independent decoder (issue 13): captures the RoCE traffic (UDP 4791)
# of a small, deterministic workload (tests/vm/wire_calls: one call of
# each kind with a known XID, crafted messages answered with RDMA_ERROR)
# on rxe0's veth and has Wireshark's tshark decode it
# (tests/vm/wire-check.sh): every version-1 message must decode as
# rpcordma, nothing may be malformed or carry an expert error, and the
# chunk lists tshark sees for the known XIDs must be those sent.
# The capture and tshark's view of it stay in $RPCRDMA_VM_RESULTS/wire.
# Skipped (77) without tshark or tcpdump (tools/deps.sh installs both).
# vm-timeout: 300
for p in tcpdump tshark; do
	command -v "$p" >/dev/null || { echo "$p not installed"; exit 77; }
done
out=$RPCRDMA_VM_RESULTS/wire
rm -rf "$out"
mkdir -p "$out" || exit 1
pcap=/run/wire.pcap
log=/run/wire-tcpdump.log

# The client's device (RPCRDMA_ADDR_A) sits on one end of the veth pair
# (guest-setup.sh): every packet of both directions crosses it. RoCE v2
# is UDP 4791; iWARP (siw) is MPA over TCP, its connections between the
# two addresses (wire_calls' and nothing else's while it runs).
da=${RPCRDMA_DEV_A:-rxe0}
dev=$(rdma link show "$da/1" | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
[ -n "$dev" ] || { echo "no netdev for $da"; rdma link show; exit 1; }
if [ "${RPCRDMA_PROVIDER:-rxe}" = siw ]; then
	filter="tcp and host $RPCRDMA_ADDR_A and host $RPCRDMA_ADDR_B"
else
	filter="udp port 4791"
fi
echo "capturing $filter on $dev"

tcpdump -i "$dev" -s 0 -B 8192 -U -n -w "$pcap" $filter 2>"$log" &
tdp=$!
for _ in $(seq 200); do
	grep -q "listening on" "$log" && break
	kill -0 "$tdp" 2>/dev/null || break
	sleep 0.1
done
grep -q "listening on" "$log" || {
	echo "tcpdump did not start:"; cat "$log"
	kill "$tdp" 2>/dev/null; exit 1; }

./tests/vm/wire_calls >"$out/calls.txt" 2>&1
rc=$?
# Stop tcpdump only once it has written every packet the kernel handed
# it: under TCG it lags behind (one run had written 3 of 79 when stopped,
# and a stop discards the rest). SIGUSR1 makes it print its counters.
caught_up=0
prev=-1
for _ in $(seq 60); do
	kill -USR1 "$tdp"
	sleep 0.5
	# "tcpdump: N packets captured, M packets received by filter,
	# D packets dropped by kernel"
	set -- $(sed -n 's/.* \([0-9]*\) packets captured, \([0-9]*\) .* filter, \([0-9]*\) .*/\1 \2 \3/p' \
		"$log" | tail -n 1)
	if [ $# = 3 ] && [ "$1" = "$2" ] && [ "$1" = "$prev" ]; then
		caught_up=1
		break
	fi
	prev=${1:--1}
done
kill -INT "$tdp"
wait "$tdp"
cat "$log"
[ "$caught_up" = 1 ] || { echo "tcpdump did not catch up in 30 s"; exit 1; }
[ "${3:-0}" = 0 ] || { echo "the kernel dropped $3 packets: capture incomplete"; exit 1; }
cp "$pcap" "$out/wire.pcap"
grep -v '^wire: ' "$out/calls.txt" | tail -n 20
grep '^wire: ' "$out/calls.txt"
if [ "$rc" != 0 ]; then
	echo "wire_calls failed (exit status $rc)"
	exit 1
fi
exec bash "$RPCRDMA_SRCDIR/tests/vm/wire-check.sh" "$pcap" "$out/calls.txt" "$out"
