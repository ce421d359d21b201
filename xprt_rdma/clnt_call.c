/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One call's orchestration (ct_call_once, for clnt_rdma_call): its steps
 * connect (a live connection, a credit and a slot), prepare (the call
 * encoded), send (clnt_marshal.c's steps, then the Send), wait (for the
 * reply, or the call is abandoned) and finish (the slot's outcome, the
 * reply decoded), and the outcome as a clnt_stat and re_errno, set in
 * one place (ct_call_stat) from where the call failed and its -errno.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <arpa/inet.h>
#include "clnt.h"

void ct_when_take(struct ct *ct, struct ct_when *w)
{
	struct timeval tv;

	if (w->set)
		return;
	tv = ct->wait_set || !xprt_timeval_ok(&w->timeout) ? ct->wait
							   : w->timeout;
	w->now_us = xprt_deadline_after(&w->dl, &tv);
	w->set = true;
}

/* Takes a credit and a slot (ct->lock held). */
static int ct_get_slot(struct ct *ct, const struct timespec *dl,
		       struct ct_slot **out)
{
	bool waited = false;
	int rc;

	while (!rpcrdma_req_credits_get(&ct->credits)) {
		if (!waited) {
			CT_INC(ct, credit_waits);
			waited = true;
		}
		rc = ct_wait(ct, pred_credit, NULL, dl, true);
		if (rc == -ETIMEDOUT && ct->ep_users == 0 &&
		    ct->credits.inflight > 0)
			ct_break(ct); /* all held by abandoned calls */
		if (rc)
			return rc;
	}
	if (ct->broken) {
		/* Reset while waiting (ct_break closed the QP, which woke
		 * the poller): a credit of the old connection sends nothing;
		 * the caller reconnects. */
		rpcrdma_req_credits_put(&ct->credits);
		return -ENOTCONN;
	}
	RPCRDMA_STAT_MAX(ct->ep, inflight_peak, ct->credits.peak);
	for (uint32_t i = 0; i < ct->nslots; i++) {
		if (ct->slots[i].state == SLOT_FREE) {
			ct->slots[i].state = SLOT_OWNED;
			ct->ep_users++;
			*out = &ct->slots[i];
			return 0;
		}
	}
	/* Cannot happen: slots == credit maximum. */
	rpcrdma_req_credits_put(&ct->credits);
	return -ENOSPC;
}

/*
 * Where a call failed: with the -errno its step returned, all that
 * ct_call_stat needs to give the caller its clnt_stat and re_errno.
 */
enum ct_fail {
	CT_FAIL_CONNECT, /* ct_ensure_conn */
	CT_FAIL_SLOT,	 /* ct_get_slot */
	CT_FAIL_MEMORY,	 /* slot_prepare, ct_expose_items,
			  * ct_expose_regs */
	CT_FAIL_ENCODE,	 /* ct_encode, ct_plan_call, ct_plan_reply,
			  * ct_encode_hdr */
	CT_FAIL_SEND,	 /* R not kept (-EAGAIN), ct_post */
	CT_FAIL_WAIT,	 /* abandoned (-ETIMEDOUT) */
	CT_FAIL_REPLY,	 /* the slot's outcome, s->err */
};

/* One call, from step to step of ct_call_once. */
struct ct_call {
	struct ct *ct;
	rpcproc_t proc;
	xdrproc_t xargs, xres;
	void *argsp, *resp;
	struct ct_when *when;
	const struct timespec *dl; /* &when->dl, once taken */
	uint64_t now_us;       /* when the deadline was taken */
	uint8_t callhdr[CT_CALLHDR_LEN]; /* with the XID */
	struct rpc_err *err;
	struct ct_limit *lim;
	bool *refresh;
	enum ct_fail fail;     /* where it failed, with its -errno */
	uint32_t rdma_err;     /* with -EPROTO: the RDMA_ERROR code */
	enum clnt_stat st;     /* the decoded reply's status */
	struct rpcrdma_ep *ep; /* set by ct_call_connect */
	struct ct_slot *s;     /* likewise */
};

/* Connect: a live connection, a credit and a slot, the call's XID and
 * hints. 0 with the slot taken, or -errno (ct->lock not held). */
