# Cleanup: 1,000 clnt_rdma_create / NULL call / clnt_destroy cycles leave
# no open fd, no RDMA object (rdma resource: qp cq mr pd cm_id) of the
# client process and no VmRSS growth behind (tests/vm/t_faults).
# vm-timeout: 380
exec env CK_RUN_CASE=cleanup ./tests/vm/t_faults
