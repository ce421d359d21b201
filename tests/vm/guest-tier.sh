#!/bin/bash
# The guest tier of make check: for each kernel of RPCRDMA_VM_KERNELS
# (default "backports"; tools/test.sh, and so CI, sets "backports stable"),
# one boot of the Soft-RoCE guest (tests/vm/run --kernel K) running every
# guest test (tests/vm/runner.sh runs tests/vm/t/*.sh); then for each
# kernel of RPCRDMA_VM_SIW_KERNELS (default none; CI sets "backports") one
# boot running them all again on software iWARP (--provider siw). Run from
# the top build directory, as automake does. The guest console log of a
# failed boot is kept in tests/vm/console-K[-siw].log. RPCRDMA_VM_TIMEOUT
# bounds each boot (default 1500 s: the tier takes about 12 to 17 minutes under
# TCG; a boot whose guest kernel crashed runs once more, and its line says
# so: tests/vm/run --crash-retry). The last line adds up every boot's
# tests: "N passed, M failed".
#
# RPCRDMA_VM_JOBS boots run at once (default 1; tools/test.sh, and so CI,
# sets 2): a TCG guest keeps about one host core busy, so on 2 cores two
# boots take little longer than one. Each boot then writes its output to
# tests/vm/runner-TAG.out, printed whole when it ends, and keeps its
# results in tests/vm/results (the first boot) or tests/vm/results-TAG;
# each is bounded by RPCRDMA_VM_TIMEOUT (default 1500 s, 3000 s with
# more than one job). RPCRDMA_VM_ASAN_BUILD names a build directory made
# with --enable-sanitizers: one more boot (6.12, rxe) runs the suites of
# RPCRDMA_VM_ASAN_SUITES from it. The suites' tcp controls and the
# suites marked "# vm-first-boot-only" run in the first boot only
# (RPCRDMA_T_CONTROLS=0 in the others): on a second kernel or provider
# they prove nothing new about this library. With more than one job a
# suite that fails runs once more and, if it then passes, is reported as
# FLAKY (runner.sh, RPCRDMA_T_RERUN).
here=$(cd "$(dirname "$0")" && pwd) || exit 99
mkdir -p tests/vm || exit 99
kernels=${RPCRDMA_VM_KERNELS:-backports}
jobs=${RPCRDMA_VM_JOBS:-1}
case "$jobs" in ''|*[!0-9]*|0) jobs=1 ;; esac
if [ "$jobs" -gt 1 ]; then tmo=${RPCRDMA_VM_TIMEOUT:-3000}; else tmo=${RPCRDMA_VM_TIMEOUT:-1500}; fi
# Boots that share the host run a failed suite once more (runner.sh,
# RPCRDMA_T_RERUN): a second guest's load breaks timing assumptions. It
# is reported as FLAKY on the suite's line and the boot's, never hidden.
rerun=0
[ "$jobs" -gt 1 ] && rerun=1
boots=
for k in $kernels; do boots="$boots $k:rxe"; done
for k in ${RPCRDMA_VM_SIW_KERNELS:-}; do boots="$boots $k:siw"; done
[ -n "${RPCRDMA_VM_ASAN_BUILD:-}" ] && boots="$boots backports:asan"

# One boot at a time: its output shown as it comes; several: kept until
# the boot ends (interleaved lines would say nothing).
show() {
	if [ "$jobs" -gt 1 ]; then cat; else tee /dev/stderr; fi
}

