/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_svc's tests through a raw engine endpoint, crafted transport headers
 * and their exact answers: test_bad_headers (RDMA_ERROR ERR_VERS and
 * ERR_CHUNK, headers left unanswered), test_ddp_read_chunk (a read chunk,
 * a write chunk and a reply chunk by hand), test_empty_write_chunk,
 * test_read_chunk_checked_first and test_no_read_resources (read chunks
 * refused before any RDMA Read) and test_write_chunk_raw (a reply's item
 * placed in the write chunk offered).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "../../xprt_rdma/xprt.h"
#include "harness.h"
#include "t_svc.h"

START_TEST(test_bad_headers)
{
	struct rpcrdma_stats a, b;
	struct rpcrdma_rx rx;
	struct rpcrdma_ep *ep;
	struct srv s;
	SVCXPRT *x;

	srv_start(&s, 65536);
	ep = raw_connect(s.port);
	raw_null_call(ep, 0x10000001);
	x = atomic_load(&last_xprt);
	a = svc_stats_of(x);

	/*
	 * Version 2 (RFC 8166 sections 4.5 and 5): RDMA_ERROR ERR_VERS with
	 * the supported range 1..1, carrying the failing message's XID and
	 * version: xid, vers 2, credits 1, RDMA_ERROR 4, ERR_VERS 1, low 1,
	 * high 1 (the Linux server echoes the version too).
	 */
	{
		const uint32_t m[] = { 0x11111111, 2, 1, 0, 0, 0, 0 };
		const uint32_t r[] = { 0x11111111, 2, 1, 4, 1, 1, 1 };

		raw_send(ep, m, 7);
		raw_expect(ep, r, 7);
	}
	/* Truncated: a read segment announced and cut short after its
	 * position (28 bytes, a call's smallest header): ERR_CHUNK 2. */
	{
		const uint32_t m[] = { 0x22222222, 1, 1, 0, 1, 44, 0 };
		const uint32_t r[] = { 0x22222222, 1, 1, 4, 2 };

		raw_send(ep, m, 7);
		raw_expect(ep, r, 5);
	}
	/* Unknown procedure 7: ERR_CHUNK. */
	{
		const uint32_t m[] = { 0x33333333, 1, 1, 7, 0, 0, 0 };
		const uint32_t r[] = { 0x33333333, 1, 1, 4, 2 };

		raw_send(ep, m, 7);
		raw_expect(ep, r, 5);
	}
	/*
	 * A Long Call larger than the server's max_msg (65536): one
	 * position-zero read segment of 65537 bytes (handle, length,
	 * offset hi, lo), no write list, no reply chunk. Refused with
	 * ERR_CHUNK before any RDMA Read.
	 */
	{
		const uint32_t m[] = { 0x44444444, 1, 1, 1,
				       1, 0, 0x1234, 65537, 0, 0x1000, 0,
				       0, 0 };
		const uint32_t r[] = { 0x44444444, 1, 1, 4, 2 };

		raw_send(ep, m, 13);
		raw_expect(ep, r, 5);
	}
	/*
	 * RDMA_NOMSG with a reply chunk but no position-zero read chunk: a
	 * valid header (RFC 8166 section 4.2.4) that carries no call.
	 */
	{
		const uint32_t m[] = { 0x45454545, 1, 1, 1, 0, 0,
				       1, 1, 0x99, 4096, 0, 0x2000 };
		const uint32_t r[] = { 0x45454545, 1, 1, 4, 2 };

		raw_send(ep, m, 12);
		raw_expect(ep, r, 5);
	}
	/*
	 * Unanswered: 8 bytes (no XID); 20 bytes, shorter than any call's
	 * header (RFC 8166 section 4.2, as the Linux server); an RDMA_ERROR
	 * from the client; and one of version 2 (never answer an error).
	 */
	{
		const uint32_t shortm[] = { 0x55555555, 1 };
		const uint32_t short20[] = { 0x56565656, 1, 1, 0, 1 };
		const uint32_t err[] = { 0x66666666, 1, 1, 4, 2 };
		const uint32_t err2[] = { 0x66666667, 2, 1, 4, 2 };

		raw_send(ep, shortm, 2);
		raw_send(ep, short20, 5);
		raw_send(ep, err, 5);
		raw_send(ep, err2, 5);
	}
	/* Still usable, and nothing was sent for the last two. */
	raw_null_call(ep, 0x77777777);
	ck_assert_ptr_eq(atomic_load(&last_xprt), x);
	ck_assert_int_eq(rpcrdma_ep_poll(ep, &rx, 200), 0);

	b = svc_stats_of(x);
	/* vers, truncated, proc, short, short20, err2 */
	ck_assert_uint_eq(b.bad_headers - a.bad_headers, 6);
	ck_assert_uint_eq(b.err_vers_sent - a.err_vers_sent, 1);
	/* truncated, proc, too long, no call */
	ck_assert_uint_eq(b.err_chunk_sent - a.err_chunk_sent, 4);
	ck_assert_uint_eq(b.sent_error - a.sent_error, 5);
	ck_assert_uint_eq(b.recv_nomsg - a.recv_nomsg, 2);
	ck_assert_uint_eq(b.recv_error - a.recv_error, 1);
	ck_assert_uint_eq(b.err_chunk_recv - a.err_chunk_recv, 1);
	ck_assert_uint_eq(b.read_chunks, a.read_chunks);
	ck_assert_uint_eq(b.sent_msg - a.sent_msg, 1);
	rpcrdma_ep_destroy(ep);
	srv_stop(&s);
}
END_TEST


