/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire shapes of the Linux kernel's 2026 RPC-over-RDMA server CVEs,
 * sent by a raw peer to our server (issue 27), each with its exact answer
 * on the wire and its counters, while a well-behaved CLIENT on its own
 * connection keeps making calls; afterwards the process's descriptors and
 * RDMA objects are back where they were and its heap within a page or
 * so. The shapes:
 *   - a read chunk whose position lies past the inline body;
 *   - overlapping read chunks (the second starts inside the first);
 *   - a reply chunk of zero segments, and a write chunk of zero segments
 *     offered for a reply that needs it;
 *   - read segments whose lengths sum past the server's budget (and past
 *     2^32, where a 32-bit sum would wrap small);
 *   - a reply too large for the inline threshold to a call that offered
 *     neither a write list nor a reply chunk (the kernel linearised it
 *     into a 4 KiB buffer);
 *   - a segment whose offset + length passes 2^64 (offset arithmetic).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "../../xprt_rdma/xprt.h"
#include "harness.h"
#include "procself.h"
#include "t_svc.h"

enum { MAX_MSG = 65536, SRV_INLINE_SEND = 1024, BLOB = 8000 };

struct peer {
	struct srv s;
	CLIENT *good;			/* a well-behaved neighbour */
	struct rpcrdma_ep *ep;		/* the hostile one */
	SVCXPRT *x;			/* the server's end of ep */
	char *d;			/* BLOB bytes the server may read */
	struct rpcrdma_mr *mr_d;
	uint32_t hd;
	uint32_t xid;
};

/* The RPC call header of an ECHO (RFC 5531, AUTH_NONE): 10 words. */
static size_t put_echo_call(uint32_t *w, size_t n, uint32_t xid)
{
	w[n++] = xid; w[n++] = 0; w[n++] = 2; w[n++] = T_PROG;
	w[n++] = T_VERS; w[n++] = P_ECHO; w[n++] = 0; w[n++] = 0;
	w[n++] = 0; w[n++] = 0;
	return n;
}

/* An RDMA_MSG transport header's fixed part (RFC 8166 section 4.2):
 * xid, version 1, one credit asked, RDMA_MSG. */
static size_t put_msg_hdr(uint32_t *w, uint32_t xid)
{
	w[0] = xid;
	w[1] = 1;
	w[2] = 1;
	w[3] = 0;
	return 4;
}

static void expect_err_chunk(struct peer *p, uint32_t xid)
{
	const uint32_t r[] = { xid, 1, 1, 4, 2 };

	raw_expect(p->ep, r, 5);
}

/* RDMA_MSG, no chunks; RPC reply: MSG_ACCEPTED, AUTH_NONE, GARBAGE_ARGS. */
static void expect_garbage_args(struct peer *p, uint32_t xid)
{
	const uint32_t r[] = { xid, 1, 1, 0, 0, 0, 0,
			       xid, 1, 0, 0, 0, 4 };

	raw_expect(p->ep, r, sizeof(r) / 4);
}

/* Both connections still serve: the raw one and the neighbour. */
static void still_serving(struct peer *p)
{
	null_call(p->good);
	raw_null_call(p->ep, p->xid++);
	ck_assert_ptr_eq(atomic_load(&last_xprt), p->x);
}

static void peer_start(struct peer *p)
{
	struct rpcrdma_opts o;

	memset(p, 0, sizeof(*p));
	rpcrdma_opts_default(&o);
	o.max_msg = MAX_MSG;
	o.credits = 8;
	o.inline_send = SRV_INLINE_SEND;
	srv_start_opts(&p->s, &o);
	p->good = clnt_by_netid(p->s.port);
	null_call(p->good);
	p->d = mkdata(27, BLOB);
	p->xid = 0x27000000;
}

