/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A server connection's cap on its calls' bytes (opts.conn_mem_max;
 * security review 21c8dd5, finding 5) on the host, without a device:
 * the connection's receive, call and reply files (xprt_rdma/svc_recv.c,
 * svc_call.c, svc_send.c) over a stubbed engine that hands out the
 * messages a test queued and finishes transfers when the test says. A
 * loop plays svc_run and an echo dispatch function. Asserted: every
 * call answered, in order, none refused and the connection never closed;
 * the bytes counted are the buffers' (checked against a walk at every
 * step) and stay within the cap and one call; calls wait for memory
 * (calls_waited_memory), not for ever, and a call alone is never held;
 * calls without chunks go by calls held for memory. The guest test
 * (tests/vm/t_limits_mem.c) drives the same on rxe.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "../../xprt_rdma/svc_conn.h"

#define MIB	(1u << 20)
#define PROG	0x20000b01u
#define P_ECHO	1u
#define QMAX	64

/* ---- the engine, as far as the connection files reach it ---- */

struct rpcrdma_ep {
	int unused;
};

static struct rpcrdma_ep the_ep;
static struct rpcrdma_stats st;
static const struct rpcrdma_inline inl = { .send_max = 4096,
					   .recv_max = 4096 };
static struct {
	uint8_t buf[512];
	uint32_t len;
} inq[QMAX];
static unsigned int in_head, in_tail, rx_out, closes;
/* Transfers started and not finished (in order), and finished ones not
 * yet taken. */
static struct rpcrdma_xfer *pend[QMAX], *done[QMAX];
static unsigned int npend, ndone_head, ndone_tail;

static uint64_t *stat_field(size_t off)
{
	return (uint64_t *)((char *)&st + off);
}

void rpcrdma_stat_add(struct rpcrdma_ep *ep, size_t off, uint64_t n)
{
	(void)ep;
	*stat_field(off) += n;
}

void rpcrdma_stat_set(struct rpcrdma_ep *ep, size_t off, uint64_t v)
{
	(void)ep;
	*stat_field(off) = v;
}

void rpcrdma_stat_max(struct rpcrdma_ep *ep, size_t off, uint64_t v)
{
	(void)ep;
	if (*stat_field(off) < v)
		*stat_field(off) = v;
}

void rpcrdma_stat_min(struct rpcrdma_ep *ep, size_t off, uint64_t v)
{
	(void)ep;
	if (v && (!*stat_field(off) || *stat_field(off) > v))
		*stat_field(off) = v;
}

int rpcrdma_ep_poll(struct rpcrdma_ep *ep, struct rpcrdma_rx *rx, int ms)
{
	(void)ep;
	(void)ms;
	if (in_head == in_tail)
		return 0;
	memset(rx, 0, sizeof(*rx));
	rx->data = inq[in_head % QMAX].buf;
	rx->len = inq[in_head % QMAX].len;
	in_head++;
	rx_out++;
	return 1;
}

void rpcrdma_ep_rx_done(struct rpcrdma_ep *ep, struct rpcrdma_rx *rx)
{
	(void)ep;
	(void)rx;
	ck_assert_uint_gt(rx_out, 0);
	rx_out--;
}

uint32_t rpcrdma_ep_rx_queued(const struct rpcrdma_ep *ep)
{
	(void)ep;
	return in_tail - in_head;
}

uint32_t rpcrdma_ep_rx_queued_count(struct rpcrdma_ep *ep,
				    bool (*pred)(const uint8_t *, uint32_t))
{
	(void)ep;
	(void)pred;
	return in_tail - in_head;
}

uint32_t rpcrdma_ep_credits(const struct rpcrdma_ep *ep)
{
	(void)ep;
	return 32;
}

bool rpcrdma_ep_can_read(const struct rpcrdma_ep *ep)
{
	(void)ep;
	return true;
}

const struct rpcrdma_inline *rpcrdma_ep_inline(const struct rpcrdma_ep *ep)
{
	(void)ep;
	return &inl;
}

