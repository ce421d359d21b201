/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bi-directional RPC-over-RDMA (RFC 8167) in the guest: callbacks from
 * the server's dispatch functions and from other threads, interleaved
 * with forward calls under load (every byte checked), backward credits
 * (counters), a backward call over the inline threshold, a forward call
 * made from inside a callback, and connection loss (server killed,
 * client killed) failing both directions' calls, then reconnecting;
 * callbacks never answered until the server closes the connection, a
 * backward reply too big for the server (SYSTEM_ERR), a client without
 * a backward service (PROG_UNAVAIL); a misbehaving peer on raw verbs
 * sending malformed backward replies (as a client) and calls (as a
 * server) under load.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <rpcrdma/hdr.h>
#include "harness.h"

#define F_PROG		0x20000b10	/* forward, on the server */
#define F_ECHO		1	/* blob -> blob */
#define F_CB_ECHO	2	/* cbreq -> u_int: n callbacks from dispatch */
#define F_SUBSCRIBE	3	/* void -> void: remember the connection */
#define F_SLEEP		4	/* u_int ms -> void */
#define F_CB_NULL	5 /* void -> u_int: clnt_stat of a NULL callback */
#define CB_PROG		0x20000b11	/* backward, on the client */
#define CB_ECHO		1	/* blob -> blob */
#define CB_FWD		2	/* u_int seed -> u_int: forward call inside */
#define CB_SLEEP	3	/* u_int ms -> void */
#define CB_SILENT	4	/* void -> never answered */
#define CB_BIG		5	/* u_int n -> blob of n bytes */

struct cbreq {
	u_int n, seed, len;
};

static bool_t xdr_cbreq(XDR *x, struct cbreq *r)
{
	return xdr_u_int(x, &r->n) && xdr_u_int(x, &r->seed) &&
	       xdr_u_int(x, &r->len);
}

static SVCXPRT *_Atomic subscribed;	/* server: the client's connection */
static CLIENT *_Atomic fwd_clnt;	/* client: the CLIENT for CB_FWD */
static atomic_uint cb_served;
static atomic_int big_sent = -1; /* CB_BIG: what svc_sendreply said */

static const struct timeval tmo30 = { 30, 0 };

/* Echo of n bytes of seed's data through cl (either direction), every
 * byte checked; returns the clnt_stat. */
