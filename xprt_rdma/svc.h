/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the server transports (svc_rdma.c and the files below it,
 * svc_conn.h) and the thread pool that can drive them (svc_pool.c,
 * rpcrdma_svc_run).
 *
 * Every rdma SVCXPRT (listener or connection) is a member: it is
 * registered with libtirpc through pool_member_join, never directly.
 * Outside a pool its xp_fd is the fd that signals its work, as libtirpc's
 * svc_run expects. While a pool runs, xp_fd is a private eventfd that
 * never turns readable (so a svc_run of the same process, serving tcp or
 * udp, leaves the member alone) and the pool polls the real fd itself,
 * one-shot, calling svc_getreq_common(xp_fd) on one worker at a time.
 */
#ifndef RPCRDMA_SVC_H
#define RPCRDMA_SVC_H

#include <stdbool.h>
#include <rpc/rpc.h>

struct svc_member {
	SVCXPRT *xprt;
	int fd;				/* what signals work */
	int probe_fd;			/* an rdma_cm fd of its own */
	int dummy;			/* xp_fd while pooled, else -1 */
	struct svc_member *prev, *next;
};

/* xprt_register under the right fd, and into the pool when one runs.
 * 0 or -errno (nothing registered then). */
int pool_member_join(struct svc_member *m, SVCXPRT *xprt, int fd,
		     int probe_fd);
/* xprt_unregister and out of the pool; before fd closes. Called from
 * xp_destroy, possibly on the worker serving m. */
void pool_member_leave(struct svc_member *m);

/*
 * In a pool worker, after a dispatch: true when the thread's credentials
 * are no longer those the rdma devices were opened with (the dispatch
 * function switched them, as NFS servers do per request), so that the
 * kernel refuses its rdma_cm and (on some providers) its doorbell writes.
 * Probed at most once per call handed out. Outside a pool: false.
 */
bool pool_thread_dirty(void);
/* Whether this thread is a pool worker. */
bool pool_in_worker(void);
/* A call is being handed to the dispatch function: the next
 * pool_thread_dirty probes again. */
void pool_call_begin(void);
/* In a pool worker, once the dispatch function returned: probes again
 * (it may have switched credentials after replying) and says whether the
 * thread is poisoned. Outside a pool: false. */
bool pool_after_dispatch(void);

/* xp_ops of transports that carry no calls (listeners, the waker):
 * tirpc.c. */
bool_t xprt_no_args(SVCXPRT *xprt, xdrproc_t xargs, void *argsp);
bool_t xprt_no_reply(SVCXPRT *xprt, struct rpc_msg *msg);
enum xprt_stat xprt_stat_idle(SVCXPRT *xprt);

#endif /* RPCRDMA_SVC_H */
