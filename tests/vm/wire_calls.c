/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small, deterministic workload for the independent decoder
 * (tests/vm/t/80-wire.sh): a server and a client in one process, one call
 * of each kind with a known XID (CLSET_XID), and crafted messages from a
 * raw endpoint. The script captures the RoCE traffic and checks with
 * tshark's rpcordma dissector that what went on the wire is what the
 * lines printed here say.
 *
 * Output, one line per message exchange the script checks:
 *   wire: call XID NAME            (a call made, XID in hex)
 *   wire: raw XID NAME             (a crafted message, XID in hex)
 *   wire: expect-v1 N              (RPC-over-RDMA version 1 messages
 *                                   that went on the wire: calls,
 *                                   replies, crafted ones and answers)
 * Every call also asserts the transport counters that say which path it
 * took, so the script's expectations rest on what the library did.
 *
 * Inline sizes are the defaults (4096 both ways). The client bounds every
 * reply to 1024 bytes (CLSET_RDMA_REPLY_MAX), so a call offers a reply
 * chunk only where a procedure's own hint says so.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "harness.h"

#define W_PROG		0x20000b80
#define W_VERS		1
#define W_PUT		1	/* blob -> u_int (its length) */
#define W_GET		2	/* u_int n -> blob of n bytes */
#define W_GET_LONG	3	/* the same, for the reply-chunk call */
#define W_PUT_MANY	4	/* blobs -> u_int (their total length) */
#define W_ECHO		5	/* blob -> the same blob */

#define XID_BASE	0x57490000u	/* "WI" */

static unsigned int v1_msgs;	/* version-1 messages on the wire */

static void wire_dispatch(struct svc_req *rq, SVCXPRT *x)
{
	struct blob b = { 0, NULL };
	struct blobs m;
	u_int n = 0;

	atomic_store(&last_xprt, x);
	switch (rq->rq_proc) {
	case NULLPROC:
		svc_sendreply(x, XVOID, NULL);
		return;
	case W_PUT:
		if (!svc_getargs(x, XP(xdr_blob), (caddr_t)&b)) {
			svcerr_decode(x);
			return;
		}
		n = b.len;
		svc_freeargs(x, XP(xdr_blob), (caddr_t)&b);
		svc_sendreply(x, XP(xdr_u_int), (caddr_t)&n);
		return;
	case W_GET:
	case W_GET_LONG:
		if (!svc_getargs(x, XP(xdr_u_int), (caddr_t)&n) ||
		    n > (1u << 20)) {
			svcerr_decode(x);
			return;
		}
		b.len = n;
		b.data = mkdata(n, n);
		svc_sendreply(x, XP(xdr_blob), (caddr_t)&b);
		free(b.data);
		return;
	case W_ECHO:
		reply_echo(x);
		return;
	case W_PUT_MANY:
		memset(&m, 0, sizeof(m));
		if (!svc_getargs(x, XP(xdr_blobs), (caddr_t)&m)) {
			svcerr_decode(x);
			return;
		}
		for (u_int i = 0; i < m.n; i++)
			n += m.b[i].len;
		svc_freeargs(x, XP(xdr_blobs), (caddr_t)&m);
		svc_sendreply(x, XP(xdr_u_int), (caddr_t)&n);
		return;
	default:
		svcerr_noproc(x);
	}
}

static struct rpcrdma_stats cstats(CLIENT *cl)
{
	struct rpcrdma_stats st;

	ck_assert_int_eq(rpcrdma_clnt_stats(cl, &st), 0);
	return st;
}

static void set_xid(CLIENT *cl, uint32_t xid, const char *name)
{
	ck_assert(clnt_control(cl, CLSET_XID, (char *)&xid));
	printf("wire: call %08x %s\n", xid, name);
	fflush(stdout);
}

static void check_xid(CLIENT *cl, uint32_t xid)
{
	uint32_t got = 0;

	ck_assert(clnt_control(cl, CLGET_XID, (char *)&got));
	ck_assert_uint_eq(got, xid);
}

#define D(f)	(b.f - a.f)

