/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The backward direction (RFC 8167): the server as requester. The
 * callback CLIENT of a connection (cbc_ops, made by svc_rdma.c's
 * rpcrdma_svc_callback_create), the slots and credits it shares with the
 * connection (struct conn_bc, svc_conn.h), the answers to backward calls
 * picked out of the receive stream (conn_take_bc_answer, called by
 * svc_recv.c), and bc_wait, in which a dispatch function calling back on
 * its own connection moves that connection on itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <arpa/inet.h>
#include "lib/chunks.h"
#include "svc_conn.h"

struct conn_bc *bc_create(uint32_t recv_max)
{
	struct conn_bc *bc = calloc(1, sizeof(*bc));
	pthread_condattr_t ca;
	uint32_t i;

	if (!bc)
		return NULL;
	for (i = 0; i < RPCRDMA_BC_CREDITS; i++) {
		bc->slots[i].buf = malloc(recv_max);
		if (!bc->slots[i].buf)
			goto out_free;
	}
	if (pthread_mutex_init(&bc->lock, NULL))
		goto out_free;
	if (pthread_condattr_init(&ca))
		goto out_lock;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (pthread_cond_init(&bc->cv, &ca)) {
		pthread_condattr_destroy(&ca);
		goto out_lock;
	}
	pthread_condattr_destroy(&ca);
	bc->refs = 1;
	/* RFC 8167 section 3.1: one backward call until the client's
	 * first backward reply says how many. */
	rpcrdma_req_credits_init(&bc->cr, RPCRDMA_BC_CREDITS);
	if (getrandom(&bc->next_xid, sizeof(bc->next_xid), GRND_NONBLOCK) !=
	    sizeof(bc->next_xid))
		bc->next_xid = (uint32_t)time(NULL) * 2654435761u;
	return bc;
out_lock:
	pthread_mutex_destroy(&bc->lock);
out_free:
	for (i = 0; i < RPCRDMA_BC_CREDITS; i++)
		free(bc->slots[i].buf);
	free(bc);
	return NULL;
}

void bc_unref(struct conn_bc *bc)
{
	bool last;

	pthread_mutex_lock(&bc->lock);
	last = --bc->refs == 0;
	pthread_mutex_unlock(&bc->lock);
	if (!last)
		return;
	for (uint32_t i = 0; i < RPCRDMA_BC_CREDITS; i++)
		free(bc->slots[i].buf);
	pthread_cond_destroy(&bc->cv);
	pthread_mutex_destroy(&bc->lock);
	free(bc);
}

/* Counts backward calls outstanding (bc->lock held, bc->ep live); while
 * any is, the connection is not idle (a callback may wait longer than
 * idle_ms for its answer, with nothing of it posted or held). */
static void bc_count_inflight(struct conn_bc *bc)
{
	if (!bc->ep)
		return;
	rpcrdma_ep_set_holds(bc->ep, bc->cr.inflight);
	RPCRDMA_STAT_SET(bc->ep, bc_inflight, bc->cr.inflight);
	RPCRDMA_STAT_MAX(bc->ep, bc_inflight_peak, bc->cr.inflight);
}

/* The connection is gone: every backward call waiting fails, abandoned
 * ones are dropped (bc->lock held). */
void bc_kill_locked(struct conn_bc *bc)
{
	bc->dead = true;
	for (uint32_t i = 0; i < RPCRDMA_BC_CREDITS; i++) {
		struct bc_slot *s = &bc->slots[i];

		if (s->state == BC_WAITING) {
			s->err = -ENOTCONN;
			s->state = BC_DONE;
		} else if (s->state == BC_ABANDONED) {
			s->state = BC_FREE;
			rpcrdma_req_credits_put(&bc->cr);
		}
	}
	bc_count_inflight(bc);
	pthread_cond_broadcast(&bc->cv);
}

void bc_kill(struct conn_bc *bc)
{
	pthread_mutex_lock(&bc->lock);
	bc_kill_locked(bc);
	pthread_mutex_unlock(&bc->lock);
}

/*
 * The thread serving c is now in (or out of) a dispatch function. Read
 * only by bc_wait, to learn whether its own thread is that one: a thread
 * sees its own stores, and another's disp_thread once it has seen that
 * thread's in_dispatch (release here, acquire there), so no lock (it
 * cost two per call).
 */
