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
#      (rpcrdma_svc_run): NULL rate at 32 in flight, 1 and 4 CLIENTs;
#      and 1 MiB results and arguments over each netid while tc netem
#      drops 0.1% of the packets on both ends of the veth
#   3. the reference server: the kernel's nfsd (NFSv3 NULL over rdma port
#      20049, and over tcp) from the same client: latency, and NULL rate
#      at 32 in flight from 1 and from 4 CLIENTs
#   4. CPU per NULL call on each side, in user-space instructions
#      (callgrind), with the top functions
#   5. a system-wide profile (perf record, cpu-clock) of 32 threads of
#      NULL calls over each netid
#   6. NFS file I/O: the kernel's NFSv3 client (rsize and wsize 1 MiB)
#      writing and reading a 64 MiB file with dd and direct I/O (3
#      rounds, the median; --quick: 16 MiB, once), against
#      our server (nfs/nfs3d) and the kernel's nfsd, each exporting a
#      tmpfs of its own, both mounted at once and taken in turn each
#      round, over rdma and over tcp; the data checked once per server
#   7. NFS small I/O: the same client and servers over rdma, fio 4 KiB
#      random reads and writes, direct I/O, iodepth 32, nconnect 1 and 4
# Sections 4a, 4 and 5 run last, after 7 (see 4a: perf's static keys).
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

spid= rpid= n3pid= mdpid= nfs_top= nfs_state=
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	if [ -n "$nfs_top" ]; then
		umount -f "$nfs_top/mk" 2>/dev/null || umount -l "$nfs_top/mk" 2>/dev/null
		umount -f "$nfs_top/mu" 2>/dev/null || umount -l "$nfs_top/mu" 2>/dev/null
	fi
	[ -n "$n3pid" ] && kill "$n3pid" 2>/dev/null && wait "$n3pid" 2>/dev/null
	[ -e /proc/fs/nfsd/threads ] && echo 0 >/proc/fs/nfsd/threads
	[ -n "$mdpid" ] && kill "$mdpid" 2>/dev/null && wait "$mdpid" 2>/dev/null
	if [ -n "$nfs_state" ]; then
		exportfs -ua 2>/dev/null
		umount /var/lib/nfs 2>/dev/null
	fi
	if [ -n "$nfs_top" ]; then
		umount "$nfs_top/knfsd" "$nfs_top/nfs3d" 2>/dev/null
		umount "$nfs_top" 2>/dev/null
	fi
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null
	# A run stopped under the loss step leaves no lossy veth behind.
	tc qdisc del dev v0 root 2>/dev/null
	tc qdisc del dev v1 root 2>/dev/null
	perftest_route_off
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
	LAT_N=200 RATE_CALLS=400 THREADS="1 32" INSTR_N=100 LOSS_ITERS=2
	# The profile's tooling once (over rdma), flat: perf report of a
	# system-wide call-graph profile takes about 3 minutes per netid under
	# TCG.
	PERF_NETIDS=rdma PERF_G=
else
	SIZES="4096 65536 1048576 4194304"
	LAT_N=2000 RATE_CALLS=3000 THREADS="1 8 32 128" INSTR_N=1000 LOSS_ITERS=32
	PERF_G=-g
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

