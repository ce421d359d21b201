/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rb_client: the client of the benchmark program (rb.x), over any netid,
 * through rpcgen's MT-safe stubs (rpcgen -M).
 *
 *   rb_client [-n netid] [-p port] [-P prog] [-V vers] [-R] host MODE ARGS
 *     lat N              N NULL calls, one in flight: p50, p99, mean
 *     rate T N shared|own|K  T threads, N NULL calls each, sharing one
 *                        CLIENT, one CLIENT per thread, or K CLIENTs
 *                        (thread i uses CLIENT i mod K): calls/s
 *     read SIZE N        N calls with SIZE-byte results: MiB/s
 *     write SIZE N       N calls with SIZE-byte arguments: MiB/s
 *     instr W N          W NULL calls, then N under callgrind: the counts
 *                        are zeroed before and dumped as "rb_client
 *                        measured" after them
 *
 * Each mode prints one line "RESULT mode=... key=value ..." and exits 0,
 * or says why it failed and exits 1: every call's status is checked, every
 * READ result and WRITE argument is compared with the pattern in full.
 * -P/-V call another program's NULL procedure (the lat mode only), for
 * example the kernel's nfsd (100003 version 3, -p 20049 over rdma).
 * -p over rdma sets the port (RPCRDMA_PORT); otherwise rpcbind is asked.
 *
 * Over rdma each CLIENT gets reply size hints (CLSET_RDMA_PROC_REPLY):
 * NULL and WRITE replies fit inline, so those calls offer no reply chunk;
 * READ's result is placed directly (CLSET_RDMA_PROC_DDP: one write chunk
 * of the result's size, the rest of the reply inline). -R leaves the
 * library's default (a max_msg reply chunk offered by every call).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include <valgrind/callgrind.h>
#include "rb.h"
#include "rb_util.h"

static struct {
	const char *host, *netid;
	rpcprog_t prog;
	rpcvers_t vers;
	uint8_t *pattern;
	unsigned long read_size;	/* READ mode's result size */
	bool no_hints;
	pthread_barrier_t start;
} g = { .prog = RBPROG, .vers = RBVERS };

/* An accepted reply's RPC header: xid, REPLY, MSG_ACCEPTED, AUTH_NONE
 * verifier (flavor, length), SUCCESS (RFC 5531 section 9). */
#define RB_REPLY_HDR	24u

static bool set_hint(CLIENT *cl, rpcproc_t proc, unsigned long max)
{
	struct rpcrdma_proc_reply h = { proc, (uint32_t)max };

	return clnt_control(cl, CLSET_RDMA_PROC_REPLY, (char *)&h);
}

/* The largest reply of each procedure; READ's result (g.read_size) in a
 * write chunk, its reply without it then fits inline. */