void bc_dispatching(struct svc_conn *c, bool on)
{
	struct conn_bc *bc = c->bc;

	if (on)
		__atomic_store_n(&bc->disp_thread, pthread_self(),
				 __ATOMIC_RELAXED);
	__atomic_store_n(&bc->in_dispatch, on, __ATOMIC_RELEASE);
}

/* The backward call waiting for xid, or abandoned by its caller, or NULL
 * (bc->lock held). */
static struct bc_slot *bc_slot_by_xid(struct conn_bc *bc, uint32_t xid)
{
	for (uint32_t i = 0; i < RPCRDMA_BC_CREDITS; i++)
		if ((bc->slots[i].state == BC_WAITING ||
		     bc->slots[i].state == BC_ABANDONED) &&
		    bc->slots[i].xid == xid)
			return &bc->slots[i];
	return NULL;
}

/* s has its answer: 0 with len bytes of reply at data, or an error for
 * its caller (bc_err_stat); an abandoned call just frees its credit
 * (bc->lock held). */
static void bc_slot_answered(struct conn_bc *bc, struct bc_slot *s, int err,
			     const uint8_t *data, uint32_t len)
{
	if (s->state == BC_ABANDONED) {
		s->state = BC_FREE;
		rpcrdma_req_credits_put(&bc->cr);
	} else {
		if (!err)
			memcpy(s->buf, data, len);
		s->len = err ? 0 : len;
		s->err = err;
		s->state = BC_DONE;
	}
	bc_count_inflight(bc);
	pthread_cond_broadcast(&bc->cv);
}

/*
 * What a backward call's caller sees for s->err: the connection went
 * (RPC_CANTRECV); RDMA_ERROR (-EPROTO, its code in s->rdma_err) as the
 * forward CLIENT reports it (xprt_rdma_err_stat, tirpc.c); a reply that
 * cannot be taken (RPC_CANTDECODERES).
 */
static enum clnt_stat bc_err_stat(const struct bc_slot *s, int *eno)
{
	switch (s->err) {
	case -ENOTCONN:
		*eno = ENOTCONN;
		return RPC_CANTRECV;
	case -EPROTO:
		return xprt_rdma_err_stat(s->rdma_err, eno);
	default:
		*eno = -s->err;
		return RPC_CANTDECODERES;
	}
}

/* An RDMA_ERROR from the client: counted, and it fails the backward call
 * it names; never answered (RFC 8166 section 5). */
static void conn_take_bc_error(struct svc_conn *c, const struct rpcrdma_msg *m)
{
	struct conn_bc *bc = c->bc;
	struct bc_slot *s;

	conn_count_error_recv(c, m);
	pthread_mutex_lock(&bc->lock);
	s = bc_slot_by_xid(bc, m->xid);
	if (!s) {
		STAT_INC(c, replies_unmatched);
	} else {
		/* Its grant counts as a reply's does, as the forward
		 * CLIENT takes an RDMA_ERROR's. */
		rpcrdma_req_credits_update(&bc->cr, m->credits);
		RPCRDMA_STAT_SET(c->ep, bc_credits_granted, bc->cr.granted);
		s->rdma_err = m->err;
		bc_slot_answered(bc, s, -EPROTO, NULL, 0);
	}
	pthread_mutex_unlock(&bc->lock);
}

/*
 * An answer to a backward call (rpcrdma_hdr_peek_bc_answer) goes to its
 * call by XID; a reply's rdma_credit is the client's backward grant (RFC
 * 8167 section 3.1). True when rx was one (then consumed): it is never
 * taken for a forward call.
 */
