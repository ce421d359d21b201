/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_clnt: many threads on one CLIENT and timeouts: 64 threads against a
 * server granting 8 credits (test_threads_credits, twice: without and with
 * opts.poll_us), a call abandoned at its timeout (test_timeout), and one
 * timing out while another thread holds the poller role
 * (test_timeout_while_polled).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "t_clnt.h"

/* ---- many threads on one CLIENT ---- */

#define NTHREADS	64
#define NCALLS		4

struct worker {
	CLIENT *cl;
	int id;
	int ok;
};

static pthread_barrier_t workers_go;

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	u_int ms = 40;

	/*
	 * All at once, a first call that the server holds 40 ms: the server
	 * serves one call at a time, so 8 are out and the other 56 callers
	 * must wait for a credit, however fast the fabric is.
	 */
	pthread_barrier_wait(&workers_go);
	if (clnt_call(w->cl, P_SLEEP, XP(xdr_u_int), &ms, XP(xdr_void), NULL,
		      tmo) != RPC_SUCCESS)
		return NULL;
	for (int i = 0; i < NCALLS; i++) {
		/* Every fourth call does not fit inline (8000 > 4004). */
		size_t n = (w->id + i) % 4 == 0 ? 8000 : 100 + w->id;
		struct blob a = { (u_int)n, mkdata((uint32_t)(w->id * 31 + i),
						   n) };
		struct blob r = { 0, NULL };

		enum clnt_stat cs = clnt_call(w->cl, P_ECHO, XP(xdr_blob), &a,
					      XP(xdr_blob), &r, tmo);
		if (cs == RPC_SUCCESS &&
		    r.len == n && memcmp(r.data, a.data, n) == 0)
			w->ok++;
		else
			printf("worker %d call %d (%zu bytes): %s, %u bytes "
			       "back\n", w->id, i, n, clnt_sperrno(cs), r.len);
		clnt_freeres(w->cl, XP(xdr_blob), &r);
		free(a.data);
	}
	return NULL;
}

/* 64 threads, a server granting 8: all complete, never more than 8 out;
 * the second time with the poller polling the CQ before it sleeps
 * (opts.poll_us), which hands the poller role on as often. */
