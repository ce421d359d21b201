/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest test of the responder's flow control and limits
 * (xprt_rdma/svc_*.c, engine/cm.c): the credit grant stays constant while
 * calls queue (RFC 8166 section 3.3.1), a client with more calls
 * outstanding than granted is disconnected while others carry on, an
 * rdma_xid that differs from the RPC XID is answered with ERR_CHUNK, and
 * the connection limit rejects one connection over it, then admits again
 * once a connection is gone; and no peer stalls the server: one whose
 * RDMA Reads never complete, one that stops reposting receives. Asserted
 * on bytes, counters and the latency other clients see meanwhile.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "harness.h"
#include "../../engine/ep_int.h"

/* Waits up to ms for the process's disconnect count to exceed n. */
static bool disconnects_above(uint64_t n, int ms)
{
	struct rpcrdma_stats g;

	for (int i = 0; i < ms / 20; i++) {
		rpcrdma_stats_global(&g);
		if (g.disconnects > n)
			return true;
		usleep(20000);
	}
	return false;
}

/* The slowest of NULL calls made on cl for ms milliseconds. */
static double slowest_null_calls(CLIENT *cl, int ms, int *ncalls)
{
	double end = now_ms() + ms, worst = 0;

	*ncalls = 0;
	while (now_ms() < end) {
		double t0 = now_ms(), dt;

		null_call(cl);
		dt = now_ms() - t0;
		if (dt > worst)
			worst = dt;
		(*ncalls)++;
	}
	return worst;
}

/* ---- the grant is constant (section 3.3.1) ---- */

/*
 * siw (Linux 6.12) refuses to create queues beyond about 144 pages of
 * queue memory per process (ibv_create_cq fails with ENOSPC, measured in
 * the guest with CQs of 32 to 1,000 entries; docs/conformance.md): with
 * client and server in one process, 64 connections of 32 credits do not
 * fit, SIW_NCONN do.
 */
enum { NCONN = 64, NSHARED = 64, CALLS = 8, SIW_NCONN = 6 };
/* Connections of 2 credits that siw holds at least (15 seen). */
enum { SIW_MIN_CONNS = 8 };

struct caller {
	pthread_t th;
	CLIENT *cl;
	bool hold;	/* first a SLEEP call, all at once */
	int fails;
};

static pthread_barrier_t callers_go;

static void *caller_main(void *arg)
{
	struct caller *c = arg;
	u_int ms = 20;

	/* The server serves a connection's calls one at a time: with every
	 * caller in a 20 ms SLEEP at once, the shared CLIENT's 32 credits
	 * are all out and the other 32 callers wait. */
	if (c->hold) {
		pthread_barrier_wait(&callers_go);
		if (clnt_call(c->cl, P_SLEEP, XP(xdr_u_int), (caddr_t)&ms,
			      XVOID, NULL, tmo) != RPC_SUCCESS)
			c->fails++;
	}
	for (int i = 0; i < CALLS; i++)
		if (clnt_call(c->cl, NULLPROC, XVOID, NULL, XVOID, NULL,
			      tmo) != RPC_SUCCESS)
			c->fails++;
	return NULL;
}

START_TEST(test_grant_constant)
{
	static struct caller own[NCONN], shared[NSHARED];
	struct rpcrdma_stats g, cs;
	struct rpcrdma_opts o;
	CLIENT *one;
	struct srv s;

	rpcrdma_opts_default(&o);
	o.credits = 32;
	srv_start_opts(&s, &o);
	/* 64 connections asking for 32 credits each (the client default),
	 * one of them shared by 64 threads, so 32 calls queue there. */
	int nconn = iwarp ? SIW_NCONN : NCONN;

	for (int i = 0; i < nconn; i++) {
		own[i].cl = clnt_by_netid(s.port);
		null_call(own[i].cl);
	}
	one = own[0].cl;
	ck_assert_int_eq(pthread_barrier_init(&callers_go, NULL, NSHARED), 0);
	for (int i = 0; i < NSHARED; i++) {
		shared[i].cl = one;
		shared[i].hold = true;
		ck_assert_int_eq(pthread_create(&shared[i].th, NULL,
						caller_main, &shared[i]), 0);
	}
	for (int i = 1; i < nconn; i++)
		ck_assert_int_eq(pthread_create(&own[i].th, NULL, caller_main,
						&own[i]), 0);
	for (int i = 0; i < NSHARED; i++) {
		pthread_join(shared[i].th, NULL);
		ck_assert_int_eq(shared[i].fails, 0);
	}
	for (int i = 1; i < nconn; i++) {
		pthread_join(own[i].th, NULL);
		ck_assert_int_eq(own[i].fails, 0);
	}
	pthread_barrier_destroy(&callers_go);
	ck_assert_int_eq(rpcrdma_clnt_stats(one, &cs), 0);
	/* The shared CLIENT really had its 32 credits in use at once. */
	ck_assert_uint_eq(cs.inflight_peak, 32);
	ck_assert_uint_gt(cs.credit_waits, 0);
	ck_assert_uint_eq(cs.credits_granted, 32);
	/* This process is both sides: the totals hold every grant the
	 * server sent on its connections. */
	rpcrdma_stats_global(&g);
	ck_assert_uint_eq(g.credits_grant_min, 32);
	ck_assert_uint_eq(g.credits_grant_max, 32);
	ck_assert_uint_eq(g.credit_overruns, 0);
	ck_assert_uint_eq(g.send_failures, 0);
	/* No RNR (rnr_retry_count 0 would have broken a connection). */
	ck_assert_uint_eq(g.disconnects, 0);
	for (int i = 0; i < nconn; i++)
		clnt_destroy(own[i].cl);
	srv_stop(&s);
}
END_TEST