void rpcrdma_ep_look(struct rpcrdma_ep *ep)
{
	(void)ep;
}

void rpcrdma_ep_unkick(struct rpcrdma_ep *ep)
{
	(void)ep;
}

void rpcrdma_ep_check_stall(struct rpcrdma_ep *ep)
{
	(void)ep;
}

void rpcrdma_ep_close_why(struct rpcrdma_ep *ep, int err,
			  enum rpcrdma_close_why why)
{
	(void)ep;
	(void)err;
	(void)why;
	closes++;
}

int rpcrdma_ep_xfer_start(struct rpcrdma_ep *ep, struct rpcrdma_xfer *x)
{
	(void)ep;
	ck_assert_uint_lt(npend, QMAX);
	pend[npend++] = x;
	return 0;
}

/* Every finished transfer, linked by ->next as the engine hands them. */
struct rpcrdma_xfer *rpcrdma_ep_xfers_done(struct rpcrdma_ep *ep)
{
	struct rpcrdma_xfer *head = NULL, **tail = &head;

	(void)ep;
	while (ndone_head != ndone_tail) {
		*tail = done[ndone_head++ % QMAX];
		tail = &(*tail)->next;
	}
	*tail = NULL;
	return head;
}

/* Held replies are posted as they start here (rpcrdma_ep_xfer_start
 * queues every transfer): nothing to flush. */
void rpcrdma_ep_xfer_flush(struct rpcrdma_ep *ep)
{
	(void)ep;
}

/* Every message is handed over as it comes. */
bool rpcrdma_ep_rx_pending(const struct rpcrdma_ep *ep)
{
	(void)ep;
	return false;
}

bool rpcrdma_ep_xfers_ready(struct rpcrdma_ep *ep)
{
	(void)ep;
	return ndone_head != ndone_tail;
}

/* The oldest transfer started finishes (an RDMA Read fills its sink);
 * with sends false, only Reads do (a client that stops completing our
 * Sends). False when none could. */
static bool xfer_finish_one(bool sends)
{
	for (unsigned int i = 0; i < npend; i++) {
		struct rpcrdma_xfer *x = pend[i];

		if (!x->read && !sends)
			continue;
		if (x->read)
			memset(x->local, 0x5a, (size_t)x->len);
		memmove(&pend[i], &pend[i + 1],
			(npend - i - 1) * sizeof(*pend));
		npend--;
		done[ndone_tail++ % QMAX] = x;
		return true;
	}
	return false;
}

/* ---- the rest of the server the files call: backward calls, pool ---- */

bool conn_take_bc_answer(struct svc_conn *c, struct rpcrdma_rx *rx)
{
	(void)c;
	(void)rx;
	return false;
}

bool msg_is_not_bc_answer(const uint8_t *data, uint32_t len)
{
	(void)data;
	(void)len;
	return true;
}

void bc_kill(struct conn_bc *bc)
{
	(void)bc;
}

void bc_dispatching(struct svc_conn *c, bool on)
{
	(void)c;
	(void)on;
}

bool pool_thread_dirty(void)
{
	return false;
}

bool pool_in_worker(void)
{
	return false;
}

void pool_call_begin(void)
{
}

/* ---- the client: calls queued as its messages ---- */

static uint32_t next_xid = 1;

/* An echo call of n bytes: RDMA_MSG, the blob in a read chunk at its XDR
 * position, a reply chunk of max_msg; n 0: an echo of nothing with no
 * chunks (inline both ways). */
