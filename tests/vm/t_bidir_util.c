/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * No tests: what the files of t_bidir share. The server of the forward
 * program (f_dispatch, srv_create_bidir), the client with its backward
 * service (cb_dispatch, clnt_bidir), the echo of checked bytes in either
 * direction, the counters of both sides, F_SUBSCRIBE's connection and
 * the load thread of the tests under load.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "t_bidir.h"

bool_t xdr_cbreq(XDR *x, struct cbreq *r)
{
	return xdr_u_int(x, &r->n) && xdr_u_int(x, &r->seed) &&
	       xdr_u_int(x, &r->len);
}

SVCXPRT *_Atomic subscribed;	/* server: the client's connection */
static CLIENT *_Atomic fwd_clnt;	/* client: the CLIENT for CB_FWD */
static atomic_uint cb_served;
static atomic_int big_sent = -1; /* CB_BIG: what svc_sendreply said */

const struct timeval tmo30 = { 30, 0 };

/* Echo of n bytes of seed's data through cl (either direction), every
 * byte checked; returns the clnt_stat. */
enum clnt_stat echo_on(CLIENT *cl, rpcproc_t proc, uint32_t seed,
		       size_t n)
{
	struct blob in, out = { 0, NULL };
	enum clnt_stat st;

	in.len = (u_int)n;
	in.data = mkdata(seed, n);
	st = clnt_call(cl, proc, XP(xdr_blob), (caddr_t)&in, XP(xdr_blob),
		       (caddr_t)&out, tmo30);
	if (st == RPC_SUCCESS && (out.len != n ||
				  memcmp(out.data, in.data, n) != 0))
		st = RPC_CANTDECODERES;
	if (out.data)
		xdr_free(XP(xdr_blob), (char *)&out);
	free(in.data);
	return st;
}

/* ---- the server (forward program) ---- */

static void f_dispatch(struct svc_req *rq, SVCXPRT *x)
{
	struct cbreq r;
	u_int ms = 0, ok = 0;
	CLIENT *cb;

	switch (rq->rq_proc) {
	case NULLPROC:
		svc_sendreply(x, XVOID, NULL);
		return;
	case F_ECHO:
		reply_echo(x);
		return;
	case F_CB_ECHO:
		/* Callbacks from inside the dispatch function: this thread
		 * serves the connection, so it polls it itself. */
		if (!svc_getargs(x, XP(xdr_cbreq), (caddr_t)&r)) {
			svcerr_decode(x);
			return;
		}
		cb = rpcrdma_svc_callback_create(x, CB_PROG, 1);
		if (cb) {
			for (u_int i = 0; i < r.n; i++)
				ok += echo_on(cb, CB_ECHO, r.seed + i,
					      (r.len + i * 97) % (r.len + 1))
				      == RPC_SUCCESS;
			clnt_destroy(cb);
		}
		svc_sendreply(x, XP(xdr_u_int), (caddr_t)&ok);
		return;
	case F_CB_NULL:
		ms = RPC_SYSTEMERROR;
		cb = rpcrdma_svc_callback_create(x, CB_PROG, 1);
		if (cb) {
			ms = (u_int)clnt_call(cb, NULLPROC, XVOID, NULL, XVOID,
					      NULL, tmo30);
			clnt_destroy(cb);
		}
		svc_sendreply(x, XP(xdr_u_int), (caddr_t)&ms);
		return;
	case F_SUBSCRIBE:
		atomic_store(&subscribed, x);
		svc_sendreply(x, XVOID, NULL);
		return;
	case F_SLEEP:
		reply_after_sleep(x);
		return;
	default:
		svcerr_noproc(x);
	}
}

SVCXPRT *srv_create_bidir(uint16_t port, unsigned int threads)
{
	return srv_create_bidir_idle(port, threads, 0);
}

SVCXPRT *srv_create_bidir_idle(uint16_t port, unsigned int threads,
			       uint32_t idle_ms)
{
	struct rpcrdma_opts o;
	SVCXPRT *l;

	rpcrdma_opts_default(&o);
	o.port = port;
	o.credits = 8;
	if (idle_ms)
		o.idle_ms = idle_ms;
	l = svc_rdma_create(addr_b, &o);
	ck_assert_msg(l != NULL, "svc_rdma_create: %s",
		      clnt_spcreateerror("svc"));
	ck_assert(rpcrdma_svc_reg(l, F_PROG, 1, f_dispatch));
	ck_assert_int_eq(rpcrdma_svc_start(threads), 0);
	return l;
}