static bool set_hints(CLIENT *cl)
{
	struct rpcrdma_proc_ddp d = { RBPROC_READ, 1, (uint32_t)g.read_size };

	if (g.no_hints || strncmp(g.netid, "rdma", 4))
		return true;
	return set_hint(cl, RBPROC_NULL, RB_REPLY_HDR) &&
	       set_hint(cl, RBPROC_WRITE, RB_REPLY_HDR + 4) &&
	       (!g.read_size ||
		(clnt_control(cl, CLSET_RDMA_PROC_DDP, (char *)&d) &&
		 set_hint(cl, RBPROC_READ, RB_REPLY_HDR + 4)));
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static CLIENT *connect_client(void)
{
	struct timeval tv = { 60, 0 };
	CLIENT *cl;

	cl = clnt_create(g.host, g.prog, g.vers, g.netid);
	if (!cl) {
		fprintf(stderr, "rb_client: %s\n", clnt_spcreateerror(g.host));
		return NULL;
	}
	clnt_control(cl, CLSET_TIMEOUT, (char *)&tv);
	if (!set_hints(cl)) {
		fprintf(stderr, "rb_client: cannot set reply size hints\n");
		clnt_destroy(cl);
		return NULL;
	}
	return cl;
}

static int null_call(CLIENT *cl)
{
	enum clnt_stat st = rbproc_null_1(NULL, NULL, cl);

	if (st != RPC_SUCCESS) {
		/* The status is this call's; clnt_sperror adds the
		 * transport's words on a limit met, but tells the CLIENT's
		 * last call, which may be another thread's. */
		fprintf(stderr, "rb_client: NULL: %s (%s)\n",
			clnt_sperrno(st), clnt_sperror(cl, "last call"));
		return -1;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int mode_lat(CLIENT *cl, unsigned long n)
{
	double *t, t0, sum = 0;
	unsigned long i;

	t = calloc(n, sizeof(*t));
	if (!t || null_call(cl))
		return 1;
	for (i = 0; i < n; i++) {
		t0 = now_s();
		if (null_call(cl))
			return 1;
		t[i] = (now_s() - t0) * 1e6;
		sum += t[i];
	}
	qsort(t, n, sizeof(*t), cmp_double);
	printf("RESULT mode=lat netid=%s prog=%#lx n=%lu p50_us=%.1f "
	       "p99_us=%.1f mean_us=%.1f\n", g.netid, (unsigned long)g.prog,
	       n, t[n / 2], t[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1],
	       sum / (double)n);
	free(t);
	return 0;
}

struct worker {
	pthread_t tid;
	CLIENT *cl;
	unsigned long n;
	int rc;
};

static void *rate_worker(void *arg)
{
	struct worker *w = arg;
	unsigned long i;

	pthread_barrier_wait(&g.start);
	for (i = 0; i < w->n; i++) {
		if (null_call(w->cl)) {
			w->rc = 1;
			break;
		}
	}
	return NULL;
}

static int mode_rate(CLIENT *first, unsigned long nthr, unsigned long n,
		     unsigned long nclients, const char *label)
{
	struct worker *w = calloc(nthr, sizeof(*w));
	unsigned long i;
	double t0, dt;
	int rc = 0;

	if (!w || pthread_barrier_init(&g.start, NULL, (unsigned)nthr + 1))
		return 1;
	for (i = 0; i < nthr; i++) {
		/* Connections are made and warmed before the clock starts;
		 * thread i shares the CLIENT of thread i mod nclients. */
		if (i == 0)
			w[i].cl = first;
		else if (i < nclients)
			w[i].cl = connect_client();
		else
			w[i].cl = w[i % nclients].cl;
		w[i].n = n;
		if (!w[i].cl || (i < nclients && null_call(w[i].cl)))
			return 1;
		if (pthread_create(&w[i].tid, NULL, rate_worker, &w[i]))
			return 1;
	}
	pthread_barrier_wait(&g.start);
	t0 = now_s();
	for (i = 0; i < nthr; i++) {
		pthread_join(w[i].tid, NULL);
		rc |= w[i].rc;
	}
	dt = now_s() - t0;
	if (rc)
		return 1;
	printf("RESULT mode=rate netid=%s threads=%lu clients=%s calls=%lu "
	       "calls_per_s=%.0f\n", g.netid, nthr, label, nthr * n,
	       (double)(nthr * n) / dt);
	for (i = 1; i < nclients; i++)
		clnt_destroy(w[i].cl);
	free(w);
	return 0;
}

static int mode_bulk(CLIENT *cl, bool rd, unsigned long size,
		     unsigned long n)
{
	rb_data res, arg;
	enum clnt_stat st;
	u_int got, sz = (u_int)size;
	char *buf;
	double t0, dt;
	unsigned long i;

	buf = malloc(size ? size : 1);
	if (!buf || null_call(cl))
		return 1;
	arg.rb_data_len = sz;
	arg.rb_data_val = (char *)g.pattern;
	t0 = now_s();
	for (i = 0; i < n; i++) {
		if (rd) {
			/* Decoded into the caller's buffer: no allocation. */
			res.rb_data_len = 0;
			res.rb_data_val = buf;
			memset(buf, 0, 64 < size ? 64 : size);
			st = rbproc_read_1(&sz, &res, cl);
			if (st == RPC_SUCCESS &&
			    (res.rb_data_len != sz ||
			     memcmp(buf, g.pattern, size))) {
				fprintf(stderr, "rb_client: READ %lu: wrong "
					"result (%u bytes)\n", size,
					res.rb_data_len);
				return 1;
			}
		} else {
			got = 0;
			st = rbproc_write_1(&arg, &got, cl);
			if (st == RPC_SUCCESS && got != sz) {
				fprintf(stderr, "rb_client: WRITE %lu: the "
					"server got %#x\n", size, got);
				return 1;
			}
		}
		if (st != RPC_SUCCESS) {
			char what[64];

			snprintf(what, sizeof(what), "rb_client: %s %lu",
				 rd ? "READ" : "WRITE", size);
			fprintf(stderr, "%s\n", clnt_sperror(cl, what));
			return 1;
		}
	}
	dt = now_s() - t0;
	printf("RESULT mode=%s netid=%s size=%lu n=%lu MiBps=%.2f\n",
	       rd ? "read" : "write", g.netid, size, n,
	       (double)size * (double)n / dt / 1048576.0);
	free(buf);
	return 0;
}

static int mode_instr(CLIENT *cl, unsigned long warm, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < warm; i++)
		if (null_call(cl))
			return 1;
	CALLGRIND_ZERO_STATS;
	for (i = 0; i < n; i++)
		if (null_call(cl))
			return 1;
	CALLGRIND_DUMP_STATS_AT("rb_client measured");
	printf("RESULT mode=instr netid=%s warmup=%lu n=%lu\n", g.netid, warm,
	       n);
	return 0;
}

/* "shared" (1), "own" (one per thread) or a count in 1..threads. */
static bool rate_clients(const char *s, unsigned long threads,
			 unsigned long *k)
{
	char *end;

	if (!strcmp(s, "shared"))
		*k = 1;
	else if (!strcmp(s, "own"))
		*k = threads;
	else
		*k = strtoul(s, &end, 10);
	if (strcmp(s, "shared") && strcmp(s, "own") && (*end || !*s))
		return false;
	return *k >= 1 && *k <= threads;
}

static unsigned long size_arg(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (*end || !*s)
		return (unsigned long)-1;
	return v;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rb_client [-n netid] [-p port] [-P prog] [-V vers] [-R] host MODE ARGS\n"
		"  lat N | rate THREADS N shared|own|K | read SIZE N | write SIZE N |\n"
		"  instr WARMUP N\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long a, b, k;
	const char *mode;
	CLIENT *cl;
	int c, rc;

	g.netid = "rdma";
	while ((c = getopt(argc, argv, "n:p:P:V:Rh")) != -1) {
		switch (c) {
		case 'n':
			g.netid = optarg;
			break;
		case 'p':
			setenv("RPCRDMA_PORT", optarg, 1);
			break;
		case 'P':
			g.prog = strtoul(optarg, NULL, 0);
			break;
		case 'V':
			g.vers = strtoul(optarg, NULL, 0);
			break;
		case 'R':
			g.no_hints = true;
			break;
		default:
			usage();
		}
	}
	if (argc - optind < 3)
		usage();
	g.host = argv[optind];
	mode = argv[optind + 1];
	a = size_arg(argv[optind + 2]);
	b = argc - optind > 3 ? size_arg(argv[optind + 3]) : 0;
	if (a == (unsigned long)-1 || b == (unsigned long)-1)
		usage();
	/* Only the bulk modes need the 8 MiB pattern: its page faults would
	 * show in the profiles of the others. */
	if (!strcmp(mode, "read") || !strcmp(mode, "write")) {
		g.pattern = rb_pattern(a ? a : 1);
		if (!g.pattern)
			return 1;
		if (mode[0] == 'r')
			g.read_size = a;
	}
	cl = connect_client();
	if (!cl)
		return 1;
	if (!strcmp(mode, "lat") && a > 0)
		rc = mode_lat(cl, a);
	else if (!strcmp(mode, "rate") && a > 0 && b > 0 &&
		 argc - optind == 5 && rate_clients(argv[optind + 4], a, &k))
		rc = mode_rate(cl, a, b, k, argv[optind + 4]);
	else if ((!strcmp(mode, "read") || !strcmp(mode, "write")) &&
		 a <= RB_MAXDATA && b > 0)
		rc = mode_bulk(cl, mode[0] == 'r', a, b);
	else if (!strcmp(mode, "instr") && b > 0)
		rc = mode_instr(cl, a, b);
	else
		usage();
	clnt_destroy(cl);
	free(g.pattern);
	if (!rc && !strncmp(g.netid, "rdma", 4)) {
		/* The verbs work of the whole run, setup included (bench/run
		 * takes the difference of two run lengths). */
		struct rpcrdma_stats st;

		rpcrdma_stats_global(&st);
		printf("VERBS sq_doorbells=%llu sq_wrs=%llu cq_reaped=%llu "
		       "rq_wrs=%llu\n",
		       (unsigned long long)st.sq_doorbells,
		       (unsigned long long)st.sq_wrs,
		       (unsigned long long)st.cq_reaped,
		       (unsigned long long)st.rq_wrs);
	}
	return rc;
}