/* ---- more calls than granted ---- */

START_TEST(test_credit_overrun)
{
	struct rpcrdma_stats g;
	struct rpcrdma_opts o;
	struct rpcrdma_rx rx;
	struct rpcrdma_ep *ep;
	CLIENT *good;
	struct srv s;
	int rc;

	rpcrdma_opts_default(&o);
	o.credits = 4;
	srv_start_opts(&s, &o);
	good = clnt_by_netid(s.port);
	null_call(good);
	ep = raw_connect(s.port);
	/* Granted 1: the raw calls ask for 1 credit. */
	raw_null_call(ep, 0x20000001);
	/*
	 * A SLEEP call (1 s) holds the connection's one call in service;
	 * 300 ms later 8 NULL calls go out at once: 9 outstanding against a
	 * grant of 1. Transport header: xid, vers 1, credits 1, RDMA_MSG,
	 * three empty lists; RPC call: xid, CALL, rpcvers 2, prog, vers,
	 * proc, AUTH_NONE cred and verifier, then the argument.
	 */
	{
		const uint32_t sl[] = { 0x20000002, 1, 1, 0, 0, 0, 0,
					0x20000002, 0, 2, T_PROG, T_VERS,
					P_SLEEP, 0, 0, 0, 0, 1000 };

		raw_send(ep, sl, sizeof(sl) / 4);
		usleep(300000);
		for (uint32_t i = 0; i < 8; i++) {
			const uint32_t nl[] = { 0x20000100 + i, 1, 1, 0, 0, 0,
						0, 0x20000100 + i, 0, 2,
						T_PROG, T_VERS, 0, 0, 0, 0,
						0 };

			raw_send(ep, nl, sizeof(nl) / 4);
		}
	}
	/*
	 * The server closes the connection. The SLEEP's reply may come
	 * first (when the server had taken it before the flood arrived),
	 * never a NULL's.
	 */
	while ((rc = rpcrdma_ep_poll(ep, &rx, 10000)) == 1) {
		uint32_t xid;

		ck_assert_uint_ge(rx.len, 4);
		memcpy(&xid, rx.data, 4);
		ck_assert_msg(ntohl(xid) == 0x20000002,
			      "a reply to %08x after the overrun", ntohl(xid));
		rpcrdma_ep_rx_done(ep, &rx);
	}
	ck_assert_msg(rc == -ENOTCONN, "poll after the overrun: %d", rc);
	rpcrdma_stats_global(&g);
	ck_assert_uint_eq(g.credit_overruns, 1);
	/* The well-behaved client is not disturbed. */
	for (int i = 0; i < 10; i++)
		null_call(good);
	echo(good, 100000, 5);
	rpcrdma_ep_destroy(ep);
	clnt_destroy(good);
	srv_stop(&s);
}
END_TEST

/* ---- rdma_xid must repeat the RPC XID (section 4.2.1) ---- */

START_TEST(test_xid_mismatch)
{
	struct rpcrdma_stats a, b;
	struct rpcrdma_ep *ep;
	struct srv s;
	SVCXPRT *x;

	srv_start(&s, 0);
	ep = raw_connect(s.port);
	raw_null_call(ep, 0x30000001);
	x = atomic_load(&last_xprt);
	a = svc_stats_of(x);
	{
		/* rdma_xid 0x30000002, RPC XID 0x30000003: ERR_CHUNK with
		 * the transport header's XID, and no dispatch. */
		const uint32_t m[] = { 0x30000002, 1, 1, 0, 0, 0, 0,
				       0x30000003, 0, 2, T_PROG, T_VERS, 0,
				       0, 0, 0, 0 };
		const uint32_t r[] = { 0x30000002, 1, 1, 4, 2 };

		raw_send(ep, m, sizeof(m) / 4);
		raw_expect(ep, r, sizeof(r) / 4);
	}
	raw_null_call(ep, 0x30000004);
	b = svc_stats_of(x);
	ck_assert_uint_eq(b.xid_mismatches - a.xid_mismatches, 1);
	ck_assert_uint_eq(b.err_chunk_sent - a.err_chunk_sent, 1);
	ck_assert_uint_eq(b.sent_msg - a.sent_msg, 1);
	rpcrdma_ep_destroy(ep);
	srv_stop(&s);
}
END_TEST

