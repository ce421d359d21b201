/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The endpoint's state and its fd: reaping completions (ep_wc, ep_reap),
 * its own CM events (ep_cm_events), arming the CQ and blocking on the
 * channels (ep_arm, ep_block*), kick and
 * wake, the endpoint's timer (ep_stall_arm, ep_idle_arm,
 * rpcrdma_ep_check_stall: the stall deadline and the idle check), marking
 * the connection down, rpcrdma_ep_close, the teardown drain, the
 * accessors and the engine's clock. Receives are in recv.c,
 * the send queue in send.c, endpoint resources in ep.c, RDMA-CM
 * establishment in cm.c.
 *
 * One CQ serves the whole QP. Whoever holds ep->lock may reap it: the
 * poller (rpcrdma_ep_poll, one thread at a time) and a sender that needs
 * a free send buffer. Receive completions go to a FIFO
 * (rxq) that the poller hands out; send-queue completions advance sq_done.
 * Only the poller waits on the completion channel, and it re-checks the
 * CQ and rxq after arming it under the lock, so no completion is missed.
 *
 * A peer can make posted work never complete (it stops answering, having
 * asked in its connection request for a retry count that rxe reads as
 * "forever"): with opts.stall_ms a timer in the endpoint's fd ticks while
 * signaled work requests are posted and not completed (whole transfers or
 * the posted part of one still waiting for room; an unsignaled Send alone,
 * a reply without chunks, holds nothing of anyone's and arms nothing), and
 * a send queue that completed nothing for stall_ms closes the connection.
 * The timer is armed by a post and disarmed only at a tick with nothing
 * signaled outstanding, so it costs a system call per interval, not per
 * work request. With opts.idle_ms (an accepted connection) it ticks at
 * half of that instead of being disarmed, and two ticks in a row that
 * see nothing received, posted or in progress close the connection, as
 * the Linux server ages out its idle transports (security review
 * 21c8dd5, finding 6).
 */
#include <errno.h>
#include <sys/epoll.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/timerfd.h>

#include "ep_int.h"

#define EP_POLL_BATCH		16

void ep_count_errno(struct rpcrdma_ep *ep, int err)
{
	if (err == EACCES || err == EPERM)
		RPCRDMA_STAT_ADD(ep, permission_errors, 1);
}

static int wc_err(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_WR_FLUSH_ERR:
		return -ENOTCONN;
	case IBV_WC_REM_ACCESS_ERR:
	case IBV_WC_LOC_PROT_ERR:
	case IBV_WC_LOC_ACCESS_ERR:
		return -EACCES;
	case IBV_WC_RETRY_EXC_ERR:
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return -ETIMEDOUT;
	default:
		return -EIO;
	}
}

/*
 * A completion in error takes the connection down. Unless it is a flush
 * (the QP was in error already) or the connection was down before, it
 * is the first sign and says why (rpcrdma_ep_why): the status is all a
 * failed completion tells reliably (its opcode is not valid).
 */
static void ep_down_wc(struct rpcrdma_ep *ep, enum ibv_wc_status st,
		       bool recv)
{
	enum rpcrdma_close_why why = RPCRDMA_CLOSE_INTERNAL;

	switch (st) {
	case IBV_WC_WR_FLUSH_ERR:
		/* The QP was in error already: not the first sign. */
		ep_mark_down(ep, wc_err(st));
		return;
	case IBV_WC_LOC_LEN_ERR:
		/* A receive too small: the peer sent more than the inline
		 * threshold agreed (RFC 8797). */
		if (recv)
			why = RPCRDMA_CLOSE_PROTOCOL;
		break;
	case IBV_WC_REM_ACCESS_ERR:
	case IBV_WC_REM_INV_REQ_ERR:
	case IBV_WC_REM_OP_ERR:
		why = RPCRDMA_CLOSE_CHUNKS;
		break;
	case IBV_WC_RETRY_EXC_ERR:
	case IBV_WC_RNR_RETRY_EXC_ERR:
		why = RPCRDMA_CLOSE_UNREACHABLE;
		break;
	default:
		break;
	}
	/* Not ep_down_why: wc_err's EACCES for a remote access error is
	 * not a thread's credentials. */
	ep_note_why(ep, why);
	ep_mark_down(ep, wc_err(st));
}

