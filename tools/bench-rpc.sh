#!/usr/bin/env bash
# tools/bench-rpc.sh [BUILDDIR]: RPC over RDMA against RPC over TCP, the
# same rpcgen program in the same Soft-RoCE guest run; prints ratios.
# BUILDDIR (default ./build) must be configured and built (tools/demo.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
make -C "$build" -j"$(nproc)" >/dev/null
cd "$build"
exec "$top/tests/vm/run" --timeout 1200 -- "$top/bench/rpc-guest.sh" "$build"
