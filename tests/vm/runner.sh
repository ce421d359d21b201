#!/bin/bash
# Guest-side runner of the guest tier: runs each guest test in one boot.
#
#   tests/vm/run -- tests/vm/runner.sh [NAME...]    (from the build dir)
#
# A guest test is a file tests/vm/t/NN-name.sh (run with bash, in name
# order, from the build directory). Exit status 0 is a pass, 77 a skip,
# anything else a failure. A line "# vm-timeout: S" in the file sets its
# time limit (default 120 s). NAMEs select tests ("cm_rw" or "20-cm_rw").
# Prints "PASS: name" / "FAIL: name" / "SKIP: name" per test, each test's
# output before its verdict, and last a line "N passed, M failed";
# exits 1 when a test failed or none ran.
#
# When RPCRDMA_VM_DEADLINE (set by tests/vm/run) says the run's time is
# running out, a test's limit is cut to what is left and the tests that
# no longer fit are reported as failures ("not run"), so the summary line
# is always printed.
#
# Environment given to each test:
#   RPCRDMA_ADDR_A, RPCRDMA_ADDR_B  rxe0's and rxe1's IPv4 addresses
#   RPCRDMA_BUILDDIR   the top build directory (also the cwd)
#   RPCRDMA_SRCDIR     the top source directory
#   RPCRDMA_VM_RESULTS a directory for results to keep (in the build dir;
#                      RPCRDMA_T_RESULTS names another, for boots that
#                      run at once)
#
# The suites named in RPCRDMA_T_ASAN_SUITES run from the build directory
# RPCRDMA_T_ASAN_BUILD (made with --enable-sanitizers) instead, with
# RPCRDMA_BUILDDIR set to it (guest-tier.sh's asan@NAME).
#
# A file with a line "# vm-first-boot-only: WHY" is skipped (SKIP) when
# RPCRDMA_T_CONTROLS=0, which guest-tier.sh sets in every boot but the
# first: it proves nothing new on a second kernel or provider.
here=$(cd "$(dirname "$0")" && pwd)
export RPCRDMA_SRCDIR=${RPCRDMA_SRCDIR:-$(cd "$here/../.." && pwd)}
export RPCRDMA_BUILDDIR=${RPCRDMA_BUILDDIR:-$PWD}
export RPCRDMA_VM_RESULTS=${RPCRDMA_VM_RESULTS:-${RPCRDMA_T_RESULTS:-$RPCRDMA_BUILDDIR/tests/vm/results}}
mkdir -p "$RPCRDMA_VM_RESULTS"
cd "$RPCRDMA_BUILDDIR" || exit 1

echo "runner: guest kernel $(uname -r)"

# User-space processes but this runner's own: "pid comm" lines.
procs() {
	ps -e -o pid=,ppid=,comm= | awk -v me=$$ '$2 != 2 && $1 != 2 && $1 != me && $2 != me { print $1, $3 }' | sort
}

# Packets the network stack dropped (softnet_stat's second column, every
# CPU): on the veth pair a drop is a lost RoCE packet, which rxe must
# retransmit (6.1's rxe logs "Failed sending ACK" for lost ACKs).
softnet_drops() {
	local n=0 d
	while read -r _ d _; do n=$((n + 0x$d)); done </proc/net/softnet_stat
	echo "$n"
}

# What a failure may owe to the guest rather than to the code: load,
# memory, tmpfs use, packets the network stack dropped since boot, the
# kernel's last words.
guest_state() {
	local p="--- $1:"
	echo "$p load: $(cut -d' ' -f1-4 /proc/loadavg)"
	echo "$p memory (MiB): $(free -m | awk '/^Mem:/ { print "total " $2 ", used " $3 ", free " $4 ", cache " $6 ", available " $7 }')"
	df -m -t tmpfs 2>/dev/null | awk -v p="$p" 'NR > 1 && $3 > 0 { print p " tmpfs " $6 ": " $3 " MiB used" }'
	echo "$p softnet drops since boot: $(softnet_drops)"
	dmesg 2>/dev/null | tail -n 60 | sed "s/^/$p dmesg: /"
}

