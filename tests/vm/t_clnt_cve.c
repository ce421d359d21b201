/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_clnt: the Linux kernel's 2026 RPC-over-RDMA client CVE shapes (issue
 * 27; the server's are t_svc_cve.c). A raw server (raw_pair) sends, while
 * a call of the CLIENT waits, one message at a time, the CLIENT's
 * counters checked after each (test_cve_2026_client_shapes):
 *   - backward-call-shaped messages (RFC 8167 section 4) whose RPC
 *     payload is shorter than an XID and msg_type, or claims CALL and is
 *     cut inside the call header or a credential (the kernel read the
 *     msg_type word past a short payload);
 *   - an RDMA_MSG naming the call's XID, shorter than an RPC reply header;
 *   - an RDMA_NOMSG naming the call's XID whose reply chunk echoes more
 *     than the call offered, or no segment;
 *   - messages shorter than the fixed header, RDMA_ERRORs cut short.
 * Then a server that stops reposting its receives while the CLIENT fills
 * its send ring: every stalled Send arrives intact once they are
 * (test_cve_2026_send_buffers; the kernel freed a send buffer the adapter
 * still read). Afterwards the process's descriptors, RDMA objects and
 * heap are back where they were.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procself.h"
#include "t_clnt.h"

#define BC_PROG	400122u

/* The counters each message must move exactly (and no other of them). */
#define CTR(f) { #f, offsetof(struct rpcrdma_stats, f) }
static const struct {
	const char *name;
	size_t off;
} ctrs[] = {
	CTR(recv_msg), CTR(recv_nomsg), CTR(recv_error), CTR(err_vers_recv),
	CTR(err_chunk_recv), CTR(bad_headers), CTR(replies_unmatched),
	CTR(replies_inline), CTR(replies_long), CTR(bc_calls_recv),
	CTR(bc_calls_dropped), CTR(bc_replies_sent), CTR(connects),
	CTR(disconnects),
};
#define NCTRS (sizeof(ctrs) / sizeof(ctrs[0]))

struct cve {
	struct raw_pair p;
	struct rpcrdma_msg m;		/* the call that waits */
	struct rpcrdma_stats want;	/* the CLIENT's counters, expected */
};

static uint64_t ctr(const struct rpcrdma_stats *st, size_t i)
{
	uint64_t v;

	memcpy(&v, (const char *)st + ctrs[i].off, sizeof(v));
	return v;
}

/*
 * The CLIENT's counters reach c->want (its poller dispatches messages in
 * their order), then equal it. Waiting for each message also paces the
 * raw server: the client asks rnr_retry_count 0 of it, so a Send beyond
 * the receives it reposts would end the connection.
 */
static void want_reached(struct cve *c, const char *what)
{
	struct rpcrdma_stats st;
	bool same;

	for (int t = 0;; t++) {
		st = stats_of(c->p.c.cl);
		same = true;
		for (size_t i = 0; i < NCTRS; i++)
			same &= ctr(&st, i) == ctr(&c->want, i);
		if (same || t == 500)
			break;
		usleep(10000);
	}
	for (size_t i = 0; i < NCTRS; i++)
		ck_assert_msg(ctr(&st, i) == ctr(&c->want, i),
			      "%s: %s %llu, want %llu", what, ctrs[i].name,
			      (unsigned long long)ctr(&st, i),
			      (unsigned long long)ctr(&c->want, i));
}

/* n host-order words cut to len bytes, sent as one message. */
static void send_cut(struct raw_pair *p, const uint32_t *w, size_t n,
		     size_t len)
{
	uint32_t be[24];
	struct iovec iov = { be, len };

	ck_assert_uint_le(n, 24);
	ck_assert_uint_le(len, n * 4);
	for (size_t i = 0; i < n; i++)
		be[i] = htonl(w[i]);
	ck_assert_int_eq(rpcrdma_ep_send(p->a.ep, &iov, 1, 0), 0);
}

static void send_words(struct raw_pair *p, const uint32_t *w, size_t n)
{
	send_cut(p, w, n, n * 4);
}