/* ---- the connection limit ---- */

/* A NULL call on a new CLIENT; its clnt_stat (creation failure too). */
static enum clnt_stat try_client(uint16_t port, CLIENT **out)
{
	enum clnt_stat st;
	char p[8];

	snprintf(p, sizeof(p), "%u", port);
	setenv("RPCRDMA_PORT", p, 1);
	setenv("RPCRDMA_SRCADDR", addr_a, 1);
	*out = clnt_create(addr_b, T_PROG, T_VERS, "rdma");
	if (!*out)
		return rpc_createerr.cf_stat;
	st = clnt_call(*out, NULLPROC, XVOID, NULL, XVOID, NULL, tmo);
	if (st != RPC_SUCCESS) {
		clnt_destroy(*out);
		*out = NULL;
	}
	return st;
}

START_TEST(test_conn_limit)
{
	struct rpcrdma_stats g;
	struct rpcrdma_opts o;
	CLIENT *c1, *c2, *c3 = NULL;
	enum clnt_stat st = RPC_FAILED;
	struct srv s;
	int fds_idle;

	rpcrdma_opts_default(&o);
	o.max_conns = 2;
	srv_start_opts(&s, &o);
	/* librdmacm opens a device's context on first use and keeps it for
	 * the process: one client cycle first, then the idle fd count. */
	ck_assert_int_eq(try_client(s.port, &c1), RPC_SUCCESS);
	clnt_destroy(c1);
	fds_idle = open_fds();
	/* Settled: the count has not moved for 0.5 s (the server has freed
	 * that connection). */
	for (int i = 0, same = 0; i < 100 && same < 5; i++) {
		int n;

		usleep(100000);
		n = open_fds();
		same = n == fds_idle ? same + 1 : 0;
		fds_idle = n;
	}
	ck_assert_int_eq(try_client(s.port, &c1), RPC_SUCCESS);
	ck_assert_int_eq(try_client(s.port, &c2), RPC_SUCCESS);
	ck_assert_int_ne(try_client(s.port, &c3), RPC_SUCCESS);
	ck_assert_ptr_null(c3);
	rpcrdma_stats_global(&g);
	ck_assert_uint_ge(g.connections_refused, 1);
	/* The two admitted ones keep working. */
	echo(c1, 5000, 1);
	echo(c2, 5000, 2);
	/* Once one is gone (the server sees the disconnect and frees the
	 * connection), a new one is admitted. */
	clnt_destroy(c1);
	for (int i = 0; i < 50 && st != RPC_SUCCESS; i++) {
		usleep(100000);
		st = try_client(s.port, &c3);
	}
	ck_assert_int_eq(st, RPC_SUCCESS);
	null_call(c3);
	null_call(c2);
	clnt_destroy(c2);
	clnt_destroy(c3);
	/* Once the server has seen both go, every fd is back: the clients'
	 * and the server's connections left nothing open. */
	for (int i = 0; i < 100 && open_fds() != fds_idle; i++)
		usleep(50000);
	ck_assert_int_eq(open_fds(), fds_idle);
	srv_stop(&s);
}
END_TEST

/*
 * Scale: as many connections as the default limit allows (256) to one
 * server, each answering a NULL call, the next one refused; the process
 * (clients and server together) grows by at most SCALE_KIB per
 * connection (measured: printed; docs/security.md has the figure), and
 * once all are gone every fd is back. Each CLIENT has 2 credits and a
 * reply bound that fits inline, so its slots pin a few KiB (without a
 * bound each call in flight pins max_msg, 16 MiB: README, Memory). Both
 * ends live in this process: about 9 fds per connection, more than the
 * default 1024, so the soft limit goes up to the hard one.
 */
/* Seen: about 850 KiB, about 1,010 KiB under ASan (redzones, quarantine);
 * the bound catches a connection pinning max_msg (16 MiB), not noise. */
#if defined(__SANITIZE_ADDRESS__)
#define SCALE_KIB	2048
#else
#define SCALE_KIB	1536
#endif

