/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to the verbs engine (every file of engine/): the endpoint
 * structure, the prototypes of what one engine file calls in another,
 * and the few helpers they share inline. The glue sees only engine.h.
 *
 * Floors, top to bottom; a file calls only files below it (checked by
 * tools/layers.sh on the objects): cm.c -> ep.c -> reg.c, xfer.c ->
 * send.c, recv.c -> core.c -> stats.c, pin.c -> export.c. The one call
 * upwards goes through a function pointer, ep->sq_progress (xfer.c's,
 * called by ep_reap).
 *
 * Event design. Each endpoint owns two event sources: its completion
 * channel (one CQ for sends, receives, RDMA Read and Write) and its own
 * RDMA-CM event channel (a server's accepted id is moved there with
 * rdma_migrate_id when it becomes established). Both are in an epoll set
 * whose fd is rpcrdma_ep_fd(), so one fd reports data and disconnection:
 * a DISCONNECTED event makes the engine call rdma_disconnect(), which
 * moves the QP to the error state and flushes the posted receives onto
 * the CQ; rpcrdma_ep_poll() then returns -ENOTCONN.
 */
#ifndef RPCRDMA_EP_H
#define RPCRDMA_EP_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <sys/uio.h>
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>
#include "engine.h"

#define EP_HIDDEN __attribute__((visibility("hidden")))

/* wr_id: receives carry their slot index and this tag; everything on the
 * send queue carries its sequence number (1, 2, ...). */
#define EP_WR_RECV	(1ull << 63)
#define EP_MAX_RD_WINDOW 16u	/* RDMA Reads in flight, at most */
#define EP_SEND_WAIT_MS	10000	/* longest a send waits for a buffer */

struct ep_rx_slot {
	uint32_t len;
	uint32_t inv_rkey;
	bool invalidated;
	bool posted;
};

struct rpcrdma_ep {
	struct rdma_cm_id *id;
	struct rdma_event_channel *cm_ch;	/* this connection's own */
	struct ibv_pd *pd;
	struct ibv_comp_channel *comp_ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int epfd;			/* comp_ch->fd + cm_ch->fd + kickfd */
	int kickfd;			/* eventfd: rpcrdma_ep_kick */
	int stallfd;			/* timerfd: the send queue's deadline */
	int8_t windows;			/* rpcrdma_ep_windows: -1 not known */
	bool iwarp;			/* the device is iWARP (siw) */
	uint64_t timer_iv;		/* stallfd's interval (ms), 0: off */
	uint64_t sq_progress_ms;	/* sq_done last moved, or the first
					 * WR went onto an idle send queue */

	struct rpcrdma_ep_opts opts;
	struct rpcrdma_pvtdata local_pd;
	struct rpcrdma_inline inl;
	struct sockaddr_storage peer;
	struct rpcrdma_stats *stats;	/* own_stats, or its exported slot */
	struct rpcrdma_stats own_stats;
	uint8_t initiator_depth;	/* RDMA Reads we may have in flight */
	uint8_t responder_resources;
	uint32_t max_msg_sz;		/* largest single RDMA operation */
	uint32_t credits;		/* receives provisioned for (fixed) */
	struct ep_conn_count *conn_count; /* its listener's, or NULL */

	/* Everything below is protected by lock. */
	pthread_mutex_t lock;
	pthread_cond_t tx_cond;		/* send buffers came back */
	bool lock_init;
	uint32_t tx_waiters;
	bool connected;			/* read racily through __atomic */
	bool was_connected;
	bool dev_removed;		/* RDMA_CM_EVENT_DEVICE_REMOVAL seen */
	/* What ep_block_wake's poll saw of the completion and CM channels,
	 * for the next ep_arm: -1 not known, 0 not readable, 1 readable. */
	int8_t comp_seen, cm_seen;
	/* The same of the kick eventfd and the stall timer, as
	 * rpcrdma_ep_look saw them, for the next unkick and stall check. */
	int8_t kick_seen, stall_seen;
	int8_t kick_self;		/* rpcrdma_ep_kick since the look */
	uint32_t looks;			/* rpcrdma_ep_look's, lock held */
	uint64_t look_asked_ms;		/* its last periodic epoll_wait */
	bool need_arm;			/* the look took the CQ's event */
	int down_err;			/* why it went down: -ENOTCONN, -EIO.. */
	enum rpcrdma_close_why why;	/* our reason, if we closed it first */
	int mr_count;			/* live rpcrdma_mr (for leak checks) */