# start_server NETID [ARGS...] (a command prefix in PRE, e.g. valgrind).
# Every client here comes from one host: 128 CLIENTs pass the default
# limit of 64 connections per source (docs/security.md), lifted for the
# benchmark as for t_limits' test_many_connections.
start_server() {
	local netid=$1 i
	shift
	RPCRDMA_MAX_CONNS_PER_SOURCE=0 ${PRE:-} "$srv" -n "$netid" "$@" \
		>"$out/server.$netid.log" 2>&1 &
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
		# The waiting thread sleeps at once (opts.poll_us 0): the
		# default polls the CQ for up to two round trips first.
		RPCRDMA_POLL_US=0 client_as rpcnopoll -n rdma "$B" lat "$LAT_N"
		RPCRDMA_POLL_US=0 client_as rpcnopoll -n rdma "$B" rate 32 \
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

# A lossy fabric: tc netem drops 0.1% of the packets on both ends of the
# veth while 1 MiB results and arguments move over each netid (RoCE
# retransmits in the adapter, from the lost packet on; TCP selectively).
# The fabric's own count of retries goes beside them (rpcrdma-stat -f).
netem_v() {
	local d
	for d in v0 v1; do
		if [ "$1" = off ]; then
			tc qdisc del dev "$d" root 2>/dev/null
		else
			tc qdisc replace dev "$d" root netem "$@" ||
				die "tc netem $* on $d failed"
		fi
	done
}
modprobe sch_netem || die "no sch_netem module"
say "1 MiB under 0.1% loss"
for netid in tcp rdma; do
	start_server "$netid"
	netem_v loss 0.1%
	for op in read write; do
		client_as rpcloss -n "$netid" "$B" "$op" 1048576 "$LOSS_ITERS"
	done
	netem_v off
	stop_server
done
"$build/tools/rpcrdma-stat" -f >"$out/fabric-loss.txt" 2>&1 || true

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

# ---- 6. NFS file I/O: the kernel client, dd with direct I/O ----
# Each server exports a tmpfs of its own, sized for the file and a
# margin; the source file (random bytes) and the copy read back for the
# check are on a third. Both servers are mounted at once (the kernel
# client keeps one nfs_client per address and port) and each round takes
# them in turn, so that the host's load drifts alike for both. nfs3d does
# not register with rpcbind (-R): rpc.mountd's MOUNT registration and
# the kernel nfsd's NFS ones stay as they are; its ports are given to
# mount instead. Both run 4 threads.
say "nfs: the kernel client, dd with direct I/O"
# --quick: one round of 8 MiB (about 10 MiB/s over rdma under TCG; still
# 8 READs and WRITEs of 1 MiB, each in a chunk).
DD_MIB=64
DD_ROUNDS=3
[ -n "$quick" ] && DD_MIB=8 DD_ROUNDS=1
N3_RDMA=20050 N3_TCP=2050 N3_MNT=20051 NFS_THREADS=4
modprobe -a nfsd rpcrdma nfs nfsv3 || die "modprobe nfs nfsv3 failed"
nfs_top=/run/rpcrdma-bench-nfs
mkdir -p "$nfs_top" && mount -t tmpfs -o size=192m tmpfs "$nfs_top" ||
	die "tmpfs on $nfs_top"
for d in knfsd nfs3d; do
	mkdir -p "$nfs_top/$d" &&
		mount -t tmpfs -o size=$((DD_MIB + 32))m tmpfs "$nfs_top/$d" ||
		die "tmpfs on $nfs_top/$d"
done
mkdir -p "$nfs_top/mk" "$nfs_top/mu"
dd_src=$nfs_top/src dd_back=$nfs_top/back
head -c $((DD_MIB << 20)) /dev/urandom >"$dd_src" || die "cannot make $dd_src"
# nfs-utils' state in the guest's memory, not on the host's disk.
mount -t tmpfs tmpfs /var/lib/nfs && : >/var/lib/nfs/etab &&
	: >/var/lib/nfs/rmtab || die "tmpfs on /var/lib/nfs"
nfs_state=1
exportfs -o rw,insecure,no_root_squash,no_subtree_check,fsid=7320 \
	"*:$nfs_top/knfsd" || die "exportfs failed"
rpc.mountd -F -N 2 -N 4 >"$out/nfs.mountd.log" 2>&1 &
mdpid=$!
# nfsd's largest READ and WRITE defaults to 1/4096 of the memory (256 KiB
# in this guest): 1 MiB, like nfs3d's rtmax and wtmax, set while no nfsd
# thread runs.
echo 0 >/proc/fs/nfsd/threads
echo 1048576 >/proc/fs/nfsd/max_block_size ||
	die "nfsd's max_block_size stays $(cat /proc/fs/nfsd/max_block_size)"
o=$(rpc.nfsd -N 4 -N 4.1 -N 4.2 "$NFS_THREADS" 2>&1) || die "rpc.nfsd: $o"
grep -q '^rdma 20049$' /proc/fs/nfsd/portlist ||
	echo "rdma 20049" >/proc/fs/nfsd/portlist ||
	die "nfsd would not listen on rdma 20049"
env -u RPCRDMA_MAX_MSG -u RPCRDMA_SRCADDR "$build/nfs/nfs3d" -a "$B" \
	-p $N3_RDMA -t $N3_TCP -m $N3_MNT -T $NFS_THREADS -R \
	-o rw,insecure,no_root_squash "$nfs_top/nfs3d" \
	>"$out/nfs.nfs3d.log" 2>&1 &
n3pid=$!
for _ in $(seq 100); do
	grep -q "serving $nfs_top/nfs3d" "$out/nfs.nfs3d.log" && break
	kill -0 "$n3pid" 2>/dev/null || break
	sleep 0.1
done
grep -q "serving $nfs_top/nfs3d" "$out/nfs.nfs3d.log" ||
	die "nfs3d did not start: $(tail -n 5 "$out/nfs.nfs3d.log")"
# The rpc.mountd must be up before the kernel server is mounted.
for _ in $(seq 50); do
	rpcinfo -p 127.0.0.1 2>/dev/null | grep -q ' 100005 ' && break
	sleep 0.2
done

# dd_s ARGS...: dd, its time in seconds; fails unless it moved DD_MIB MiB.
dd_s() {
	local o
	o=$(LC_ALL=C timeout 300 dd "$@" 2>&1) || { echo "dd $*: $o" >&2; return 1; }
	echo "$o" | grep -q "^$((DD_MIB << 20)) bytes .* copied" ||
		{ echo "dd $*: $o" >&2; return 1; }
	echo "$o" | sed -n 's/.* copied, \([0-9.e+-]*\) s, .*/\1/p' | tail -n 1
}
# busy: the guest's busy CPU time so far, in clock ticks (all CPUs).
busy() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}
# srv_cpu SERVER: the server's own CPU time in clock ticks (nfs3d's
# process; the nfsd kernel threads). rxe's and the RPC transport's work in
# kernel workers and softirqs is in neither: busy() counts it.
srv_cpu() {
	local p t=0
	if [ "$1" = nfs3d ]; then
		awk '{ print $14 + $15 }' "/proc/$n3pid/stat"
		return
	fi
	for p in $(pgrep -x nfsd); do
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo "$t"
}
median() {
	tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
mibps() {
	awk -v m="$DD_MIB" -v s="$1" 'BEGIN { printf "%.2f", m / s }'
}
hz=$(getconf CLK_TCK)
say "nfs: both servers up"
for netid in rdma tcp; do
	if [ "$netid" = rdma ]; then
		kport=20049 uport=$N3_RDMA
	else
		kport=2049 uport=$N3_TCP
	fi
	common="vers=3,proto=$netid,rsize=1048576,wsize=1048576,nolock,soft,timeo=300,retrans=2"
	mount -t nfs -o "$common,port=$kport" "$B:$nfs_top/knfsd" "$nfs_top/mk" ||
		die "mount of the kernel nfsd over $netid failed"
	mount -t nfs -o "$common,port=$uport,mountport=$N3_MNT,mountproto=tcp" \
		"$B:$nfs_top/nfs3d" "$nfs_top/mu" ||
		die "mount of nfs3d over $netid failed"
	say "nfs over $netid: both mounted"
	declare -A rs ws wl rl bz sc
	for s in knfsd nfs3d; do
		m=$nfs_top/mk
		[ "$s" = nfs3d ] && m=$nfs_top/mu
		o=$(awk -v m="$m" '$2 == m { print $4 }' /proc/mounts)
		echo "bench: $s over $netid: $o"
		echo "$o" | grep -q "proto=$netid" || die "$s is not mounted over $netid: $o"
		rs[$s]=$(echo "$o" | tr , '\n' | sed -n 's/^rsize=//p')
		ws[$s]=$(echo "$o" | tr , '\n' | sed -n 's/^wsize=//p')
		[ -n "${rs[$s]}" ] && [ -n "${ws[$s]}" ] || die "no rsize or wsize in: $o"
		wl[$s]='' rl[$s]='' bz[$s]=0 sc[$s]=0
	done
	for r in $(seq "$DD_ROUNDS"); do
		for s in knfsd nfs3d; do
			m=$nfs_top/mk
			[ "$s" = nfs3d ] && m=$nfs_top/mu
			rm -f "$m/f" || die "rm over $netid from $s"
			b0=$(busy) c0=$(srv_cpu "$s")
			t=$(dd_s if="$dd_src" of="$m/f" bs=1M count=$DD_MIB oflag=direct) ||
				die "dd write over $netid to $s failed"
			wl[$s]="${wl[$s]} $t"
			t=$(dd_s if="$m/f" of=/dev/null bs=1M iflag=direct) ||
				die "dd read over $netid from $s failed"
			rl[$s]="${rl[$s]} $t"
			bz[$s]=$((bz[$s] + $(busy) - b0))
			sc[$s]=$((sc[$s] + $(srv_cpu "$s") - c0))
		done
	done
	say "nfs over $netid: $DD_ROUNDS round(s) done, checking the data"
	# The check, once: what the server stored (on its tmpfs) and what a
	# direct read brings back are the source's bytes.
	for s in knfsd nfs3d; do
		m=$nfs_top/mk
		[ "$s" = nfs3d ] && m=$nfs_top/mu
		cmp "$dd_src" "$nfs_top/$s/f" || die "$s over $netid stored other bytes"
		rm -f "$dd_back"
		dd_s if="$m/f" of="$dd_back" bs=1M iflag=direct >/dev/null ||
			die "dd read back over $netid from $s failed"
		cmp "$dd_src" "$dd_back" || die "$s over $netid read back other bytes"
		rm -f "$dd_back" "$m/f"
		for op in write read; do
			if [ "$op" = write ]; then l=${wl[$s]}; else l=${rl[$s]}; fi
			med=$(echo "$l" | median)
			rec "nfsdd server=$s netid=$netid op=$op MiB=$DD_MIB rounds=$DD_ROUNDS MiBps=$(mibps "$med") runs_MiBps=$(for t in $l; do mibps "$t"; echo; done | paste -sd, -) rsize=${rs[$s]} wsize=${ws[$s]} threads=$NFS_THREADS"
		done
		secs=$(echo "${wl[$s]} ${rl[$s]}" | awk '{ for (i = 1; i <= NF; i++) t += $i } END { printf "%.2f", t }')
		rec "nfsddcpu server=$s netid=$netid dd_s=$secs busy_s=$(awk -v t="${bz[$s]}" -v h="$hz" 'BEGIN { printf "%.2f", t / h }') server_cpu_s=$(awk -v t="${sc[$s]}" -v h="$hz" 'BEGIN { printf "%.2f", t / h }')"
	done
	umount "$nfs_top/mk" || die "umount of the kernel nfsd over $netid"
	umount "$nfs_top/mu" || die "umount of nfs3d over $netid"
	unset rs ws wl rl bz sc
done
# ---- 7. NFS small I/O: the kernel client, fio ----
# 4 KiB random reads and writes with direct I/O, 32 in flight (libaio),
# on a 16 MiB file of each server, over rdma with nconnect 1 and 4; the
# servers taken in turn for each test. The connections a mount made are
# counted as RC QPs (rdma resource): nconnect=4 must add four per side,
# or the rows would claim what did not run.
say "nfs: the kernel client, fio 4 KiB random I/O"
FIO_S=8 FIO_NC="1 4"
# A quick run checks the tooling: one pass, with nconnect 4 (the one
# whose connections are counted beyond the first).
[ -n "$quick" ] && FIO_S=2 FIO_NC=4
command -v fio >/dev/null || die "fio is not installed (bench/run installs it)"
rcqps() {
	rdma resource show qp 2>/dev/null | grep -c 'type RC'
}
for nc in $FIO_NC; do
	common="vers=3,proto=rdma,rsize=1048576,wsize=1048576,nolock,soft,timeo=300,retrans=2,nconnect=$nc"
	q0=$(rcqps)
	mount -t nfs -o "$common,port=20049" "$B:$nfs_top/knfsd" "$nfs_top/mk" ||
		die "mount of the kernel nfsd with nconnect=$nc failed"
	mount -t nfs -o "$common,port=$N3_RDMA,mountport=$N3_MNT,mountproto=tcp" \
		"$B:$nfs_top/nfs3d" "$nfs_top/mu" ||
		die "mount of nfs3d with nconnect=$nc failed"
	for s in knfsd nfs3d; do
		m=$nfs_top/mk
		[ "$s" = nfs3d ] && m=$nfs_top/mu
		# The transports are made lazily: a first I/O on each mount.
		dd if=/dev/zero of="$m/fio.0" bs=4k count=64 oflag=direct 2>/dev/null ||
			die "first write to $s with nconnect=$nc failed"
	done
	q1=$(rcqps)
	echo "bench: nconnect=$nc: RC QPs $q0 before the mounts, $q1 after"
	for op in randwrite randread; do
		for s in knfsd nfs3d; do
			m=$nfs_top/mk
			[ "$s" = nfs3d ] && m=$nfs_top/mu
			o=$(timeout 120 fio --name="$s.$op" --filename="$m/fio.0" \
				--size=16M --rw=$op --bs=4k --direct=1 \
				--ioengine=libaio --iodepth=32 --runtime=$FIO_S \
				--time_based --output-format=terse --terse-version=3 \
				2>"$out/fio.err") ||
				die "fio $op on $s with nconnect=$nc failed: $(tail -n 3 "$out/fio.err")"
			echo "$o" >>"$out/fio.terse"
			# terse v3: field 5 the error, 8 read IOPS, 49 write IOPS
			e=$(echo "$o" | awk -F';' '{ print $5 }')
			[ "$e" = 0 ] || die "fio $op on $s with nconnect=$nc: error $e"
			f=8
			[ "$op" = randwrite ] && f=49
			iops=$(echo "$o" | awk -F';' -v f=$f '{ printf "%.0f", $f }')
			[ "${iops:-0}" -gt 0 ] || die "fio $op on $s with nconnect=$nc: no I/O"
			rec "nfsfio server=$s netid=rdma op=$op nconnect=$nc bs=4096 iodepth=32 seconds=$FIO_S iops=$iops rcqps_before=$q0 rcqps_after=$q1"
		done
	done
	say "nfs fio, nconnect=$nc: done"
	rm -f "$nfs_top/mk/fio.0" "$nfs_top/mu/fio.0"
	umount "$nfs_top/mk" || die "umount of the kernel nfsd (nconnect=$nc)"
	umount "$nfs_top/mu" || die "umount of nfs3d (nconnect=$nc)"
	# Both mounts' connections, both ends in this guest: 2 QPs each.
	[ $((q1 - q0)) -ge $((4 * nc)) ] ||
		die "nconnect=$nc made $((q1 - q0)) RC QPs, not $((4 * nc)) (2 mounts x $nc connections x 2 ends)"
done

# nfs3d's counters: WRITE data came by RDMA Read (read chunks), READ data
# went by RDMA Write (write chunks).
kill -USR1 "$n3pid"
for _ in $(seq 50); do
	grep -q "rdma chunks:" "$out/nfs.nfs3d.log" && break
	sleep 0.1
done
c=$(grep "rdma chunks:" "$out/nfs.nfs3d.log" | tail -n 1)
rdb=$(echo "$c" | sed -n 's/.* rdma_read_bytes=\([0-9]*\).*/\1/p')
wrb=$(echo "$c" | sed -n 's/.* rdma_write_bytes=\([0-9]*\).*/\1/p')
[ "${rdb:-0}" -ge $((DD_MIB << 20)) ] && [ "${wrb:-0}" -ge $((DD_MIB << 20)) ] ||
	die "nfs3d's counters do not show the data moved by RDMA Read and Write: $c"
rec "nfsddpath server=nfs3d rdma_read_bytes=$rdb rdma_write_bytes=$wrb"
kill "$n3pid" 2>/dev/null
wait "$n3pid" 2>/dev/null
n3pid=
echo 0 >/proc/fs/nfsd/threads

# ---- 4a. what a NULL call costs each side in system calls and context
# switches (perf stat), 1 and 32 in flight on one CLIENT: the difference
# of two run lengths, so that setup and teardown cancel ----
if [ -n "$quick" ]; then
	COST_LAT="200 600" COST_RATE="8 24"
else
	COST_LAT="1000 4000" COST_RATE="50 200"
fi
# cost_run NETID TAG SPEC...: perf stat of rb_client SPEC and, over the
# same span, of the running server, into cost.NETID.TAG.{client,server}.
# verbs_srv: the running server's verbs counters (rpcrdma-stat's totals):
# doorbells, send WRs, completions, receives.
verbs_srv() {
	"$build/tools/rpcrdma-stat" -a "$spid" 2>/dev/null |
		sed -n '/totals:/,/connection /p' | tr ',' '\n' | awk '
		{ for (i = 1; i < NF; i++) v[$i] = $(i + 1) }
		END { printf "%d %d %d %d", v["sq_doorbells"], v["sq_wrs"],
			v["cq_reaped"], v["rq_wrs"] }'
}
cost_run() {
	local netid=$1 tag=$2 o v0 v1
	shift 2
	[ "$netid" = rdma ] && v0=$(verbs_srv)
	o=$(timeout 300 perf stat -x, -e raw_syscalls:sys_enter -e context-switches \
		-p "$spid" -o "$out/cost.$netid.$tag.server" -- \
		perf stat -x, -e raw_syscalls:sys_enter -e context-switches \
		-o "$out/cost.$netid.$tag.client" \
		"$cli" -n "$netid" "$B" "$@" 2>&1) ||
		die "perf stat of rb_client $* over $netid: $o"
	[ "$netid" = rdma ] || return 0
	# The verbs work of each side over the run: the client's whole run
	# (its VERBS line), the server's difference.
	v1=$(verbs_srv)
	echo "$o" | sed -n 's/^VERBS //p' | tr ' ' '\n' | cut -d= -f2 |
		paste -sd' ' >"$out/verbs.$tag.client"
	echo "$v0 $v1" | awk '{ print $5 - $1, $6 - $2, $7 - $3, $8 - $4 }' \
		>"$out/verbs.$tag.server"
	[ "$(wc -w <"$out/verbs.$tag.client")" = 4 ] ||
		die "rb_client over rdma printed no VERBS line: $o"
}
# cost_rec NETID INFLIGHT CALLS: the per-call difference of the runs
# tagged 1 and 2 (CALLS more calls in the second), recorded.
cost_rec() {
	local netid=$1 f v=
	for t in 1 2; do
		for side in client server; do
			f=$out/cost.$netid.$2.$t.$side
			v="$v $(awk -F, '!/^#/ && NF > 2 && $1 ~ /^[0-9]+$/ { printf "%s ", $1 }' "$f")"
		done
	done
	# shellcheck disable=SC2086 # $v: the eight counts, split
	set -- "$1" "$2" "$3" $v
	[ $# -eq 11 ] || die "perf stat over $1 gave no counts: $v"
	rec "$(echo "${@:4}" | awk -v n="$3" -v net="$1" -v fl="$2" '{
		printf "cost netid=%s inflight=%s calls=%d client_syscalls=%.2f client_csw=%.2f server_syscalls=%.2f server_csw=%.2f",
			net, fl, n, ($5 - $1) / n, ($6 - $2) / n, ($7 - $3) / n, ($8 - $4) / n }')"
	[ "$1" = rdma ] || return 0
	rec "$(cat "$out/verbs.$2.1.client" "$out/verbs.$2.1.server" \
		"$out/verbs.$2.2.client" "$out/verbs.$2.2.server" | paste -sd' ' |
		awk -v n="$3" -v fl="$2" '{
		split("doorbells wrs cqes recvs", k, " ")
		printf "verbs netid=rdma inflight=%s calls=%d", fl, n
		for (i = 1; i <= 4; i++)
			printf " client_%s=%.2f server_%s=%.2f", k[i],
				($(8 + i) - $i) / n, k[i], ($(12 + i) - $(4 + i)) / n
	}')"
}
# The first perf event of a kind switches a static key on and the last
# one off (the syscall tracepoint, the context-switch count, and for
# events bound to a task perf_sched_events in the scheduler itself), and
# each switch patches the kernel's text with int3, which QEMU's TCG has
# crashed on (an int3 oops in __schedule or finish_task_switch, twice in
# runs like these, and once as the holder below was stopped). One holder,
# bound to init as the measured events are bound to their processes,
# keeps every key on from here to the guest's power-off (it is never
# stopped: stopping it patches the text again). That is why the sections
# that use perf (4a, 4 and 5) run last: the enabled tracepoint costs every
# system call of every process a little, which must not touch the timed
# sections before them.
perf stat -x, -e raw_syscalls:sys_enter -e context-switches -p 1 -o /dev/null \
	-- sleep 100000 </dev/null >/dev/null 2>&1 &
