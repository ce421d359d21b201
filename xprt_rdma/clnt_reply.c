/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE	/* sem_clockwait */
/*
 * The receive side: the poller role and what it does with each message.
 * ct_poll and ct_wait hold the role for a waiting caller; ct_dispatch
 * decodes a header, checks a reply's chunk lists against its call's offer
 * and hands the reply to its slot; ct_decode turns a slot's reply into the
 * caller's results. A backward call goes to the backward inbox
 * (ct_bc_take, ct_bc_purge, ct_bc_answer_now), which lives here rather
 * than in clnt_bc.c so that the poller never calls up into the backward
 * service: that service only pops the inbox and borrows ct_poll.
 *
 * Replies are matched by XID: one waiting caller at a time holds the
 * poller role, polls the endpoint with its own remaining timeout, hands
 * each reply to its owner and gives the role up when its own reply has
 * come or its deadline has passed (leader/follower). A Send With
 * Invalidate we did not ask for or a second reply to one XID is the
 * peer's error: the first closes the connection, the second is dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "clnt.h"
#include "lib/chunks.h"

/* --- receive side: the poller --- */

/*
 * The chunk lists of a reply must be what s's call offered
 * (rpcrdma_call_check_reply, lib/chunks.c: RFC 8166 sections 3.4.6 and
 * 3.5.4); the lengths written into its write chunks go to s->wlen.
 * -EBADMSG otherwise, before any byte of the reply is used (ct->lock
 * held).
 */
static int ct_take_writes(struct ct *ct, struct ct_slot *s,
			  const struct rpcrdma_msg *m)
{
	int used;

	used = rpcrdma_call_check_reply(m, s->wsegs, s->nwrites,
					s->reply_chunk ? &s->reply_seg : NULL,
					s->wlen);
	if (used < 0)
		return used;
	if (used)
		CT_INC(ct, replies_write_chunks);
	return 0;
}

static void ct_bc_take(struct ct *ct, const struct rpcrdma_rx *rx,
		       size_t hlen, uint32_t rdma_xid);

/* The reply of a call its caller abandoned: the slot, and its credit,
 * go back, unless its revocation is still under way, which then frees it
 * (ct->lock held). */
static void slot_late_reply(struct ct *ct, struct ct_slot *s)
{
	s->replied = true;
	if (!s->inv_pending && !s->flushing) {
		slot_dereg(s);
		slot_free(ct, s);
	}
}

/*
 * How long the poller waiting for arg's reply polls the CQ before it
 * sleeps (xprt_poll_budget, ct->lock held): a reply caught polling saves
 * an interrupt, a wake-up and a task switch, most of a small call's
 * latency. Only a caller's own wait polls, never the backward service's
 * or a wait for a credit.
 */
static uint32_t ct_spin_us(const struct ct *ct, ct_pred pred, void *arg)
{
	if (pred != pred_slot_done)
		return 0;
	/* Another caller of ours could use the core: one encoding its
	 * call, or woken and not yet back. At 32 in flight on 2 cores a
	 * poller that polled then took it from them (15 % fewer calls/s
	 * than with polling off). */
	if (ct->opts.poll_us == RPCRDMA_POLL_AUTO &&
	    ct->nsleeping + 1 < ct->ep_users)
		return 0;
	return xprt_poll_budget(ct->opts.poll_us, ct->srtt_us,
				((const struct ct_slot *)arg)->sent_us,
				xprt_now_us());
}