static uint32_t queue_echo(uint32_t n, uint32_t max_msg)
{
	const struct rpcrdma_segment rd = { 0x1234, n, 0x10000 };
	const struct rpcrdma_segment rp = { 0x5678, max_msg, 0x20000000 };
	uint32_t xid = next_xid++;
	const uint32_t call[] = { xid, 0, 2, PROG, 1, P_ECHO, 0, 0, 0, 0, n };
	struct rpcrdma_msg m;
	uint8_t *b = inq[in_tail % QMAX].buf;
	size_t used;

	ck_assert_uint_lt(in_tail - in_head, QMAX);
	rpcrdma_msg_init(&m, xid, 32, RPCRDMA_MSG);
	if (n) {
		ck_assert_int_eq(rpcrdma_msg_add_read(&m, sizeof(call), &rd),
				 0);
		ck_assert_int_eq(rpcrdma_msg_add_reply_seg(&m, &rp), 0);
	}
	ck_assert_int_eq(rpcrdma_hdr_encode(&m, b, 256, &used), 0);
	for (size_t i = 0; i < sizeof(call) / 4; i++) {
		uint32_t w = htonl(call[i]);

		memcpy(b + used + 4 * i, &w, 4);
	}
	inq[in_tail % QMAX].len = (uint32_t)(used + sizeof(call));
	in_tail++;
	return xid;
}

/* ---- the server: a connection, svc_run's loop and a dispatch ---- */

struct blob {
	u_int len;
	char *data;
};

static bool_t xdr_blob(XDR *x, struct blob *b)
{
	return xdr_bytes(x, &b->data, &b->len, ~0u);
}

static struct svc_conn *conn_new(uint32_t max_msg, size_t cap)
{
	struct svc_conn *c = calloc(1, sizeof(*c));

	ck_assert_ptr_nonnull(c);
	c->ep = &the_ep;
	c->max_msg = max_msg;
	c->max_credits = 32;
	c->ddp_min = rpcrdma_ddp_min(RPCRDMA_DDP_THRESHOLD);
	c->mem_max = cap;
	rpcrdma_limits_default(&c->lim);
	c->ncalls = 2 * 32 + SVC_CALLS_EXTRA;
	c->calls = calloc(c->ncalls, sizeof(*c->calls));
	ck_assert_ptr_nonnull(c->calls);
	for (uint32_t i = c->ncalls; i-- > 0;) {
		c->calls[i].c = c;
		c->calls[i].next = c->free;
		c->free = &c->calls[i];
	}
	c->xprt.xp_p3 = &c->ext;
	c->bc = calloc(1, sizeof(*c->bc));	/* never used: no callbacks */
	ck_assert_ptr_nonnull(c->bc);
	return c;
}

static void conn_free(struct svc_conn *c)
{
	for (uint32_t i = 0; i < c->ncalls; i++)
		call_free_buffers(&c->calls[i]);
	ck_assert_uint_eq(c->mem_used, 0);
	free(c->bc);
	free(c->calls);
	free(c);
}

/* What the contexts' buffers hold, by a walk: what c->mem_used must be. */
static size_t conn_mem_walk(const struct svc_conn *c)
{
	size_t n = 0;

	for (uint32_t i = 0; i < c->ncalls; i++) {
		const struct svc_call *k = &c->calls[i];

		n += k->rdcap + k->callcap +
		     (k->reply_ok ? rpcrdma_xdrgrow_cap(
					    (XDR *)(uintptr_t)&k->reply) : 0);
	}
	return n;
}

static uint32_t served[QMAX];
static unsigned int nserved;

/* The echo procedure, as the guest's dispatch does it. */
static void dispatch_echo(struct svc_conn *c, struct rpc_msg *call)
{
	struct blob b = { 0, NULL };
	struct rpc_msg r;

	ck_assert_uint_lt(nserved, QMAX);
	served[nserved++] = call->rm_xid;
	ck_assert(conn_getargs(&c->xprt, (xdrproc_t)xdr_blob, &b));
	memset(&r, 0, sizeof(r));
	r.rm_direction = REPLY;
	r.rm_reply.rp_stat = MSG_ACCEPTED;
	r.acpted_rply.ar_verf = _null_auth;
	r.acpted_rply.ar_stat = SUCCESS;
	r.acpted_rply.ar_results.proc = (xdrproc_t)xdr_blob;
	r.acpted_rply.ar_results.where = (caddr_t)&b;
	ck_assert(conn_reply(&c->xprt, &r));
	ck_assert(conn_freeargs(&c->xprt, (xdrproc_t)xdr_blob, &b));
}

/* One round of svc_run on c: every call it hands out, dispatched.
 * Returns how many. */
