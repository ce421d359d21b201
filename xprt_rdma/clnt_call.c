/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One call's orchestration (ct_call_once, for clnt_rdma_call): its steps
 * connect (a live connection, a credit and a slot), prepare (the call
 * encoded), send (clnt_marshal.c's steps, then the Send), wait (for the
 * reply, or the call is abandoned) and finish (the slot's outcome, the
 * reply decoded), and the outcome as a clnt_stat and re_errno.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include "clnt.h"

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

static void err_from_errno(struct rpc_err *err, enum clnt_stat st, int rc)
{
	memset(err, 0, sizeof(*err));
	err->re_status = st;
	err->re_errno = rc < 0 ? -rc : rc;
}

/* One call, from step to step of ct_call_once. */
struct ct_call {
	struct ct *ct;
	rpcproc_t proc;
	xdrproc_t xargs, xres;
	void *argsp, *resp;
	const struct timespec *dl;
	struct rpc_err *err;
	struct ct_limit *lim;
	bool *refresh;
	enum clnt_stat st;     /* the outcome */
	struct rpcrdma_ep *ep; /* set by ct_call_connect */
	struct ct_slot *s;     /* likewise */
	struct ct_marshal mm;
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
	for (;;) {
		rc = ct_ensure_conn(ct, c->dl);
		if (rc) {
			c->st = rc == -ETIMEDOUT ? RPC_TIMEDOUT : RPC_CANTSEND;
			goto out_unlock;
		}
		rc = ct_get_slot(ct, c->dl, &c->s);
		if (rc == -ENOTCONN)
			continue; /* broke while waiting: reconnect */
		if (rc) {
			c->st =
			    rc == -ETIMEDOUT ? RPC_TIMEDOUT : RPC_SYSTEMERROR;
			goto out_unlock;
		}
		break;
	}
	s = c->s;
	c->ep = ct->ep;
	s->xid = atomic_fetch_add(&ct->next_xid, 1);
	ct->last_xid = s->xid;
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
		c->st = RPC_SYSTEMERROR;
		return rc;
	}
	if (!ct_encode(c->ct, s, s->xid, c->proc, c->xargs, c->argsp)) {
		c->st = RPC_CANTENCODEARGS;
		if (rpcrdma_xdrgrow_over(&s->xdr)) {
			c->lim->kind = CT_LIM_CALL;
			c->lim->bytes = RPCRDMA_CALL_MAX;
		}
		return -EMSGSIZE;
	}
	return 0;
}

/* Sets the call's outcome st for a step that failed with rc. */
static int ct_call_failed(struct ct_call *c, enum clnt_stat st, int rc)
{
	c->st = st;
	return rc;
}

/*
 * Send: the steps of the kernel's rpcrdma_marshal_req (clnt_marshal.c),
 * then the Send. -EAGAIN: nothing was sent, the connection was reset to
 * drop a promise (R) it could not keep.
 */
static int ct_call_send(struct ct_call *c)
{
	struct ct_marshal *mm = &c->mm;
	struct rpcrdma_ep *ep = c->ep;
	struct ct_slot *s = c->s;
	struct ct *ct = c->ct;
	int rc;

	rc = ct_plan_call(ct, ep, s, mm);
	if (rc)
		return ct_call_failed(c, RPC_CANTENCODEARGS, rc);
	rc = ct_expose_items(ct, ep, s, mm);
	if (rc)
		return ct_call_failed(c, RPC_SYSTEMERROR, rc);
	rc = ct_plan_reply(ct, ep, s, mm);
	if (rc)
		return ct_call_failed(c, RPC_CANTENCODEARGS, rc);
	if (!ct_expose_windows(ct, ep, s, mm)) {
		/* No window to expose where R promised one: this connection
		 * cannot carry the call; the next one will not promise. */
		ct_unpromise(ct);
		return ct_call_failed(c, RPC_CANTSEND, -EAGAIN);
	}
	rc = ct_expose_regs(ep, s, mm);
	if (rc)
		return ct_call_failed(c, RPC_SYSTEMERROR, rc);
	rc = ct_encode_hdr(ct, s, mm);
	if (rc)
		return ct_call_failed(c, RPC_CANTENCODEARGS, rc);
	rc = ct_post(ct, ep, s, mm);
	if (rc)
		return ct_call_failed(c, RPC_CANTSEND, rc);
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
	if (rc == -ETIMEDOUT && s->state == SLOT_WAITING) {
		s->state = SLOT_ABANDONED;
		ct_abandon(ct, s);
		ct->ep_users--;
		pthread_cond_broadcast(&ct->cv);
		pthread_mutex_unlock(&ct->lock);
		return -ETIMEDOUT;
	}
	/* A reset completed the slot while the poller still waits on its
	 * windows: they are freed only after that. */
	while (s->flushing)
		pthread_cond_wait(&ct->cv, &ct->lock);
	pthread_mutex_unlock(&ct->lock);
	return 0;
}