START_TEST(test_many_connections)
{
	enum { N = 256 };
	CLIENT **cl = calloc(N, sizeof(*cl)), *extra = NULL;
	struct rpcrdma_opts o, co;
	uint32_t bound = 512;
	long rss0, rss1, per;
	struct rlimit rl;
	int fds_idle;
	struct srv s;
	int n;

	ck_assert_ptr_nonnull(cl);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = rl.rlim_max;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_uint_ge(rl.rlim_cur, 12 * N);
	rpcrdma_opts_default(&o);
	ck_assert_uint_eq(o.max_conns, N);
	srv_start_opts(&s, &o);
	rpcrdma_opts_default(&co);
	co.port = s.port;
	co.src_addr = addr_a;
	co.credits = 2;
	/* The device's context is opened once per process: one cycle. */
	extra = clnt_rdma_create(addr_b, T_PROG, T_VERS, &co);
	ck_assert_ptr_nonnull(extra);
	clnt_destroy(extra);
	extra = NULL;
	for (int i = 0; i < 50; i++)
		usleep(20000);
	fds_idle = open_fds();
	rss0 = vmrss_kib();
	for (n = 0; n < N; n++) {
		cl[n] = clnt_rdma_create(addr_b, T_PROG, T_VERS, &co);
		if (!cl[n] && iwarp && n >= SIW_MIN_CONNS) {
			/* siw's queue memory ran out (the SIW_NCONN comment):
			 * a clean refusal, the client told why. */
			printf("many_connections: siw stopped at %d: %s\n", n,
			       clnt_spcreateerror("clnt"));
			ck_assert_int_eq(rpc_createerr.cf_stat,
					 RPC_SYSTEMERROR);
			break;
		}
		ck_assert_msg(cl[n] != NULL, "connection %d: %s", n,
			      clnt_spcreateerror("clnt"));
		ck_assert(clnt_control(cl[n], CLSET_RDMA_REPLY_MAX,
				       (char *)&bound));
		null_call(cl[n]);
	}
	rss1 = vmrss_kib();
	per = (rss1 - rss0) / n;
	printf("many_connections: %d connections, VmRSS %ld -> %ld KiB, "
	       "%ld KiB per connection (client and server)\n", n, rss0, rss1,
	       per);
	ck_assert_int_le(per, SCALE_KIB);
	/* One over the limit: refused at connection time (not reached on
	 * siw). */
	extra = n == N ? clnt_rdma_create(addr_b, T_PROG, T_VERS, &co) : NULL;
	if (extra) {
		ck_assert_int_ne(clnt_call(extra, NULLPROC, XVOID, NULL, XVOID,
					   NULL, tmo), RPC_SUCCESS);
		clnt_destroy(extra);
	}
	/* Every connection still answers. */
	for (int i = 0; i < n; i += 17)
		null_call(cl[i]);
	null_call(cl[n - 1]);
	for (int i = 0; i < n; i++)
		clnt_destroy(cl[i]);
	free(cl);
	for (int i = 0; i < 200 && open_fds() != fds_idle; i++)
		usleep(50000);
	ck_assert_int_eq(open_fds(), fds_idle);
	srv_stop(&s);
}
END_TEST

/* ---- no peer stalls the server ---- */

/*
 * A raw client sends a Long Call whose read chunk (32 segments of 512 KiB,
 * twice the most Reads the server has in flight) the server starts to
 * pull, then its QP goes silent (to the error state: it answers nothing
 * more). retry_count is what its connection request asks of the server's
 * QP; the server's stall deadline is stall_ms (0: the default). Other
 * clients must keep their latency and the bad connection must close
 * within close_ms; returns the milliseconds the close took. With revoke,
 * the peer instead deregisters the chunk's memory while the server reads
 * it: the Reads fail (remote access error) and the connection closes
 * within close_ms, checked first. Either way the call is never
 * dispatched.
 */