	/* Receives: nrx buffers of rx_size, registered once. */
	uint32_t nrx, rx_size;
	uint8_t *rx_mem;
	struct ibv_mr *rx_mr;
	struct ep_rx_slot *rx;
	uint32_t rx_posted;		/* atomic */
	uint32_t *rxq;			/* completed, not yet handed out */
	uint32_t rxq_head, rxq_count;	/* rxq_count read atomically */

	/* Sends: a FIFO ring of ntx buffers of tx_size, registered once. */
	uint32_t ntx, tx_size;
	uint8_t *tx_mem;
	struct ibv_mr *tx_mr;
	uint64_t *tx_seq;		/* SQ sequence of the send using it */
	uint32_t tx_head, tx_count;

	/* Send queue accounting: work requests complete in order (RC), so a
	 * signaled completion of sequence s retires every WR up to s, with
	 * one exception: iWARP completes a Send or Write when it is handed
	 * to TCP, so siw reports one posted after an RDMA Read before the
	 * Read, whose response is still to come. Every Read is signaled and
	 * listed in rdq until its own completion; sq_done stops short of the
	 * oldest listed. rdq is also the Read window both posting paths
	 * (xfer.c, and the tests' synchronous ep_rdma, tests/vm/ep_sync.c)
	 * keep within ep_rd_depth. */
	uint32_t sq_depth, signal_every;
	/* Posts combined (send.c, client endpoints): while one thread is in
	 * ibv_post_send without the lock, the others' WRs are copied into
	 * wrq (by sequence number) and chained on pend for it to post. */
	bool posting;
	struct ep_wrq *wrq;
	struct ibv_send_wr *pend_head, *pend_tail;
	uint64_t sq_seq;		/* last posted */
	uint64_t sq_done;		/* all up to here completed */
	uint64_t sq_max;		/* highest completion seen */
	uint64_t sq_last_signaled;
	uint64_t rdq[EP_MAX_RD_WINDOW];	/* RDMA Reads posted, not completed */
	uint32_t rdq_head, rdq_count;
	/* Small RDMA Reads land here (xfer.c, bounced reads): EP_RB_SLOTS
	 * buffers of tx_size, registered at the first such read (local
	 * write only: never on iWARP, whose sinks the peer may write),
	 * taken and given back in order. */
	uint8_t *rb_mem;
	struct ibv_mr *rb_mr;
	bool rb_failed;			/* its registration would not go */
	uint32_t rb_head, rb_count;

	/* Transfers (xfer.c): waiting to be posted (FIFO), posted (in
	 * sequence order), done. */
	struct rpcrdma_xfer *xf_wait, *xf_wait_tail;
	struct rpcrdma_xfer *xf_post, *xf_post_tail;
	struct rpcrdma_xfer *xf_done, *xf_done_tail;
	/* Held (x->hold) until rpcrdma_ep_xfer_flush. */
	struct rpcrdma_xfer *xf_held, *xf_held_tail;
	uint32_t xf_count;		/* started, not handed back: changed
					 * under the lock by atomic stores,
					 * read without it (xfer.c xf_none) */
	/* xfer.c's ep_xfer_progress, set at the first transfer: posts what
	 * waits and retires what completed (lock held); ep_reap calls it
	 * after every reap while transfers are out, and the stall timer
	 * when it closes the connection. The engine's one call upwards,
	 * the way the kernel's completion "done" callbacks invert it. */
	void (*sq_progress)(struct rpcrdma_ep *ep);

	/* Listener bookkeeping for not yet established connections. */
	struct rpcrdma_listener *listener;
	struct rpcrdma_ep *next_pending;
	uint64_t accepted_ms;		/* when rdma_accept answered its REQ */

	/* The idle check (opts.idle_ms, lock held): receives completed,
	 * what the last tick saw of them and of sq_seq, and how many ticks
	 * in a row saw nothing move with nothing in progress. */
	uint64_t rx_seen;
	uint32_t holds;			/* atomic: rpcrdma_ep_set_holds */
	uint64_t idle_seen;
	uint32_t idle_ticks;
	uint64_t idle_since_ms;		/* the tick that last saw traffic */

	/* An accepted endpoint on its listener's count (conn_count->lock):
	 * the client's address, for the per-source limit. */
	struct rpcrdma_ep *cc_next, *cc_prev;
	struct sockaddr_storage src;
	bool cc_evicted;		/* closed for a new client: no longer
					 * counted in live */
};