void srv_destroy_bidir(SVCXPRT *l)
{
	ck_assert_int_eq(rpcrdma_svc_stop(), 0);
	svc_unreg(F_PROG, 1);
	svc_destroy(l);
}

/* ---- the client (backward program) ---- */

static void cb_dispatch(struct svc_req *rq, SVCXPRT *x)
{
	struct blob b = { 0, NULL };
	u_int v = 0, ok;

	atomic_fetch_add(&cb_served, 1);
	switch (rq->rq_proc) {
	case NULLPROC:
		svc_sendreply(x, XVOID, NULL);
		return;
	case CB_ECHO:
		reply_echo(x);
		return;
	case CB_FWD:
		/* A forward call on the same CLIENT from inside a
		 * callback: it polls for its own reply. */
		if (!svc_getargs(x, XP(xdr_u_int), (caddr_t)&v)) {
			svcerr_decode(x);
			return;
		}
		ok = echo_on(atomic_load(&fwd_clnt), F_ECHO, v, 3000) ==
		     RPC_SUCCESS;
		svc_sendreply(x, XP(xdr_u_int), (caddr_t)&ok);
		return;
	case CB_SLEEP:
		reply_after_sleep(x);
		return;
	case CB_SILENT:
		return; /* the upper layer never answers */
	case CB_BIG:
		if (!svc_getargs(x, XP(xdr_u_int), (caddr_t)&v)) {
			svcerr_decode(x);
			return;
		}
		b.len = v;
		b.data = mkdata(v, v);
		atomic_store(&big_sent,
			     svc_sendreply(x, XP(xdr_blob), (caddr_t)&b));
		free(b.data);
		return;
	default:
		svcerr_noproc(x);
	}
}

/*
 * What CB_BIG's svc_sendreply returned. The dispatch stores it once
 * svc_sendreply is back, and the reply it sent may reach the caller
 * first: wait for it (5 s at most), then clear it for the next call.
 */
int big_sent_wait(void)
{
	int v, i;

	for (i = 0; i < 500 && (v = atomic_load(&big_sent)) == -1; i++)
		usleep(10000);
	atomic_store(&big_sent, -1);
	return v;
}

CLIENT *clnt_bidir(uint16_t port)
{
	struct rpcrdma_opts o;
	CLIENT *cl;

	rpcrdma_opts_default(&o);
	o.port = port;
	o.src_addr = addr_a;
	o.credits = 8;
	cl = clnt_rdma_create(addr_b, F_PROG, 1, &o);
	ck_assert_msg(cl != NULL, "%s", clnt_spcreateerror("clnt"));
	ck_assert(rpcrdma_clnt_svc_reg(cl, CB_PROG, 1, cb_dispatch));
	atomic_store(&fwd_clnt, cl);
	return cl;
}

struct rpcrdma_stats cstats(CLIENT *cl)
{
	struct rpcrdma_stats st;

	ck_assert_int_eq(rpcrdma_clnt_stats(cl, &st), 0);
	return st;
}

struct rpcrdma_stats cbstats(CLIENT *cb)
{
	struct rpcrdma_stats st;

	ck_assert(clnt_control(cb, CLGET_RDMA_STATS, (char *)&st));
	return st;
}

void subscribe(CLIENT *cl)
{
	atomic_store(&subscribed, NULL);
	ck_assert_int_eq(clnt_call(cl, F_SUBSCRIBE, XVOID, NULL, XVOID, NULL,
				   tmo30), RPC_SUCCESS);
	ck_assert_ptr_nonnull(atomic_load(&subscribed));
}

/* ---- load in both directions ---- */

void *load_main(void *arg)
{
	struct loadarg *a = arg;

	for (unsigned int i = 0; i < a->n; i++) {
		uint32_t seed = a->seed * 100003u + i;
		size_t n = (seed * 2654435761u) % (a->max + 1);
		enum clnt_stat st = echo_on(a->cl, a->proc, seed, n);

		if (st != RPC_SUCCESS) {
			a->fails++;
			a->last = st;
		}
	}
	return NULL;
}
