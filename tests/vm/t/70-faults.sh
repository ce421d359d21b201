# Faults: the server (tests/vm/t_faults in server mode) is SIGKILLed during
# a burst of calls by 8 threads on one CLIENT: every call fails within its
# timeout, none hangs; the restarted server serves the SAME CLIENT again.
# vm-timeout: 200
exec env CK_RUN_CASE=faults ./tests/vm/t_faults