static unsigned int serve(struct svc_conn *c)
{
	static char cred[2 * MAX_AUTH_BYTES];
	struct rpc_msg m;
	unsigned int n = 0;

	for (;;) {
		memset(&m, 0, sizeof(m));
		m.rm_call.cb_cred.oa_base = cred;
		m.rm_call.cb_verf.oa_base = cred + MAX_AUTH_BYTES;
		if (!conn_recv(&c->xprt, &m))
			return n;
		dispatch_echo(c, &m);
		n++;
	}
}

static void reset(void)
{
	memset(&st, 0, sizeof(st));
	in_head = in_tail = rx_out = closes = 0;
	npend = ndone_head = ndone_tail = 0;
	nserved = 0;
	next_xid = 1;
}

/*
 * Runs c until every queued call is answered and reaped: svc_run's
 * rounds, each followed by one transfer finishing (Sends only once
 * hold_sends rounds went by). At every step the count is the buffers'
 * and within bound. Fails on a round that can move nothing.
 */
static void run(struct svc_conn *c, unsigned int ncalls, size_t bound,
		unsigned int hold_sends)
{
	size_t peak = 0;

	for (unsigned int round = 0;; round++) {
		unsigned int n = serve(c);

		ck_assert_uint_eq(c->mem_used, conn_mem_walk(c));
		if (c->mem_used > peak)
			peak = c->mem_used;
		ck_assert_msg(c->mem_used <= bound,
			      "round %u: %zu bytes held, bound %zu", round,
			      c->mem_used, bound);
		if (in_head == in_tail && !npend &&
		    ndone_head == ndone_tail && !c->ready && !c->mwait)
			break;
		if (!xfer_finish_one(round >= hold_sends) && !n &&
		    round >= hold_sends)
			ck_abort_msg("round %u: nothing moves (%u served, "
				     "%u transfers pending, waiting: %s)",
				     round, nserved, npend,
				     c->mwait ? "yes" : "no");
		ck_assert_uint_lt(round, 100000);
	}
	ck_assert_uint_eq(nserved, ncalls);
	/* The gauge saw every growth, also within a round. */
	ck_assert_uint_ge(st.conn_mem_peak, peak);
	ck_assert_uint_le(st.conn_mem_peak, bound);
	ck_assert_uint_eq(closes, 0);
	ck_assert_uint_eq(st.sent_error, 0);
	ck_assert_uint_eq(rx_out, 0);
	ck_assert(!c->dead);
	for (uint32_t i = 0; i < c->ncalls; i++)
		ck_assert_int_eq(c->calls[i].state, CALL_FREE);
}

/* Dispatched in the order they came, xid first to last. */
static void assert_order(void)
{
	for (unsigned int i = 1; i < nserved; i++)
		ck_assert_uint_lt(served[i - 1], served[i]);
}

/* What a 2 MiB echo alone holds: its read buffer, the call rebuilt
 * around it (44 bytes of RPC header and length), its reply stream
 * (doubled from 4 KiB past 2 MiB and 28 bytes: 4 MiB). */
#define ECHO_ALONE	(2 * MIB + 2 * MIB + 44 + 4 * MIB)

/*
 * max_msg 4 MiB, cap 8 MiB, 8 echoes of 2 MiB at once (the guest test's
 * load): all answered in order on the one connection, the calls after
 * the first waited for memory, the connection held one call's buffers at
 * a time: 8 MiB and 44 bytes.
 */
START_TEST(test_cap_echoes)
{
	struct svc_conn *c;

	reset();
	c = conn_new(4 * MIB, 8 * MIB);
	for (int i = 0; i < 8; i++)
		queue_echo(2 * MIB, 4 * MIB);
	run(c, 8, 8 * MIB + 4096, 0);
	assert_order();
	ck_assert_uint_eq(st.read_chunks, 8);
	ck_assert_uint_eq(st.reply_chunks, 8);
	ck_assert_uint_ge(st.calls_waited_memory, 1);
	ck_assert_uint_le(st.calls_waited_memory, 8);
	ck_assert_uint_eq(st.conn_mem_peak, ECHO_ALONE);
	conn_free(c);
}
END_TEST

