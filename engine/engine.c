/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs engine's data path: completion reaping, receives, sends,
 * RDMA Read and RDMA Write. Connection setup and teardown are in conn.c.
 *
 * One CQ serves the whole QP. Whoever holds ep->lock may reap it: the
 * poller (rpcrdma_ep_poll / _read / _write, one thread at a time) and a
 * sender that needs a free send buffer. Receive completions go to a FIFO
 * (rxq) that the poller hands out; send-queue completions advance sq_done.
 * Only the poller waits on the completion channel, and it re-checks the
 * CQ and rxq after arming it under the lock, so no completion is missed.
 */
#include <errno.h>
#include <signal.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ep_int.h"

#define EP_POLL_BATCH		16

static uint64_t ep_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t ep_now_ms(void)
{
	return ep_now_us() / 1000u;
}

uint64_t ep_deadline_of(int timeout_ms)
{
	if (timeout_ms < 0)
		return UINT64_MAX;
	return ep_now_ms() + (uint64_t)timeout_ms;
}

/* Remaining ms for poll(): -1 forever, 0 when expired. */
static int remaining_ms(uint64_t deadline)
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

void ep_count_errno(struct rpcrdma_ep *ep, int err)
{
	if (err == EACCES || err == EPERM)
		RPCRDMA_STAT_ADD(ep, permission_errors, 1);
}

/* Called with ep->lock held. */
void ep_mark_down(struct rpcrdma_ep *ep, int err)
{
	if (__atomic_load_n(&ep->connected, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&ep->connected, false, __ATOMIC_RELEASE);
		ep->down_err = err;
		RPCRDMA_STAT_ADD(ep, disconnects, 1);
	}
}

int ep_post_recv(struct rpcrdma_ep *ep, uint32_t idx)
{
	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)(ep->rx_mem +
					      (size_t)idx * ep->rx_size),
		.length = ep->rx_size,
		.lkey = ep->rx_mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = EP_WR_RECV | idx,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad;
	int ret;

	ep->rx[idx].posted = true;
	__atomic_add_fetch(&ep->rx_posted, 1, __ATOMIC_RELAXED);
	ret = ibv_post_recv(ep->qp, &wr, &bad);
	if (ret) {
		ep->rx[idx].posted = false;
		__atomic_sub_fetch(&ep->rx_posted, 1, __ATOMIC_RELAXED);
		return -ret;
	}
	return 0;
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
			ep_mark_down(ep, wc_err(wc->status));
			return 0;
		}
		if (wc->opcode != IBV_WC_RECV) {
			/* RDMA Write with Immediate consumed it: nothing in
			 * RPC-over-RDMA sends one, and its buffer holds no
			 * message. The peer is broken: the connection ends. */
			RPCRDMA_STAT_ADD(ep, bad_headers, 1);
			ep_mark_down(ep, -EPROTO);
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
		return 1;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		ep_mark_down(ep, wc_err(wc->status));
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
			ep_mark_down(ep, -EIO);
			break;
		}
		for (i = 0; i < n; i++)
			got += ep_wc(ep, &wc[i]);
	} while (n == EP_POLL_BATCH);
	if (ep->stallfd >= 0 && ep->sq_done != done)
		ep->sq_progress_ms = ep_now_ms();
	if (ep->xf_count)
		ep_xfer_progress(ep);
	return got;
}

/* Consumes pending completion-channel events. Lock held. */
static void ep_drain_events(struct rpcrdma_ep *ep)
{
	struct ibv_cq *cq;
	void *ctx;

	while (ibv_get_cq_event(ep->comp_ch, &cq, &ctx) == 0)
		ibv_ack_cq_events(cq, 1);
}

/*
 * Nothing to do right now: consume channel and CM events, re-arm the CQ
 * and look once more (a completion between the last poll and the arm
 * raises no event). Lock held. Returns true when something arrived.
 */
static bool ep_arm(struct rpcrdma_ep *ep)
{
	ep_drain_events(ep);
	ep_cm_events(ep);
	if (ibv_req_notify_cq(ep->cq, 0))
		ep_mark_down(ep, -EIO);
	return ep_reap(ep) > 0;
}