static enum clnt_stat echo_on(CLIENT *cl, rpcproc_t proc, uint32_t seed,
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

static SVCXPRT *srv_create_bidir(uint16_t port, unsigned int threads)
{
	struct rpcrdma_opts o;
	SVCXPRT *l;

	rpcrdma_opts_default(&o);
	o.port = port;
	o.credits = 8;
	l = svc_rdma_create(addr_b, &o);
	ck_assert_msg(l != NULL, "svc_rdma_create: %s",
		      clnt_spcreateerror("svc"));
	ck_assert(rpcrdma_svc_reg(l, F_PROG, 1, f_dispatch));
	ck_assert_int_eq(rpcrdma_svc_start(threads), 0);
	return l;
}

static void srv_destroy_bidir(SVCXPRT *l)
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
static int big_sent_wait(void)
{
	int v, i;

	for (i = 0; i < 500 && (v = atomic_load(&big_sent)) == -1; i++)
		usleep(10000);
	atomic_store(&big_sent, -1);
	return v;
}

static CLIENT *clnt_bidir(uint16_t port)
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

static struct rpcrdma_stats cstats(CLIENT *cl)
{
	struct rpcrdma_stats st;

	ck_assert_int_eq(rpcrdma_clnt_stats(cl, &st), 0);
	return st;
}

static struct rpcrdma_stats cbstats(CLIENT *cb)
{
	struct rpcrdma_stats st;

	ck_assert(clnt_control(cb, CLGET_RDMA_STATS, (char *)&st));
	return st;
}

static void subscribe(CLIENT *cl)
{
	atomic_store(&subscribed, NULL);
	ck_assert_int_eq(clnt_call(cl, F_SUBSCRIBE, XVOID, NULL, XVOID, NULL,
				   tmo30), RPC_SUCCESS);
	ck_assert_ptr_nonnull(atomic_load(&subscribed));
}

/* Callbacks from the dispatch function of the call being served. */
START_TEST(test_cb_in_dispatch)
{
	uint16_t port = port_new();
	SVCXPRT *l = srv_create_bidir(port, 2);
	CLIENT *cl = clnt_bidir(port);
	struct cbreq r = { 40, 7, 3800 };
	struct rpcrdma_stats st;
	u_int ok = 0;

	ck_assert_int_eq(clnt_call(cl, F_CB_ECHO, XP(xdr_cbreq), (caddr_t)&r,
				   XP(xdr_u_int), (caddr_t)&ok, tmo30),
			 RPC_SUCCESS);
	ck_assert_uint_eq(ok, r.n);
	st = cstats(cl);
	ck_assert_uint_eq(st.bc_calls_recv, r.n);
	ck_assert_uint_eq(st.bc_replies_sent, r.n);
	ck_assert_uint_eq(st.bc_calls_dropped, 0);
	ck_assert_uint_le(st.bc_inflight_peak, RPCRDMA_BC_CREDITS);
	clnt_destroy(cl);
	srv_destroy_bidir(l);
}
END_TEST

/* ---- load in both directions ---- */

struct loadarg {
	CLIENT *cl;
	rpcproc_t proc;
	uint32_t seed;
	unsigned int n;
	size_t max;
	unsigned int fails;
	enum clnt_stat last;
};

static void *load_main(void *arg)
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

static void *sleep_main(void *arg)
{
	struct loadarg *a = arg;
	u_int ms = 30;

	for (unsigned int i = 0; i < a->n; i++) {
		enum clnt_stat st = clnt_call(a->cl, CB_SLEEP, XP(xdr_u_int),
					      (caddr_t)&ms, XVOID, NULL,
					      tmo30);
		if (st != RPC_SUCCESS) {
			a->fails++;
			a->last = st;
		}
	}
	return NULL;
}

#define NFWD	4
#define NBACK	4
#define NSLEEP	12

/*
 * Four threads of forward echoes (up to 20 KiB: inline, read chunks,
 * reply chunks) and four server threads of callback echoes (up to what
 * fits inline) at once, then twelve server threads of sleeping callbacks
 * against the client's eight backward credits: the server never has more
 * than the grant outstanding, and reaches it.
 */
START_TEST(test_load_both_ways)
{
	uint16_t port = port_new();
	SVCXPRT *l = srv_create_bidir(port, 4);
	CLIENT *cl = clnt_bidir(port);
	struct loadarg fa[NFWD], ba[NBACK], sa[NSLEEP];
	pthread_t ft[NFWD], bt[NBACK], stt[NSLEEP];
	CLIENT *cb[NSLEEP];
	struct rpcrdma_stats st, ss;
	unsigned int i;

	subscribe(cl);
	for (i = 0; i < NSLEEP; i++) {
		cb[i] = rpcrdma_svc_callback_create(atomic_load(&subscribed),
						    CB_PROG, 1);
		ck_assert_ptr_nonnull(cb[i]);
	}
	for (i = 0; i < NFWD; i++) {
		fa[i] = (struct loadarg){ cl, F_ECHO, 1 + i, 150, 20000, 0,
					  RPC_SUCCESS };
		ck_assert_int_eq(pthread_create(&ft[i], NULL, load_main,
						&fa[i]), 0);
	}
	for (i = 0; i < NBACK; i++) {
		ba[i] = (struct loadarg){ cb[i], CB_ECHO, 100 + i, 150, 3900,
					  0, RPC_SUCCESS };
		ck_assert_int_eq(pthread_create(&bt[i], NULL, load_main,
						&ba[i]), 0);
	}
	for (i = 0; i < NFWD; i++) {
		pthread_join(ft[i], NULL);
		ck_assert_msg(fa[i].fails == 0, "forward %u: %u failed (%s)",
			      i, fa[i].fails, clnt_sperrno(fa[i].last));
	}
	for (i = 0; i < NBACK; i++) {
		pthread_join(bt[i], NULL);
		ck_assert_msg(ba[i].fails == 0, "backward %u: %u failed (%s)",
			      i, ba[i].fails, clnt_sperrno(ba[i].last));
	}
	/* Credits: more callers than backward credits. */
	for (i = 0; i < NSLEEP; i++) {
		sa[i] = (struct loadarg){ cb[i], CB_SLEEP, 0, 6, 0, 0,
					  RPC_SUCCESS };
		ck_assert_int_eq(pthread_create(&stt[i], NULL, sleep_main,
						&sa[i]), 0);
	}
	for (i = 0; i < NSLEEP; i++) {
		pthread_join(stt[i], NULL);
		ck_assert_msg(sa[i].fails == 0, "sleeper %u: %u failed (%s)",
			      i, sa[i].fails, clnt_sperrno(sa[i].last));
	}
	st = cstats(cl);
	ss = cbstats(cb[0]);
	ck_assert_uint_eq(st.bc_calls_recv, NBACK * 150 + NSLEEP * 6);
	ck_assert_uint_eq(st.bc_replies_sent, st.bc_calls_recv);
	ck_assert_uint_eq(st.bc_calls_dropped, 0);
	ck_assert_uint_eq(st.bc_credits_granted, RPCRDMA_BC_CREDITS);
	ck_assert_uint_le(st.bc_inflight_peak, RPCRDMA_BC_CREDITS);
	ck_assert_uint_eq(ss.bc_calls_sent, st.bc_calls_recv);
	ck_assert_uint_eq(ss.bc_replies_recv, st.bc_calls_recv);
	ck_assert_uint_eq(ss.bc_credits_granted, RPCRDMA_BC_CREDITS);
	ck_assert_uint_eq(ss.bc_inflight_peak, RPCRDMA_BC_CREDITS);
	ck_assert_uint_eq(ss.bc_inflight, 0);
	ck_assert_uint_eq(ss.credit_overruns, 0);
	/* Forward credits untouched by the backward traffic. */
	ck_assert_uint_le(st.inflight_peak, 8);
	ck_assert_uint_eq(st.connects, 1);
	for (i = 0; i < NSLEEP; i++)
		clnt_destroy(cb[i]);
	clnt_destroy(cl);
	srv_destroy_bidir(l);
}
END_TEST

/* RFC 8167 section 4.1: inline only. A call over the client's inline
 * receive threshold fails before anything is sent; the next one works. */
START_TEST(test_too_big)
{
	uint16_t port = port_new();
	SVCXPRT *l = srv_create_bidir(port, 2);
	CLIENT *cl = clnt_bidir(port);
	struct rpcrdma_inline inl;
	struct rpcrdma_stats before, after;
	struct rpc_err err;
	CLIENT *cb;

	subscribe(cl);
	ck_assert(clnt_control(cl, CLGET_RDMA_INLINE, (char *)&inl));
	cb = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG, 1);
	ck_assert_ptr_nonnull(cb);
	before = cbstats(cb);
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 5, inl.recv_max),
			 RPC_CANTENCODEARGS);
	clnt_geterr(cb, &err);
	ck_assert_int_eq(err.re_errno, EMSGSIZE);
	after = cbstats(cb);
	ck_assert_uint_eq(after.bc_calls_sent, before.bc_calls_sent);
	ck_assert_uint_eq(after.bc_inflight, 0);
	/* The largest that fits: RDMA header 28, call header 40, length 4. */
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 6, inl.recv_max - 28 - 40 - 4),
			 RPC_SUCCESS);
	/* Another program: PROG_UNAVAIL from the client's service. */
	{
		CLIENT *other = rpcrdma_svc_callback_create(
			atomic_load(&subscribed), CB_PROG + 1, 1);

		ck_assert_ptr_nonnull(other);
		ck_assert_int_eq(clnt_call(other, NULLPROC, XVOID, NULL,
					   XVOID, NULL, tmo30),
				 RPC_PROGUNAVAIL);
		clnt_destroy(other);
		other = rpcrdma_svc_callback_create(atomic_load(&subscribed),
						    CB_PROG, 2);
		ck_assert_ptr_nonnull(other);
		ck_assert_int_eq(clnt_call(other, NULLPROC, XVOID, NULL,
					   XVOID, NULL, tmo30),
				 RPC_PROGVERSMISMATCH);
		clnt_destroy(other);
	}
	clnt_destroy(cb);
	clnt_destroy(cl);
	srv_destroy_bidir(l);
}
END_TEST

/* A forward call on the same CLIENT from inside a callback, while other
 * forward calls run: no deadlock. */
START_TEST(test_forward_from_callback)
{
	uint16_t port = port_new();
	SVCXPRT *l = srv_create_bidir(port, 2);
	CLIENT *cl = clnt_bidir(port);
	struct loadarg fa = { cl, F_ECHO, 9, 100, 8000, 0, RPC_SUCCESS };
	pthread_t ft;
	CLIENT *cb;

	subscribe(cl);
	cb = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG, 1);
	ck_assert_ptr_nonnull(cb);
	ck_assert_int_eq(pthread_create(&ft, NULL, load_main, &fa), 0);
	for (u_int i = 0; i < 30; i++) {
		u_int ok = 0;

		ck_assert_int_eq(clnt_call(cb, CB_FWD, XP(xdr_u_int),
					   (caddr_t)&i, XP(xdr_u_int),
					   (caddr_t)&ok, tmo30),
				 RPC_SUCCESS);
		ck_assert_uint_eq(ok, 1);
	}
	pthread_join(ft, NULL);
	ck_assert_uint_eq(fa.fails, 0);
	clnt_destroy(cb);
	clnt_destroy(cl);
	srv_destroy_bidir(l);
}
END_TEST

static uint64_t global_stat_abandoned_closes(void)
{
	struct rpcrdma_stats g;

	rpcrdma_stats_global(&g);
	return g.bc_abandoned_closes;
}

/* A callback whose client sleeps past the CLIENT's timeout while other
 * backward credits are free (the grant is 8 after the first reply):
 * RPC_TIMEDOUT, its credit held until the late reply, meanwhile another
 * callback works, and the connection stays. */
