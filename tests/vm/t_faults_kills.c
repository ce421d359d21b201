/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "kills" TCase of t_faults: test_random_server_kills (the server
 * child SIGKILLed at random points of the mixed load and restarted,
 * T_FAULTS_KILLS times, default 100) and test_random_client_kills
 * (client children killed at random points against one server, as many
 * times); each checks the survivor's
 * fds, RDMA objects, heap and VmRSS afterwards. With their seed, delays,
 * resource comparisons and the client children's spawning.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t_faults.h"

/* ---- kills: peers SIGKILLed at random points of the mixed load ---- */

#define K_KILLS		100	/* per test; T_FAULTS_KILLS overrides */
#define K_DELAY_MS	400	/* a kill lands 0 to this after the (re)start */
#define K_PER_KILL_S	3	/* the watchdog's allowance per kill */
#define K_REAP_S	10.0	/* the server's reaping of dead clients */
#define K_RSS_SLACK	4096	/* KiB of VmRSS noise allowed */
#define K_HEAP_SLACK	1024	/* bytes of heap in use allowed (0 seen) */

static int kills_wanted(void)
{
	const char *e = getenv("T_FAULTS_KILLS");
	int n = e ? atoi(e) : K_KILLS;

	return n > 0 ? n : K_KILLS;
}

/* The test's own seed, printed: T_FAULTS_SEED repeats its delays and its
 * calls (not its timing). */
static uint32_t seed_new(const char *tag)
{
	const char *e = getenv("T_FAULTS_SEED");
	uint32_t s = e ? (uint32_t)strtoul(e, NULL, 0)
		       : hash32((uint32_t)time(NULL) ^
				((uint32_t)getpid() << 16));

	printf("%s: seed %#x (T_FAULTS_SEED=%#x repeats the delays and the "
	       "calls)\n", tag, s, s);
	return s;
}

/* 0 to max ms, from the test's PRNG: a quarter of them within the first
 * eighth, where a reconnect is (uniform, 5 of 100 server kills landed
 * before the CLIENT was served again), the others uniform. */
static int delay_next(uint32_t *state, int max)
{
	uint32_t r;

	*state = hash32(*state + 0x9e3779b9u);
	r = *state >> 2;
	if ((*state & 3) == 0)
		return (int)(r % (uint32_t)(max / 8 + 1));
	return (int)(r % (uint32_t)(max + 1));
}

static void res_assert_same(const char *who, const int a[RDMA_RES_KINDS],
			    const int b[RDMA_RES_KINDS])
{
	for (size_t k = 0; k < RDMA_RES_KINDS; k++)
		ck_assert_msg(a[k] == b[k], "%s %s: %d before, %d after", who,
			      rdma_res_kinds[k], a[k], b[k]);
}

static bool res_same(const int a[RDMA_RES_KINDS], const int b[RDMA_RES_KINDS])
{
	return memcmp(a, b, RDMA_RES_KINDS * sizeof(a[0])) == 0;
}

/* The server's heap in use (mallinfo2), asked over a CLIENT of its own. */
static unsigned long long srv_heap(uint16_t port)
{
	struct timeval tv = { M_TMO_S, 0 };
	u_quad_t used = 0;
	CLIENT *cl = clnt_mk(port);

	ck_assert_int_eq(clnt_call(cl, P_HEAP, XP(xdr_void), NULL,
				   XP(xdr_u_quad_t), &used, tv),
			 RPC_SUCCESS);
	clnt_destroy(cl);
	return used;
}

/* Ends the server by P_EXIT: it must exit 0 (under LeakSanitizer, with
 * nothing leaked), bounded by the tests' watchdogs. */
static void srv_exit(uint16_t port, pid_t pid)
{
	struct timeval tv = { M_TMO_S, 0 };
	CLIENT *cl = clnt_mk(port);
	int wst;

	ck_assert_int_eq(clnt_call(cl, P_EXIT, XP(xdr_void), NULL,
				   XP(xdr_void), NULL, tv),
			 RPC_SUCCESS);
	clnt_destroy(cl);
	ck_assert_int_eq(waitpid(pid, &wst, 0), pid);
	ck_assert_msg(WIFEXITED(wst) && WEXITSTATUS(wst) == 0,
		      "the server ended with status %#x", wst);
}