bool conn_take_bc_answer(struct svc_conn *c, struct rpcrdma_rx *rx)
{
	struct rpcrdma_msg *m = &c->bchdr;
	struct conn_bc *bc = c->bc;
	struct bc_slot *s;
	uint32_t xid, len;
	size_t hlen;
	int err = 0;

	/* Cheap look first: forward calls pay no second decode. */
	if (!rpcrdma_hdr_peek_bc_answer(rx->data, rx->len))
		return false;
	if (rpcrdma_hdr_decode(rx->data, rx->len, &c->lim, m, &hlen) !=
	    RPCRDMA_HDR_OK) {
		/* Never answered: it may be an RDMA_ERROR (section 5). */
		STAT_INC(c, bad_headers);
		goto done;
	}
	if (m->proc == RPCRDMA_ERROR) {
		conn_take_bc_error(c, m);
		goto done;
	}
	STAT_INC(c, recv_msg);
	/* RFC 8166 section 4.2.1: rdma_xid repeats the RPC XID. A reply
	 * saying otherwise fails the call its rdma_xid names, if any: its
	 * results cannot be trusted to be that call's. */
	memcpy(&xid, rx->data + hlen, sizeof(xid));
	if (ntohl(xid) != m->xid) {
		STAT_INC(c, xid_mismatches);
		err = -EBADMSG;
	}
	len = rx->len - (uint32_t)hlen;
	if (!err && len > rpcrdma_ep_inline(c->ep)->recv_max)
		err = -EMSGSIZE;
	pthread_mutex_lock(&bc->lock);
	s = bc_slot_by_xid(bc, m->xid);
	if (!s) {
		if (!err || err == -EMSGSIZE)
			STAT_INC(c, replies_unmatched);
	} else {
		if (!err) {
			rpcrdma_req_credits_update(&bc->cr, m->credits);
			RPCRDMA_STAT_SET(c->ep, bc_credits_granted,
					 bc->cr.granted);
			STAT_INC(c, bc_replies_recv);
		}
		bc_slot_answered(bc, s, err, rx->data + hlen, len);
	}
	pthread_mutex_unlock(&bc->lock);
done:
	rpcrdma_ep_rx_done(c->ep, rx);
	return true;
}

/* Queued messages that are not answers to backward calls: forward
 * calls. */
bool msg_is_not_bc_answer(const uint8_t *data, uint32_t len)
{
	return !rpcrdma_hdr_peek_bc_answer(data, len);
}

/* Waits (bc->lock held) for news until dl: 0 or ETIMEDOUT. A dispatch
 * function of the connection calling back moves it on itself (bc->pump:
 * conn_pump, svc_recv.c). */
static int bc_wait(struct conn_bc *bc, const struct timespec *dl)
{
	if (__atomic_load_n(&bc->in_dispatch, __ATOMIC_ACQUIRE) && bc->c &&
	    !bc->dead &&
	    pthread_equal(__atomic_load_n(&bc->disp_thread, __ATOMIC_RELAXED),
			  pthread_self())) {
		struct svc_conn *c = bc->c;	/* ours: we serve it */
		int ms = xprt_ms_left(dl);

		if (ms <= 0)
			return ETIMEDOUT;
		pthread_mutex_unlock(&bc->lock);
		bc->pump(c, ms > 100 ? 100 : ms);
		pthread_mutex_lock(&bc->lock);
		return 0;
	}
	return pthread_cond_timedwait(&bc->cv, &bc->lock, dl);
}

static struct cbc *to_cbc(CLIENT *cl)
{
	return (struct cbc *)((char *)cl - offsetof(struct cbc, clnt));
}

/* Frees s and its credit (bc->lock held). */
static void bc_slot_free(struct conn_bc *bc, struct bc_slot *s)
{
	s->state = BC_FREE;
	rpcrdma_req_credits_put(&bc->cr);
	bc_count_inflight(bc);
	pthread_cond_broadcast(&bc->cv);
}

/*
 * A backward call was just abandoned (bc->lock held, bc->ep live). Its
 * credit stays taken: only its reply may give it back (RFC 8167 section
 * 3.1 counts backward credits as RFC 8166 section 3.3.1 counts forward
 * ones, and a reply may still come). When every call outstanding is
 * abandoned and they hold all the client's grant, no callback can ever be
 * sent on this connection again unless the client answers after all. As
 * the forward requester does in that state (clnt_rdma.c, ct_get_slot),
 * and the Linux requester on any timeout, the connection is closed: its
 * credits come back with a new connection (the client's next forward call
 * reconnects) and later callbacks fail at once (RPC_CANTSEND, ENOTCONN)
 * instead of each waiting out its timeout for a credit. The close is left
 * to the thread serving the connection (conn_close_pending), which alone
 * touches its fields: the endpoint's fd is made readable for it.
 */
static void bc_abandoned(struct conn_bc *bc)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < RPCRDMA_BC_CREDITS; i++)
		n += bc->slots[i].state == BC_ABANDONED;
	if (bc->dead || !bc->ep || n != bc->cr.inflight || n < bc->cr.granted)
		return;
	RPCRDMA_STAT_ADD(bc->ep, bc_abandoned_closes, 1);
	__atomic_store_n(&bc->close_wanted, true, __ATOMIC_RELEASE);
	rpcrdma_ep_kick(bc->ep);
	bc_kill_locked(bc);
}

