/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_clnt: a raw responder (the engine's listener) answering the CLIENT by
 * hand: the reply chunk reachable only while its call waits
 * (test_reply_window), a duplicate reply dropped (test_duplicate_reply),
 * Send With Invalidate of an rkey the client did not offer or without R
 * (test_unasked_remote_invalidation), chunk lists in a reply other
 * than the call offered (test_bad_write_list), and CLSET_XID to an
 * abandoned call's XID (test_xid_reuse).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ep_sync.h"
#include "t_clnt.h"

/*
 * The reply chunk is exposed for its call only: a raw responder (the
 * engine's listener) writes into it while the call waits, which works,
 * answers inline, and once clnt_call has returned the same RDMA Write is
 * refused by the client's side (remote access error): the window was
 * invalidated, locally, before the call returned (or, where windows are
 * not used, the chunk's registration was dropped).
 */
START_TEST(test_reply_window)
{
	struct rpcrdma_stats st;
	struct rpcrdma_segment seg;
	struct rpcrdma_msg m;
	struct raw_pair p;
	uint8_t junk[64];

	raw_pair_open(&p);
	raw_pair_call(&p, &m);
	seg = m.segs[m.reply.first];
	memset(junk, 0x5a, sizeof(junk));
	/* While the call waits, its reply chunk takes RDMA Writes. */
	ck_assert_int_eq(rpcrdma_ep_write(p.a.ep, junk, sizeof(junk), &seg, 1,
					  NULL, 5000), 0);
	raw_pair_reply(&p, &m, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	st = stats_of(p.c.cl);
	/* A window invalidated locally, or (rxe before 6.12) an MR
	 * deregistered. */
	ck_assert_uint_eq(st.local_invalidations,
			  rpcrdma_ep_windows(p.a.ep) ? 1 : 0);
	/* The call returned: the same Write is refused (remote access
	 * error, not a timeout or a lost connection; on iWARP the client's
	 * TERMINATE). */
	ck_assert(refused(p.a.ep, rpcrdma_ep_write(p.a.ep, junk, sizeof(junk),
						   &seg, 1, NULL, 5000)));
	raw_pair_close(&p);
}
END_TEST

/*
 * Two replies to one call, sent back to back: the first is the call's
 * (SUCCESS), the second (PROC_UNAVAIL) is dropped, and the connection
 * carries the next call. Whether the second arrives while the first's
 * window invalidation is pending (the slot's replied flag drops it) or
 * after the call completed (no slot matches it) is not forced: in this
 * guest it is the latter.
 */
START_TEST(test_duplicate_reply)
{
	struct rpcrdma_msg m;
	struct raw_pair p;

	raw_pair_open(&p);
	raw_pair_call(&p, &m);
	raw_pair_reply(&p, &m, 0, 0);
	raw_pair_reply(&p, &m, 3, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	raw_pair_call(&p, &m);
	raw_pair_reply(&p, &m, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	ck_assert_uint_eq(stats_of(p.c.cl).connects, 1);
	raw_pair_close(&p);
}
END_TEST

/*
 * A reply sent With Invalidate of the call's reply chunk although the
 * client did not set R (RFC 8797 section 4.1), or of an rkey that is not
 * the call's: the client closes the connection and fails the call, and
 * never invalidates that window again (on rxe that would crash the
 * guest's kernel). The call's own rkey, once the client set R, is the
 * legitimate case, whether the responder set R (c == 1) or not (c == 0:
 * the Linux server advertises R = 0 and invalidates all the same): the
 * call succeeds without a local invalidation.
 */
START_TEST(test_unasked_remote_invalidation)
{
	struct rpc_err e;
	struct rpcrdma_msg m;
	struct raw_pair p;
	struct rpcrdma_stats a, b;
	struct rpcrdma_opts no_r;

	/* R needs type 2 windows: on rxe, RPCRDMA_WINDOWS=2 (its default
	 * type 1 windows, test_stale_window_invalidation). */
	windows_type2();
	rpcrdma_opts_default(&no_r);
	no_r.remote_inv = false;
	for (int c = 0; c < 4; c++) {
		uint32_t rkey;

		raw_pair_r = c != 0;
		clnt_base = c == 3 ? &no_r : NULL;
		raw_pair_open(&p);
		raw_pair_r = true;
		clnt_base = NULL;
		if (!rpcrdma_ep_windows(p.a.ep)) {
			/* An MR cannot be invalidated remotely: the Send
			 * would only break the responder's own QP. */
			raw_pair_close(&p);
			return;
		}
		a = stats_of(p.c.cl);
		raw_pair_call(&p, &m);
		rkey = m.segs[m.reply.first].handle;
		/* c == 2: the next key of the same window, not this call's. */
		raw_pair_reply(&p, &m, 0, c == 2 ? ((rkey & ~0xffu) |
						    ((rkey + 1) & 0xffu))
						  : rkey);
		b = stats_of(p.c.cl);
		if (c <= 1) {
			ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
			b = stats_of(p.c.cl);
			ck_assert_uint_eq(b.connects, 1);
		} else {
			ck_assert_int_eq(raw_pair_result(&p), RPC_CANTRECV);
			clnt_geterr(p.c.cl, &e);
			ck_assert_int_eq(e.re_errno, ENOTCONN);
			b = stats_of(p.c.cl);
		}
		/* c == 2: rxe itself refuses a key that is not the
		 * window's current one (the QP fails), or the client finds
		 * the key is not the call's: the connection goes either
		 * way, and nothing is invalidated locally. */
		if (c != 2 && c != 3)
			ck_assert_uint_ge(b.remote_invalidations -
						  a.remote_invalidations, 1);
		ck_assert_uint_eq(b.local_invalidations,
				  a.local_invalidations);
		raw_pair_close(&p);
	}
	unsetenv("RPCRDMA_WINDOWS");
}
END_TEST

/*
 * Security review 21c8dd5, finding 7: after a call has ended, its server
 * sends one more message With Invalidate naming the call's window. On rxe
 * with type 2 windows that crashed the client's kernel (rxe dereferenced
 * the unbound window's QP and MR); its windows are now type 1
 * (engine/reg.c), which rxe never invalidates remotely. Twice, on a new
 * connection each: the window's current key (the call's key + 1, left by
 * the client's zero-length unbind: rxe matches it and refuses the
 * invalidation for the window's type) and the call's own key (a key rxe
 * no longer matches). Each time rxe refuses the invalidation on the
 * client's side: the receive completes in error and the client's QP
 * with it (the raw peer's Send is acknowledged), so the CLIENT's next
 * call fails (its connection is gone; the raw listener accepts no other)
 * and the guest lives. Not run with type 2 windows (RPCRDMA_WINDOWS=2):
 * that is the crash.
 */
START_TEST(test_stale_window_invalidation)
{
	const uint32_t junk[] = { 0x7a7a7a7a, 1, 1, 0, 0, 0, 0 };
	struct timeval short_tmo = { 3, 0 };
	struct rpcrdma_stats a, b;
	struct rpcrdma_msg m;
	struct raw_pair p;
	struct iovec iov;
	uint32_t be[7], rkey;
	enum clnt_stat st;

	for (size_t i = 0; i < 7; i++)
		be[i] = htonl(junk[i]);
	iov.iov_base = be;
	iov.iov_len = sizeof(be);
	for (int k = 0; k < 2; k++) {
		raw_pair_open(&p);
		if (!rpcrdma_ep_windows(p.a.ep) || remote_inv_expected()) {
			printf("t_clnt: test_stale_window_invalidation: no "
			       "type 1 windows here\n");
			raw_pair_close(&p);
			return;
		}
		raw_pair_call(&p, &m);
		rkey = m.segs[m.reply.first].handle;
		raw_pair_reply(&p, &m, 0, 0);
		ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
		a = stats_of(p.c.cl);
		ck_assert_uint_eq(a.local_invalidations, 1);
		if (k == 0)
			rkey = (rkey & ~0xffu) | ((rkey + 1) & 0xffu);
		ck_assert_int_eq(rpcrdma_ep_send(p.a.ep, &iov, 1, rkey), 0);
		usleep(200000);
		st = clnt_call(p.c.cl, NULLPROC, XP(xdr_void), NULL,
			       XP(xdr_void), NULL, short_tmo);
		b = stats_of(p.c.cl);
		ck_assert_msg(st != RPC_SUCCESS, "key %#x: the client's "
			      "connection lived on", rkey);
		ck_assert_uint_ge(b.disconnects - a.disconnects, 1);
		ck_assert_uint_eq(b.remote_invalidations,
				  a.remote_invalidations);
		raw_pair_close(&p);
	}
}
END_TEST

/*
 * A reply's chunk lists must be what the call offered (RFC 8166 section
 * 3.4.6): more bytes than the chunk holds, more segments than offered, a
 * segment the call never named, data in a chunk that the results do not
 * take, a read list, a reply chunk with RDMA_MSG or elsewhere than
 * offered fail that call (RPC_CANTDECODERES), never mix bytes into it,
 * and the connection carries the next call. A chunk returned unused
 * (length 0) is fine.
 */
START_TEST(test_bad_write_list)
{
	struct rpcrdma_proc_ddp d = { P_NULL, 1, 4096 };
	struct rpcrdma_segment g[2];
	struct rpcrdma_msg m;
	struct raw_pair p;

	raw_pair_open(&p);
	ck_assert(clnt_control(p.c.cl, CLSET_RDMA_PROC_DDP, (char *)&d));
	for (int c = 0; c < 5; c++) {
		uint32_t n = 1;

		raw_pair_call(&p, &m);
		ck_assert_uint_eq(m.nwrites, 1);
		ck_assert_uint_eq(m.writes[0].nsegs, 1);
		g[0] = m.segs[m.writes[0].first];
		ck_assert_uint_eq(g[0].length, 4096);
		switch (c) {
		case 0:		/* more than offered */
			g[0].length = 4100;
			break;
		case 1:		/* more segments than offered */
			g[1] = g[0];
			g[0].length = 8;
			g[1].length = 8;
			n = 2;
			break;
		case 2:		/* a segment the call never named */
			g[0].offset += 64;
			g[0].length = 8;
			break;
		case 3:		/* data nobody decodes */
			g[0].length = 100;
			break;
		case 4:		/* unused: the call succeeds */
			g[0].length = 0;
			break;
		}
		raw_pair_reply_writes(&p, &m, g, n, NULL, 0);
		ck_assert_int_eq(raw_pair_result(&p),
				 c == 4 ? RPC_SUCCESS : RPC_CANTDECODERES);
	}
	/* Other lists a reply may not carry (conformance review 13): a
	 * read list; with RDMA_NOMSG a reply chunk at another address than
	 * offered; with RDMA_MSG a reply chunk with a length (3). The
	 * offered reply chunk returned unused with RDMA_MSG, length 0 (1),
	 * is what a server may send (issue 26): that reply is taken. */
	for (int c = 0; c < 4; c++) {
		struct rpcrdma_segment r;
		uint32_t w[32];
		size_t k = 0;
		struct iovec iov;

		raw_pair_call(&p, &m);
		r = m.segs[m.reply.first];
		w[k++] = m.xid; w[k++] = 1; w[k++] = m.credits;
		w[k++] = c == 2 ? RPCRDMA_NOMSG : RPCRDMA_MSG;
		if (c == 0) {
			w[k++] = 1; w[k++] = 4;
			w[k++] = r.handle; w[k++] = 4; w[k++] = 0; w[k++] = 0;
		}
		w[k++] = 0;			/* read list ends */
		w[k++] = 0;			/* no write list */
		if (c == 0) {
			w[k++] = 0;		/* no reply chunk */
		} else {
			w[k++] = 1; w[k++] = 1;
			w[k++] = r.handle;
			w[k++] = c == 1 ? 0 : 28;	/* c 2, 3: 28 */
			w[k++] = (uint32_t)(r.offset >> 32);
			w[k++] = (uint32_t)r.offset + (c == 2 ? 64 : 0);
		}
		if (c != 2) {
			w[k++] = m.xid; w[k++] = 1; w[k++] = 0; w[k++] = 0;
			w[k++] = 0; w[k++] = 0;
		}
		for (size_t i = 0; i < k; i++)
			w[i] = htonl(w[i]);
		iov.iov_base = w;
		iov.iov_len = k * 4;
		ck_assert_int_eq(rpcrdma_ep_send(p.a.ep, &iov, 1, 0), 0);
		ck_assert_int_eq(raw_pair_result(&p),
				 c == 1 ? RPC_SUCCESS : RPC_CANTDECODERES);
	}
	raw_pair_call(&p, &m);
	raw_pair_reply(&p, &m, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	ck_assert_uint_eq(stats_of(p.c.cl).connects, 1);
	raw_pair_close(&p);
}
END_TEST

/*
 * 198abdf review #20: CLSET_XID set to the XID of a call that timed out
 * (its slot abandoned, its late reply still awaited). The next call must
 * not carry that XID: its reply would have been matched to the abandoned
 * slot and dropped (the call then timed out too), or the late reply taken
 * for its own. It goes with the next free XID (CLGET_XID says which),
 * its reply is its own, and the late reply is dropped.
 */
START_TEST(test_xid_reuse)
{
	struct rpcrdma_msg m1, m2;
	struct raw_pair p;
	uint32_t x;

	raw_pair_open(&p);
	if (remote_inv_expected()) {
		/* With R a timeout resets the connection (no slot stays
		 * abandoned), and the raw listener takes no other. */
		printf("t_clnt: test_xid_reuse: not with R\n");
		raw_pair_close(&p);
		return;
	}
	/* One call answered first: until a reply grants more, a requester
	 * has one credit (RFC 8166 section 3.3.1), which the abandoned call
	 * below keeps until its late reply. The reply grants what the call
	 * asked. */
	raw_pair_call(&p, &m1);
	raw_pair_reply(&p, &m1, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	ck_assert_uint_ge(m1.credits, 2);
	p.c.tmo = (struct timeval){ 1, 0 };
	raw_pair_call(&p, &m1);
	ck_assert_int_eq(raw_pair_result(&p), RPC_TIMEDOUT);
	x = m1.xid;
	ck_assert(clnt_control(p.c.cl, CLSET_XID, (char *)&x));
	p.c.tmo = (struct timeval){ 10, 0 };
	raw_pair_call(&p, &m2);
	ck_assert_uint_ne(m2.xid, m1.xid);
	ck_assert(clnt_control(p.c.cl, CLGET_XID, (char *)&x));
	ck_assert_uint_eq(x, m2.xid);
	raw_pair_reply(&p, &m2, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	/* The late reply finds its abandoned slot, or nothing: dropped. */
	raw_pair_reply(&p, &m1, 0, 0);
	raw_pair_call(&p, &m2);
	raw_pair_reply(&p, &m2, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	raw_pair_close(&p);
}
END_TEST

void t_clnt_add_raw(TCase *tc)
{
	tcase_add_test(tc, test_reply_window);
	tcase_add_test(tc, test_duplicate_reply);
	tcase_add_test(tc, test_unasked_remote_invalidation);
	tcase_add_test(tc, test_stale_window_invalidation);
	tcase_add_test(tc, test_bad_write_list);
	tcase_add_test(tc, test_xid_reuse);
}
