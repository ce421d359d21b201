/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completion-driven transfers (engine.h, struct rpcrdma_xfer): the
 * server's RDMA Reads of a call's chunks, and a reply's RDMA Writes with
 * the Send that follows them, posted without ever waiting on the peer.
 *
 * A started transfer waits in a FIFO (xf_wait) until the send queue, the
 * send ring and the read depth (the initiator depth the peer agreed to,
 * RFC 8166 section 3.4.3's reads being the responder's) have room for its
 * next work request; ep_xfer_progress, run after every reap of the CQ,
 * posts what fits, in order. A fully posted transfer (xf_post) is finished
 * when the send queue has completed past its last work request: RC
 * completes them in order, so one signaled WR at its end suffices (every
 * Read is signaled, to free the read window). A transfer that is only a
 * Send (a reply without chunks) is finished once posted: its bytes were
 * copied into the engine's send ring, and the Send is not signaled (the
 * ring's own rule signals one now and then). Finished transfers wait on
 * xf_done for their owner. When the endpoint goes down, every transfer
 * finishes at once with its error; the local registrations are released
 * then (the QP is in error and touches no memory) or at teardown.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ep_int.h"

static void xf_append(struct rpcrdma_xfer **head, struct rpcrdma_xfer **tail,
		      struct rpcrdma_xfer *x)
{
	x->next = NULL;
	if (*tail)
		(*tail)->next = x;
	else
		*head = x;
	*tail = x;
}

/* Transfers started and not handed back change under the lock, as an
 * atomic store: rpcrdma_ep_xfers_done and _ready read the count without
 * the lock to skip it when there are none (every call of a server with
 * no chunk to move asks up to three times each way). */
static void xf_count_add(struct rpcrdma_ep *ep, int32_t d)
{
	__atomic_store_n(&ep->xf_count, ep->xf_count + (uint32_t)d,
			 __ATOMIC_RELEASE);
}

static struct rpcrdma_xfer *xf_pop(struct rpcrdma_xfer **head,
				   struct rpcrdma_xfer **tail)
{
	struct rpcrdma_xfer *x = *head;

	if (x) {
		*head = x->next;
		if (!*head)
			*tail = NULL;
		x->next = NULL;
	}
	return x;
}

/*
 * A transfer's registration would not go: on iWARP a Read sink's keeps
 * the STag its Read Requests carried, remote write (ep_sink_access), over
 * memory that goes back to its owner. As reg.c's rpcrdma_ep_dereg_failed,
 * but with the lock held (which that takes): the QP to error first, so
 * that nothing reaches the memory through it, then the connection closes
 * (dereg_failures counts it; the registration is leaked with its PD).
 */
static void xf_dereg_failed(struct rpcrdma_ep *ep)
{
	RPCRDMA_STAT_ADD(ep, dereg_failures, 1);
	if (ep->qp)
		ep_qp_to_error(ep->qp);
	ep_down_why(ep, -EIO, RPCRDMA_CLOSE_DEREG);
	if (ep->id)
		ep_disconnect(ep);
}

/* Lock held. A failed deregistration marks the endpoint down: the
 * caller's ep_xfer_progress then fails what remains. */
static void xf_finish(struct rpcrdma_ep *ep, struct rpcrdma_xfer *x, int st)
{
	if (x->read && x->bounce) {
		/* Its buffers were taken in order, and transfers finish in
		 * the order they were posted: they are at rb_head. */
		uint64_t off = 0;

		for (uint32_t i = 0; i < x->rb_n; i++) {
			uint32_t slot = (ep->rb_head + i) % EP_RB_SLOTS;

			if (st == 0)
				memcpy((uint8_t *)x->local + off,
				       ep->rb_mem + (size_t)slot * ep->tx_size,
				       x->rb_len[i]);
			off += x->rb_len[i];
		}
		ep->rb_head = (ep->rb_head + x->rb_n) % EP_RB_SLOTS;
		ep->rb_count -= x->rb_n;
		x->rb_n = 0;
	}
	if (x->mr) {
		if (ep_mr_dereg(ep, x->mr))
			xf_dereg_failed(ep);
		x->mr = NULL;
	}
	x->status = st;
	if (st == 0 && x->moved && x->read)
		RPCRDMA_STAT_ADD(ep, rdma_read_bytes, x->moved);
	else if (st == 0 && x->moved)
		RPCRDMA_STAT_ADD(ep, rdma_write_bytes, x->moved);
	xf_append(&ep->xf_done, &ep->xf_done_tail, x);
}