/*
 * DDP by hand: an ECHO call whose 8000-byte argument travels in a read
 * chunk at its XDR position (RFC 8166 section 3.4.5), with a write chunk
 * offered and a reply chunk. The server must pull and splice the data,
 * send the 8028-byte reply into the reply chunk (Long Reply), and return
 * the unused write chunk with its two segments at length zero (RFC 8166
 * section 3.4.6).
 */
START_TEST(test_ddp_read_chunk)
{
	enum { N = 8000, RB = 16384, WB = 4096 };
	char *d = mkdata(77, N), *rb = calloc(1, RB), *wb = calloc(1, WB);
	struct rpcrdma_mr *mr_d, *mr_r, *mr_w;
	struct rpcrdma_stats a, b;
	struct rpcrdma_ep *ep;
	uint32_t w[128], want[64], hd, hr, hw;
	size_t n = 0, k = 0;
	struct srv s;
	SVCXPRT *x;

	srv_start(&s, 0);
	ep = raw_connect(s.port);
	raw_null_call(ep, 0x10000002);
	x = atomic_load(&last_xprt);
	a = svc_stats_of(x);
	mr_d = raw_reg(ep, d, N, RPCRDMA_ACCESS_REMOTE_READ, &hd);
	mr_r = raw_reg(ep, rb, RB, RPCRDMA_ACCESS_REMOTE_WRITE, &hr);
	mr_w = raw_reg(ep, wb, WB, RPCRDMA_ACCESS_REMOTE_WRITE, &hw);

	/* Header: RDMA_MSG; read list: position 44 = 40 bytes of call
	 * header + the 4-byte length word; write list: one chunk of two
	 * segments; reply chunk: one segment. */
	w[n++] = 0x12345678; w[n++] = 1; w[n++] = 1; w[n++] = 0;
	w[n++] = 1; w[n++] = 44;
	n = put_seg(w, n, hd, N, d);
	w[n++] = 0;
	w[n++] = 1; w[n++] = 2;
	n = put_seg(w, n, hw, WB / 2, wb);
	n = put_seg(w, n, hw, WB / 2, wb + WB / 2);
	w[n++] = 0;
	w[n++] = 1; w[n++] = 1;
	n = put_seg(w, n, hr, RB, rb);
	/* RPC call (RFC 5531): ECHO, AUTH_NONE; then the opaque's length,
	 * its bytes being in the chunk (8000 is a multiple of 4: no pad). */
	w[n++] = 0x12345678; w[n++] = 0; w[n++] = 2; w[n++] = T_PROG;
	w[n++] = T_VERS; w[n++] = P_ECHO; w[n++] = 0; w[n++] = 0;
	w[n++] = 0; w[n++] = 0;
	w[n++] = N;
	raw_send(ep, w, n);

	/* Reply: RDMA_NOMSG, no read list, the write chunk back with both
	 * lengths zero, the reply chunk with 24 + 4 + 8000 = 8028 bytes. */
	want[k++] = 0x12345678; want[k++] = 1; want[k++] = 1; want[k++] = 1;
	want[k++] = 0;
	want[k++] = 1; want[k++] = 2;
	k = put_seg(want, k, hw, 0, wb);
	k = put_seg(want, k, hw, 0, wb + WB / 2);
	want[k++] = 0;
	want[k++] = 1; want[k++] = 1;
	k = put_seg(want, k, hr, 8028, rb);
	raw_expect(ep, want, k);
	/* The reply itself, in rb: xid, REPLY, MSG_ACCEPTED, AUTH_NONE
	 * verifier, SUCCESS, then the opaque. */
	{
		const uint32_t rh[] = { 0x12345678, 1, 0, 0, 0, 0, N };

		for (size_t i = 0; i < 7; i++) {
			uint32_t v;

			memcpy(&v, rb + 4 * i, 4);
			ck_assert_uint_eq(ntohl(v), rh[i]);
		}
		ck_assert(memcmp(rb + 28, d, N) == 0);
	}
	b = svc_stats_of(x);
	ck_assert_uint_eq(b.recv_msg - a.recv_msg, 1);
	ck_assert_uint_eq(b.read_chunks - a.read_chunks, 1);
	ck_assert_uint_eq(b.sent_nomsg - a.sent_nomsg, 1);
	ck_assert_uint_eq(b.reply_chunks - a.reply_chunks, 1);

	/* A small inline ECHO offering the write chunk only: RDMA_MSG with
	 * the write chunk back unused, no reply chunk, the reply inline. */
	n = 0;
	w[n++] = 0x12345679; w[n++] = 1; w[n++] = 1; w[n++] = 0;
	w[n++] = 0;
	w[n++] = 1; w[n++] = 2;
	n = put_seg(w, n, hw, WB / 2, wb);
	n = put_seg(w, n, hw, WB / 2, wb + WB / 2);
	w[n++] = 0;
	w[n++] = 0;
	w[n++] = 0x12345679; w[n++] = 0; w[n++] = 2; w[n++] = T_PROG;
	w[n++] = T_VERS; w[n++] = P_ECHO; w[n++] = 0; w[n++] = 0;
	w[n++] = 0; w[n++] = 0;
	/* "hello": length 5, then the bytes and 3 zero bytes of pad. */
	w[n++] = 5; w[n++] = 0x68656c6c; w[n++] = 0x6f000000;
	raw_send(ep, w, n);
	k = 0;
	want[k++] = 0x12345679; want[k++] = 1; want[k++] = 1; want[k++] = 0;
	want[k++] = 0;
	want[k++] = 1; want[k++] = 2;
	k = put_seg(want, k, hw, 0, wb);
	k = put_seg(want, k, hw, 0, wb + WB / 2);
	want[k++] = 0;
	want[k++] = 0;
	want[k++] = 0x12345679; want[k++] = 1; want[k++] = 0; want[k++] = 0;
	want[k++] = 0; want[k++] = 0;
	want[k++] = 5; want[k++] = 0x68656c6c; want[k++] = 0x6f000000;
	raw_expect(ep, want, k);

	/*
	 * The 8000-byte DDP call again but with no reply chunk: the 8028-byte
	 * reply fits nowhere (RFC 8166 section 4.5.3): ERR_CHUNK, and the
	 * connection goes on.
	 */
	a = svc_stats_of(x);
	n = 0;
	w[n++] = 0x1234567a; w[n++] = 1; w[n++] = 1; w[n++] = 0;
	w[n++] = 1; w[n++] = 44;
	n = put_seg(w, n, hd, N, d);
	w[n++] = 0;
	w[n++] = 0;
	w[n++] = 0;
	w[n++] = 0x1234567a; w[n++] = 0; w[n++] = 2; w[n++] = T_PROG;
	w[n++] = T_VERS; w[n++] = P_ECHO; w[n++] = 0; w[n++] = 0;
	w[n++] = 0; w[n++] = 0;
	w[n++] = N;
	raw_send(ep, w, n);
	{
		const uint32_t r[] = { 0x1234567a, 1, 1, 4, 2 };

		raw_expect(ep, r, 5);
	}
	raw_null_call(ep, 0x1234567b);
	b = svc_stats_of(x);
	ck_assert_uint_eq(b.err_chunk_sent - a.err_chunk_sent, 1);
	ck_assert_uint_eq(b.read_chunks - a.read_chunks, 1);

	rpcrdma_mr_dereg(mr_d);
	rpcrdma_mr_dereg(mr_r);
	rpcrdma_mr_dereg(mr_w);
	rpcrdma_ep_destroy(ep);
	free(d);
	free(rb);
	free(wb);
	srv_stop(&s);
}
END_TEST