/* Hands one received message to its call (ct->lock held). */
static void ct_dispatch(struct ct *ct, struct rpcrdma_rx *rx)
{
	struct rpcrdma_msg *m = &ct->rxmsg;
	enum rpcrdma_hdr_err he;
	struct ct_slot *s;
	size_t hlen = 0;
	uint64_t len;

	he = rpcrdma_hdr_decode(rx->data, rx->len, &ct->limits, m, &hlen);
	if (he != RPCRDMA_HDR_OK) {
		CT_INC(ct, bad_headers);
		if (rx->len < RPCRDMA_HDR_FIXED) {
			ct_revoke(ct, NULL, rx);
			goto out;
		}
		s = slot_by_xid(ct, m->xid);
		if (!ct_revoke(ct, s, rx))
			goto out;
		if (s && s->state == SLOT_WAITING && !s->replied) {
			s->replied = true;
			slot_finish(ct, s, -EBADMSG);
		} else if (s && s->state == SLOT_ABANDONED) {
			slot_late_reply(ct, s);
		}
		goto out;
	}
	switch (m->proc) {
	case RPCRDMA_MSG:
		CT_INC(ct, recv_msg);
		break;
	case RPCRDMA_NOMSG:
		CT_INC(ct, recv_nomsg);
		break;
	default:
		CT_INC(ct, recv_error);
		if (m->err == RPCRDMA_ERR_VERS)
			CT_INC(ct, err_vers_recv);
		else
			CT_INC(ct, err_chunk_recv);
		break;
	}
	/* A backward-direction call (RFC 8167 section 4: RDMA_MSG, every
	 * chunk list empty, the RPC message inline with msg_type CALL), which
	 * a forward reply never is: it goes to the backward service
	 * (ct_bc_take) without touching forward credits or calls. */
	if (rpcrdma_hdr_peek_bc_call(m, hlen, rx->data, rx->len)) {
		if (ct_revoke(ct, NULL, rx))
			ct_bc_take(ct, rx, hlen, m->xid);
		goto out;
	}
	s = slot_by_xid(ct, m->xid);
	if (!ct_revoke(ct, s, rx))
		goto out;
	if (!s) {
		/* Not a reply to a call of ours: its grant is not the
		 * responder's answer to us either (RFC 8166 section 3.3.1
		 * ties credits to replies). */
		CT_INC(ct, replies_unmatched);
		goto out;
	}
	/* RFC 8166 section 3.3.1: every reply carries the current grant. */
	rpcrdma_req_credits_update(&ct->credits, m->credits);
	RPCRDMA_STAT_SET(ct->ep, credits_granted, m->credits);
	if (s->state == SLOT_ABANDONED) {
		slot_late_reply(ct, s);
		goto out;
	}
	if (s->state != SLOT_WAITING || s->replied)
		goto out;	/* reset meanwhile, or a duplicate reply */
	s->replied = true;
	ct->srtt_us = xprt_srtt_update(ct->srtt_us,
				       xprt_now_us() - s->sent_us);
	if (m->proc != RPCRDMA_ERROR && ct_take_writes(ct, s, m)) {
		slot_finish(ct, s, -EBADMSG);
		goto out;
	}
	switch (m->proc) {
	case RPCRDMA_MSG:
		/* The RPC reply follows the header in the receive buffer. */
		len = rx->len - hlen;
		if (len > (s->nwrites ? s->wbase : s->reply_cap)) {
			slot_finish(ct, s, -EBADMSG);
			break;
		}
		memcpy(s->reply_buf, rx->data + hlen, (size_t)len);
		s->reply_len = (uint32_t)len;
		CT_INC(ct, replies_inline);
		slot_finish(ct, s, 0);
		break;
	case RPCRDMA_NOMSG:
		/* Section 3.5.4: the reply is in our reply chunk; its length
		 * is the sum of the lengths the responder echoed back. */
		len = m->has_reply ? rpcrdma_chunk_length(m, &m->reply) : 0;
		if (!m->has_reply || len > s->reply_chunk) {
			slot_finish(ct, s, -EBADMSG);
			break;
		}
		s->reply_len = (uint32_t)len;
		CT_INC(ct, replies_long);
		slot_finish(ct, s, 0);
		break;
	default:
		s->rdma_err = m->err;
		slot_finish(ct, s, -EPROTO);
		break;
	}
out:
	rpcrdma_ep_rx_done(ct->ep, rx);
}

/* Wakes the callers ct_dispatch answered (ct->lock held). */
static void ct_post_wakes(struct ct *ct)
{
	for (uint32_t i = 0; i < ct->nwake; i++)
		sem_post(&ct->wakeq[i]->wake);
	ct->nwake = 0;
}

/* Holds the poller role until pred holds, the deadline passes or the
 * connection breaks (ct->lock held on entry and exit, dropped while
 * polling; ct->ep cannot change meanwhile: polling blocks reconnects). */