/* A listener's count of its connections, shared with the endpoints it
 * accepted (which may outlive it): freed when the last reference goes. */
struct ep_conn_count {
	uint32_t refs;			/* atomic */
	uint32_t live;			/* atomic */
	pthread_mutex_t lock;		/* the list below */
	struct rpcrdma_ep *eps;		/* accepted and not yet freed */
};

struct rpcrdma_mr {
	struct ibv_mr *mr;
	struct rpcrdma_ep *ep;
};

/* stats.c: the process totals move to the exported file (export.c) at
 * the first endpoint. */
EP_HIDDEN void stats_export_start(void);
/* export.c: the file rpcrdma-stat reads (export.h). export_open: the
 * totals' place in it, or NULL (not exported); a connection's slot, taken
 * at allocation (NULL: none, count privately), labelled once up, given
 * back when freed. */
EP_HIDDEN uint64_t *export_open(void);
EP_HIDDEN struct rpcrdma_stats *export_conn_take(void);
EP_HIDDEN void export_conn_label(struct rpcrdma_stats *s, int role,
				 const struct sockaddr *peer);
EP_HIDDEN void export_conn_put(struct rpcrdma_stats *s);

/* pin.c: ibv_reg_mr and ibv_dereg_mr on ep's PD, the pages counted
 * against the process's RLIMIT_MEMLOCK, and for an accepted endpoint
 * against the library's cap too. ep_mr_reg: NULL with *err -EDQUOT (a
 * limit) or another -errno. */
EP_HIDDEN struct ibv_mr *ep_mr_reg(struct rpcrdma_ep *ep, void *addr,
				   size_t len, int access, int *err);
EP_HIDDEN int ep_mr_dereg(struct rpcrdma_ep *ep, struct ibv_mr *mr);

/* core.c */
/* Waits for the flushes of a QP in error, at most max_ms: the bound is
 * for a device that never flushes (normally they come within
 * microseconds). */
#define EP_DRAIN_MAX_MS	250
EP_HIDDEN void ep_drain(struct rpcrdma_ep *ep, int max_ms);
/* Counts a positive errno of a verbs or CM command: EACCES and EPERM mean
 * the thread's credentials changed since the device was opened. */
EP_HIDDEN void ep_count_errno(struct rpcrdma_ep *ep, int err);
/* Reaps the CQ (then moves transfers on). Lock held. Receives queued. */
EP_HIDDEN int ep_reap(struct rpcrdma_ep *ep);
EP_HIDDEN bool ep_arm(struct rpcrdma_ep *ep);
EP_HIDDEN bool ep_block_wake(struct rpcrdma_ep *ep, uint64_t deadline,
			     bool *woken);
EP_HIDDEN bool ep_block(struct rpcrdma_ep *ep, uint64_t deadline);
/* The endpoint's timer (stallfd) ticks for the stall deadline
 * (opts.stall_ms) while WRs are posted and not completed, armed by
 * rpcrdma_ep_sq_post, and otherwise for the idle check (opts.idle_ms),
 * armed by ep_idle_arm once established. Lock held. */
EP_HIDDEN void ep_stall_arm(struct rpcrdma_ep *ep);
EP_HIDDEN void ep_idle_arm(struct rpcrdma_ep *ep);
/* Whether the idle check would find nothing in progress (lock held):
 * no receive handed out or queued, no transfer, no signaled WR, no
 * backward call unanswered (rpcrdma_ep_set_holds); and the
 * same with nothing received or posted since the last idle tick. */
EP_HIDDEN bool ep_nothing_in_progress(struct rpcrdma_ep *ep);
EP_HIDDEN bool ep_quiet_since_tick(struct rpcrdma_ep *ep);

/* recv.c */
EP_HIDDEN int ep_post_recv(struct rpcrdma_ep *ep, uint32_t idx);

/* send.c. The three rpcrdma_ep_sq_* are not hidden: the tests'
 * synchronous RDMA Read / Write (tests/vm/ep_sync.c) post through them. */
/* Waits (lock held, dropped meanwhile) for room for n WRs (and a send
 * buffer with tx) until deadline: 0, -ETIMEDOUT, or the connection's
 * error. */
int rpcrdma_ep_sq_room(struct rpcrdma_ep *ep, uint32_t n, bool tx,
		       uint64_t deadline);
/* Waits (lock held) until the send queue completed through seq: 0,
 * -ETIMEDOUT or the connection's error. Receives that arrive meanwhile
 * are queued for rpcrdma_ep_poll; the caller must be the only poller. */