/* Retires send buffers whose Send has completed. Lock held. */
static void tx_reclaim(struct rpcrdma_ep *ep)
{
	uint32_t before = ep->tx_count;

	while (ep->tx_count && ep->tx_seq[ep->tx_head] <= ep->sq_done) {
		ep->tx_head = (ep->tx_head + 1) % ep->ntx;
		ep->tx_count--;
	}
	if (ep->tx_waiters && ep->tx_count != before)
		pthread_cond_broadcast(&ep->tx_cond);
}

/* One completion. Lock held. Returns 1 when a receive was queued. */
static int ep_wc(struct rpcrdma_ep *ep, const struct ibv_wc *wc)
{
	if (wc->wr_id & EP_WR_RECV) {
		uint32_t idx = (uint32_t)(wc->wr_id & 0xffffffffu);
		struct ep_rx_slot *s;

		if (idx >= ep->nrx)
			return 0;
		s = &ep->rx[idx];
		s->posted = false;
		__atomic_sub_fetch(&ep->rx_posted, 1, __ATOMIC_RELAXED);
		if (wc->status != IBV_WC_SUCCESS) {
			/* Flushed: the connection is gone. */
			ep_down_wc(ep, wc->status, true);
			return 0;
		}
		if (wc->opcode != IBV_WC_RECV) {
			/* RDMA Write with Immediate consumed it: nothing in
			 * RPC-over-RDMA sends one, and its buffer holds no
			 * message. The peer is broken: the connection ends. */
			RPCRDMA_STAT_ADD(ep, bad_headers, 1);
			ep_down_why(ep, -EPROTO, RPCRDMA_CLOSE_PROTOCOL);
			return 0;
		}
		s->len = wc->byte_len <= ep->rx_size ? wc->byte_len : 0;
		/* rxe reports Send With Invalidate with the kernel's flag
		 * bit 0x4 (IBV_WC_IP_CSUM_OK, meaningless on RC) instead of
		 * IBV_WC_WITH_INV; the glue matches the rkey to the XID. */
		s->invalidated = (wc->wc_flags & IBV_WC_WITH_INV) ||
				 ((wc->wc_flags & IBV_WC_IP_CSUM_OK) &&
				  wc->invalidated_rkey);
		s->inv_rkey = s->invalidated ? wc->invalidated_rkey : 0;
		if (s->invalidated)
			RPCRDMA_STAT_ADD(ep, remote_invalidations, 1);
		ep->rxq[(ep->rxq_head + ep->rxq_count) % ep->nrx] = idx;
		__atomic_add_fetch(&ep->rxq_count, 1, __ATOMIC_RELEASE);
		ep->rx_seen++;
		return 1;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		ep_down_wc(ep, wc->status, false);
		return 0;
	}
	/* Reads complete in order among themselves (the responder answers
	 * them in order, RFC 5040 section 5.3 and IB's alike). */
	while (ep->rdq_count && ep->rdq[ep->rdq_head] <= wc->wr_id &&
	       wc->opcode == IBV_WC_RDMA_READ) {
		ep->rdq_head = (ep->rdq_head + 1) % EP_MAX_RD_WINDOW;
		ep->rdq_count--;
	}
	if (wc->wr_id > ep->sq_max)
		ep->sq_max = wc->wr_id;
	/* A Send or Write completed past a Read still waiting for its
	 * response (iWARP, ep_int.h) retires nothing from that Read on. */
	ep->sq_done = ep->rdq_count && ep->rdq[ep->rdq_head] <= ep->sq_max ?
		      ep->rdq[ep->rdq_head] - 1 : ep->sq_max;
	tx_reclaim(ep);
	return 0;
}

/* Reaps the CQ in batches. Lock held. Returns receives queued. */
int ep_reap(struct rpcrdma_ep *ep)
{
	struct ibv_wc wc[EP_POLL_BATCH];
	uint64_t done = ep->sq_done;
	int n, i, got = 0;

	do {
		n = ibv_poll_cq(ep->cq, EP_POLL_BATCH, wc);
		if (n < 0) {
			ep_down_why(ep, -EIO, RPCRDMA_CLOSE_INTERNAL);
			break;
		}
		for (i = 0; i < n; i++)
			got += ep_wc(ep, &wc[i]);
		if (n > 0)
			RPCRDMA_STAT_ADD(ep, cq_reaped, (uint64_t)n);
	} while (n == EP_POLL_BATCH);
	if (ep->stallfd >= 0 && ep->sq_done != done)
		ep->sq_progress_ms = ep_now_ms();
	if (ep->xf_count && ep->sq_progress)
		ep->sq_progress(ep);
	return got;
}

