#!/bin/bash
# The guest tier of make check: boots of the Soft-RoCE guest (tests/vm/run),
# each running guest tests (tests/vm/runner.sh runs tests/vm/t/*.sh). Run
# from the top build directory, as automake does.
#
# RPCRDMA_VM_BOOTS lists the boots, each KERNEL:KIND[:SUITES]: KERNEL is
# "backports" (6.12) or "stable" (6.1); KIND is "rxe", "siw" (software
# iWARP, --provider siw) or "asan" (rxe, the suites run from the build
# directory RPCRDMA_VM_ASAN_BUILD, made with --enable-sanitizers); SUITES
# is a comma-separated list of suite names (all when absent). A name that
# matches no suite fails the tier. A name written asan@NAME runs from
# RPCRDMA_VM_ASAN_BUILD inside a boot of another kind (runner.sh,
# RPCRDMA_T_ASAN_SUITES): one boot of a kernel serves both builds, which
# saves a boot's start and set-up (about 40 s under TCG). Without RPCRDMA_VM_BOOTS the boots are
# every kernel of RPCRDMA_VM_KERNELS (default "backports") on rxe, every
# kernel of RPCRDMA_VM_SIW_KERNELS (default none) on siw, and, when
# RPCRDMA_VM_ASAN_BUILD is set, backports:asan running
# RPCRDMA_VM_ASAN_SUITES: every suite in each. tools/test.sh (and so CI)
# gives the list: the whole tier on one kernel, and on the others the
# suites whose outcome depends on the kernel or the provider.
#
# The guest console log of a failed boot is kept in
# tests/vm/console-TAG.log. RPCRDMA_VM_TIMEOUT bounds each boot (default
# 1500 s, 3600 s with more than one job); a boot whose guest kernel
# crashed runs once more from the suite that was running (tests/vm/run
# --crash-retry, runner.sh), and its line says so. The last line adds up
# every boot's tests: "N passed, M failed".
#
# RPCRDMA_VM_JOBS boots run at once (default 1; tools/test.sh, and so CI,
# sets 2). Each boot then writes its output to tests/vm/runner-TAG.out,
# printed whole when it ends, and keeps its results in tests/vm/results
# (the first boot) or tests/vm/results-TAG. The suites' tcp controls and
# the suites marked "# vm-first-boot-only" run in the first boot only
# (RPCRDMA_T_CONTROLS=0 in the others): on a second kernel or provider
# they prove nothing new about this library. With more than one job a
# suite that fails runs once more and, if it then passes, is reported as
# FLAKY (runner.sh, RPCRDMA_T_RERUN).
here=$(cd "$(dirname "$0")" && pwd) || exit 99
mkdir -p tests/vm || exit 99
kernels=${RPCRDMA_VM_KERNELS:-backports}
jobs=${RPCRDMA_VM_JOBS:-1}
case "$jobs" in ''|*[!0-9]*|0) jobs=1 ;; esac
# With two boots at once a slow host stretches a boot by half (CI's took
# 2,985 s of the old 3,000 and cut its last two suites short): 3,600 s,
# still inside CI's 90 minutes with everything else.
if [ "$jobs" -gt 1 ]; then tmo=${RPCRDMA_VM_TIMEOUT:-3600}; else tmo=${RPCRDMA_VM_TIMEOUT:-1500}; fi
# Boots that share the host run a failed suite once more (runner.sh,
# RPCRDMA_T_RERUN): a second guest's load breaks timing assumptions. It
# is reported as FLAKY on the suite's line and the boot's, never hidden.
# RPCRDMA_VM_RERUN=1 asks for it with one job too (tools/test.sh: CI's
# host may be shared).
rerun=${RPCRDMA_VM_RERUN:-0}
[ "$jobs" -gt 1 ] && rerun=1
boots=${RPCRDMA_VM_BOOTS:-}
if [ -z "$boots" ]; then
	for k in $kernels; do boots="$boots $k:rxe"; done
	for k in ${RPCRDMA_VM_SIW_KERNELS:-}; do boots="$boots $k:siw"; done
	if [ -n "${RPCRDMA_VM_ASAN_BUILD:-}" ]; then
		a=$(echo ${RPCRDMA_VM_ASAN_SUITES:-} | tr ' ' ,)
		boots="$boots backports:asan${a:+:$a}"
	fi
