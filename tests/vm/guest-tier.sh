#!/bin/sh
# The guest tier of make check: one boot of the Soft-RoCE guest
# (tests/vm/run) running every guest test (tests/vm/runner.sh runs
# tests/vm/t/*.sh). Run from the top build directory, as automake does.
# The guest console log of a failed run is kept in tests/vm/console.log.
# RPCRDMA_VM_TIMEOUT bounds the whole tier (default 600 s).
here=$(cd "$(dirname "$0")" && pwd) || exit 99
mkdir -p tests/vm || exit 99
log=$PWD/tests/vm/console.log
rm -f "$log"
start=$(date +%s)
"$here/run" --timeout "${RPCRDMA_VM_TIMEOUT:-600}" --log "$log" -- \
	"$here/runner.sh"
rc=$?
echo "guest tier: $(($(date +%s) - start)) s in all, exit status $rc"
case "$rc" in
0) rm -f "$log" ;;
*) echo "guest tier: guest console log kept in $log" ;;
esac
# 125 (the guest could not be set up) and 124 (timeout) are hard errors.
case "$rc" in
0) exit 0 ;;
124|125) exit 99 ;;
*) exit 1 ;;
esac