/*
 * This process is the client: M_THREADS threads run the mixed load on one
 * CLIENT while the server child is SIGKILLed 0 to K_DELAY_MS after each
 * (re)start and started again on the same port. Every call returns within
 * its timeout plus the margin, succeeds with its own bytes back or fails
 * with a connection error; afterwards the same CLIENT serves again, and
 * once destroyed this process is back to its idle fds, RDMA objects and
 * VmRSS.
 */
START_TEST(test_random_server_kills)
{
	static struct mixer ms[M_THREADS];
	pthread_t th[M_THREADS];
	const char *tag = "server kills";
	int kills = kills_wanted(), fd0, fd1, r0[RDMA_RES_KINDS], r1[RDMA_RES_KINDS];
	int rmid[RDMA_RES_KINDS], served = 0, cut = 0, cut_chunks = 0, dsum = 0;
	long oks0, cut0, cutc0;
	uint32_t seed = seed_new(tag), rng = seed;
	uint16_t port = port_new();
	double t0, t_loop, t_spawn = 0, spawn_worst = 0, t;
	struct mix_stats warm, tot, after;
	struct rpcrdma_stats st;
	atomic_bool stop = false;
	struct mixer m = { .seed = seed, .ncalls = 0, .stop = &stop,
			   .ok_fd = -1 };
	unsigned long long heap0, heap1;
	long rss0, rss1;
	pid_t pid;
	CLIENT *cl;

	alarm(120 + (unsigned)kills * K_PER_KILL_S);
	pid = srv_spawn(port);
	/* Warm-up: a CLIENT of the same shape runs the mixed load and is
	 * destroyed; what stays after that is the idle level. */
	cl = clnt_mk(port);
	burst_ok(cl, M_THREADS, 8, false, seed ^ 0x5a5a5a5au, &warm);
	clnt_destroy(cl);
	fd0 = open_fds();
	rss0 = vmrss_kib();
	heap0 = heap_used();
	rdma_res(getpid(), true, r0);

	cl = clnt_mk(port);
	m.cl = cl;
	ck_assert_int_eq(mixers_start(ms, th, M_THREADS, &m), 0);
	t0 = now_s();
	oks0 = atomic_load(&m_oks);
	for (int k = 0; k < kills; k++) {
		int ms_delay = delay_next(&rng, K_DELAY_MS);

		dsum += ms_delay;
		usleep((useconds_t)ms_delay * 1000u);
		/* Served since the (re)start, or still (re)connecting? */
		served += atomic_load(&m_oks) > oks0;
		cut0 = atomic_load(&m_cut[MIX_NULL]) +
		       atomic_load(&m_cut[MIX_INLINE]);
		cutc0 = atomic_load(&m_cut[MIX_CHUNKS]);
		srv_kill(pid);
		t = now_s();
		pid = srv_spawn(port);
		t = now_s() - t;
		t_spawn += t;
		if (t > spawn_worst)
			spawn_worst = t;
		/* Calls in flight on the connection it cut, found failed
		 * by now (the restart takes 0.3 s and more). */
		oks0 = atomic_load(&m_oks);
		cut_chunks += atomic_load(&m_cut[MIX_CHUNKS]) > cutc0;
		cut += atomic_load(&m_cut[MIX_CHUNKS]) > cutc0 ||
		       atomic_load(&m_cut[MIX_NULL]) +
				       atomic_load(&m_cut[MIX_INLINE]) >
			       cut0;
	}
	t_loop = now_s() - t0;
	atomic_store(&stop, true);
	mixers_join(ms, th, M_THREADS, &tot);

	/* The server is back: the same CLIENT serves the mixed load, every
	 * call verified. */
	t = now_s();
	burst_ok(cl, M_THREADS, 8, false, seed ^ 0xa5a5a5a5u, &after);
	t = now_s() - t;
	st = stats_of(cl);
	/* The count works: they show (made by a caller's thread, gone:
	 * orphans, which only this process has here). */
	rdma_res(getpid(), true, rmid);
	clnt_destroy(cl);
	fd1 = open_fds();
	rss1 = vmrss_kib();
	heap1 = heap_used();
	rdma_res(getpid(), true, r1);
	srv_exit(port, pid);

	printf("%s: %d kills in %.1f s (delays 0 to %d ms, a quarter under "
	       "%d, %.0f ms on average; a restart took %.3f s on average, %.3f s at most)\n",
	       tag, kills, t_loop, K_DELAY_MS, K_DELAY_MS / 8,
	       (double)dsum / kills, t_spawn / kills, spawn_worst);
	printf("%s: %d kills before the CLIENT was served again (while it "
	       "reconnected), %d after; %d cut calls in flight on a live "
	       "connection (RPC_CANTRECV), %d of them a chunked echo\n", tag,
	       kills - served, served, cut, cut_chunks);
	mix_print(tag, "warm-up", &warm);
	mix_print(tag, "during the kills", &tot);
	mix_print(tag, "after them (all must succeed)", &after);
	printf("%s: after the kills, %d calls in %.2f s; the CLIENT's "
	       "connects %llu, disconnects %llu, calls with read chunks %llu,"
	       " Long Replies %llu, inline replies %llu\n", tag,
	       M_THREADS * 8, t, (unsigned long long)st.connects,
	       (unsigned long long)st.disconnects,
	       (unsigned long long)st.calls_read_chunks,
	       (unsigned long long)st.replies_long,
	       (unsigned long long)st.replies_inline);
	printf("%s: open fds %d idle, %d after\n", tag, fd0, fd1);
	rdma_res_print(tag, "client", "idle", r0);
	rdma_res_print(tag, "client", "with the CLIENT after the kills", rmid);
	rdma_res_print(tag, "client", "after", r1);
	printf("%s: VmRSS %ld KiB idle, %ld KiB after (%+ld KiB); heap in use "
	       "%llu bytes idle, %llu after (%+lld)\n", tag, rss0, rss1,
	       rss1 - rss0, heap0, heap1, (long long)(heap1 - heap0));

	/* The load was mixed and got through between the kills. */
	for (int k = 0; k < MIX_KINDS; k++)
		ck_assert_msg(tot.ok[k] > 0, "no %s succeeded between the "
			      "kills", mix_name[k]);
	ck_assert_uint_gt(st.calls_read_chunks, 0);
	ck_assert_uint_gt(st.replies_long, 0);
	ck_assert_uint_gt(st.connects, 1);
	ck_assert_int_gt(served, 0);
	ck_assert_int_gt(cut_chunks, 0);
	if (kills >= 50)	/* some landed while the CLIENT reconnected */
		ck_assert_int_lt(served, kills);
	for (size_t k = 0; k < RDMA_RES_KINDS; k++)
		ck_assert_msg(rmid[k] > r0[k], "%s not seen", rdma_res_kinds[k]);
	ck_assert_int_eq(fd1, fd0);
	res_assert_same("client", r0, r1);
#ifndef __SANITIZE_ADDRESS__	/* ASan's quarantine holds freed memory */
	ck_assert_msg(rss1 - rss0 < K_RSS_SLACK, "VmRSS grew by %ld KiB",
		      rss1 - rss0);
	ck_assert_msg(heap1 <= heap0 + K_HEAP_SLACK,
		      "heap in use grew by %lld bytes",
		      (long long)(heap1 - heap0));
#endif
	alarm(0);
}
END_TEST