START_TEST(test_cb_timeout)
{
	uint16_t port = port_new();
	SVCXPRT *l = srv_create_bidir(port, 2);
	CLIENT *cl = clnt_bidir(port);
	struct timeval t1 = { 1, 0 };
	struct rpcrdma_stats ss;
	uint64_t closes = global_stat_abandoned_closes();
	u_int ms = 2500;
	CLIENT *cb;

	subscribe(cl);
	cb = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG, 1);
	ck_assert_ptr_nonnull(cb);
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 2, 100), RPC_SUCCESS);
	ck_assert_int_eq(clnt_call(cb, CB_SLEEP, XP(xdr_u_int), (caddr_t)&ms,
				   XVOID, NULL, t1), RPC_TIMEDOUT);
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 3, 100), RPC_SUCCESS);
	ck_assert_int_eq(echo_on(cl, F_ECHO, 4, 100), RPC_SUCCESS);
	/* The late reply gives the abandoned call's credit back. */
	for (int i = 0; i < 100; i++) {
		ss = cbstats(cb);
		if (ss.bc_inflight == 0)
			break;
		usleep(50000);
	}
	ck_assert_uint_eq(ss.bc_inflight, 0);
	ck_assert_uint_eq(global_stat_abandoned_closes(), closes);
	ck_assert_uint_eq(cstats(cl).connects, 1);
	clnt_destroy(cb);
	clnt_destroy(cl);
	srv_destroy_bidir(l);
}
END_TEST

struct silent {
	CLIENT *cb;
	enum clnt_stat st;
};

static void *silent_main(void *arg)
{
	struct silent *a = arg;
	struct timeval t1 = { 1, 0 };

	a->st = clnt_call(a->cb, CB_SILENT, XVOID, NULL, XVOID, NULL, t1);
	return NULL;
}

/*
 * Callbacks the client's dispatch never answers, until every backward
 * credit (the grant, 8) is held by an abandoned call: each times out, the
 * server closes the connection (bc_abandoned_closes + 1), the next
 * callback fails at once with RPC_CANTSEND (not after its 30 s timeout),
 * the client's next forward call reconnects and callbacks work on the
 * new connection.
 */
START_TEST(test_cb_abandoned)
{
	uint16_t port = port_new();
	SVCXPRT *l = srv_create_bidir(port, 2);
	CLIENT *cl = clnt_bidir(port);
	uint64_t closes = global_stat_abandoned_closes();
	struct silent sl[RPCRDMA_BC_CREDITS];
	pthread_t th[RPCRDMA_BC_CREDITS];
	struct rpcrdma_stats ss, st;
	struct timeval t1 = { 1, 0 };
	struct rpc_err err;
	CLIENT *cb, *cb2;
	double t0, took;
	unsigned int i;

	subscribe(cl);
	cb = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG, 1);
	ck_assert_ptr_nonnull(cb);
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 1, 100), RPC_SUCCESS);
	ss = cbstats(cb);
	ck_assert_uint_eq(ss.bc_credits_granted, RPCRDMA_BC_CREDITS);
	/* One abandoned call alone leaves the other credits: no close. */
	ck_assert_int_eq(clnt_call(cb, CB_SILENT, XVOID, NULL, XVOID, NULL,
				   t1), RPC_TIMEDOUT);
	ck_assert_uint_eq(global_stat_abandoned_closes(), closes);
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 2, 100), RPC_SUCCESS);
	/* The other seven at once: the last to time out closes. */
	for (i = 0; i < RPCRDMA_BC_CREDITS - 1; i++) {
		sl[i] = (struct silent){ cb, RPC_SUCCESS };
		ck_assert_int_eq(pthread_create(&th[i], NULL, silent_main,
						&sl[i]), 0);
	}
	for (i = 0; i < RPCRDMA_BC_CREDITS - 1; i++) {
		pthread_join(th[i], NULL);
		ck_assert_msg(sl[i].st == RPC_TIMEDOUT, "silent %u: %s", i,
			      clnt_sperrno(sl[i].st));
	}
	ck_assert_uint_eq(global_stat_abandoned_closes(), closes + 1);
	t0 = now_ms();
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 3, 100), RPC_CANTSEND);
	took = now_ms() - t0;
	ck_assert_msg(took < 1000, "failed after %.0f ms", took);
	clnt_geterr(cb, &err);
	ck_assert_int_eq(err.re_errno, ENOTCONN);
	/* The client sees the disconnect, and its next call reconnects. */
	for (i = 0; i < 100; i++) {
		if (cstats(cl).disconnects >= 1)
			break;
		usleep(50000);
	}
	ck_assert_uint_ge(cstats(cl).disconnects, 1);
	ck_assert_int_eq(echo_on(cl, F_ECHO, 4, 100), RPC_SUCCESS);
	subscribe(cl);
	cb2 = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG, 1);
	ck_assert_ptr_nonnull(cb2);
	ck_assert_int_eq(echo_on(cb2, CB_ECHO, 5, 3000), RPC_SUCCESS);
	st = cstats(cl);
	ck_assert_uint_eq(st.connects, 2);
	ck_assert_uint_eq(st.bc_calls_dropped, 0);
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 6, 100), RPC_CANTSEND);
	clnt_destroy(cb2);
	clnt_destroy(cb);
	clnt_destroy(cl);
	srv_destroy_bidir(l);
}
END_TEST

/*
 * RFC 8167 section 4.2: a backward reply is inline only. One larger than
 * the server's inline receive threshold cannot go: the client answers
 * SYSTEM_ERR in its place (bc_replies_too_big), the dispatch function's
 * svc_sendreply returns FALSE, and the server's caller gets
 * RPC_SYSTEMERROR at once, not a timeout; the largest reply that fits
 * works, before and after, on the same connection.
 */
START_TEST(test_cb_reply_too_big)
{
	uint16_t port = port_new();
	SVCXPRT *l = srv_create_bidir(port, 2);
	CLIENT *cl = clnt_bidir(port);
	uint64_t closes = global_stat_abandoned_closes();
	struct blob out = { 0, NULL };
	struct rpcrdma_inline inl;
	struct rpcrdma_stats st, ss;
	double t0, took;
	u_int n;
	CLIENT *cb;

	subscribe(cl);
	ck_assert(clnt_control(cl, CLGET_RDMA_INLINE, (char *)&inl));
	cb = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG, 1);
	ck_assert_ptr_nonnull(cb);
	/* RDMA header 28, reply header 24 (null verifier), length 4. */
	n = inl.send_max - 28 - 24 - 4;
	ck_assert_int_eq(clnt_call(cb, CB_BIG, XP(xdr_u_int), (caddr_t)&n,
				   XP(xdr_blob), (caddr_t)&out, tmo30),
			 RPC_SUCCESS);
	ck_assert_uint_eq(out.len, n);
	ck_assert_int_eq(big_sent_wait(), 1);
	xdr_free(XP(xdr_blob), (char *)&out);
	out = (struct blob){ 0, NULL };
	n += 4;
	t0 = now_ms();
	ck_assert_int_eq(clnt_call(cb, CB_BIG, XP(xdr_u_int), (caddr_t)&n,
				   XP(xdr_blob), (caddr_t)&out, tmo30),
			 RPC_SYSTEMERROR);
	took = now_ms() - t0;
	ck_assert_msg(took < 5000, "SYSTEM_ERR after %.0f ms", took);
	ck_assert_int_eq(big_sent_wait(), 0);
	st = cstats(cl);
	ck_assert_uint_eq(st.bc_replies_too_big, 1);
	ck_assert_uint_eq(st.bc_replies_sent, st.bc_calls_recv);
	n -= 4;
	ck_assert_int_eq(clnt_call(cb, CB_BIG, XP(xdr_u_int), (caddr_t)&n,
				   XP(xdr_blob), (caddr_t)&out, tmo30),
			 RPC_SUCCESS);
	ck_assert_uint_eq(out.len, n);
	xdr_free(XP(xdr_blob), (char *)&out);
	ss = cbstats(cb);
	ck_assert_uint_eq(ss.bc_inflight, 0);
	ck_assert_uint_eq(global_stat_abandoned_closes(), closes);
	ck_assert_uint_eq(cstats(cl).connects, 1);
	clnt_destroy(cb);
	clnt_destroy(cl);
	srv_destroy_bidir(l);
}
END_TEST