/* A timer interval of ms, 50 ms at least. */
static uint64_t timer_iv_of(uint32_t ms)
{
	return ms > 50 ? ms : 50;
}

/* Sets the endpoint's timer to tick every iv ms (0: off), unless it
 * already does: one system call per change of mode, never per call. */
static void timer_set(struct rpcrdma_ep *ep, uint64_t iv)
{
	struct itimerspec its = {
		.it_interval = { (time_t)(iv / 1000), (long)(iv % 1000) * 1000000 },
		.it_value = { (time_t)(iv / 1000), (long)(iv % 1000) * 1000000 },
	};

	if (ep->stallfd < 0 || ep->timer_iv == iv)
		return;
	if (timerfd_settime(ep->stallfd, 0, &its, NULL) == 0)
		ep->timer_iv = iv;
}

/* The stall deadline is checked at a quarter of itself. */
void ep_stall_arm(struct rpcrdma_ep *ep)
{
	if (ep->opts.stall_ms)
		timer_set(ep, timer_iv_of(ep->opts.stall_ms / 4));
}

/* The idle check ticks at half the idle time: two quiet ticks in a row
 * close the connection, between idle_ms and 1.5 x idle_ms after it last
 * carried anything. */
void ep_idle_arm(struct rpcrdma_ep *ep)
{
	timer_set(ep, ep->opts.idle_ms ?
			      timer_iv_of(ep->opts.idle_ms / 2) : 0);
}

bool ep_nothing_in_progress(struct rpcrdma_ep *ep)
{
	uint32_t posted = __atomic_load_n(&ep->rx_posted, __ATOMIC_RELAXED);

	/* A server's receive stays out of the ring from its call's arrival
	 * until its reply is posted (svc_send.c), so a call being read,
	 * waiting or in its dispatch function holds one; one queued and
	 * not yet taken is a call in progress too. */
	return posted >= ep->nrx && !ep->rxq_count && !ep->xf_count &&
	       !ep_sq_signaled_out(ep) &&
	       !__atomic_load_n(&ep->holds, __ATOMIC_RELAXED);
}

void rpcrdma_ep_set_holds(struct rpcrdma_ep *ep, uint32_t n)
{
	__atomic_store_n(&ep->holds, n, __ATOMIC_RELAXED);
}

bool ep_quiet_since_tick(struct rpcrdma_ep *ep)
{
	return ep->rx_seen + ep->sq_seq == ep->idle_seen &&
	       ep_nothing_in_progress(ep);
}

/* One idle tick (lock held): true when the connection has been idle for
 * two ticks in a row and is to close. Anything received or posted
 * (rx_seen, sq_seq) or in progress starts the count again, and stamps
 * the tick that saw it (idle_since_ms, for the eviction's order). */
static bool idle_tick(struct rpcrdma_ep *ep)
{
	if (!ep_quiet_since_tick(ep)) {
		ep->idle_seen = ep->rx_seen + ep->sq_seq;
		ep->idle_ticks = 0;
		ep->idle_since_ms = ep_now_ms();
		return false;
	}
	return ++ep->idle_ticks >= 2;
}

void rpcrdma_ep_check_stall(struct rpcrdma_ep *ep)
{
	bool idle = false;
	int8_t seen;
	uint64_t n;

	if (ep->stallfd < 0)
		return;
	pthread_mutex_lock(&ep->lock);
	seen = ep->stall_seen;
	ep->stall_seen = -1;
	if (!ep->timer_iv || seen == 0 ||
	    read(ep->stallfd, &n, sizeof(n)) != (ssize_t)sizeof(n))
		goto out;		/* not expired */
	/* Completions not reaped yet are progress too. */
	ep_reap(ep);
	if (!ep_is_up(ep)) {
		timer_set(ep, 0);
		goto out;
	}
	if (!ep_sq_signaled_out(ep) || !ep->opts.stall_ms) {
		idle = ep->opts.idle_ms && idle_tick(ep);
		if (idle)
			timer_set(ep, 0);
		else
			ep_idle_arm(ep);
		goto out;
	}
	ep->idle_ticks = 0;
	if (ep_now_ms() - ep->sq_progress_ms < ep->opts.stall_ms)
		goto out;
	/* Closed as our own fatal error: the QP stops touching the
	 * transfers' memory, they fail, the peer is told. */
	RPCRDMA_STAT_ADD(ep, transfer_stalls, 1);
	ep_note_why(ep, RPCRDMA_CLOSE_STALL);
	ep_qp_to_error(ep->qp);
	ep_mark_down(ep, -ETIMEDOUT);
	ep_disconnect(ep);
	if (ep->sq_progress)
		ep->sq_progress(ep);
	timer_set(ep, 0);
out:
	pthread_mutex_unlock(&ep->lock);
	/* Nothing in progress: a plain close, as the client would make. */
	if (idle)
		rpcrdma_ep_close_why(ep, -ETIMEDOUT, RPCRDMA_CLOSE_IDLE);
}

