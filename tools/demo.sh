#!/usr/bin/env bash
# tools/demo.sh: the main job. On a fresh Debian 12 machine, as root:
#
#   sudo tools/demo.sh        (or: bash tools/demo.sh)
#
# 1. installs the build dependencies (apt-get, only what is missing);
# 2. builds the project in ./build (autoreconf -fi when there is no
#    configure yet, then configure and make);
# 3. boots the Soft-RoCE QEMU guest (tests/vm/run, which installs what it
#    needs itself) and runs examples/kv/demo-guest.sh in it: kv_server and
#    kv_client, an rpcgen key-value store, over the netid "rdma" and then
#    over "tcp", printing every operation, the checksums compared and the
#    transport counters that show the path each message took.
# Exits non-zero when a step fails or any check of the demo fails.
#
# Environment: DEMO_BUILD (build directory, default build), DEMO_TIMEOUT
# (seconds for the whole guest run, default 900), JOBS (make -j).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${DEMO_BUILD:-build}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

step() {
	printf '\n######## demo: %s\n' "$*"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "demo.sh: run as root (sudo tools/demo.sh): it installs packages" \
		"and boots a guest that loads kernel modules" >&2
	exit 1
fi

step "1/3 build dependencies"
pkgs=(build-essential autoconf automake libtool pkg-config libtirpc-dev
      libibverbs-dev librdmacm-dev ibverbs-providers rdma-core check rpcbind
      rpcsvc-proto)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
else
	echo "all present: ${pkgs[*]}"
fi

step "2/3 build in ./$build"
if [ ! -x configure ]; then
	autoreconf -fi
fi
mkdir -p "$build"
if [ ! -f "$build/Makefile" ]; then
	(cd "$build" && ../configure)
fi
make -C "$build" -j"$jobs"
ls -l "$build/examples/kv/kv_server" "$build/examples/kv/kv_client"

step "3/3 the kv example in the Soft-RoCE guest (rxe0 10.99.0.1, rxe1 10.99.0.2)"
echo "booting the guest (TCG, no KVM: about a minute before the demo starts)"
rc=0
tests/vm/run --timeout "${DEMO_TIMEOUT:-900}" -- \
	bash examples/kv/demo-guest.sh "$build" || rc=$?
echo
if [ "$rc" = 0 ]; then
	echo "demo.sh: done: the rpcgen example ran over RDMA (Soft-RoCE) and TCP, every check passed"
else
	echo "demo.sh: FAILED (status $rc)"
fi
exit "$rc"