/* Parts to post: the caller's, or parts[0] filled from segs at start. */
static uint32_t xf_nparts(const struct rpcrdma_xfer *x)
{
	return x->nparts ? x->nparts : x->len ? 1 : 0;
}

/* Where a transfer's posting stands: the next byte to move. */
struct xf_cursor {
	uint32_t part, seg;
	uint64_t seg_off, posted;
};

static void xf_cursor_get(const struct rpcrdma_xfer *x, struct xf_cursor *c)
{
	c->part = x->part;
	c->seg = x->seg;
	c->seg_off = x->seg_off;
	c->posted = x->posted;
}

static void xf_cursor_set(struct rpcrdma_xfer *x, const struct xf_cursor *c)
{
	x->part = c->part;
	x->seg = c->seg;
	x->seg_off = c->seg_off;
	x->posted = c->posted;
}

/*
 * The next Read or Write of x from c: wr and sge filled, *last when it
 * ends its part, c advanced past it. 1, 0 when nothing is left, or
 * -EMSGSIZE (the segments cannot supply the part: checked at start).
 */
static int xf_next_wr(const struct rpcrdma_ep *ep,
		      const struct rpcrdma_xfer *x, struct xf_cursor *c,
		      struct ibv_send_wr *wr, struct ibv_sge *sge, bool *last)
{
	/* A bounced Write reads one buffer of the send ring. */
	uint64_t max_chunk = x->bounce && ep->tx_size < ep->max_msg_sz
				     ? ep->tx_size
				     : ep->max_msg_sz;

	while (c->part < xf_nparts(x)) {
		const struct rpcrdma_xfer_part *p = &x->parts[c->part];
		const struct rpcrdma_segment *s;
		uint64_t seg_len, chunk;

		if (c->posted >= p->len) {
			/* Next part. */
			c->part++;
			c->seg = 0;
			c->seg_off = 0;
			c->posted = 0;
			continue;
		}
		if (c->seg >= p->nsegs)
			return -EMSGSIZE;
		s = &p->segs[c->seg];
		seg_len = s->length;
		if (!x->read && seg_len > p->len - (c->posted - c->seg_off))
			seg_len = p->len - (c->posted - c->seg_off);
		if (c->seg_off >= seg_len) {
			/* Next segment (an empty one is skipped). */
			c->seg++;
			c->seg_off = 0;
			continue;
		}
		chunk = seg_len - c->seg_off;
		if (chunk > max_chunk)
			chunk = max_chunk;
		memset(wr, 0, sizeof(*wr));
		sge->addr = (uint64_t)(uintptr_t)x->local + p->off + c->posted;
		sge->length = (uint32_t)chunk;
		sge->lkey = x->mr ? x->mr->lkey : 0;
		wr->sg_list = sge;
		wr->num_sge = 1;
		wr->opcode = x->read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
		wr->wr.rdma.remote_addr = s->offset + c->seg_off;
		wr->wr.rdma.rkey = s->handle;
		*last = c->posted + chunk == p->len;
		c->seg_off += chunk;
		c->posted += chunk;
		return 1;
	}
	return 0;
}

/* The Writes of x from its cursor, at most EP_PRE_MAX: their count, or
 * EP_PRE_MAX + 1 when there are more, or -errno. */
static int xf_gather(const struct rpcrdma_ep *ep,
		     const struct rpcrdma_xfer *x, struct xf_cursor *c,
		     struct ibv_send_wr *wrs, struct ibv_sge *sges)
{
	struct ibv_send_wr spare;
	struct ibv_sge spare_sge;
	uint32_t n = 0;
	bool last;
	int ret;

	for (;;) {
		ret = xf_next_wr(ep, x, c, n < EP_PRE_MAX ? &wrs[n] : &spare,
				 n < EP_PRE_MAX ? &sges[n] : &spare_sge,
				 &last);
		if (ret < 0)
			return ret;
		if (ret == 0)
			return (int)n;
		if (++n > EP_PRE_MAX)
			return (int)n;
	}
}

/*
 * Whether x's Writes go through the send ring (rpcrdma_ep_xfer_start):
 * a reply whose chunks carry at most EP_PRE_MAX buffers of the ring
 * (a 4 KiB NFS READ's data, a small Long Reply). Registering them
 * instead costs two system calls (reg and dereg, with the pinning of
 * their pages) per reply; the copy costs less than either.
 */