/* The fixed header (RFC 8166 section 4.2): xid, version 1, credits, proc. */
static size_t put_hdr(uint32_t *w, uint32_t xid, uint32_t cr, uint32_t proc)
{
	w[0] = xid; w[1] = 1; w[2] = cr; w[3] = proc;
	return 4;
}

/* RDMA_MSG with the three chunk lists empty: 28 bytes. */
static size_t put_msg(uint32_t *w, uint32_t xid, uint32_t cr)
{
	size_t n = put_hdr(w, xid, cr, RPCRDMA_MSG);

	w[n++] = 0; w[n++] = 0; w[n++] = 0;
	return n;
}

/* One connection, call and close first: what the first allocates for
 * good (the device list, libtirpc's state) is not a leak. */
static void warm_up(void)
{
	struct rpcrdma_msg m;
	struct raw_pair p;

	raw_pair_open(&p);
	raw_pair_call(&p, &m);
	raw_pair_reply(&p, &m, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	raw_pair_close(&p);
}

/*
 * Backward-call shapes naming no call of ours (rdma_xid x). RFC 8167
 * section 4: a backward call is an RDMA_MSG with every list empty whose
 * RPC message has msg_type CALL. With fewer than 8 payload bytes there
 * is no msg_type to look at (the kernel read it past the payload): the
 * message is taken for a reply, and no call has its XID (unmatched).
 * With 8 bytes and more and CALL it goes to the backward side, where a
 * call header that does not parse within the payload (cut after
 * msg_type, rpcvers, the program; a credential of 400 bytes with 8
 * present, or of 2^32 - 1, which RNDUP wraps to 0; a verifier cut) is
 * dropped unanswered: this CLIENT has no backward service, which would
 * answer a whole header PROG_UNAVAIL.
 */
static void shapes_bc_calls(struct cve *c, uint32_t x)
{
	static const struct {
		uint32_t n, w[10];
	} cut[] = {
		{ 0, { 0 } },
		{ 1, { 0 } },
		{ 2, { 0, CALL } },
		{ 3, { 0, CALL, 2 } },
		{ 5, { 0, CALL, 2, BC_PROG, 1 } },
		{ 10, { 0, CALL, 2, BC_PROG, 1, 0, AUTH_SYS, 400, 7, 7 } },
		{ 10, { 0, CALL, 2, BC_PROG, 1, 0, AUTH_SYS, ~0u, 0, 0 } },
		{ 9, { 0, CALL, 2, BC_PROG, 1, 0, 0, 0, 0 } },
		{ 10, { 0, CALL, 2, BC_PROG, 1, 0, 0, 0, 0, 400 } },
	};
	uint32_t w[24];
	size_t n;

	for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		n = put_msg(w, x + (uint32_t)i, 2);
		memcpy(&w[n], cut[i].w, cut[i].n * 4);
		if (cut[i].n)
			w[n] = x + (uint32_t)i;
		send_words(&c->p, w, n + cut[i].n);
		c->want.recv_msg++;
		if (cut[i].n < 2)
			c->want.replies_unmatched++;
		else
			c->want.bc_calls_dropped++;
		want_reached(c, "a cut backward call");
	}
}

/*
 * Runts: 1 to 27 bytes of an RDMA_MSG header. Under 16 bytes (the fixed
 * part, RFC 8166 section 4.2) nothing says which call one names, even
 * when its first word is the waiting call's XID: dropped as bad headers.
 * From 16 bytes on the XID is known (x: no call's) and the chunk lists
 * are cut: bad headers too. Then RDMA_ERRORs (section 5) cut short: no
 * code (ERR_CHUNK has no body beyond its code), ERR_VERS without one or
 * both versions, an unknown code: bad headers; and, whole, ERR_VERS and
 * ERR_CHUNK, counted by code and matching no call.
 */