/* Finish: the slot's outcome, then the reply decoded. */
static int ct_call_finish(struct ct_call *c)
{
	struct ct_slot *s = c->s;
	struct ct_limit *lim = c->lim;
	int rc = 0;

	/* Done, or the connection broke (ct_break completed the slot). */
	if (s->state != SLOT_DONE || s->err == -ENOTCONN) {
		c->st = RPC_CANTRECV;
		rc = -ENOTCONN;
	} else if (s->err == -EPROTO) {
		/* RDMA_ERROR: its one mapping (tirpc.c). */
		int eno;

		c->st = xprt_rdma_err_stat(s->rdma_err, &eno);
		rc = -eno;
		lim->kind = s->rdma_err == RPCRDMA_ERR_VERS ? CT_LIM_ERR_VERS
							    : CT_LIM_ERR_CHUNK;
		lim->bytes = s->nwrites ? s->wbase : s->reply_chunk;
	} else if (s->err) {
		c->st = RPC_CANTDECODERES;
		rc = s->err;
		lim->kind = CT_LIM_REPLY;
		lim->bytes = s->nwrites ? s->wbase : s->reply_chunk;
	}
	slot_dereg(s);
	if (rc)
		return rc;
	c->st = ct_decode(c->ct, s, c->xres, c->resp, c->err, c->refresh);
	return 0;
}

/* Gives the call's slot back with its credit. */
static void ct_call_release(struct ct_call *c)
{
	slot_dereg(c->s);
	pthread_mutex_lock(&c->ct->lock);
	slot_free(c->ct, c->s);
	pthread_mutex_unlock(&c->ct->lock);
}

enum clnt_stat ct_call_once(struct ct *ct, rpcproc_t proc, xdrproc_t xargs,
			    void *argsp, xdrproc_t xres, void *resp,
			    const struct timespec *dl, struct rpc_err *err,
			    struct ct_limit *lim, bool *refresh)
{
	struct ct_call c = {
	    .ct = ct,
	    .proc = proc,
	    .xargs = xargs,
	    .argsp = argsp,
	    .xres = xres,
	    .resp = resp,
	    .dl = dl,
	    .err = err,
	    .lim = lim,
	    .refresh = refresh,
	    .st = RPC_SUCCESS,
	};
	bool retried = false;
	int rc;

	memset(err, 0, sizeof(*err));
retry:
	rc = ct_call_connect(&c);
	if (rc)
		goto out;
	rc = ct_call_prepare(&c);
	if (!rc) {
		rc = ct_call_send(&c);
		if (rc == -EAGAIN && !retried) {
			/* Nothing was sent: once more on a new one. */
			retried = true;
			ct_call_release(&c);
			c.st = RPC_SUCCESS;
			goto retry;
		}
	}
	if (!rc) {
		if (ct_call_wait(&c) == -ETIMEDOUT) {
			err->re_status = RPC_TIMEDOUT;
			return RPC_TIMEDOUT;
		}
		rc = ct_call_finish(&c);
	}
	ct_call_release(&c);
out:
	if (rc)
		err_from_errno(err, c.st, rc);
	return c.st;
}