static bool xf_bounces(const struct rpcrdma_ep *ep, struct rpcrdma_xfer *x)
{
	struct ibv_send_wr wrs[EP_PRE_MAX];
	struct ibv_sge sges[EP_PRE_MAX];
	struct xf_cursor c = {0};
	int n;

	if (x->read) {
		/* Read buffers: registered once (rb_setup), never on
		 * iWARP (ep_sink_access). */
		if (ep->iwarp ||
		    __atomic_load_n(&ep->rb_failed, __ATOMIC_RELAXED) ||
		    x->len > (uint64_t)EP_PRE_MAX * ep->tx_size)
			return false;
	} else if (!x->len || !x->send_cnt ||
		   x->moved > (uint64_t)EP_PRE_MAX * ep->tx_size ||
		   ep->ntx < 2 * (EP_PRE_MAX + 1)) {
		return false;
	}
	/* At most EP_PRE_MAX WRs, each within one buffer (xf_next_wr). */
	x->bounce = true;
	n = xf_gather(ep, x, &c, wrs, sges);
	x->bounce = n >= 0 && n <= (int)EP_PRE_MAX;
	return x->bounce;
}

/* The read buffers, at the first bounced read (lock held): false when
 * they cannot be had (the read then registers its sink, as before). */
static bool rb_setup(struct rpcrdma_ep *ep)
{
	size_t len = ((size_t)EP_RB_SLOTS * ep->tx_size + 4095) & ~(size_t)4095;
	int err = -ENOMEM;

	if (ep->rb_mr)
		return true;
	if (__atomic_load_n(&ep->rb_failed, __ATOMIC_RELAXED))
		return false;
	ep->rb_mem = aligned_alloc(4096, len);
	if (ep->rb_mem)
		ep->rb_mr = ep_mr_reg(ep, ep->rb_mem, len,
				      IBV_ACCESS_LOCAL_WRITE, &err);
	if (!ep->rb_mr) {
		free(ep->rb_mem);
		ep->rb_mem = NULL;
		/* The locked-memory limit or memory may allow it later;
		 * anything else (the device refused) will not change. */
		if (err != -EDQUOT && err != -ENOMEM && err != -EAGAIN)
			__atomic_store_n(&ep->rb_failed, true,
					 __ATOMIC_RELAXED);
		ep_count_errno(ep, -err);
		return false;
	}
	return true;
}

/*
 * A reply whose RDMA Writes (at most EP_PRE_MAX) and Send all fit now:
 * posted as one chain, one doorbell (a system call on rxe and siw), the
 * Send the chain's one signaled WR, as the Linux server posts a reply;
 * bounced Writes copied into the send ring first, and then nothing of
 * the owner's is read after the post: the Send needs no completion.
 * 1 when posted, 0 when it does not fit (xf_post_some then posts WR by
 * WR, or a bounced transfer waits), or -errno.
 */
static int xf_post_chain(struct rpcrdma_ep *ep, struct rpcrdma_xfer *x)
{
	struct ibv_send_wr wrs[EP_PRE_MAX];
	struct ibv_sge sges[EP_PRE_MAX];
	struct xf_cursor c;
	uint32_t n, i, posted;
	int ret;

	xf_cursor_get(x, &c);
	ret = xf_gather(ep, x, &c, wrs, sges);
	if (ret < 0)
		return ret;
	if (ret > (int)EP_PRE_MAX)
		return 0;
	n = (uint32_t)ret;
	if (!ep_sq_free(ep, n + 1, true) ||
	    (x->bounce && !ep_tx_free(ep, n + 1)))
		return 0;
	for (i = 0; x->bounce && i < n; i++)
		ep_tx_bounce(ep, i, (const void *)(uintptr_t)sges[i].addr,
			     sges[i].length, &sges[i]);
	ret = ep_tx_post_after(ep, wrs, n, x->bounce ? n : 0, x->send,
			       x->send_cnt, x->inv_rkey,
			       x->len != 0 && !x->bounce, &posted);
	if (ret)
		return ret;
	xf_cursor_set(x, &c);
	x->send_posted = true;
	x->last_seq = ep->sq_seq;
	return 1;
}

/*
 * Posts as much of x as fits now. Returns 1 when all of it is posted, 0
 * when it must wait for room, or -errno (posting failed: the endpoint is
 * then marked down).
 */