/*
 * A CLIENT without any backward service: a callback made from the
 * dispatch of its forward call (which polls the connection, the client
 * having no service thread) is answered PROG_UNAVAIL at once, not after
 * the callback's 25 s, and the connection stays.
 */
START_TEST(test_cb_no_service)
{
	uint16_t port = port_new();
	SVCXPRT *l = srv_create_bidir(port, 2);
	struct rpcrdma_opts o;
	struct rpcrdma_stats st;
	u_int res = RPC_SUCCESS;
	double t0, took;
	CLIENT *cl;

	rpcrdma_opts_default(&o);
	o.port = port;
	o.src_addr = addr_a;
	o.credits = 8;
	cl = clnt_rdma_create(addr_b, F_PROG, 1, &o);
	ck_assert_msg(cl != NULL, "%s", clnt_spcreateerror("clnt"));
	t0 = now_ms();
	ck_assert_int_eq(clnt_call(cl, F_CB_NULL, XVOID, NULL, XP(xdr_u_int),
				   (caddr_t)&res, tmo30),
			 RPC_SUCCESS);
	took = now_ms() - t0;
	ck_assert_msg(res == RPC_PROGUNAVAIL, "callback: %s",
		      clnt_sperrno((enum clnt_stat)res));
	ck_assert_msg(took < 5000, "answered after %.0f ms", took);
	st = cstats(cl);
	ck_assert_uint_eq(st.bc_calls_recv, 1);
	ck_assert_uint_eq(st.bc_replies_sent, 1);
	ck_assert_uint_eq(st.bc_calls_dropped, 0);
	ck_assert_uint_eq(st.replies_unmatched, 0);
	ck_assert_int_eq(echo_on(cl, F_ECHO, 1, 100), RPC_SUCCESS);
	ck_assert_uint_eq(cstats(cl).connects, 1);
	clnt_destroy(cl);
	srv_destroy_bidir(l);
}
END_TEST

/* ---- a misbehaving peer on raw verbs ---- */

#define RAW_CREDITS	2	/* what the raw peer asks and is granted */

/* A forward call of proc with nargs argument words, as the raw peer. */
static void raw_fcall(struct rpcrdma_ep *ep, uint32_t xid, uint32_t proc,
		      const uint32_t *args, size_t nargs)
{
	uint32_t w[17 + 4] = { xid, 1, RAW_CREDITS, RPCRDMA_MSG, 0, 0, 0,
			       xid, CALL, 2, F_PROG, 1, proc, 0, 0, 0, 0 };

	ck_assert_uint_le(nargs, 4);
	memcpy(&w[17], args, nargs * 4);
	raw_send(ep, w, 17 + nargs);
}

/* An accepted SUCCESS reply of RFC 8167 shape whose transport header
 * says rdma_xid and grants credits, cut to nrpc of its six RPC words. */
static void raw_bc_reply(struct rpcrdma_ep *ep, uint32_t rdma_xid,
			 uint32_t rpc_xid, uint32_t credits, size_t nrpc)
{
	const uint32_t w[13] = { rdma_xid, 1, credits, RPCRDMA_MSG, 0, 0, 0,
				 rpc_xid, REPLY, MSG_ACCEPTED, 0, 0, SUCCESS };

	raw_send(ep, w, 7 + nrpc);
}

/* An RDMA_ERROR (RFC 8166 section 4.2.4) naming xid: ERR_VERS carries
 * the versions 1..1, ERR_CHUNK nothing more. */
static void raw_rdma_err(struct rpcrdma_ep *ep, uint32_t xid, uint32_t err)
{
	const uint32_t w[7] = { xid, 1, 8, RPCRDMA_ERROR, err, 1, 1 };

	raw_send(ep, w, err == RPCRDMA_ERR_VERS ? 7 : 5);
}

/* The next message to the raw peer, in host-order words (*nw of them,
 * at most max); fails the test after 10 s. */
static void raw_take(struct rpcrdma_ep *ep, uint32_t *w, size_t max,
		     size_t *nw)
{
	struct rpcrdma_rx rx;

	ck_assert_int_eq(rpcrdma_ep_poll(ep, &rx, 10000), 1);
	*nw = rx.len / 4 < max ? rx.len / 4 : max;
	for (size_t i = 0; i < *nw; i++) {
		memcpy(&w[i], rx.data + 4 * i, 4);
		w[i] = ntohl(w[i]);
	}
	rpcrdma_ep_rx_done(ep, &rx);
}

/* The server's backward NULL call to the raw peer: its XID. */
static uint32_t raw_take_bc_null(struct rpcrdma_ep *ep)
{
	uint32_t w[32];
	size_t n;

	raw_take(ep, w, 32, &n);
	ck_assert_uint_ge(n, 13);
	ck_assert_uint_eq(w[3], RPCRDMA_MSG);
	ck_assert(!w[4] && !w[5] && !w[6]);
	ck_assert_uint_eq(w[7], w[0]);
	ck_assert_uint_eq(w[8], CALL);
	ck_assert_uint_eq(w[10], CB_PROG);
	ck_assert_uint_eq(w[12], NULLPROC);
	return w[0];
}

/* The server's reply to the raw peer's F_CB_NULL xid: the callback's
 * clnt_stat it carries. */
static u_int raw_take_cb_result(struct rpcrdma_ep *ep, uint32_t xid)
{
	uint32_t w[32];
	size_t n;

	raw_take(ep, w, 32, &n);
	ck_assert_uint_eq(n, 14);
	ck_assert_uint_eq(w[0], xid);
	ck_assert_uint_eq(w[7], xid);
	ck_assert_uint_eq(w[8], REPLY);
	ck_assert_uint_eq(w[12], SUCCESS);
	return w[13];
}

/* Nothing reaches the raw peer for ms. */
static void raw_quiet(struct rpcrdma_ep *ep, int ms)
{
	struct rpcrdma_rx rx;
	int rc = rpcrdma_ep_poll(ep, &rx, ms);

	if (rc == 1) {
		uint32_t xid;

		memcpy(&xid, rx.data, 4);
		rpcrdma_ep_rx_done(ep, &rx);
		ck_abort_msg("a message (xid %08x) where none was due",
			     ntohl(xid));
	}
	ck_assert_int_eq(rc, 0);
}

