# The rpcgen example (examples/kv): kv_server and kv_client over "rdma" and
# over "tcp", the main job's demo script (examples/kv/demo-guest.sh). It
# asserts bytes and CRC-32s end to end and, over rdma, that the client's
# counters show an inline put, a Long Call put and a Long Reply get.
# vm-timeout: 400
# vm-first-boot-only: the rpcgen example takes the library's paths that 40-clnt takes on every boot
command -v rpcbind >/dev/null || { echo "rpcbind not installed"; exit 77; }
exec bash "$RPCRDMA_SRCDIR/examples/kv/demo-guest.sh" "$RPCRDMA_BUILDDIR"
