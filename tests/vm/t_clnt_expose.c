/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_clnt: remote invalidation between our client and server
 * (test_remote_invalidation), and what a call exposed being unreachable
 * once clnt_call has returned, whatever ended the call: reply, RPC error,
 * RDMA_ERROR or timeout, with copied or zero-copy read chunks
 * (test_exposure_after_return, over the expo_* helpers).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ep_sync.h"
#include "t_clnt.h"

/*
 * Remote invalidation (RFC 8797 section 4.1) between our client and
 * server: R is agreed exactly where the client exposes memory through
 * windows; a call naming one rkey (its reply window, or its call window
 * for read chunks) gets its reply by Send With Invalidate and needs no
 * local invalidation; a call naming two (read chunks and write chunks)
 * gets a plain Send and both windows are invalidated locally. Where
 * windows are not used (rxe before 6.12) nothing is invalidated: the
 * chunks were registered for the call. On rxe from 6.12 with
 * RPCRDMA_WINDOWS=2 (type 2 windows, R): rxe's own windows are type 1,
 * without R (test_type1_windows).
 */
START_TEST(test_remote_invalidation)
{
	struct rpcrdma_proc_reply hr = { P_HASH, 28 };
	struct rpcrdma_proc_ddp d = { P_ECHO, 1, 65536 };
	struct blob arg = { 65536, mkdata(12, 65536) };
	struct rpcrdma_stats a, b;
	struct rpcrdma_inline in;
	struct srv s;
	CLIENT *cl;
	bool win;

	windows_type2();
	win = windows_expected();
	srv_start(&s, 8, 1u << 20);
	cl = clnt_mk(s.port, 8, 1u << 20);
	ck_assert(clnt_control(cl, CLGET_RDMA_INLINE, (char *)&in));
	ck_assert(in.peer_remote_inv == win);

	/* One rkey: the reply chunk's window, revoked by the server. */
	a = stats_of(cl);
	for (int i = 0; i < 3; i++)
		expect_ok(cl, clnt_call(cl, P_NULL, XP(xdr_void), NULL,
					XP(xdr_void), NULL, tmo), "null");
	b = stats_of(cl);
	ck_assert_uint_eq(b.reply_chunks - a.reply_chunks, 3);
	ck_assert_uint_eq(b.remote_invalidations - a.remote_invalidations,
			  win ? 3 : 0);
	ck_assert_uint_eq(b.local_invalidations, a.local_invalidations);

	/* Read chunks and a reply that fits inline: the call window is
	 * the one rkey, revoked by the server. */
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_REPLY, (char *)&hr));
	for (int i = 0; i < 2; i++) {
		a = stats_of(cl);
		hash_check(cl, &arg);
		b = stats_of(cl);
		ck_assert_uint_eq(b.calls_read_chunks - a.calls_read_chunks,
				  1);
		ck_assert_uint_eq(b.reply_chunks, a.reply_chunks);
		ck_assert_uint_eq(b.remote_invalidations -
					  a.remote_invalidations,
				  win ? 1 : 0);
		ck_assert_uint_eq(b.local_invalidations,
				  a.local_invalidations);
	}

	/* Read chunk, write chunk and reply chunk: two rkeys, a plain
	 * Send, both windows invalidated locally. */
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_DDP, (char *)&d));
	a = stats_of(cl);
	echo_check(cl, 65536, false, true);
	b = stats_of(cl);
	ck_assert_uint_eq(b.replies_write_chunks - a.replies_write_chunks, 1);
	ck_assert_uint_eq(b.remote_invalidations, a.remote_invalidations);
	ck_assert_uint_eq(b.local_invalidations - a.local_invalidations,
			  win ? 2 : 0);
	ck_assert_uint_eq(b.connects, a.connects);
	free(arg.data);
	clnt_destroy(cl);
	srv_stop(&s);
	unsetenv("RPCRDMA_WINDOWS");
}
END_TEST

