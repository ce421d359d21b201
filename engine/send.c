/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The send queue: room on it and in the send ring (ep_sq_free,
 * rpcrdma_ep_sq_room, tx_wait), posting one work request
 * (rpcrdma_ep_sq_post) or a Send from the ring (ep_tx_post,
 * rpcrdma_ep_send), waiting for completion up to a sequence number
 * (rpcrdma_ep_sq_wait).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ep_int.h"

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
int rpcrdma_ep_sq_room(struct rpcrdma_ep *ep, uint32_t n, bool tx,
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

/* rpcrdma_ep_sq_room within ms (at most EP_SEND_WAIT_MS, a negative ms
 * too), the clock read for that deadline only when there is no room now
 * (a post's common case). Lock held. */
int ep_sq_room_within(struct rpcrdma_ep *ep, uint32_t n, bool tx, int ms)
{
	if (ep_is_up(ep) && ep_sq_free(ep, n, tx))
		return 0;
	if (ms < 0 || ms > EP_SEND_WAIT_MS)
		ms = EP_SEND_WAIT_MS;
	return rpcrdma_ep_sq_room(ep, n, tx, ep_deadline_of(ms));
}

int ep_sq_room_now(struct rpcrdma_ep *ep, uint32_t n, bool tx)
{
	return ep_sq_room_within(ep, n, tx, EP_SEND_WAIT_MS);
}

bool ep_sq_free(const struct rpcrdma_ep *ep, uint32_t n, bool tx)
{
	return ep->sq_seq + n - ep->sq_done <= ep->sq_depth &&
	       (!tx || ep->tx_count < ep->ntx);
}

/*
 * Posts n WRs with one ibv_post_send, so one doorbell (a system call on
 * rxe and siw) for all of them, their sequence numbers assigned in order.
 * want[i] asks a completion of wrs[i]; the rules below may add one. 0, or
 * -errno with *posted WRs on the queue (those before the one refused).
 * Lock held; room checked by the caller.
 */
static int ep_sq_post_n(struct rpcrdma_ep *ep, struct ibv_send_wr *const *wrs,
			const bool *want, uint32_t n, uint32_t *posted)
{
	uint64_t last_signaled = ep->sq_last_signaled;
	/* Nothing for the stall deadline to watch. */
	bool idle = !ep_sq_signaled_out(ep);
	struct ibv_send_wr *bad = NULL;
	struct ep_sigpipe g;
	uint32_t i, done = n;
	int ret;

	for (i = 0; i < n; i++)
		if (ep->posting && (wrs[i]->num_sge > (int)EP_WRQ_SGE ||
				    wrs[i]->opcode == IBV_WR_BIND_MW))
			return -EINVAL;	/* ep_post_quiesce first */
	for (i = 0; i < n; i++) {
		struct ibv_send_wr *wr = wrs[i];
		uint64_t seq = ep->sq_seq + 1 + i;
		bool signal = want[i];

		if (seq - last_signaled >= ep->signal_every)
			signal = true;
		/* siw hands an unsignaled WR of a page or more to TCP by
		 * reference (zero copy), and its completions mean only
		 * "given to TCP": after a later WR completes, the buffer is
		 * ours again (a reply context reused) while TCP may still
		 * send or resend from it, and the peer receives the next
		 * call's bytes (a Long Reply with another XID). Signaled
		 * WRs are copied. Every WR on iWARP is signaled; the CQ
		 * holds a completion for each (ep.c, ep_setup). A Read is
		 * retired by its own completion (ep_int.h, rdq). */
		if (ep->iwarp || wr->opcode == IBV_WR_RDMA_READ)
			signal = true;
		if (signal)
			last_signaled = seq;
		wr->wr_id = seq;
		wr->send_flags = signal ? IBV_SEND_SIGNALED : 0;
		wr->next = i + 1 < n ? wrs[i + 1] : NULL;
	}
	if (ep->posting) {
		/* Another thread is posting without the lock: ours go after
		 * its, in sequence order, by its hand (ep_sq_flush_unlock).
		 * A failure there takes the connection down. */
		for (i = 0; i < n; i++) {
			struct ep_wrq *q =
				&ep->wrq[(ep->sq_seq + 1 + i) % ep->sq_depth];

			q->wr = *wrs[i];
			if (q->wr.num_sge > 0)
				memcpy(q->sge, wrs[i]->sg_list,
				       (size_t)q->wr.num_sge * sizeof(q->sge[0]));
			q->wr.sg_list = q->sge;
			q->wr.next = NULL;
			if (ep->pend_tail)
				ep->pend_tail->next = &q->wr;
			else
				ep->pend_head = &q->wr;
			ep->pend_tail = &q->wr;
		}
		ret = 0;
	} else {
		ep_sigpipe_hold(ep->iwarp, &g);
		ret = ibv_post_send(ep->qp, wrs[0], &bad);
		ep_sigpipe_release(&g);
		RPCRDMA_STAT_ADD(ep, sq_doorbells, 1);
	}
	if (ret) {
		/* Those before *bad are on the queue. No *bad (rxe, when its
		 * doorbell fails: the kernel refused this thread's command)
		 * counts as none: the caller gives up the connection. */
		ep_count_errno(ep, ret);
		for (done = 0; bad && done < n && wrs[done] != bad; done++)
			;
		if (done == n)
			done = 0;
	}
	for (i = 0; i < done; i++) {
		const struct ibv_send_wr *wr = wrs[i];

		if (wr->send_flags & IBV_SEND_SIGNALED)
			ep->sq_last_signaled = wr->wr_id;
		if (wr->opcode == IBV_WR_RDMA_READ)
			ep->rdq[(ep->rdq_head + ep->rdq_count++) %
				EP_MAX_RD_WINDOW] = wr->wr_id;
	}
	ep->sq_seq += done;
	RPCRDMA_STAT_ADD(ep, sq_wrs, done);
	if (done && ep->stallfd >= 0 && ep_sq_signaled_out(ep)) {
		/* The deadline runs from the first signaled WR on an idle
		 * queue. Unsignaled WRs alone (a reply's Send) arm nothing:
		 * no completion would say they are done, and nothing waits
		 * on them. */
		if (idle)
			ep->sq_progress_ms = ep_now_ms();
		ep_stall_arm(ep);
	}
	*posted = done;
	return -ret;
}

bool ep_combine_begin(struct rpcrdma_ep *ep)
{
	/* A server's endpoints post from one thread at a time (svc_run's,
	 * or a pool worker's): nothing to combine. */
	if (ep->listener || ep->posting || !ep->qp)
		return false;
	if (!ep->wrq) {
		ep->wrq = calloc(ep->sq_depth, sizeof(*ep->wrq));
		if (!ep->wrq)
			return false;
	}
	ep->posting = true;
	return true;
}

/*
 * The combining thread (ep_combine_begin) posts its own WRs, queued like
 * the others', and those queued while it was in ibv_post_send: one
 * doorbell (a system call on rxe and siw) for all that came meanwhile,
 * and no sender waits on the lock while a doorbell rings. The client's
 * callers each rang their own with the lock held: at 32 calls in flight
 * on one CLIENT that lock was the futex calls beyond a caller's sleep
 * and wake-up.
 */
int ep_sq_flush_unlock(struct rpcrdma_ep *ep, int ret)
{
	while (ep->pend_head) {
		struct ibv_send_wr *first = ep->pend_head, *bad = NULL;
		struct ep_sigpipe g;
		int r;

		ep->pend_head = ep->pend_tail = NULL;
		pthread_mutex_unlock(&ep->lock);
		ep_sigpipe_hold(ep->iwarp, &g);
		r = ibv_post_send(ep->qp, first, &bad);
		ep_sigpipe_release(&g);
		pthread_mutex_lock(&ep->lock);
		RPCRDMA_STAT_ADD(ep, sq_doorbells, 1);
		if (r) {
			/* Counted as posted when queued: none completes now,
			 * and the connection goes with them. */
			ep_count_errno(ep, r);
			ep->pend_head = ep->pend_tail = NULL;
			if (ep->qp)
				ep_qp_to_error(ep->qp);
			ep_down_why(ep, -r, RPCRDMA_CLOSE_INTERNAL);
			if (!ret)
				ret = -r;
			break;
		}
	}
	ep->posting = false;
	if (ep->tx_waiters)
		pthread_cond_broadcast(&ep->tx_cond);
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

void ep_post_quiesce(struct rpcrdma_ep *ep)
{
	while (ep->posting) {
		ep->tx_waiters++;
		pthread_cond_wait(&ep->tx_cond, &ep->lock);
		ep->tx_waiters--;
	}
}

int rpcrdma_ep_sq_post(struct rpcrdma_ep *ep, struct ibv_send_wr *wr,
		       bool signal)
{
	uint32_t posted;

	if (wr->opcode == IBV_WR_RDMA_READ &&
	    ep->rdq_count == ep_rd_depth(ep))
		return -EAGAIN;
	return ep_sq_post_n(ep, &wr, &signal, 1, &posted);
}

int rpcrdma_ep_send(struct rpcrdma_ep *ep, const struct iovec *iov, int iovcnt,
		    uint32_t inv_rkey)
{
	return rpcrdma_ep_send_within(ep, iov, iovcnt, inv_rkey,
				      EP_SEND_WAIT_MS);
}

int rpcrdma_ep_send_within(struct rpcrdma_ep *ep, const struct iovec *iov,
			   int iovcnt, uint32_t inv_rkey, int timeout_ms)
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
	ret = ep_sq_room_within(ep, 1, true, timeout_ms);
	if (!ret) {
		bool combine = ep_combine_begin(ep);

		ret = ep_tx_post(ep, iov, iovcnt, inv_rkey, false);
		if (combine)
			return ep_sq_flush_unlock(ep, ret);
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

/* The send ring's i-th free buffer after those this post takes first. */
static uint8_t *ep_tx_buf(const struct rpcrdma_ep *ep, uint32_t i)
{
	uint32_t slot = (ep->tx_head + ep->tx_count + i) % ep->ntx;

	return ep->tx_mem + (size_t)slot * ep->tx_size;
}

/* The ring's next free buffer is taken until WR seq completes. */
static void ep_tx_take(struct rpcrdma_ep *ep, uint64_t seq)
{
	ep->tx_seq[(ep->tx_head + ep->tx_count) % ep->ntx] = seq;
	ep->tx_count++;
}

/* A Send of iov's bytes, copied into the ring's i-th free buffer (With
 * Invalidate of inv_rkey unless 0): wr and sge filled, not posted. */
static void ep_tx_send_wr(struct rpcrdma_ep *ep, uint32_t i,
			  const struct iovec *iov, int iovcnt,
			  uint32_t inv_rkey, struct ibv_send_wr *wr,
			  struct ibv_sge *sge)
{
	uint8_t *buf = ep_tx_buf(ep, i);
	size_t total = 0;

	for (int j = 0; j < iovcnt; j++) {
		if (iov[j].iov_len)
			memcpy(buf + total, iov[j].iov_base, iov[j].iov_len);
		total += iov[j].iov_len;
	}
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uint64_t)(uintptr_t)buf;
	sge->length = (uint32_t)total;
	sge->lkey = ep->tx_mr->lkey;
	wr->sg_list = sge;
	wr->num_sge = 1;
	if (inv_rkey) {
		wr->opcode = IBV_WR_SEND_WITH_INV;
		wr->invalidate_rkey = inv_rkey;
		/* libsiw (rdma-core 44) takes the STag to invalidate from
		 * wr.rdma.rkey, not invalidate_rkey: the peer was told to
		 * invalidate STag 0 and ended the connection (TERMINATE,
		 * "cannot invalidate"). Other providers ignore wr.rdma for
		 * a Send. */
		wr->wr.rdma.rkey = inv_rkey;
	} else {
		wr->opcode = IBV_WR_SEND;
	}
}

void ep_tx_bounce(struct rpcrdma_ep *ep, uint32_t i, const void *src,
		  size_t len, struct ibv_sge *sge)
{
	uint8_t *buf = ep_tx_buf(ep, i);

	memcpy(buf, src, len);
	sge->addr = (uint64_t)(uintptr_t)buf;
	sge->length = (uint32_t)len;
	sge->lkey = ep->tx_mr->lkey;
}

int ep_tx_post_after(struct rpcrdma_ep *ep, struct ibv_send_wr *pre,
		     uint32_t npre, uint32_t nbounce, const struct iovec *iov,
		     int iovcnt, uint32_t inv_rkey, bool signal,
		     uint32_t *pre_posted)
{
	struct ibv_send_wr *wrs[EP_PRE_MAX + 1];
	bool want[EP_PRE_MAX + 1];
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	uint32_t j, posted;
	int ret;

	if (npre > EP_PRE_MAX || nbounce > npre)
		return -EINVAL;
	/* The Send's buffer follows those of the bounced WRs. */
	ep_tx_send_wr(ep, nbounce, iov, iovcnt, inv_rkey, &wr, &sge);
	for (j = 0; j < npre; j++) {
		wrs[j] = &pre[j];
		want[j] = false;
	}
	wrs[npre] = &wr;
	/* Signal too when the ring is half full, so buffers come back. */
	want[npre] = signal ||
		     (ep->tx_count + nbounce + 1 >= ep->ntx / 2 &&
		      !ep_sq_signaled_out(ep));
	ret = ep_sq_post_n(ep, wrs, want, npre + 1, &posted);
	if (pre_posted)
		*pre_posted = posted < npre ? posted : npre;
	/* The bounced WRs' buffers are the ring's until they complete. */
	for (j = 0; j < nbounce && j < posted; j++)
		ep_tx_take(ep, pre[j].wr_id);
	if (posted <= npre)
		return ret;
	ep_tx_take(ep, wr.wr_id);
	if (inv_rkey)
		RPCRDMA_STAT_ADD(ep, remote_invalidations, 1);
	return 0;
}

int ep_tx_post_sends(struct rpcrdma_ep *ep, const struct ep_tx_send *s,
		     uint32_t n, uint64_t *seqs, uint32_t *posted)
{
	struct ibv_send_wr wr[EP_BATCH_MAX], *wrs[EP_BATCH_MAX];
	struct ibv_sge sge[EP_BATCH_MAX];
	bool want[EP_BATCH_MAX];
	uint32_t i;
	int ret;

	if (n == 0 || n > EP_BATCH_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		ep_tx_send_wr(ep, i, s[i].iov, s[i].iovcnt, s[i].inv_rkey,
			      &wr[i], &sge[i]);
		wrs[i] = &wr[i];
		want[i] = false;
	}
	/* As ep_tx_post_after: signal when the ring is half full. */
	want[n - 1] = ep->tx_count + n >= ep->ntx / 2 &&
		      !ep_sq_signaled_out(ep);
	ret = ep_sq_post_n(ep, wrs, want, n, posted);
	for (i = 0; i < *posted; i++) {
		ep_tx_take(ep, wr[i].wr_id);
		seqs[i] = wr[i].wr_id;
		if (s[i].inv_rkey)
			RPCRDMA_STAT_ADD(ep, remote_invalidations, 1);
	}
	return ret;
}

int ep_tx_post(struct rpcrdma_ep *ep, const struct iovec *iov, int iovcnt,
	       uint32_t inv_rkey, bool signal)
{
	return ep_tx_post_after(ep, NULL, 0, 0, iov, iovcnt, inv_rkey, signal,
				NULL);
}

/*
 * How long a waiter polls the CQ before it arms it and sleeps (each a
 * system call, and a wake-up): what it waits for is most often a local
 * operation (a window's unbind or invalidation before a call returns,
 * rxe's type 1 windows on every call without a hint), which completes
 * within microseconds of its doorbell, not a round trip.
 */
#define EP_SQ_SPIN_US	100u

/* Waits until every SQ WR up to seq completed. Lock held. */
int rpcrdma_ep_sq_wait(struct rpcrdma_ep *ep, uint64_t seq, uint64_t deadline)
{
	uint64_t spin_end = 0, now;

	for (;;) {
		ep_reap(ep);
		if (ep->sq_done >= seq)
			return 0;
		if (!ep_is_up(ep))
			return ep->down_err ? ep->down_err : -ENOTCONN;
		now = ep_now_us();
		if (!spin_end)
			spin_end = now + EP_SQ_SPIN_US;
		if (now < spin_end)
			continue;
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