static int xf_post_some(struct rpcrdma_ep *ep, struct rpcrdma_xfer *x)
{
	struct xf_cursor c;

	/* Writes before a Send: one chain (a Send alone goes below). */
	if (x->len && !x->read && x->send_cnt && !x->send_posted) {
		int ret = xf_post_chain(ep, x);

		if (ret || x->bounce)
			return ret;
	}
	for (;;) {
		struct ibv_send_wr wr;
		struct ibv_sge sge;
		bool last;
		int ret;

		xf_cursor_get(x, &c);
		ret = xf_next_wr(ep, x, &c, &wr, &sge, &last);
		if (ret <= 0) {
			if (ret < 0)
				return ret;
			xf_cursor_set(x, &c);
			break;
		}
		if (!ep_sq_free(ep, 1, false))
			return 0;
		if (x->read && ep->rdq_count >= ep_rd_depth(ep))
			return 0;
		if (x->read && x->bounce) {
			uint32_t slot;

			if (ep->rb_count == EP_RB_SLOTS)
				return 0;
			slot = (ep->rb_head + ep->rb_count) % EP_RB_SLOTS;
			sge.addr = (uint64_t)(uintptr_t)(ep->rb_mem +
						(size_t)slot * ep->tx_size);
			sge.lkey = ep->rb_mr->lkey;
		}
		/* The end of each part is signaled when no Send follows: one
		 * of them ends the transfer. */
		ret = rpcrdma_ep_sq_post(ep, &wr,
					 x->read || (last && !x->send_cnt));
		if (ret)
			return ret;
		if (x->read)
			RPCRDMA_STAT_MAX(ep, reads_inflight_peak, ep->rdq_count);
		if (x->read && x->bounce) {
			x->rb_len[x->rb_n++] = sge.length;
			ep->rb_count++;
		}
		x->last_seq = ep->sq_seq;
		xf_cursor_set(x, &c);
	}
	if (x->send_cnt && !x->send_posted) {
		int ret;

		if (!ep_sq_free(ep, 1, true))
			return 0;
		/* Signaled only when Writes precede it: their end is the
		 * transfer's, and their memory goes back then. A Send alone
		 * was copied into the send ring (ep_tx_post), so nothing of
		 * the owner's waits on its completion, which would only cost
		 * the server a wake-up per reply (ep_xfer_progress). */
		ret = ep_tx_post(ep, x->send, x->send_cnt, x->inv_rkey,
				 x->len != 0);
		if (ret)
			return ret;
		x->send_posted = true;
		x->last_seq = ep->sq_seq;
	}
	return 1;
}

/* A transfer that is a Send alone, not posted yet. */
static bool xf_send_only(const struct rpcrdma_xfer *x)
{
	return !x->len && x->send_cnt && !x->send_posted && !x->read;
}

/*
 * Replies that are a Send alone, queued together (held ones flushed):
 * posted by one ibv_post_send, one doorbell for all. Each is done once
 * posted (its bytes are in the ring). Returns how many were posted (0:
 * not two such at the head, or no room for two), or -errno.
 */
static int xf_post_sends(struct rpcrdma_ep *ep)
{
	struct ep_tx_send s[EP_BATCH_MAX];
	uint64_t seqs[EP_BATCH_MAX];
	struct rpcrdma_xfer *x;
	uint32_t n = 0, posted, i;
	int ret;

	for (x = ep->xf_wait; x && n < EP_BATCH_MAX && xf_send_only(x);
	     x = x->next) {
		if (!ep_sq_free(ep, n + 1, false) || !ep_tx_free(ep, n + 1))
			break;
		s[n].iov = x->send;
		s[n].iovcnt = x->send_cnt;
		s[n].inv_rkey = x->inv_rkey;
		n++;
	}
	if (n < 2)
		return 0;
	ret = ep_tx_post_sends(ep, s, n, seqs, &posted);
	for (i = 0; i < posted; i++) {
		x = xf_pop(&ep->xf_wait, &ep->xf_wait_tail);
		x->send_posted = true;
		x->last_seq = seqs[i];
		xf_finish(ep, x, 0);
	}
	return ret ? ret : (int)posted;
}

