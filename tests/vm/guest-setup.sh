#!/bin/bash
# Runs inside the Soft-RoCE guest, in chroot of the host's / (see
# tests/vm/init), as the job script that tests/vm/run copied into the job
# directory next to env.sh. Brings up the fabric of softroce-vm.md (veth
# pair v0/v1, rxe0 on v0, rxe1 on v1, routing forced over the pair), then
# runs the command in the host's cwd and leaves its exit status in
# $job/status. The current step is kept in $job/step and the reason of a
# failure in $job/error, so the host can say which step failed.
job=$(dirname "$0")
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LC_ALL=C
# shellcheck source=/dev/null
. "$job/env.sh"

A=$RPCRDMA_ADDR_A
B=$RPCRDMA_ADDR_B
# A second client address on A's side (v0), for tests that need a second
# client host (t_limits' per-source connection limit): A's last byte +
# 100. Its rules take prefs 20 and 21 (perftest-pair.sh adds and removes
# pref 12).
C=${A%.*}.$(( ${A##*.} + 100 ))
export RPCRDMA_ADDR_C=$C
# The soft RDMA provider under test (RPCRDMA_PROVIDER): rxe (Soft-RoCE,
# the default) or siw (software iWARP, RDMA over the kernel's TCP). Its
# two devices, on v0 and v1, are given to the tests by name.
provider=${RPCRDMA_PROVIDER:-rxe}
case "$provider" in
rxe) mod=rdma_rxe ;;
# Debian's kernels do not build siw: tests/vm/siw-module.sh builds it
# from the kernel's own source for the guest and names it here.
siw) mod="crc32c_generic libcrc32c iw_cm" ;;
*) echo "unknown provider '$provider'" >"$job/error"; exit 1 ;;
esac
export RPCRDMA_PROVIDER=$provider
export RPCRDMA_DEV_A=${provider}0 RPCRDMA_DEV_B=${provider}1

step() {
	echo "$1" >"$job/step"
	echo "rpcrdma-vm: guest: $1 (uptime $(cut -d' ' -f1 /proc/uptime) s)"
}

fail() {
	echo "$*" >"$job/error"
	echo "rpcrdma-vm: guest: step failed: $*"
	exit 1
}

# Run a command; on failure record it with its output as the step's error.
run() {
	local out
	out=$("$@" 2>&1) || fail "'$*': ${out:-exit status $?}"
}

step modules
# crc32_generic first: rdma_rxe (and siw) need crc32 and the autoloader
# cannot always find it (softroce-vm.md, "rxe pitfall").
run modprobe -a crc32_generic $mod ib_uverbs rdma_ucm veth
if [ "$provider" = siw ]; then
	[ -f "${RPCRDMA_SIW_KO:-}" ] ||
		fail "siw: no module built for this kernel (RPCRDMA_SIW_KO='${RPCRDMA_SIW_KO:-}')"
	lsmod | grep -q '^siw ' || run insmod "$RPCRDMA_SIW_KO"
fi

step network
# Plain writes to /proc/sys and batches of ip commands: every exec costs
# time in a TCG guest that reads its binaries over 9p.
sysctl_set() {
	echo "$3" >"/proc/sys/net/ipv4/conf/$1/$2" ||
		fail "cannot set net.ipv4.conf.$1.$2=$3"
}
# RoCE assumes a lossless fabric (PFC on real Ethernet). Here the fabric
# is a veth pair, whose receiving end queues to the CPU's backlog; at the
# default bound of 1000 packets a burst of RDMA Writes or Read responses
# overflows it, and 6.1's rxe does not survive the loss (a WARNING in
# rxe_do_task, then the connection is gone: 65-nfsd failed so in CI).
echo 30000 >/proc/sys/net/core/netdev_max_backlog ||
	fail "cannot set net.core.netdev_max_backlog"
for i in all default; do
	sysctl_set "$i" rp_filter 0
	sysctl_set "$i" accept_local 1
done
run ip -batch - <<EOF
link set lo up
link add v0 type veth peer name v1
address add $A/24 dev v0
address add $C/24 dev v0
address add $B/24 dev v1
EOF
for i in v0 v1; do
	sysctl_set "$i" rp_filter 0
	sysctl_set "$i" accept_local 1
	sysctl_set "$i" arp_ignore 1
done
# Both ends live in one kernel: without these rules traffic between A and
# B takes lo and a bound source address fails to resolve (ADDR_ERROR).
run ip -batch - <<EOF
link set v0 up
link set v1 up
rule add pref 100 lookup local
rule del pref 0
rule add pref 10 iif lo from $A to $B lookup 10
rule add pref 11 iif lo from $B to $A lookup 11
rule add pref 20 iif lo from $C to $B lookup 10
rule add pref 21 iif lo from $B to $C lookup 11
route add $B dev v0 src $A table 10
route add $A dev v1 src $B table 11
route add $C dev v1 src $B table 11
EOF
# Permanent neighbour entries: RDMA-CM address resolution otherwise waits
# for ARP confirmation (entries seen stuck in DELAY for seconds under TCG,
# making rdma_resolve_addr time out now and then).
mac0=$(cat /sys/class/net/v0/address) || fail "no MAC for v0"
mac1=$(cat /sys/class/net/v1/address) || fail "no MAC for v1"
run ip -batch - <<EOF
neigh replace $B lladdr $mac1 dev v0 nud permanent
neigh replace $A lladdr $mac0 dev v1 nud permanent
neigh replace $C lladdr $mac0 dev v1 nud permanent
EOF

step "$provider"
run rdma -b - <<EOF
link add $RPCRDMA_DEV_A type $provider netdev v0
link add $RPCRDMA_DEV_B type $provider netdev v1
EOF

step "$provider-active"
for dev in "$RPCRDMA_DEV_A" "$RPCRDMA_DEV_B"; do
	st=
	for _ in $(seq 100); do
		st=$(cat "/sys/class/infiniband/$dev/ports/1/state" 2>/dev/null)
		case "$st" in *ACTIVE*) break ;; esac
		sleep 0.2
	done
	case "$st" in
	*ACTIVE*) ;;
	*) fail "$dev port 1 is not ACTIVE after 20 s (state: ${st:-none})" ;;
	esac
done

step command
cd "$RPCRDMA_VM_CWD" || fail "cannot cd to $RPCRDMA_VM_CWD"
left=$((RPCRDMA_VM_DEADLINE - $(date +%s)))
[ "$left" -ge 5 ] || fail "setup used up the run's time (--timeout)"
echo "rpcrdma-vm: guest: ready, running: ${RPCRDMA_VM_CMD[*]}"
timeout -k 3 "$left" "${RPCRDMA_VM_CMD[@]}" \
	</dev/null >>"$job/out" 2>&1
rc=$?
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "command stopped after $left s: the run's time (--timeout) is up" \
		>"$job/error"
fi
echo "$rc" >"$job/status"
[ -s "$job/error" ] || step done
echo "rpcrdma-vm: guest: command exited with $rc"
exit 0