int ct_poll(struct ct *ct, ct_pred pred, void *arg,
		   const struct timespec *dl)
{
	struct rpcrdma_ep *ep = ct->ep;
	struct ct_slot *wake[CT_WAKEQ];
	struct rpcrdma_rx rx;
	uint32_t spin, nwake;
	int rc = 0, n, ms;

	ct->polling = true;
	while (!pred(ct, arg) && !ct->broken) {
		/* Replies already queued first: their invalidations are
		 * then awaited together. */
		if (ct->inv_pending && !rpcrdma_ep_rx_pending(ep)) {
			/* The flush drops the lock for as long as the
			 * invalidations take: callers already answered go
			 * first. */
			ct_post_wakes(ct);
			ct_flush_invalidations(ct);
			continue;
		}
		ms = ct->inv_pending ? 0 : xprt_ms_left(dl);
		spin = ct_spin_us(ct, pred, arg);
		nwake = ct->nwake;
		memcpy(wake, ct->wakeq, nwake * sizeof(wake[0]));
		ct->nwake = 0;
		pthread_mutex_unlock(&ct->lock);
		/* Their slots stay (ct_free needs every caller gone): a
		 * wake-up after its caller left is one spurious wake-up of
		 * the slot's next owner, which looks and sleeps again. */
		for (uint32_t i = 0; i < nwake; i++)
			sem_post(&wake[i]->wake);
		n = rpcrdma_ep_poll_spin(ep, &rx, ms, spin);
		pthread_mutex_lock(&ct->lock);
		if (n > 0) {
			ct->defer_wake = true;
			ct_dispatch(ct, &rx);
			ct->defer_wake = false;
			/* A peer that keeps messages coming must not hold
			 * the poller past its deadline. */
			if (!pred(ct, arg) && xprt_ms_left(dl) <= 0) {
				rc = -ETIMEDOUT;
				break;
			}
		} else if (n == 0) {
			if (ms == 0 && !ct->inv_pending) {
				rc = -ETIMEDOUT;
				break;
			}
		} else {
			ct_break(ct);
			break;
		}
	}
	ct_post_wakes(ct);
	if (ct->inv_pending && !ct->broken)
		ct_flush_invalidations(ct);
	ct_poller_leave(ct);
	return rc;
}

/*
 * Waits (ct->lock held) until pred holds: 0, -ETIMEDOUT or -ENOTCONN.
 * A caller waiting for its reply takes the free poller role. One waiting
 * for a credit does so only when no call has an owner (all in flight
 * were abandoned): otherwise an owner polls, and the credit comes back
 * when that owner frees its slot, an event ep_poll would not notice.
 */
int ct_wait(struct ct *ct, ct_pred pred, void *arg,
		   const struct timespec *dl, bool for_credit)
{
	/* A caller waiting for its reply sleeps on its slot's semaphore. */
	struct ct_slot *s = pred == pred_slot_done ? arg : NULL;
	int rc;

	for (;;) {
		if (pred(ct, arg))
			return 0;
		if (ct->broken || !ct->ep)
			return -ENOTCONN;
		if (!ct->polling && ct->credits.inflight > 0 &&
		    (!for_credit || ct->ep_users == 0)) {
			rc = ct_poll(ct, pred, arg, dl);
			if (rc)
				return pred(ct, arg) ? 0 : rc;
			continue;
		}
		if (s) {
			/* sleeping is read under the lock by whoever posts:
			 * a post made before the wait is kept by the
			 * semaphore, not lost. */
			s->sleeping = true;
			ct->nsleeping++;
			pthread_mutex_unlock(&ct->lock);
			rc = sem_clockwait(&s->wake, CLOCK_MONOTONIC, dl) ? errno
									 : 0;
			pthread_mutex_lock(&ct->lock);
			/* Woken by a poster (its reply, or the poller role
			 * handed over) even if the wait timed out meanwhile:
			 * the role may be this caller's now, and a caller
			 * that returned with it would leave the others
			 * asleep. One more turn takes it and hands it on. */
			if (!slot_wake_mark(ct, s))
				rc = 0;
		} else {
			rc = pthread_cond_timedwait(&ct->cv, &ct->lock, dl);
		}
		if (rc == ETIMEDOUT)
			return pred(ct, arg) ? 0 : -ETIMEDOUT;
	}
}

bool pred_slot_done(struct ct *ct, void *arg)
{
	(void)ct;
	return ((struct ct_slot *)arg)->state == SLOT_DONE;
}

bool pred_credit(struct ct *ct, void *arg)
{
	(void)arg;
	return ct->credits.inflight < ct->credits.granted;
}

/*
 * Answers the backward call in rx at once, from the poller (ct->lock
 * held, ct->ep live), with an accepted reply of status why and a null
 * verifier: PROG_UNAVAIL when no service is registered, SYSTEM_ERR when
 * the call cannot be queued. The server's callback then fails at once
 * instead of waiting out its timeout with a backward credit taken (RFC
 * 8167 section 5 leaves backward support to the upper layer; answering is
 * what an RPC service without the program does). The receive and Send
 * were provisioned for backward calls whether or not a service is
 * registered (RFC 8167 section 3.3). A call whose RPC header does not
 * parse, or whose XID is not its rdma_xid (section 4.1), is dropped, as
 * ct_bc_serve drops it. rdma_xid: the decoded header's xid (host order).
 */