/* Starts this program in client mode against addr_b:port; returns once
 * it is about to connect. *rd: a byte 'o' for each verified success. */
static pid_t cli_spawn(uint16_t port, uint32_t seed, long ncalls, int *rd)
{
	char sport[16], sseed[16], sn[24];
	const char *argv[] = { "t_faults", "client", addr_a, addr_b, sport,
			       sseed, sn, spawn_fd, NULL };
	pid_t pid;

	snprintf(sport, sizeof(sport), "%u", port);
	snprintf(sseed, sizeof(sseed), "%u", seed);
	snprintf(sn, sizeof(sn), "%ld", ncalls);
	pid = self_spawn(argv, rd);
	spawn_ready(*rd, pid, "a client");
	return pid;
}

/* Waits for the byte 'c' a client child sends once connected. */
static void cli_connected(int rd, pid_t pid, int k)
{
	ck_assert_msg(child_sent(rd, 'c'),
		      "client %d (pid %d) did not connect (its stderr says "
		      "why)", k, (int)pid);
}

/* Waits (bounded: 30 s) for a client child's first success; the bytes
 * before it ('c') are dropped. 1 when it came, else 0. */
static int cli_first_ok(int rd)
{
	struct pollfd pfd = { .fd = rd, .events = POLLIN };
	double t0 = now_s();
	char c = 0;

	while (now_s() - t0 < 30.0) {
		if (poll(&pfd, 1, 1000) == 1 && read(rd, &c, 1) != 1)
			return 0;
		if (c == 'o')
			return 1;
	}
	return 0;
}