/*
 * Sleeps until a completion or CM event, or deadline (lock dropped
 * meanwhile). With woken, a client endpoint also wakes on
 * rpcrdma_ep_wake: *woken then says so, the wake consumed.
 */
static bool ep_block_wake(struct rpcrdma_ep *ep, uint64_t deadline,
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
	if (nfd == 3 && (pfd[2].revents & POLLIN)) {
		rpcrdma_ep_unkick(ep);
		*woken = true;
	}
	return n > 0;
}

static bool ep_block(struct rpcrdma_ep *ep, uint64_t deadline)
{
	return ep_block_wake(ep, deadline, NULL);
}

void rpcrdma_ep_wake(struct rpcrdma_ep *ep)
{
	rpcrdma_ep_kick(ep);
}

static bool ep_is_up(const struct rpcrdma_ep *ep)
{
	return __atomic_load_n(&ep->connected, __ATOMIC_ACQUIRE);
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

uint32_t rpcrdma_ep_recvs_posted(const struct rpcrdma_ep *ep)
{
	return __atomic_load_n(&ep->rx_posted, __ATOMIC_RELAXED);
}

uint32_t rpcrdma_ep_credits(const struct rpcrdma_ep *ep)
{
	return ep->credits;
}

int rpcrdma_ep_cm_fd(const struct rpcrdma_ep *ep)
{
	return ep->cm_ch ? ep->cm_ch->fd : -1;
}

uint32_t rpcrdma_ep_rx_queued(const struct rpcrdma_ep *ep)
{
	return __atomic_load_n(&ep->rxq_count, __ATOMIC_ACQUIRE);
}

uint32_t rpcrdma_ep_rx_queued_count(struct rpcrdma_ep *ep,
				    bool (*pred)(const uint8_t *data,
						 uint32_t len))
{
	uint32_t n = 0;

	pthread_mutex_lock(&ep->lock);
	for (uint32_t i = 0; i < ep->rxq_count; i++) {
		uint32_t idx = ep->rxq[(ep->rxq_head + i) % ep->nrx];

		n += pred(ep->rx_mem + (size_t)idx * ep->rx_size,
			  ep->rx[idx].len);
	}
	pthread_mutex_unlock(&ep->lock);
	return n;
}

void rpcrdma_ep_close(struct rpcrdma_ep *ep, int err)
{
	if (!ep || !ep->qp)
		return;
	ep_disconnect(ep);
	pthread_mutex_lock(&ep->lock);
	ep_mark_down(ep, err < 0 ? err : -ENOTCONN);
	pthread_mutex_unlock(&ep->lock);
}

void rpcrdma_ep_kick(struct rpcrdma_ep *ep)
{
	uint64_t one = 1;

	if (ep->kickfd >= 0 && write(ep->kickfd, &one, sizeof(one)) < 0)
		return;	/* EAGAIN: already readable */
}

void rpcrdma_ep_unkick(struct rpcrdma_ep *ep)
{
	uint64_t v;

	if (ep->kickfd >= 0 && read(ep->kickfd, &v, sizeof(v)) < 0)
		return;	/* EAGAIN: was not readable */
}

struct rpcrdma_stats *rpcrdma_ep_stats(struct rpcrdma_ep *ep)
{
	return &ep->stats;
}

bool rpcrdma_ep_rx_pending(const struct rpcrdma_ep *ep)
{
	return __atomic_load_n(&ep->rxq_count, __ATOMIC_ACQUIRE) > 0;
}

/* ---- receives ---- */

static void rx_pop(struct rpcrdma_ep *ep, struct rpcrdma_rx *rx)
{
	uint32_t idx = ep->rxq[ep->rxq_head];
	struct ep_rx_slot *s = &ep->rx[idx];

	ep->rxq_head = (ep->rxq_head + 1) % ep->nrx;
	__atomic_sub_fetch(&ep->rxq_count, 1, __ATOMIC_RELEASE);
	rx->data = ep->rx_mem + (size_t)idx * ep->rx_size;
	rx->len = s->len;
	rx->invalidated = s->invalidated;
	rx->inv_rkey = s->inv_rkey;
	rx->priv = s;
}

/*
 * Polls the CQ for up to the endpoint's poll_us (never past deadline)
 * before the caller sleeps on the completion channel: a reply that comes
 * meanwhile costs no interrupt, wake-up or task switch, which is most of
 * a small call's latency (docs/performance.md); ib_send_lat polls all
 * along. The lock is dropped between looks so that senders go on. Lock
 * held; true when something arrived or the connection went.
 */
static bool ep_spin(struct rpcrdma_ep *ep, uint64_t deadline)
{
	uint64_t end = ep_now_us() + ep->opts.poll_us;

	if (deadline != UINT64_MAX && deadline * 1000u < end)
		end = deadline * 1000u;
	do {
		pthread_mutex_unlock(&ep->lock);
		sched_yield();
		pthread_mutex_lock(&ep->lock);
		if (ep->rxq_count || ep_reap(ep) || !ep_is_up(ep))
			return true;
	} while (ep_now_us() < end);
	return false;
}

int rpcrdma_ep_poll(struct rpcrdma_ep *ep, struct rpcrdma_rx *rx,
		    int timeout_ms)
{
	uint64_t deadline = ep_deadline_of(timeout_ms);
	bool woken = false, spun = false;
	int ret;

	pthread_mutex_lock(&ep->lock);
	for (;;) {
		if (ep->rxq_count) {
			rx_pop(ep, rx);
			ret = 1;
			break;
		}
		if (ep_reap(ep))
			continue;
		if (!ep_is_up(ep)) {
			ret = -ENOTCONN;
			break;
		}
		/* A zero timeout asks only what is there (svc_run's
		 * xp_recv): no polling. */
		if (!spun && timeout_ms != 0 && ep->opts.poll_us) {
			spun = true;
			if (ep_spin(ep, deadline))
				continue;
		}
		if (ep_arm(ep))
			continue;
		if (!ep_is_up(ep)) {
			ret = -ENOTCONN;
			break;
		}
		if (!ep_block_wake(ep, deadline, &woken) || woken) {
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

void rpcrdma_ep_rx_done(struct rpcrdma_ep *ep, struct rpcrdma_rx *rx)
{
	struct ep_rx_slot *s = rx ? rx->priv : NULL;

	if (!s || s < ep->rx || s >= ep->rx + ep->nrx || s->posted)
		return;
	rx->priv = NULL;
	/* A receive posted to a QP in error would only flush. A receive that
	 * cannot be posted breaks the credits promised to the peer: the
	 * connection ends rather than meet an RNR later. */
	if (ep_is_up(ep)) {
		int ret = ep_post_recv(ep, (uint32_t)(s - ep->rx));

		if (ret) {
			ep_count_errno(ep, -ret);
			rpcrdma_ep_close(ep, ret);
		}
	}
}

/* ---- send queue ---- */

/* Sleeps on tx_cond for up to ms (lock held, released meanwhile). */
static void tx_wait(struct rpcrdma_ep *ep, uint32_t ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += (long)(ms % 1000u) * 1000000L;
	ts.tv_sec += ms / 1000u + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	ep->tx_waiters++;
	pthread_cond_timedwait(&ep->tx_cond, &ep->lock, &ts);
	ep->tx_waiters--;
}

/*
 * Room for one more WR on the SQ (and a send buffer when tx). Reaps; then
 * waits on tx_cond, which whoever reaps a send completion signals (the
 * poller when there is one), re-reaping itself with a growing backoff
 * (1, 2, 4, 8 ms) so that a sender without a poller still progresses
 * without busy-polling the CPU away from the provider. Lock held.
 */
int ep_sq_room(struct rpcrdma_ep *ep, uint32_t n, bool tx,
	       uint64_t deadline)
{
	uint32_t backoff = 1;

	for (;;) {
		if (!ep_is_up(ep))
			return ep->down_err ? ep->down_err : -ENOTCONN;
		if (ep_sq_free(ep, n, tx))
			return 0;
		ep_reap(ep);
		if (ep_sq_free(ep, n, tx))
			return 0;
		if (remaining_ms(deadline) == 0)
			return -ETIMEDOUT;
		tx_wait(ep, backoff);
		if (backoff < 8)
			backoff *= 2;
	}
}

bool ep_sq_free(const struct rpcrdma_ep *ep, uint32_t n, bool tx)
{
	return ep->sq_seq + n - ep->sq_done <= ep->sq_depth &&
	       (!tx || ep->tx_count < ep->ntx);
}

void ep_disconnect(struct rpcrdma_ep *ep)
{
	struct ep_sigpipe g;

	ep_sigpipe_hold(ep->iwarp, &g);
	(void)rdma_disconnect(ep->id);
	ep_sigpipe_release(&g);
}

/* Posts one SQ WR (sequence number assigned here). Lock held. */
int ep_sq_post(struct rpcrdma_ep *ep, struct ibv_send_wr *wr, bool signal)
{
	struct ep_sigpipe g;
	struct ibv_send_wr *bad;
	uint64_t seq = ep->sq_seq + 1;
	bool idle = ep->sq_seq == ep->sq_done;
	int ret;

	if (seq - ep->sq_last_signaled >= ep->signal_every)
		signal = true;
	/* siw hands an unsignaled WR of a page or more to TCP by reference
	 * (zero copy), and its completions mean only "given to TCP": after
	 * a later WR completes, the buffer is ours again (a reply context
	 * reused) while TCP may still send or resend from it, and the peer
	 * receives the next call's bytes (a Long Reply with another XID).
	 * Signaled WRs are copied. Every WR on iWARP is signaled; the CQ
	 * holds a completion for each (conn.c). */
	if (ep->iwarp)
		signal = true;
	if (wr->opcode == IBV_WR_RDMA_READ) {
		/* Its own completion retires it (ep_int.h, rdq). */
		if (ep->rdq_count == ep_rd_depth(ep))
			return -EAGAIN;
		signal = true;
	}
	wr->wr_id = seq;
	wr->next = NULL;
	wr->send_flags = signal ? IBV_SEND_SIGNALED : 0;
	ep_sigpipe_hold(ep->iwarp, &g);
	ret = ibv_post_send(ep->qp, wr, &bad);
	ep_sigpipe_release(&g);
	if (ret) {
		ep_count_errno(ep, ret);
		return -ret;
	}
	ep->sq_seq = seq;
	if (signal)
		ep->sq_last_signaled = seq;
	if (wr->opcode == IBV_WR_RDMA_READ)
		ep->rdq[(ep->rdq_head + ep->rdq_count++) % EP_MAX_RD_WINDOW] =
			seq;
	if (ep->stallfd >= 0) {
		/* The deadline runs from the first WR on an idle queue. */
		if (idle)
			ep->sq_progress_ms = ep_now_ms();
		ep_stall_arm(ep);
	}
	return 0;
}

int rpcrdma_ep_send(struct rpcrdma_ep *ep, const struct iovec *iov, int iovcnt,
		    uint32_t inv_rkey)
{
	size_t total = 0;
	int i, ret;

	if (iovcnt < 0 || (iovcnt && !iov))
		return -EINVAL;
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len > ep->inl.send_max ||
		    total + iov[i].iov_len > ep->inl.send_max)
			return -EMSGSIZE;
		total += iov[i].iov_len;
	}

	pthread_mutex_lock(&ep->lock);
	ret = ep_sq_room(ep, 1, true, ep_deadline_of(EP_SEND_WAIT_MS));
	if (!ret)
		ret = ep_tx_post(ep, iov, iovcnt, inv_rkey, false);
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

int ep_tx_post(struct rpcrdma_ep *ep, const struct iovec *iov, int iovcnt,
	       uint32_t inv_rkey, bool signal)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	uint32_t slot;
	size_t total;
	uint8_t *buf;
	int i, ret;

	slot = (ep->tx_head + ep->tx_count) % ep->ntx;
	buf = ep->tx_mem + (size_t)slot * ep->tx_size;
	for (i = 0, total = 0; i < iovcnt; i++) {
		if (iov[i].iov_len)
			memcpy(buf + total, iov[i].iov_base, iov[i].iov_len);
		total += iov[i].iov_len;
	}
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uint64_t)(uintptr_t)buf;
	sge.length = (uint32_t)total;
	sge.lkey = ep->tx_mr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (inv_rkey) {
		wr.opcode = IBV_WR_SEND_WITH_INV;
		wr.invalidate_rkey = inv_rkey;
		/* libsiw (rdma-core 44) takes the STag to invalidate from
		 * wr.rdma.rkey, not invalidate_rkey: the peer was told to
		 * invalidate STag 0 and ended the connection (TERMINATE,
		 * "cannot invalidate"). Other providers ignore wr.rdma for
		 * a Send. */
		wr.wr.rdma.rkey = inv_rkey;
	} else {
		wr.opcode = IBV_WR_SEND;
	}
	/* Signal too when the ring is half full, so buffers come back. */
	ret = ep_sq_post(ep, &wr, signal || (ep->tx_count + 1 >= ep->ntx / 2 &&
					     ep->sq_last_signaled <= ep->sq_done));
	if (ret)
		return ret;
	ep->tx_seq[slot] = ep->sq_seq;
	ep->tx_count++;
	if (inv_rkey)
		RPCRDMA_STAT_ADD(ep, remote_invalidations, 1);
	return 0;
}

/* Waits until every SQ WR up to seq completed. Lock held. */
int ep_sq_wait(struct rpcrdma_ep *ep, uint64_t seq, uint64_t deadline)
{
	for (;;) {
		ep_reap(ep);
		if (ep->sq_done >= seq)
			return 0;
		if (!ep_is_up(ep))
			return ep->down_err ? ep->down_err : -ENOTCONN;
		if (ep_arm(ep) || ep->sq_done >= seq)
			continue;
		if (!ep_is_up(ep))
			continue;
		if (!ep_block(ep, deadline) && remaining_ms(deadline) == 0) {
			ep_reap(ep);
			return ep->sq_done >= seq ? 0 : -ETIMEDOUT;
		}
	}
}

/* A timed-out transfer may still touch the local MR: stop the QP before
 * the caller deregisters it. Lock held. */
static void ep_abort(struct rpcrdma_ep *ep)
{
	ep_qp_to_error(ep->qp);
	ep_mark_down(ep, -ETIMEDOUT);
}

static int seg_total(const struct rpcrdma_segment *segs, uint32_t nsegs,
		     uint64_t *total)
{
	uint64_t t = 0;
	uint32_t i;

	if (nsegs && !segs)
		return -EINVAL;
	for (i = 0; i < nsegs; i++)
		t += segs[i].length;	/* < 2^32 * 2^32: no wrap */
	*total = t;
	return 0;
}

/*
 * Posts RDMA Read (read) or Write (!read) WRs moving local[0..len) to or
 * from the segments in order, at most one device message size per WR.
 * Reads keep at most ep_rd_depth in flight (each signaled); of the
 * Writes, the last is signaled (RC completes in order). Lock held.
 */
static int ep_rdma(struct rpcrdma_ep *ep, bool read, uint8_t *local,
		   uint64_t len, uint32_t lkey,
		   const struct rpcrdma_segment *segs, uint32_t nsegs,
		   uint32_t *written, uint64_t deadline)
{
	uint64_t done = 0, last = 0;
	uint32_t i;
	int ret;

	for (i = 0; i < nsegs; i++) {
		uint64_t seg_len = segs[i].length;
		uint64_t off = 0;

		if (!read) {
			if (seg_len > len - done)
				seg_len = len - done;
			if (written)
				written[i] = (uint32_t)seg_len;
		}
		while (off < seg_len) {
			uint32_t chunk = ep->max_msg_sz;
			struct ibv_send_wr wr;
			struct ibv_sge sge;

			if (seg_len - off < chunk)
				chunk = (uint32_t)(seg_len - off);
			/* Reads: wait for the oldest when the window is full. */
			while (read && ep->rdq_count >= ep_rd_depth(ep)) {
				ret = ep_sq_wait(ep, ep->rdq[ep->rdq_head],
						 deadline);
				if (ret)
					return ret;
			}
			ret = ep_sq_room(ep, 1, false, deadline);
			if (ret)
				return ret;
			memset(&wr, 0, sizeof(wr));
			sge.addr = (uint64_t)(uintptr_t)(local + done);
			sge.length = chunk;
			sge.lkey = lkey;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = segs[i].offset + off;
			wr.wr.rdma.rkey = segs[i].handle;
			/* The last WR is signaled so sq_done reaches it. */
			ret = ep_sq_post(ep, &wr, read || done + chunk == len);
			if (ret)
				return ret;
			last = ep->sq_seq;
			off += chunk;
			done += chunk;
		}
	}
	if (!last)
		return 0;
	return ep_sq_wait(ep, last, deadline);
}

static int ep_transfer(struct rpcrdma_ep *ep, bool read, void *local,
		       uint64_t len, const struct rpcrdma_segment *segs,
		       uint32_t nsegs, uint32_t *written, int timeout_ms)
{
	uint64_t deadline = ep_deadline_of(timeout_ms);
	uint64_t total;
	struct ibv_mr *mr = NULL;
	uint64_t moved, seq0;
	uint32_t i;
	int ret;

	ret = seg_total(segs, nsegs, &total);
	if (ret)
		return ret;
	if (written)
		for (i = 0; i < nsegs; i++)
			written[i] = 0;
	/* Read: the segments must fit the buffer. Write: len must fit
	 * the segments. */
	if (read ? total > len : len > total)
		return -EMSGSIZE;
	moved = read ? total : len;
	if (moved && !local)
		return -EINVAL;
	if (!ep_is_up(ep))
		return ep->down_err ? ep->down_err : -ENOTCONN;
	if (moved) {
		if (moved > SIZE_MAX)
			return -EMSGSIZE;
		mr = ibv_reg_mr(ep->pd, local, (size_t)moved,
				ep_sink_access(ep, read));
		if (!mr)
			return errno > 0 ? -errno : -ENOMEM;
	}

	pthread_mutex_lock(&ep->lock);
	seq0 = ep->sq_seq;
	if (moved)
		ret = ep_rdma(ep, read, local, moved, mr->lkey, segs, nsegs,
			      written, deadline);
	/* Reads or Writes of ours still posted must not touch local once
	 * mr goes: any failure after posting stops the QP first. */
	if (ret == -ETIMEDOUT ||
	    (ret && ep->sq_seq != seq0 && ep->sq_done < ep->sq_seq))
		ep_abort(ep);
	pthread_mutex_unlock(&ep->lock);
	if (mr)
		ibv_dereg_mr(mr);
	if (ret == 0 && moved) {
		if (read)
			RPCRDMA_STAT_ADD(ep, rdma_read_bytes, moved);
		else
			RPCRDMA_STAT_ADD(ep, rdma_write_bytes, moved);
	}
	return ret;
}

int rpcrdma_ep_read(struct rpcrdma_ep *ep, void *local, uint64_t len,
		    const struct rpcrdma_segment *segs, uint32_t nsegs,
		    int timeout_ms)
{
	return ep_transfer(ep, true, local, len, segs, nsegs, NULL,
			   timeout_ms);
}

int rpcrdma_ep_write(struct rpcrdma_ep *ep, const void *local, uint64_t len,
		     const struct rpcrdma_segment *segs, uint32_t nsegs,
		     uint32_t *written, int timeout_ms)
{
	return ep_transfer(ep, false, (void *)(uintptr_t)local, len, segs,
			   nsegs, written, timeout_ms);
}

/* Teardown: waits (bounded) for the flushed receives of a QP in error. */
void ep_drain(struct rpcrdma_ep *ep, int max_ms)
{
	uint64_t deadline = ep_deadline_of(max_ms);

	pthread_mutex_lock(&ep->lock);
	for (;;) {
		ep_reap(ep);
		ep->rxq_count = 0;
		if (!__atomic_load_n(&ep->rx_posted, __ATOMIC_RELAXED))
			break;
		if (remaining_ms(deadline) == 0)
			break;
		pthread_mutex_unlock(&ep->lock);
		poll(NULL, 0, 1);
		pthread_mutex_lock(&ep->lock);
	}
	ep_drain_events(ep);
	pthread_mutex_unlock(&ep->lock);
}
