#!/usr/bin/env bash
# Installs the Debian 12 packages librpcrdma needs. Idempotent: installs
# only what is missing. Needs root (apt-get).
#   tools/deps.sh          what building and using the library needs
#                          (compiler, autotools, libtirpc, rdma-core,
#                          rpcgen, check for make check's unit tests)
#   tools/deps.sh --lab    that and the test lab: the QEMU guest, the
#                          kernel's nfsd, perftest, valgrind, tshark...
#                          (tools/test.sh, tools/demo.sh, bench/run)
#   tools/deps.sh PKG...   those packages (bench/run's extras)
set -euo pipefail

build=(build-essential autoconf automake libtool pkg-config
       libtirpc-dev libibverbs-dev librdmacm-dev ibverbs-providers
       rdma-core check rpcsvc-proto)
lab=(rpcbind valgrind nfs-kernel-server
     qemu-system-x86 busybox-static cpio kmod iproute2
     ibverbs-utils rdmacm-utils perftest man-db groff-base
     tshark tcpdump)
case "${1:-}" in
'') pkgs=("${build[@]}") ;;
--lab) pkgs=("${build[@]}" "${lab[@]}") ;;
*) pkgs=("$@") ;;
esac

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