/* Consumes up to max pending completion-channel events (UINT32_MAX:
 * all, reading until the channel is empty). Lock held. */
static void ep_drain_events(struct rpcrdma_ep *ep, uint32_t max)
{
	struct ibv_cq *cq;
	void *ctx;

	while (max-- && ibv_get_cq_event(ep->comp_ch, &cq, &ctx) == 0)
		ibv_ack_cq_events(cq, 1);
}

/* This endpoint's own CM events (its fd holds their channel), handled
 * without blocking. Lock held. */
static void ep_cm_events(struct rpcrdma_ep *ep)
{
	struct rdma_cm_event *ev;

	if (ep->listener)
		return;		/* still on the listener's channel */
	while (rdma_get_cm_event(ep->cm_ch, &ev) == 0) {
		enum rdma_cm_event_type type = ev->event;

		rdma_ack_cm_event(ev);
		if (type == RDMA_CM_EVENT_DEVICE_REMOVAL)
			ep->dev_removed = true;
		switch (type) {
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			/* Moves the QP to error: posted receives flush onto
			 * the CQ, the peer gets its DREP. */
			ep_disconnect(ep);
			ep_mark_down(ep, -ENOTCONN);
			break;
		default:
			break;
		}
	}
	/* EAGAIN: nothing more; EACCES: this thread's cred changed. */
	ep_count_errno(ep, errno);
}

/*
 * Nothing to do right now: consume channel and CM events, re-arm the CQ
 * and look once more (a completion between the last poll and the arm
 * raises no event). Lock held. Returns true when something arrived.
 */
bool ep_arm(struct rpcrdma_ep *ep)
{
	int err;

	/* After a poll of ours only the channels it saw readable are read:
	 * a read that finds nothing costs a system call (and librdmacm a
	 * malloc), two per call when both were always read. An event come
	 * since the poll keeps its fd readable: the next poll returns at
	 * once for it. Otherwise (the fds were polled by libtirpc, or not
	 * at all) both are drained. */
	/* Seen readable: the one event the last arm raised (only ep_arm
	 * arms the CQ, after a drain). */
	if (ep->comp_seen > 0)
		ep_drain_events(ep, 1);
	else if (ep->comp_seen < 0)
		ep_drain_events(ep, UINT32_MAX);
	if (ep->cm_seen != 0)
		ep_cm_events(ep);
	ep->comp_seen = ep->cm_seen = -1;
	err = ibv_req_notify_cq(ep->cq, 0);
	if (err) {
		/* Counted when refused (a thread whose credentials changed:
		 * the pool replaces it, svc_pool.c). */
		ep_count_errno(ep, verbs_errno(err));
		ep_down_why(ep, -EIO, RPCRDMA_CLOSE_INTERNAL);
	}
	ep->need_arm = false;
	return ep_reap(ep) > 0;
}

bool rpcrdma_ep_rearm(struct rpcrdma_ep *ep)
{
	bool work;

	pthread_mutex_lock(&ep->lock);
	if (!ep->need_arm) {
		pthread_mutex_unlock(&ep->lock);
		return false;
	}
	ep_arm(ep);
	/* Down too: the arm may have reaped the flushes (nothing else would
	 * wake the fd for them) or a CM event; the caller finds it out. */
	work = ep->rxq_count || ep->xf_done || !ep_is_up(ep);
	pthread_mutex_unlock(&ep->lock);
	return work;
}