static int ct_call_connect(struct ct_call *c)
{
	struct ct *ct = c->ct;
	struct ct_slot *s;
	uint32_t i;
	int rc;

	pthread_mutex_lock(&ct->lock);
	ct_when_take(ct, c->when);
	c->dl = &c->when->dl;
	c->now_us = c->when->now_us;
	for (;;) {
		rc = ct_ensure_conn(ct, c->dl, c->now_us);
		if (rc) {
			if (rc == -EDQUOT) /* its buffers' registration */
				ct_limit_memlock(c->lim);
			c->fail = CT_FAIL_CONNECT;
			goto out_unlock;
		}
		rc = ct_get_slot(ct, c->dl, &c->s);
		if (rc == -ENOTCONN)
			continue; /* broke while waiting: reconnect */
		if (rc) {
			c->fail = CT_FAIL_SLOT;
			goto out_unlock;
		}
		break;
	}
	s = c->s;
	c->ep = ct->ep;
	s->xid = ct_next_xid(ct, s);
	ct->last_xid = s->xid;
	memcpy(c->callhdr, ct->callhdr, sizeof(c->callhdr));
	{
		uint32_t nxid = htonl(s->xid);

		memcpy(c->callhdr, &nxid, sizeof(nxid));
	}
	s->reply_hint = ct_reply_hint(ct, c->proc);
	i = ct_hint_index(ct, c->proc);
	s->ddp_items = i < ct->nhints && ct->opts.ddp_threshold
			   ? ct->hints[i].ddp_items
			   : 0;
	s->ddp_max = s->ddp_items ? ct->hints[i].ddp_max : 0;
out_unlock:
	pthread_mutex_unlock(&ct->lock);
	return rc;
}

/* Prepare: the slot's buffers, the call encoded into them. */
static int ct_call_prepare(struct ct_call *c)
{
	struct ct_slot *s = c->s;
	int rc;

	rc = slot_prepare(c->ct, s);
	if (rc) {
		c->fail = CT_FAIL_MEMORY;
		return rc;
	}
	if (!ct_encode(c->ct, s, c->callhdr, c->proc, c->xargs, c->argsp)) {
		c->fail = CT_FAIL_ENCODE;
		if (rpcrdma_xdrgrow_over(&s->xdr)) {
			c->lim->kind = CT_LIM_CALL;
			c->lim->bytes = RPCRDMA_CALL_MAX;
		}
		return -EMSGSIZE;
	}
	return 0;
}

/* Notes where the call failed with rc. */
static int ct_call_failed(struct ct_call *c, enum ct_fail fail, int rc)
{
	c->fail = fail;
	return rc;
}

/*
 * Send: the steps of the kernel's rpcrdma_marshal_req (clnt_marshal.c),
 * then the Send. -EAGAIN: nothing was sent, the connection was reset to
 * drop a promise (R) it could not keep.
 */
static int ct_call_send(struct ct_call *c)
{
	/* Not zeroed (2 KiB: about 260 of a NULL call's 6,000 user
	 * instructions when it was, in ct_call_once's initializer): each
	 * step below writes what the next reads. */
	struct ct_marshal marshal, *mm = &marshal;
	struct rpcrdma_ep *ep = c->ep;
	struct ct_slot *s = c->s;
	struct ct *ct = c->ct;
	size_t len;
	int rc;

	rc = ct_plan_call(ct, ep, s, mm);
	if (rc)
		return ct_call_failed(c, CT_FAIL_ENCODE, rc);
	s->call_chunked = mm->plan.kind != RPCRDMA_CALL_INLINE;
	(void)rpcrdma_xdrgrow_buf(&s->xdr, &len); /* before any gather */
	s->call_len = (uint32_t)len;
	rc = ct_expose_items(ct, ep, s, mm);
	if (rc)
		return ct_call_failed(c, CT_FAIL_MEMORY, rc);
	rc = ct_plan_reply(ct, ep, s, mm);
	if (rc)
		return ct_call_failed(c, CT_FAIL_ENCODE, rc);
	for (;;) {
		rc = ct_expose_windows(ct, ep, s, mm);
		if (!rc)
			rc = ct_expose_regs(ep, s, mm);
		if (rc != -EDQUOT)
			break;
		/* The locked-memory limit: what this CLIENT's other calls
		 * pin, given back or awaited (both steps keep what they
		 * made already, unless ct_pin_wait gave it back). */
		rc = ct_pin_wait(ct, s, c->dl);
		if (rc)
			break;
		CT_INC(ct, memlock_waits);
	}
	if (rc == -EAGAIN) {
		/* No window to expose where R promised one: this connection
		 * cannot carry the call; the next one will not promise. */
		ct_unpromise(ct);
		return ct_call_failed(c, CT_FAIL_SEND, -EAGAIN);
	}
	if (rc == -EDQUOT) {
		CT_INC(ct, memlock_refusals);
		ct_limit_memlock(c->lim);
	}
	if (rc)
		return ct_call_failed(c, rc == -ETIMEDOUT ? CT_FAIL_SLOT
							   : CT_FAIL_MEMORY,
				      rc);
	rc = ct_encode_hdr(ct, s, mm);
	if (rc)
		return ct_call_failed(c, CT_FAIL_ENCODE, rc);
	rc = ct_post(ct, ep, s, mm, c->dl);
	if (rc)
		return ct_call_failed(c, CT_FAIL_SEND, rc);
	return 0;
}