/*
 * A write chunk with no segments (conformance review 3): accepted and
 * echoed as it came, as the Linux server does; the reply goes inline.
 */
START_TEST(test_empty_write_chunk)
{
	struct rpcrdma_ep *ep;
	struct srv s;

	srv_start(&s, 0);
	ep = raw_connect(s.port);
	{
		const uint32_t m[] = { 0x12345691, 1, 1, 0, 0, 1, 0, 0, 0,
				       0x12345691, 0, 2, T_PROG, T_VERS, 0,
				       0, 0, 0, 0 };
		const uint32_t r[] = { 0x12345691, 1, 1, 0, 0, 1, 0, 0, 0,
				       0x12345691, 1, 0, 0, 0, 0 };

		raw_send(ep, m, sizeof(m) / 4);
		raw_expect(ep, r, sizeof(r) / 4);
	}
	raw_null_call(ep, 0x10000007);
	rpcrdma_ep_destroy(ep);
	srv_stop(&s);
}
END_TEST

/*
 * From a raw client connected with eo (NULL: defaults), an ECHO of n
 * bytes whose blob goes in a read chunk at position pos: the server must
 * refuse it before any RDMA Read, with GARBAGE_ARGS (garbage) or
 * ERR_CHUNK, and go on serving.
 */
static void echo_chunk_refused(const struct rpcrdma_ep_opts *eo, uint32_t n,
			       uint32_t pos, uint32_t xid, bool garbage)
{
	char *d = mkdata(xid & 0xff, n);
	struct rpcrdma_stats a, b;
	struct rpcrdma_ep *ep;
	struct rpcrdma_mr *mr_d;
	uint32_t w[32], hd;
	size_t k = 0;
	struct srv s;
	SVCXPRT *x;

	srv_start(&s, 0);
	ep = eo ? raw_connect_eo(s.port, eo) : raw_connect(s.port);
	raw_null_call(ep, 0x10000005);
	x = atomic_load(&last_xprt);
	mr_d = raw_reg(ep, d, n, RPCRDMA_ACCESS_REMOTE_READ, &hd);
	a = svc_stats_of(x);
	w[k++] = xid; w[k++] = 1; w[k++] = 1; w[k++] = 0;
	w[k++] = 1; w[k++] = pos;
	k = put_seg(w, k, hd, n, d);
	w[k++] = 0;
	w[k++] = 0;
	w[k++] = 0;
	w[k++] = xid; w[k++] = 0; w[k++] = 2; w[k++] = T_PROG;
	w[k++] = T_VERS; w[k++] = P_ECHO; w[k++] = 0; w[k++] = 0;
	w[k++] = 0; w[k++] = 0;
	w[k++] = n;
	raw_send(ep, w, k);
	if (garbage) {
		/* RDMA_MSG, no chunks; RPC: xid, REPLY, MSG_ACCEPTED, AUTH_NONE
		 * verifier (0, 0), GARBAGE_ARGS 4. */
		const uint32_t r[] = { xid, 1, 1, 0, 0, 0, 0,
				       xid, 1, 0, 0, 0, 4 };

		raw_expect(ep, r, sizeof(r) / 4);
	} else {
		const uint32_t r[] = { xid, 1, 1, 4, 2 };

		raw_expect(ep, r, 5);
	}
	raw_null_call(ep, 0x10000006);
	b = svc_stats_of(x);
	ck_assert_uint_eq(b.err_chunk_sent - a.err_chunk_sent, garbage ? 0 : 1);
	ck_assert_uint_eq(b.garbage_args_sent - a.garbage_args_sent,
			  garbage ? 1 : 0);
	ck_assert_uint_eq(b.read_chunks, a.read_chunks);
	ck_assert_uint_eq(b.rdma_read_bytes, a.rdma_read_bytes);
	rpcrdma_mr_dereg(mr_d);
	rpcrdma_ep_destroy(ep);
	free(d);
	srv_stop(&s);
}

