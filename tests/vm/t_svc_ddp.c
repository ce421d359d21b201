/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_svc's tests of our client's hints against the server: test_reply_hints
 * (CLSET_RDMA_REPLY_MAX and CLSET_RDMA_PROC_REPLY: reply chunks offered
 * or not, ERR_CHUNK for a reply larger than its hint) and test_ddp
 * (CLSET_RDMA_PROC_DDP: direct data placement by the generic rule, read
 * chunks and write chunks both ways), with their helpers.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "harness.h"
#include "t_svc.h"

/*
 * Reply size hints (CLSET_RDMA_REPLY_MAX, CLSET_RDMA_PROC_REPLY; RFC 8166
 * section 3.5.4): without one every call offers a reply chunk; a hint
 * that fits inline offers none; a larger one offers a reply chunk of its
 * size, exactly enough for such a reply (4 bytes less is not); a reply
 * larger than its hint fails its call with the server's ERR_CHUNK and the
 * connection carries on.
 */
static struct rpcrdma_stats clnt_stats(CLIENT *cl)
{
	struct rpcrdma_stats st;

	ck_assert(clnt_control(cl, CLGET_RDMA_STATS, (char *)&st));
	return st;
}

/* An echo of n bytes that must fail with the server's ERR_CHUNK: a
 * status callers do not retry (RFC 8166 section 4.5: permanent), and
 * clnt_sperror says which knob to raise. */
static void echo_err_chunk(CLIENT *cl, size_t n)
{
	struct blob a = { (u_int)n, mkdata(3, n) }, r = { 0, NULL };
	struct rpc_err e;
	const char *t;

	ck_assert_int_eq(clnt_call(cl, P_ECHO, XP(xdr_blob), (caddr_t)&a,
				   XP(xdr_blob), (caddr_t)&r, tmo),
			 RPC_CANTDECODEARGS);
	clnt_geterr(cl, &e);
	ck_assert_int_eq(e.re_errno, EBADMSG);
	t = clnt_sperror(cl, "echo");
	ck_assert_msg(strstr(t, "ERR_CHUNK") &&
		      strstr(t, "CLSET_RDMA_PROC_REPLY"), "%s", t);
	free(a.data);
}

START_TEST(test_reply_hints)
{
	/* An echo's reply: the RPC reply header (24), the length, the data. */
	enum { BIG = 65536, BIG_REPLY = 24 + 4 + BIG };
	struct rpcrdma_proc_reply h = { P_ECHO, BIG_REPLY };
	struct rpcrdma_stats a, b, sa, sb;
	struct srv s;
	SVCXPRT *x;
	CLIENT *cl;
	uint32_t v = 0;

	srv_start(&s, 0);
	cl = clnt_by_netid(s.port);
	x = echo(cl, 1, 1);
	ck_assert(clnt_control(cl, CLGET_RDMA_REPLY_MAX, (char *)&v));
	ck_assert_uint_eq(v, 0);

	/* No hint: a reply chunk offered, even for NULL. */
	a = clnt_stats(cl);
	null_call(cl);
	b = clnt_stats(cl);
	ck_assert_uint_eq(b.reply_chunks - a.reply_chunks, 1);

	/* Every procedure's replies fit inline: no reply chunk... */
	v = 24;
	ck_assert(clnt_control(cl, CLSET_RDMA_REPLY_MAX, (char *)&v));
	a = clnt_stats(cl);
	null_call(cl);
	echo(cl, 1000, 2);
	b = clnt_stats(cl);
	ck_assert_uint_eq(b.reply_chunks, a.reply_chunks);
	ck_assert_uint_eq(b.replies_inline - a.replies_inline, 2);
	/* ...so a reply that does not fit is the server's ERR_CHUNK. */
	sa = svc_stats_of(x);
	echo_err_chunk(cl, BIG);
	sb = svc_stats_of(x);
	ck_assert_uint_eq(sb.err_chunk_sent - sa.err_chunk_sent, 1);
	null_call(cl);

	/* ECHO's own hint wins: a reply chunk of exactly its reply. */
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_REPLY, (char *)&h));
	a = clnt_stats(cl);
	sa = svc_stats_of(x);
	ck_assert_ptr_eq(echo(cl, BIG, 4), x);
	null_call(cl);
	b = clnt_stats(cl);
	sb = svc_stats_of(x);
	ck_assert_uint_eq(b.reply_chunks - a.reply_chunks, 1);
	ck_assert_uint_eq(b.replies_long - a.replies_long, 1);
	ck_assert_uint_eq(sb.reply_chunks - sa.reply_chunks, 1);
	h.reply_max = 0;
	ck_assert(clnt_control(cl, CLGET_RDMA_PROC_REPLY, (char *)&h));
	ck_assert_uint_eq(h.reply_max, BIG_REPLY);
	/* Four bytes short of the reply: ERR_CHUNK again. */
	h.reply_max = BIG_REPLY - 4;
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_REPLY, (char *)&h));
	echo_err_chunk(cl, BIG);
	/* Forgotten: back to the CLIENT's bound. */
	h.reply_max = 0;
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_REPLY, (char *)&h));
	ck_assert(clnt_control(cl, CLGET_RDMA_PROC_REPLY, (char *)&h));
	ck_assert_uint_eq(h.reply_max, 0);
	echo_err_chunk(cl, BIG);
	v = 0;
	ck_assert(clnt_control(cl, CLSET_RDMA_REPLY_MAX, (char *)&v));
	echo(cl, BIG, 5);
	/* The same connection all along: ERR_CHUNK did not reset it. */
	ck_assert_ptr_eq(echo(cl, 1, 6), x);
	a = clnt_stats(cl);
	ck_assert_uint_eq(a.connects, 1);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