/*
 * Sleeps until a completion or CM event, or deadline (lock dropped
 * meanwhile). With woken, a client endpoint also wakes on
 * rpcrdma_ep_wake: *woken then says so, the wake consumed.
 */
bool ep_block_wake(struct rpcrdma_ep *ep, uint64_t deadline,
			  bool *woken)
{
	struct pollfd pfd[3] = {
		{ .fd = ep->comp_ch->fd, .events = POLLIN },
		{ .fd = ep->cm_ch->fd, .events = POLLIN },
		{ .fd = ep->kickfd, .events = POLLIN },
	};
	nfds_t nfd = ep->listener ? 1 : woken && ep->kickfd >= 0 ? 3 : 2;
	int ms = remaining_ms(deadline);
	int n;

	if (ms == 0)
		return false;
	pthread_mutex_unlock(&ep->lock);
	n = poll(pfd, nfd, ms);
	pthread_mutex_lock(&ep->lock);
	if (n < 0)
		return errno == EINTR;
	ep->comp_seen = pfd[0].revents ? 1 : 0;
	ep->cm_seen = nfd < 2 ? -1 : pfd[1].revents ? 1 : 0;
	if (nfd == 3 && (pfd[2].revents & POLLIN)) {
		rpcrdma_ep_unkick(ep);
		*woken = true;
	}
	return n > 0;
}

bool ep_block(struct rpcrdma_ep *ep, uint64_t deadline)
{
	return ep_block_wake(ep, deadline, NULL);
}

void rpcrdma_ep_wake(struct rpcrdma_ep *ep)
{
	rpcrdma_ep_kick(ep);
}

/* ---- accessors ---- */

int rpcrdma_ep_fd(const struct rpcrdma_ep *ep)
{
	return ep->epfd;
}

const struct rpcrdma_inline *rpcrdma_ep_inline(const struct rpcrdma_ep *ep)
{
	return &ep->inl;
}

const struct sockaddr *rpcrdma_ep_peer(const struct rpcrdma_ep *ep)
{
	return (const struct sockaddr *)&ep->peer;
}

bool rpcrdma_ep_connected(const struct rpcrdma_ep *ep)
{
	return ep_is_up(ep);
}

bool rpcrdma_ep_check_cm(struct rpcrdma_ep *ep)
{
	bool up;

	pthread_mutex_lock(&ep->lock);
	if (ep_is_up(ep))
		ep_cm_events(ep);
	up = ep_is_up(ep);
	pthread_mutex_unlock(&ep->lock);
	return up;
}

uint32_t rpcrdma_ep_credits(const struct rpcrdma_ep *ep)
{
	return ep->credits;
}

int rpcrdma_ep_cm_fd(const struct rpcrdma_ep *ep)
{
	return ep->cm_ch ? ep->cm_ch->fd : -1;
}

bool rpcrdma_ep_can_read(const struct rpcrdma_ep *ep)
{
	return ep->initiator_depth > 0;
}

void rpcrdma_ep_close_why(struct rpcrdma_ep *ep, int err,
			  enum rpcrdma_close_why why)
{
	if (!ep || !ep->qp)
		return;
	pthread_mutex_lock(&ep->lock);
	ep_note_why(ep, ep_why_of(err, why));
	pthread_mutex_unlock(&ep->lock);
	ep_disconnect(ep);
	pthread_mutex_lock(&ep->lock);
	ep_mark_down(ep, err < 0 ? err : -ENOTCONN);
	pthread_mutex_unlock(&ep->lock);
}

void rpcrdma_ep_close(struct rpcrdma_ep *ep, int err)
{
	rpcrdma_ep_close_why(ep, err, RPCRDMA_CLOSE_LOCAL);
}

enum rpcrdma_close_why rpcrdma_ep_why(const struct rpcrdma_ep *ep)
{
	return ep ? ep->why : RPCRDMA_CLOSE_NONE;
}