static void shapes_runts(struct cve *c, uint32_t x)
{
	static const struct {
		uint32_t n, w[3];
		int whole;	/* 0: cut, else the code */
	} errs[] = {
		{ 0, { 0 }, 0 },
		{ 1, { RPCRDMA_ERR_VERS }, 0 },
		{ 2, { RPCRDMA_ERR_VERS, 1 }, 0 },
		{ 1, { 3 }, 0 },
		{ 3, { RPCRDMA_ERR_VERS, 1, 1 }, RPCRDMA_ERR_VERS },
		{ 1, { RPCRDMA_ERR_CHUNK }, RPCRDMA_ERR_CHUNK },
	};
	uint32_t w[8];
	size_t n;

	for (size_t len = 1; len < RPCRDMA_HDR_MIN; len++) {
		n = put_msg(w, len < RPCRDMA_HDR_FIXED ? c->m.xid : x, 1);
		send_cut(&c->p, w, n, len);
		c->want.bad_headers++;
		want_reached(c, "a runt");
	}
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		n = put_hdr(w, x, 1, RPCRDMA_ERROR);
		memcpy(&w[n], errs[i].w, errs[i].n * 4);
		send_words(&c->p, w, n + errs[i].n);
		if (!errs[i].whole) {
			c->want.bad_headers++;
		} else {
			c->want.recv_error++;
			c->want.replies_unmatched++;
			if (errs[i].whole == RPCRDMA_ERR_VERS)
				c->want.err_vers_recv++;
			else
				c->want.err_chunk_recv++;
		}
		want_reached(c, "an RDMA_ERROR");
	}
}

/*
 * The waiting call got a bad message naming its XID: it fails with
 * RPC_CANTDECODERES (ct_dispatch: a bad header or a reply its offer
 * refuses ends the call -EBADMSG, before any byte of it is used; a reply
 * that does not decode as an RPC reply likewise, in ct_decode). The real
 * reply then comes after the call ended: no call has its XID (RFC 8166
 * section 3.3.1: nor is its grant taken), counted when the next call
 * polls.
 */
static void bad_reply_done(struct cve *c, const char *what)
{
	want_reached(c, what);
	ck_assert_int_eq(raw_pair_result(&c->p), RPC_CANTDECODERES);
	raw_pair_reply(&c->p, &c->m, 0, 0);
	c->want.recv_msg++;
	c->want.replies_unmatched++;
}

/*
 * Messages naming the waiting call, one call each:
 *  - RDMA_MSG, lists empty, with 0, 4 or 12 bytes of an RPC reply header
 *    (xid, REPLY, MSG_ACCEPTED and no verifier): the transport takes it
 *    as the call's inline reply (replies_inline), the RPC decoder refuses
 *    it. Before the first, a payload of its XID and msg_type CALL: a
 *    backward call (RFC 8167 section 4), never a reply, dropped, and the
 *    call waits on;
 *  - RDMA_NOMSG whose reply chunk echoes the offered segment with 4 bytes
 *    more than it holds (RFC 8166 section 3.5.4: the reply is the sum of
 *    the echoed lengths, which the offer bounds): refused against the
 *    offer, nothing read; with 2^32 - 4 bytes, past every header's chunk
 *    total: a bad header; with no segment (section 4.2.1.3: a reply chunk
 *    holds the reply): a bad header;
 *  - ERR_VERS without its high version: a bad header, not the
 *    RPC_SYSTEMERROR a whole ERR_VERS gives.
 */