/*
 * Wait: for the reply, the connection's end or the deadline. -ETIMEDOUT:
 * the call is abandoned, its slot no longer ours (its credit stays taken
 * until the reply shows up or the connection is reset; the memory is
 * revoked now).
 */
static int ct_call_wait(struct ct_call *c)
{
	struct ct_slot *s = c->s;
	struct ct *ct = c->ct;
	int rc;

	pthread_mutex_lock(&ct->lock);
	rc = ct_wait(ct, pred_slot_done, s, c->dl, false);
	if (rc == CT_WAIT_DONE_UNLOCKED)
		return 0;
	if (rc == -ETIMEDOUT && s->state == SLOT_WAITING) {
		s->state = SLOT_ABANDONED;
		ct_abandon(ct, s);
		ct->ep_users--;
		ct_cv_broadcast(ct);
		pthread_mutex_unlock(&ct->lock);
		return ct_call_failed(c, CT_FAIL_WAIT, -ETIMEDOUT);
	}
	/* A reset completed the slot while the poller still waits on its
	 * windows: they are freed only after that. */
	while (s->flushing)
		ct_cv_wait(ct, NULL);
	pthread_mutex_unlock(&ct->lock);
	return 0;
}

/* What s's call sent and offered, for the text of the limit it met. */
static void ct_limit_offer(struct ct *ct, const struct ct_slot *s,
			   struct ct_limit *lim, enum ct_limit_kind kind)
{
	lim->kind = kind;
	/* Write chunks sit behind the reply area: wbase is the room for
	 * the rest of the reply. */
	lim->bytes = s->nwrites ? s->wbase : s->reply_chunk;
	lim->hint = s->reply_hint;
	lim->call = s->call_len;
	lim->call_chunked = s->call_chunked;
	lim->inline_recv = ct->opts.inline_recv;
	lim->max_msg = ct->opts.max_msg;
}

/* Finish: the slot's outcome, then the reply decoded. */
static int ct_call_finish(struct ct_call *c)
{
	struct ct_slot *s = c->s;
	struct ct_limit *lim = c->lim;
	int rc = 0;

	/* Done, or the connection broke (ct_break completed the slot). */
	if (s->state != SLOT_DONE || s->err == -ENOTCONN) {
		rc = -ENOTCONN;
	} else if (s->err == -EPROTO) {
		/* RDMA_ERROR: its code kept past the slot's release. */
		rc = -EPROTO;
		c->rdma_err = s->rdma_err;
		ct_limit_offer(c->ct, s, lim,
			       s->rdma_err == RPCRDMA_ERR_VERS
				   ? CT_LIM_ERR_VERS
				   : CT_LIM_ERR_CHUNK);
	} else if (s->err) {
		rc = s->err;
		ct_limit_offer(c->ct, s, lim, CT_LIM_REPLY);
	}
	slot_dereg(s);
	if (rc)
		return ct_call_failed(c, CT_FAIL_REPLY, rc);
	c->st = ct_decode(c->ct, s, c->xres, c->resp, c->err, c->refresh);
	return 0;
}

/* The CLIENT's last error (ct->lock held). */
static void ct_keep_error(struct ct *ct, const struct rpc_err *err,
			  const struct ct_limit *lim)
{
	ct->error = *err;
	ct->limit = *lim;
}

/* Gives the call's slot back with its credit; with err, keeps it as the
 * CLIENT's last error under the same lock. */
static void ct_call_release(struct ct_call *c, const struct rpc_err *err)
{
	slot_dereg(c->s);
	pthread_mutex_lock(&c->ct->lock);
	slot_free(c->ct, c->s);
	if (err)
		ct_keep_error(c->ct, err, c->lim);
	pthread_mutex_unlock(&c->ct->lock);
}