int rpcrdma_ep_sq_wait(struct rpcrdma_ep *ep, uint64_t seq,
		       uint64_t deadline);
/* Room on the send queue for n more WRs, and a send buffer (lock held). */
EP_HIDDEN bool ep_sq_free(const struct rpcrdma_ep *ep, uint32_t n, bool tx);
/* rpcrdma_ep_sq_room within EP_SEND_WAIT_MS (_within: within ms, at
 * most that), the clock read only when it must wait. */
EP_HIDDEN int ep_sq_room_now(struct rpcrdma_ep *ep, uint32_t n, bool tx);
EP_HIDDEN int ep_sq_room_within(struct rpcrdma_ep *ep, uint32_t n, bool tx,
				int ms);
/* Posts one SQ WR (its sequence number assigned). Lock held. */
int rpcrdma_ep_sq_post(struct rpcrdma_ep *ep, struct ibv_send_wr *wr,
		       bool signal);
/* Copies the iov into the next send buffer and posts it as a Send (With
 * Invalidate when inv_rkey); room checked by the caller. Lock held. */
EP_HIDDEN int ep_tx_post(struct rpcrdma_ep *ep, const struct iovec *iov,
			 int iovcnt, uint32_t inv_rkey, bool signal);
/* ep_tx_post with npre WRs (at most EP_PRE_MAX) posted before the Send by
 * the same ibv_post_send: one doorbell. The first nbounce of them read
 * the send ring's next buffers (ep_tx_bounce), which stay taken until
 * they complete. 0 with all posted, or -errno with *pre_posted of them
 * on the queue (the Send then is not). Room (npre + 1 WRs, nbounce + 1
 * buffers) checked by the caller. */
#define EP_PRE_MAX	RPCRDMA_MAX_BINDS
EP_HIDDEN int ep_tx_post_after(struct rpcrdma_ep *ep, struct ibv_send_wr *pre,
			       uint32_t npre, uint32_t nbounce,
			       const struct iovec *iov, int iovcnt,
			       uint32_t inv_rkey, bool signal,
			       uint32_t *pre_posted);
/* Copies len (at most tx_size) bytes into the send ring's i-th free
 * buffer and points sge at it, for a WR that ep_tx_post_after posts as
 * bounced. Lock held. */
EP_HIDDEN void ep_tx_bounce(struct rpcrdma_ep *ep, uint32_t i,
			    const void *src, size_t len, struct ibv_sge *sge);
/* Sends of the send ring posted together (ep_tx_post_sends). */
#define EP_BATCH_MAX	16u
struct ep_tx_send {
	const struct iovec *iov;
	int iovcnt;
	uint32_t inv_rkey;	/* Send With Invalidate when not 0 */
};
/* Posts n Sends (at most EP_BATCH_MAX) with one ibv_post_send, each from
 * its own buffer of the ring, none signaled but by the ring's own rules;
 * seqs[i] the sequence number of the i-th. 0, or -errno with *posted of
 * them on the queue. Room (n WRs, n buffers) checked by the caller. Lock
 * held. */
EP_HIDDEN int ep_tx_post_sends(struct rpcrdma_ep *ep,
			       const struct ep_tx_send *s, uint32_t n,
			       uint64_t *seqs, uint32_t *posted);
#define EP_RB_SLOTS	16u
/* A WR queued for the posting thread, its scatter list with it. */
#define EP_WRQ_SGE	2u
struct ep_wrq {
	struct ibv_send_wr wr;
	struct ibv_sge sge[EP_WRQ_SGE];
};
/* Starts a combined post (lock held): true when this thread is to post
 * what it and others queue, by ep_sq_flush_unlock. */
EP_HIDDEN bool ep_combine_begin(struct rpcrdma_ep *ep);
/* Posts the queued WRs, the lock dropped around each ibv_post_send,
 * until none is left; returns with the lock released: 0 or -errno. */
EP_HIDDEN int ep_sq_flush_unlock(struct rpcrdma_ep *ep, int ret);
/* Waits (lock held, dropped meanwhile) until no thread posts without
 * the lock: a window's bind must be posted directly, since the provider
 * reads the window's current key (mw->rkey) when it is posted, and we
 * move that key on as soon as ibv_post_send returns (rxe). Callers wait
 * before they take any ring slot. */
