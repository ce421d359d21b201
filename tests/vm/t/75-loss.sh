# A lossy fabric (issue 27): tc netem drops 0.1% and 1% of the packets on
# both ends of the veth, then reorders a quarter of them with 1% loss,
# while 4 threads of one CLIENT run the mixed load of t_faults against a
# server child for 6 s each: every call succeeds or fails with a
# connection error within its timeout, no wrong byte, the fabric's
# retransmissions counted (rxe's port counters, TCP's on siw), and the
# same CLIENT carries a strict burst once the loss stops
# (tests/vm/t_faults_loss.c).
# A test that fails under loss leaves netem on the veth: it goes with the
# suite, whatever happened, or the suites after it would run lossy.
trap 'tc qdisc del dev v0 root 2>/dev/null; tc qdisc del dev v1 root 2>/dev/null' EXIT
modprobe sch_netem || exit 1
env CK_RUN_CASE=loss ./tests/vm/t_faults
rc=$?
exit $rc
