# An RDMA-CM connection from rxe0 (client, RPCRDMA_ADDR_A) to rxe1 (server,
# RPCRDMA_ADDR_B) carries a Send, an RDMA Write and an RDMA Read whose
# bytes are checked (tests/vm/cm_rw.c).
# vm-timeout: 150
exec ./tests/vm/cm_rw "$RPCRDMA_ADDR_B" "$RPCRDMA_ADDR_A"
