#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Transport header codec benchmark.
#
#   tools/bench-hdr.sh [BUILD_DIR]      (default ./build, already configured)
#
# 1. Builds bench/bench_hdr in BUILD_DIR and runs it: nanoseconds per
#    encode+decode of a call header (2 read segments, one 2-segment write
#    chunk, a 1-segment reply chunk: 136 bytes) next to a memcpy of the same
#    136 bytes, measured in the same run, and their ratio.
# 2. Counts instructions with valgrind --tool=callgrind: 1000 and 2000
#    encode+decode pairs, 1000 and 2000 memcpys. The difference of the two
#    totals divided by 1000 is the cost of one operation, with program
#    start-up and exit cancelled out. Goal: under 600 instructions for one
#    encode+decode.
set -eu

BUILD=${1:-./build}
N1=1000
N2=2000

if [ ! -f "$BUILD/Makefile" ]; then
	echo "bench-hdr: $BUILD is not a configured build directory" >&2
	exit 1
fi
make -C "$BUILD" -s bench/bench_hdr
BENCH="$BUILD/bench/bench_hdr"

echo "== timed run"
"$BENCH"

if ! command -v valgrind >/dev/null 2>&1; then
	echo "bench-hdr: valgrind not found, skipping instruction counts" >&2
	exit 0
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM

# Total instructions (Ir) of one run of the bench in the given mode.
count() {
	valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" \
		"$BENCH" "$1" "$2" >/dev/null 2>"$TMP/cg.err" || {
		cat "$TMP/cg.err" >&2
		exit 1
	}
	sed -n 's/^summary: *//p; s/^totals: *//p' "$TMP/cg.out" | head -n 1
}

c1=$(count codec $N1)
c2=$(count codec $N2)
m1=$(count memcpy $N1)
m2=$(count memcpy $N2)

echo "== callgrind (instructions, difference of $N2 and $N1 iterations)"
awk -v c1="$c1" -v c2="$c2" -v m1="$m1" -v m2="$m2" -v n="$((N2 - N1))" '
BEGIN {
	codec = (c2 - c1) / n
	copy = (m2 - m1) / n
	printf "encode+decode: %8.1f instructions/op (%d and %d total)\n",
	    codec, c1, c2
	printf "memcpy:        %8.1f instructions/op (%d and %d total)\n",
	    copy, m1, m2
	if (copy > 0)
		printf "ratio (codec / memcpy): %.1f\n", codec / copy
	printf "goal < 600 instructions per encode+decode: %s\n",
	    codec < 600 ? "met" : "NOT met"
}'