fi
# Every boot's kind is known and every suite it names exists: a typo
# must not drop a suite unseen.
for b in $boots; do
	kind=${b#*:}; kind=${kind%%:*}
	case "$kind" in rxe|siw) ;; asan)
		[ -n "${RPCRDMA_VM_ASAN_BUILD:-}" ] || {
			echo "guest tier: boot $b: RPCRDMA_VM_ASAN_BUILD is not set"; exit 99; } ;;
	*) echo "guest tier: boot $b: kind '$kind' is not rxe, siw or asan"; exit 99 ;;
	esac
	case "$b" in *:*:*)
		for n in $(echo "${b#*:*:}" | tr , ' '); do
			case "$n" in asan@*)
				n=${n#asan@}
				[ -n "${RPCRDMA_VM_ASAN_BUILD:-}" ] || {
					echo "guest tier: boot $b: asan@$n but RPCRDMA_VM_ASAN_BUILD is not set"; exit 99; } ;;
			esac
			ls "$here"/t/*.sh | grep -q -E "/([0-9]+-)?$n\.sh$" || {
				echo "guest tier: boot $b: no suite '$n' in $here/t"; exit 99; }
		done ;;
	esac
done

# nfstest (t/69-nfstest.sh), fetched on the host once into the guest
# cache (tests/vm/nfstest-fetch.sh): the guest has no network.
if [ -z "${RPCRDMA_T_NFSTEST:-}" ]; then
	nfc=${RPCRDMA_VM_CACHE:-$here/../../.cache/vm}/nfstest
	if "$here/nfstest-fetch.sh" "$nfc"; then
		export RPCRDMA_T_NFSTEST=$nfc
	else
		echo "guest tier: nfstest not fetched: 69-nfstest will say so"
	fi
fi

# One boot at a time: its output shown as it comes (appended: tee would
# truncate a log file that stderr is, losing the boots before); several:
# kept until the boot ends (interleaved lines would say nothing).
show() {
	if [ "$jobs" -gt 1 ]; then cat; else tee -a /dev/stderr; fi
}

# A boot's tag: KERNEL, or KERNEL-KIND when the kind is not rxe.
tag_of() {
	local kind=${1#*:}
	kind=${kind%%:*}
	case "$kind" in rxe) echo "${1%%:*}" ;; *) echo "${1%%:*}-$kind" ;; esac
}

# One boot: its output to tests/vm/runner-TAG.out, its verdict line to
# tests/vm/verdict-TAG ("rc|passed|failed|line").
boot() {
	b=$1 first=$2
	k=${b%%:*}
	prov=${b#*:}
	suites=
	case "$prov" in *:*) suites=$(echo "${prov#*:}" | tr , ' '); prov=${prov%%:*} ;; esac
	# asan@NAME: NAME runs from the sanitizer build (runner.sh).
	asuites=
	for n in $suites; do
		case "$n" in asan@*) asuites="$asuites ${n#asan@}" ;; esac
	done
	suites=$(echo "$suites" | sed 's/asan@//g')
	tag=$(tag_of "$b")
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
	dir=$PWD
	vprov=$prov
	if [ "$prov" = asan ]; then
		dir=$RPCRDMA_VM_ASAN_BUILD
		vprov=rxe
	fi
	start=$(date +%s)
	# shellcheck disable=SC2086
	(cd "$dir" &&
		RPCRDMA_T_CONTROLS=$ctl RPCRDMA_T_RESULTS=$res \
		RPCRDMA_T_RERUN=$rerun \
		RPCRDMA_T_ASAN_SUITES="${asuites# }" \
		RPCRDMA_T_ASAN_BUILD="${asuites:+$RPCRDMA_VM_ASAN_BUILD}" \
		"$here/run" --kernel "$k" --provider "$vprov" --timeout "$tmo" \
		--log "$log" --crash-retry -- "$here/runner.sh" $suites) 2>&1 | show >"$out"
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


# Start the boots, at most $jobs at once, in the order given.
first=1
pids=
for b in $boots; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 5; done
	echo "=== guest tier: boot $b, started at $(date +%T)"
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
		echo "=== guest tier: boot $b: its output"
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
