/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_limits's tests of credits and connections (of the TCase "limits"):
 * the grant stays constant while calls queue (RFC 8166 section 3.3.1),
 * a client with more calls outstanding than granted is disconnected,
 * an rdma_xid that differs from the RPC XID gets ERR_CHUNK, the
 * connection limit, and many connections within the process's memory.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "harness.h"
#include "../../engine/ep_int.h"
#include "t_limits.h"
#include "procself.h"

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

/* The operator's log (rpcrdma_set_log): every line the library gave. */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_text[4096];

static void log_keep(void *arg, const char *line)
{
	size_t n;

	ck_assert_ptr_eq(arg, log_text);
	pthread_mutex_lock(&log_mu);
	n = strlen(log_text);
	snprintf(log_text + n, sizeof(log_text) - n, "%s\n", line);
	pthread_mutex_unlock(&log_mu);
}

/* Waits up to ms for the log to hold s; what it holds then. */
static bool log_wait(const char *s, int ms)
{
	bool found;

	for (;;) {
		pthread_mutex_lock(&log_mu);
		found = strstr(log_text, s) != NULL;
		pthread_mutex_unlock(&log_mu);
		if (found || ms <= 0)
			return found;
		usleep(20000);
		ms -= 20;
	}
}

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
	log_text[0] = 0;
	rpcrdma_set_log(log_keep, log_text);
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
	/* Told to the operator once the transport goes, with the peer and
	 * the reason; counted as a close of the server's own. */
	ck_assert_msg(log_wait("server closed the connection from 10.99.0.", 5000) &&
		      log_wait("more calls than its credit grant", 0),
		      "log: %s", log_text);
	rpcrdma_stats_global(&g);
	ck_assert_uint_eq(g.server_closes, 1);
	/* The well-behaved client is not disturbed. */
	for (int i = 0; i < 10; i++)
		null_call(good);
	echo(good, 100000, 5);
	rpcrdma_ep_destroy(ep);
	clnt_destroy(good);
	srv_stop(&s);
	/* The good client's end is its own: no second line. */
	ck_assert_msg(!strstr(strstr(log_text, "\n") + 1, "closed"),
		      "log: %s", log_text);
	rpcrdma_set_log(NULL, NULL);
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

/* A CLIENT from host src (NULL: addr_a) with 2 credits, or NULL. */
static CLIENT *client_from(uint16_t port, const char *src)
{
	struct rpcrdma_opts co;

	rpcrdma_opts_default(&co);
	co.port = port;
	co.src_addr = src ? src : addr_a;
	co.credits = 2;
	return clnt_rdma_create(addr_b, T_PROG, T_VERS, &co);
}

/*
 * One host may hold at most max_conns_per_source of the listener's
 * connections (security review 21c8dd5, finding 6: one host took all 256
 * for ever): with 8 in all and 3 per host, the 4th from addr_a is
 * refused although 5 slots are free, counted in connections_refused;
 * a client from a second host (addr_c) is admitted meanwhile, and one
 * from addr_a again once one of its three is gone.
 */
START_TEST(test_conn_limit_per_source)
{
	struct rpcrdma_stats g0, g1;
	struct rpcrdma_opts o;
	CLIENT *c[3], *more, *other = NULL;
	struct srv s;

	rpcrdma_opts_default(&o);
	o.max_conns = 8;
	o.max_conns_per_source = 3;
	srv_start_opts(&s, &o);
	for (int i = 0; i < 3; i++) {
		c[i] = client_from(s.port, NULL);
		ck_assert_msg(c[i] != NULL, "client %d: %s", i,
			      clnt_spcreateerror("clnt"));
		null_call(c[i]);
	}
	rpcrdma_stats_global(&g0);
	more = client_from(s.port, NULL);
	ck_assert_msg(more == NULL, "a 4th connection from one host was "
		      "admitted");
	rpcrdma_stats_global(&g1);
	ck_assert_uint_eq(g1.connections_refused - g0.connections_refused, 1);
	if (addr_c) {
		other = client_from(s.port, addr_c);
		ck_assert_msg(other != NULL, "a second host was refused: %s",
			      clnt_spcreateerror("clnt"));
		null_call(other);
	} else {
		printf("t_limits: test_conn_limit_per_source: no second "
		       "client host (RPCRDMA_ADDR_C unset): not tried\n");
	}
	clnt_destroy(c[0]);
	for (int i = 0; i < 50 && !more; i++) {
		usleep(100000);
		more = client_from(s.port, NULL);
	}
	ck_assert_msg(more != NULL, "no slot came back to the first host");
	null_call(more);
	null_call(c[1]);
	null_call(c[2]);
	clnt_destroy(more);
	clnt_destroy(c[1]);
	clnt_destroy(c[2]);
	if (other)
		clnt_destroy(other);
	srv_stop(&s);
}
END_TEST

/*
 * A connection request whose handshake never completes: rdma_connect
 * without a QP leaves the RTU to the caller (librdmacm reports
 * CONNECT_RESPONSE instead of sending it), and this one never calls
 * rdma_establish. The server has accepted; its connection waits.
 */
struct halfopen {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
};

static void cm_expect(struct rdma_event_channel *ch,
		      enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type got;
	struct rpcrdma_stats g;
	int status;

	ck_assert_int_eq(rdma_get_cm_event(ch, &ev), 0);
	got = ev->event;
	status = ev->status;
	rdma_ack_cm_event(ev);
	if (got != want) {
		rpcrdma_stats_global(&g);
		stats_print("t_limits: process", &g);
	}
	ck_assert_msg(got == want, "CM event %s (status %d), not %s",
		      rdma_event_str(got), status, rdma_event_str(want));
}

