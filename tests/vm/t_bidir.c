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
 *
 * This file: main and the callbacks under load (test_cb_in_dispatch,
 * test_load_both_ways, test_too_big, test_forward_from_callback); the
 * other tests live in t_bidir_cb.c, t_bidir_bcreplies.c,
 * t_bidir_bccalls.c and t_bidir_loss.c, what they share in
 * t_bidir_util.c (t_bidir.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include "t_bidir.h"

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

/*
 * A callback waiting for its answer keeps its connection from being idle
 * (RPCRDMA_IDLE_MS): nothing of it is posted or held while the client's
 * service runs it, so the server counts backward calls unanswered as in
 * progress (rpcrdma_ep_set_holds). idle_ms 1000: a callback that sleeps
 * 2.5 s on the client gets its answer on the same connection; once all
 * is quiet the connection is reaped as usual (closes_idle 1).
 */
START_TEST(test_idle_callback_waits)
{
	uint16_t port = port_new();
	SVCXPRT *l = srv_create_bidir_idle(port, 2, 1000);
	CLIENT *cl = clnt_bidir(port);
	struct rpcrdma_stats g0, g1, c0, c1;
	struct timeval tv = { 10, 0 };
	u_int ms = 2500;
	CLIENT *cb;

	subscribe(cl);
	cb = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG, 1);
	ck_assert_ptr_nonnull(cb);
	rpcrdma_stats_global(&g0);
	c0 = cstats(cl);
	ck_assert_int_eq(clnt_call(cb, CB_SLEEP, XP(xdr_u_int), (caddr_t)&ms,
				   XVOID, NULL, tv), RPC_SUCCESS);
	c1 = cstats(cl);
	rpcrdma_stats_global(&g1);
	ck_assert_uint_eq(g1.closes_idle, g0.closes_idle);
	ck_assert_uint_eq(c1.disconnects, c0.disconnects);
	/* Quiet now: reaped within idle_ms and a half (5 s allowed). */
	for (int i = 0; i < 50 && g1.closes_idle == g0.closes_idle; i++) {
		usleep(100000);
		rpcrdma_stats_global(&g1);
	}
	ck_assert_uint_eq(g1.closes_idle - g0.closes_idle, 1);
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
	tcase_add_test(tc, test_idle_callback_waits);
	tcase_add_test(tc, test_forward_from_callback);
	t_bidir_add_cb(tc);
	t_bidir_add_bc_replies(tc);
	t_bidir_add_bc_calls(tc);
	t_bidir_add_loss(tc);
	suite_add_tcase(su, tc);
	return run_suite(su);
}