static void ep_xfer_progress(struct rpcrdma_ep *ep)
{
	struct rpcrdma_xfer *x;
	int ret;

	if (!__atomic_load_n(&ep->connected, __ATOMIC_ACQUIRE)) {
		/* Whatever marked it down, the QP stops before the transfers'
		 * memory goes back to their owners. */
		if (ep->xf_post && ep->qp)
			ep_qp_to_error(ep->qp);
		while ((x = xf_pop(&ep->xf_post, &ep->xf_post_tail)))
			xf_finish(ep, x, ep->down_err);
		while ((x = xf_pop(&ep->xf_wait, &ep->xf_wait_tail)))
			xf_finish(ep, x, ep->down_err);
		while ((x = xf_pop(&ep->xf_held, &ep->xf_held_tail)))
			xf_finish(ep, x, ep->down_err);
		return;
	}
	while (ep->xf_post && ep->xf_post->last_seq <= ep->sq_done)
		xf_finish(ep, xf_pop(&ep->xf_post, &ep->xf_post_tail), 0);
	while (ep->xf_wait && ep_is_up(ep)) {
		ret = ep->xf_wait->next ? xf_post_sends(ep) : 0;
		if (ret > 0)
			continue;
		if (ret == 0)
			ret = xf_post_some(ep, ep->xf_wait);
		if (ret == 0)
			break;
		if (ret < 0) {
			/* The QP stops first: nothing may touch the memory of
			 * the transfers that now fail. */
			ep_qp_to_error(ep->qp);
			ep_down_why(ep, ret, RPCRDMA_CLOSE_INTERNAL);
			ep_xfer_progress(ep);
			return;
		}
		x = xf_pop(&ep->xf_wait, &ep->xf_wait_tail);
		/* Nothing posted at all (no data, no Send), or only what the
		 * send ring holds (a Send, bounced Writes): done already. A
		 * bounced Read is done when its Reads complete. */
		if (!x->last_seq || x->last_seq <= ep->sq_done || !x->len ||
		    (x->bounce && !x->read))
			xf_finish(ep, x, 0);
		else
			xf_append(&ep->xf_post, &ep->xf_post_tail, x);
	}
	/* A registration that would not go closed the connection
	 * (xf_finish): the rest fails with it. */
	if (!ep_is_up(ep))
		ep_xfer_progress(ep);
}

int rpcrdma_ep_xfer_start(struct rpcrdma_ep *ep, struct rpcrdma_xfer *x)
{
	uint64_t send_len = 0;
	uint32_t i, j;

	if (!ep || !x || (x->len && !x->local) || x->send_cnt < 0 ||
	    x->send_cnt > (int)RPCRDMA_XFER_MAX_SEND ||
	    x->nparts > RPCRDMA_XFER_MAX_PARTS ||
	    (x->read && (x->send_cnt || !x->len || x->nparts)))
		return -EINVAL;
	for (i = 0; i < (uint32_t)x->send_cnt; i++)
		send_len += x->send[i].iov_len;
	if (send_len > ep->inl.send_max)
		return -EMSGSIZE;
	if (x->len > SIZE_MAX)
		return -EMSGSIZE;
	if (x->nparts == 0 && x->len) {
		/* One part: the whole of local to segs. */
		if (!x->segs)
			return -EINVAL;
		x->parts[0].off = 0;
		x->parts[0].len = x->len;
		x->parts[0].segs = x->segs;
		x->parts[0].nsegs = x->nsegs;
	}
	x->moved = 0;
	for (i = 0; i < xf_nparts(x); i++) {
		const struct rpcrdma_xfer_part *p = &x->parts[i];
		uint64_t total = 0;

		if (p->off > x->len || p->len > x->len - p->off ||
		    (p->nsegs && !p->segs))
			return -EINVAL;
		for (j = 0; j < p->nsegs; j++)
			total += p->segs[j].length;
		/* Reads: every segment lands in local. Writes: the part
		 * fits its segments. */
		if (x->read ? total != p->len : p->len > total)
			return -EMSGSIZE;
		x->moved += p->len;
	}
	if (!rpcrdma_ep_connected(ep))
		return ep->down_err ? ep->down_err : -ENOTCONN;
	x->mr = NULL;
	x->bounce = false;
	x->rb_n = 0;
	if (x->len && xf_bounces(ep, x) && x->read) {
		bool ok;

		pthread_mutex_lock(&ep->lock);
		ok = rb_setup(ep);
		pthread_mutex_unlock(&ep->lock);
		x->bounce = ok;
	}
	if (x->len && !x->bounce) {
		int err;

		x->mr = ep_mr_reg(ep, x->local, (size_t)x->len,
				  ep_sink_access(ep, x->read), &err);
		if (!x->mr) {
			ep_count_errno(ep, -err);
			return err;
		}
	}
	x->status = 0;
	x->part = 0;
	x->seg = 0;
	x->seg_off = 0;
	x->posted = 0;
	x->send_posted = false;
	x->last_seq = 0;
	pthread_mutex_lock(&ep->lock);
	/* The engine's one upward call: ep_reap moves transfers on through
	 * it (installed at the first transfer, under the lock it is read
	 * under). */
	ep->sq_progress = ep_xfer_progress;
	xf_count_add(ep, 1);
	if (x->hold) {
		/* The caller's batch: posted by rpcrdma_ep_xfer_flush. */
		xf_append(&ep->xf_held, &ep->xf_held_tail, x);
		pthread_mutex_unlock(&ep->lock);
		return 0;
	}
	xf_append(&ep->xf_wait, &ep->xf_wait_tail, x);
	if (x->defer) {
		/* Posting rings a doorbell some providers (rxe) reach by a
		 * write() the kernel refuses from a thread whose
		 * credentials changed: the next reap posts it. */
		pthread_mutex_unlock(&ep->lock);
		return 0;
	}
	ep_xfer_progress(ep);
	/* Still waiting: the send queue, send ring or read window is full. */
	for (struct rpcrdma_xfer *w = ep->xf_wait; w; w = w->next) {
		if (w == x) {
			RPCRDMA_STAT_ADD(ep, xfers_deferred, 1);
			break;
		}
	}
	pthread_mutex_unlock(&ep->lock);
	return 0;
}