const char *rpcrdma_close_why_str(enum rpcrdma_close_why why)
{
	switch (why) {
	case RPCRDMA_CLOSE_NONE:
		return "";
	case RPCRDMA_CLOSE_LOCAL:
		return "closed by this side";
	case RPCRDMA_CLOSE_CREDITS:
		return "the client sent more calls than its credit grant "
		       "(credit_overruns)";
	case RPCRDMA_CLOSE_SEND:
		return "a reply or RDMA_ERROR could not be sent "
		       "(send_failures)";
	case RPCRDMA_CLOSE_CHUNKS:
		return "an RDMA Read or Write of the client's chunks failed: "
		       "a bad rkey, or memory it no longer exposes "
		       "(closes_chunk_failed)";
	case RPCRDMA_CLOSE_STALL:
		return "its RDMA Reads, Writes or signaled Sends completed "
		       "nothing for RPCRDMA_STALL_MS (transfer_stalls)";
	case RPCRDMA_CLOSE_BC:
		return "every backward credit was held by callbacks that "
		       "timed out (bc_abandoned_closes)";
	case RPCRDMA_CLOSE_PERMISSION:
		return "the kernel refused a verbs command of a thread whose "
		       "credentials changed (permission_errors)";
	case RPCRDMA_CLOSE_DEREG:
		return "a registration could not be dropped "
		       "(dereg_failures)";
	case RPCRDMA_CLOSE_PROTOCOL:
		return "the client broke the protocol: a message larger than "
		       "the agreed inline threshold, or an RDMA Write With "
		       "Immediate (closes_protocol)";
	case RPCRDMA_CLOSE_UNREACHABLE:
		return "the client stopped answering: the transport's "
		       "retries ran out (closes_unreachable)";
	case RPCRDMA_CLOSE_INTERNAL:
		return "a resource of the server failed: memory, a receive "
		       "that could not be reposted, or a local work request "
		       "error (closes_internal)";
	case RPCRDMA_CLOSE_IDLE:
		return "it carried nothing for RPCRDMA_IDLE_MS (closes_idle)";
	case RPCRDMA_CLOSE_EVICTED:
		return "it was idle and a new client wanted its place at "
		       "RPCRDMA_MAX_CONNS (closes_evicted)";
	}
	return "?";
}

void rpcrdma_ep_kick(struct rpcrdma_ep *ep)
{
	uint64_t one = 1;

	__atomic_store_n(&ep->kick_self, 1, __ATOMIC_RELAXED);
	if (ep->kickfd >= 0 && write(ep->kickfd, &one, sizeof(one)) < 0)
		return;	/* EAGAIN: already readable */
}

void rpcrdma_ep_unkick(struct rpcrdma_ep *ep)
{
	int8_t seen = __atomic_exchange_n(&ep->kick_seen, -1, __ATOMIC_RELAXED);
	uint64_t v;

	if (ep->kickfd >= 0 && seen != 0 &&
	    read(ep->kickfd, &v, sizeof(v)) < 0)
		return;	/* EAGAIN: was not readable */
}

/* One look in this many asks epoll, whatever the completion channel says,
 * when EP_LOOK_MS have passed since it last did. */
#define EP_LOOK_EVERY 16
#define EP_LOOK_MS 100

/*
 * svc_run's poll says only that one of the endpoint's channels is
 * readable: trying each cost a failed read per channel, four system calls
 * per xp_recv. The look says which, so that the next ep_arm,
 * rpcrdma_ep_unkick and rpcrdma_ep_check_stall read only those: the
 * completion channel's event taken, or one epoll_wait of the fd, not
 * waiting. Something readable after the look keeps the fd readable, and
 * the next poll comes back for it.
 */
