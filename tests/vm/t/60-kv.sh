# The rpcgen example (examples/kv): kv_server and kv_client over "rdma" and
# over "tcp" (the first boot only), the main job's demo script (examples/kv/demo-guest.sh). It
# asserts bytes and CRC-32s end to end and, over rdma, that the client's
# counters show an inline put, a Long Call put and a Long Reply get.
# vm-timeout: 400
command -v rpcbind >/dev/null || { echo "rpcbind not installed"; exit 77; }
# Over tcp, the control, only in the guest tier's first boot
# (RPCRDMA_T_CONTROLS=0 after it): it proves nothing new on a second
# kernel or provider.
if [ "${RPCRDMA_T_CONTROLS:-1}" = 0 ]; then
	export KV_DEMO_NETIDS=${KV_DEMO_NETIDS:-rdma}
fi
exec bash "$RPCRDMA_SRCDIR/examples/kv/demo-guest.sh" "$RPCRDMA_BUILDDIR"