/*
 * What a call exposed is reachable only while it is in flight (RFC 8166
 * section 3.4; docs/security.md): after clnt_call has returned, a peer on
 * raw verbs that tries RDMA Read on each read-chunk segment and RDMA
 * Write on each write-chunk and reply-chunk segment the call named gets a
 * remote access error (-EACCES: not a timeout, not a success), whether
 * a reply, an RPC error, an RDMA_ERROR or its timeout ended the call: a
 * call abandoned at its timeout must not leave its chunks to the peer
 * until a late reply. There the client revokes them itself, or, where it
 * set R (a late reply's Send With Invalidate could race its local
 * invalidation), resets the connection: the probe then fails with the
 * connection, and the counters show the reset. A failed probe
 * breaks both QPs, so each (outcome, kind) pair has its own connection;
 * while the call waits, the same probes work (they carry the echo's
 * data).
 */
enum expo_kind { EXPO_READ, EXPO_WRITE, EXPO_REPLY, EXPO_KINDS };
enum expo_outcome {
	EXPO_SUCCESS,		/* the echo, its data in the write chunk */
	EXPO_PROC_UNAVAIL,	/* an RPC error reply */
	EXPO_RDMA_ERROR,	/* RDMA_ERROR (ERR_CHUNK) */
	EXPO_TIMEOUT,		/* no reply: RPC_TIMEDOUT */
	EXPO_OUTCOMES
};
static const char *const expo_kinds[] = { "read chunk", "write chunk",
					  "reply chunk" };
static const char *const expo_outcomes[] = { "success", "PROC_UNAVAIL",
					     "RDMA_ERROR", "timeout" };
#define EXPO_LEN	32768u	/* > inline, >= the DDP threshold */
#define EXPO_BUF	(1u << 16)	/* the largest chunk: the reply's */

/* The segment of kind k in m: each call here names at most one. */
static struct rpcrdma_segment expo_seg(const struct rpcrdma_msg *m,
				       enum expo_kind k)
{
	switch (k) {
	case EXPO_READ:
		ck_assert_uint_eq(m->nreads, 1);
		return m->reads[0].seg;
	case EXPO_WRITE:
		ck_assert_uint_eq(m->nwrites, 1);
		ck_assert_uint_eq(m->writes[0].nsegs, 1);
		return m->segs[m->writes[0].first];
	default:
		ck_assert(m->has_reply);
		ck_assert_uint_eq(m->reply.nsegs, 1);
		return m->segs[m->reply.first];
	}
}

/* The raw peer's RDMA Read of a read chunk's segment, or RDMA Write of
 * all of a write or reply chunk's, with buf: 0 or -errno. */
static int expo_probe(struct raw_pair *p, const struct rpcrdma_msg *m,
		      enum expo_kind k, char *buf)
{
	struct rpcrdma_segment g = expo_seg(m, k);

	ck_assert_uint_le(g.length, EXPO_BUF);
	if (k == EXPO_READ)
		return rpcrdma_ep_read(p->a.ep, buf, g.length, &g, 1, 5000);
	return rpcrdma_ep_write(p->a.ep, buf, g.length, &g, 1, NULL, 5000);
}

/* After the call: a remote access error, nothing else (0: the memory was
 * reached; -ETIMEDOUT or -ENOTCONN: the connection went, which says
 * nothing of the memory), unless the client reset the connection (reset:
 * then any failure). */
static void expo_after(struct raw_pair *p, const struct rpcrdma_msg *m,
		       enum expo_kind k, enum expo_outcome o, bool reset,
		       char *buf)
{
	int rc = expo_probe(p, m, k, buf);

	ck_assert_msg(reset ? rc != 0 : refused(p->a.ep, rc),
		      "%s after %s: %d (%s)", expo_kinds[k], expo_outcomes[o],
		      rc, rc ? strerror(-rc) : "reached");
}

/* Whether expo_echo's argument goes zero-copy (opts.zc_threshold at its
 * size): its read chunk is then the caller's own memory. */
static bool expo_zc;

/* An ECHO of arg with a read chunk, a write chunk and a reply chunk,
 * ended by outcome o; kind k probed after it returned. */