void rpcrdma_ep_xfer_flush(struct rpcrdma_ep *ep)
{
	pthread_mutex_lock(&ep->lock);
	if (ep->xf_held) {
		if (ep->xf_wait_tail)
			ep->xf_wait_tail->next = ep->xf_held;
		else
			ep->xf_wait = ep->xf_held;
		ep->xf_wait_tail = ep->xf_held_tail;
		ep->xf_held = ep->xf_held_tail = NULL;
		ep_xfer_progress(ep);
	}
	pthread_mutex_unlock(&ep->lock);
}

struct rpcrdma_xfer *rpcrdma_ep_xfer_done(struct rpcrdma_ep *ep)
{
	struct rpcrdma_xfer *x;

	pthread_mutex_lock(&ep->lock);
	if (!ep->xf_done && ep->xf_count)
		ep_reap(ep);
	x = xf_pop(&ep->xf_done, &ep->xf_done_tail);
	if (x)
		xf_count_add(ep, -1);
	pthread_mutex_unlock(&ep->lock);
	return x;
}

/*
 * None started and not handed back, read without the lock: none to hand
 * back (every transfer on xf_done is counted). The thread serving a
 * connection is the one that starts its transfers and asks for them
 * back (svc_recv.c, svc_send.c), so it never reads a stale count of its
 * own; a thread that takes the connection over synchronises with the
 * last (the pool's epoll_ctl and epoll_wait, the endpoint's lock in
 * rpcrdma_ep_look). Reaping by other threads only moves transfers to
 * xf_done and leaves the count alone.
 */
static bool xf_none(struct rpcrdma_ep *ep)
{
	return !__atomic_load_n(&ep->xf_count, __ATOMIC_ACQUIRE);
}

struct rpcrdma_xfer *rpcrdma_ep_xfers_done(struct rpcrdma_ep *ep)
{
	struct rpcrdma_xfer *x, *n;
	int32_t k = 0;

	if (xf_none(ep))
		return NULL;
	pthread_mutex_lock(&ep->lock);
	if (!ep->xf_done && ep->xf_count)
		ep_reap(ep);
	x = ep->xf_done;
	ep->xf_done = ep->xf_done_tail = NULL;
	for (n = x; n; n = n->next)
		k++;
	xf_count_add(ep, -k);
	pthread_mutex_unlock(&ep->lock);
	return x;
}

bool rpcrdma_ep_xfers_ready(struct rpcrdma_ep *ep)
{
	bool ready;

	if (xf_none(ep))
		return false;
	pthread_mutex_lock(&ep->lock);
	ready = ep->xf_done != NULL;
	pthread_mutex_unlock(&ep->lock);
	return ready;
}

void ep_xfer_release(struct rpcrdma_ep *ep)
{
	struct rpcrdma_xfer *x;

	__atomic_store_n(&ep->connected, false, __ATOMIC_RELEASE);
	ep_xfer_progress(ep);
	while ((x = xf_pop(&ep->xf_done, &ep->xf_done_tail)))
		xf_count_add(ep, -1);
}