static void ct_bc_answer_now(struct ct *ct, const struct rpcrdma_rx *rx,
			     size_t hlen, uint32_t rdma_xid,
			     enum accept_stat why)
{
	char area[2 * MAX_AUTH_BYTES];
	uint32_t buf[RPCRDMA_HDR_MIN / 4 + 6];
	struct rpcrdma_msg m;
	struct rpc_msg msg;
	struct iovec iov;
	size_t n, hlen_out;
	XDR x;
	bool ok;

	memset(&msg, 0, sizeof(msg));
	msg.rm_call.cb_cred.oa_base = area;
	msg.rm_call.cb_verf.oa_base = &area[MAX_AUTH_BYTES];
	xdrmem_create(&x, (char *)rx->data + hlen, rx->len - (u_int)hlen,
		      XDR_DECODE);
	ok = xdr_callmsg(&x, &msg) && msg.rm_xid == rdma_xid;
	XDR_DESTROY(&x);
	if (!ok) {
		CT_INC(ct, bc_calls_dropped);
		return;
	}
	CT_INC(ct, bc_calls_recv);
	memset(&msg, 0, sizeof(msg));
	msg.rm_xid = rdma_xid;
	msg.rm_direction = REPLY;
	msg.rm_reply.rp_stat = MSG_ACCEPTED;
	msg.acpted_rply.ar_verf = _null_auth;
	msg.acpted_rply.ar_stat = why;
	xdrmem_create(&x, (char *)buf + RPCRDMA_HDR_MIN,
		      sizeof(buf) - RPCRDMA_HDR_MIN, XDR_ENCODE);
	ok = xdr_replymsg(&x, &msg);
	n = RPCRDMA_HDR_MIN + XDR_GETPOS(&x);
	XDR_DESTROY(&x);
	rpcrdma_msg_init(&m, msg.rm_xid, RPCRDMA_BC_CREDITS, RPCRDMA_MSG);
	if (ok)
		ok = !rpcrdma_hdr_encode(&m, buf, RPCRDMA_HDR_MIN, &hlen_out);
	iov.iov_base = buf;
	iov.iov_len = n;
	/* The Send waits for send-queue room by itself, reaping its own
	 * completions (rarely, and within EP_SEND_WAIT_MS): nothing here
	 * needs another thread, so ct->lock may stay held. */
	if (ok && rpcrdma_ep_send(ct->ep, &iov, 1, 0) == 0) {
		CT_INC(ct, bc_replies_sent);
		CT_INC(ct, sent_msg);
		RPCRDMA_STAT_SET(ct->ep, bc_credits_granted,
				 RPCRDMA_BC_CREDITS);
	}
}

/*
 * A backward call came in (ct->lock held). With no service registered it
 * is answered PROG_UNAVAIL at once (ct_bc_answer_now). Beyond the
 * backward credits we grant it is dropped: the server broke the grant
 * (RFC 8167 section 3.1), its receive was not provisioned for it, and
 * section 3.3 lets the responder drop such a call (counted
 * bc_calls_dropped; the server's call times out, and when every backward
 * credit is held so it closes the connection). A call that cannot be
 * queued (memory) is answered SYSTEM_ERR. rdma_xid: the decoded header's
 * xid (host order).
 */
static void ct_bc_take(struct ct *ct, const struct rpcrdma_rx *rx,
		       size_t hlen, uint32_t rdma_xid)
{
	struct ct_bc *bc = ct->bc;
	uint32_t len = rx->len - (uint32_t)hlen;
	struct ct_bcall *k;

	if (!bc) {
		ct_bc_answer_now(ct, rx, hlen, rdma_xid, PROG_UNAVAIL);
		return;
	}
	if (bc->queued >= RPCRDMA_BC_CREDITS) {
		CT_INC(ct, bc_calls_dropped);
		return;
	}
	if (!(k = malloc(sizeof(*k) + len))) {
		ct_bc_answer_now(ct, rx, hlen, rdma_xid, SYSTEM_ERR);
		return;
	}
	k->next = NULL;
	k->gen = ct->gen;
	k->released = false;
	k->rdma_xid = rdma_xid;
	k->len = len;
	memcpy(k->data, rx->data + hlen, len);
	if (bc->tail)
		bc->tail->next = k;
	else
		bc->head = k;
	bc->tail = k;
	bc->queued++;
	CT_INC(ct, bc_calls_recv);
	RPCRDMA_STAT_SET(ct->ep, bc_inflight, bc->queued);
	RPCRDMA_STAT_MAX(ct->ep, bc_inflight_peak, bc->queued);
	pthread_cond_broadcast(&ct->cv);
}