static void expo_echo(enum expo_outcome o, enum expo_kind k,
		      const struct blob *arg, char *buf)
{
	struct rpcrdma_proc_ddp d = { P_ECHO, 1, EXPO_LEN };
	struct timeval short_tmo = { 1, 0 };
	struct blob res = { 0, NULL };
	struct rpcrdma_segment ws;
	struct rpcrdma_stats a, b;
	struct rpcrdma_msg m;
	struct raw_pair p;
	struct rpc_err e;
	enum clnt_stat want;
	uint32_t w[5];
	struct iovec iov = { w, sizeof(w) };
	struct rpcrdma_inline in;
	bool win, rin, reset;
	struct rpcrdma_opts zo;

	rpcrdma_opts_default(&zo);
	zo.zc_threshold = EXPO_LEN;
	clnt_base = expo_zc ? &zo : NULL;
	raw_pair_open(&p);
	clnt_base = NULL;
	win = rpcrdma_ep_windows(p.a.ep);
	ck_assert(win == windows_expected());
	ck_assert(clnt_control(p.c.cl, CLGET_RDMA_INLINE, (char *)&in));
	rin = in.remote_inv_in;
	/* The client sets R where its windows are type 2 (not rxe's). */
	ck_assert(rin == (win && remote_inv_expected()));
	ck_assert(clnt_control(p.c.cl, CLSET_RDMA_PROC_DDP, (char *)&d));
	p.c.proc = P_ECHO;
	p.c.xargs = XP(xdr_blob);
	p.c.args = (void *)arg;
	p.c.xres = XP(xdr_blob);
	p.c.res = &res;
	if (o == EXPO_TIMEOUT)
		p.c.tmo = short_tmo;
	a = stats_of(p.c.cl);
	raw_pair_take(&p, &m);
	ck_assert_uint_eq(expo_seg(&m, EXPO_READ).length, EXPO_LEN);
	/* Zero-copy: the chunk names the caller's buffer itself. */
	ck_assert((expo_seg(&m, EXPO_READ).offset ==
		   (uint64_t)(uintptr_t)arg->data) == expo_zc);
	ws = expo_seg(&m, EXPO_WRITE);
	ck_assert_uint_eq(ws.length, EXPO_LEN);
	(void)expo_seg(&m, EXPO_REPLY);
	if (o != EXPO_TIMEOUT) {
		/* In flight every kind is reachable: the argument comes by
		 * RDMA Read, goes back into the write chunk, and the reply
		 * chunk takes junk (the reply comes inline). A call left to
		 * time out is not probed in flight: under TCG the probes
		 * could outlast its short timeout. */
		memset(buf, 0, EXPO_BUF);
		ck_assert_int_eq(expo_probe(&p, &m, EXPO_READ, buf), 0);
		ck_assert(memcmp(buf, arg->data, EXPO_LEN) == 0);
		ck_assert_int_eq(expo_probe(&p, &m, EXPO_WRITE, buf), 0);
		memset(buf, 0x5a, EXPO_BUF);
		ck_assert_int_eq(expo_probe(&p, &m, EXPO_REPLY, buf), 0);
	}
	switch (o) {
	case EXPO_SUCCESS:
		/* The blob's length inline, its bytes in the write chunk
		 * (RFC 8166 section 3.4.6). */
		w[0] = EXPO_LEN;
		raw_pair_reply_writes(&p, &m, &ws, 1, w, 1);
		want = RPC_SUCCESS;
		break;
	case EXPO_PROC_UNAVAIL:
		raw_pair_reply(&p, &m, 3, 0);
		want = RPC_PROCUNAVAIL;
		break;
	case EXPO_RDMA_ERROR:
		w[0] = htonl(m.xid); w[1] = htonl(1); w[2] = htonl(m.credits);
		w[3] = htonl(RPCRDMA_ERROR); w[4] = htonl(RPCRDMA_ERR_CHUNK);
		ck_assert_int_eq(rpcrdma_ep_send(p.a.ep, &iov, 1, 0), 0);
		/* Permanent (RFC 8166 section 4.5): not a status to retry. */
		want = RPC_CANTDECODEARGS;
		break;
	default:		/* no reply at all */
		want = RPC_TIMEDOUT;
		break;
	}
	ck_assert_int_eq(raw_pair_result(&p), want);
	b = stats_of(p.c.cl);
	if (o == EXPO_SUCCESS) {
		ck_assert_uint_eq(res.len, EXPO_LEN);
		ck_assert(memcmp(res.data, arg->data, EXPO_LEN) == 0);
		ck_assert_uint_eq(b.replies_write_chunks -
					  a.replies_write_chunks, 1);
		xdr_free(XP(xdr_blob), (char *)&res);
	} else if (o == EXPO_RDMA_ERROR) {
		clnt_geterr(p.c.cl, &e);
		ck_assert_int_eq(e.re_errno, EBADMSG);
	}
	ck_assert_uint_eq(b.calls_read_chunks - a.calls_read_chunks, 1);
	ck_assert_uint_eq(b.zc_chunks - a.zc_chunks, expo_zc ? 1 : 0);
	ck_assert_uint_eq(b.connects, 1);
	/* A timeout where the client set R: revoked by a reset. */
	reset = o == EXPO_TIMEOUT && rin;
	ck_assert_uint_eq(b.disconnects - a.disconnects, reset ? 1 : 0);
	/* Two rkeys: a plain reply, both windows invalidated locally; or
	 * (rxe before 6.12) both registrations dropped. */
	ck_assert_uint_eq(b.remote_invalidations, a.remote_invalidations);
	ck_assert_uint_eq(b.local_invalidations - a.local_invalidations,
			  win && !reset ? 2 : 0);
	expo_after(&p, &m, k, o, reset, buf);
	raw_pair_close(&p);
}

