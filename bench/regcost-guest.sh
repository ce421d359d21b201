#!/bin/sh
# bench/regcost in the Soft-RoCE guest, from the build directory:
#   cd build && flock /tmp/guest.lock ../tests/vm/run [--kernel stable] \
#       --timeout 600 -- ../bench/regcost-guest.sh
# Pass 1: glibc's memcpy as it is. Pass 2: the same with rep movsb turned
# off, because QEMU's TCG emulates rep movsb about 6x slower than a vector
# loop, which glibc picks between x86_rep_movsb_threshold and its stop
# threshold (docs/performance.md, "Copy or register: the crossover").
[ -x ./bench/regcost ] || { echo "run me from the build directory" >&2; exit 1; }
/lib64/ld-linux-x86-64.so.2 --list-tunables |
	grep -E 'rep_movsb_threshold|non_temporal|shared_cache_size|data_cache_size'
echo "== pass 1: default memcpy"
./bench/regcost || exit 1
echo "== pass 2: rep movsb off (no RDMA Reads)"
GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=0x7fffffffffffffff \
	./bench/regcost -R 0
