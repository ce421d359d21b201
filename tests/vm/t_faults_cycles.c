/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "cleanup" TCase of t_faults: test_cycles, 1,000 create / NULL
 * call / destroy cycles against a server child leave no fd, no RDMA
 * object (of either side) and no VmRSS growth behind.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "t_faults.h"

/* ---- cleanup: create / call / destroy cycles ---- */

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
		rdma_res(srv, false, r);
		rdma_res_print("cleanup", "server", "now", r);
		ck_abort_msg("cycle %d: clnt_rdma_create failed", i);
	}
	st = call_null(cl, 10);
	if (st != RPC_SUCCESS) {
		/* Unanswered first calls on siw (docs/conformance.md,
		 * "Providers"): both sides' threads, where they wait. */
		struct rpcrdma_stats cs = stats_of(cl);

		printf("cycle %d: %s after %.3f s\n", i, clnt_sperrno(st),
		       now_s() - t);
		stats_print("cycle client", &cs);
		pid_threads_print("cycle server", srv);
		threads_print("cycle client");	/* and the guest's state, once */
		ck_abort_msg("cycle %d: %s", i, clnt_sperrno(st));
	}
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
	rdma_res(getpid(), false, r0);
	rdma_res(pid, false, s0);

	/* While a CLIENT is open its resources do show (the count works). */
	{
		CLIENT *cl = clnt_mk(port);

		ck_assert_int_eq(call_null(cl, 10), RPC_SUCCESS);
		rdma_res(getpid(), false, rmid);
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
	rdma_res(getpid(), false, r1);
	usleep(500000);	/* the server reaps the last disconnect */
	rdma_res(pid, false, s1);
	srv_kill(pid);

	printf("cycles: %d cycles in %.1f s (%.4f s per cycle; %.4f s per "
	       "cycle from %d on; longest %.3f s; %d over 2 s)\n",
	       done, t_end - t0, (t_end - t0) / done,
	       (t_end - t_mark) / (done - C_MARK), C_MARK, c_worst, c_slow);
	printf("cleanup: open fds %d before, %d at cycle %d, %d after\n", fd0,
	       fd_mark, C_MARK, fd1);
	rdma_res_print("cleanup", "client", "before", r0);
	rdma_res_print("cleanup", "client", "with one CLIENT open", rmid);
	rdma_res_print("cleanup", "client", "after", r1);
	rdma_res_print("cleanup", "server", "before", s0);
	rdma_res_print("cleanup", "server", "after", s1);
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

void t_faults_add_cycles(TCase *c)
{
	tcase_set_timeout(c, 360);
	tcase_add_test(c, test_cycles);
}