static double reads_interrupted(uint8_t retry_count, uint32_t stall_ms,
				double close_ms, bool revoke)
{
	enum { BIG = 16u << 20, NSEG = 32, SEG = BIG / NSEG };
	struct rpcrdma_ep_opts eo;
	double silent, took = 0;
	bool closed = false;
	struct rpcrdma_stats g0, g;
	struct rpcrdma_opts o;
	struct rpcrdma_mr *mr;
	struct rpcrdma_ep *ep;
	uint32_t w[16 + 6 * NSEG], *call;
	double worst;
	CLIENT *good;
	struct srv s;
	size_t n = 0;
	unsigned int dispatched0;
	int calls;

	rpcrdma_opts_default(&o);
	o.max_msg = 2 * BIG;
	if (stall_ms)
		o.stall_ms = stall_ms;
	srv_start_opts(&s, &o);
	good = clnt_by_netid(s.port);
	null_call(good);
	rpcrdma_opts_default(&o);
	ck_assert_int_eq(rpcrdma_opts_to_ep(&o, &eo), 0);
	eo.retry_count = retry_count;
	ep = raw_connect_eo(s.port, &eo);
	raw_null_call(ep, 0x40000001);
	call = calloc(1, BIG);
	ck_assert_ptr_nonnull(call);
	{
		/* A NULL call, the rest of the 16 MiB trailing bytes. */
		const uint32_t rpc[] = { 0x40000002, 0, 2, T_PROG, T_VERS, 0,
					 0, 0, 0, 0 };

		for (size_t i = 0; i < sizeof(rpc) / 4; i++)
			call[i] = htonl(rpc[i]);
	}
	ck_assert_int_eq(rpcrdma_ep_reg(ep, call, BIG,
					RPCRDMA_ACCESS_REMOTE_READ, &mr), 0);
	/* xid, vers 1, credits 1, RDMA_NOMSG; read list: NSEG segments at
	 * position 0 (one chunk); no write list, no reply chunk. */
	w[n++] = 0x40000002; w[n++] = 1; w[n++] = 1; w[n++] = 1;
	for (int i = 0; i < NSEG; i++) {
		w[n++] = 1;
		w[n++] = 0;
		n = put_seg(w, n, rpcrdma_mr_rkey(mr), SEG,
			    (char *)call + (size_t)i * SEG);
	}
	w[n++] = 0; w[n++] = 0; w[n++] = 0;
	rpcrdma_stats_global(&g0);
	raw_send(ep, w, n);
	/* As soon as the server has posted its Reads, go silent. */
	for (int i = 0; i < 500; i++) {
		rpcrdma_stats_global(&g);
		if (g.read_chunks > g0.read_chunks)
			break;
		usleep(2000);
	}
	ck_assert_uint_gt(g.read_chunks, g0.read_chunks);
	dispatched0 = atomic_load(&dispatched);
	if (revoke) {
		rpcrdma_mr_dereg(mr);
		mr = NULL;
	} else {
		ep_qp_to_error(ep->qp);
	}
	silent = now_ms();
	/* The Reads were posted without waiting for them (the window). */
	ck_assert_uint_ge(g.reads_inflight_peak, 1);
	rpcrdma_stats_global(&g0);
	ck_assert_uint_lt(g0.rdma_read_bytes, BIG);	/* still reading */
	/* The deregistration worked: the server meets a dead rkey, our own
	 * end was not closed for a failed deregistration. */
	ck_assert_uint_eq(g0.dereg_failures, g.dereg_failures);
	if (revoke) {
		closed = disconnects_above(g.disconnects, (int)close_ms);
		took = now_ms() - silent;
	}

	/* Other clients are served as usual meanwhile. */
	worst = slowest_null_calls(good, 3000, &calls);
	fprintf(stderr, "%s: %d NULL calls of another client in 3 s, slowest "
		"%.1f ms\n", revoke ? "read chunk revoked" : "stalled reads",
		calls, worst);
	ck_assert_msg(worst < 1000, "a NULL call took %.0f ms", worst);
	ck_assert_int_gt(calls, 50);
	/* The stalled connection is closed by the server. */
	if (!revoke) {
		closed = disconnects_above(g.disconnects,
					   (int)(close_ms -
						 (now_ms() - silent)));
		took = now_ms() - silent;
	}
	fprintf(stderr, "%s (retry_count %u): closed=%d %.0f ms after\n",
		revoke ? "read chunk deregistered mid-read" :
			 "stalled reads: the peer went silent",
		retry_count, closed, took);
	ck_assert_msg(closed, "the connection was not closed");
	/* The call whose bytes never all came was not run: only the other
	 * client's NULL calls were. */
	ck_assert_uint_eq(atomic_load(&dispatched) - dispatched0,
			  (unsigned int)calls);
	null_call(good);
	if (mr)
		rpcrdma_mr_dereg(mr);
	rpcrdma_ep_destroy(ep);
	free(call);
	clnt_destroy(good);
	srv_stop(&s);
	return took;
}

/* The peer asks for our usual retries: they run out (about 7.5 s). */
START_TEST(test_reads_never_complete)
{
	struct rpcrdma_stats g0, g;

	rpcrdma_stats_global(&g0);
	reads_interrupted(6, 0, 30000, false);
	rpcrdma_stats_global(&g);
	ck_assert_uint_eq(g.transfer_stalls, g0.transfer_stalls);
}
END_TEST

/* The peer asks for retry count 7, which rxe reads as "forever": the
 * server's deadline (4 s here) closes the connection. */
