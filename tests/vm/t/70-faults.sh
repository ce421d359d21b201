# Faults: the server (tests/vm/t_faults in server mode) is SIGKILLed during
# a burst of calls by 8 threads on one CLIENT: every call fails within its
# timeout, none hangs; the restarted server serves the SAME CLIENT again.
# Kills (issue 10): server kills under a mixed load of 4 threads on one
# CLIENT, then client children killed against one server, each at a
# random point (0-400 ms, the seed printed): no call over its timeout,
# no success with wrong bytes, fds, RDMA objects, heap and VmRSS back.
# 50 of each in the guest tier's first boot, 25 in the others
# (RPCRDMA_T_CONTROLS=0: the ASan boot, where a kill costs twice as
# much); RPCRDMA_T_KILLS sets the number. 100 of each took 60-90 s and
# 30-40 s on 6.12 and 6.1 under TCG, 210 and 135 s under ASan beside a
# second guest: over this suite's limit on a slower host. The cleanup
# case runs in 71-cleanup.sh.
# vm-timeout: 600
kills=${RPCRDMA_T_KILLS:-50}
[ "${RPCRDMA_T_CONTROLS:-1}" = 0 ] && kills=${RPCRDMA_T_KILLS:-25}
env CK_RUN_CASE=faults ./tests/vm/t_faults
rc=$?
env CK_RUN_CASE=kills T_FAULTS_KILLS="$kills" ./tests/vm/t_faults || rc=1
exit $rc