/* ECHO_MANY of blobs of sizes[0..n), content checked; the results land in
 * buffers of the caller's when mine, else in memory XDR allocates. */
static void echo_many(CLIENT *cl, const size_t *sizes, u_int n, bool mine)
{
	struct blobs a, r;
	char *given[T_MAX_BLOBS];
	enum clnt_stat st;

	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	a.n = n;
	for (u_int i = 0; i < n; i++) {
		a.b[i].len = (u_int)sizes[i];
		a.b[i].data = mkdata(40 + i, sizes[i]);
		given[i] = mine ? malloc(sizes[i] + 1) : NULL;
		r.b[i].data = given[i];
		r.b[i].len = mine ? (u_int)sizes[i] : 0;
	}
	st = clnt_call(cl, P_ECHO_MANY, XP(xdr_blobs), (caddr_t)&a,
		       XP(xdr_blobs), (caddr_t)&r, tmo);
	ck_assert_msg(st == RPC_SUCCESS, "echo_many: %s", clnt_sperrno(st));
	ck_assert_uint_eq(r.n, n);
	for (u_int i = 0; i < n; i++) {
		ck_assert_uint_eq(r.b[i].len, sizes[i]);
		ck_assert(memcmp(r.b[i].data, a.b[i].data, sizes[i]) == 0);
		if (mine)
			ck_assert_ptr_eq(r.b[i].data, given[i]);
		free(a.b[i].data);
	}
	clnt_freeres(cl, XP(xdr_blobs), (caddr_t)&r);
}

/*
 * Direct data placement by the generic rule (docs/design.md) between our
 * client and server: large items of a call in read chunks at their XDR
 * positions, large items of a reply in the write chunks a DDP hint makes
 * the client offer, several per message, with and without the reply
 * chunk, and an item too large for its chunk staying in the reply.
 */
