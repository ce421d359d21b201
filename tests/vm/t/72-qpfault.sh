# QP faults: the library's QP forced into the error state mid-call, the
# CLIENT's (calls fail with a connection error within their timeout, the
# same CLIENT reconnects) and a server connection's during an RDMA Read
# (the server frees it, another connection goes on, the client
# reconnects); fds and RDMA objects back to idle (tests/vm/t_qpfault).
# vm-timeout: 600
exec env CK_RUN_CASE=qpfault ./tests/vm/t_qpfault
