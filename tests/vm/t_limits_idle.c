/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_limits's tests of idle connections (of the TCase "limits"; security
 * review 21c8dd5, finding 6): a connection that carries nothing for
 * idle_ms is closed while a busy one beside it is not, a CLIENT whose
 * connection was reaped reconnects for its next call, a call in its
 * dispatch function for longer than idle_ms keeps its connection, and at
 * max_conns a connection idle for half idle_ms makes room for a new
 * client while a just-used one does not.
 *
 * The servers run a pool of threads: a dispatch function that sleeps
 * must not stop the others' timers from being looked at.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "harness.h"
#include "../../engine/engine.h"
#include "t_limits.h"

/* Whether ep is down (its poll fails), handing back what it received. */
static bool raw_down(struct rpcrdma_ep *ep)
{
	struct rpcrdma_rx rx;
	int rc = rpcrdma_ep_poll(ep, &rx, 0);

	if (rc > 0)
		rpcrdma_ep_rx_done(ep, &rx);
	return rc < 0;
}

/* A raw connection to port, or NULL when the server refused it. */
static struct rpcrdma_ep *raw_try_connect(uint16_t port)
{
	struct rpcrdma_ep_opts eo;
	struct rpcrdma_opts o;
	struct sockaddr_in dst, src;
	struct rpcrdma_ep *ep = NULL;

	rpcrdma_opts_default(&o);
	ck_assert_int_eq(rpcrdma_opts_to_ep(&o, &eo), 0);
	guest_sockaddrs(port, &dst, &src);
	if (rpcrdma_ep_connect((struct sockaddr *)&dst,
			       (struct sockaddr *)&src, &eo, &ep))
		return NULL;
	return ep;
}

static uint64_t g_closes_idle(void)
{
	struct rpcrdma_stats g;

	rpcrdma_stats_global(&g);
	return g.closes_idle;
}

/*
 * idle_ms 1000 (a tick every 500 ms): raw connection A makes one NULL call
 * and goes quiet while B makes one every 200 ms. A is closed between 1
 * and 1.5 s after its call (2.5 s allowed under TCG), B never; the
 * process counts one closes_idle. Then a CLIENT whose connection was
 * reaped makes its next call on a new one, and a call that spends 2.5 s
 * in its dispatch function (longer than idle_ms and a half) keeps its
 * connection.
 */
START_TEST(test_idle_reaping)
{
	struct rpcrdma_stats g0, g1;
	struct rpcrdma_ep *a, *b;
	struct rpcrdma_opts o;
	uint32_t xid = 100;
	double t0, down = 0;
	struct timeval slow = { 10, 0 };
	u_int ms = 2500;
	enum clnt_stat st;
	struct srv s;
	CLIENT *cl;

	rpcrdma_opts_default(&o);
	o.idle_ms = 1000;
	srv_start_pool(&s, &o, 2, false);
	rpcrdma_stats_global(&g0);
	a = raw_connect(s.port);
	b = raw_connect(s.port);
	raw_null_call(a, 1);
	t0 = now_ms();
	while (now_ms() - t0 < 3000) {
		raw_null_call(b, xid++);
		if (!down && raw_down(a))
			down = now_ms() - t0;
		usleep(200000);
	}
	ck_assert_msg(down > 0, "an idle connection was not closed in 3 s");
	ck_assert_msg(down >= 900 && down <= 2500,
		      "closed %.0f ms after its last call (idle_ms 1000)",
		      down);
	ck_assert(!raw_down(b));
	raw_null_call(b, xid++);
	rpcrdma_stats_global(&g1);
	ck_assert_uint_eq(g1.closes_idle - g0.closes_idle, 1);
	ck_assert_uint_eq(g1.closes_evicted, g0.closes_evicted);
	rpcrdma_ep_destroy(a);
	rpcrdma_ep_destroy(b);

	/* A CLIENT's connection reaped between two calls. */
	cl = clnt_by_netid(s.port);
	ck_assert_ptr_nonnull(cl);
	null_call(cl);
	g0 = g1;
	for (int i = 0; i < 50 && g_closes_idle() == g0.closes_idle; i++)
		usleep(100000);
	ck_assert_uint_eq(g_closes_idle() - g0.closes_idle, 1);
	null_call(cl);

	/* A call in progress for longer than the idle time. */
	g0.closes_idle = g_closes_idle();
	st = clnt_call(cl, P_SLEEP, XP(xdr_u_int), (caddr_t)&ms, XVOID, NULL,
		       slow);
	ck_assert_msg(st == RPC_SUCCESS, "a 2.5 s call: %s", clnt_sperrno(st));
	ck_assert_uint_eq(g_closes_idle(), g0.closes_idle);
	null_call(cl);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

/*
 * max_conns 2, idle_ms 4000 (a tick every 2 s): with A and B just used, a
 * third connection is refused. After A has been quiet for 4.5 s while B
 * calls every 300 ms (A idle for a whole tick, not yet for two), a third
 * is admitted and A is the one closed (closes_evicted 1, closes_idle 0).
 * Then C stays quiet for 3.9 s (a quiet tick, not two) and makes one
 * call: a fourth connection is refused, as C was in use since its last
 * tick (security review of this change: the quiet tick alone evicted a
 * connection in use).
 */
START_TEST(test_evict_idle)
{
	struct rpcrdma_stats g0, g1;
	struct rpcrdma_ep *a, *b, *c, *d;
	struct rpcrdma_opts o;
	uint32_t xid = 200;
	double t0;
	struct srv s;

	rpcrdma_opts_default(&o);
	o.max_conns = 2;
	o.max_conns_per_source = 0;
	o.idle_ms = 4000;
	srv_start_pool(&s, &o, 2, false);
	rpcrdma_stats_global(&g0);
	a = raw_connect(s.port);
	b = raw_connect(s.port);
	raw_null_call(a, 1);
	raw_null_call(b, 2);
	c = raw_try_connect(s.port);
	ck_assert_msg(c == NULL, "a third connection was admitted while "
		      "both were in use");
	t0 = now_ms();
	while (now_ms() - t0 < 4500) {
		raw_null_call(b, xid++);
		usleep(300000);
	}
	ck_assert(!raw_down(a));
	c = raw_try_connect(s.port);
	ck_assert_msg(c != NULL, "no room made by a connection idle 4.5 s");
	raw_null_call(c, 3);
	for (int i = 0; i < 50 && !raw_down(a); i++)
		usleep(100000);
	ck_assert_msg(raw_down(a), "the idle connection was not closed");
	t0 = now_ms();
	while (now_ms() - t0 < 3900) {
		raw_null_call(b, xid++);
		usleep(300000);
	}
	raw_null_call(c, 4);
	d = raw_try_connect(s.port);
	ck_assert_msg(d == NULL, "a fourth connection was admitted: a "
		      "connection used since its quiet tick was evicted");
	ck_assert(!raw_down(c));
	raw_null_call(c, 5);
	raw_null_call(b, xid++);
	rpcrdma_stats_global(&g1);
	ck_assert_uint_eq(g1.closes_evicted - g0.closes_evicted, 1);
	ck_assert_uint_eq(g1.closes_idle, g0.closes_idle);
	ck_assert_uint_ge(g1.connections_refused - g0.connections_refused, 2);
	rpcrdma_ep_destroy(a);
	rpcrdma_ep_destroy(b);
	rpcrdma_ep_destroy(c);
	srv_stop(&s);
}
END_TEST

void t_limits_add_idle(TCase *tc)
{
	tcase_add_test(tc, test_idle_reaping);
	tcase_add_test(tc, test_evict_idle);
}
