# The RPC-over-RDMA CLIENT against the SVCXPRT: sizes, thresholds, Long
# Call / Long Reply counters, 64 threads on 8 credits, timeout, reconnect.
# vm-timeout: 600
exec ./tests/vm/t_clnt