START_TEST(test_reads_stall_deadline)
{
	struct rpcrdma_stats g0, g;
	double took;

	rpcrdma_stats_global(&g0);
	took = reads_interrupted(7, 4000, 20000, false);
	rpcrdma_stats_global(&g);
	/* On iWARP the peer's QP in error closes its TCP connection: the
	 * server's Reads are flushed at once, before any deadline. A silent
	 * peer (TCP retrying for minutes) is not reproduced there. */
	ck_assert_uint_eq(g.transfer_stalls,
			  g0.transfer_stalls + (iwarp ? 0 : 1));
	/* The deadline and one check interval, with slack for TCG. */
	ck_assert_msg(took < 4000 + 1000 + 2000, "closed after %.0f ms", took);
}
END_TEST

/*
 * The peer deregisters its read chunk while the server is reading it
 * (issue 10): the server's Reads fail at once with a remote access error,
 * the connection closes well before any retry bound, the partly read call
 * is not dispatched, and other clients carry on.
 */
START_TEST(test_read_chunk_revoked)
{
	struct rpcrdma_stats g0, g;
	struct utsname u;
	double took;
	/* The peer NAKs the Read of a dead key: closed at once. On Linux
	 * 6.1 a CI run once saw no close within 2 s (cause not established;
	 * 6.1's rxe is known to stall Read Responses, docs/testing.md, and
	 * then the server's retries run out after about 7.6 s): 10 s there,
	 * still short of the 15 s stall deadline, which must not fire. */
	int limit = uname(&u) == 0 && !strncmp(u.release, "6.1.", 4) ? 10000
								       : 2000;

	rpcrdma_stats_global(&g0);
	took = reads_interrupted(6, 0, limit, true);
	rpcrdma_stats_global(&g);
	ck_assert_uint_eq(g.transfer_stalls, g0.transfer_stalls);
	ck_assert_msg(took < limit, "closed after %.0f ms", took);
}
END_TEST

/*
 * A client that stops reposting receives (9 posted, 12 calls sent and no
 * reply consumed): with rnr_retry_count 0 the server's tenth reply meets
 * an RNR NAK and the server closes that connection at once instead of
 * retrying forever; another client is not disturbed.
 */
START_TEST(test_receives_not_reposted)
{
	struct rpcrdma_opts o, ro;
	struct rpcrdma_stats g0, g;
	struct rpcrdma_ep *ep;
	CLIENT *good;
	struct srv s;
	double worst;
	int calls;

	rpcrdma_opts_default(&o);
	srv_start_opts(&s, &o);
	good = clnt_by_netid(s.port);
	null_call(good);
	/* 1 credit: the engine posts 1 + 8 receives. */
	rpcrdma_opts_default(&ro);
	ro.credits = 1;
	ep = raw_connect_opts(s.port, &ro);
	ck_assert_uint_eq(rpcrdma_ep_recvs_posted(ep), 9);
	rpcrdma_stats_global(&g0);
	for (uint32_t i = 0; i < 12; i++) {
		/* credits 32 asked: the server's 32 allow 12 at once. */
		const uint32_t nl[] = { 0x50000000 + i, 1, 32, 0, 0, 0, 0,
					0x50000000 + i, 0, 2, T_PROG, T_VERS,
					0, 0, 0, 0, 0 };

		raw_send(ep, nl, sizeof(nl) / 4);
	}
	worst = slowest_null_calls(good, 2000, &calls);
	fprintf(stderr, "receives not reposted: %d NULL calls in 2 s, slowest %.1f ms\n",
	       calls, worst);
	ck_assert_msg(worst < 1000, "a NULL call took %.0f ms", worst);
	ck_assert_msg(disconnects_above(g0.disconnects, 10000),
		      "the connection was not closed in 10 s");
	rpcrdma_stats_global(&g);
	ck_assert_uint_eq(g.credit_overruns, 0);
	echo(good, 50000, 9);
	rpcrdma_ep_destroy(ep);
	clnt_destroy(good);
	srv_stop(&s);
}
END_TEST

/* ---- a flood of junk (issue 10) ---- */

static uint32_t junk_rand(uint32_t *st)
{
	/* xorshift32: reproducible from the printed seed. */
	*st ^= *st << 13;
	*st ^= *st >> 17;
	*st ^= *st << 5;
	return *st;
}

/*
 * One junk message of xid into b (host-order words before the byte swap);
 * returns its length in bytes. Four kinds: random bytes; a plausible
 * prefix (xid, version 1, credits, a procedure 0..7) then small and
 * random words where list counts and lengths go; a good NULL call cut
 * at any byte; a good NULL call with one word replaced.
 */
