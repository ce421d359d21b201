# Device removal: rxe0 deleted (rdma link delete) while a CLIENT bound to
# it has calls in flight: the delete returns (the library closes what it
# had on the device and makes librdmacm let go of it), calls fail with a
# connection error within their timeout, both ends free their QP; rxe0
# added back, the same CLIENT reconnects (tests/vm/t_qpfault). Last: it
# removes the device the other tests use, and adds it back whatever
# happened.
# vm-timeout: 300
env CK_RUN_CASE=devremove ./tests/vm/t_qpfault
rc=$?
[ -e /sys/class/infiniband/rxe0 ] || rdma link add rxe0 type rxe netdev v0
exit $rc
