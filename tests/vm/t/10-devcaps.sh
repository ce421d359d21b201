# Both devices of the provider under test are PORT_ACTIVE and answer RDMA
# Reads; rxe's advertise memory windows of type 2 (MEM_WINDOW_TYPE_2B) and
# the memory management extensions (Send With Invalidate) and allocate a
# type-2 window, siw's (iWARP) have none (tests/vm/devcaps.c).
# vm-timeout: 60
exec ./tests/vm/devcaps "${RPCRDMA_DEV_A:-rxe0}" "${RPCRDMA_DEV_B:-rxe1}"