void rpcrdma_ep_look(struct rpcrdma_ep *ep)
{
	struct epoll_event ev[4];
	int8_t comp = 0, cm = 0, kick = 0, stall = 0;
	struct ibv_cq *cq;
	bool ask;
	void *ctx;
	int n;

	/* What woke the fd is nearly always the completion channel's one
	 * event (ep_arm armed the CQ for one): taking it is the read
	 * ep_arm would make anyway, so the look costs no system call of
	 * its own. A CM event, kick or stall tick beside it keeps the fd
	 * readable: poll() returns at once, and the next look, finding no
	 * event, asks epoll. The first EP_LOOK_EVERY-th look once
	 * EP_LOOK_MS have passed since the last such ask asks epoll first,
	 * so that a busy CQ cannot hide the others for long: about 100 ms
	 * plus 16 looks, soon enough for a CM event; a stall tick read
	 * late is counted all the same (its timer keeps the expirations,
	 * and the stall is measured from the last progress). Bounded by the
	 * count alone, the ask was the server's 0.06 system calls per call
	 * over the four of a NULL call at 1 in flight (issue 25: at most
	 * 4). A look that finds no completion event asks epoll anyway. */
	pthread_mutex_lock(&ep->lock);
	ask = ++ep->looks % EP_LOOK_EVERY == 0;
	if (ask) {
		uint64_t now = ep_now_ms();

		if (now - ep->look_asked_ms < EP_LOOK_MS)
			ask = false;
		else
			ep->look_asked_ms = now;
	}
	if (__atomic_exchange_n(&ep->kick_self, 0, __ATOMIC_RELAXED) && !ask &&
	    ep->need_arm) {
		/* A kick woke the fd (conn_stat's, to come back after the
		 * other transports' turn: a quarter of the server's system
		 * calls at 32 calls in flight went to a read that found no
		 * event and an epoll_wait after it). The CQ was not armed
		 * since the look took its event, so its channel holds none:
		 * only the kick is read. */
		ep->comp_seen = 0;
		ep->cm_seen = ep->listener ? -1 : 0;
		ep->stall_seen = 0;
		pthread_mutex_unlock(&ep->lock);
		__atomic_store_n(&ep->kick_seen, 1, __ATOMIC_RELAXED);
		return;
	}
	if (!ask && ibv_get_cq_event(ep->comp_ch, &cq, &ctx) == 0) {
		ibv_ack_cq_events(cq, 1);
		ep->comp_seen = 0;	/* taken: ep_arm only re-arms */
		ep->need_arm = true;	/* rpcrdma_ep_rearm before a poll */
		ep->cm_seen = ep->listener ? -1 : 0;
		ep->stall_seen = 0;
		pthread_mutex_unlock(&ep->lock);
		__atomic_store_n(&ep->kick_seen, 0, __ATOMIC_RELAXED);
		return;
	}
	pthread_mutex_unlock(&ep->lock);
	n = epoll_wait(ep->epfd, ev, 4, 0);
	if (n < 0)
		return;		/* unknown: everything is read */
	for (int i = 0; i < n; i++) {
		int fd = ev[i].data.fd;

		if (fd == ep->comp_ch->fd)
			comp = 1;
		else if (fd == ep->cm_ch->fd)
			cm = 1;
		else if (fd == ep->kickfd)
			kick = 1;
		else if (fd == ep->stallfd)
			stall = 1;
	}
	pthread_mutex_lock(&ep->lock);
	ep->comp_seen = comp;
	ep->cm_seen = ep->listener ? -1 : cm;
	ep->stall_seen = stall;
	pthread_mutex_unlock(&ep->lock);
	__atomic_store_n(&ep->kick_seen, kick, __ATOMIC_RELAXED);
}

struct rpcrdma_stats *rpcrdma_ep_stats(struct rpcrdma_ep *ep)
{
	return ep->stats;
}

void ep_disconnect(struct rpcrdma_ep *ep)
{
	struct ep_sigpipe g;

	ep_sigpipe_hold(ep->iwarp, &g);
	(void)rdma_disconnect(ep->id);
	ep_sigpipe_release(&g);
}

/*
 * Teardown: waits for the flushed receives of a QP in error, sleeping on
 * the completion channel until they are in, as the poller sleeps for a
 * message. A QP in the error state completes every outstanding work
 * request with a flush error, normally within microseconds of the state
 * change (rxe, siw): a server closing many connections pays each one's
 * flush, not a fixed wait (198abdf review #21: it slept 1 ms per look,
 * and max_ms when the flushes lagged). max_ms bounds a device that never
 * flushes; a removed one completes nothing: no wait at all.
 */
void ep_drain(struct rpcrdma_ep *ep, int max_ms)
{
	uint64_t deadline = ep_deadline_of(max_ms);

	pthread_mutex_lock(&ep->lock);
	for (;;) {
		ep_reap(ep);
		ep->rxq_count = 0;
		if (!__atomic_load_n(&ep->rx_posted, __ATOMIC_RELAXED) ||
		    ep->dev_removed)
			break;
		/* Armed, then looked at once more (ep_arm reaps): a flush
		 * between the reap and the arm raises no event. */
		ep_arm(ep);
		ep->rxq_count = 0;
		if (!__atomic_load_n(&ep->rx_posted, __ATOMIC_RELAXED))
			break;
		if (!ep_block(ep, deadline) && remaining_ms(deadline) == 0)
			break;
	}
	ep_drain_events(ep, UINT32_MAX);
	pthread_mutex_unlock(&ep->lock);
}