EP_HIDDEN void ep_post_quiesce(struct rpcrdma_ep *ep);
/* Whether n more buffers of the send ring are free. Lock held. */
static inline bool ep_tx_free(const struct rpcrdma_ep *ep, uint32_t n)
{
	return ep->tx_count + n <= ep->ntx;
}

/* ep.c */
/* conns.c: a listener's count and its limits. */
EP_HIDDEN struct ep_conn_count *conn_count_new(void);
EP_HIDDEN void conn_count_put(struct ep_conn_count *cc);
EP_HIDDEN void conn_count_link(struct ep_conn_count *cc, struct rpcrdma_ep *ep,
			       const struct sockaddr *src);
EP_HIDDEN void conn_count_unlink(struct rpcrdma_ep *ep);
/* Whether a request from src would pass max_conns or the per-source
 * limit of o; the second alone. */
EP_HIDDEN bool conn_count_full(struct ep_conn_count *cc,
			       const struct rpcrdma_ep_opts *o,
			       const struct sockaddr *src);
EP_HIDDEN bool conn_count_source_full(struct ep_conn_count *cc, uint32_t max,
				      const struct sockaddr *src);
/* Closes the idle connection that makes room at max_conns: true if one. */
EP_HIDDEN bool conn_count_evict_idle(struct ep_conn_count *cc);
EP_HIDDEN int set_nonblock(int fd);
EP_HIDDEN void ep_negotiate(struct rpcrdma_ep *ep, const void *pdata,
			    size_t len);
EP_HIDDEN struct rpcrdma_ep *ep_alloc(const struct rpcrdma_ep_opts *o);
EP_HIDDEN void ep_devices_resync(void);
EP_HIDDEN void ep_device_gone(struct ibv_device *dev);
EP_HIDDEN void ep_free(struct rpcrdma_ep *ep);
EP_HIDDEN int ep_setup(struct rpcrdma_ep *ep, struct rdma_cm_id *id);

/* xfer.c: releases what transfers still hold (teardown, after drain). */
EP_HIDDEN void ep_xfer_release(struct rpcrdma_ep *ep);

/* Small helpers, inline in every file that uses them (the fast path's,
 * and what tests/vm/ep_sync.c needs of the engine besides the
 * rpcrdma_ep_sq_* above). */

static inline uint64_t ep_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static inline uint64_t ep_now_ms(void)
{
	return ep_now_us() / 1000u;
}

/* now + timeout_ms (UINT64_MAX for a negative timeout). */
static inline uint64_t ep_deadline_of(int timeout_ms)
{
	if (timeout_ms < 0)
		return UINT64_MAX;
	return ep_now_ms() + (uint64_t)timeout_ms;
}

/* Remaining ms for poll(): -1 forever, 0 when expired. */
static inline int remaining_ms(uint64_t deadline)
{
	uint64_t now;

	if (deadline == UINT64_MAX)
		return -1;
	now = ep_now_ms();
	if (now >= deadline)
		return 0;
	if (deadline - now > (uint64_t)INT32_MAX)
		return INT32_MAX;
	return (int)(deadline - now);
}

static inline size_t ep_sockaddr_len(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		return sizeof(struct sockaddr_storage);
	}
}

static inline bool ep_is_up(const struct rpcrdma_ep *ep)
{
	return __atomic_load_n(&ep->connected, __ATOMIC_ACQUIRE);
}

/* A signaled WR is posted and not completed. WRs after the last signaled
 * one are known done only through a later one: the send ring's reclaim
 * and the stall deadline wait on signaled work. Lock held. */
static inline bool ep_sq_signaled_out(const struct rpcrdma_ep *ep)
{
	return ep->sq_last_signaled > ep->sq_done;
}

/* Called with ep->lock held. */
static inline void ep_mark_down(struct rpcrdma_ep *ep, int err)
{
	if (__atomic_load_n(&ep->connected, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&ep->connected, false, __ATOMIC_RELEASE);
		ep->down_err = err;
		RPCRDMA_STAT_ADD(ep, disconnects, 1);
	}
}

/* The reason a command's err gives, else why: EACCES and EPERM mean the
 * thread's credentials changed (ep_count_errno). */
static inline enum rpcrdma_close_why ep_why_of(int err,
					       enum rpcrdma_close_why why)
{
	return err == -EACCES || err == -EPERM ? RPCRDMA_CLOSE_PERMISSION
					       : why;
}

/* Notes why as our reason for closing (rpcrdma_ep_why) when the
 * connection is still up and has none: the first reason wins, and a
 * close the peer started keeps none. Lock held. */
