# Multi-threaded serving (rpcrdma_svc_run): slow calls on some connections
# run in parallel and do not hold the others; a dispatch function that
# switches its thread's credentials on every call keeps being served; no
# call is dispatched twice beside a svc_getreq_poll loop; the pool stops
# and starts again; no fd is left behind; a process-wide credential switch
# stops the pool with -EACCES (tests/vm/t_pool.c).
# vm-timeout: 200
exec ./tests/vm/t_pool