/* Encodes the backward call behind room for its transport header. */
static bool cbc_encode(struct cbc *cb, XDR *x, uint32_t xid, rpcproc_t proc,
		       xdrproc_t xargs, void *argsp)
{
	AUTH *auth = cb->clnt.cl_auth;
	struct rpc_msg call;
	int32_t p = (int32_t)proc;

	memset(&call, 0, sizeof(call));
	call.rm_xid = xid;
	call.rm_direction = CALL;
	call.rm_call.cb_rpcvers = RPC_MSG_VERSION;
	call.rm_call.cb_prog = cb->prog;
	call.rm_call.cb_vers = cb->vers;
	return xdr_callhdr(x, &call) && XDR_PUTINT32(x, &p) &&
	       AUTH_MARSHALL(auth, x) && AUTH_WRAP(auth, x, xargs, argsp);
}

/*
 * RFC 8167 section 4.1: a backward call is an RDMA_MSG with every chunk
 * list empty and the whole RPC call inline, within the client's inline
 * receive threshold; its rdma_credit asks for our most backward credits.
 */
static enum clnt_stat cbc_call(CLIENT *cl, rpcproc_t proc, xdrproc_t xargs,
			       void *argsp, xdrproc_t xres, void *resp,
			       struct timeval timeout)
{
	struct cbc *cb = to_cbc(cl);
	struct conn_bc *bc = cb->bc;
	struct rpc_err err;
	struct rpcrdma_ep *ep;
	struct bc_slot *s = NULL;
	struct rpcrdma_msg m;
	struct timespec dl;
	struct timeval tv;
	enum clnt_stat st = RPC_SUCCESS;
	uint32_t xid, send_max;
	uint8_t *buf = NULL;
	struct iovec iov;
	size_t hlen;
	int e = 0, rc;
	XDR x;

	memset(&err, 0, sizeof(err));
	pthread_mutex_lock(&cb->lock);
	tv = cb->wait_set || !xprt_timeval_ok(&timeout) ? cb->wait : timeout;
	pthread_mutex_unlock(&cb->lock);
	xprt_deadline_after(&dl, &tv);

	pthread_mutex_lock(&bc->lock);
	for (;;) {
		if (bc->dead || !bc->ep) {
			st = RPC_CANTSEND;
			e = ENOTCONN;
			goto out_unlock;
		}
		if (rpcrdma_req_credits_get(&bc->cr))
			break;
		if (bc_wait(bc, &dl) == ETIMEDOUT &&
		    bc->cr.inflight >= bc->cr.granted) {
			st = RPC_TIMEDOUT;
			goto out_unlock;
		}
	}
	for (uint32_t i = 0; i < RPCRDMA_BC_CREDITS && !s; i++)
		if (bc->slots[i].state == BC_FREE)
			s = &bc->slots[i];
	if (!s) {	/* cannot happen: a slot per credit */
		rpcrdma_req_credits_put(&bc->cr);
		st = RPC_SYSTEMERROR;
		e = ENOSPC;
		goto out_unlock;
	}
	xid = bc->next_xid++;
	s->state = BC_WAITING;
	s->xid = xid;
	s->err = 0;
	s->len = 0;
	ep = bc->ep;
	bc->senders++;
	send_max = rpcrdma_ep_inline(ep)->send_max;
	bc_count_inflight(bc);
	pthread_mutex_unlock(&bc->lock);

	pthread_mutex_lock(&cb->lock);
	cb->last_xid = xid;
	pthread_mutex_unlock(&cb->lock);
	buf = malloc(send_max);
	rc = buf ? 0 : -ENOMEM;
	if (!rc) {
		xdrmem_create(&x, (char *)buf + RPCRDMA_HDR_MIN,
			      send_max - RPCRDMA_HDR_MIN, XDR_ENCODE);
		if (!cbc_encode(cb, &x, xid, proc, xargs, argsp)) {
			/* Section 4.1: inline only, nothing else to try. */
			st = RPC_CANTENCODEARGS;
			rc = -EMSGSIZE;
		} else {
			rpcrdma_msg_init(&m, xid, RPCRDMA_BC_CREDITS,
					 RPCRDMA_MSG);
			rc = rpcrdma_hdr_encode(&m, buf, RPCRDMA_HDR_MIN,
						&hlen);
			iov.iov_base = buf;
			iov.iov_len = RPCRDMA_HDR_MIN + XDR_GETPOS(&x);
			/* Within the callback's deadline: a client that
			 * stalls our Sends holds this thread no longer. */
			if (!rc)
				rc = rpcrdma_ep_send_within(ep, &iov, 1, 0,
							    xprt_ms_left(&dl));
			if (rc)
				st = RPC_CANTSEND;
			else {
				RPCRDMA_STAT_ADD(ep, bc_calls_sent, 1);
				RPCRDMA_STAT_ADD(ep, sent_msg, 1);
			}
		}
		XDR_DESTROY(&x);
	} else {
		st = RPC_SYSTEMERROR;
	}
	free(buf);

