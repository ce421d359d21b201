/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client's backward service (RFC 8167): the client as responder. A
 * CLIENT with a service registered (rpcrdma_clnt_svc_reg, in
 * clnt_rdma.c beside the other public entry points) runs one service
 * thread, which takes the backward calls the poller queued (the inbox is
 * clnt_reply.c's), runs each through an SVCXPRT of its own the way
 * libtirpc's svc_getreq_common does, and sends its reply inline on the
 * forward connection. Between calls the thread holds the poller role
 * when no forward call does, so that backward calls arrive while the
 * client is otherwise idle.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "svc.h"
#include "clnt.h"

/* --- backward service (RFC 8167): the client as responder --- */

static struct ct_bc *to_bc(SVCXPRT *xprt)
{
	return (struct ct_bc *)((char *)xprt - offsetof(struct ct_bc, xprt));
}

static bool_t ct_bc_getargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	struct ct_bc *bc = to_bc(xprt);
	SVCAUTH *auth = &SVC_XP_AUTH(xprt);

	if (!bc->cur)
		return FALSE;
	if (auth->svc_ah_ops)
		return SVCAUTH_UNWRAP(auth, &bc->args, xargs, argsp);
	return (*xargs)(&bc->args, argsp);
}

static bool_t ct_bc_freeargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	XDR x;

	(void)xprt;
	memset(&x, 0, sizeof(x));
	x.x_op = XDR_FREE;
	return (*xargs)(&x, argsp);
}

/*
 * RFC 8167 section 4.2: the backward reply is an RDMA_MSG with every
 * chunk list empty and the whole reply inline; its rdma_credit is our
 * backward grant (section 3.1). A reply larger than the server's inline
 * threshold (or whose results do not encode) cannot go: SYSTEM_ERR goes
 * in its place, so that the server's call fails now rather than at its
 * timeout with a backward credit held, and the dispatch function gets
 * FALSE. A reply for a connection gone since the call came is not sent
 * (FALSE).
 */
static bool_t ct_bc_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct ct_bc *bc = to_bc(xprt);
	struct ct *ct = bc->ct;
	struct rpcrdma_ep *ep = NULL;
	struct rpcrdma_msg m;
	struct rpc_msg e;
	uint32_t send_max;
	struct iovec iov;
	uint8_t *buf;
	size_t hlen;
	bool ok, sent = false;
	XDR x;

	if (!bc->cur || bc->replied)
		return FALSE;
	bc->replied = true;
	pthread_mutex_lock(&ct->lock);
	if (ct->ep && !ct->broken && ct->gen == bc->cur->gen) {
		ep = ct->ep;
		ct->ep_users++;	/* no reconnect while we send on it */
		/* Its backward credit goes back before the reply leaves:
		 * the server may use it as soon as the reply is in. */
		bc->queued--;
		bc->cur->released = true;
		RPCRDMA_STAT_SET(ct->ep, bc_inflight, bc->queued);
		/* Counted before the Send, taken back if it fails: the peer
		 * may have the reply, and read our counters, before
		 * rpcrdma_ep_send returns. */
		CT_INC(ct, bc_replies_sent);
		CT_INC(ct, sent_msg);
	}
	pthread_mutex_unlock(&ct->lock);
	if (!ep)
		return FALSE;
	send_max = rpcrdma_ep_inline(ep)->send_max;
	buf = malloc(send_max);
	ok = buf != NULL;
	if (ok) {
		xdrmem_create(&x, (char *)buf + RPCRDMA_HDR_MIN,
			      send_max - RPCRDMA_HDR_MIN, XDR_ENCODE);
		msg->rm_xid = bc->xid;
		ok = xprt_reply_encode(xprt, &x, msg);
		sent = ok;
		if (!ok) {
			RPCRDMA_STAT_ADD(ep, bc_replies_too_big, 1);
			XDR_DESTROY(&x);
			xdrmem_create(&x, (char *)buf + RPCRDMA_HDR_MIN,
				      send_max - RPCRDMA_HDR_MIN, XDR_ENCODE);
			memset(&e, 0, sizeof(e));
			e.rm_xid = bc->xid;
			e.rm_direction = REPLY;
			e.rm_reply.rp_stat = MSG_ACCEPTED;
			e.acpted_rply.ar_verf = xprt->xp_verf;
			e.acpted_rply.ar_stat = SYSTEM_ERR;
			sent = xprt_reply_encode(xprt, &x, &e);
		}
		if (sent) {
			rpcrdma_msg_init(&m, bc->xid, RPCRDMA_BC_CREDITS,
					 RPCRDMA_MSG);
			sent = !rpcrdma_hdr_encode(&m, buf, RPCRDMA_HDR_MIN,
						   &hlen);
		}
		if (sent) {
			iov.iov_base = buf;
			iov.iov_len = RPCRDMA_HDR_MIN + XDR_GETPOS(&x);
			sent = rpcrdma_ep_send(ep, &iov, 1, 0) == 0;
		}
		XDR_DESTROY(&x);
	}
	ok = ok && sent;
	free(buf);
	pthread_mutex_lock(&ct->lock);
	if (sent) {
		RPCRDMA_STAT_SET(ep, bc_credits_granted, RPCRDMA_BC_CREDITS);
	} else {
		RPCRDMA_STAT_ADD(ep, bc_replies_sent, (uint64_t)-1);
		RPCRDMA_STAT_ADD(ep, sent_msg, (uint64_t)-1);
	}
	ct->ep_users--;
	ct_cv_broadcast(ct);
	pthread_mutex_unlock(&ct->lock);
	return ok;
}

static void ct_bc_xp_destroy(SVCXPRT *xprt)
{
	(void)xprt;	/* the CLIENT's: clnt_destroy frees it */
}