/* The same with no cap: the calls are read at once, several calls'
 * buffers held together; nobody waits. */
START_TEST(test_no_cap)
{
	struct svc_conn *c;

	reset();
	c = conn_new(4 * MIB, 0);
	for (int i = 0; i < 8; i++)
		queue_echo(2 * MIB, 4 * MIB);
	run(c, 8, SIZE_MAX, 0);
	assert_order();
	ck_assert_uint_eq(st.calls_waited_memory, 0);
	ck_assert_uint_ge(st.conn_mem_peak, 8 * (4 * MIB + 44));
	conn_free(c);
}
END_TEST

/*
 * Finding 5's client: it completes none of our Sends for a long while
 * and keeps its grant full (24 calls of 2 MiB, 16 of them sent while the
 * first replies wait). Memory stays within the cap and one call, nothing
 * is refused or closed, and all are answered once the Sends complete.
 */
START_TEST(test_sends_stalled)
{
	struct svc_conn *c;

	reset();
	c = conn_new(4 * MIB, 8 * MIB);
	for (int i = 0; i < 8; i++)
		queue_echo(2 * MIB, 4 * MIB);
	for (int i = 0; i < 50; i++) {
		serve(c);
		if (i == 10)
			for (int j = 0; j < 16; j++)
				queue_echo(2 * MIB, 4 * MIB);
		xfer_finish_one(false);
		ck_assert_uint_eq(c->mem_used, conn_mem_walk(c));
		ck_assert_uint_le(c->mem_used, 8 * MIB + 4096);
	}
	/* One call answered (its Send stuck), the rest waiting. */
	ck_assert_uint_eq(nserved, 1);
	ck_assert_ptr_nonnull(c->mwait);
	run(c, 24, 8 * MIB + 4096, 0);
	assert_order();
	ck_assert_uint_ge(st.calls_waited_memory, 23);
	conn_free(c);
}
END_TEST

/* A cap of max_msg (the least it counts as) below what one 2 MiB echo
 * holds: each call alone is let through, one after the other. */
START_TEST(test_call_alone)
{
	struct svc_conn *c;

	reset();
	c = conn_new(4 * MIB, 4 * MIB);
	for (int i = 0; i < 4; i++)
		queue_echo(2 * MIB, 4 * MIB);
	run(c, 4, ECHO_ALONE, 0);
	assert_order();
	ck_assert_uint_ge(st.calls_waited_memory, 3);
	conn_free(c);
}
END_TEST

/*
 * Calls without chunks (inline both ways, their replies held to the
 * inline threshold) are dispatched while large calls wait for memory
 * and none of our Sends completes; the large ones keep their order.
 */
START_TEST(test_inline_not_held)
{
	uint32_t small[4];
	struct svc_conn *c;
	unsigned int seen = 0;

	reset();
	c = conn_new(4 * MIB, 8 * MIB);
	for (int i = 0; i < 4; i++) {
		queue_echo(2 * MIB, 4 * MIB);
		small[i] = queue_echo(0, 4 * MIB);
	}
	for (int i = 0; i < 20; i++) {
		serve(c);
		xfer_finish_one(false);
	}
	for (unsigned int i = 0; i < nserved; i++)
		for (int j = 0; j < 4; j++)
			seen += served[i] == small[j];
	ck_assert_uint_eq(seen, 4);
	ck_assert_uint_lt(nserved, 8);
	run(c, 8, 8 * MIB + 4096, 0);
	for (unsigned int i = 0, last = 0; i < nserved; i++) {
		if (served[i] % 2 == 0)
			continue;	/* a small one */
		ck_assert_uint_gt(served[i], last);
		last = served[i];
	}
	conn_free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("svc_mem");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cap_echoes);
	tcase_add_test(tc, test_no_cap);
	tcase_add_test(tc, test_sends_stalled);
	tcase_add_test(tc, test_call_alone);
	tcase_add_test(tc, test_inline_not_held);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
