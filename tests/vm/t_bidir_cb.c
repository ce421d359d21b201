/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Callbacks that go wrong (t_bidir): test_cb_timeout (a callback past
 * its timeout, its credit held until the late reply), test_cb_abandoned
 * (every backward credit held by an unanswered call: the server closes
 * the connection, the client reconnects), test_cb_reply_too_big (a
 * backward reply over the server's inline threshold: SYSTEM_ERR) and
 * test_cb_no_service (a client without a backward service: PROG_UNAVAIL).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>
#include "t_bidir.h"

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

void t_bidir_add_cb(TCase *tc)
{
	tcase_add_test(tc, test_cb_timeout);
	tcase_add_test(tc, test_cb_abandoned);
	tcase_add_test(tc, test_cb_reply_too_big);
	tcase_add_test(tc, test_cb_no_service);
}