/*
 * Hostile backward replies from a raw peer, while a good client runs
 * forward and backward echoes on the same server: replies with unknown
 * XIDs, cut after their msg_type, duplicated, whose RPC XID is not their
 * rdma_xid, carrying a write list, granting 0 and 2^32-1 credits, and
 * RDMA_ERRORs in their place; then
 * the forward credit check, which must neither count backward replies
 * queued beside calls as calls nor let a backward call outstanding widen
 * the forward grant (RFC 8166 section 3.3.1, RFC 8167 section 3.3).
 * Each dropped or answered as the RFCs say and counted; the good client
 * sees no failure.
 */
START_TEST(test_hostile_bc_replies)
{
	uint16_t port = port_new();
	SVCXPRT *l = srv_create_bidir(port, 4);
	CLIENT *cl = clnt_bidir(port), *cb, *cbr;
	struct loadarg fa[2], ba[2];
	pthread_t ft[2], bt[2];
	struct rpcrdma_stats g0, g1, rs;
	struct rpcrdma_ep *ep;
	struct rpcrdma_rx rx;
	uint32_t bx, w[32];
	size_t n;
	int rc;

	subscribe(cl);
	cb = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG, 1);
	ck_assert_ptr_nonnull(cb);
	for (unsigned int i = 0; i < 2; i++) {
		fa[i] = (struct loadarg){ cl, F_ECHO, 300 + i, 200, 20000, 0,
					  RPC_SUCCESS };
		ba[i] = (struct loadarg){ cb, CB_ECHO, 400 + i, 200, 3900, 0,
					  RPC_SUCCESS };
		ck_assert_int_eq(pthread_create(&ft[i], NULL, load_main,
						&fa[i]), 0);
		ck_assert_int_eq(pthread_create(&bt[i], NULL, load_main,
						&ba[i]), 0);
	}
	ep = raw_connect(port);
	/* The raw peer's own connection, to read its counters. */
	atomic_store(&subscribed, NULL);
	raw_fcall(ep, 0x30000001, F_SUBSCRIBE, NULL, 0);
	raw_take(ep, w, 32, &n);
	ck_assert_uint_eq(w[0], 0x30000001);
	cbr = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG,
					  1);
	ck_assert_ptr_nonnull(cbr);
	rpcrdma_stats_global(&g0);

	/* Replies nobody waits for: 16 whole, one cut after its msg_type,
	 * one whose RPC XID differs: dropped, never answered. */
	for (uint32_t i = 0; i < 16; i++)
		raw_bc_reply(ep, 0x31000000 + i, 0x31000000 + i, 8, 6);
	raw_bc_reply(ep, 0x31000100, 0x31000100, 8, 2);
	raw_bc_reply(ep, 0x31000101, 0x31000102, 8, 6);
	raw_quiet(ep, 300);
	rs = cbstats(cbr);
	ck_assert_uint_eq(rs.replies_unmatched, 17);
	ck_assert_uint_eq(rs.xid_mismatches, 1);

	/* A callback answered by a reply cut after its msg_type: the
	 * callback fails to decode it, nothing else happens. */
	raw_fcall(ep, 0x30000002, F_CB_NULL, NULL, 0);
	bx = raw_take_bc_null(ep);
	raw_bc_reply(ep, bx, bx, 8, 2);
	ck_assert_uint_eq(raw_take_cb_result(ep, 0x30000002),
			  RPC_CANTDECODERES);

	/* A callback answered by a reply whose RPC XID is not its rdma_xid
	 * (RFC 8166 section 4.2.1): its results cannot be trusted to be the
	 * callback's, which fails. */
	raw_fcall(ep, 0x30000003, F_CB_NULL, NULL, 0);
	bx = raw_take_bc_null(ep);
	raw_bc_reply(ep, bx, bx + 1, 8, 6);
	ck_assert_uint_eq(raw_take_cb_result(ep, 0x30000003),
			  RPC_CANTDECODERES);

	/* Callbacks answered by RDMA_ERROR (RFC 8166 section 4.5): failed
	 * at once as the forward CLIENT fails its calls, never answered;
	 * one naming no callback is dropped. */
	raw_fcall(ep, 0x3000000b, F_CB_NULL, NULL, 0);
	bx = raw_take_bc_null(ep);
	raw_rdma_err(ep, bx, RPCRDMA_ERR_VERS);
	ck_assert_uint_eq(raw_take_cb_result(ep, 0x3000000b),
			  RPC_SYSTEMERROR);
	raw_fcall(ep, 0x3000000c, F_CB_NULL, NULL, 0);
	bx = raw_take_bc_null(ep);
	raw_rdma_err(ep, bx, RPCRDMA_ERR_CHUNK);
	ck_assert_uint_eq(raw_take_cb_result(ep, 0x3000000c),
			  RPC_CANTDECODEARGS);
	raw_rdma_err(ep, 0x31000200, RPCRDMA_ERR_CHUNK);

	/* A callback answered by a reply carrying a write list (not of
	 * backward shape: taken as a forward call that does not parse,
	 * dropped), then by the right reply granting 0 credits (taken as
	 * 1), then by that reply again (nobody waits for it). */
	raw_fcall(ep, 0x3000000d, F_CB_NULL, NULL, 0);
	bx = raw_take_bc_null(ep);
	{
		const uint32_t wl[19] = { bx, 1, 8, RPCRDMA_MSG, 0,
					  1, 1, 0x1234, 4096, 0, 0x1000, 0,
					  0, bx, REPLY, MSG_ACCEPTED, 0, 0,
					  SUCCESS };

		raw_send(ep, wl, 19);
	}
	raw_bc_reply(ep, bx, bx, 0, 6);
	raw_bc_reply(ep, bx, bx, 0, 6);
	ck_assert_uint_eq(raw_take_cb_result(ep, 0x3000000d), RPC_SUCCESS);
	raw_quiet(ep, 300);
	rs = cbstats(cbr);
	ck_assert_uint_eq(rs.replies_unmatched, 19);
	ck_assert_uint_eq(rs.xid_mismatches, 2);
	ck_assert_uint_eq(rs.err_vers_recv, 1);
	ck_assert_uint_eq(rs.err_chunk_recv, 2);
	ck_assert_uint_eq(rs.bc_credits_granted, 1);

	/* The grant of 0 left one credit; a grant of 2^32-1 is clamped. */
	raw_fcall(ep, 0x30000004, F_CB_NULL, NULL, 0);
	bx = raw_take_bc_null(ep);
	raw_bc_reply(ep, bx, bx, 0xffffffffu, 6);
	ck_assert_uint_eq(raw_take_cb_result(ep, 0x30000004), RPC_SUCCESS);
	rs = cbstats(cbr);
	ck_assert_uint_eq(rs.bc_credits_granted, RPCRDMA_BC_CREDITS);
	ck_assert_uint_eq(rs.bc_replies_recv, 3);
	ck_assert_uint_eq(rs.credit_overruns, 0);
	clnt_destroy(cbr);

	/* Answers to backward calls queued behind a forward call are no
	 * calls: a SLEEP in service, then a NULL, 6 unmatched replies and
	 * an RDMA_ERROR at once (2 forward calls of a grant of 2): both
	 * answered, kept. */
	{
		const uint32_t ms = 500;

		raw_fcall(ep, 0x30000005, F_SLEEP, &ms, 1);
		usleep(100000);
		raw_fcall(ep, 0x30000006, NULLPROC, NULL, 0);
		for (uint32_t i = 0; i < 6; i++)
			raw_bc_reply(ep, 0x32000000 + i, 0x32000000 + i, 8,
				     6);
		raw_rdma_err(ep, 0x32000006, RPCRDMA_ERR_CHUNK);
		for (int i = 0; i < 2; i++) {
			raw_take(ep, w, 32, &n);
			ck_assert_msg(w[0] == 0x30000005 || w[0] == 0x30000006,
				      "reply to %08x", w[0]);
		}
	}
	raw_fcall(ep, 0x30000007, NULLPROC, NULL, 0);
	raw_take(ep, w, 32, &n);
	ck_assert_uint_eq(n, 13);
	ck_assert_uint_eq(w[0], 0x30000007);
	ck_assert_uint_eq(w[12], SUCCESS);

	/* A backward call outstanding does not widen the forward grant: a
	 * callback taken and never answered, then 2 more forward calls (3
	 * outstanding against 2): the server closes the connection. */
	raw_fcall(ep, 0x30000008, F_CB_NULL, NULL, 0);
	(void)raw_take_bc_null(ep);
	raw_fcall(ep, 0x30000009, NULLPROC, NULL, 0);
	raw_fcall(ep, 0x3000000a, NULLPROC, NULL, 0);
	while ((rc = rpcrdma_ep_poll(ep, &rx, 10000)) == 1)
		rpcrdma_ep_rx_done(ep, &rx);
	ck_assert_msg(rc == -ENOTCONN, "poll after the overrun: %d", rc);
	rpcrdma_stats_global(&g1);
	ck_assert_uint_eq(g1.credit_overruns - g0.credit_overruns, 1);
	rpcrdma_ep_destroy(ep);

	for (unsigned int i = 0; i < 2; i++) {
		pthread_join(ft[i], NULL);
		pthread_join(bt[i], NULL);
		ck_assert_msg(fa[i].fails == 0, "forward %u: %u failed (%s)",
			      i, fa[i].fails, clnt_sperrno(fa[i].last));
		ck_assert_msg(ba[i].fails == 0, "backward %u: %u failed (%s)",
			      i, ba[i].fails, clnt_sperrno(ba[i].last));
	}
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 9, 1000), RPC_SUCCESS);
	ck_assert_int_eq(echo_on(cl, F_ECHO, 9, 1000), RPC_SUCCESS);
	ck_assert_uint_eq(cstats(cl).connects, 1);
	ck_assert_uint_eq(cbstats(cb).credit_overruns, 0);
	clnt_destroy(cb);
	clnt_destroy(cl);
	srv_destroy_bidir(l);
}
END_TEST