START_TEST(test_threads_credits)
{
	struct worker w[NTHREADS];
	pthread_t th[NTHREADS];
	struct rpcrdma_stats st;
	struct rpcrdma_opts o;
	struct srv s;
	CLIENT *cl;
	int ok = 0;

	srv_start(&s, 8, 1u << 16);
	rpcrdma_opts_default(&o);
	o.poll_us = _i ? 500 : 0;
	clnt_base = &o;
	cl = clnt_mk(s.port, 64, 1u << 16);
	clnt_base = NULL;
	ck_assert_int_eq(pthread_barrier_init(&workers_go, NULL, NTHREADS), 0);
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .cl = cl, .id = i };
		ck_assert_int_eq(pthread_create(&th[i], NULL, worker_main,
						&w[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		ok += w[i].ok;
	}
	st = stats_of(cl);
	ck_assert_int_eq(ok, NTHREADS * NCALLS);
	pthread_barrier_destroy(&workers_go);
	/* The SLEEP calls are inline too. */
	ck_assert_uint_eq(st.calls_inline + st.calls_read_chunks,
			  NTHREADS * (NCALLS + 1));
	/* 8000 bytes reach the DDP threshold: a read chunk each. */
	ck_assert_uint_eq(st.calls_read_chunks, NTHREADS * NCALLS / 4);
	ck_assert_uint_eq(st.credits_granted, 8);
	ck_assert_uint_le(st.inflight_peak, 8);
	ck_assert_uint_ge(st.inflight_peak, 2);
	ck_assert_uint_gt(st.credit_waits, 0);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

/* A call that times out is abandoned; its late reply is dropped and its
 * credit comes back: the next calls work. */
START_TEST(test_timeout)
{
	struct timeval short_tmo = { 0, 300000 };
	struct srv s;
	CLIENT *cl;
	u_int ms = 1500;
	struct rpc_err err;

	srv_start(&s, 8, 1u << 16);
	cl = clnt_mk(s.port, 8, 1u << 16);
	ck_assert_int_eq(clnt_call(cl, P_SLEEP, XP(xdr_u_int), &ms,
				   XP(xdr_void), NULL, short_tmo),
			 RPC_TIMEDOUT);
	clnt_geterr(cl, &err);
	ck_assert_int_eq(err.re_status, RPC_TIMEDOUT);
	/* Waits behind the sleeping call (the server is serial). */
	ck_assert_int_eq(clnt_call(cl, P_NULL, XP(xdr_void), NULL,
				   XP(xdr_void), NULL, tmo), RPC_SUCCESS);
	for (int i = 0; i < 20; i++)
		echo_check(cl, 10, true, true);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

/*
 * A call times out while another thread holds the poller role, asleep
 * for its own long call: the timed-out call's windows (reply chunk; the
 * client without R, so they are invalidated, not reset) are revoked by
 * the poller, woken for it, and the caller returns at once; the long
 * call goes on undisturbed on the same connection.
 */
struct sleeper {
	CLIENT *cl;
	u_int ms;
	struct timeval tmo;
	enum clnt_stat st;
	double secs;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *sleeper_main(void *arg)
{
	struct sleeper *z = arg;
	double t0 = now_s();

	z->st = clnt_call(z->cl, P_SLEEP, XP(xdr_u_int), &z->ms,
			  XP(xdr_void), NULL, z->tmo);
	z->secs = now_s() - t0;
	return NULL;
}

static void null_ok(CLIENT *cl)
{
	expect_ok(cl, clnt_call(cl, P_NULL, XP(xdr_void), NULL, XP(xdr_void),
				NULL, tmo), "null");
}

START_TEST(test_timeout_while_polled)
{
	struct sleeper p, t;
	struct rpcrdma_stats a, b;
	struct rpcrdma_opts o;
	pthread_t pth, tth;
	struct srv s;
	CLIENT *cl;

	srv_start(&s, 8, 1u << 16);
	rpcrdma_opts_default(&o);
	o.remote_inv = false;
	clnt_base = &o;
	cl = clnt_mk(s.port, 8, 1u << 16);
	clnt_base = NULL;
	null_ok(cl);
	a = stats_of(cl);
	p = (struct sleeper){ cl, 2500, { 20, 0 }, RPC_FAILED, 0 };
	t = (struct sleeper){ cl, 10, { 0, 400000 }, RPC_FAILED, 0 };
	ck_assert_int_eq(pthread_create(&pth, NULL, sleeper_main, &p), 0);
	usleep(300000);		/* p is the poller, asleep */
	ck_assert_int_eq(pthread_create(&tth, NULL, sleeper_main, &t), 0);
	pthread_join(tth, NULL);
	pthread_join(pth, NULL);
	b = stats_of(cl);
	/* t waited behind p on the serial server and gave up. */
	ck_assert_int_eq(t.st, RPC_TIMEDOUT);
	ck_assert_msg(t.secs < 2.0, "the timed-out call took %.2f s", t.secs);
	ck_assert_int_eq(p.st, RPC_SUCCESS);
	ck_assert_uint_eq(b.connects, a.connects);
	ck_assert_uint_eq(b.disconnects, a.disconnects);
	if (windows_expected())
		ck_assert_uint_ge(b.local_invalidations - a.local_invalidations,
				  2);
	null_ok(cl);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

void t_clnt_add_threads(TCase *tc)
{
	tcase_add_loop_test(tc, test_threads_credits, 0, 2);
	tcase_add_test(tc, test_timeout);
	tcase_add_test(tc, test_timeout_while_polled);
}
