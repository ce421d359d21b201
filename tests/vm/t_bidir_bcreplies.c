/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A misbehaving client on raw verbs (t_bidir): test_hostile_bc_replies,
 * malformed backward replies and RDMA_ERRORs sent to the server while a
 * good client runs forward and backward echoes on it, then the forward
 * credit check with a backward call outstanding; with the raw peer's
 * helpers (raw_fcall, raw_bc_reply, raw_rdma_err, raw_take...).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rpcrdma/wire.h>
#include "t_bidir.h"

/* ---- a misbehaving peer on raw verbs ---- */

#define RAW_CREDITS	2	/* what the raw peer asks and is granted */

/* A forward call of proc with nargs argument words, as the raw peer. */
static void raw_fcall(struct rpcrdma_ep *ep, uint32_t xid, uint32_t proc,
		      const uint32_t *args, size_t nargs)
{
	uint32_t w[17 + 4] = { xid, 1, RAW_CREDITS, RPCRDMA_MSG, 0, 0, 0,
			       xid, CALL, 2, F_PROG, 1, proc, 0, 0, 0, 0 };

	ck_assert_uint_le(nargs, 4);
	memcpy(&w[17], args, nargs * 4);
	raw_send(ep, w, 17 + nargs);
}

/* An accepted SUCCESS reply of RFC 8167 shape whose transport header
 * says rdma_xid and grants credits, cut to nrpc of its six RPC words. */
static void raw_bc_reply(struct rpcrdma_ep *ep, uint32_t rdma_xid,
			 uint32_t rpc_xid, uint32_t credits, size_t nrpc)
{
	const uint32_t w[13] = { rdma_xid, 1, credits, RPCRDMA_MSG, 0, 0, 0,
				 rpc_xid, REPLY, MSG_ACCEPTED, 0, 0, SUCCESS };

	raw_send(ep, w, 7 + nrpc);
}

/* An RDMA_ERROR (RFC 8166 section 4.2.4) naming xid: ERR_VERS carries
 * the versions 1..1, ERR_CHUNK nothing more. */
static void raw_rdma_err(struct rpcrdma_ep *ep, uint32_t xid, uint32_t err)
{
	const uint32_t w[7] = { xid, 1, 8, RPCRDMA_ERROR, err, 1, 1 };

	raw_send(ep, w, err == RPCRDMA_ERR_VERS ? 7 : 5);
}

/* The next message to the raw peer, in host-order words (*nw of them,
 * at most max); fails the test after 10 s. */
static void raw_take(struct rpcrdma_ep *ep, uint32_t *w, size_t max,
		     size_t *nw)
{
	struct rpcrdma_rx rx;

	ck_assert_int_eq(rpcrdma_ep_poll(ep, &rx, 10000), 1);
	*nw = rx.len / 4 < max ? rx.len / 4 : max;
	for (size_t i = 0; i < *nw; i++) {
		memcpy(&w[i], rx.data + 4 * i, 4);
		w[i] = ntohl(w[i]);
	}
	rpcrdma_ep_rx_done(ep, &rx);
}

/* The server's backward NULL call to the raw peer: its XID. */
static uint32_t raw_take_bc_null(struct rpcrdma_ep *ep)
{
	uint32_t w[32];
	size_t n;

	raw_take(ep, w, 32, &n);
	ck_assert_uint_ge(n, 13);
	ck_assert_uint_eq(w[3], RPCRDMA_MSG);
	ck_assert(!w[4] && !w[5] && !w[6]);
	ck_assert_uint_eq(w[7], w[0]);
	ck_assert_uint_eq(w[8], CALL);
	ck_assert_uint_eq(w[10], CB_PROG);
	ck_assert_uint_eq(w[12], NULLPROC);
	return w[0];
}

/* The server's reply to the raw peer's F_CB_NULL xid: the callback's
 * clnt_stat it carries. */
static u_int raw_take_cb_result(struct rpcrdma_ep *ep, uint32_t xid)
{
	uint32_t w[32];
	size_t n;

	raw_take(ep, w, 32, &n);
	ck_assert_uint_eq(n, 14);
	ck_assert_uint_eq(w[0], xid);
	ck_assert_uint_eq(w[7], xid);
	ck_assert_uint_eq(w[8], REPLY);
	ck_assert_uint_eq(w[12], SUCCESS);
	return w[13];
}

/* Nothing reaches the raw peer for ms. */
static void raw_quiet(struct rpcrdma_ep *ep, int ms)
{
	struct rpcrdma_rx rx;
	int rc = rpcrdma_ep_poll(ep, &rx, ms);

	if (rc == 1) {
		uint32_t xid;

		memcpy(&xid, rx.data, 4);
		rpcrdma_ep_rx_done(ep, &rx);
		ck_abort_msg("a message (xid %08x) where none was due",
			     ntohl(xid));
	}
	ck_assert_int_eq(rc, 0);
}