START_TEST(test_wire_calls)
{
	struct rpcrdma_stats a, b;
	uint32_t reply_max = 1024, xid = XID_BASE;
	struct srv s;
	CLIENT *cl;

	srv_start(&s, 0);
	ck_assert(rpcrdma_svc_reg(s.lsn, W_PROG, W_VERS, wire_dispatch));
	{
		char p[8];

		snprintf(p, sizeof(p), "%u", s.port);
		setenv("RPCRDMA_PORT", p, 1);
		setenv("RPCRDMA_SRCADDR", addr_a, 1);
		cl = clnt_create(addr_b, W_PROG, W_VERS, "rdma");
		ck_assert_msg(cl != NULL, "clnt_create rdma: %s",
			      clnt_spcreateerror("clnt"));
	}
	ck_assert(clnt_control(cl, CLSET_RDMA_REPLY_MAX, (char *)&reply_max));

	/* 1. NULL: RDMA_MSG both ways, three empty lists. */
	a = cstats(cl);
	set_xid(cl, ++xid, "null");
	null_call(cl);
	check_xid(cl, xid);
	b = cstats(cl);
	ck_assert_uint_eq(D(calls_inline), 1);
	ck_assert_uint_eq(D(replies_inline), 1);
	ck_assert_uint_eq(D(reply_chunks), 0);
	v1_msgs += 2;

	/* 2. Echo of 100 bytes: inline both ways, no chunks. */
	a = cstats(cl);
	set_xid(cl, ++xid, "inline-100");
	{
		struct blob arg = { 100, mkdata(100, 100) }, r = { 0, NULL };

		ck_assert_int_eq(clnt_call(cl, W_ECHO, XP(xdr_blob),
					   (caddr_t)&arg, XP(xdr_blob),
					   (caddr_t)&r, tmo), RPC_SUCCESS);
		ck_assert_uint_eq(r.len, 100);
		ck_assert(memcmp(r.data, arg.data, 100) == 0);
		clnt_freeres(cl, XP(xdr_blob), (caddr_t)&r);
		free(arg.data);
	}
	check_xid(cl, xid);
	b = cstats(cl);
	ck_assert_uint_eq(D(calls_inline), 1);
	ck_assert_uint_eq(D(read_chunks), 0);
	ck_assert_uint_eq(D(replies_inline), 1);
	v1_msgs += 2;

	/* 3. Long Call: 12 items of 400 bytes, each below the DDP
	 * threshold, together above the inline threshold: RDMA_NOMSG with
	 * one read chunk at position zero; the reply is inline. */
	a = cstats(cl);
	set_xid(cl, ++xid, "long-call");
	{
		struct blobs m;
		u_int n = 0;

		memset(&m, 0, sizeof(m));
		m.n = T_MAX_BLOBS;
		for (u_int i = 0; i < m.n; i++) {
			m.b[i].len = 400;
			m.b[i].data = mkdata(i, 400);
		}
		ck_assert_int_eq(clnt_call(cl, W_PUT_MANY, XP(xdr_blobs),
					   (caddr_t)&m, XP(xdr_u_int),
					   (caddr_t)&n, tmo), RPC_SUCCESS);
		ck_assert_uint_eq(n, 400 * T_MAX_BLOBS);
		for (u_int i = 0; i < m.n; i++)
			free(m.b[i].data);
	}
	check_xid(cl, xid);
	b = cstats(cl);
	ck_assert_uint_eq(D(calls_long), 1);
	ck_assert_uint_eq(D(sent_nomsg), 1);
	ck_assert_uint_eq(D(read_chunks), 1);
	ck_assert_uint_eq(D(replies_inline), 1);
	v1_msgs += 2;

	/* 4. DDP: a blob of 8000 bytes in a read chunk at its XDR position
	 * (RDMA_MSG); the reply is inline. */
	a = cstats(cl);
	set_xid(cl, ++xid, "ddp-read");
	{
		struct blob arg = { 8000, mkdata(8000, 8000) };
		u_int n = 0;

		ck_assert_int_eq(clnt_call(cl, W_PUT, XP(xdr_blob),
					   (caddr_t)&arg, XP(xdr_u_int),
					   (caddr_t)&n, tmo), RPC_SUCCESS);
		ck_assert_uint_eq(n, 8000);
		free(arg.data);
	}
	check_xid(cl, xid);
	b = cstats(cl);
	ck_assert_uint_eq(D(calls_read_chunks), 1);
	ck_assert_uint_eq(D(sent_msg), 1);
	ck_assert_uint_eq(D(read_chunks), 1);
	ck_assert_uint_eq(D(replies_inline), 1);
	v1_msgs += 2;

	/* 5. A write chunk: GET of 6000 bytes with one write chunk of
	 * 8192 offered (CLSET_RDMA_PROC_DDP); the reply is RDMA_MSG with
	 * the item in the chunk and the rest inline. */
	{
		struct rpcrdma_proc_ddp d = { W_GET, 1, 8192 };

		ck_assert(clnt_control(cl, CLSET_RDMA_PROC_DDP, (char *)&d));
	}
	a = cstats(cl);
	set_xid(cl, ++xid, "write-chunk");
	{
		struct blob r = { 0, NULL };
		u_int n = 6000;

		ck_assert_int_eq(clnt_call(cl, W_GET, XP(xdr_u_int),
					   (caddr_t)&n, XP(xdr_blob),
					   (caddr_t)&r, tmo), RPC_SUCCESS);
		ck_assert_uint_eq(r.len, 6000);
		clnt_freeres(cl, XP(xdr_blob), (caddr_t)&r);
	}
	check_xid(cl, xid);
	b = cstats(cl);
	ck_assert_uint_eq(D(write_chunks), 1);
	ck_assert_uint_eq(D(reply_chunks), 0);
	ck_assert_uint_eq(D(replies_write_chunks), 1);
	ck_assert_uint_eq(D(recv_msg), 1);
	v1_msgs += 2;

	/* 6. A reply chunk: GET of 6000 bytes with a reply bound of 8192
	 * (CLSET_RDMA_PROC_REPLY): the call offers a reply chunk, the reply
	 * comes in it (RDMA_NOMSG). */
	{
		struct rpcrdma_proc_reply h = { W_GET_LONG, 8192 };

		ck_assert(clnt_control(cl, CLSET_RDMA_PROC_REPLY, (char *)&h));
	}
	a = cstats(cl);
	set_xid(cl, ++xid, "reply-chunk");
	{
		struct blob r = { 0, NULL };
		u_int n = 6000;

		ck_assert_int_eq(clnt_call(cl, W_GET_LONG, XP(xdr_u_int),
					   (caddr_t)&n, XP(xdr_blob),
					   (caddr_t)&r, tmo), RPC_SUCCESS);
		ck_assert_uint_eq(r.len, 6000);
		clnt_freeres(cl, XP(xdr_blob), (caddr_t)&r);
	}
	check_xid(cl, xid);
	b = cstats(cl);
	ck_assert_uint_eq(D(reply_chunks), 1);
	ck_assert_uint_eq(D(replies_long), 1);
	ck_assert_uint_eq(D(recv_nomsg), 1);
	v1_msgs += 2;

	/* 7. Echo of 3000 bytes, inline both ways (a reply bound of 3500
	 * for W_ECHO: no reply chunk): each Send spans several RoCE packets
	 * (path MTU 1024), which tshark must reassemble. */
	{
		struct rpcrdma_proc_reply h = { W_ECHO, 3500 };

		ck_assert(clnt_control(cl, CLSET_RDMA_PROC_REPLY, (char *)&h));
	}
	a = cstats(cl);
	set_xid(cl, ++xid, "inline-3000");
	{
		struct blob arg = { 3000, mkdata(3000, 3000) }, r = { 0, NULL };

		ck_assert_int_eq(clnt_call(cl, W_ECHO, XP(xdr_blob),
					   (caddr_t)&arg, XP(xdr_blob),
					   (caddr_t)&r, tmo), RPC_SUCCESS);
		ck_assert_uint_eq(r.len, 3000);
		ck_assert(memcmp(r.data, arg.data, 3000) == 0);
		clnt_freeres(cl, XP(xdr_blob), (caddr_t)&r);
		free(arg.data);
	}
	check_xid(cl, xid);
	b = cstats(cl);
	ck_assert_uint_eq(D(calls_inline), 1);
	ck_assert_uint_eq(D(read_chunks), 0);
	ck_assert_uint_eq(D(reply_chunks), 0);
	ck_assert_uint_eq(D(replies_inline), 1);
	v1_msgs += 2;

	/* The whole connection: one Send each way per call, nothing else. */
	b = cstats(cl);
	ck_assert_uint_eq(b.sent_msg + b.sent_nomsg + b.sent_error, 7);
	ck_assert_uint_eq(b.recv_msg + b.recv_nomsg + b.recv_error, 7);
	{
		struct rpcrdma_stats sv = svc_stats_of(atomic_load(&last_xprt));

		ck_assert_uint_eq(sv.recv_msg + sv.recv_nomsg, 7);
		ck_assert_uint_eq(sv.sent_msg + sv.sent_nomsg, 7);
		ck_assert_uint_eq(sv.sent_error, 0);
	}
	clnt_destroy(cl);

	/* 8. Crafted messages from a raw endpoint (harness.c). */
	{
		struct rpcrdma_ep *ep = raw_connect(s.port);
		uint32_t x;

		/* Version 2: RDMA_ERROR ERR_VERS, range 1..1; the answer
		 * carries the failing message's XID and version. */
		x = ++xid;
		printf("wire: raw %08x err-vers\n", x);
		{
			const uint32_t m[] = { x, 2, 1, 0, 0, 0, 0 };
			const uint32_t r[] = { x, 2, 1, 4, 1, 1, 1 };

			raw_send(ep, m, 7);
			raw_expect(ep, r, 7);
		}
		/* Unknown procedure 7 in a version-1 header: RDMA_ERROR
		 * ERR_CHUNK (only the answer is version 1 and well formed). */
		x = ++xid;
		printf("wire: raw %08x err-chunk\n", x);
		{
			const uint32_t m[] = { x, 1, 1, 7, 0, 0, 0 };
			const uint32_t r[] = { x, 1, 1, 4, 2 };

			raw_send(ep, m, 7);
			raw_expect(ep, r, 5);
		}
		v1_msgs += 1;	/* the ERR_CHUNK answer */
		rpcrdma_ep_destroy(ep);
	}

	printf("wire: expect-v1 %u\n", v1_msgs);
	fflush(stdout);
	svc_unreg(W_PROG, W_VERS);
	srv_stop(&s);
}
END_TEST

int main(void)
{
	Suite *su;
	TCase *tc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!guest_addrs("wire_calls"))
		return 77;
	su = suite_create("wire_calls");
	tc = tcase_create("wire");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_wire_calls);
	suite_add_tcase(su, tc);
	return run_suite(su);
}
