/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "faults" TCase of t_faults: test_kill_during_burst, the server
 * child SIGKILLed in the middle of a burst of calls by 8 threads on one
 * CLIENT (every call ends in time, with a connection error once the
 * server is gone), then restarted: the same CLIENT reconnects.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "t_faults.h"

/* ---- faults: the server dies during a burst ---- */

#define F_THREADS	8
#define F_MAXCALLS	1000
#define F_TMO_S		5	/* per call */
#define F_MARGIN_S	2.0	/* allowed beyond the call timeout */

struct rec {
	double t0, t1;
	enum clnt_stat st;
};

struct fworker {
	CLIENT *cl;
	int id;
	int n;
	struct rec r[F_MAXCALLS];
};

static atomic_int f_ok;		/* successful calls, all threads */
static _Atomic double f_dead;	/* when the server was reaped, 0 before */

static void *fworker_main(void *arg)
{
	struct fworker *w = arg;
	int after = 0;

	while (w->n < F_MAXCALLS && after < 2) {
		struct rec *r = &w->r[w->n++];
		double dead;

		r->t0 = now_s();
		if ((w->id + w->n) % 4 == 0) {
			r->st = call_echo(w->cl, 100 + (size_t)w->id * 300,
					  (unsigned)(w->id * 7 + w->n),
					  F_TMO_S);
		} else {
			struct timeval tv = { F_TMO_S, 0 };
			u_int ms = 20, back = 0;

			r->st = clnt_call(w->cl, P_SLEEP, XP(xdr_u_int), &ms,
					  XP(xdr_u_int), &back, tv);
			if (r->st == RPC_SUCCESS)
				ck_assert_uint_eq(back, ms);
		}
		r->t1 = now_s();
		if (r->st == RPC_SUCCESS)
			atomic_fetch_add(&f_ok, 1);
		dead = atomic_load(&f_dead);
		if (dead > 0 && r->t0 >= dead)
			after++;
	}
	return NULL;
}