static void peer_connect(struct peer *p)
{
	p->ep = raw_connect(p->s.port);
	raw_null_call(p->ep, p->xid++);
	p->x = atomic_load(&last_xprt);
	p->mr_d = raw_reg(p->ep, p->d, BLOB, RPCRDMA_ACCESS_REMOTE_READ,
			  &p->hd);
}

static void peer_disconnect(struct peer *p)
{
	rpcrdma_mr_dereg(p->mr_d);
	rpcrdma_ep_destroy(p->ep);
	p->ep = NULL;
}

/*
 * A read chunk whose position lies past the inline body (44 bytes here),
 * near the top of the position space too; and overlapping read chunks,
 * the second starting inside the first's bytes. The header is valid, the
 * chunks do not fit the Payload stream: GARBAGE_ARGS (RFC 8166 section
 * 4.5.2, as for any call whose arguments cannot be decoded), never
 * dispatched, and no RDMA Read issued.
 */
static void shapes_positions(struct peer *p)
{
	const uint32_t pos[] = { 4096, 0xfffffffc };
	unsigned int disp = atomic_load(&dispatched);
	struct rpcrdma_stats a = svc_stats_of(p->x), b;
	uint32_t w[64], xid;
	size_t n;

	for (size_t i = 0; i < 2; i++) {
		xid = p->xid++;
		n = put_msg_hdr(w, xid);
		w[n++] = 1; w[n++] = pos[i];
		n = put_seg(w, n, p->hd, BLOB, p->d);
		w[n++] = 0; w[n++] = 0; w[n++] = 0;
		n = put_echo_call(w, n, xid);
		w[n++] = BLOB;
		raw_send(p->ep, w, n);
		expect_garbage_args(p, xid);
	}
	/* Two chunks: 4000 bytes at 44, then 4000 at 48, inside the first
	 * (its bytes run from 44 to 4044 of the rebuilt call). */
	xid = p->xid++;
	n = put_msg_hdr(w, xid);
	w[n++] = 1; w[n++] = 44;
	n = put_seg(w, n, p->hd, 4000, p->d);
	w[n++] = 1; w[n++] = 48;
	n = put_seg(w, n, p->hd, 4000, p->d + 4000);
	w[n++] = 0; w[n++] = 0; w[n++] = 0;
	n = put_echo_call(w, n, xid);
	w[n++] = BLOB;
	raw_send(p->ep, w, n);
	expect_garbage_args(p, xid);

	b = svc_stats_of(p->x);
	ck_assert_uint_eq(b.garbage_args_sent - a.garbage_args_sent, 3);
	ck_assert_uint_eq(b.read_chunks, a.read_chunks);
	ck_assert_uint_eq(b.rdma_read_bytes, a.rdma_read_bytes);
	ck_assert_uint_eq(atomic_load(&dispatched), disp);
	still_serving(p);
}

/*
 * Zero segments: a reply chunk of none is not a chunk (RFC 8166 section
 * 4.2.1.3 says it holds the reply): ERR_CHUNK before anything runs. A
 * write chunk of none is a valid, useless offer (the Linux server echoes
 * it, so do we), but a reply whose item needs it fits nowhere: the
 * 8000-byte ECHO, its argument read from a read chunk, answered with
 * ERR_CHUNK (RFC 8166 section 4.5.3) after it ran.
 */
