# The SVCXPRT: clients by clnt_create(..., "rdma"), inline / Long Call /
# Long Reply counters, crafted headers answered with exact RDMA_ERRORs on
# a connection that stays usable, many clients, svc_create after its
# listener was destroyed, rpcbind registration.
# vm-timeout: 300
exec ./tests/vm/t_svc