static void shapes_own_xid(struct cve *c)
{
	static const uint32_t lens[] = { 0, 4, 12 };
	struct rpcrdma_segment g;
	uint32_t w[24];
	size_t n;

	for (size_t i = 0; i < 3; i++) {
		raw_pair_call(&c->p, &c->m);
		if (i == 0) {
			n = put_msg(w, c->m.xid, c->m.credits);
			w[n++] = c->m.xid; w[n++] = CALL;
			send_words(&c->p, w, n);
			c->want.recv_msg++;
			c->want.bc_calls_dropped++;
			want_reached(c, "a CALL with the call's XID");
		}
		n = put_msg(w, c->m.xid, c->m.credits);
		w[n++] = c->m.xid; w[n++] = REPLY; w[n++] = MSG_ACCEPTED;
		send_cut(&c->p, w, n, RPCRDMA_HDR_MIN + lens[i]);
		c->want.recv_msg++;
		c->want.replies_inline++;
		bad_reply_done(c, "a reply shorter than its header");
	}
	for (int k = 0; k < 3; k++) {
		raw_pair_call(&c->p, &c->m);
		g = c->m.segs[c->m.reply.first];
		n = put_hdr(w, c->m.xid, c->m.credits, RPCRDMA_NOMSG);
		w[n++] = 0; w[n++] = 0; w[n++] = 1;	/* a reply chunk */
		if (k == 2) {
			w[n++] = 0;
		} else {
			w[n++] = 1;
			w[n++] = g.handle;
			w[n++] = k == 0 ? g.length + 4 : 0xfffffffcu;
			w[n++] = (uint32_t)(g.offset >> 32);
			w[n++] = (uint32_t)g.offset;
		}
		send_words(&c->p, w, n);
		if (k == 0)
			c->want.recv_nomsg++;
		else
			c->want.bad_headers++;
		bad_reply_done(c, "a reply chunk not as offered");
	}
	raw_pair_call(&c->p, &c->m);
	n = put_hdr(w, c->m.xid, c->m.credits, RPCRDMA_ERROR);
	w[n++] = RPCRDMA_ERR_VERS; w[n++] = 1;
	send_words(&c->p, w, n);
	c->want.bad_headers++;
	bad_reply_done(c, "a cut ERR_VERS naming the call");
}

/*
 * Every shape is consumed by its receive, which is reposted: none leaves
 * the connection in a state it must be dropped for (no Send With
 * Invalidate, no credit taken), so the same connection carries the next
 * call (connects stays 1, disconnects 0; the raw listener would accept
 * no other anyway).
 */
START_TEST(test_cve_2026_client_shapes)
{
	struct rpcrdma_stats st;
	struct proc_idle idle;
	struct cve c;

	warm_up();
	proc_idle_take(&idle);
	raw_pair_open(&c.p);
	c.want = stats_of(c.p.c.cl);
	/* Junk naming no call: the call waits through all of it and takes
	 * its real reply. */
	raw_pair_call(&c.p, &c.m);
	shapes_bc_calls(&c, c.m.xid + 0x10000);
	shapes_runts(&c, c.m.xid + 0x20000);
	raw_pair_reply(&c.p, &c.m, 0, 0);
	c.want.recv_msg++;
	c.want.replies_inline++;
	ck_assert_int_eq(raw_pair_result(&c.p), RPC_SUCCESS);
	want_reached(&c, "the real reply");
	shapes_own_xid(&c);
	raw_pair_call(&c.p, &c.m);
	raw_pair_reply(&c.p, &c.m, 0, 0);
	c.want.recv_msg++;
	c.want.replies_inline++;
	ck_assert_int_eq(raw_pair_result(&c.p), RPC_SUCCESS);
	want_reached(&c, "the next call");
	st = stats_of(c.p.c.cl);
	stats_print("t_clnt_cve: client", &st);
	raw_pair_close(&c.p);
	proc_idle_check("t_clnt_cve", &idle, 2000);
}
END_TEST

/* Every backward call sent up to n was dispatched: taken or dropped. */
static void bc_dispatched(CLIENT *cl, uint32_t n)
{
	struct rpcrdma_stats st = stats_of(cl);

	for (int t = 0; st.bc_calls_recv + st.bc_calls_dropped < n; t++) {
		ck_assert_msg(t < 500, "%u backward calls sent, %llu taken",
			      n, (unsigned long long)(st.bc_calls_recv +
						      st.bc_calls_dropped));
		usleep(10000);
		st = stats_of(cl);
	}
}