/* A call exposing one rkey: a NULL call's reply chunk (EXPO_REPLY), or a
 * HASH of arg whose reply is hinted to fit inline, so that only its read
 * chunk is named (EXPO_READ). With R agreed (windows) the reply is a
 * Send With Invalidate of that rkey and nothing is invalidated locally;
 * without windows it is a plain Send (an MR cannot be invalidated
 * remotely) and the registration is dropped. */
static void expo_one_rkey(enum expo_kind k, uint32_t stat,
			  const struct blob *arg, char *buf)
{
	struct rpcrdma_proc_reply hr = { P_HASH, 28 };
	struct rpcrdma_stats a, b;
	struct rpcrdma_inline in;
	struct rpcrdma_segment g;
	struct rpcrdma_msg m;
	struct raw_pair p;
	uint32_t h = 0;
	u_int got = 0;
	bool win, inv;

	raw_pair_open(&p);
	win = rpcrdma_ep_windows(p.a.ep);
	ck_assert(win == windows_expected());
	ck_assert(clnt_control(p.c.cl, CLGET_RDMA_INLINE, (char *)&in));
	inv = in.peer_remote_inv;
	ck_assert(inv == remote_inv_expected());
	if (k == EXPO_READ) {
		ck_assert(clnt_control(p.c.cl, CLSET_RDMA_PROC_REPLY,
				       (char *)&hr));
		p.c.proc = P_HASH;
		p.c.xargs = XP(xdr_blob);
		p.c.args = (void *)arg;
		p.c.xres = XP(xdr_u_int);
		p.c.res = &got;
	}
	a = stats_of(p.c.cl);
	raw_pair_take(&p, &m);
	ck_assert_uint_eq(m.nreads, k == EXPO_READ);
	ck_assert_uint_eq(m.nwrites, 0);
	ck_assert(m.has_reply == (k == EXPO_REPLY));
	g = expo_seg(&m, k);
	memset(buf, 0x5a, EXPO_BUF);
	ck_assert_int_eq(expo_probe(&p, &m, k, buf), 0);
	if (k == EXPO_READ) {
		ck_assert_uint_eq(g.length, EXPO_LEN);
		ck_assert(memcmp(buf, arg->data, EXPO_LEN) == 0);
		h = fnv1a(buf, EXPO_LEN);
	}
	raw_pair_reply_res(&p, &m, stat, inv ? g.handle : 0, &h,
			   !stat && k == EXPO_READ);
	ck_assert_int_eq(raw_pair_result(&p),
			 stat ? RPC_PROCUNAVAIL : RPC_SUCCESS);
	if (!stat && k == EXPO_READ)
		ck_assert_uint_eq(got, fnv1a(arg->data, EXPO_LEN));
	b = stats_of(p.c.cl);
	ck_assert_uint_eq(b.remote_invalidations - a.remote_invalidations,
			  inv ? 1 : 0);
	/* Type 1 windows (rxe): unbound by the client itself. */
	ck_assert_uint_eq(b.local_invalidations - a.local_invalidations,
			  win && !inv ? 1 : 0);
	ck_assert_uint_eq(b.connects, 1);
	expo_after(&p, &m, k, stat ? EXPO_PROC_UNAVAIL : EXPO_SUCCESS, false,
		   buf);
	raw_pair_close(&p);
}

