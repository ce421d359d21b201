# Faults: the server (tests/vm/t_faults in server mode) is SIGKILLed during
# a burst of calls by 8 threads on one CLIENT: every call fails within its
# timeout, none hangs; the restarted server serves the SAME CLIENT again.
# Kills (issue 10): 100 server kills under a mixed load of 4 threads on
# one CLIENT, then 100 client children killed against one server, each at
# a random point (0-400 ms, the seed printed): no call over its timeout,
# no success with wrong bytes, fds, RDMA objects, heap and VmRSS back
# (60-90 s and 30-40 s on 6.12 and 6.1 under TCG, the longer when the
# host is shared; 110-185 s both under ASan). The cleanup case runs in
# 71-cleanup.sh.
# vm-timeout: 600
env CK_RUN_CASE=faults ./tests/vm/t_faults
rc=$?
env CK_RUN_CASE=kills ./tests/vm/t_faults || rc=1
exit $rc