# One boot: its output to tests/vm/runner-TAG.out, its verdict line to
# tests/vm/verdict-TAG ("rc|passed|failed|line").
boot() {
	b=$1 first=$2
	k=${b%%:*}
	prov=${b#*:}
	tag=$k
	[ "$prov" = rxe ] || tag=$k-$prov
	log=$PWD/tests/vm/console-$tag.log
	out=$PWD/tests/vm/runner-$tag.out
	rm -f "$log" "$out" "tests/vm/verdict-$tag"
	if [ "$first" = 1 ]; then
		ctl=${RPCRDMA_T_CONTROLS:-1}
		res=$PWD/tests/vm/results
	else
		ctl=0
		res=$PWD/tests/vm/results-$tag
	fi
	start=$(date +%s)
	if [ "$prov" = asan ]; then
		# shellcheck disable=SC2086
		(cd "$RPCRDMA_VM_ASAN_BUILD" &&
			RPCRDMA_T_CONTROLS=$ctl RPCRDMA_T_RESULTS=$res \
			RPCRDMA_T_RERUN=$rerun \
			"$here/run" --kernel "$k" --provider rxe --timeout "$tmo" \
			--log "$log" --crash-retry -- "$here/runner.sh" \
			${RPCRDMA_VM_ASAN_SUITES:-}) 2>&1 | show >"$out"
	else
		RPCRDMA_T_CONTROLS=$ctl RPCRDMA_T_RESULTS=$res \
			RPCRDMA_T_RERUN=$rerun "$here/run" --kernel "$k" --provider "$prov" --timeout "$tmo" \
			--log "$log" --crash-retry -- "$here/runner.sh" 2>&1 | show >"$out"
	fi
	# run's status: taken from the runner's summary.
	rc=0
	sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
	[ -n "$sum" ] || { rc=125; sum="0 passed, 1 failed"; }
	case "$sum" in "0 passed, 0 failed") rc=1 ;; *", 0 failed") ;; *) rc=1 ;; esac
	p=${sum%% passed*}
	f=${sum#*, }
	f=${f%% failed}
	kv=$(sed -n 's/^runner: guest kernel //p' "$out" | head -n 1)
	crash=$(grep -m1 '^run: the guest kernel crashed' "$out")
	flaky=$(sed -n 's/^runner: passed only when run again (flaky)://p' "$out" | head -n 1)
	line="guest tier ($tag, ${kv:-kernel unknown}, $prov): $(($(date +%s) - start)) s, $sum${crash:+ (${crash#run: })}${flaky:+ (FLAKY, passed only when run again:$flaky)}"
	[ "$rc" = 0 ] && rm -f "$log"
	echo "$rc|$p|$f|$line" >"tests/vm/verdict-$tag"
}

tag_of() {
	case "${1#*:}" in rxe) echo "${1%%:*}" ;; *) echo "${1%%:*}-${1#*:}" ;; esac
}

# Start the boots, at most $jobs at once, in the order given.
first=1
pids=
for b in $boots; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 5; done
	echo "=== guest tier on the ${b%%:*} kernel (${b#*:}), started at $(date +%T)"
	if [ "$jobs" -gt 1 ]; then
		boot "$b" "$first" &
		pids="$pids $!"
	else
		boot "$b" "$first" 2>&1
	fi
	first=0
done
# shellcheck disable=SC2086
[ -z "$pids" ] || wait $pids

worst=0
passed=0
failed=0
for b in $boots; do
	tag=$(tag_of "$b")
	if [ "$jobs" -gt 1 ]; then
		echo "=== guest tier on the ${b%%:*} kernel (${b#*:}): its output"
		cat "tests/vm/runner-$tag.out"
	fi
	v=$(cat "tests/vm/verdict-$tag" 2>/dev/null) || v="125|0|1|guest tier ($tag): no verdict"
	rc=${v%%|*}; v=${v#*|}
	p=${v%%|*}; v=${v#*|}
	f=${v%%|*}; line=${v#*|}
	echo "$line"
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$rc" != 0 ]; then
		echo "guest tier ($tag): guest console log kept in $PWD/tests/vm/console-$tag.log"
		worst=1
	fi
	rm -f "tests/vm/runner-$tag.out" "tests/vm/verdict-$tag"
done
echo "$passed passed, $failed failed"
exit $worst
