/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE	/* sem_clockwait */
/*
 * The receive side: the poller role and what it does with each message.
 * ct_poll and ct_wait hold the role for a waiting caller; ct_dispatch
 * hands each message to its slot, or to the backward inbox, as
 * lib/recv.c decides from its bytes and the call's offer (the header, a
 * reply's chunk lists against the offer, its length against the room:
 * RFC 8166 sections 3.4.6 and 3.5.4, proven by check and fuzzed by
 * tests/fuzz/fuzz_clntreply.c); clnt_decode.c's ct_decode turns a slot's
 * reply into the caller's results. A backward call goes to the backward inbox
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
#include "lib/recv.h"

/* --- receive side: the poller --- */

static void ct_bc_take(struct ct *ct, const struct rpcrdma_rx *rx,
		       size_t hlen, uint32_t rdma_xid);
static void ct_bc_send_answers(struct ct *ct, struct rpcrdma_ep *ep);

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
static uint32_t ct_spin_us(const struct ct *ct, ct_pred pred, void *arg,
			   uint64_t now_us)
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
				((const struct ct_slot *)arg)->sent_us, now_us);
}

/*
 * Hands one received message to its call (ct->lock held). What the
 * message is (rpcrdma_req_recv) and what its call takes of it
 * (rpcrdma_req_take_reply: the reply against the call's offer, RFC 8166
 * sections 3.4.6 and 3.5.4) are decided from the bytes and the offer
 * alone (lib/recv.c); here are the slot, credits, counters and wakes.
 */
