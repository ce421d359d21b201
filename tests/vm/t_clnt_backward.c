/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_clnt: messages that answer no call of ours, an unknown reply and a
 * backward call to a client without a backward service
 * (test_unmatched_messages), backward calls (RFC 8167) from a raw
 * server to a CLIENT with a backward service (test_backward_raw), and
 * backward calls from a server that stalls the client's Sends
 * (test_bc_answers_stalled).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "t_clnt.h"

/*
 * Messages that answer no call of ours (RFC 8166 section 3.3.1, RFC 8167):
 * a reply with an unknown XID, dropped and counted, and a
 * backward-direction call (RDMA_MSG, empty chunk lists, an RPC CALL
 * inline) for a client without any backward service: answered
 * PROG_UNAVAIL at once, exactly (RFC 8167 section 4.2: RDMA_MSG, empty
 * lists, our backward grant 8). Neither changes the grant (the unknown
 * reply says 1 credit, the call 2) nor the call in flight, which then
 * gets its own reply.
 */
static void bc_expect(struct rpcrdma_ep *ep, const uint32_t *want, size_t nw);

START_TEST(test_unmatched_messages)
{
	struct rpcrdma_stats st;
	struct rpcrdma_msg m;
	struct raw_pair p;
	uint32_t w[20];
	struct iovec iov = { w, 0 };
	int n;

	raw_pair_open(&p);
	raw_pair_call(&p, &m);
	n = 0;
	w[n++] = htonl(m.xid + 1000); w[n++] = htonl(1); w[n++] = htonl(1);
	w[n++] = htonl(RPCRDMA_MSG); w[n++] = 0; w[n++] = 0; w[n++] = 0;
	w[n++] = htonl(m.xid + 1000); w[n++] = htonl(1); w[n++] = 0;
	w[n++] = 0; w[n++] = 0; w[n++] = 0;
	iov.iov_len = (size_t)n * 4;
	ck_assert_int_eq(rpcrdma_ep_send(p.a.ep, &iov, 1, 0), 0);
	/* A backward call: CALL, RPC version 2, a program, NULL, AUTH_NONE
	 * credential and verifier (a whole header: it is answered). */
	n = 0;
	w[n++] = htonl(0x77000001); w[n++] = htonl(1); w[n++] = htonl(2);
	w[n++] = htonl(RPCRDMA_MSG); w[n++] = 0; w[n++] = 0; w[n++] = 0;
	w[n++] = htonl(0x77000001); w[n++] = 0; w[n++] = htonl(2);
	w[n++] = htonl(400122); w[n++] = htonl(1); w[n++] = 0;
	w[n++] = 0; w[n++] = 0; w[n++] = 0; w[n++] = 0;
	iov.iov_len = (size_t)n * 4;
	ck_assert_int_eq(rpcrdma_ep_send(p.a.ep, &iov, 1, 0), 0);
	/* The call's poller takes both before its own reply is sent. */
	{
		const uint32_t noprog[] = { 0x77000001, 1, 8, RPCRDMA_MSG, 0,
					    0, 0, 0x77000001, REPLY,
					    MSG_ACCEPTED, 0, 0,
					    PROG_UNAVAIL };

		bc_expect(p.a.ep, noprog, 13);
	}
	for (int i = 0; i < 500; i++) {
		st = stats_of(p.c.cl);
		if (st.replies_unmatched >= 1)
			break;
		usleep(10000);
	}
	ck_assert_uint_eq(st.replies_unmatched, 1);
	ck_assert_uint_eq(st.bc_calls_recv, 1);
	ck_assert_uint_eq(st.bc_replies_sent, 1);
	ck_assert_uint_eq(st.bc_calls_dropped, 0);
	ck_assert_uint_ne(st.credits_granted, 1);
	ck_assert_uint_ne(st.credits_granted, 2);
	raw_pair_reply(&p, &m, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	st = stats_of(p.c.cl);
	ck_assert_uint_eq(st.credits_granted, m.credits);
	ck_assert_uint_eq(st.connects, 1);
	raw_pair_close(&p);
}
END_TEST

/* ---- backward direction (RFC 8167) against a raw requester ---- */

#define BC_PROG	400122u

static void bc_null_dispatch(struct svc_req *rq, SVCXPRT *x)
{
	if (rq->rq_proc == NULLPROC)
		svc_sendreply(x, XP(xdr_void), NULL);
	else
		svcerr_noproc(x);
}

/* Sends a backward call: transport header (RDMA_MSG, rdma_xid, credits
 * asked 4, empty lists) then the RPC call words (host order). */
static void bc_send(struct rpcrdma_ep *ep, uint32_t rdma_xid,
		    const uint32_t *rpc, size_t n)
{
	uint32_t w[32];
	struct iovec iov = { w, 0 };
	size_t k = 0;

	w[k++] = htonl(rdma_xid); w[k++] = htonl(1); w[k++] = htonl(4);
	w[k++] = htonl(RPCRDMA_MSG); w[k++] = 0; w[k++] = 0; w[k++] = 0;
	for (size_t i = 0; i < n && k < 32; i++)
		w[k++] = htonl(rpc[i]);
	iov.iov_len = k * 4;
	ck_assert_int_eq(rpcrdma_ep_send(ep, &iov, 1, 0), 0);
}

/* The next message on ep is exactly want[0..nw) (host order). */
static void bc_expect(struct rpcrdma_ep *ep, const uint32_t *want, size_t nw)
{
	struct rpcrdma_rx rx;

	ck_assert_int_eq(rpcrdma_ep_poll(ep, &rx, 10000), 1);
	ck_assert_uint_eq(rx.len, nw * 4);
	for (size_t i = 0; i < nw; i++) {
		uint32_t v;

		memcpy(&v, rx.data + 4 * i, 4);
		ck_assert_msg(ntohl(v) == want[i], "word %zu: %08x != %08x", i,
			      ntohl(v), want[i]);
	}
	rpcrdma_ep_rx_done(ep, &rx);
}

/*
 * A CLIENT with a backward service, and a raw server sending it backward
 * calls (RFC 8167 section 4) while no forward call is in flight (the
 * service thread polls): exact replies (RDMA_MSG, empty lists, our
 * backward grant 8, the RPC reply inline) for a NULL call, an unknown
 * program (PROG_UNAVAIL) and version (PROG_MISMATCH 1..1); dropped: an
 * rdma_xid that is not the RPC XID, an RPC header cut short. A forward
 * call then goes as usual.
 */
START_TEST(test_backward_raw)
{
	const uint32_t null_call[] = { 0x61000001, CALL, 2, BC_PROG, 1, 0,
				       0, 0, 0, 0 };
	const uint32_t null_reply[] = { 0x61000001, 1, 8, RPCRDMA_MSG, 0, 0,
					0, 0x61000001, REPLY, MSG_ACCEPTED,
					0, 0, SUCCESS };
	const uint32_t xid_call[] = { 0x61000003, CALL, 2, BC_PROG, 1, 0,
				      0, 0, 0, 0 };
	const uint32_t short_call[] = { 0x61000004, CALL, 2 };
	const uint32_t noprog_call[] = { 0x61000005, CALL, 2, BC_PROG + 1, 1,
					 0, 0, 0, 0, 0 };
	const uint32_t noprog_reply[] = { 0x61000005, 1, 8, RPCRDMA_MSG, 0, 0,
					  0, 0x61000005, REPLY, MSG_ACCEPTED,
					  0, 0, PROG_UNAVAIL };
	const uint32_t vers_call[] = { 0x61000006, CALL, 2, BC_PROG, 5, 0,
				       0, 0, 0, 0 };
	const uint32_t vers_reply[] = { 0x61000006, 1, 8, RPCRDMA_MSG, 0, 0,
					0, 0x61000006, REPLY, MSG_ACCEPTED,
					0, 0, PROG_MISMATCH, 1, 1 };
	struct rpcrdma_stats st;
	struct rpcrdma_msg m;
	struct raw_pair p;

	raw_pair_open(&p);
	ck_assert(rpcrdma_clnt_svc_reg(p.c.cl, BC_PROG, 1, bc_null_dispatch));
	bc_send(p.a.ep, 0x61000001, null_call, 10);
	bc_expect(p.a.ep, null_reply, 13);
	bc_send(p.a.ep, 0x61000002, xid_call, 10);	/* rdma_xid differs */
	bc_send(p.a.ep, 0x61000004, short_call, 3);
	bc_send(p.a.ep, 0x61000005, noprog_call, 10);
	bc_expect(p.a.ep, noprog_reply, 13);
	bc_send(p.a.ep, 0x61000006, vers_call, 10);
	bc_expect(p.a.ep, vers_reply, 15);
	st = stats_of(p.c.cl);
	ck_assert_uint_eq(st.bc_calls_recv, 5);
	ck_assert_uint_eq(st.bc_replies_sent, 3);
	ck_assert_uint_eq(st.bc_calls_dropped, 2);
	ck_assert_uint_eq(st.bc_credits_granted, 8);
	ck_assert_uint_eq(st.bc_inflight, 0);
	ck_assert_uint_eq(st.replies_unmatched, 0);
	raw_pair_call(&p, &m);
	raw_pair_reply(&p, &m, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	raw_pair_close(&p);
}
END_TEST

static double mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/*
 * Security review 21c8dd5, finding 8. A server stalls the client's Sends
 * (its accept asks rnr_retry_count 7 of the client's QP, for ever on
 * rxe, and it never reposts its receives: 9 of them, credits 1) and
 * sends 48 backward calls while one call of the client, with a 3 s
 * timeout, polls; the CLIENT has no backward service, so each is
 * answered PROG_UNAVAIL. Once the client's send ring was full, each
 * answer went out under ct->lock with a 10 s wait: the call overran its
 * timeout by 10 s and more, and clnt_control blocked as long. Now the
 * answers go without the lock and never wait: the call times out on
 * time, clnt_control answers at once, and the calls beyond the backward
 * grant (8 answers not sent) are dropped and counted. Windows off
 * (RPCRDMA_WINDOWS=0): the timed-out call's local invalidation would
 * queue behind the stalled Sends and reset the connection after
 * CT_INVALIDATE_MS, a bound of its own. Not on iWARP, which has no RNR
 * (a Send without a receive ends the connection).
 */
START_TEST(test_bc_answers_stalled)
{
	enum { NCALLS = 48 };
	struct rpcrdma_stats st;
	struct rpcrdma_msg m;
	struct raw_pair p;
	double t0, t, ctl_max = 0;
	enum clnt_stat cs;
	uint32_t xid;

	if (iwarp) {
		printf("t_clnt: test_bc_answers_stalled: no RNR on iWARP\n");
		return;
	}
	ck_assert_int_eq(setenv("RPCRDMA_WINDOWS", "0", 1), 0);
	raw_pair_rnr = 7;
	raw_pair_credits = 1;
	raw_pair_open(&p);
	raw_pair_rnr = 0;
	raw_pair_credits = 0;
	p.c.tmo = (struct timeval){ 3, 0 };
	t0 = mono_ms();
	raw_pair_take(&p, &m);	/* the call polls; never answered */
	for (uint32_t i = 0; i < NCALLS; i++) {
		const uint32_t call[] = { 0x62000000 + i, CALL, 2, BC_PROG, 1,
					  0, 0, 0, 0, 0 };

		bc_send(p.a.ep, 0x62000000 + i, call, 10);
		if (i % 8 == 7)
			usleep(50000);	/* the client's receives come back */
	}
	/* clnt_control beside the polling call, until it returned. */
	for (int i = 0; i < 40; i++) {
		t = mono_ms();
		ck_assert(clnt_control(p.c.cl, CLGET_XID, (char *)&xid));
		t = mono_ms() - t;
		if (t > ctl_max)
			ctl_max = t;
		usleep(50000);
	}
	cs = raw_pair_result(&p);
	t = mono_ms() - t0;
	st = stats_of(p.c.cl);
	ck_assert_msg(ctl_max < 500, "clnt_control blocked %.0f ms", ctl_max);
	ck_assert_int_eq(cs, RPC_TIMEDOUT);
	ck_assert_msg(t < 3000 + 1500, "a 3 s call took %.0f ms", t);
	/* Every call taken or dropped; answers beyond the grant dropped. */
	ck_assert_uint_eq(st.bc_calls_recv + st.bc_calls_dropped, NCALLS);
	ck_assert_uint_ge(st.bc_calls_dropped, 1);
	ck_assert_uint_lt(st.bc_replies_sent, st.bc_calls_recv);
	raw_pair_close(&p);
	unsetenv("RPCRDMA_WINDOWS");
}
END_TEST

void t_clnt_add_backward(TCase *tc)
{
	tcase_add_test(tc, test_unmatched_messages);
	tcase_add_test(tc, test_backward_raw);
	tcase_add_test(tc, test_bc_answers_stalled);
}
