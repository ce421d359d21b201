#!/usr/bin/env bash
# tests/fuzz/run.sh [SECONDS] [TARGET...]
#
# Builds the libFuzzer targets of tests/fuzz/ with clang under
# AddressSanitizer and UndefinedBehaviorSanitizer (every report fatal) and
# runs each for SECONDS (default 60) from its seed corpus
# (tests/fuzz/corpus/TARGET, copied: the repository's corpus is not
# modified). Exits non-zero on the first crash, leak or sanitizer report,
# leaving the reproducer (crash-*, leak-*) and the log in
# $FUZZ_OUT (default ./build-fuzz). A reproducer becomes a unit test.
# FUZZ_JOBS targets run at once (default: the number of cores).
#
#   bash tests/fuzz/run.sh 22       # what CI runs: 22 s each
#   bash tests/fuzz/run.sh 3600 hdr # one target for an hour
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
	targets=(hdr pvtdata splice xdrddp svcrecv clntreply clntdecode)
out=${FUZZ_OUT:-$PWD/build-fuzz}
mkdir -p "$out"
cc=${CC_FUZZ:-clang}
flags=(-g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
       -I"$top/include" -I"$top" $(pkg-config --cflags libtirpc))
libs=($(pkg-config --libs libtirpc))

# Build every target first, then run them FUZZ_JOBS at a time (default:
# one per core): each libFuzzer run is one process on one core, so on 2
# cores the 7 targets take 4 x SECONDS, each with its whole SECONDS.
for t in "${targets[@]}"; do
	case "$t" in
	hdr) src=("$top/lib/hdr.c" "$top/lib/chunks.c" "$top/lib/splice.c"
		     "$top/lib/plan.c") ;;
	pvtdata) src=("$top/lib/pvtdata.c") ;;
	splice) src=("$top/lib/splice.c") ;;
	xdrddp) src=("$top/xprt_rdma/xdr_ddp.c") ;;
	svcrecv | clntreply)
		src=("$top/lib/recv.c" "$top/lib/hdr.c" "$top/lib/chunks.c"
		     "$top/lib/splice.c") ;;
	clntdecode)
		src=("$top/xprt_rdma/clnt_decode.c" "$top/xprt_rdma/xdr_ddp.c"
		     "$top/xprt_rdma/tirpc.c") ;;
	*) echo "fuzz: unknown target $t" >&2; exit 2 ;;
	esac
	"$cc" "${flags[@]}" "$top/tests/fuzz/fuzz_$t.c" "${src[@]}" \
		"${libs[@]}" -o "$out/fuzz_$t"
	rm -rf "$out/corpus_$t" "$out/fuzz_$t.status"
	mkdir -p "$out/corpus_$t"
	cp "$top/tests/fuzz/corpus/$t/"* "$out/corpus_$t/" 2>/dev/null || true
done

run_one() {
	local t=$1 rc=0
	(cd "$out" && ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"./fuzz_$t" -max_total_time="$secs" -max_len=8192 \
		-print_final_stats=1 "corpus_$t" >"fuzz_$t.log" 2>&1) || rc=$?
	echo "$rc" >"$out/fuzz_$t.status"
}
par=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
for t in "${targets[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$par" ]; do wait -n || true; done
	echo "fuzz: $t for $secs s ($(ls "$out/corpus_$t" | wc -l) seeds)"
	run_one "$t" &
done
wait
failed=0
for t in "${targets[@]}"; do
	if [ "$(cat "$out/fuzz_$t.status" 2>/dev/null)" != 0 ]; then
		tail -n 40 "$out/fuzz_$t.log"
		echo "fuzz: $t FAILED (reproducer and log in $out)" >&2
		failed=1
		continue
	fi
	grep -E "^stat::number_of_executed_units|^stat::peak_rss" \
		"$out/fuzz_$t.log" | sed "s/^/fuzz: $t: /"
done
[ "$failed" = 0 ] || exit 1
echo "fuzz: all targets ran clean"
