# The responder's flow control and limits, and that no peer stalls it: a
# constant credit grant over 64 connections, a client exceeding its grant
# disconnected while another carries on, rdma_xid != RPC XID answered with
# ERR_CHUNK, the connection limit, a peer whose RDMA Reads never complete
# and a peer that stops reposting receives (other clients keep their
# latency, the bad connection closes) (tests/vm/t_limits.c).
# vm-timeout: 300
exec ./tests/vm/t_limits
