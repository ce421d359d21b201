#!/usr/bin/env bash
# Installs the Debian 12 packages librpcrdma needs to build and test.
# Idempotent: installs only what is missing. Needs root (apt-get).
# With arguments, installs those packages instead (bench/run's extras).
set -euo pipefail

pkgs=(build-essential autoconf automake libtool pkg-config
      libtirpc-dev libibverbs-dev librdmacm-dev ibverbs-providers rdma-core
      check rpcbind rpcsvc-proto valgrind nfs-kernel-server
      qemu-system-x86 busybox-static cpio kmod iproute2
      ibverbs-utils rdmacm-utils perftest man-db groff-base
      tshark tcpdump)
[ $# -eq 0 ] || pkgs=("$@")

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages (${missing[*]}); run as root" >&2
	exit 1
fi
echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