START_TEST(test_exposure_after_return)
{
	struct blob arg = { EXPO_LEN, mkdata(31, EXPO_LEN) };
	char *buf = malloc(EXPO_BUF);

	ck_assert_ptr_nonnull(buf);
	/* SUCCESS and PROC_UNAVAIL: a plain Send, the window unbound
	 * locally (rxe's type 1: no R) or the registration dropped (no
	 * windows); then with type 2 windows and R, each sent With
	 * Invalidate. */
	for (int i = 0; i < 4; i++)
		expo_one_rkey(i < 2 ? EXPO_REPLY : EXPO_READ, i % 2 ? 3 : 0,
			      &arg, buf);
	if (windows_expected()) {
		windows_type2();
		for (int i = 0; i < 4; i++)
			expo_one_rkey(i < 2 ? EXPO_REPLY : EXPO_READ,
				      i % 2 ? 3 : 0, &arg, buf);
		unsetenv("RPCRDMA_WINDOWS");
	}
	for (int o = 0; o < EXPO_OUTCOMES; o++)
		for (int k = 0; k < EXPO_KINDS; k++)
			expo_echo((enum expo_outcome)o, (enum expo_kind)k,
				  &arg, buf);
	/* A zero-copy read chunk (the caller's memory) is revoked alike. */
	expo_zc = true;
	for (int o = 0; o < EXPO_OUTCOMES; o++)
		expo_echo((enum expo_outcome)o, EXPO_READ, &arg, buf);
	expo_zc = false;
	free(buf);
	free(arg.data);
}
END_TEST

/*
 * rxe's windows are type 1 (engine/reg.c, security review 21c8dd5
 * finding 7): no R is agreed, so our server answers with plain Sends and
 * the client unbinds each window itself (a local invalidation each); a
 * bound window takes the server's RDMA Writes (a reply that needs the
 * chunk). That a window takes none after its call returned is
 * test_reply_window's and test_exposure_after_return's.
 */
START_TEST(test_type1_windows)
{
	struct rpcrdma_stats a, b;
	struct rpcrdma_inline in;
	struct srv s;
	CLIENT *cl;

	if (!windows_expected() || iwarp) {
		printf("t_clnt: test_type1_windows: no windows here\n");
		return;
	}
	srv_start(&s, 8, 1u << 20);
	cl = clnt_mk(s.port, 8, 1u << 20);
	ck_assert(clnt_control(cl, CLGET_RDMA_INLINE, (char *)&in));
	ck_assert(!in.peer_remote_inv);
	a = stats_of(cl);
	for (int i = 0; i < 3; i++)
		expect_ok(cl, clnt_call(cl, P_NULL, XP(xdr_void), NULL,
					XP(xdr_void), NULL, tmo), "null");
	/* A reply too large to go inline: written into the window. */
	fill_check(cl, 100000, false);
	b = stats_of(cl);
	ck_assert_uint_eq(b.reply_chunks - a.reply_chunks, 4);
	ck_assert_uint_eq(b.remote_invalidations, a.remote_invalidations);
	ck_assert_uint_eq(b.local_invalidations - a.local_invalidations, 4);
	ck_assert_uint_eq(b.connects, 1);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

void t_clnt_add_exposure(TCase *tc)
{
	tcase_add_test(tc, test_remote_invalidation);
	tcase_add_test(tc, test_type1_windows);
	tcase_add_test(tc, test_exposure_after_return);
}