static void shapes_zero_segments(struct peer *p)
{
	unsigned int disp = atomic_load(&dispatched);
	struct rpcrdma_stats a = svc_stats_of(p->x), b;
	uint32_t w[64], xid;
	size_t n;

	xid = p->xid++;
	n = put_msg_hdr(w, xid);
	w[n++] = 0; w[n++] = 0;
	w[n++] = 1; w[n++] = 0;
	n = put_echo_call(w, n, xid);
	w[n++] = 4; w[n++] = 0x61626364;
	raw_send(p->ep, w, n);
	expect_err_chunk(p, xid);
	ck_assert_uint_eq(atomic_load(&dispatched), disp);

	xid = p->xid++;
	n = put_msg_hdr(w, xid);
	w[n++] = 1; w[n++] = 44;
	n = put_seg(w, n, p->hd, BLOB, p->d);
	w[n++] = 0;
	w[n++] = 1; w[n++] = 0; w[n++] = 0;
	w[n++] = 0;
	n = put_echo_call(w, n, xid);
	w[n++] = BLOB;
	raw_send(p->ep, w, n);
	expect_err_chunk(p, xid);

	b = svc_stats_of(p->x);
	ck_assert_uint_eq(b.err_chunk_sent - a.err_chunk_sent, 2);
	ck_assert_uint_eq(b.read_chunks - a.read_chunks, 1);
	ck_assert_uint_eq(atomic_load(&dispatched) - disp, 1);
	still_serving(p);
}

/*
 * Read segments whose lengths sum past the budget: four of 20000 bytes in
 * one chunk (80000 > max_msg 65536, each alone under it); two of
 * 0x80000000 and 0x80000004 (their 32-bit sum is 4); 0xffffffff and 2 (1
 * in 32 bits). Each refused with ERR_CHUNK before any RDMA Read.
 */
static void shapes_read_sums(struct peer *p)
{
	const uint32_t pairs[][2] = { { 0x80000000u, 0x80000004u },
				      { 0xffffffffu, 2 } };
	struct rpcrdma_stats a = svc_stats_of(p->x), b;
	uint32_t w[96], xid;
	size_t n;

	xid = p->xid++;
	n = put_msg_hdr(w, xid);
	for (int i = 0; i < 4; i++) {
		w[n++] = 1; w[n++] = 44;
		n = put_seg(w, n, p->hd, 20000, p->d);
	}
	w[n++] = 0; w[n++] = 0; w[n++] = 0;
	n = put_echo_call(w, n, xid);
	w[n++] = 80000;
	raw_send(p->ep, w, n);
	expect_err_chunk(p, xid);

	for (size_t i = 0; i < 2; i++) {
		xid = p->xid++;
		n = put_msg_hdr(w, xid);
		w[n++] = 1; w[n++] = 44;
		n = put_seg(w, n, p->hd, pairs[i][0], p->d);
		w[n++] = 1; w[n++] = 44;
		n = put_seg(w, n, p->hd, pairs[i][1], p->d);
		w[n++] = 0; w[n++] = 0; w[n++] = 0;
		n = put_echo_call(w, n, xid);
		w[n++] = pairs[i][0] + pairs[i][1];
		raw_send(p->ep, w, n);
		expect_err_chunk(p, xid);
	}
	b = svc_stats_of(p->x);
	ck_assert_uint_eq(b.err_chunk_sent - a.err_chunk_sent, 3);
	ck_assert_uint_eq(b.read_chunks, a.read_chunks);
	ck_assert_uint_eq(b.rdma_read_bytes, a.rdma_read_bytes);
	still_serving(p);
}

/*
 * A reply larger than the server's inline threshold (1024) to a call that
 * offered neither a write list nor a reply chunk: a 3000-byte ECHO sent
 * inline (it fits the server's 4096-byte receive). The procedure runs,
 * its reply fits nowhere: ERR_CHUNK (RFC 8166 section 4.5.3), nothing
 * written past the send buffer (ASan builds check that too).
 */
