/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest tests of connection faults and cleanup (issue 4):
 *
 * - faults: a server process (this program re-executed in server mode) on
 *   $RPCRDMA_ADDR_B is SIGKILLed in the middle of a burst of calls made by
 *   8 threads on one CLIENT: every call returns within its timeout plus a
 *   margin, every call in flight or started after the kill fails with
 *   RPC_CANTRECV / RPC_CANTSEND / RPC_TIMEDOUT, nobody hangs; the server
 *   restarted on the same port, the next call on the SAME CLIENT succeeds
 *   over a new connection (connects/disconnects counters).
 * - cleanup: 1,000 create / NULL call / destroy cycles leave no open fd,
 *   no RDMA resource of this process (rdma resource: qp, cq, mr, pd,
 *   cm_id) and no memory growth (VmRSS) behind.
 *
 * Run: tests/vm/run -- ./tests/vm/t_faults (from the build directory);
 * server mode (used by the tests): t_faults server ADDR PORT READY_FD.
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <rpc/rpc.h>

#include <rpcrdma/rpcrdma.h>
#include "procself.h"

#define T_PROG		0x20005a5bu
#define T_VERS		1u
#define P_NULL		0u
#define P_ECHO		1u	/* blob -> the same blob */
#define P_SLEEP		2u	/* u_int ms -> the same u_int, after ms */
#define T_BLOB_MAX	65536u

#define XP(f) ((xdrproc_t)(void (*)(void))(f))

static const char *addr_a, *addr_b;

struct blob {
	u_int len;
	char *data;
};