static size_t junk_make(uint32_t *st, uint32_t *b, uint32_t xid)
{
	const uint32_t good[] = { xid, 1, 8, 0, 0, 0, 0,
				  xid, 0, 2, T_PROG, T_VERS, 0, 0, 0, 0, 0 };
	const size_t ngood = sizeof(good) / 4;
	size_t n, bytes;

	switch (junk_rand(st) % 4) {
	case 0:
		n = junk_rand(st) % 64;
		for (size_t i = 0; i < n; i++)
			b[i] = junk_rand(st);
		return n * 4 - (n ? junk_rand(st) % 4 : 0);
	case 1:
		n = 4 + junk_rand(st) % 60;
		b[0] = xid;
		b[1] = 1;
		b[2] = junk_rand(st) % 40;
		b[3] = junk_rand(st) % 8;
		for (size_t i = 4; i < n; i++) {
			uint32_t r = junk_rand(st);

			b[i] = r % 3 == 0 ? r : r % 3 == 1 ? r % 3 : r % 70000;
		}
		return n * 4;
	case 2:
		memcpy(b, good, sizeof(good));
		bytes = junk_rand(st) % (ngood * 4);
		return bytes;
	default:
		memcpy(b, good, sizeof(good));
		b[junk_rand(st) % ngood] = junk_rand(st);
		return ngood * 4;
	}
}

struct flood {
	uint16_t port;
	uint32_t seed;
	double secs;
	unsigned int sent, answered, reconnects, markers;
};

/* Waits for the reply to the NULL call of xid, counting the other
 * messages; false when the connection went down. Fails after 10 s. */
static bool flood_marker(struct rpcrdma_ep *ep, uint32_t xid,
			 unsigned int *answered)
{
	double end = now_ms() + 10000;
	struct rpcrdma_rx rx;

	while (now_ms() < end) {
		uint32_t w0;
		int rc = rpcrdma_ep_poll(ep, &rx, 1000);

		if (rc < 0)
			return false;
		if (rc == 0)
			continue;
		memcpy(&w0, rx.data, 4);
		if (rx.len == 13 * 4 && ntohl(w0) == xid) {
			rpcrdma_ep_rx_done(ep, &rx);
			return true;
		}
		(*answered)++;
		rpcrdma_ep_rx_done(ep, &rx);
	}
	ck_abort_msg("no answer to the NULL call %08x in 10 s", xid);
	return false;
}

/* A NULL call asking credits 8 and its answer; false when the connection
 * went down. */
static bool flood_null(struct rpcrdma_ep *ep, uint32_t *xid,
		       struct flood *f)
{
	const uint32_t x = ++*xid;
	const uint32_t nc[] = { x, 1, 8, 0, 0, 0, 0,
				x, 0, 2, T_PROG, T_VERS, 0, 0, 0, 0, 0 };
	uint32_t be[sizeof(nc) / 4];
	struct iovec iov = { be, sizeof(nc) };
	bool up;

	for (size_t k = 0; k < sizeof(nc) / 4; k++)
		be[k] = htonl(nc[k]);
	up = rpcrdma_ep_send(ep, &iov, 1, 0) == 0 &&
	     flood_marker(ep, x, &f->answered);
	f->markers += up;
	return up;
}

/*
 * For f->secs: batches of 4 junk messages, then a NULL call whose answer
 * paces the next batch. Each connection first gets its grant of 8 from a
 * NULL call (RFC 8166 section 3.3.1: one call before the first grant),
 * so a batch stays within it; a connection the junk broke is made again.
 */
static void *flood_main(void *arg)
{
	struct flood *f = arg;
	uint32_t st = f->seed, xid = 0x6a000000, b[64], be[64];
	struct rpcrdma_ep *ep = raw_connect(f->port);
	double end = now_ms() + f->secs * 1000;
	bool up = flood_null(ep, &xid, f);

	while (now_ms() < end) {
		for (int i = 0; i < 4 && up; i++) {
			size_t len = junk_make(&st, b, ++xid);
			struct iovec iov = { be, len };

			for (size_t k = 0; k < (len + 3) / 4; k++)
				be[k] = htonl(b[k]);
			up = rpcrdma_ep_send(ep, &iov, 1, 0) == 0;
			f->sent += up;
		}
		if (up)
			up = flood_null(ep, &xid, f);
		if (!up) {
			rpcrdma_ep_destroy(ep);
			ep = raw_connect(f->port);
			f->reconnects++;
			up = flood_null(ep, &xid, f);
		}
	}
	rpcrdma_ep_destroy(ep);
	return NULL;
}

/*
 * A peer floods the server with junk (random bytes, plausible headers
 * with absurd lists, good calls cut or with one word replaced), four
 * messages at a time and a NULL call after them: each NULL call is
 * answered, a connection the junk breaks (a read chunk naming a random
 * rkey, say) is the only one closed, another client keeps its latency
 * meanwhile, and once the peer is gone the server holds no more fds
 * than before.
 */