START_TEST(test_kill_during_burst)
{
	static struct fworker w[F_THREADS];
	pthread_t th[F_THREADS];
	uint16_t port = port_new();
	struct rpcrdma_stats st0, st1, st2;
	int hist[32] = { 0 };
	int total = 0, inflight_err = 0, after_kill = 0, before_ok = 0;
	double t_kill, t_dead, worst = 0, first_err = 0, t;
	enum clnt_stat rc;
	pid_t pid;
	CLIENT *cl;

	alarm(150);	/* the watchdog: a hang is a failure, not a stall */
	pid = srv_spawn(port);
	cl = clnt_mk(port);
	ck_assert_int_eq(call_null(cl, F_TMO_S), RPC_SUCCESS);
	st0 = stats_of(cl);
	ck_assert_uint_eq(st0.connects, 1);
	ck_assert_uint_eq(st0.disconnects, 0);

	atomic_store(&f_ok, 0);
	atomic_store(&f_dead, 0.0);
	for (int i = 0; i < F_THREADS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].cl = cl;
		w[i].id = i;
		ck_assert_int_eq(pthread_create(&th[i], NULL, fworker_main,
						&w[i]), 0);
	}
	/* Kill once the burst is well under way (bounded: 60 s). */
	t = now_s();
	while (atomic_load(&f_ok) < 5 * F_THREADS && now_s() - t < 60)
		usleep(10000);
	ck_assert_int_ge(atomic_load(&f_ok), 5 * F_THREADS);
	t_kill = now_s();
	srv_kill(pid);
	t_dead = now_s();
	atomic_store(&f_dead, t_dead);
	for (int i = 0; i < F_THREADS; i++)
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);

	for (int i = 0; i < F_THREADS; i++) {
		bool seen = false;

		for (int k = 0; k < w[i].n; k++) {
			const struct rec *r = &w[i].r[k];
			double d = r->t1 - r->t0;

			/* How long after the kill each caller learnt of it. */
			if (!seen && r->st != RPC_SUCCESS) {
				seen = true;
				if (r->t1 - t_kill > first_err)
					first_err = r->t1 - t_kill;
			}

			total++;
			if (d > worst)
				worst = d;
			ck_assert_msg(d <= F_TMO_S + F_MARGIN_S,
				      "thread %d call %d took %.2f s (%s)", i,
				      k, d, clnt_sperrno(r->st));
			if (r->t1 <= t_kill) {
				ck_assert_msg(r->st == RPC_SUCCESS,
					      "before the kill: %s",
					      clnt_sperrno(r->st));
				before_ok++;
				continue;
			}
			if ((unsigned)r->st < 32)
				hist[r->st]++;
			if (r->t0 >= t_dead) {
				/* Started with the server gone. */
				after_kill++;
				ck_assert_msg(st_is_conn_error(r->st),
					      "thread %d call %d after the "
					      "kill: %s", i, k,
					      clnt_sperrno(r->st));
			} else if (r->t0 < t_kill && r->st != RPC_SUCCESS) {
				/* In flight when the server died. */
				ck_assert_msg(st_is_conn_error(r->st),
					      "in flight: %s",
					      clnt_sperrno(r->st));
				inflight_err++;
			}
		}
		/* Each thread saw the failure and stopped on its own. */
		ck_assert(seen);
		ck_assert_int_lt(w[i].n, F_MAXCALLS);
	}
	printf("faults: %d calls, %d ok before the kill, %d in flight "
	       "failed, %d started after it failed; longest call %.2f s "
	       "(limit %d + %.0f s); kill took %.3f s; every thread had its "
	       "first error %.3f s after the kill at the latest\n",
	       total, before_ok, inflight_err, after_kill, worst, F_TMO_S,
	       F_MARGIN_S, t_dead - t_kill, first_err);
	for (int s = 0; s < 32; s++)
		if (hist[s])
			printf("faults:   calls ending after the kill: %3d x "
			       "%s\n", hist[s],
			       clnt_sperrno((enum clnt_stat)s));
	ck_assert_int_ge(inflight_err, 1);
	ck_assert_int_ge(after_kill, F_THREADS * 2);

	/* Still nobody listening: the reconnect attempt fails, quickly. */
	t = now_s();
	rc = call_null(cl, F_TMO_S);
	ck_assert_msg(st_is_conn_error(rc), "no server: %s",
		      clnt_sperrno(rc));
	ck_assert(now_s() - t <= F_TMO_S + F_MARGIN_S);
	st1 = stats_of(cl);
	ck_assert_uint_eq(st1.connects, 1);
	ck_assert_uint_eq(st1.disconnects, 1);

	/* The server is back on the same port: the SAME CLIENT reconnects
	 * (a new connection, a fresh Private Data exchange). */
	pid = srv_spawn(port);
	t = now_s();
	rc = call_echo(cl, 1000, 99, F_TMO_S);
	ck_assert_msg(rc == RPC_SUCCESS, "after restart: %s",
		      clnt_sperrno(rc));
	printf("faults: first call after the restart: %.3f s\n", now_s() - t);
	st2 = stats_of(cl);
	ck_assert_uint_eq(st2.connects, 2);
	ck_assert_uint_eq(st2.disconnects, 1);
	/* All 8 credits are usable again: a burst on the new connection. */
	burst_ok(cl, F_THREADS, 5, true, 1000, NULL);
	ck_assert_uint_eq(stats_of(cl).connects, 2);
	printf("faults: connects %llu -> %llu -> %llu, disconnects %llu -> "
	       "%llu -> %llu\n",
	       (unsigned long long)st0.connects,
	       (unsigned long long)st1.connects,
	       (unsigned long long)st2.connects,
	       (unsigned long long)st0.disconnects,
	       (unsigned long long)st1.disconnects,
	       (unsigned long long)st2.disconnects);
	clnt_destroy(cl);
	srv_kill(pid);
	alarm(0);
}
END_TEST

void t_faults_add_burst(TCase *f)
{
	tcase_set_timeout(f, 180);
	tcase_add_test(f, test_kill_during_burst);
}
