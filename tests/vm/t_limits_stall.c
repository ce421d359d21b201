/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_limits's tests that no peer stalls the server (of the TCase
 * "limits"): a peer whose RDMA Reads never complete (usual retries, and
 * retry count 7 against the stall deadline), one that revokes the read
 * chunk's memory, and one that stops reposting receives; with the
 * disconnect counter they wait on. And one that does not: a connection
 * idle after replies whose Sends no completion retired.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "harness.h"
#include "../../engine/ep_int.h"
#include "t_limits.h"

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
	/* Each close of the server's own counted once, by one reason. */
	ck_assert_uint_eq(g.server_closes, g0.server_closes + (iwarp ? 0 : 1));
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
	/* Counted by its reason, once, as the server's own close. */
	ck_assert_uint_eq(g.closes_chunk_failed, g0.closes_chunk_failed + 1);
	ck_assert_uint_eq(g.server_closes, g0.server_closes + 1);
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

/*
 * A reply without chunks is a Send alone, posted unsignaled (the engine
 * copied its bytes; nothing waits on its completion): a connection whose
 * last replies were such Sends and that then idles for many stall
 * deadlines is not a stalled one. The stall deadline watches signaled
 * work only; were it to count the unsignaled Sends, which no completion
 * ever retires while the connection idles, the server would close this
 * healthy connection after stall_ms.
 */
START_TEST(test_idle_after_unsignaled_replies)
{
	struct rpcrdma_stats g0, g;
	struct rpcrdma_opts o;
	CLIENT *cl;
	struct srv s;

	rpcrdma_opts_default(&o);
	o.stall_ms = 200;
	srv_start_opts(&s, &o);
	cl = clnt_by_netid(s.port);
	rpcrdma_stats_global(&g0);
	/* Fewer calls than one signaled WR in every run of them (the send
	 * ring's and the queue's own rule): some replies stay unretired. */
	for (int i = 0; i < 3; i++)
		null_call(cl);
	usleep(1500 * 1000);	/* 7.5 deadlines, 30 checks of the timer */
	null_call(cl);
	rpcrdma_stats_global(&g);
	ck_assert_uint_eq(g.transfer_stalls, g0.transfer_stalls);
	ck_assert_uint_eq(g.server_closes, g0.server_closes);
	ck_assert_uint_eq(g.disconnects, g0.disconnects);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

void t_limits_add_stalls(TCase *tc)
{
	tcase_add_test(tc, test_idle_after_unsignaled_replies);
	tcase_add_test(tc, test_reads_never_complete);
	tcase_add_test(tc, test_reads_stall_deadline);
	tcase_add_test(tc, test_read_chunk_revoked);
	tcase_add_test(tc, test_receives_not_reposted);
}