START_TEST(test_junk_flood)
{
	const char *env = getenv("T_JUNK_SECS");
	struct rpcrdma_stats g0, g;
	struct flood f = { 0 };
	pthread_t th;
	struct srv s;
	double worst;
	int calls, fd0, fd1 = -1;
	CLIENT *good;

	srv_start(&s, 0);
	good = clnt_by_netid(s.port);
	null_call(good);
	fd0 = open_fds();
	rpcrdma_stats_global(&g0);
	f.port = s.port;
	f.seed = (uint32_t)time(NULL) | 1u;
	f.secs = env ? atof(env) : 10;
	ck_assert_int_eq(pthread_create(&th, NULL, flood_main, &f), 0);
	worst = slowest_null_calls(good, (int)(f.secs * 1000), &calls);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	rpcrdma_stats_global(&g);
	fprintf(stderr, "junk flood (seed %u): %u junk messages in %.0f s, "
		"%u answered, %u NULL calls answered, %u connections "
		"broken and made again; bad headers %llu, ERR_VERS %llu, "
		"ERR_CHUNK %llu, GARBAGE_ARGS %llu; meanwhile %d NULL calls of "
		"another client, slowest %.1f ms\n",
		f.seed, f.sent, f.secs, f.answered, f.markers, f.reconnects,
		(unsigned long long)(g.bad_headers - g0.bad_headers),
		(unsigned long long)(g.err_vers_sent - g0.err_vers_sent),
		(unsigned long long)(g.err_chunk_sent - g0.err_chunk_sent),
		(unsigned long long)(g.garbage_args_sent -
				     g0.garbage_args_sent),
		calls, worst);
	ck_assert_uint_gt(f.markers, 100);
	ck_assert_uint_gt(f.sent, 4 * 100);
	ck_assert_uint_gt(g.bad_headers, g0.bad_headers);
	ck_assert_uint_gt(g.err_vers_sent, g0.err_vers_sent);
	ck_assert_uint_gt(g.err_chunk_sent, g0.err_chunk_sent);
	ck_assert_msg(worst < 1000, "a NULL call took %.0f ms", worst);
	/* The server reaps the flood's last connection. */
	for (int i = 0; i < 250 && fd1 != fd0; i++) {
		usleep(20000);
		fd1 = open_fds();
	}
	ck_assert_int_eq(fd1, fd0);
	echo(good, 50000, 11);
	clnt_destroy(good);
	srv_stop(&s);
}
END_TEST

/*
 * A dispatch function that switches its thread's credentials (as NFS
 * servers do per request) and back. The kernel then refuses the uverbs
 * and rdma_cm commands of that thread (its cred is no longer the opener's,
 * even with the same ids), and every later command of it: the reply's
 * Send, the disconnect that would tell the client. Not served yet
 * (README): the server detects and counts it (permission_errors), and the
 * client's call fails by its timeout, not in silence forever.
 */
START_TEST(test_credentials_switch)
{
	struct timeval five = { 5, 0 };
	struct rpcrdma_stats g;
	enum clnt_stat st;
	CLIENT *cl;
	struct srv s;
	double t0;

	srv_start(&s, 0);
	cl = clnt_by_netid(s.port);
	null_call(cl);
	t0 = now_ms();
	st = clnt_call(cl, P_SETEUID, XVOID, NULL, XVOID, NULL, five);
	fprintf(stderr, "credentials switched: %s after %.0f ms\n",
		clnt_sperrno(st), now_ms() - t0);
	ck_assert_int_ne(st, RPC_SUCCESS);
	rpcrdma_stats_global(&g);
	ck_assert_uint_ge(g.permission_errors, 1);
	clnt_destroy(cl);
	/* The server thread cannot drive its transports any more. */
	atomic_store(&s.stop, true);
	pthread_join(s.th, NULL);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("limits");
	TCase *tc = tcase_create("limits");

	if (!guest_addrs("t_limits"))
		return 77;
	tcase_set_timeout(tc, 200);
	tcase_add_test(tc, test_grant_constant);
	tcase_add_test(tc, test_credit_overrun);
	tcase_add_test(tc, test_xid_mismatch);
	tcase_add_test(tc, test_conn_limit);
	tcase_add_test(tc, test_many_connections);
	tcase_add_test(tc, test_reads_never_complete);
	tcase_add_test(tc, test_reads_stall_deadline);
	tcase_add_test(tc, test_read_chunk_revoked);
	tcase_add_test(tc, test_receives_not_reposted);
	tcase_add_test(tc, test_junk_flood);
	tcase_add_test(tc, test_credentials_switch);
	suite_add_tcase(su, tc);
	return run_suite(su);
}
