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
 *
 * This file: main (the suite "limits", its one TCase "limits"), the junk
 * flood and the credentials switch; the credit and connection tests are
 * in t_limits_credits.c, the stall tests in t_limits_stall.c, the idle
 * connections in t_limits_idle.c, the per-connection memory cap in
 * t_limits_mem.c, the shared latency probe in t_limits_util.c
 * (t_limits.h).
 */
#define _GNU_SOURCE
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "harness.h"
#include "../../engine/ep_int.h"
#include "t_limits.h"

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
	t_limits_add_credits(tc);
	t_limits_add_stalls(tc);
	t_limits_add_idle(tc);
	t_limits_add_mem(tc);
	tcase_add_test(tc, test_junk_flood);
	tcase_add_test(tc, test_credentials_switch);
	suite_add_tcase(su, tc);
	return run_suite(su);
}
