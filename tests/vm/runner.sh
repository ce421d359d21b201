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
#   RPCRDMA_VM_RESULTS a directory for results to keep (in the build dir)
here=$(cd "$(dirname "$0")" && pwd)
export RPCRDMA_SRCDIR=${RPCRDMA_SRCDIR:-$(cd "$here/../.." && pwd)}
export RPCRDMA_BUILDDIR=${RPCRDMA_BUILDDIR:-$PWD}
export RPCRDMA_VM_RESULTS=${RPCRDMA_VM_RESULTS:-$RPCRDMA_BUILDDIR/tests/vm/results}
mkdir -p "$RPCRDMA_VM_RESULTS"
cd "$RPCRDMA_BUILDDIR" || exit 1

echo "runner: guest kernel $(uname -r)"
passed=0
failed=0
deadline=
if [ -n "${RPCRDMA_VM_DEADLINE:-}" ]; then
	# Slack for the runner's own forks, slow in a loaded TCG guest.
	deadline=$((RPCRDMA_VM_DEADLINE - 20))
fi
# In the guest's /run (a tmpfs), not on the host's disk it shares.
outs=$(mktemp -d /run/rpcrdma-runner.XXXXXX) || exit 1
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
	limit=$(sed -n 's/^# vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$t" | head -n 1)
	limit=${limit:-120}
	if [ -n "$deadline" ]; then
		# What is left, less the 5 s of timeout -k.
		left=$((deadline - 6 - $(date +%s)))
		if [ "$left" -lt 10 ]; then
			echo "--- $name: not run, the run's time is used up"
			echo "FAIL: $name"
			failed=$((failed + 1))
			continue
		fi
		[ "$limit" -le "$left" ] || limit=$left
	fi
	echo "=== $name (limit ${limit} s)"
	out=$outs/$name.out
	t0=$(date +%s)
	# To a file, not through a pipe (a daemon a suite leaves behind must
	# not hold the runner), shown as it comes (a guest that panics still
	# shows it): tail follows the file until the sleeper it watches is
	# stopped, then prints what is left and ends.
	: >"$out"
	sleep 100000 & sp=$!
	tail -n +1 -s 0.2 -f --pid=$sp "$out" & tp=$!
	timeout -k 5 "$limit" bash "$t" </dev/null >"$out" 2>&1
	rc=$?
	kill $sp 2>/dev/null
	wait $tp $sp 2>/dev/null
	t1=$(date +%s)
	echo "--- $name: exit status $rc after $((t1 - t0)) s"
	case "$rc" in
	0) echo "PASS: $name"; passed=$((passed + 1)) ;;
	77) echo "SKIP: $name" ;;
	*) [ "$rc" = 124 ] || [ "$rc" = 137 ] &&
		echo "--- $name: timed out after $limit s"
		# The first failure the suite printed rides on its FAIL line,
		# which the summaries keep (check's ":F:"/":E:" or a script's
		# FAILED).
		why=$(grep -a -m 1 -E ':[0-9]+:[FE]:' "$out" ||
			grep -a -m 1 -E 'FAILED|Sanitizer|[Ff]ailed|error' "$out")
		why=$(printf '%s' "$why" | cut -c 1-240)
		echo "FAIL: $name${why:+ -- $why}"; failed=$((failed + 1)) ;;
	esac
done
rm -rf "$outs"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
