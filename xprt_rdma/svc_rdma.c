/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The server side of RPC-over-RDMA as libtirpc SVCXPRTs: their ops
 * tables, the listener and its accept, the creation, state (xp_stat) and
 * destruction of connection transports, and the public server calls
 * (svc_rdma_create, rpcrdma_svc_stats / _limits / _callback_create; its
 * registration, rpcrdma_svc_reg, is netid.c's). Each protocol step has a
 * file below this one: svc_recv.c (xp_recv), svc_send.c (xp_reply),
 * svc_bc.c (the callback CLIENT), svc_call.c (call contexts), over
 * svc_conn.h.
 *
 * A listener is a "rendezvous" transport whose xp_fd is the RDMA-CM event
 * channel; its xp_recv accepts the pending connections and makes one
 * connection transport per endpoint, whose xp_fd is the endpoint's
 * completion channel. Both are xprt_register'ed, so svc_run() and
 * svc_getreq_poll() drive everything (docs/design.md): libtirpc's
 * svc_getreq_common() calls xp_recv, the dispatch routine (which calls
 * xp_getargs, xp_reply, xp_freeargs), then xp_stat, looping while it says
 * XPRT_MOREREQS and destroying the transport when it says XPRT_DIED.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "svc_conn.h"

static const struct xp_ops lsn_ops;
static const struct xp_ops conn_ops;
static const struct xp_ops2 svc_rdma_ops2;

static struct svc_lsn *to_lsn(SVCXPRT *xprt)
{
	return (struct svc_lsn *)((char *)xprt -
				  offsetof(struct svc_lsn, xprt));
}

static socklen_t sa_len(const struct sockaddr *sa)
{
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (sa->sa_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return 0;
}

static uint16_t sa_port(const struct sockaddr *sa)
{
	if (sa && sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa && sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

/* Fills the address fields libtirpc and its callers read. */
static void xprt_set_addrs(SVCXPRT *x, struct sockaddr_storage *lss,
			   const struct sockaddr *local,
			   struct sockaddr_storage *rss,
			   const struct sockaddr *remote)
{
	socklen_t ll = sa_len(local), rl = sa_len(remote);

	if (ll) {
		memcpy(lss, local, ll);
		x->xp_ltaddr.buf = (char *)lss;
		x->xp_ltaddr.len = ll;
		x->xp_ltaddr.maxlen = sizeof(*lss);
		x->xp_port = sa_port(local);
	}
	if (rl && rss) {
		memcpy(rss, remote, rl);
		x->xp_rtaddr.buf = (char *)rss;
		x->xp_rtaddr.len = rl;
		x->xp_rtaddr.maxlen = sizeof(*rss);
		/* svc_getcaller() reads xp_raddr (a sockaddr_in6). */
		memcpy(&x->xp_raddr, remote, rl);
		x->xp_addrlen = (int)rl;
	}
}

static const char *netid_of(const struct sockaddr *sa)
{
	return sa && sa->sa_family == AF_INET6 ? "rdma6" : "rdma";
}

/* ---- connection transport ---- */

static enum xprt_stat conn_state(struct svc_conn *c);

/* The replies held for one doorbell go before svc_run sleeps, serves
 * another transport or destroys this one (svc_send.c, call_send). */
static enum xprt_stat conn_stat(SVCXPRT *xprt)
{
	struct svc_conn *c = to_conn(xprt);
	enum xprt_stat st = conn_state(c);

	if (c->nheld && st != XPRT_MOREREQS) {
		conn_flush_held(c);
		/* What the reap made ready (a call whose Reads were done)
		 * is work: looked at again. */
		st = conn_state(c);
	}
	return st;
}

static enum xprt_stat conn_state(struct svc_conn *c)
{

	bc_dispatching(c, false);
	if (pool_after_dispatch()) {
		/* The dispatch poisoned this pool worker (svc.h): a clean
		 * one posts the reply, closes or destroys; this one goes. */
		STAT_INC(c, cred_changes);
		rpcrdma_ep_kick(c->ep);
		c->rounds = 0;
		return XPRT_IDLE;
	}
	conn_close_pending(c);
	if (c->dead || !rpcrdma_ep_connected(c->ep)) {
		bc_kill(c->bc);
		return XPRT_DIED;
	}
	/* Before svc_run sleeps on the fd again, the CQ must be armed (the
	 * look may have taken its event); what came meanwhile is work. A
	 * ready call held for memory is not (the completions that give it
	 * back are); calls waiting for memory are once the call just
	 * dispatched, which never replied, can be let go (conn_recv). */
	if ((c->ready && !c->mem_held) || (c->mwait && c->serving) ||
	    (c->free && rpcrdma_ep_rx_pending(c->ep)) ||
	    rpcrdma_ep_xfers_ready(c->ep) || rpcrdma_ep_rearm(c->ep)) {
		/* More right now; after a few rounds let the others in, and
		 * make our fd readable so that poll() comes back to us. */
		if (++c->rounds < SVC_ROUNDS)
			return XPRT_MOREREQS;
		rpcrdma_ep_kick(c->ep);
	}
	c->rounds = 0;
	return XPRT_IDLE;
}

/*
 * A connection that we closed on our own is counted by its reason and
 * told to the operator's log (rpcrdma_set_log), once, as it goes; one the
 * client ended is not. Counters of the reasons counted where they arose
 * (credit_overruns...) are not counted again.
 */
static void conn_tell_close(SVCXPRT *xprt, struct svc_conn *c)
{
	enum rpcrdma_close_why why = rpcrdma_ep_why(c->ep);
	char peer[RPCRDMA_ADDR_STRLEN];

	if (why == RPCRDMA_CLOSE_NONE || why == RPCRDMA_CLOSE_LOCAL)
		return;
	STAT_INC(c, server_closes);
	if (why == RPCRDMA_CLOSE_CHUNKS)
		STAT_INC(c, closes_chunk_failed);
	else if (why == RPCRDMA_CLOSE_INTERNAL)
		STAT_INC(c, closes_internal);
	else if (why == RPCRDMA_CLOSE_PROTOCOL)
		STAT_INC(c, closes_protocol);
	else if (why == RPCRDMA_CLOSE_UNREACHABLE)
		STAT_INC(c, closes_unreachable);
	else if (why == RPCRDMA_CLOSE_IDLE)
		STAT_INC(c, closes_idle);
	else if (why == RPCRDMA_CLOSE_EVICTED)
		STAT_INC(c, closes_evicted);
	rpcrdma_addr_str((const struct sockaddr *)xprt->xp_rtaddr.buf, peer,
			 sizeof(peer));
	xprt_log("librpcrdma: server closed the connection from %s: %s",
		 peer, rpcrdma_close_why_str(why));
}

static void conn_destroy(SVCXPRT *xprt)
{
	struct svc_conn *c = to_conn(xprt);
	SVCAUTH *auth = &SVC_XP_AUTH(xprt);
	uint32_t i;

	conn_tell_close(xprt, c);
	pool_member_leave(&c->mem);
	if (c->serving)
		XDR_DESTROY(&c->args);
	if (auth->svc_ah_ops && auth->svc_ah_ops->svc_ah_destroy)
		SVCAUTH_DESTROY(auth);
	/* Callback calls fail; their CLIENTs keep bc, never the endpoint. */
	pthread_mutex_lock(&c->bc->lock);
	bc_kill_locked(c->bc);
	c->bc->c = NULL;
	__atomic_store_n(&c->bc->in_dispatch, false, __ATOMIC_RELEASE);
	while (c->bc->senders)
		pthread_cond_wait(&c->bc->cv, &c->bc->lock);
	c->bc->ep = NULL;
	pthread_mutex_unlock(&c->bc->lock);
	bc_unref(c->bc);
	/* The endpoint first: it drains the QP and releases the transfers,
	 * so no work request still points into the calls' buffers. */
	rpcrdma_ep_destroy(c->ep);
	for (i = 0; i < c->ncalls; i++)
		call_free_buffers(&c->calls[i]);
	free(c->calls);
	free(xprt->xp_netid);
	free(c);
}

static bool_t svc_rdma_control(SVCXPRT *xprt, const u_int rq, void *in)
{
	switch (rq) {
	case SVCGET_RDMA_LIMITS:
		return rpcrdma_svc_limits(xprt, in) == 0;
	default:
		return FALSE;
	}
}

static const struct xp_ops conn_ops = {
	.xp_recv = conn_recv,
	.xp_stat = conn_stat,
	.xp_getargs = conn_getargs,
	.xp_reply = conn_reply,
	.xp_freeargs = conn_freeargs,
	.xp_destroy = conn_destroy,
};

static const struct xp_ops2 svc_rdma_ops2 = {
	.xp_control = svc_rdma_control,
};

/* Wraps an established endpoint in a registered connection transport. */
static int conn_create(struct svc_lsn *lsn, struct rpcrdma_ep *ep)
{
	const struct sockaddr *peer = rpcrdma_ep_peer(ep);
	struct svc_conn *c;
	uint32_t i;
	int rc;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ep = ep;
	c->max_msg = lsn->opts.max_msg;
	c->max_credits = lsn->opts.credits;
	c->ddp_min = rpcrdma_ddp_min(lsn->opts.ddp_threshold);
	/* What those calls' buffers may hold (svc_recv.c). */
	c->mem_max = rpcrdma_conn_mem_max(&lsn->opts);
	rpcrdma_limits_default(&c->lim);
	/* Calls in progress are bounded by the grant; as many again, and
	 * some, may be waiting only for their reply's Send to complete
	 * (a Send completion can lag the client's next call). */
	c->ncalls = 2 * rpcrdma_ep_credits(ep) + SVC_CALLS_EXTRA;
	c->calls = calloc(c->ncalls, sizeof(*c->calls));
	if (!c->calls) {
		rc = -ENOMEM;
		goto out_free;
	}
	c->bc = bc_create(rpcrdma_ep_inline(ep)->recv_max);
	if (!c->bc) {
		rc = -ENOMEM;
		goto out_calls;
	}
	c->bc->c = c;
	c->bc->ep = ep;
	c->bc->pump = conn_pump;
	for (i = c->ncalls; i-- > 0;) {
		c->calls[i].c = c;
		c->calls[i].next = c->free;
		c->free = &c->calls[i];
	}
	c->xprt.xp_netid = strdup(netid_of(peer ? peer :
				  (const struct sockaddr *)&lsn->laddr));
	if (!c->xprt.xp_netid) {
		rc = -ENOMEM;
		goto out_calls;
	}
	c->xprt.xp_ops = &conn_ops;
	c->xprt.xp_ops2 = &svc_rdma_ops2;
	c->xprt.xp_p1 = c;
	c->xprt.xp_p3 = &c->ext;
	xprt_set_addrs(&c->xprt, &c->laddr,
		       (const struct sockaddr *)&lsn->laddr, &c->raddr, peer);
	rc = pool_member_join(&c->mem, &c->xprt, rpcrdma_ep_fd(ep),
			      rpcrdma_ep_cm_fd(ep));
	if (rc)
		goto out_netid;
	return 0;

out_netid:
	free(c->xprt.xp_netid);
out_calls:
	if (c->bc)
		bc_unref(c->bc);
	free(c->calls);
out_free:
	free(c);
	return rc;
}

/* ---- rendezvous (listening) transport ---- */

/* Accepts what is pending; never a call of its own (like svc_vc). */
static bool_t lsn_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_lsn *lsn = to_lsn(xprt);
	struct rpcrdma_ep *ep;

	(void)msg;
	while (rpcrdma_listener_accept(lsn->l, &ep) == 1) {
		if (conn_create(lsn, ep))
			rpcrdma_ep_destroy(ep);
	}
	return FALSE;
}

static void lsn_destroy(SVCXPRT *xprt)
{
	struct svc_lsn *lsn = to_lsn(xprt);

	if (lsn->on_destroy)
		lsn->on_destroy(xprt);
	pool_member_leave(&lsn->mem);
	rpcrdma_listener_destroy(lsn->l);
	free(xprt->xp_netid);
	free(lsn);
}

static const struct xp_ops lsn_ops = {
	.xp_recv = lsn_recv,
	.xp_stat = xprt_stat_idle,
	.xp_getargs = xprt_no_args,
	.xp_reply = xprt_no_reply,
	.xp_freeargs = xprt_no_args,
	.xp_destroy = lsn_destroy,
};

/* addr: an IPv4 or IPv6 literal, or NULL for INADDR_ANY. */
static int parse_addr(const char *addr, uint16_t port,
		      struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (!addr || inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		if (!addr)
			sin->sin_addr.s_addr = htonl(INADDR_ANY);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return 0;
	}
	return -EINVAL;
}

SVCXPRT *svc_rdma_create(const char *addr, const struct rpcrdma_opts *opts)
{
	struct rpcrdma_ep_opts eo;
	struct sockaddr_storage ss;
	const struct sockaddr *bound;
	struct svc_lsn *lsn;
	int rc;

	lsn = calloc(1, sizeof(*lsn));
	if (!lsn) {
		xprt_createerr(RPC_SYSTEMERROR, ENOMEM);
		return NULL;
	}
	if (opts)
		lsn->opts = *opts;
	else
		rpcrdma_opts_from_env(&lsn->opts);
	lsn->opts.src_addr = NULL;	/* not ours to keep */
	if (lsn->opts.max_msg < RPCRDMA_HDR_MIN ||
	    rpcrdma_opts_to_ep(&lsn->opts, &eo)) {
		rc = -EINVAL;
		goto out_free;
	}
	/* RFC 8167 section 3.3.2: receives for backward replies. */
	eo.bc_credits = RPCRDMA_BC_CREDITS;
	eo.poll_us = 0;		/* a client's option: svc_run sleeps in poll */
	rc = parse_addr(addr, lsn->opts.port ? lsn->opts.port :
			(uint16_t)RPCRDMA_NFS_PORT, &ss);
	if (rc)
		goto out_free;
	rc = rpcrdma_listener_create((struct sockaddr *)&ss, &eo, &lsn->l);
	if (rc)
		goto out_free;
	bound = rpcrdma_listener_addr(lsn->l);
	if (!sa_len(bound))
		bound = (const struct sockaddr *)&ss;
	lsn->xprt.xp_netid = strdup(netid_of(bound));
	if (!lsn->xprt.xp_netid) {
		rc = -ENOMEM;
		goto out_destroy_listener;
	}
	lsn->xprt.xp_ops = &lsn_ops;
	lsn->xprt.xp_ops2 = &svc_rdma_ops2;
	lsn->xprt.xp_p1 = lsn;
	lsn->xprt.xp_p3 = &lsn->ext;
	xprt_set_addrs(&lsn->xprt, &lsn->laddr, bound, NULL, NULL);
	rc = pool_member_join(&lsn->mem, &lsn->xprt,
			      rpcrdma_listener_fd(lsn->l),
			      rpcrdma_listener_fd(lsn->l));
	if (rc)
		goto out_netid;
	return &lsn->xprt;

out_netid:
	free(lsn->xprt.xp_netid);
out_destroy_listener:
	rpcrdma_listener_destroy(lsn->l);
out_free:
	free(lsn);
	xprt_createerr(rc == -EINVAL ? RPC_UNKNOWNADDR : RPC_SYSTEMERROR, -rc);
	return NULL;
}

int rpcrdma_svc_stats(SVCXPRT *xprt, struct rpcrdma_stats *out)
{
	if (!xprt || !out)
		return -EINVAL;
	if (xprt->xp_ops != &conn_ops)
		return -ENOTCONN;
	*out = *rpcrdma_ep_stats(to_conn(xprt)->ep);
	return 0;
}

int rpcrdma_svc_limits(SVCXPRT *xprt, struct rpcrdma_svc_limits *out)
{
	const struct rpcrdma_opts *o;

	if (!xprt || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (xprt->xp_ops == &conn_ops) {
		struct svc_conn *c = to_conn(xprt);
		const struct rpcrdma_inline *in = rpcrdma_ep_inline(c->ep);
		uint32_t posted = rpcrdma_ep_credits(c->ep);

		out->max_call = out->max_reply = c->max_msg;
		out->inline_send = in->send_max;
		out->inline_recv = in->recv_max;
		/* The grant never exceeds the receives posted. */
		out->credits = c->max_credits < posted ? c->max_credits
						       : posted;
		out->ddp_threshold = c->ddp_min;
		out->remote_inv = in->peer_remote_inv;
		out->connected = true;
		return 0;
	}
	if (xprt->xp_ops != &lsn_ops)
		return -EINVAL;
	o = &to_lsn(xprt)->opts;
	out->max_call = out->max_reply = o->max_msg;
	/* What it advertises (RFC 8797): each connection's are at most. */
	out->inline_send = o->inline_send;
	out->inline_recv = o->inline_recv;
	out->credits = o->credits;
	out->ddp_threshold = rpcrdma_ddp_min(o->ddp_threshold);
	return 0;
}

/* Whether xprt is one of ours, a listener or a connection (netid.c's
 * rpcrdma_svc_reg asks). */
bool svc_rdma_owns(const SVCXPRT *xprt)
{
	return xprt->xp_ops == &lsn_ops || xprt->xp_ops == &conn_ops;
}

bool svc_rdma_on_destroy(SVCXPRT *xprt, void (*fn)(SVCXPRT *xprt))
{
	if (!xprt || xprt->xp_ops != &lsn_ops)
		return false;
	to_lsn(xprt)->on_destroy = fn;
	return true;
}

CLIENT *rpcrdma_svc_callback_create(SVCXPRT *xprt, rpcprog_t prog,
				    rpcvers_t vers)
{
	struct conn_bc *bc;
	struct cbc *cb;

	if (!xprt || xprt->xp_ops != &conn_ops) {
		xprt_createerr(RPC_UNKNOWNPROTO, EINVAL);
		return NULL;
	}
	bc = to_conn(xprt)->bc;
	cb = calloc(1, sizeof(*cb));
	if (!cb || pthread_mutex_init(&cb->lock, NULL)) {
		free(cb);
		xprt_createerr(RPC_SYSTEMERROR, ENOMEM);
		return NULL;
	}
	cb->clnt.cl_netid = strdup(xprt->xp_netid);
	cb->clnt.cl_auth = authnone_create();
	if (!cb->clnt.cl_netid || !cb->clnt.cl_auth) {
		free(cb->clnt.cl_netid);
		pthread_mutex_destroy(&cb->lock);
		free(cb);
		xprt_createerr(RPC_SYSTEMERROR, ENOMEM);
		return NULL;
	}
	pthread_mutex_lock(&bc->lock);
	bc->refs++;
	pthread_mutex_unlock(&bc->lock);
	cb->bc = bc;
	cb->prog = prog;
	cb->vers = vers;
	cb->wait.tv_sec = 25;	/* libtirpc's customary default */
	/* libtirpc's field is not const; nothing writes through it. */
	cb->clnt.cl_ops = (struct clnt_ops *)(uintptr_t)&cbc_ops;
	cb->clnt.cl_private = cb;
	return &cb->clnt;
}