	pthread_mutex_lock(&bc->lock);
	bc->senders--;
	pthread_cond_broadcast(&bc->cv);
	if (rc) {
		e = -rc;
		if (s->state == BC_WAITING || s->state == BC_DONE)
			bc_slot_free(bc, s);
		goto out_unlock;
	}
	while (s->state == BC_WAITING) {
		if (bc_wait(bc, &dl) == ETIMEDOUT &&
		    s->state == BC_WAITING) {
			/* Its credit stays taken until the late reply
			 * comes or the connection goes. */
			s->state = BC_ABANDONED;
			st = RPC_TIMEDOUT;
			bc_abandoned(bc);
			goto out_unlock;
		}
	}
	if (s->err) {
		st = bc_err_stat(s, &e);
		bc_slot_free(bc, s);
		goto out_unlock;
	}
	pthread_mutex_unlock(&bc->lock);
	st = xprt_reply_decode(cb->clnt.cl_auth, s->buf, s->len, s->xid, xres,
			       resp, &err);
	pthread_mutex_lock(&bc->lock);
	bc_slot_free(bc, s);
out_unlock:
	pthread_mutex_unlock(&bc->lock);
	if (st != RPC_SUCCESS && err.re_status != st) {
		memset(&err, 0, sizeof(err));
		err.re_status = st;
		err.re_errno = e;
	}
	pthread_mutex_lock(&cb->lock);
	cb->error = err;
	pthread_mutex_unlock(&cb->lock);
	return st;
}

static void cbc_geterr(CLIENT *cl, struct rpc_err *errp)
{
	struct cbc *cb = to_cbc(cl);

	pthread_mutex_lock(&cb->lock);
	*errp = cb->error;
	pthread_mutex_unlock(&cb->lock);
}

static bool_t cbc_control(CLIENT *cl, u_int req, void *info)
{
	struct cbc *cb = to_cbc(cl);
	struct conn_bc *bc = cb->bc;
	bool_t ok = TRUE;

	if (req == CLSET_FD_CLOSE || req == CLSET_FD_NCLOSE)
		return TRUE;
	if (!info)
		return FALSE;
	if (req == CLGET_RDMA_STATS) {
		pthread_mutex_lock(&bc->lock);
		if (bc->ep)
			*(struct rpcrdma_stats *)info = *rpcrdma_ep_stats(bc->ep);
		else
			ok = FALSE;
		pthread_mutex_unlock(&bc->lock);
		return ok;
	}
	pthread_mutex_lock(&cb->lock);
	switch (req) {
	case CLSET_TIMEOUT: {
		const struct timeval *tv = info;

		if (!xprt_timeval_ok(tv)) {
			ok = FALSE;
			break;
		}
		cb->wait = *tv;
		cb->wait_set = true;
		break;
	}
	case CLGET_TIMEOUT:
		*(struct timeval *)info = cb->wait;
		break;
	case CLGET_XID:
		*(uint32_t *)info = cb->last_xid;
		break;
	case CLGET_PROG:
		*(uint32_t *)info = (uint32_t)cb->prog;
		break;
	case CLGET_VERS:
		*(uint32_t *)info = (uint32_t)cb->vers;
		break;
	default:
		ok = FALSE;
		break;
	}
	pthread_mutex_unlock(&cb->lock);
	return ok;
}

static void cbc_destroy(CLIENT *cl)
{
	struct cbc *cb = to_cbc(cl);

	/* cl_auth belongs to the caller (authnone's is a shared one). */
	bc_unref(cb->bc);
	pthread_mutex_destroy(&cb->lock);
	free(cl->cl_netid);
	free(cb);
}

const struct clnt_ops cbc_ops = {
	.cl_call = cbc_call,
	.cl_abort = xprt_clnt_abort,
	.cl_geterr = cbc_geterr,
	.cl_freeres = xprt_clnt_freeres,
	.cl_destroy = cbc_destroy,
	.cl_control = cbc_control,
};