/*
 * A DDP call whose read chunk could not be spliced into it (position 4096
 * past the 44 inline bytes) is refused before any RDMA Read: the server
 * pulls nothing for it (security review 14) and, the header being valid
 * but its chunks not matching the Payload stream, answers GARBAGE_ARGS
 * (RFC 8166 section 4.5.2, conformance review 20), not dispatched.
 */
START_TEST(test_read_chunk_checked_first)
{
	unsigned int before = atomic_load(&dispatched);

	echo_chunk_refused(NULL, 65536, 4096, 0x12345690, true);
	/* Only the two NULL calls around it reached the dispatcher. */
	ck_assert_uint_eq(atomic_load(&dispatched) - before, 2);
}
END_TEST

/*
 * A client that offers no RDMA Read resources (responder_resources 0 in
 * its connect request) is answered with an initiator depth of 0, as
 * rdma_accept(3) requires, and its call with a read chunk, well formed
 * (the ECHO's blob at its XDR position), gets ERR_CHUNK before any Read;
 * its inline calls are served (conformance review 25).
 */
START_TEST(test_no_read_resources)
{
	struct rpcrdma_ep_opts eo;
	struct rpcrdma_opts o;

	rpcrdma_opts_default(&o);
	ck_assert_int_eq(rpcrdma_opts_to_ep(&o, &eo), 0);
	eo.no_read_resources = true;
	/* A well-formed DDP call: the blob's bytes at 44, after the call
	 * header (40 bytes with AUTH_NONE) and the blob's length word. */
	echo_chunk_refused(&eo, 8192, 44, 0x12345691, false);
}
END_TEST