START_TEST(test_ddp)
{
	struct rpcrdma_proc_ddp d = { P_ECHO, 1, 65536 }, dm = { P_ECHO_MANY,
								 2, 80000 };
	struct rpcrdma_proc_reply h = { P_ECHO, 100 };
	struct rpcrdma_stats a, b, sa, sb;
	struct srv s;
	SVCXPRT *x;
	CLIENT *cl;

	srv_start(&s, 0);
	cl = clnt_by_netid(s.port);
	x = echo(cl, 1, 1);

	/* Hints: set, read back, refused when they cannot be honoured. */
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_DDP, (char *)&d));
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_DDP, (char *)&dm));
	{
		struct rpcrdma_proc_ddp q = { P_ECHO, 0, 0 };
		uint32_t max = 0;
		struct rpcrdma_proc_ddp bad[] = {
			{ P_SLEEP, RPCRDMA_MAX_WRITE_CHUNKS + 1, 4096 },
			{ P_SLEEP, 1, 0 },
			{ P_SLEEP, 1, 0 },	/* over max_msg, below */
		};

		ck_assert(clnt_control(cl, CLGET_RDMA_MAX_MSG, (char *)&max));
		ck_assert_uint_ge(max, 4096);
		bad[2].item_max = max + 1;

		ck_assert(clnt_control(cl, CLGET_RDMA_PROC_DDP, (char *)&q));
		ck_assert_uint_eq(q.items, 1);
		ck_assert_uint_eq(q.item_max, 65536);
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			ck_assert(!clnt_control(cl, CLSET_RDMA_PROC_DDP,
						(char *)&bad[i]));
		q.proc = P_SLEEP;
		ck_assert(clnt_control(cl, CLGET_RDMA_PROC_DDP, (char *)&q));
		ck_assert_uint_eq(q.items, 0);
	}

	/* One item each way, the reply without it inline (no reply
	 * chunk: its bound says so), the result in the caller's buffer. */
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_REPLY, (char *)&h));
	a = clnt_stats(cl);
	sa = svc_stats_of(x);
	{
		struct blob arg = { 65536, mkdata(7, 65536) };
		struct blob res = { 65536, malloc(65536) };
		char *given = res.data;

		ck_assert_int_eq(clnt_call(cl, P_ECHO, XP(xdr_blob),
					   (caddr_t)&arg, XP(xdr_blob),
					   (caddr_t)&res, tmo), RPC_SUCCESS);
		ck_assert_ptr_eq(res.data, given);
		ck_assert_uint_eq(res.len, 65536);
		ck_assert(memcmp(res.data, arg.data, 65536) == 0);
		free(arg.data);
		free(res.data);
	}
	b = clnt_stats(cl);
	sb = svc_stats_of(x);
	ck_assert_uint_eq(b.calls_read_chunks - a.calls_read_chunks, 1);
	ck_assert_uint_eq(b.read_chunks - a.read_chunks, 1);
	ck_assert_uint_eq(b.write_chunks - a.write_chunks, 1);
	ck_assert_uint_eq(b.reply_chunks, a.reply_chunks);
	ck_assert_uint_eq(b.replies_write_chunks - a.replies_write_chunks, 1);
	ck_assert_uint_eq(b.replies_long, a.replies_long);
	ck_assert_uint_eq(sb.recv_msg - sa.recv_msg, 1);
	ck_assert_uint_eq(sb.read_chunks - sa.read_chunks, 1);
	ck_assert_uint_eq(sb.rdma_read_bytes - sa.rdma_read_bytes, 65536);
	ck_assert_uint_eq(sb.write_chunks - sa.write_chunks, 1);
	ck_assert_uint_eq(sb.rdma_write_bytes - sa.rdma_write_bytes, 65536);
	ck_assert_uint_eq(sb.sent_msg - sa.sent_msg, 1);

	/* Several items each way, odd lengths, a small one inline. */
	{
		const size_t sizes[] = { 5001, 3, 70001 };

		a = clnt_stats(cl);
		sa = svc_stats_of(x);
		echo_many(cl, sizes, 3, true);
		echo_many(cl, sizes, 3, false);
		b = clnt_stats(cl);
		sb = svc_stats_of(x);
		ck_assert_uint_eq(b.calls_read_chunks - a.calls_read_chunks,
				  2);
		ck_assert_uint_eq(sb.read_chunks - sa.read_chunks, 2);
		ck_assert_uint_eq(sb.rdma_read_bytes - sa.rdma_read_bytes,
				  2 * (5001 + 70001));
		ck_assert_uint_eq(sb.write_chunks - sa.write_chunks, 4);
		ck_assert_uint_eq(sb.rdma_write_bytes - sa.rdma_write_bytes,
				  2 * (5001 + 70001));
		ck_assert_uint_eq(sb.sent_msg - sa.sent_msg, 2);
		ck_assert_uint_eq(b.replies_write_chunks -
					  a.replies_write_chunks, 2);
	}

	/* Write list and reply chunk together: two items placed, two more
	 * left in a reply too large for inline (a Long Reply). */
	{
		const size_t sizes[] = { 20000, 30000, 9000, 5000 };

		a = clnt_stats(cl);
		sa = svc_stats_of(x);
		echo_many(cl, sizes, 4, false);
		b = clnt_stats(cl);
		sb = svc_stats_of(x);
		ck_assert_uint_eq(sb.read_chunks - sa.read_chunks, 1);
		ck_assert_uint_eq(b.read_chunks - a.read_chunks, 4);
		ck_assert_uint_eq(sb.write_chunks - sa.write_chunks, 2);
		ck_assert_uint_eq(sb.reply_chunks - sa.reply_chunks, 1);
		ck_assert_uint_eq(sb.sent_nomsg - sa.sent_nomsg, 1);
		ck_assert_uint_eq(b.replies_long - a.replies_long, 1);
		ck_assert_uint_eq(b.replies_write_chunks -
					  a.replies_write_chunks, 1);
	}

	/* An item larger than its write chunk stays in the reply: the
	 * chunk goes back unused, the reply is a Long Reply. */
	d.item_max = 4096;
	h.reply_max = 0;
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_DDP, (char *)&d));
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_REPLY, (char *)&h));
	a = clnt_stats(cl);
	sa = svc_stats_of(x);
	echo(cl, 65536, 9);
	b = clnt_stats(cl);
	sb = svc_stats_of(x);
	ck_assert_uint_eq(b.write_chunks - a.write_chunks, 1);
	ck_assert_uint_eq(sb.write_chunks, sa.write_chunks);
	ck_assert_uint_eq(sb.reply_chunks - sa.reply_chunks, 1);
	ck_assert_uint_eq(b.replies_write_chunks, a.replies_write_chunks);
	ck_assert_uint_eq(b.replies_long - a.replies_long, 1);

	/* More items than chunks offered (10 against 2): the first two
	 * placed, the rest in the reply chunk. */
	{
		const size_t sizes[] = { 1100, 1101, 1102, 1103, 1104,
					 1105, 1106, 1107, 1108, 1109 };

		dm.items = 2;
		dm.item_max = 2048;
		ck_assert(clnt_control(cl, CLSET_RDMA_PROC_DDP, (char *)&dm));
		sa = svc_stats_of(x);
		echo_many(cl, sizes, 10, false);
		sb = svc_stats_of(x);
		ck_assert_uint_eq(sb.write_chunks - sa.write_chunks, 2);
		ck_assert_uint_eq(sb.reply_chunks - sa.reply_chunks, 1);
		ck_assert_uint_eq(sb.err_chunk_sent, sa.err_chunk_sent);
	}
	/* A reply bound just over what the echoed write list leaves of the
	 * inline threshold (4096 - 28 - 24 < 4056): a reply chunk is
	 * offered, the reply is a Long Reply, not ERR_CHUNK. */
	{
		const size_t sizes[] = { 2000, 4020 };
		struct rpcrdma_proc_reply hm = { P_ECHO_MANY, 4056 };

		dm.items = 1;
		dm.item_max = 2048;
		ck_assert(clnt_control(cl, CLSET_RDMA_PROC_DDP, (char *)&dm));
		ck_assert(clnt_control(cl, CLSET_RDMA_PROC_REPLY,
				       (char *)&hm));
		a = clnt_stats(cl);
		sa = svc_stats_of(x);
		echo_many(cl, sizes, 2, true);
		b = clnt_stats(cl);
		sb = svc_stats_of(x);
		ck_assert_uint_eq(b.reply_chunks - a.reply_chunks, 1);
		ck_assert_uint_eq(sb.write_chunks - sa.write_chunks, 1);
		ck_assert_uint_eq(b.replies_long - a.replies_long, 1);
		ck_assert_uint_eq(sb.err_chunk_sent, sa.err_chunk_sent);
	}

	/* Forgotten: no write chunk offered. */
	d.items = 0;
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_DDP, (char *)&d));
	a = clnt_stats(cl);
	echo(cl, 65536, 10);
	b = clnt_stats(cl);
	ck_assert_uint_eq(b.write_chunks, a.write_chunks);
	ck_assert_ptr_eq(echo(cl, 1, 11), x);
	a = clnt_stats(cl);
	ck_assert_uint_eq(a.connects, 1);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

/* The DDP tests of the "svc" case, in their order there. */
void t_svc_add_ddp(TCase *tc)
{
	tcase_add_test(tc, test_reply_hints);
	tcase_add_test(tc, test_ddp);
}