static bool_t xdr_blob(XDR *x, struct blob *b)
{
	return xdr_bytes(x, &b->data, &b->len, T_BLOB_MAX);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A port of our own per test run (each test runs in its own child). */
static uint16_t port_new(void)
{
	static uint16_t next;

	if (!next)
		next = (uint16_t)(30100 + (getpid() % 2000) * 4);
	return next++;
}

/* ---- server mode ---- */

static void dispatch(struct svc_req *rq, SVCXPRT *x)
{
	struct blob b = { 0, NULL };
	u_int ms = 0;

	switch (rq->rq_proc) {
	case P_NULL:
		svc_sendreply(x, XP(xdr_void), NULL);
		break;
	case P_ECHO:
		if (!svc_getargs(x, XP(xdr_blob), &b)) {
			svcerr_decode(x);
			break;
		}
		svc_sendreply(x, XP(xdr_blob), &b);
		svc_freeargs(x, XP(xdr_blob), &b);
		break;
	case P_SLEEP:
		if (!svc_getargs(x, XP(xdr_u_int), &ms) || ms > 10000) {
			svcerr_decode(x);
			break;
		}
		usleep(ms * 1000u);
		svc_sendreply(x, XP(xdr_u_int), &ms);
		break;
	default:
		svcerr_noproc(x);
		break;
	}
}

/* Listens on addr:port, says so by one byte on ready_fd, serves forever
 * (the tests end it with SIGKILL). */
static int server_main(const char *addr, const char *port, const char *fd)
{
	struct rpcrdma_opts o;
	SVCXPRT *lsn;
	int rfd = atoi(fd);

	rpcrdma_opts_default(&o);
	o.port = (uint16_t)atoi(port);
	o.credits = 8;
	o.max_msg = 1u << 16;
	lsn = svc_rdma_create(addr, &o);
	if (!lsn || !rpcrdma_svc_reg(lsn, T_PROG, T_VERS, dispatch)) {
		fprintf(stderr, "t_faults server: cannot listen on %s:%s\n",
			addr, port);
		return 1;
	}
	if (write(rfd, "r", 1) != 1)
		return 1;
	close(rfd);
	svc_run();
	return 1;
}

/* Starts this program in server mode on addr_b:port; returns once it
 * listens (bounded: 30 s). */
static pid_t srv_spawn(uint16_t port)
{
	char sport[16], sfd[16], c;
	struct pollfd pfd;
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	snprintf(sport, sizeof(sport), "%u", port);
	snprintf(sfd, sizeof(sfd), "%d", p[1]);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		execl("/proc/self/exe", "t_faults", "server", addr_b, sport,
		      sfd, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	ck_assert_msg(poll(&pfd, 1, 30000) == 1 && read(p[0], &c, 1) == 1,
		      "the server on port %u did not come up", port);
	close(p[0]);
	return pid;
}

static void srv_kill(pid_t pid)
{
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
}

/* ---- client helpers ---- */

static CLIENT *clnt_mk(uint16_t port)
{
	struct rpcrdma_opts o;
	CLIENT *cl;

	rpcrdma_opts_default(&o);
	o.port = port;
	o.src_addr = addr_a;
	o.credits = 8;
	o.max_msg = 1u << 16;
	o.timeout_ms = 2000;
	cl = clnt_rdma_create(addr_b, T_PROG, T_VERS, &o);
	ck_assert_msg(cl != NULL, "clnt_rdma_create: %s",
		      clnt_spcreateerror("clnt"));
	return cl;
}

static struct rpcrdma_stats stats_of(CLIENT *cl)
{
	struct rpcrdma_stats st;

	ck_assert(clnt_control(cl, CLGET_RDMA_STATS, (char *)&st));
	return st;
}

static enum clnt_stat call_null(CLIENT *cl, time_t sec)
{
	struct timeval tv = { sec, 0 };

	return clnt_call(cl, P_NULL, XP(xdr_void), NULL, XP(xdr_void), NULL,
			 tv);
}

/* ECHO of n pattern bytes, checked. */
static enum clnt_stat call_echo(CLIENT *cl, size_t n, unsigned seed,
				time_t sec)
{
	struct timeval tv = { sec, 0 };
	struct blob a = { (u_int)n, malloc(n ? n : 1) };
	struct blob r = { 0, NULL };
	enum clnt_stat st;

	ck_assert_ptr_nonnull(a.data);
	for (size_t i = 0; i < n; i++)
		a.data[i] = (char)(seed + i * 13u);
	st = clnt_call(cl, P_ECHO, XP(xdr_blob), &a, XP(xdr_blob), &r, tv);
	if (st == RPC_SUCCESS)
		ck_assert_msg(r.len == n && memcmp(r.data, a.data, n) == 0,
			      "echo %zu: bytes differ", n);
	clnt_freeres(cl, XP(xdr_blob), &r);
	free(a.data);
	return st;
}

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

static bool st_is_conn_error(enum clnt_stat st)
{
	return st == RPC_CANTRECV || st == RPC_CANTSEND || st == RPC_TIMEDOUT;
}

static void burst_ok(CLIENT *cl, int per_thread);

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
	burst_ok(cl, 5);
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

struct bworker {
	CLIENT *cl;
	int id, n, ok;
};

static void *bworker_main(void *arg)
{
	struct bworker *b = arg;

	for (int i = 0; i < b->n; i++)
		if (call_echo(b->cl, 200, (unsigned)(b->id + i), F_TMO_S) ==
		    RPC_SUCCESS)
			b->ok++;
	return NULL;
}

/* F_THREADS threads, per_thread echo calls each: all succeed. */
static void burst_ok(CLIENT *cl, int per_thread)
{
	struct bworker b[F_THREADS];
	pthread_t th[F_THREADS];
	int ok = 0;

	for (int i = 0; i < F_THREADS; i++) {
		b[i] = (struct bworker){ .cl = cl, .id = i, .n = per_thread };
		ck_assert_int_eq(pthread_create(&th[i], NULL, bworker_main,
						&b[i]), 0);
	}
	for (int i = 0; i < F_THREADS; i++) {
		pthread_join(th[i], NULL);
		ok += b[i].ok;
	}
	ck_assert_int_eq(ok, F_THREADS * per_thread);
}

/* ---- cleanup: create / call / destroy cycles ---- */

static void res_print(const char *who, const char *when,
		      const int r[RDMA_RES_KINDS])
{
	rdma_res_print("cleanup", who, when, r);
}

static double c_worst;	/* the longest cycle */
static int c_slow;	/* cycles longer than 2 s */

/* One cycle; on failure, says which and what the server holds. */
static void cycle(uint16_t port, int i, pid_t srv)
{
	double t = now_s(), d;
	struct rpcrdma_opts o;
	enum clnt_stat st;
	int r[RDMA_RES_KINDS];
	CLIENT *cl;

	rpcrdma_opts_default(&o);
	o.port = port;
	o.src_addr = addr_a;
	o.credits = 8;
	o.max_msg = 1u << 16;
	o.timeout_ms = 15000;	/* see slow cycles, not spurious failures */
	cl = clnt_rdma_create(addr_b, T_PROG, T_VERS, &o);
	if (!cl) {
		printf("cycle %d: clnt_rdma_create failed after %.3f s: %s\n",
		       i, now_s() - t, clnt_spcreateerror("clnt"));
		rdma_res(srv, r);
		res_print("server", "now", r);
		ck_abort_msg("cycle %d: clnt_rdma_create failed", i);
	}
	st = call_null(cl, 10);
	ck_assert_msg(st == RPC_SUCCESS, "cycle %d: %s", i, clnt_sperrno(st));
	clnt_destroy(cl);
	d = now_s() - t;
	if (d > c_worst)
		c_worst = d;
	if (d > 2.0) {
		/* Say which and show the neighbour entries (address
		 * resolution waits on them). */
		printf("cycle %d: slow, %.3f s; neighbours now:\n", i, d);
		fflush(stdout);
		if (system("ip neigh show 2>&1 | sed 's/^/    /'") != 0)
			printf("    (ip neigh failed)\n");
		c_slow++;
	}
}

#define C_WARMUP	5
#define C_MARK		100
#define C_BUDGET_S	240.0	/* cycles stop here (docs: tier < 10 min) */
#define C_RSS_SLACK	2048	/* KiB of noise allowed, cycle 100 to end */

START_TEST(test_cycles)
{
	const char *env = getenv("T_FAULTS_CYCLES");
	int cycles = env ? atoi(env) : 1000;
	uint16_t port = port_new();
	int fd0, fd1, fd_mark, done;
	int r0[RDMA_RES_KINDS], rmid[RDMA_RES_KINDS], r1[RDMA_RES_KINDS];
	int s0[RDMA_RES_KINDS], s1[RDMA_RES_KINDS];
	long rss0, rss_mark = 0, rss1;
	double t_start, t0, t_mark = 0, t_end, per;
	pid_t pid;

	ck_assert_int_gt(cycles, C_MARK);
	t_start = now_s();
	alarm(330);
	pid = srv_spawn(port);
	for (int i = 0; i < C_WARMUP; i++)
		cycle(port, -1 - i, pid);
	fd0 = open_fds();
	rss0 = vmrss_kib();
	rdma_res(getpid(), r0);
	rdma_res(pid, s0);

	/* While a CLIENT is open its resources do show (the count works). */
	{
		CLIENT *cl = clnt_mk(port);

		ck_assert_int_eq(call_null(cl, 10), RPC_SUCCESS);
		rdma_res(getpid(), rmid);
		clnt_destroy(cl);
		/* The client's own objects are told apart. */
		for (size_t k = 0; k < RDMA_RES_KINDS; k++)
			ck_assert_msg(rmid[k] > r0[k], "%s not seen",
				      rdma_res_kinds[k]);
	}

	printf("cycles: warm-up and resource snapshots took %.1f s\n",
	       now_s() - t_start);
	t0 = now_s();
	fd_mark = fd0;
	for (done = 0; done < cycles; done++) {
		if (done == C_MARK) {
			t_mark = now_s();
			rss_mark = vmrss_kib();
			fd_mark = open_fds();
			per = (t_mark - t0) / C_MARK;
			printf("cycles: %.4f s per cycle over the first %d; "
			       "%d would take %.0f s\n",
			       per, C_MARK, cycles, per * cycles);
		}
		if (done > C_MARK && now_s() - t0 > C_BUDGET_S) {
			printf("cycles: CUT SHORT at %d of %d cycles: the "
			       "%.0f s budget is spent\n",
			       done, cycles, C_BUDGET_S);
			break;
		}
		cycle(port, done, pid);
	}
	t_end = now_s();
	fd1 = open_fds();
	rss1 = vmrss_kib();
	rdma_res(getpid(), r1);
	usleep(500000);	/* the server reaps the last disconnect */
	rdma_res(pid, s1);
	srv_kill(pid);

	printf("cycles: %d cycles in %.1f s (%.4f s per cycle; %.4f s per "
	       "cycle from %d on; longest %.3f s; %d over 2 s)\n",
	       done, t_end - t0, (t_end - t0) / done,
	       (t_end - t_mark) / (done - C_MARK), C_MARK, c_worst, c_slow);
	printf("cleanup: open fds %d before, %d at cycle %d, %d after\n", fd0,
	       fd_mark, C_MARK, fd1);
	res_print("client", "before", r0);
	res_print("client", "with one CLIENT open", rmid);
	res_print("client", "after", r1);
	res_print("server", "before", s0);
	res_print("server", "after", s1);
	printf("cleanup: VmRSS %ld KiB before, %ld KiB at cycle %d, %ld KiB "
	       "after (%+ld KiB from cycle %d)\n",
	       rss0, rss_mark, C_MARK, rss1, rss1 - rss_mark, C_MARK);
	ck_assert_int_eq(fd1, fd0);
	for (size_t k = 0; k < RDMA_RES_KINDS; k++)
		ck_assert_msg(r1[k] == r0[k], "%s: %d before, %d after",
			      rdma_res_kinds[k], r0[k], r1[k]);
	/* The server freed every connection the cycles made. */
	for (size_t k = 0; k < RDMA_RES_KINDS; k++)
		ck_assert_msg(s1[k] == s0[k], "server %s: %d before, %d after",
			      rdma_res_kinds[k], s0[k], s1[k]);
	ck_assert_msg(rss1 - rss_mark < C_RSS_SLACK,
		      "VmRSS grew by %ld KiB from cycle %d to %d",
		      rss1 - rss_mark, C_MARK, done);
	alarm(0);
}
END_TEST

static Suite *faults_suite(void)
{
	Suite *s = suite_create("faults");
	TCase *f = tcase_create("faults");
	TCase *c = tcase_create("cleanup");

	tcase_set_timeout(f, 180);
	tcase_add_test(f, test_kill_during_burst);
	suite_add_tcase(s, f);
	tcase_set_timeout(c, 360);
	tcase_add_test(c, test_cycles);
	suite_add_tcase(s, c);
	return s;
}

int main(int argc, char **argv)
{
	SRunner *sr;
	int failed;

	if (argc == 5 && strcmp(argv[1], "server") == 0)
		return server_main(argv[2], argv[3], argv[4]);
	addr_a = getenv("RPCRDMA_ADDR_A");
	addr_b = getenv("RPCRDMA_ADDR_B");
	if (!addr_a || !*addr_a)
		addr_a = "10.99.0.1";
	if (!addr_b || !*addr_b)
		addr_b = "10.99.0.2";
	setvbuf(stdout, NULL, _IOLBF, 0);
	sr = srunner_create(faults_suite());
	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