/*
 * A new connection: the backward calls still queued came on the old one,
 * where alone their replies could go (RFC 8167 section 4.1 ties a reply
 * to its connection); they leave, so that the new connection's server
 * has every backward credit we grant it (ct->lock held).
 */
void ct_bc_purge(struct ct *ct)
{
	struct ct_bc *bc = ct->bc;
	struct ct_bcall *k;

	if (!bc)
		return;
	while ((k = bc->head)) {
		bc->head = k->next;
		bc->queued--;
		free(k);
	}
	bc->tail = NULL;
}

/* Decodes no results: xdr_replymsg's placeholder for them. */
static bool_t ct_xdr_void(XDR *xdrs, ...)
{
	(void)xdrs;
	return TRUE;
}

/* Decodes the reply in the slot (RPC message in s->reply_buf). */
enum clnt_stat ct_decode(struct ct *ct, struct ct_slot *s,
				xdrproc_t xres, void *resp, struct rpc_err *err,
				bool *refresh)
{
	AUTH *auth = ct->clnt.cl_auth;
	struct rpcrdma_xdrddp dd;
	struct rpc_msg reply;
	bool ddp = false;
	XDR x;

	memset(&reply, 0, sizeof(reply));
	reply.acpted_rply.ar_verf = _null_auth;
	reply.acpted_rply.ar_results.where = NULL;
	reply.acpted_rply.ar_results.proc = ct_xdr_void;
	for (uint32_t i = 0; i < s->nwrites; i++) {
		dd.chunks[i].data = slot_write_area(s, i);
		dd.chunks[i].len = s->wlen[i];
		ddp |= s->wlen[i] != 0;
	}
	dd.n = s->nwrites;
	if (ddp &&
	    rpcrdma_xdrddp_create(&x, &dd, s->reply_buf, s->reply_len,
				  ct->opts.ddp_threshold)) {
		err->re_status = RPC_CANTDECODERES;
		return err->re_status;
	} else if (!ddp)
		xdrmem_create(&x, (char *)s->reply_buf, s->reply_len,
			      XDR_DECODE);
	if (!xdr_replymsg(&x, &reply) || reply.rm_xid != s->xid) {
		err->re_status = RPC_CANTDECODERES;
		goto out;
	}
	_seterr_reply(&reply, err);
	if (err->re_status == RPC_SUCCESS) {
		bool stateless = ct_auth_stateless(auth);

		pthread_mutex_lock(&ct->auth_lock);
		if (!AUTH_VALIDATE(auth, &reply.acpted_rply.ar_verf)) {
			err->re_status = RPC_AUTHERROR;
			err->re_why = AUTH_INVALIDRESP;
		}
		if (stateless)
			pthread_mutex_unlock(&ct->auth_lock);
		if (err->re_status == RPC_SUCCESS &&
		    !AUTH_UNWRAP(auth, &x, xres, resp))
			err->re_status = RPC_CANTDECODERES;
		if (err->re_status == RPC_SUCCESS && ddp &&
		    !rpcrdma_xdrddp_done(&dd)) {
			/* Returned bytes the results did not take: not the
			 * reply to this call's XDR. What was decoded goes
			 * (libtirpc callers free nothing after a failure). */
			xdr_free(xres, resp);
			err->re_status = RPC_CANTDECODERES;
		}
		if (!stateless)
			pthread_mutex_unlock(&ct->auth_lock);
	} else if (err->re_status == RPC_AUTHERROR) {
		pthread_mutex_lock(&ct->auth_lock);
		*refresh = AUTH_REFRESH(auth, &reply);
		pthread_mutex_unlock(&ct->auth_lock);
	}
	if (reply.acpted_rply.ar_verf.oa_base) {
		x.x_op = XDR_FREE;
		(void)xdr_opaque_auth(&x, &reply.acpted_rply.ar_verf);
	}
out:
	XDR_DESTROY(&x);
	return err->re_status;
}
