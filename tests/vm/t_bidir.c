/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bi-directional RPC-over-RDMA (RFC 8167) in the guest: callbacks from
 * the server's dispatch functions and from other threads, interleaved
 * with forward calls under load (every byte checked), backward credits
 * (counters), a backward call over the inline threshold, a forward call
 * made from inside a callback, and connection loss (server killed,
 * client killed) failing both directions' calls, then reconnecting.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "harness.h"

#define F_PROG		0x20000b10	/* forward, on the server */
#define F_ECHO		1	/* blob -> blob */
#define F_CB_ECHO	2	/* cbreq -> u_int: n callbacks from dispatch */
#define F_SUBSCRIBE	3	/* void -> void: remember the connection */
#define F_SLEEP		4	/* u_int ms -> void */
#define CB_PROG		0x20000b11	/* backward, on the client */
#define CB_ECHO		1	/* blob -> blob */
#define CB_FWD		2	/* u_int seed -> u_int: forward call inside */
#define CB_SLEEP	3	/* u_int ms -> void */

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
	struct blob b = { 0, NULL };
	struct cbreq r;
	u_int ms = 0, ok = 0;
	CLIENT *cb;

	switch (rq->rq_proc) {
	case NULLPROC:
		svc_sendreply(x, XVOID, NULL);
		return;
	case F_ECHO:
		if (!svc_getargs(x, XP(xdr_blob), (caddr_t)&b)) {
			svcerr_decode(x);
			return;
		}
		svc_sendreply(x, XP(xdr_blob), (caddr_t)&b);
		svc_freeargs(x, XP(xdr_blob), (caddr_t)&b);
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
	case F_SUBSCRIBE:
		atomic_store(&subscribed, x);
		svc_sendreply(x, XVOID, NULL);
		return;
	case F_SLEEP:
		if (!svc_getargs(x, XP(xdr_u_int), (caddr_t)&ms)) {
			svcerr_decode(x);
			return;
		}
		usleep((useconds_t)ms * 1000);
		svc_sendreply(x, XVOID, NULL);
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
		if (!svc_getargs(x, XP(xdr_blob), (caddr_t)&b)) {
			svcerr_decode(x);
			return;
		}
		svc_sendreply(x, XP(xdr_blob), (caddr_t)&b);
		svc_freeargs(x, XP(xdr_blob), (caddr_t)&b);
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
		if (!svc_getargs(x, XP(xdr_u_int), (caddr_t)&v)) {
			svcerr_decode(x);
			return;
		}
		usleep((useconds_t)v * 1000);
		svc_sendreply(x, XVOID, NULL);
		return;
	default:
		svcerr_noproc(x);
	}
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

/* A callback whose client sleeps past the CLIENT's timeout: RPC_TIMEDOUT,
 * its credit held until the late reply, then everything works. */
START_TEST(test_cb_timeout)
{
	uint16_t port = port_new();
	SVCXPRT *l = srv_create_bidir(port, 2);
	CLIENT *cl = clnt_bidir(port);
	struct timeval t1 = { 1, 0 };
	struct rpcrdma_stats ss;
	u_int ms = 2500;
	CLIENT *cb;

	subscribe(cl);
	cb = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG, 1);
	ck_assert_ptr_nonnull(cb);
	ck_assert_int_eq(clnt_call(cb, CB_SLEEP, XP(xdr_u_int), (caddr_t)&ms,
				   XVOID, NULL, t1), RPC_TIMEDOUT);
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 3, 100), RPC_SUCCESS);
	ck_assert_int_eq(echo_on(cl, F_ECHO, 4, 100), RPC_SUCCESS);
	ss = cbstats(cb);
	ck_assert_uint_eq(ss.bc_inflight, 0);
	clnt_destroy(cb);
	clnt_destroy(cl);
	srv_destroy_bidir(l);
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

struct fwdsleep {
	CLIENT *cl;
	u_int ms;
	enum clnt_stat st;
	double took;
};

static void *fwd_sleep_main(void *arg)
{
	struct fwdsleep *a = arg;
	double t0 = now_ms();

	a->st = clnt_call(a->cl, F_SLEEP, XP(xdr_u_int), (caddr_t)&a->ms,
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
	struct fwdsleep fs = { cl, 20000, RPC_SUCCESS, 0 };
	struct cbreq r = { 3, 11, 500 };
	struct rpcrdma_stats st;
	pthread_t th;
	u_int ok = 0;
	int status;

	ck_assert_int_eq(echo_on(cl, F_ECHO, 1, 1000), RPC_SUCCESS);
	ck_assert_int_eq(pthread_create(&th, NULL, fwd_sleep_main, &fs), 0);
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

struct cbsleep {
	CLIENT *cb;
	u_int ms;
	enum clnt_stat st;
	double took;
};

static void *cb_sleep_main(void *arg)
{
	struct cbsleep *a = arg;
	double t0 = now_ms();

	a->st = clnt_call(a->cb, CB_SLEEP, XP(xdr_u_int), (caddr_t)&a->ms,
			  XVOID, NULL, tmo30);
	a->took = now_ms() - t0;
	return NULL;
}

/*
 * The client is killed while callbacks wait (one sleeping in its
 * dispatch, others queued behind it): they fail promptly with
 * RPC_CANTRECV, later calls on the callback CLIENT fail at once, and the
 * CLIENT outlives the connection.
 */
START_TEST(test_client_killed)
{
	uint16_t port = port_new();
	struct cbsleep cs[3];
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
		cs[i] = (struct cbsleep){ cb, 20000, RPC_SUCCESS, 0 };
		ck_assert_int_eq(pthread_create(&th[i], NULL, cb_sleep_main,
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
	tcase_add_test(tc, test_server_killed);
	tcase_add_test(tc, test_client_killed);
	suite_add_tcase(su, tc);
	return run_suite(su);
}