# A suite must stop what it started. What is still running is named (with
# its CPU time: a spinning leftover starves the suites after it) and
# killed, so the next suite gets the guest as the last one had it.
leftovers() {
	local name=$1 before=$2 p
	# No /dev/fd in the guest: no process substitution.
	echo "$before" >"$outs/procs.before"
	procs >"$outs/procs.now"
	p=$(comm -13 "$outs/procs.before" "$outs/procs.now" | awk '{ print $1 }')
	[ -n "$p" ] || return 0
	for q in $p; do
		ps -o pid=,etime=,time=,stat=,args= -p "$q" 2>/dev/null |
			sed "s/^/--- $name: left running:/"
	done
	kill -9 $p 2>/dev/null
}
passed=0
failed=0
first_why=
rerun_names=
deadline=
if [ -n "${RPCRDMA_VM_DEADLINE:-}" ]; then
	# Slack for the runner's own forks, slow in a loaded TCG guest.
	deadline=$((RPCRDMA_VM_DEADLINE - 20))
fi
# In the guest's /run (a tmpfs), not on the host's disk it shares.
outs=$(mktemp -d /run/rpcrdma-runner.XXXXXX) || exit 1
# Each suite's verdict, kept on the host's disk: when the guest kernel
# crashed and tests/vm/run --crash-retry boots again
# (RPCRDMA_VM_CRASH_RETRY=1), the suites the crashed boot finished keep
# their verdicts and the runner goes on from the one that was running.
progress=$RPCRDMA_VM_RESULTS/runner.progress
if [ "${RPCRDMA_VM_CRASH_RETRY:-0}" = 1 ] && [ -s "$progress" ]; then
	echo "runner: the guest kernel crashed in the boot before this one; its verdicts stand, from the suite that was running on"
else
	: >"$progress"