/*
 * The boundary: the clnt_stat and rpc_err of a call that failed at
 * c->fail with -errno rc (RDMA_ERROR: -EPROTO and c->rdma_err). The one
 * place a transport failure becomes a clnt_stat; re_errno is the errno
 * unless said otherwise.
 *
 *   where            errno                 clnt_stat
 *   CT_FAIL_CONNECT  ETIMEDOUT             RPC_TIMEDOUT
 *                    any other             RPC_CANTSEND
 *   CT_FAIL_SLOT     ETIMEDOUT             RPC_TIMEDOUT
 *                    any other (ENOSPC)    RPC_SYSTEMERROR
 *   CT_FAIL_MEMORY   any                   RPC_SYSTEMERROR
 *   CT_FAIL_ENCODE   any (EMSGSIZE, ...)   RPC_CANTENCODEARGS
 *   CT_FAIL_SEND     any (EAGAIN, ...)     RPC_CANTSEND
 *   CT_FAIL_WAIT     ETIMEDOUT             RPC_TIMEDOUT, re_errno 0
 *   CT_FAIL_REPLY    ENOTCONN              RPC_CANTRECV
 *                    EPROTO                xprt_rdma_err_stat(rdma_err):
 *                                          RPC_SYSTEMERROR/EPROTONOSUPPORT
 *                                          or RPC_CANTDECODEARGS/EBADMSG
 *                    any other (EBADMSG)   RPC_CANTDECODERES
 *
 * The place matters, not only the errno: the engine's Send and connect
 * pass their own errnos through (ETIMEDOUT, ENOTCONN, EMSGSIZE, ENOMEM,
 * EINVAL...), which other places give other statuses.
 */
static enum clnt_stat ct_call_stat(const struct ct_call *c, int rc,
				   struct rpc_err *err)
{
	enum clnt_stat st;
	int eno = -rc;

	switch (c->fail) {
	case CT_FAIL_CONNECT:
		st = rc == -ETIMEDOUT ? RPC_TIMEDOUT : RPC_CANTSEND;
		break;
	case CT_FAIL_SLOT:
		st = rc == -ETIMEDOUT ? RPC_TIMEDOUT : RPC_SYSTEMERROR;
		break;
	case CT_FAIL_MEMORY:
		st = RPC_SYSTEMERROR;
		break;
	case CT_FAIL_ENCODE:
		st = RPC_CANTENCODEARGS;
		break;
	case CT_FAIL_SEND:
		st = RPC_CANTSEND;
		break;
	case CT_FAIL_WAIT:
		st = RPC_TIMEDOUT;
		eno = 0;
		break;
	default: /* CT_FAIL_REPLY */
		if (rc == -ENOTCONN)
			st = RPC_CANTRECV;
		else if (rc == -EPROTO)
			st = xprt_rdma_err_stat(c->rdma_err, &eno);
		else
			st = RPC_CANTDECODERES;
		break;
	}
	/* The locked-memory limit: its own text (clnt_sperror), and the
	 * errno the kernel gives for it. */
	if (eno == EDQUOT)
		eno = ENOMEM;
	memset(err, 0, sizeof(*err));
	err->re_status = st;
	err->re_errno = eno;
	return st;
}

/* The stat of a call that failed at c->fail with rc, kept as the
 * CLIENT's last error (the slot already given back or abandoned). */
static enum clnt_stat ct_call_fail_keep(struct ct_call *c, int rc,
					struct rpc_err *err)
{
	enum clnt_stat st = ct_call_stat(c, rc, err);

	pthread_mutex_lock(&c->ct->lock);
	ct_keep_error(c->ct, err, c->lim);
	pthread_mutex_unlock(&c->ct->lock);
	return st;
}

enum clnt_stat ct_call_once(struct ct *ct, rpcproc_t proc, xdrproc_t xargs,
			    void *argsp, xdrproc_t xres, void *resp,
			    struct ct_when *w, struct rpc_err *err,
			    struct ct_limit *lim, bool *refresh)
{
	struct ct_call c = {
	    .ct = ct,
	    .proc = proc,
	    .xargs = xargs,
	    .argsp = argsp,
	    .xres = xres,
	    .resp = resp,
	    .when = w,
	    .err = err,
	    .lim = lim,
	    .refresh = refresh,
	    .st = RPC_SUCCESS,
	};
	bool retried = false;
	enum clnt_stat st;
	int rc;

	memset(err, 0, sizeof(*err));
retry:
	rc = ct_call_connect(&c);
	if (rc) /* no slot */
		return ct_call_fail_keep(&c, rc, err);
	rc = ct_call_prepare(&c);
	if (!rc) {
		rc = ct_call_send(&c);
		if (rc == -EAGAIN && !retried) {
			/* Nothing was sent: once more on a new one. */
			retried = true;
			ct_call_release(&c, NULL);
			goto retry;
		}
	}
	if (!rc) {
		rc = ct_call_wait(&c);
		if (rc) /* abandoned: the slot is no longer ours */
			return ct_call_fail_keep(&c, rc, err);
		rc = ct_call_finish(&c);
	}
	st = rc ? ct_call_stat(&c, rc, err) : c.st;
	ct_call_release(&c, err);
	return st;
}
