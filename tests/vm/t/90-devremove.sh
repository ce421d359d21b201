# Device removal (tests/vm/t_qpfault, case devremove): RPCRDMA_DEV_A (rxe0
# or siw0), the client's device, then RPCRDMA_DEV_B, the server's, deleted (rdma link delete) while a
# CLIENT has calls in flight: each delete returns (the library closes what
# it had on the device and makes librdmacm let go of it), calls fail with
# a connection error within their timeout, the connection is freed; the
# device added back, the same CLIENT reconnects (device A), a new server
# serves (device B; the old listener is dead). Last: it removes the devices
# the other tests use, and adds them back whatever happened.
# vm-timeout: 300
env CK_RUN_CASE=devremove ./tests/vm/t_qpfault
rc=$?
p=${RPCRDMA_PROVIDER:-rxe} a=${RPCRDMA_DEV_A:-rxe0} b=${RPCRDMA_DEV_B:-rxe1}
[ -e "/sys/class/infiniband/$a" ] || rdma link add "$a" type "$p" netdev v0
[ -e "/sys/class/infiniband/$b" ] || rdma link add "$b" type "$p" netdev v1
exit $rc