static void shapes_reply_too_big(struct peer *p)
{
	enum { N = 3000 };
	static uint32_t w[32 + N / 4];
	unsigned int disp = atomic_load(&dispatched);
	struct rpcrdma_stats a = svc_stats_of(p->x), b;
	struct iovec iov;
	uint32_t xid = p->xid++;
	size_t n = 0;

	w[n++] = htonl(xid); w[n++] = htonl(1); w[n++] = htonl(1);
	w[n++] = 0; w[n++] = 0; w[n++] = 0; w[n++] = 0;
	{
		uint32_t h[10];

		put_echo_call(h, 0, xid);
		for (int i = 0; i < 10; i++)
			w[n++] = htonl(h[i]);
	}
	w[n++] = htonl(N);
	memcpy(&w[n], p->d, N);
	n += N / 4;
	iov.iov_base = w;
	iov.iov_len = n * 4;
	ck_assert_int_eq(rpcrdma_ep_send(p->ep, &iov, 1, 0), 0);
	expect_err_chunk(p, xid);
	b = svc_stats_of(p->x);
	ck_assert_uint_eq(b.err_chunk_sent - a.err_chunk_sent, 1);
	ck_assert_uint_eq(atomic_load(&dispatched) - disp, 1);
	still_serving(p);
}

/*
 * Segments whose offset + length passes 2^64, in the read list, a write
 * chunk and the reply chunk: refused by the header decoder with ERR_CHUNK
 * (RPCRDMA_HDR_ESEGWRAP), never dispatched, nothing read or written.
 */
static void shapes_offset_wrap(struct peer *p)
{
	const uint64_t top = UINT64_MAX - 4095;
	unsigned int disp = atomic_load(&dispatched);
	struct rpcrdma_stats a = svc_stats_of(p->x), b;
	uint32_t w[64], xid;
	size_t n;

	for (int shape = 0; shape < 3; shape++) {
		xid = p->xid++;
		n = put_msg_hdr(w, xid);
		if (shape == 0) {
			w[n++] = 1; w[n++] = 44;
			n = put_seg_at(w, n, p->hd, BLOB, top);
		}
		w[n++] = 0;
		if (shape == 1) {
			w[n++] = 1; w[n++] = 1;
			n = put_seg_at(w, n, p->hd, BLOB, top);
		}
		w[n++] = 0;
		if (shape == 2) {
			w[n++] = 1; w[n++] = 1;
			n = put_seg_at(w, n, p->hd, BLOB, top);
		} else {
			w[n++] = 0;
		}
		n = put_echo_call(w, n, xid);
		w[n++] = shape == 0 ? BLOB : 0;
		raw_send(p->ep, w, n);
		expect_err_chunk(p, xid);
	}
	b = svc_stats_of(p->x);
	ck_assert_uint_eq(b.err_chunk_sent - a.err_chunk_sent, 3);
	ck_assert_uint_eq(b.bad_headers - a.bad_headers, 3);
	ck_assert_uint_eq(b.read_chunks, a.read_chunks);
	ck_assert_uint_eq(b.rdma_read_bytes, a.rdma_read_bytes);
	ck_assert_uint_eq(b.rdma_write_bytes, a.rdma_write_bytes);
	ck_assert_uint_eq(atomic_load(&dispatched), disp);
	still_serving(p);
}

START_TEST(test_cve_2026_shapes)
{
	struct proc_idle idle;
	struct peer p;

	int fd0;

	peer_start(&p);
	/* One connection and disconnection first: what the first one
	 * allocates for good (the device list, the listener's caches) is
	 * not a leak. Idle is when the server has closed its end too. */
	fd0 = open_fds();
	peer_connect(&p);
	peer_disconnect(&p);
	for (int i = 0; i < 200 && open_fds() > fd0; i++)
		usleep(50000);
	proc_idle_take(&idle);

	peer_connect(&p);
	shapes_positions(&p);
	shapes_zero_segments(&p);
	shapes_read_sums(&p);
	shapes_reply_too_big(&p);
	shapes_offset_wrap(&p);
	{
		struct rpcrdma_stats st = svc_stats_of(p.x);

		stats_print("t_svc_cve: server", &st);
	}
	peer_disconnect(&p);
	null_call(p.good);
	proc_idle_check("t_svc_cve", &idle, 10000);

	clnt_destroy(p.good);
	free(p.d);
	srv_stop(&p.s);
}
END_TEST

void t_svc_add_cve(TCase *tc)
{
	tcase_add_test(tc, test_cve_2026_shapes);
}
