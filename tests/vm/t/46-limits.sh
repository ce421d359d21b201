# The responder's flow control and limits: a constant credit grant over 64
# connections, a client exceeding its grant disconnected while another
# carries on, rdma_xid != RPC XID answered with ERR_CHUNK, the connection
# limit (tests/vm/t_limits.c).
# vm-timeout: 300
exec ./tests/vm/t_limits