/*
 * The server writes a reply's data item into the write chunk offered
 * (RFC 8166 section 3.4.6), the way the Linux client offers it for an NFS
 * READ of odd length: segments filled in order with exactly the item's
 * bytes, a trailing 4-byte pad segment left unwritten, the true lengths
 * echoed, the item's data and round-up gone from the inline reply.
 */
START_TEST(test_write_chunk_raw)
{
	enum { N = 6001, WB = 8192 };
	char *d = mkdata(78, N), *wb = calloc(1, WB), pad[4] = { 9, 9, 9, 9 };
	struct rpcrdma_mr *mr_d, *mr_w, *mr_p;
	struct rpcrdma_stats a, b;
	struct rpcrdma_ep *ep;
	uint32_t w[64], want[64], hd, hw, hp;
	size_t n = 0, k = 0;
	struct srv s;
	SVCXPRT *x;

	srv_start(&s, 0);
	ep = raw_connect(s.port);
	raw_null_call(ep, 0x10000003);
	x = atomic_load(&last_xprt);
	a = svc_stats_of(x);
	mr_d = raw_reg(ep, d, N, RPCRDMA_ACCESS_REMOTE_READ, &hd);
	mr_w = raw_reg(ep, wb, WB, RPCRDMA_ACCESS_REMOTE_WRITE, &hw);
	mr_p = raw_reg(ep, pad, sizeof(pad), RPCRDMA_ACCESS_REMOTE_WRITE, &hp);

	/* RDMA_MSG, the blob in a read chunk at position 44, one write
	 * chunk of 4096 + 4096 + a 4-byte pad segment, no reply chunk. */
	w[n++] = 0x12345680; w[n++] = 1; w[n++] = 1; w[n++] = 0;
	w[n++] = 1; w[n++] = 44;
	n = put_seg(w, n, hd, N, d);
	w[n++] = 0;
	w[n++] = 1; w[n++] = 3;
	n = put_seg(w, n, hw, WB / 2, wb);
	n = put_seg(w, n, hw, WB / 2, wb + WB / 2);
	n = put_seg(w, n, hp, 4, pad);
	w[n++] = 0;
	w[n++] = 0;
	w[n++] = 0x12345680; w[n++] = 0; w[n++] = 2; w[n++] = T_PROG;
	w[n++] = T_VERS; w[n++] = P_ECHO; w[n++] = 0; w[n++] = 0;
	w[n++] = 0; w[n++] = 0;
	w[n++] = N;
	raw_send(ep, w, n);

	want[k++] = 0x12345680; want[k++] = 1; want[k++] = 1; want[k++] = 0;
	want[k++] = 0;
	want[k++] = 1; want[k++] = 3;
	k = put_seg(want, k, hw, WB / 2, wb);
	k = put_seg(want, k, hw, N - WB / 2, wb + WB / 2);
	k = put_seg(want, k, hp, 0, pad);
	want[k++] = 0;
	want[k++] = 0;
	/* The reply: header, SUCCESS, the length word, nothing more. */
	want[k++] = 0x12345680; want[k++] = 1; want[k++] = 0; want[k++] = 0;
	want[k++] = 0; want[k++] = 0;
	want[k++] = N;
	raw_expect(ep, want, k);
	ck_assert(memcmp(wb, d, N) == 0);
	ck_assert_int_eq(wb[N], 0);		/* no round-up written */
	ck_assert_int_eq(pad[0], 9);
	b = svc_stats_of(x);
	ck_assert_uint_eq(b.write_chunks - a.write_chunks, 1);
	ck_assert_uint_eq(b.rdma_write_bytes - a.rdma_write_bytes, N);
	ck_assert_uint_eq(b.sent_msg - a.sent_msg, 1);
	ck_assert_uint_eq(b.reply_chunks, a.reply_chunks);
	raw_null_call(ep, 0x10000004);

	rpcrdma_mr_dereg(mr_d);
	rpcrdma_mr_dereg(mr_w);
	rpcrdma_mr_dereg(mr_p);
	rpcrdma_ep_destroy(ep);
	free(d);
	free(wb);
	srv_stop(&s);
}
END_TEST

/* The raw tests of the "svc" case before the DDP ones, in their order. */
void t_svc_add_raw_headers(TCase *tc)
{
	tcase_add_test(tc, test_bad_headers);
	tcase_add_test(tc, test_ddp_read_chunk);
}

/* The raw tests of the "svc" case after the DDP ones, in their order. */
void t_svc_add_raw_chunks(TCase *tc)
{
	tcase_add_test(tc, test_write_chunk_raw);
	tcase_add_test(tc, test_read_chunk_checked_first);
	tcase_add_test(tc, test_no_read_resources);
	tcase_add_test(tc, test_empty_write_chunk);
}
