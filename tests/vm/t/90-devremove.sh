# Device removal (tests/vm/t_qpfault, case devremove): rxe0, the client's
# device, then rxe1, the server's, deleted (rdma link delete) while a
# CLIENT has calls in flight: each delete returns (the library closes what
# it had on the device and makes librdmacm let go of it), calls fail with
# a connection error within their timeout, the connection is freed; the
# device added back, the same CLIENT reconnects (rxe0), a new server
# serves (rxe1; the old listener is dead). Last: it removes the devices
# the other tests use, and adds them back whatever happened.
# vm-timeout: 300
env CK_RUN_CASE=devremove ./tests/vm/t_qpfault
rc=$?
[ -e /sys/class/infiniband/rxe0 ] || rdma link add rxe0 type rxe netdev v0
[ -e /sys/class/infiniband/rxe1 ] || rdma link add rxe1 type rxe netdev v1
exit $rc
