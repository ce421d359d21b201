/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest test of the SVCXPRT side (xprt_rdma/svc_rdma.c, netid.c, rpcb.c):
 * a server on $RPCRDMA_ADDR_B in a thread looping on svc_getreq_poll, and
 * clients from $RPCRDMA_ADDR_A made the unmodified way, by
 * clnt_create(host, prog, vers, "rdma"). Crafted transport headers sent
 * through a raw engine endpoint must be answered with the exact RDMA_ERROR
 * bytes of RFC 8166 section 4.2.4 while the connection stays usable.
 * When rpcbind is installed, a private one is started (its own /run) and
 * the port is found through it.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <rpc/rpc.h>
#include <rpc/rpcb_clnt.h>
#include <rpcrdma/rpcrdma.h>
#include <rpcrdma/hdr.h>
#include "../../xprt_rdma/xprt.h"
#include "harness.h"

START_TEST(test_netid_calls)
{
	static const size_t sizes[] = { 0, 1, 4, 1000, 3000, 4096, 5000,
					65536, 262144 };
	struct srv s;
	CLIENT *cl;
	SVCXPRT *x;
	int fd;

	srv_start(&s, 0);
	cl = clnt_by_netid(s.port);
	ck_assert_str_eq(cl->cl_netid, "rdma");
	null_call(cl);
	x = atomic_load(&last_xprt);
	ck_assert_ptr_nonnull(x);
	ck_assert_ptr_ne(x, s.lsn);
	ck_assert_str_eq(x->xp_netid, "rdma");
	/* svc_getcaller / xp_rtaddr: the client's source address. */
	{
		struct sockaddr_in *sin =
			(struct sockaddr_in *)svc_getrpccaller(x)->buf;
		char buf[INET_ADDRSTRLEN];

		ck_assert_int_eq(sin->sin_family, AF_INET);
		inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof(buf));
		ck_assert_str_eq(buf, addr_a);
		ck_assert_int_eq(svc_getcaller(x)->sin6_family, AF_INET);
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		ck_assert_ptr_eq(echo(cl, sizes[i], (uint32_t)i), x);
	echo_path(cl, 1000, false);
	echo_path(cl, 65536, true);
	/* The client's disconnect destroys the server's transport. */
	fd = x->xp_fd;
	ck_assert(fd_registered(fd));
	clnt_destroy(cl);
	for (int i = 0; i < 100 && fd_registered(fd); i++)
		usleep(50000);
	ck_assert_msg(!fd_registered(fd), "connection transport not destroyed");
	srv_stop(&s);
}
END_TEST

START_TEST(test_many_clients)
{
	enum { N = 4 };
	CLIENT *cl[N];
	SVCXPRT *x[N];
	struct srv s;

	srv_start(&s, 0);
	for (int i = 0; i < N; i++)
		cl[i] = clnt_by_netid(s.port);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < N; i++) {
			SVCXPRT *got = echo(cl[i], 2000 + 3000 * i, i);

			if (round == 0)
				x[i] = got;
			ck_assert_ptr_eq(got, x[i]);
		}
	}
	for (int i = 0; i < N; i++)
		for (int j = i + 1; j < N; j++)
			ck_assert_ptr_ne(x[i], x[j]);
	for (int i = 0; i < N; i++)
		clnt_destroy(cl[i]);
	srv_stop(&s);
}
END_TEST

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

/* ---- rpcbind ---- */

static pid_t rpcbind_pid = -1;