/*
 * Hostile backward replies from a raw peer, while a good client runs
 * forward and backward echoes on the same server: replies with unknown
 * XIDs, cut after their msg_type, duplicated, whose RPC XID is not their
 * rdma_xid, carrying a write list, granting 0 and 2^32-1 credits, and
 * RDMA_ERRORs in their place; then
 * the forward credit check, which must neither count backward replies
 * queued beside calls as calls nor let a backward call outstanding widen
 * the forward grant (RFC 8166 section 3.3.1, RFC 8167 section 3.3).
 * Each dropped or answered as the RFCs say and counted; the good client
 * sees no failure.
 */
START_TEST(test_hostile_bc_replies)
{
	uint16_t port = port_new();
	SVCXPRT *l = srv_create_bidir(port, 4);
	CLIENT *cl = clnt_bidir(port), *cb, *cbr;
	struct loadarg fa[2], ba[2];
	pthread_t ft[2], bt[2];
	struct rpcrdma_stats g0, g1, rs;
	struct rpcrdma_ep *ep;
	struct rpcrdma_rx rx;
	uint32_t bx, w[32];
	size_t n;
	int rc;

	subscribe(cl);
	cb = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG, 1);
	ck_assert_ptr_nonnull(cb);
	for (unsigned int i = 0; i < 2; i++) {
		fa[i] = (struct loadarg){ cl, F_ECHO, 300 + i, 200, 20000, 0,
					  RPC_SUCCESS };
		ba[i] = (struct loadarg){ cb, CB_ECHO, 400 + i, 200, 3900, 0,
					  RPC_SUCCESS };
		ck_assert_int_eq(pthread_create(&ft[i], NULL, load_main,
						&fa[i]), 0);
		ck_assert_int_eq(pthread_create(&bt[i], NULL, load_main,
						&ba[i]), 0);
	}
	ep = raw_connect(port);
	/* The raw peer's own connection, to read its counters. */
	atomic_store(&subscribed, NULL);
	raw_fcall(ep, 0x30000001, F_SUBSCRIBE, NULL, 0);
	raw_take(ep, w, 32, &n);
	ck_assert_uint_eq(w[0], 0x30000001);
	cbr = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG,
					  1);
	ck_assert_ptr_nonnull(cbr);
	rpcrdma_stats_global(&g0);

	/* Replies nobody waits for: 16 whole, one cut after its msg_type,
	 * one whose RPC XID differs: dropped, never answered. */
	for (uint32_t i = 0; i < 16; i++)
		raw_bc_reply(ep, 0x31000000 + i, 0x31000000 + i, 8, 6);
	raw_bc_reply(ep, 0x31000100, 0x31000100, 8, 2);
	raw_bc_reply(ep, 0x31000101, 0x31000102, 8, 6);
	raw_quiet(ep, 300);
	rs = cbstats(cbr);
	ck_assert_uint_eq(rs.replies_unmatched, 17);
	ck_assert_uint_eq(rs.xid_mismatches, 1);

	/* A callback answered by a reply cut after its msg_type: the
	 * callback fails to decode it, nothing else happens. */
	raw_fcall(ep, 0x30000002, F_CB_NULL, NULL, 0);
	bx = raw_take_bc_null(ep);
	raw_bc_reply(ep, bx, bx, 8, 2);
	ck_assert_uint_eq(raw_take_cb_result(ep, 0x30000002),
			  RPC_CANTDECODERES);

	/* A callback answered by a reply whose RPC XID is not its rdma_xid
	 * (RFC 8166 section 4.2.1): its results cannot be trusted to be the
	 * callback's, which fails. */
	raw_fcall(ep, 0x30000003, F_CB_NULL, NULL, 0);
	bx = raw_take_bc_null(ep);
	raw_bc_reply(ep, bx, bx + 1, 8, 6);
	ck_assert_uint_eq(raw_take_cb_result(ep, 0x30000003),
			  RPC_CANTDECODERES);

	/* Callbacks answered by RDMA_ERROR (RFC 8166 section 4.5): failed
	 * at once as the forward CLIENT fails its calls, never answered;
	 * one naming no callback is dropped. */
	raw_fcall(ep, 0x3000000b, F_CB_NULL, NULL, 0);
	bx = raw_take_bc_null(ep);
	raw_rdma_err(ep, bx, RPCRDMA_ERR_VERS);
	ck_assert_uint_eq(raw_take_cb_result(ep, 0x3000000b),
			  RPC_SYSTEMERROR);
	raw_fcall(ep, 0x3000000c, F_CB_NULL, NULL, 0);
	bx = raw_take_bc_null(ep);
	raw_rdma_err(ep, bx, RPCRDMA_ERR_CHUNK);
	ck_assert_uint_eq(raw_take_cb_result(ep, 0x3000000c),
			  RPC_CANTDECODEARGS);
	raw_rdma_err(ep, 0x31000200, RPCRDMA_ERR_CHUNK);

	/* A callback answered by a reply carrying a write list (not of
	 * backward shape: taken as a forward call that does not parse,
	 * dropped), then by the right reply granting 0 credits (taken as
	 * 1), then by that reply again (nobody waits for it). */
	raw_fcall(ep, 0x3000000d, F_CB_NULL, NULL, 0);
	bx = raw_take_bc_null(ep);
	{
		const uint32_t wl[19] = { bx, 1, 8, RPCRDMA_MSG, 0,
					  1, 1, 0x1234, 4096, 0, 0x1000, 0,
					  0, bx, REPLY, MSG_ACCEPTED, 0, 0,
					  SUCCESS };

		raw_send(ep, wl, 19);
	}
	raw_bc_reply(ep, bx, bx, 0, 6);
	raw_bc_reply(ep, bx, bx, 0, 6);
	ck_assert_uint_eq(raw_take_cb_result(ep, 0x3000000d), RPC_SUCCESS);
	raw_quiet(ep, 300);
	rs = cbstats(cbr);
	ck_assert_uint_eq(rs.replies_unmatched, 19);
	ck_assert_uint_eq(rs.xid_mismatches, 2);
	ck_assert_uint_eq(rs.err_vers_recv, 1);
	ck_assert_uint_eq(rs.err_chunk_recv, 2);
	ck_assert_uint_eq(rs.bc_credits_granted, 1);

	/* The grant of 0 left one credit; a grant of 2^32-1 is clamped. */
	raw_fcall(ep, 0x30000004, F_CB_NULL, NULL, 0);
	bx = raw_take_bc_null(ep);
	raw_bc_reply(ep, bx, bx, 0xffffffffu, 6);
	ck_assert_uint_eq(raw_take_cb_result(ep, 0x30000004), RPC_SUCCESS);
	rs = cbstats(cbr);
	ck_assert_uint_eq(rs.bc_credits_granted, RPCRDMA_BC_CREDITS);
	ck_assert_uint_eq(rs.bc_replies_recv, 3);
	ck_assert_uint_eq(rs.credit_overruns, 0);
	clnt_destroy(cbr);

	/* Answers to backward calls queued behind a forward call are no
	 * calls: a SLEEP in service, then a NULL, 6 unmatched replies and
	 * an RDMA_ERROR at once (2 forward calls of a grant of 2): both
	 * answered, kept. */
	{
		const uint32_t ms = 500;

		raw_fcall(ep, 0x30000005, F_SLEEP, &ms, 1);
		usleep(100000);
		raw_fcall(ep, 0x30000006, NULLPROC, NULL, 0);
		for (uint32_t i = 0; i < 6; i++)
			raw_bc_reply(ep, 0x32000000 + i, 0x32000000 + i, 8,
				     6);
		raw_rdma_err(ep, 0x32000006, RPCRDMA_ERR_CHUNK);
		for (int i = 0; i < 2; i++) {
			raw_take(ep, w, 32, &n);
			ck_assert_msg(w[0] == 0x30000005 || w[0] == 0x30000006,
				      "reply to %08x", w[0]);
		}
	}
	raw_fcall(ep, 0x30000007, NULLPROC, NULL, 0);
	raw_take(ep, w, 32, &n);
	ck_assert_uint_eq(n, 13);
	ck_assert_uint_eq(w[0], 0x30000007);
	ck_assert_uint_eq(w[12], SUCCESS);

	/* A backward call outstanding does not widen the forward grant: a
	 * callback taken and never answered, then 2 more forward calls (3
	 * outstanding against 2): the server closes the connection. */
	raw_fcall(ep, 0x30000008, F_CB_NULL, NULL, 0);
	(void)raw_take_bc_null(ep);
	raw_fcall(ep, 0x30000009, NULLPROC, NULL, 0);
	raw_fcall(ep, 0x3000000a, NULLPROC, NULL, 0);
	while ((rc = rpcrdma_ep_poll(ep, &rx, 10000)) == 1)
		rpcrdma_ep_rx_done(ep, &rx);
	ck_assert_msg(rc == -ENOTCONN, "poll after the overrun: %d", rc);
	rpcrdma_stats_global(&g1);
	ck_assert_uint_eq(g1.credit_overruns - g0.credit_overruns, 1);
	rpcrdma_ep_destroy(ep);

	for (unsigned int i = 0; i < 2; i++) {
		pthread_join(ft[i], NULL);
		pthread_join(bt[i], NULL);
		ck_assert_msg(fa[i].fails == 0, "forward %u: %u failed (%s)",
			      i, fa[i].fails, clnt_sperrno(fa[i].last));
		ck_assert_msg(ba[i].fails == 0, "backward %u: %u failed (%s)",
			      i, ba[i].fails, clnt_sperrno(ba[i].last));
	}
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 9, 1000), RPC_SUCCESS);
	ck_assert_int_eq(echo_on(cl, F_ECHO, 9, 1000), RPC_SUCCESS);
	ck_assert_uint_eq(cstats(cl).connects, 1);
	ck_assert_uint_eq(cbstats(cb).credit_overruns, 0);
	clnt_destroy(cb);
	clnt_destroy(cl);
	srv_destroy_bidir(l);
}
END_TEST

void t_bidir_add_bc_replies(TCase *tc)
{
	tcase_add_test(tc, test_hostile_bc_replies);
}