fi
verdict() {	# LINE: printed, and kept for a boot after a crash
	echo "$1"
	echo "$name $1" >>"$progress"
}
for t in "$here"/t/*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	if [ $# -gt 0 ]; then
		want=0
		for n in "$@"; do
			[ "$n" = "$name" ] || [ "$n" = "${name#*-}" ] && want=1
		done
		[ "$want" = 1 ] || continue
	fi
	was=$(grep -m 1 "^$name " "$progress" 2>/dev/null)
	if [ -n "$was" ]; then
		was=${was#* }
		echo "$was (in the boot before the crash)"
		case "$was" in
		PASS*) passed=$((passed + 1)) ;;
		FAIL*) failed=$((failed + 1)) ;;
		esac
		case "$was" in *"(run again)"*) rerun_names="$rerun_names $name" ;; esac
		continue
	fi
	if [ "${RPCRDMA_T_CONTROLS:-1}" = 0 ] &&
		grep -q '^# vm-first-boot-only' "$t"; then
		echo "--- $name: $(sed -n 's/^# vm-first-boot-only: *//p' "$t" | head -n 1)"
		verdict "SKIP: $name (first boot only)"
		continue
	fi
	limit=$(sed -n 's/^# vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$t" | head -n 1)
	limit=${limit:-120}
	if [ -n "$deadline" ]; then
		# What is left, less the 5 s of timeout -k.
		left=$((deadline - 6 - $(date +%s)))
		if [ "$left" -lt 10 ]; then
			echo "--- $name: not run, the run's time is used up"
			verdict "FAIL: $name"
			failed=$((failed + 1))
			continue
		fi
		[ "$limit" -le "$left" ] || limit=$left
	fi
	# From the sanitizer build when the boot asks for it.
	bdir=$RPCRDMA_BUILDDIR bwhat=
	for n in ${RPCRDMA_T_ASAN_SUITES:-}; do
		if [ "$n" = "$name" ] || [ "$n" = "${name#*-}" ]; then
			bdir=${RPCRDMA_T_ASAN_BUILD:?RPCRDMA_T_ASAN_SUITES without RPCRDMA_T_ASAN_BUILD}
			bwhat=", from the ASan build"
		fi
	done
	attempt=1
	while :; do
	echo "=== $name (limit ${limit} s)${bwhat}${first_why:+, run again}"
	out=$outs/$name.out
	t0=$(date +%s)
	# To a file, not through a pipe (a daemon a suite leaves behind must
	# not hold the runner), shown as it comes (a guest that panics still
	# shows it): tail follows the file until the sleeper it watches is
	# stopped, then prints what is left and ends.
	: >"$out"
	pids_before=$(procs)
	drops_before=$(softnet_drops)
	sleep 100000 & sp=$!
	tail -n +1 -s 0.2 -f --pid=$sp "$out" & tp=$!
	(cd "$bdir" && RPCRDMA_BUILDDIR=$bdir \
		timeout -k 5 "$limit" bash "$t" </dev/null >"$out" 2>&1)
	rc=$?
	kill $sp 2>/dev/null
	wait $tp $sp 2>/dev/null
	t1=$(date +%s)
	echo "--- $name: exit status $rc after $((t1 - t0)) s"
	leftovers "$name" "$pids_before"
	d=$(($(softnet_drops) - drops_before))
	[ "$d" = 0 ] || echo "--- $name: the network stack dropped $d packets"
	case "$rc" in
	0)	if [ -n "$first_why" ]; then
			echo "--- $name: FLAKY: failed, then passed when run again; the first failure: $first_why"
			verdict "PASS: $name (run again)"
			rerun_names="$rerun_names $name"
		else
			verdict "PASS: $name"
		fi
		passed=$((passed + 1)) ;;
	77) verdict "SKIP: $name" ;;
	*) [ "$rc" = 124 ] || [ "$rc" = 137 ] &&
		echo "--- $name: timed out after $limit s"
		# The first failure the suite printed rides on its FAIL line,
		# which the summaries keep (check's ":F:"/":E:" or a script's
		# FAILED).
		why=$(grep -a -m 1 -E ':[0-9]+:[FE]:' "$out" ||
			grep -a -m 1 -E 'FAILED|Sanitizer|[Ff]ailed|error' "$out" ||
			grep -a -v '^[[:space:]]*$' "$out" | tail -n 1)
		[ "$rc" = 124 ] || [ "$rc" = 137 ] &&
			why="timed out after $limit s; last: $why"
		guest_state "$name"
		why=$(printf '%s' "$why" | cut -c 1-240)
		# When boots share the host (RPCRDMA_T_RERUN=1, guest-tier.sh
		# with RPCRDMA_VM_JOBS > 1), a suite that failed, not by its
		# time limit, runs once more if its limit still fits: timing
		# assumptions break under the load of a second guest. It passes
		# only if the second run passes, and says so (FLAKY, "run
		# again", the tier's summary line): a flake is reported, never
		# hidden.
		if [ "${RPCRDMA_T_RERUN:-0}" = 1 ] && [ "$attempt" = 1 ] &&
			[ "$rc" != 124 ] && [ "$rc" != 137 ] &&
			{ [ -z "$deadline" ] ||
			  [ $((deadline - 6 - $(date +%s))) -ge "$limit" ]; }; then
			echo "--- $name: failed -- $why; running it once more (RPCRDMA_T_RERUN)"
			first_why=$why
			attempt=2
			continue
		fi
		verdict "FAIL: $name${why:+ -- $why}"; failed=$((failed + 1)) ;;
	esac
	break
	done
	first_why=
done
rm -rf "$outs"
[ -z "$rerun_names" ] ||
	echo "runner: passed only when run again (flaky):$rerun_names"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