/*
 * Under LeakSanitizer: libtirpc 1.3.3 itself leaks the 16-byte netbuf of
 * its rpcbind client setup (here through svc_unreg -> rpcb_unset). Not
 * ours; only stacks through rpcb_unset are ignored, with full unwinding
 * because libtirpc has no frame pointers.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:rpcb_unset\n";
}

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

static bool rpcbind_answers(void)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(111);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

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

/* rpcbind -f (not -w: no saved registrations) with a private /run. */
static const char *rpcbind_start(void)
{
	if (access("/usr/sbin/rpcbind", X_OK) != 0)
		return "rpcbind not installed";
	if (rpcbind_answers())
		return NULL;	/* one is already there */
	rpcbind_pid = fork();
	if (rpcbind_pid < 0)
		return "fork failed";
	if (rpcbind_pid == 0) {
		if (unshare(CLONE_NEWNS) == 0 &&
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
			mount("tmpfs", "/run", "tmpfs", 0, "mode=0755");
		execl("/usr/sbin/rpcbind", "rpcbind", "-f", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100; i++) {
		if (rpcbind_answers())
			return NULL;
		usleep(50000);
	}
	return "rpcbind did not start";
}

START_TEST(test_rpcbind)
{
	uint16_t port = 0, port2;
	struct srv s;
	CLIENT *cl;

	/* rpcrdma_svc_reg registered B.port under "rdma". */
	srv_start(&s, 0);
	ck_assert_int_eq(rpcrdma_rpcb_lookup(addr_b, T_PROG, T_VERS, "rdma",
					     &port), 0);
	ck_assert_uint_eq(port, s.port);
	/* A client with no port finds it there. */
	unsetenv("RPCRDMA_PORT");
	setenv("RPCRDMA_SRCADDR", addr_a, 1);
	cl = clnt_create(addr_b, T_PROG, T_VERS, "rdma");
	ck_assert_msg(cl != NULL, "clnt_create via rpcbind: %s",
		      clnt_spcreateerror("clnt"));
	null_call(cl);
	echo(cl, 5000, 9);
	clnt_destroy(cl);

	/* svc_create(..., "rdma") as rpcgen's main does: any address. */
	port2 = port_new();
	{
		char p[8];

		snprintf(p, sizeof(p), "%u", port2);
		setenv("RPCRDMA_PORT", p, 1);
	}
	ck_assert_int_eq(svc_create(dispatch, T_PROG2, T_VERS, "rdma"), 1);
	ck_assert_int_eq(rpcrdma_rpcb_lookup(addr_b, T_PROG2, T_VERS, "rdma",
					     &port), 0);
	ck_assert_uint_eq(port, port2);
	unsetenv("RPCRDMA_PORT");
	cl = clnt_create(addr_b, T_PROG2, T_VERS, "rdma");
	ck_assert_msg(cl != NULL, "clnt_create prog2: %s",
		      clnt_spcreateerror("clnt"));
	null_call(cl);
	clnt_destroy(cl);

	/*
	 * What an "rpcgen -n rdma" main does: getnetconfigent,
	 * svc_tli_create(RPC_ANYFD, ...), rpcb_unset, svc_reg with the
	 * netconfig; here bound to B and a port of our own.
	 */
	{
		struct netconfig *nc = getnetconfigent("rdma");
		struct sockaddr_in sin;
		struct t_bind tb;
		SVCXPRT *x;

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons(port_new());
		inet_pton(AF_INET, addr_b, &sin.sin_addr);
		tb.addr.buf = &sin;
		tb.addr.len = tb.addr.maxlen = sizeof(sin);
		tb.qlen = 8;
		ck_assert_ptr_nonnull(nc);
		x = svc_tli_create(RPC_ANYFD, nc, &tb, 0, 0);
		ck_assert_ptr_nonnull(x);
		ck_assert_str_eq(x->xp_netid, "rdma");
		ck_assert_uint_eq(x->xp_port, ntohs(sin.sin_port));
		rpcb_unset(T_PROG3, T_VERS, nc);
		ck_assert(svc_reg(x, T_PROG3, T_VERS, dispatch, nc));
		ck_assert_int_eq(rpcrdma_rpcb_lookup(addr_b, T_PROG3, T_VERS,
						     "rdma", &port), 0);
		ck_assert_uint_eq(port, ntohs(sin.sin_port));
		cl = clnt_create(addr_b, T_PROG3, T_VERS, "rdma");
		ck_assert_msg(cl != NULL, "clnt_create prog3: %s",
			      clnt_spcreateerror("clnt"));
		echo(cl, 100, 3);
		clnt_destroy(cl);
		ck_assert(rpcb_unset(T_PROG3, T_VERS, nc));
		svc_unreg(T_PROG3, T_VERS);
		freenetconfigent(nc);
	}

	ck_assert_int_eq(rpcrdma_rpcb_unset(T_PROG, T_VERS, "rdma"), 0);
	ck_assert_int_eq(rpcrdma_rpcb_lookup(addr_b, T_PROG, T_VERS, "rdma",
					     &port), -ENOENT);
	ck_assert_int_eq(rpcrdma_rpcb_unset(T_PROG2, T_VERS, "rdma"), 0);
	svc_unreg(T_PROG2, T_VERS);
	srv_stop(&s);
}
END_TEST

/*
 * SVCGET_RDMA_LIMITS: what a server sizes its transfers by, its xp_fd
 * being no socket. The listener reports what it advertises; a connection
 * what RFC 8797 negotiation gave (each side's Send size is the smaller of
 * its own and the peer's Receive size), the same as the client's view
 * turned around.
 */
START_TEST(test_limits)
{
	struct rpcrdma_svc_limits l, bad;
	struct rpcrdma_opts so, co;
	struct rpcrdma_inline ci;
	struct srv s;
	CLIENT *cl;
	SVCXPRT *x;
	int v;
	socklen_t vl = sizeof(v);

	rpcrdma_opts_default(&so);
	so.inline_send = 4096;
	so.inline_recv = 16384;
	so.credits = 8;
	so.max_msg = 256 << 10;
	srv_start_opts(&s, &so);
	ck_assert(SVC_CONTROL(s.lsn, SVCGET_RDMA_LIMITS, &l));
	ck_assert(!l.connected);
	ck_assert_uint_eq(l.max_call, 256 << 10);
	ck_assert_uint_eq(l.max_reply, 256 << 10);
	ck_assert_uint_eq(l.inline_send, 4096);
	ck_assert_uint_eq(l.inline_recv, 16384);
	ck_assert_uint_eq(l.credits, 8);
	ck_assert_uint_eq(l.ddp_threshold, RPCRDMA_DDP_THRESHOLD);

	rpcrdma_opts_default(&co);
	co.port = s.port;
	co.inline_send = 2048;
	co.inline_recv = 8192;
	cl = clnt_rdma_create(addr_b, T_PROG, T_VERS, &co);
	ck_assert_ptr_nonnull(cl);
	null_call(cl);
	ck_assert(clnt_control(cl, CLGET_RDMA_INLINE, (char *)&ci));
	x = atomic_load(&last_xprt);
	ck_assert_ptr_nonnull(x);
	ck_assert_int_eq(rpcrdma_svc_limits(x, &l), 0);
	ck_assert(l.connected);
	ck_assert_uint_eq(l.max_call, 256 << 10);
	ck_assert_uint_eq(l.inline_send, 4096);	/* min(4096, 8192) */
	ck_assert_uint_eq(l.inline_recv, 2048);	/* min(16384, 2048) */
	ck_assert_uint_eq(l.inline_send, ci.recv_max);
	ck_assert_uint_eq(l.inline_recv, ci.send_max);
	ck_assert_uint_eq(l.credits, 8);
	ck_assert_int_eq(l.remote_inv, ci.remote_inv_in);
	/* What a socket-minded server would try instead. */
	errno = 0;
	ck_assert_int_eq(getsockopt(x->xp_fd, SOL_SOCKET, SO_RCVBUF, &v, &vl),
			 -1);
	ck_assert_int_eq(errno, ENOTSOCK);
	ck_assert(!SVC_CONTROL(x, 0x5399, &bad));
	ck_assert_int_eq(rpcrdma_svc_limits(NULL, &l), -EINVAL);
	ck_assert_int_eq(rpcrdma_svc_limits(x, NULL), -EINVAL);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("svc_rdma");
	TCase *tc = tcase_create("svc");
	const char *why;
	int rc;

	if (!guest_addrs("t_svc"))
		return 77;
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_netid_calls);
	tcase_add_test(tc, test_many_clients);
	tcase_add_test(tc, test_bad_headers);
	tcase_add_test(tc, test_ddp_read_chunk);
	tcase_add_test(tc, test_reply_hints);
	tcase_add_test(tc, test_ddp);
	tcase_add_test(tc, test_write_chunk_raw);
	tcase_add_test(tc, test_read_chunk_checked_first);
	tcase_add_test(tc, test_no_read_resources);
	tcase_add_test(tc, test_empty_write_chunk);
	tcase_add_test(tc, test_limits);
	suite_add_tcase(su, tc);
	why = rpcbind_start();
	if (!why) {
		tc = tcase_create("rpcbind");
		tcase_set_timeout(tc, 120);
		tcase_add_test(tc, test_rpcbind);
		suite_add_tcase(su, tc);
	} else {
		printf("t_svc: SKIP test_rpcbind: %s\n", why);
	}
	rc = run_suite(su);
	if (rpcbind_pid > 0) {
		kill(rpcbind_pid, SIGTERM);
		waitpid(rpcbind_pid, NULL, 0);
	}
	return rc;
}