static void ct_dispatch(struct ct *ct, struct rpcrdma_rx *rx)
{
	struct rpcrdma_msg *m = &ct->rxmsg;
	enum rpcrdma_req_kind kind;
	struct rpcrdma_req_verdict v;
	struct rpcrdma_req_offer o;
	struct ct_slot *s;
	size_t hlen = 0;

	kind = rpcrdma_req_recv(rx->data, rx->len, &ct->limits, m, &hlen);
	if (kind == RPCRDMA_REQ_RUNT) {
		CT_INC(ct, bad_headers);
		ct_revoke(ct, NULL, rx);
		goto out;
	}
	if (kind == RPCRDMA_REQ_BAD) {
		CT_INC(ct, bad_headers);
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
	/* A backward-direction call (RFC 8167 section 4) goes to the
	 * backward service (ct_bc_take) without touching forward credits
	 * or calls. */
	if (kind == RPCRDMA_REQ_BC_CALL) {
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
	/* What the call offered; the lengths written into its write chunks
	 * go to s->wlen. */
	o.wsegs = s->wsegs;
	o.nwrites = s->nwrites;
	o.reply_seg = s->reply_chunk ? &s->reply_seg : NULL;
	o.reply_chunk = s->reply_chunk;
	o.inline_cap = s->nwrites ? s->wbase : s->reply_cap;
	rpcrdma_req_take_reply(m, hlen, rx->len, &o, s->wlen, &v);
	if (v.nwritten)
		CT_INC(ct, replies_write_chunks);
	switch (v.action) {
	case RPCRDMA_REQ_INLINE:
		memcpy(s->reply_buf, rx->data + hlen, (size_t)v.len);
		s->reply_len = (uint32_t)v.len;
		CT_INC(ct, replies_inline);
		slot_finish(ct, s, 0);
		break;
	case RPCRDMA_REQ_LONG:
		s->reply_len = (uint32_t)v.len;
		CT_INC(ct, replies_long);
		slot_finish(ct, s, 0);
		break;
	case RPCRDMA_REQ_RDMA_ERROR:
		s->rdma_err = v.err;
		slot_finish(ct, s, -EPROTO);
		break;
	case RPCRDMA_REQ_BADMSG:
		/* Before any byte of the reply is used. */
		slot_finish(ct, s, -EBADMSG);
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
	uint64_t now;
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
		/* Backward calls answered at once: sent without the lock
		 * as far as the send queue has room now; those left are
		 * tried again within CT_BC_RETRY_MS, polling meanwhile. */
		if (ct->bc_nans) {
			ct_post_wakes(ct);
			ct_bc_send_answers(ct, ep);
			if (pred(ct, arg) || ct->broken)
				break;
		}
		now = xprt_now_us();	/* one clock read for both */
		ms = ct->inv_pending ? 0 : xprt_ms_left_at(dl, now);
		if (ct->bc_nans && ms > CT_BC_RETRY_MS)
			ms = CT_BC_RETRY_MS;
		spin = ct_spin_us(ct, pred, arg, now);
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
	/* Answers queued by the last dispatch go before the role does:
	 * no caller may be polling after this one. */
	if (ct->bc_nans && !ct->broken)
		ct_bc_send_answers(ct, ep);
	ct_poller_leave(ct);
	return rc;
}

/*
 * Waits (ct->lock held) until pred holds: 0, -ETIMEDOUT or -ENOTCONN
 * with the lock held, or CT_WAIT_DONE_UNLOCKED (clnt.h). A caller waiting for its reply takes the free poller role. One waiting
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
			/* Woken with its reply in (the usual wake-up): the
			 * poster marked it awake and wrote every field of
			 * the outcome before its post; nothing more is
			 * needed of the lock, whose owner at 32 in flight
			 * is usually the poller handing out further
			 * replies. A slot still flushing is waited for
			 * under the lock (ct_call_wait). */
			if (!rc && s->state == SLOT_DONE &&
			    !__atomic_load_n(&s->flushing, __ATOMIC_ACQUIRE))
				return CT_WAIT_DONE_UNLOCKED;
			pthread_mutex_lock(&ct->lock);
			/* Woken by a poster (its reply, or the poller role
			 * handed over) even if the wait timed out meanwhile:
			 * the role may be this caller's now, and a caller
			 * that returned with it would leave the others
			 * asleep. One more turn takes it and hands it on. */
			if (!slot_wake_mark(ct, s))
				rc = 0;
		} else {
			rc = ct_cv_wait(ct, dl);
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
 * Answers the backward call in rx at once (ct->lock held, by the poller):
 * with an accepted reply of status why and a null verifier, PROG_UNAVAIL
 * when no service is registered, SYSTEM_ERR when the call cannot be
 * queued. The server's callback then fails at once instead of waiting
 * out its timeout with a backward credit taken (RFC 8167 section 5
 * leaves backward support to the upper layer; answering is what an RPC
 * service without the program does). The receive and Send were
 * provisioned for backward calls whether or not a service is registered
 * (RFC 8167 section 3.3). A call whose RPC header does not parse, or
 * whose XID is not its rdma_xid (section 4.1), is dropped, as
 * ct_bc_serve drops it. rdma_xid: the decoded header's xid (host order).
 *
 * The answer is only queued here: the poller sends it once it dropped
 * ct->lock (ct_bc_send_answers), and never waits for send queue room.
 * Sent under the lock, a server that stalls our Sends (rnr_retry_count 7
 * in its REP, receives never reposted) held every thread of the CLIENT
 * for up to 10 s per answer, the poller past its deadline (security
 * review 21c8dd5, finding 8). The caller checked the grant.
 */
static void ct_bc_answer_now(struct ct *ct, const struct rpcrdma_rx *rx,
			     size_t hlen, uint32_t rdma_xid,
			     enum accept_stat why)
{
	char area[2 * MAX_AUTH_BYTES];
	struct rpc_msg msg;
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
	ct->bc_ans[ct->bc_nans].xid = rdma_xid;
	ct->bc_ans[ct->bc_nans].why = why;
	ct->bc_nans++;
}

/* Sends one answer of ct_bc_answer_now if the send queue has room now:
 * 0 or the Send's -errno, -ETIMEDOUT without room (ct->lock not held). */
static int ct_bc_answer_send(struct rpcrdma_ep *ep,
			     const struct ct_bc_answer *a)
{
	uint32_t buf[RPCRDMA_HDR_MIN / 4 + 6];
	struct rpcrdma_msg m;
	struct rpc_msg msg;
	struct iovec iov;
	size_t hlen;
	XDR x;
	bool ok;
	int rc;

	memset(&msg, 0, sizeof(msg));
	msg.rm_xid = a->xid;
	msg.rm_direction = REPLY;
	msg.rm_reply.rp_stat = MSG_ACCEPTED;
	msg.acpted_rply.ar_verf = _null_auth;
	msg.acpted_rply.ar_stat = a->why;
	xdrmem_create(&x, (char *)buf + RPCRDMA_HDR_MIN,
		      sizeof(buf) - RPCRDMA_HDR_MIN, XDR_ENCODE);
	ok = xdr_replymsg(&x, &msg);
	iov.iov_base = buf;
	iov.iov_len = RPCRDMA_HDR_MIN + XDR_GETPOS(&x);
	XDR_DESTROY(&x);
	rpcrdma_msg_init(&m, a->xid, RPCRDMA_BC_CREDITS, RPCRDMA_MSG);
	if (!ok || rpcrdma_hdr_encode(&m, buf, RPCRDMA_HDR_MIN, &hlen))
		return -EINVAL;
	/* Counted before the Send, taken back if it fails: the peer may
	 * have the answer, and read our counters, before the Send
	 * returns. */
	RPCRDMA_STAT_ADD(ep, bc_replies_sent, 1);
	RPCRDMA_STAT_ADD(ep, sent_msg, 1);
	RPCRDMA_STAT_SET(ep, bc_credits_granted, RPCRDMA_BC_CREDITS);
	rc = rpcrdma_ep_send_within(ep, &iov, 1, 0, 0);
	if (rc) {
		RPCRDMA_STAT_ADD(ep, bc_replies_sent, (uint64_t)-1);
		RPCRDMA_STAT_ADD(ep, sent_msg, (uint64_t)-1);
	}
	return rc;
}

/*
 * Sends the queued answers in order, as far as the send queue has room
 * (ct->lock held, dropped meanwhile; the poller's: only the poller queues
 * them, and ep, ct->ep, cannot change while it polls). Those left wait
 * for a later look, by this poller or the next, and count against the
 * grant (ct_bc_take): a server that stalls our Sends gets its further
 * calls dropped, and no caller waits on it. Any other failure drops them:
 * the connection is going, and its answers with it (ct_bc_purge).
 */
static void ct_bc_send_answers(struct ct *ct, struct rpcrdma_ep *ep)
{
	uint32_t n = ct->bc_nans, sent = 0;
	int rc = 0;

	pthread_mutex_unlock(&ct->lock);
	while (sent < n) {
		rc = ct_bc_answer_send(ep, &ct->bc_ans[sent]);
		if (rc)
			break;
		sent++;
	}
	pthread_mutex_lock(&ct->lock);
	if (rc && rc != -ETIMEDOUT) {
		RPCRDMA_STAT_ADD(ep, bc_calls_dropped, n - sent);
		sent = n;
	}
	ct->bc_nans -= sent;
	memmove(ct->bc_ans, ct->bc_ans + sent,
		ct->bc_nans * sizeof(ct->bc_ans[0]));
}

/*
 * A backward call came in (ct->lock held). With no service registered it
 * is answered PROG_UNAVAIL at once (ct_bc_answer_now). Beyond the
 * backward credits we grant it is dropped: the server broke the grant
 * (RFC 8167 section 3.1), its receive was not provisioned for it, and
 * section 3.3 lets the responder drop such a call (counted
 * bc_calls_dropped; the server's call times out, and when every backward
 * credit is held so it closes the connection). Answers not sent yet hold
 * their credit as calls queued for the service do: a server that stalls
 * our Sends gets at most the grant of them queued. A call that cannot be
 * queued (memory) is answered SYSTEM_ERR. rdma_xid: the decoded header's
 * xid (host order).
 */
static void ct_bc_take(struct ct *ct, const struct rpcrdma_rx *rx,
		       size_t hlen, uint32_t rdma_xid)
{
	struct ct_bc *bc = ct->bc;
	uint32_t len = rx->len - (uint32_t)hlen;
	struct ct_bcall *k;

	if ((bc ? bc->queued : 0) + ct->bc_nans >= RPCRDMA_BC_CREDITS) {
		CT_INC(ct, bc_calls_dropped);
		return;
	}
	if (!bc) {
		ct_bc_answer_now(ct, rx, hlen, rdma_xid, PROG_UNAVAIL);
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
	ct_cv_broadcast(ct);
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

	ct->bc_nans = 0;	/* answers to the old connection's calls */
	if (!bc)
		return;
	while ((k = bc->head)) {
		bc->head = k->next;
		bc->queued--;
		free(k);
	}
	bc->tail = NULL;
}