/*
 * Send buffers stay the adapter's until their Send completed. The raw
 * server stops reposting its receives (9: credits 1) and asks the
 * client's QP to retry RNR for ever (7 on rxe), then sends 64 backward
 * calls while one call of the CLIENT waits; the CLIENT has no backward
 * service and answers each PROG_UNAVAIL (RFC 8167 section 4.2). Past the
 * server's receives the answers stall in the client's send queue until
 * its send ring is full (the calls beyond the grant then dropped,
 * RFC 8167 section 3.3). Then the server reposts: every stalled answer
 * arrives, each exactly the answer to its own call, in the order of the
 * calls, none twice. rxe rebuilds a retried Send from its buffer (the
 * engine posts no inline data), so a buffer reused while its Send still
 * waited would have arrived as another answer (a repeated or misordered
 * XID). The waiting call then takes its reply and the next call goes on
 * the same connection. Not on iWARP, which has no RNR.
 */
START_TEST(test_cve_2026_send_buffers)
{
	enum { NBC = 64, BCX = 0x27000000 };
	uint32_t ans[13] = { 0, 1, RPCRDMA_BC_CREDITS, RPCRDMA_MSG, 0, 0, 0,
			     0, REPLY, MSG_ACCEPTED, 0, 0, PROG_UNAVAIL };
	uint32_t w[24], got = 0, last = 0;
	struct rpcrdma_stats a, b;
	struct rpcrdma_msg m;
	struct rpcrdma_rx rx;
	struct raw_pair p;
	struct proc_idle idle;

	if (iwarp) {
		printf("t_clnt: test_cve_2026_send_buffers: no RNR on "
		       "iWARP\n");
		return;
	}
	warm_up();
	proc_idle_take(&idle);
	raw_pair_rnr = 7;
	raw_pair_credits = 1;
	raw_pair_open(&p);
	raw_pair_rnr = 0;
	raw_pair_credits = 0;
	p.c.tmo = (struct timeval){ 30, 0 };
	raw_pair_take(&p, &m);
	for (uint32_t i = 0; i < NBC; i++) {
		size_t n = put_msg(w, BCX + i, 2);

		w[n++] = BCX + i; w[n++] = CALL; w[n++] = 2;
		w[n++] = BC_PROG; w[n++] = 1; w[n++] = 0;
		w[n++] = 0; w[n++] = 0; w[n++] = 0; w[n++] = 0;
		send_words(&p, w, n);
		if (i % 8 == 7)
			bc_dispatched(p.c.cl, i + 1);
	}
	usleep(300000);		/* the poller posts what the ring takes */
	a = stats_of(p.c.cl);
	ck_assert_uint_ge(a.bc_calls_dropped, 1);
	/* The receives come back one by one; every answer taken. */
	while (got < a.bc_calls_recv &&
	       rpcrdma_ep_poll(p.a.ep, &rx, 3000) == 1) {
		uint32_t v[13];

		ck_assert_uint_eq(rx.len, sizeof(v));
		memcpy(v, rx.data, sizeof(v));
		for (int i = 0; i < 13; i++)
			v[i] = ntohl(v[i]);
		ans[0] = ans[7] = v[0];
		ck_assert_msg(!memcmp(v, ans, sizeof(v)) && v[0] >= BCX &&
			      v[0] < BCX + NBC && (got == 0 || v[0] > last),
			      "answer %u: xid %#x after %#x", got, v[0], last);
		last = v[0];
		got++;
		rpcrdma_ep_rx_done(p.a.ep, &rx);
	}
	b = stats_of(p.c.cl);
	printf("t_clnt_cve: %u answers, %llu calls dropped\n", got,
	       (unsigned long long)b.bc_calls_dropped);
	ck_assert_uint_eq(got, a.bc_calls_recv);
	ck_assert_uint_eq(b.bc_calls_recv + b.bc_calls_dropped, NBC);
	ck_assert_uint_eq(b.bc_replies_sent, got);
	raw_pair_reply(&p, &m, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	raw_pair_call(&p, &m);
	raw_pair_reply(&p, &m, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	b = stats_of(p.c.cl);
	ck_assert_uint_eq(b.connects, 1);
	ck_assert_uint_eq(b.disconnects, 0);
	raw_pair_close(&p);
	proc_idle_check("t_clnt_cve", &idle, 2000);
}
END_TEST

void t_clnt_add_cve(TCase *tc)
{
	tcase_add_test(tc, test_cve_2026_client_shapes);
	tcase_add_test(tc, test_cve_2026_send_buffers);
}