/* The successes a client child reported (it is gone: the pipe ends). */
static int cli_oks(int rd)
{
	char buf[4096];
	ssize_t n;
	int oks = 0;

	while ((n = read(rd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			oks += buf[i] == 'o';
	close(rd);
	return oks;
}

static const char *cli_status(int wst, char *buf, size_t len)
{
	if (WIFEXITED(wst))
		snprintf(buf, len, "exit %d%s", WEXITSTATUS(wst),
			 WEXITSTATUS(wst) == X_BYTES    ? " (wrong bytes)"
			 : WEXITSTATUS(wst) == X_SLOW   ? " (a call too long)"
			 : WEXITSTATUS(wst) == X_FAILED ? " (a call failed)"
			 : WEXITSTATUS(wst) == X_CREATE ? " (no CLIENT)"
							: "");
	else if (WIFSIGNALED(wst))
		snprintf(buf, len, "signal %d", WTERMSIG(wst));
	else
		snprintf(buf, len, "status %#x", wst);
	return buf;
}

/*
 * One long-lived server child; a client child (client mode: M_THREADS
 * threads of the mixed load, every call verified and required to
 * succeed) is SIGKILLed 0 to K_DELAY_MS after it starts connecting, N
 * times. The server lives on, serves every client meanwhile, reaps the
 * dead clients' connections (its RDMA objects and fds back to the level
 * after one clean client, its VmRSS within slack) and answers a fresh
 * CLIENT afterwards.
 */
START_TEST(test_random_client_kills)
{
	const char *tag = "client kills";
	int kills = kills_wanted(), s0[RDMA_RES_KINDS], s1[RDMA_RES_KINDS], fd0, fd1, rd, wst;
	int oks, oks_sum = 0, with_oks = 0, dsum = 0;
	uint32_t seed = seed_new(tag), rng = seed;
	uint16_t port = port_new();
	double t0, t_loop, t_reap, t;
	struct mix_stats after;
	unsigned long long heap0, heap1;
	long rss0, rss1;
	char why[64];
	pid_t srv, c;
	CLIENT *cl;

	alarm(120 + (unsigned)kills * K_PER_KILL_S);
	srv = srv_spawn(port);
	/* Warm-up: one client that ends cleanly; the server's level after
	 * it is the baseline. */
	c = cli_spawn(port, seed, 8, &rd);
	ck_assert_int_eq(waitpid(c, &wst, 0), c);
	oks = cli_oks(rd);
	ck_assert_msg(WIFEXITED(wst) && WEXITSTATUS(wst) == 0,
		      "the warm-up client: %s",
		      cli_status(wst, why, sizeof(why)));
	ck_assert_int_eq(oks, M_THREADS * 8);
	usleep(500000);	/* the server reaps its disconnect */
	rdma_res(srv, false, s0);
	fd0 = pid_fds(srv);
	rss0 = pid_vmrss_kib(srv);
	heap0 = srv_heap(port);	/* over a connection: so is heap1 */

	t0 = now_s();
	for (int k = 0; k < kills; k++) {
		int ms_delay = delay_next(&rng, K_DELAY_MS);

		dsum += ms_delay;
		c = cli_spawn(port, hash32(seed + (uint32_t)k + 1u), 0, &rd);
		if (!kill_from_connect)
			cli_connected(rd, c, k + 1);
		/* The last kill waits for a first success when no client
		 * had one: the random delays alone left every client of a
		 * slow boot (6.1 under ASan, 25 kills) without one, and the
		 * test must also kill a client in mid-flow. */
		oks = 0;
		if (k == kills - 1 && with_oks == 0)
			oks = cli_first_ok(rd);
		usleep((useconds_t)ms_delay * 1000u);
		kill(c, SIGKILL);
		ck_assert_int_eq(waitpid(c, &wst, 0), c);
		oks += cli_oks(rd);
		ck_assert_msg(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL,
			      "client %d of %d (%d ms) ended by itself: %s",
			      k + 1, kills, ms_delay,
			      cli_status(wst, why, sizeof(why)));
		ck_assert_msg(waitpid(srv, &wst, WNOHANG) == 0,
			      "the server died at kill %d: %s", k + 1,
			      cli_status(wst, why, sizeof(why)));
		oks_sum += oks;
		with_oks += oks > 0;
	}
	t_loop = now_s() - t0;

	/* Every dead client's connection reaped (bounded). */
	t = now_s();
	for (;;) {
		rdma_res(srv, false, s1);
		fd1 = pid_fds(srv);
		if ((res_same(s0, s1) && fd1 == fd0) ||
		    now_s() - t > K_REAP_S)
			break;
		usleep(200000);
	}
	t_reap = now_s() - t;
	rss1 = pid_vmrss_kib(srv);
	heap1 = srv_heap(port);

	/* A fresh CLIENT of this process is served, every call verified. */
	cl = clnt_mk(port);
	burst_ok(cl, M_THREADS, 8, false, seed ^ 0xa5a5a5a5u, &after);
	clnt_destroy(cl);
	ck_assert_msg(waitpid(srv, &wst, WNOHANG) == 0, "the server died");
	srv_exit(port, srv);

	printf("%s: %d clients killed in %.1f s (delays 0 to %d ms after "
	       "each %s, a quarter under %d, %.0f ms on "
	       "average); %d of them had verified successes, %d in all\n",
	       tag, kills, t_loop, K_DELAY_MS,
	       kill_from_connect ? "began to connect" : "connected (siw)",
	       K_DELAY_MS / 8,
	       (double)dsum / kills, with_oks, oks_sum);
	printf("%s: the server's open fds %d after one clean client, %d "
	       "after the kills (%.1f s to get there)\n", tag, fd0, fd1,
	       t_reap);
	rdma_res_print(tag, "server", "after one clean client", s0);
	rdma_res_print(tag, "server", "after the kills", s1);
	printf("%s: the server's VmRSS %ld KiB after one clean client, %ld KiB"
	       " after the kills (%+ld KiB); its heap in use %llu bytes, then "
	       "%llu (%+lld)\n", tag, rss0, rss1, rss1 - rss0, heap0, heap1,
	       (long long)(heap1 - heap0));
	mix_print(tag, "a fresh CLIENT after the kills (all must succeed)",
		  &after);

	ck_assert_int_gt(with_oks, 0);
	if (kills >= 50)	/* some landed before a first success */
		ck_assert_int_lt(with_oks, kills);
	ck_assert_int_eq(fd1, fd0);
	res_assert_same("server", s0, s1);
#ifndef __SANITIZE_ADDRESS__
	ck_assert_msg(rss1 - rss0 < K_RSS_SLACK,
		      "the server's VmRSS grew by %ld KiB", rss1 - rss0);
	ck_assert_msg(heap1 <= heap0 + K_HEAP_SLACK,
		      "the server's heap in use grew by %lld bytes",
		      (long long)(heap1 - heap0));
#endif
	alarm(0);
}
END_TEST

void t_faults_add_kills(TCase *k)
{
	/* The tests' own watchdogs (alarm) come first. */
	tcase_set_timeout(k, 150 + kills_wanted() * K_PER_KILL_S);
	tcase_add_test(k, test_random_server_kills);
	tcase_add_test(k, test_random_client_kills);
}