static inline void ep_note_why(struct rpcrdma_ep *ep,
			       enum rpcrdma_close_why why)
{
	if (ep->why == RPCRDMA_CLOSE_NONE &&
	    __atomic_load_n(&ep->connected, __ATOMIC_ACQUIRE))
		ep->why = why;
}

/* ep_mark_down as our own close after a command failed with err. Lock
 * held. */
static inline void ep_down_why(struct rpcrdma_ep *ep, int err,
			       enum rpcrdma_close_why why)
{
	ep_note_why(ep, ep_why_of(err, why));
	ep_mark_down(ep, err);
}

static inline int neg_errno(int fallback)
{
	return errno > 0 ? -errno : -fallback;
}

/* The errno of a verbs call that failed with rc: rdma-core returns it,
 * some providers return -1 with errno set. */
static inline int verbs_errno(int rc)
{
	return rc > 0 ? rc : errno;
}

/*
 * siw sends from the calling thread through a kernel TCP socket
 * without MSG_NOSIGNAL, in posts, in the TERMINATE a QP state change
 * may send and in the MPA request, reply or reject that rdma_connect,
 * rdma_accept and rdma_reject send (siw_cm.c, from the caller's thread):
 * when the peer's connection is gone, TCP raises SIGPIPE on the
 * caller, which would kill an application that never wrote to a pipe.
 * Around such calls on an iWARP device SIGPIPE is held blocked, and one
 * raised meanwhile is taken back (the call reports the error itself).
 */
struct ep_sigpipe {
	sigset_t old;
	bool held, was_pending;
};

static inline void ep_sigpipe_hold(bool on, struct ep_sigpipe *g)
{
	sigset_t pipe, pending;

	g->held = false;
	if (!on)
		return;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	/* One pending before the call is the application's: left alone. */
	g->was_pending = sigpending(&pending) == 0 &&
			 sigismember(&pending, SIGPIPE);
	g->held = pthread_sigmask(SIG_BLOCK, &pipe, &g->old) == 0;
}

static inline void ep_sigpipe_release(struct ep_sigpipe *g)
{
	const struct timespec zero = { 0, 0 };
	sigset_t pipe, pending;

	if (!g->held)
		return;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	if (!g->was_pending && sigpending(&pending) == 0 &&
	    sigismember(&pending, SIGPIPE))
		(void)sigtimedwait(&pipe, NULL, &zero);
	(void)pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

/* rdma_disconnect under that guard. */
EP_HIDDEN void ep_disconnect(struct rpcrdma_ep *ep);

/* Moves a QP to the error state: outstanding work requests flush, and
 * the hardware touches none of our memory after the flush completes. */
static inline void ep_qp_to_error(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ep_sigpipe g;

	ep_sigpipe_hold(qp->context->device->transport_type ==
				IBV_TRANSPORT_IWARP, &g);
	ibv_modify_qp(qp, &a, IBV_QP_STATE);
	ep_sigpipe_release(&g);
}

/*
 * Access for the local memory of our RDMA Reads (read) or Writes: an
 * iWARP Read Response is a tagged message placed through the sink STag
 * the Read Request carried, so iWARP wants the sink registered for remote
 * write (RFC 5040 section 4.4; the kernel's rdma_rw does the same; siw
 * alone does not check it). The peer learns that STag from the request.
 */
static inline int ep_sink_access(const struct rpcrdma_ep *ep, bool read)
{
	if (!read)
		return 0;
	return IBV_ACCESS_LOCAL_WRITE |
	       (ep->iwarp ? IBV_ACCESS_REMOTE_WRITE : 0);
}

/* RDMA Reads we may have in flight: what the peer agreed to answer at
 * once (initiator_depth), within the rdq ring. */
static inline uint32_t ep_rd_depth(const struct rpcrdma_ep *ep)
{
	uint32_t d = ep->initiator_depth ? ep->initiator_depth : 1;

	return d > EP_MAX_RD_WINDOW ? EP_MAX_RD_WINDOW : d;
}

/* Receives posted now: test support only (the guest suites check the
 * ring with it), so it lives here, not in the library's engine.h. */
static inline uint32_t rpcrdma_ep_recvs_posted(const struct rpcrdma_ep *ep)
{
	return __atomic_load_n(&ep->rx_posted, __ATOMIC_RELAXED);
}

#endif /* RPCRDMA_EP_H */