const struct xp_ops ct_bc_ops = {
	.xp_recv = xprt_no_reply,
	.xp_stat = xprt_stat_idle,
	.xp_getargs = ct_bc_getargs,
	.xp_reply = ct_bc_reply,
	.xp_freeargs = ct_bc_freeargs,
	.xp_destroy = ct_bc_xp_destroy,
};

/*
 * Runs one backward call the way libtirpc's svc_getreq_common does:
 * authentication, then the registered dispatch function, or PROG_UNAVAIL
 * / PROG_MISMATCH. A call whose RPC header does not parse, or whose XID
 * is not its rdma_xid (RFC 8167 section 4.1), is dropped.
 */
static void ct_bc_serve(struct ct_bc *bc, struct ct_bcall *k)
{
	void (*disp)(struct svc_req *, SVCXPRT *) = NULL;
	struct ct *ct = bc->ct;
	rpcvers_t lo = ~(rpcvers_t)0, hi = 0;
	bool prog_found = false;
	enum auth_stat why;
	struct rpc_msg msg;
	struct svc_req r;

	memset(&msg, 0, sizeof(msg));
	memset(&r, 0, sizeof(r));
	msg.rm_call.cb_cred.oa_base = bc->cred_area;
	msg.rm_call.cb_verf.oa_base = &bc->cred_area[MAX_AUTH_BYTES];
	r.rq_clntcred = &bc->cred_area[2 * MAX_AUTH_BYTES];
	xdrmem_create(&bc->args, (char *)k->data, k->len, XDR_DECODE);
	if (!xdr_callmsg(&bc->args, &msg) || msg.rm_xid != k->rdma_xid) {
		pthread_mutex_lock(&ct->lock);
		if (ct->ep)
			CT_INC(ct, bc_calls_dropped);
		pthread_mutex_unlock(&ct->lock);
		goto out;
	}
	bc->cur = k;
	bc->xid = msg.rm_xid;
	bc->replied = false;
	r.rq_xprt = &bc->xprt;
	r.rq_prog = msg.rm_call.cb_prog;
	r.rq_vers = msg.rm_call.cb_vers;
	r.rq_proc = msg.rm_call.cb_proc;
	r.rq_cred = msg.rm_call.cb_cred;
	why = _authenticate(&r, &msg);
	if (why != AUTH_OK) {
		svcerr_auth(&bc->xprt, why);
		goto out;
	}
	pthread_mutex_lock(&ct->lock);
	for (uint32_t i = 0; i < bc->nsvcs; i++) {
		if (bc->svcs[i].prog != r.rq_prog)
			continue;
		prog_found = true;
		if (bc->svcs[i].vers == r.rq_vers)
			disp = bc->svcs[i].dispatch;
		if (bc->svcs[i].vers < lo)
			lo = bc->svcs[i].vers;
		if (bc->svcs[i].vers > hi)
			hi = bc->svcs[i].vers;
	}
	pthread_mutex_unlock(&ct->lock);
	if (disp)
		disp(&r, &bc->xprt);
	else if (prog_found)
		svcerr_progvers(&bc->xprt, lo, hi);
	else
		svcerr_noprog(&bc->xprt);
out:
	XDR_DESTROY(&bc->args);
	bc->cur = NULL;
}

static bool pred_bc_work(struct ct *ct, void *arg)
{
	struct ct_bc *bc = arg;

	(void)ct;
	return bc->head || bc->stop;
}

/*
 * The service thread: runs the backward calls queued, one at a time, and
 * between them holds the poller role when nobody else does, so that
 * backward calls arrive while no forward call waits. It gives the role
 * up before each dispatch: a forward call made by the dispatch function
 * polls for itself.
 */
void *ct_bc_thread(void *arg)
{
	struct ct_bc *bc = arg;
	struct ct *ct = bc->ct;
	struct timespec dl;

	pthread_mutex_lock(&ct->lock);
	while (!bc->stop) {
		struct ct_bcall *k = bc->head;

		if (k) {
			bc->head = k->next;
			if (!bc->head)
				bc->tail = NULL;
			pthread_mutex_unlock(&ct->lock);
			ct_bc_serve(bc, k);
			pthread_mutex_lock(&ct->lock);
			if (!k->released) {
				bc->queued--;
				if (ct->ep)
					RPCRDMA_STAT_SET(ct->ep, bc_inflight,
							 bc->queued);
			}
			free(k);
			continue;
		}
		xprt_deadline_after(&dl, &(struct timeval){
						 0, CT_BC_POLL_MS * 1000 });
		if (ct->ep && !ct->broken && !ct->polling &&
		    !ct->connecting && rpcrdma_ep_connected(ct->ep)) {
			(void)ct_poll(ct, pred_bc_work, bc, &dl);
			continue;
		}
		(void)ct_cv_wait(ct, &dl);
	}
	pthread_mutex_unlock(&ct->lock);
	return NULL;
}

/* Stops the service thread and frees the service (not from it). */
void ct_bc_free(struct ct *ct)
{
	struct ct_bc *bc = ct->bc;

	if (!bc)
		return;
	pthread_mutex_lock(&ct->lock);
	bc->stop = true;
	if (ct->ep)
		rpcrdma_ep_wake(ct->ep);
	ct_cv_broadcast(ct);
	pthread_mutex_unlock(&ct->lock);
	pthread_join(bc->th, NULL);
	while (bc->head) {
		struct ct_bcall *k = bc->head;

		bc->head = k->next;
		free(k);
	}
	free(bc->svcs);
	free(bc->xprt.xp_netid);
	free(bc);
	ct->bc = NULL;
}