/*
 * A raw responder the client connects to: answers each forward call
 * (accepted, void) and keeps the backward replies it is sent.
 */
struct rawsrv {
	struct rpcrdma_listener *l;
	struct rpcrdma_ep *ep;
	pthread_t th;
	atomic_bool stop;
	pthread_mutex_t lock;
	uint32_t rep[32][16];	/* backward replies, host-order words */
	atomic_uint nrep;
	atomic_int err;		/* poll's error: the connection ended */
};

static void *rawsrv_main(void *arg)
{
	struct rawsrv *r = arg;
	struct rpcrdma_limits lim;
	struct rpcrdma_msg m;
	struct rpcrdma_rx rx;
	uint32_t w[16], type;
	size_t hlen;
	int rc;

	rpcrdma_limits_default(&lim);
	while (!atomic_load(&r->stop)) {
		rc = rpcrdma_ep_poll(r->ep, &rx, 100);
		if (rc < 0) {
			atomic_store(&r->err, rc);
			break;
		}
		if (rc == 0)
			continue;
		ck_assert_int_eq(rpcrdma_hdr_decode(rx.data, rx.len, &lim, &m,
						    &hlen), RPCRDMA_HDR_OK);
		ck_assert_uint_ge(rx.len, hlen + 8);
		memcpy(&type, rx.data + hlen + 4, 4);
		if (ntohl(type) == CALL) {
			const uint32_t a[13] = { m.xid, 1, m.credits,
						 RPCRDMA_MSG, 0, 0, 0, m.xid,
						 REPLY, MSG_ACCEPTED, 0, 0,
						 SUCCESS };

			rpcrdma_ep_rx_done(r->ep, &rx);
			raw_send(r->ep, a, 13);
			continue;
		}
		memset(w, 0, sizeof(w));
		for (size_t i = 0; i < 16 && i < rx.len / 4; i++) {
			memcpy(&w[i], rx.data + 4 * i, 4);
			w[i] = ntohl(w[i]);
		}
		rpcrdma_ep_rx_done(r->ep, &rx);
		pthread_mutex_lock(&r->lock);
		ck_assert_uint_lt(atomic_load(&r->nrep), 32);
		memcpy(r->rep[atomic_load(&r->nrep)], w, sizeof(w));
		atomic_fetch_add(&r->nrep, 1);
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

static void *rawsrv_accept(void *arg)
{
	struct rawsrv *r = arg;
	struct pollfd pfd = { .fd = rpcrdma_listener_fd(r->l),
			      .events = POLLIN };

	for (int i = 0; i < 200 && !r->ep; i++) {
		poll(&pfd, 1, 50);
		if (rpcrdma_listener_accept(r->l, &r->ep) < 0)
			break;
	}
	return NULL;
}

/* The raw responder on a new port, with our client connected to it. */
static CLIENT *rawsrv_open(struct rawsrv *r)
{
	struct rpcrdma_ep_opts eo;
	struct rpcrdma_opts o;
	struct sockaddr_in sin;
	uint16_t port = port_new();
	CLIENT *cl;

	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	rpcrdma_opts_default(&o);
	ck_assert_int_eq(rpcrdma_opts_to_ep(&o, &eo), 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	inet_pton(AF_INET, addr_b, &sin.sin_addr);
	ck_assert_int_eq(rpcrdma_listener_create((struct sockaddr *)&sin, &eo,
						 &r->l), 0);
	/* The client's connect returns once accepted. */
	ck_assert_int_eq(pthread_create(&r->th, NULL, rawsrv_accept, r), 0);
	cl = clnt_bidir(port);
	pthread_join(r->th, NULL);
	ck_assert_ptr_nonnull(r->ep);
	ck_assert_int_eq(pthread_create(&r->th, NULL, rawsrv_main, r), 0);
	return cl;
}

static void rawsrv_close(struct rawsrv *r, CLIENT *cl)
{
	atomic_store(&r->stop, true);
	pthread_join(r->th, NULL);
	ck_assert_int_eq(atomic_load(&r->err), 0);
	clnt_destroy(cl);
	rpcrdma_ep_destroy(r->ep);
	rpcrdma_listener_destroy(r->l);
	pthread_mutex_destroy(&r->lock);
}

/* Waits up to ms for n backward replies in all. */
static void rawsrv_wait(struct rawsrv *r, unsigned int n, int ms)
{
	for (int t = 0; t < ms && atomic_load(&r->nrep) < n; t += 10)
		usleep(10000);
	ck_assert_msg(atomic_load(&r->err) == 0, "the connection ended: %d",
		      atomic_load(&r->err));
	ck_assert_uint_eq(atomic_load(&r->nrep), n);
}

/* A backward call from the raw responder: transport header of xid
 * asking credits, then the RPC words c[0..nc). */
static void raw_bc_call(struct rpcrdma_ep *ep, uint32_t proc, uint32_t xid,
			uint32_t credits, const uint32_t *c, size_t nc)
{
	uint32_t w[7 + 16] = { xid, 1, credits, proc, 0, 0, 0 };

	ck_assert_uint_le(nc, 16);
	memcpy(&w[7], c, nc * 4);
	raw_send(ep, w, 7 + nc);
	usleep(20000);
}

/* Forward NULL calls on cl until stop is set. */
struct nullloop {
	CLIENT *cl;
	atomic_bool stop;
	unsigned int calls, fails;
	enum clnt_stat last;
	pthread_t th;
};

static void *null_loop_main(void *arg)
{
	struct nullloop *a = arg;

	while (!atomic_load(&a->stop)) {
		enum clnt_stat st = clnt_call(a->cl, NULLPROC, XVOID, NULL,
					      XVOID, NULL, tmo30);
		a->calls++;
		if (st != RPC_SUCCESS) {
			a->fails++;
			a->last = st;
		}
	}
	return NULL;
}

static void null_loop_start(struct nullloop *a, CLIENT *cl)
{
	memset(a, 0, sizeof(*a));
	a->cl = cl;
	ck_assert_int_eq(pthread_create(&a->th, NULL, null_loop_main, a), 0);
}

static void null_loop_stop(struct nullloop *a)
{
	atomic_store(&a->stop, true);
	pthread_join(a->th, NULL);
	ck_assert_msg(a->calls > 0 && a->fails == 0,
		      "forward: %u of %u failed (%s)", a->fails, a->calls,
		      clnt_sperrno(a->last));
}

/*
 * Hostile backward calls from a raw responder while the client's
 * forward calls run: an RPC call cut after its msg_type, of RPC version
 * 3, whose XID is not its rdma_xid (dropped, RFC 8167 section 4.1); one
 * carrying a read list and one sent as RDMA_NOMSG (not of backward
 * shape: discarded as forward replies nobody waits for); one asking 1000
 * credits (answered, granting 8); an unknown program and version
 * (PROG_UNAVAIL, PROG_MISMATCH 1..1); then 9 calls at once against
 * the grant of 8: the ninth dropped (section 3.3). Forward calls run
 * throughout and never fail, the connection stays.
 */
START_TEST(test_hostile_bc_calls)
{
	struct rawsrv r;
	CLIENT *cl = rawsrv_open(&r);
	struct rpcrdma_stats s0, s1;
	struct nullloop fl;
	uint32_t x = 0x33000000;

	s0 = cstats(cl);
	null_loop_start(&fl, cl);
	usleep(100000);
	{
		const uint32_t cut[2] = { x + 1, CALL };
		const uint32_t v3[10] = { x + 2, CALL, 3, CB_PROG, 1,
					  NULLPROC, 0, 0, 0, 0 };
		const uint32_t mis[10] = { x + 4, CALL, 2, CB_PROG, 1,
					   NULLPROC, 0, 0, 0, 0 };
		const uint32_t rl[23] = { x + 5, 1, 8, RPCRDMA_MSG, 1, 0,
					  0x1234, 4096, 0, 0x1000, 0, 0, 0,
					  x + 5, CALL, 2, CB_PROG, 1,
					  NULLPROC, 0, 0, 0, 0 };
		const uint32_t nomsg[10] = { x + 6, CALL, 2, CB_PROG, 1,
					     NULLPROC, 0, 0, 0, 0 };
		const uint32_t ok[10] = { x + 7, CALL, 2, CB_PROG, 1,
					  NULLPROC, 0, 0, 0, 0 };
		const uint32_t noprog[10] = { x + 8, CALL, 2, CB_PROG + 5, 1,
					      NULLPROC, 0, 0, 0, 0 };
		const uint32_t novers[10] = { x + 9, CALL, 2, CB_PROG, 7,
					      NULLPROC, 0, 0, 0, 0 };

		raw_bc_call(r.ep, RPCRDMA_MSG, x + 1, 8, cut, 2);
		raw_bc_call(r.ep, RPCRDMA_MSG, x + 2, 8, v3, 10);
		raw_bc_call(r.ep, RPCRDMA_MSG, x + 3, 8, mis, 10);
		raw_send(r.ep, rl, 23);
		raw_bc_call(r.ep, RPCRDMA_NOMSG, x + 6, 8, nomsg, 10);
		raw_bc_call(r.ep, RPCRDMA_MSG, x + 7, 1000, ok, 10);
		raw_bc_call(r.ep, RPCRDMA_MSG, x + 8, 8, noprog, 10);
		raw_bc_call(r.ep, RPCRDMA_MSG, x + 9, 8, novers, 10);
	}
	rawsrv_wait(&r, 3, 10000);
	usleep(500000);
	ck_assert_uint_eq(atomic_load(&r.nrep), 3);
	pthread_mutex_lock(&r.lock);
	for (unsigned int i = 0; i < 3; i++) {
		const uint32_t *w = r.rep[i];

		/* RDMA_MSG, empty lists, accepted, granting 8 (s3.1). */
		ck_assert_uint_eq(w[1], 1);
		ck_assert_uint_eq(w[2], RPCRDMA_BC_CREDITS);
		ck_assert_uint_eq(w[3], RPCRDMA_MSG);
		ck_assert(!w[4] && !w[5] && !w[6]);
		ck_assert_uint_eq(w[7], w[0]);
		ck_assert_uint_eq(w[8], REPLY);
		ck_assert_uint_eq(w[9], MSG_ACCEPTED);
		if (w[0] == x + 7) {
			ck_assert_uint_eq(w[12], SUCCESS);
		} else if (w[0] == x + 8) {
			ck_assert_uint_eq(w[12], PROG_UNAVAIL);
		} else {
			ck_assert_uint_eq(w[0], x + 9);
			ck_assert_uint_eq(w[12], PROG_MISMATCH);
			ck_assert_uint_eq(w[13], 1);
			ck_assert_uint_eq(w[14], 1);
		}
	}
	pthread_mutex_unlock(&r.lock);
	s1 = cstats(cl);
	ck_assert_uint_eq(s1.bc_calls_dropped - s0.bc_calls_dropped, 3);
	ck_assert_uint_eq(s1.bc_replies_sent - s0.bc_replies_sent, 3);
	ck_assert_uint_eq(s1.replies_unmatched + s1.bad_headers -
			  s0.replies_unmatched - s0.bad_headers, 2);

	/* 9 sleeping calls at once against a grant of 8: the ninth is
	 * dropped as the forward caller's poll takes it, while the service
	 * thread sleeps in the first. */
	for (uint32_t i = 0; i < 9; i++) {
		const uint32_t sl[11] = { x + 16 + i, CALL, 2, CB_PROG, 1,
					  CB_SLEEP, 0, 0, 0, 0, 500 };
		uint32_t w[7 + 11] = { x + 16 + i, 1, 8, RPCRDMA_MSG, 0, 0,
				       0 };

		memcpy(&w[7], sl, sizeof(sl));
		raw_send(r.ep, w, 18);
	}
	rawsrv_wait(&r, 3 + 8, 15000);
	usleep(1000000);
	ck_assert_uint_eq(atomic_load(&r.nrep), 3 + 8);
	null_loop_stop(&fl);
	s1 = cstats(cl);
	ck_assert_uint_eq(s1.bc_calls_dropped - s0.bc_calls_dropped, 4);
	ck_assert_uint_le(s1.bc_inflight_peak, RPCRDMA_BC_CREDITS);
	/* Both directions still work on the same connection. */
	{
		const uint32_t ok[10] = { x + 30, CALL, 2, CB_PROG, 1,
					  NULLPROC, 0, 0, 0, 0 };

		raw_bc_call(r.ep, RPCRDMA_MSG, x + 30, 8, ok, 10);
	}
	rawsrv_wait(&r, 3 + 8 + 1, 10000);
	ck_assert_int_eq(clnt_call(cl, NULLPROC, XVOID, NULL, XVOID, NULL,
				   tmo30), RPC_SUCCESS);
	ck_assert_uint_eq(cstats(cl).connects, 1);
	rawsrv_close(&r, cl);
}
END_TEST

/* ---- connection loss ---- */

static pid_t fork_server(uint16_t port)
{
	int fds[2];
	char c;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		(void)srv_create_bidir(port, 2);
		if (write(fds[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &c, 1), 1);
	close(fds[0]);
	return pid;
}

/* One call of a sleeping procedure (F_SLEEP or CB_SLEEP) on its own
 * thread: its status and how long it took. */
struct sleepcall {
	CLIENT *cl;
	rpcproc_t proc;
	u_int ms;
	enum clnt_stat st;
	double took;
};

static void *sleepcall_main(void *arg)
{
	struct sleepcall *a = arg;
	double t0 = now_ms();

	a->st = clnt_call(a->cl, a->proc, XP(xdr_u_int), (caddr_t)&a->ms,
			  XVOID, NULL, tmo30);
	a->took = now_ms() - t0;
	return NULL;
}

/*
 * The server is killed while a forward call waits and a callback sleeps
 * in the client's dispatch: the forward call fails promptly (not at its
 * timeout), the callback's reply goes nowhere, and once a server is back
 * the next forward call reconnects and callbacks work on the new
 * connection.
 */
START_TEST(test_server_killed)
{
	uint16_t port = port_new();
	pid_t pid = fork_server(port);
	CLIENT *cl = clnt_bidir(port);
	struct sleepcall fs = { cl, F_SLEEP, 20000, RPC_SUCCESS, 0 };
	struct cbreq r = { 3, 11, 500 };
	struct rpcrdma_stats st;
	pthread_t th;
	u_int ok = 0;
	int status;

	ck_assert_int_eq(echo_on(cl, F_ECHO, 1, 1000), RPC_SUCCESS);
	ck_assert_int_eq(pthread_create(&th, NULL, sleepcall_main, &fs), 0);
	usleep(300000);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	pthread_join(th, NULL);
	ck_assert_msg(fs.st == RPC_CANTRECV || fs.st == RPC_CANTSEND,
		      "after kill: %s", clnt_sperrno(fs.st));
	ck_assert_msg(fs.took < 15000, "failed after %.0f ms", fs.took);
	pid = fork_server(port);
	ck_assert_int_eq(echo_on(cl, F_ECHO, 2, 1000), RPC_SUCCESS);
	ck_assert_int_eq(clnt_call(cl, F_CB_ECHO, XP(xdr_cbreq), (caddr_t)&r,
				   XP(xdr_u_int), (caddr_t)&ok, tmo30),
			 RPC_SUCCESS);
	ck_assert_uint_eq(ok, r.n);
	st = cstats(cl);
	ck_assert_uint_eq(st.connects, 2);
	clnt_destroy(cl);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}
END_TEST

/*
 * The client is killed while callbacks wait (one sleeping in its
 * dispatch, others queued behind it): they fail promptly with
 * RPC_CANTRECV, later calls on the callback CLIENT fail at once, and the
 * CLIENT outlives the connection.
 */
START_TEST(test_client_killed)
{
	uint16_t port = port_new();
	struct sleepcall cs[3];
	pthread_t th[3];
	int up[2], go[2], status;
	SVCXPRT *l;
	CLIENT *cb;
	char c;
	pid_t pid;

	/* The child forks before this process opens any device. */
	ck_assert_int_eq(pipe(up), 0);
	ck_assert_int_eq(pipe(go), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		CLIENT *cl;

		close(up[0]);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		cl = clnt_bidir(port);
		if (clnt_call(cl, F_SUBSCRIBE, XVOID, NULL, XVOID, NULL,
			      tmo30) != RPC_SUCCESS ||
		    write(up[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(up[1]);
	close(go[0]);
	atomic_store(&subscribed, NULL);
	l = srv_create_bidir(port, 2);
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	ck_assert_int_eq(read(up[0], &c, 1), 1);
	close(up[0]);
	close(go[1]);
	ck_assert_ptr_nonnull(atomic_load(&subscribed));
	cb = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG, 1);
	ck_assert_ptr_nonnull(cb);
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 1, 2000), RPC_SUCCESS);
	for (int i = 0; i < 3; i++) {
		cs[i] = (struct sleepcall){ cb, CB_SLEEP, 20000, RPC_SUCCESS,
					    0 };
		ck_assert_int_eq(pthread_create(&th[i], NULL, sleepcall_main,
						&cs[i]), 0);
	}
	usleep(500000);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		ck_assert_msg(cs[i].st == RPC_CANTRECV ||
			      cs[i].st == RPC_CANTSEND,
			      "callback %d: %s", i, clnt_sperrno(cs[i].st));
		ck_assert_msg(cs[i].took < 15000, "failed after %.0f ms",
			      cs[i].took);
	}
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 2, 100), RPC_CANTSEND);
	clnt_destroy(cb);
	srv_destroy_bidir(l);
}
END_TEST

int main(void)
{
	Suite *su;
	TCase *tc;

	if (!guest_addrs("t_bidir"))
		return 77;
	su = suite_create("bidir");
	tc = tcase_create("bidir");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_cb_in_dispatch);
	tcase_add_test(tc, test_load_both_ways);
	tcase_add_test(tc, test_too_big);
	tcase_add_test(tc, test_forward_from_callback);
	tcase_add_test(tc, test_cb_timeout);
	tcase_add_test(tc, test_cb_abandoned);
	tcase_add_test(tc, test_cb_reply_too_big);
	tcase_add_test(tc, test_cb_no_service);
	tcase_add_test(tc, test_hostile_bc_replies);
	tcase_add_test(tc, test_hostile_bc_calls);
	tcase_add_test(tc, test_server_killed);
	tcase_add_test(tc, test_client_killed);
	suite_add_tcase(su, tc);
	return run_suite(su);
}