sleep 1
for netid in tcp rdma; do
	say "system calls per NULL call over $netid"
	start_server "$netid"
	# shellcheck disable=SC2086 # two counts
	set -- $COST_LAT
	cost_run "$netid" 1.1 lat "$1"
	cost_run "$netid" 1.2 lat "$2"
	cost_rec "$netid" 1 $(($2 - $1))
	# shellcheck disable=SC2086
	set -- $COST_RATE
	cost_run "$netid" 32.1 rate 32 "$1" shared
	cost_run "$netid" 32.2 rate 32 "$2" shared
	cost_rec "$netid" 32 $((32 * ($2 - $1)))
	stop_server
done

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
for netid in ${PERF_NETIDS:-tcp rdma}; do
	say "perf over $netid"
	data=/dev/shm/rpcrdma-perf.$netid.data
	start_server "$netid"
	# A steady state: perf starts sampling 1.5 s into the client's run,
	# past its start-up and connection set-up (-D).
	# shellcheck disable=SC2086 # PERF_G: -g, or nothing in a quick run
	o=$(timeout 300 perf record -q -D 1500 -a $PERF_G -e cpu-clock -o "$data" -- \
		"$cli" -n "$netid" "$B" rate 32 $((RATE_CALLS / 8)) shared 2>&1) ||
		die "perf record over $netid: $o"
	echo "$o" >"$out/perf.$netid.client.txt"
	stop_server
	perf report -q -i "$data" --no-children --sort comm,dso,symbol \
		--stdio ${PERF_G:+-g none} 2>"$out/perf.$netid.err" |
		grep -v '^$' | head -n 40 >"$out/perf.$netid.txt"
	# Where the client's kernel time goes, by caller (call graphs): for
	# the reader, not the report; a second pass over the profile, so not
	# in a --quick run (CI's smoke test).
	[ -n "$quick" ] ||
		perf report -q -i "$data" --no-children --comm rb_client \
			--sort symbol --stdio -g caller,0.5,callee \
			--percent-limit 3 2>>"$out/perf.$netid.err" |
		grep -v '^$' | head -n 150 >"$out/perf.$netid.callers.txt"
	rm -f "$data"
	[ -s "$out/perf.$netid.txt" ] ||
		die "perf report over $netid is empty: $(head -c 500 "$out/perf.$netid.err")"
done

rec "guest kernel=$(uname -r) quick=${quick:-no} max_msg=$RPCRDMA_MAX_MSG"
say "done: $(wc -l <"$res") results in $res"
