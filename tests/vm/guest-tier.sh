#!/bin/sh
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
here=$(cd "$(dirname "$0")" && pwd) || exit 99
mkdir -p tests/vm || exit 99
kernels=${RPCRDMA_VM_KERNELS:-backports}
worst=0
passed=0
failed=0
boots=
for k in $kernels; do boots="$boots $k:rxe"; done
for k in ${RPCRDMA_VM_SIW_KERNELS:-}; do boots="$boots $k:siw"; done
# The tcp controls of the suites (nfs3d's, nfs3c's against nfsd, the kv
# demo's) run in the first boot only: on a second kernel or provider
# they prove nothing new about this library (RPCRDMA_T_CONTROLS).
first=1
for b in $boots; do
	if [ "$first" = 1 ]; then
		export RPCRDMA_T_CONTROLS=${RPCRDMA_T_CONTROLS:-1}
	else
		export RPCRDMA_T_CONTROLS=0
	fi
	first=0
	k=${b%%:*}
	prov=${b#*:}
	tag=$k
	[ "$prov" = rxe ] || tag=$k-$prov
	log=$PWD/tests/vm/console-$tag.log
	out=$PWD/tests/vm/runner-$tag.out
	rm -f "$log"
	echo "=== guest tier on the $k kernel ($prov)"
	start=$(date +%s)
	"$here/run" --kernel "$k" --provider "$prov" \
		--timeout "${RPCRDMA_VM_TIMEOUT:-1500}" \
		--log "$log" --crash-retry -- "$here/runner.sh" | tee "$out"
	rc=$?
	# tee's status hides run's: take it from the runner's summary.
	sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
	[ -n "$sum" ] || { rc=125; sum="0 passed, 1 failed"; }
	case "$sum" in "0 passed, 0 failed") rc=1 ;; *", 0 failed") ;; *) rc=1 ;; esac
	p=${sum%% passed*}
	f=${sum#*, }
	f=${f%% failed}
	passed=$((passed + p))
	failed=$((failed + f))
	kv=$(sed -n 's/^runner: guest kernel //p' "$out" | head -n 1)
	crash=$(grep -m1 '^run: the guest kernel crashed' "$out")
	echo "guest tier ($tag, ${kv:-kernel unknown}, $prov): $(($(date +%s) - start)) s, $sum${crash:+ (${crash#run: })}"
	if [ "$rc" = 0 ]; then
		rm -f "$log"
	else
		echo "guest tier ($tag): guest console log kept in $log"
		worst=1
	fi
	rm -f "$out"
done
echo "$passed passed, $failed failed"
exit $worst