static void halfopen_start(struct halfopen *h, uint16_t port)
{
	struct sockaddr_in dst, src;
	struct rdma_conn_param cp;

	guest_sockaddrs(port, &dst, &src);
	h->ch = rdma_create_event_channel();
	ck_assert_ptr_nonnull(h->ch);
	ck_assert_int_eq(rdma_create_id(h->ch, &h->id, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_resolve_addr(h->id, (struct sockaddr *)&src,
					   (struct sockaddr *)&dst, 5000), 0);
	cm_expect(h->ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	ck_assert_int_eq(rdma_resolve_route(h->id, 5000), 0);
	cm_expect(h->ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
	/*
	 * A QP number no QP of this guest has (rxe numbers from 17 up to
	 * 2^17), new on every call: the CM rejects a REQ naming a remote QP
	 * it still knows, from a connection or its timewait (STALE_CONN).
	 */
	static uint32_t next_qpn;

	if (!next_qpn)
		next_qpn = 0x800000u | (((uint32_t)now_ms() & 0x3fffu) << 4);
	memset(&cp, 0, sizeof(cp));
	cp.qp_num = next_qpn++;
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.retry_count = 6;
	ck_assert_int_eq(rdma_connect(h->id, &cp), 0);
	cm_expect(h->ch, RDMA_CM_EVENT_CONNECT_RESPONSE);
}

static void halfopen_stop(struct halfopen *h)
{
	rdma_destroy_id(h->id);
	rdma_destroy_event_channel(h->ch);
}

/*
 * Accepted connections whose handshake does not complete hold their slot
 * only until the listener's timeout_ms (security review 21c8dd5, finding
 * 6: the REQ's own CM timeouts, the sender's choice, kept them for a
 * minute or more). With 2 slots taken by half-open connections a client
 * is refused; once they are older than the timeout (4 s), the next
 * request, finding no slot, drops them (handshakes_expired 2) and is
 * admitted.
 */
START_TEST(test_handshake_deadline)
{
	struct rpcrdma_stats g0, g1;
	struct halfopen h[2];
	struct rpcrdma_opts o;
	CLIENT *c;
	struct srv s;

	if (iwarp) {
		/* siw's connection setup is MPA over TCP: a connect without
		 * a QP is not one rdma_connect(3) offers there. */
		printf("t_limits: test_handshake_deadline: not on siw\n");
		return;
	}
	rpcrdma_opts_default(&o);
	o.max_conns = 2;
	o.timeout_ms = 4000;	/* well past the two requests and the
				 * refused client under TCG */
	srv_start_opts(&s, &o);
	rpcrdma_stats_global(&g0);
	halfopen_start(&h[0], s.port);
	halfopen_start(&h[1], s.port);
	c = client_from(s.port, NULL);
	ck_assert_msg(c == NULL, "admitted beside two half-open connections "
		      "at max_conns 2");
	usleep(5000000);
	c = client_from(s.port, NULL);
	ck_assert_msg(c != NULL, "refused after the half-open ones' "
		      "deadline: %s", clnt_spcreateerror("clnt"));
	null_call(c);
	rpcrdma_stats_global(&g1);
	ck_assert_uint_eq(g1.handshakes_expired - g0.handshakes_expired, 2);
	ck_assert_uint_eq(g1.connections_refused - g0.connections_refused, 1);
	clnt_destroy(c);
	halfopen_stop(&h[0]);
	halfopen_stop(&h[1]);
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

/*
 * A connection refused, and not by the server's limit (its
 * connections_refused did not move): seen at the 256th of this test on
 * 6.1 and 6.12 beside a second guest, in CI only, never alone. What the
 * process's counters said is printed (to find where the refusal came
 * from); it is tried 3 more times, 1 s apart. A refusal by the limit
 * before N is never retried: that is the bug this test looks for.
 */
static CLIENT *retry_unlimited(const struct rpcrdma_opts *co, int n)
{
	struct rpcrdma_stats g;
	CLIENT *c = NULL;

	rpcrdma_stats_global(&g);
	if (g.connections_refused)
		return NULL;
	printf("many_connections: connection %d: %s; not by the server's "
	       "limit (connections_refused 0); the process's counters:\n", n,
	       clnt_spcreateerror("clnt"));
	stats_print("many_connections", &g);
	for (int k = 1; !c && k <= 3; k++) {
		sleep(1);
		c = clnt_rdma_create(addr_b, T_PROG, T_VERS, co);
		printf("many_connections: connection %d, try %d: %s\n", n,
		       k + 1, c ? "made" : clnt_spcreateerror("clnt"));
	}
	return c;
}

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
	/* Every client here is one host: the per-source limit (64 by
	 * default, test_conn_limit_per_source) is lifted. */
	ck_assert_uint_eq(o.max_conns_per_source, 64);
	o.max_conns_per_source = 0;
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
		if (!cl[n] && !iwarp)
			cl[n] = retry_unlimited(&co, n);
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

void t_limits_add_credits(TCase *tc)
{
	tcase_add_test(tc, test_grant_constant);
	tcase_add_test(tc, test_credit_overrun);
	tcase_add_test(tc, test_xid_mismatch);
	tcase_add_test(tc, test_conn_limit);
	tcase_add_test(tc, test_conn_limit_per_source);
	tcase_add_test(tc, test_handshake_deadline);
	tcase_add_test(tc, test_many_connections);
}
