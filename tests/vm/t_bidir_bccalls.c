/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A misbehaving server on raw verbs (t_bidir): test_hostile_bc_calls,
 * malformed backward calls and more calls than the backward grant sent
 * to the client while its forward calls run; with the raw responder
 * (rawsrv_*), raw_bc_call and the loop of forward NULL calls.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <rpcrdma/hdr.h>
#include "t_bidir.h"

/*
 * A raw responder the client connects to: answers each forward call
 * (accepted, void) and keeps the backward replies it is sent.
 */
struct rawsrv {
	struct rpcrdma_listener *l;
	struct rpcrdma_ep *ep;
	pthread_t th;
	atomic_bool stop;
	pthread_mutex_t lock;
	uint32_t rep[32][16];	/* backward replies, host-order words */
	atomic_uint nrep;
	atomic_int err;		/* poll's error: the connection ended */
};

static void *rawsrv_main(void *arg)
{
	struct rawsrv *r = arg;
	struct rpcrdma_limits lim;
	struct rpcrdma_msg m;
	struct rpcrdma_rx rx;
	uint32_t w[16], type;
	size_t hlen;
	int rc;

	rpcrdma_limits_default(&lim);
	while (!atomic_load(&r->stop)) {
		rc = rpcrdma_ep_poll(r->ep, &rx, 100);
		if (rc < 0) {
			atomic_store(&r->err, rc);
			break;
		}
		if (rc == 0)
			continue;
		ck_assert_int_eq(rpcrdma_hdr_decode(rx.data, rx.len, &lim, &m,
						    &hlen), RPCRDMA_HDR_OK);
		ck_assert_uint_ge(rx.len, hlen + 8);
		memcpy(&type, rx.data + hlen + 4, 4);
		if (ntohl(type) == CALL) {
			const uint32_t a[13] = { m.xid, 1, m.credits,
						 RPCRDMA_MSG, 0, 0, 0, m.xid,
						 REPLY, MSG_ACCEPTED, 0, 0,
						 SUCCESS };

			rpcrdma_ep_rx_done(r->ep, &rx);
			raw_send(r->ep, a, 13);
			continue;
		}
		memset(w, 0, sizeof(w));
		for (size_t i = 0; i < 16 && i < rx.len / 4; i++) {
			memcpy(&w[i], rx.data + 4 * i, 4);
			w[i] = ntohl(w[i]);
		}
		rpcrdma_ep_rx_done(r->ep, &rx);
		pthread_mutex_lock(&r->lock);
		ck_assert_uint_lt(atomic_load(&r->nrep), 32);
		memcpy(r->rep[atomic_load(&r->nrep)], w, sizeof(w));
		atomic_fetch_add(&r->nrep, 1);
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

static void *rawsrv_accept(void *arg)
{
	struct rawsrv *r = arg;
	struct pollfd pfd = { .fd = rpcrdma_listener_fd(r->l),
			      .events = POLLIN };

	for (int i = 0; i < 200 && !r->ep; i++) {
		poll(&pfd, 1, 50);
		if (rpcrdma_listener_accept(r->l, &r->ep) < 0)
			break;
	}
	return NULL;
}

/* The raw responder on a new port, with our client connected to it. */
static CLIENT *rawsrv_open(struct rawsrv *r)
{
	struct rpcrdma_ep_opts eo;
	struct rpcrdma_opts o;
	struct sockaddr_in sin;
	uint16_t port = port_new();
	CLIENT *cl;

	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	rpcrdma_opts_default(&o);
	ck_assert_int_eq(rpcrdma_opts_to_ep(&o, &eo), 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	inet_pton(AF_INET, addr_b, &sin.sin_addr);
	ck_assert_int_eq(rpcrdma_listener_create((struct sockaddr *)&sin, &eo,
						 &r->l), 0);
	/* The client's connect returns once accepted. */
	ck_assert_int_eq(pthread_create(&r->th, NULL, rawsrv_accept, r), 0);
	cl = clnt_bidir(port);
	pthread_join(r->th, NULL);
	ck_assert_ptr_nonnull(r->ep);
	ck_assert_int_eq(pthread_create(&r->th, NULL, rawsrv_main, r), 0);
	return cl;
}

static void rawsrv_close(struct rawsrv *r, CLIENT *cl)
{
	atomic_store(&r->stop, true);
	pthread_join(r->th, NULL);
	ck_assert_int_eq(atomic_load(&r->err), 0);
	clnt_destroy(cl);
	rpcrdma_ep_destroy(r->ep);
	rpcrdma_listener_destroy(r->l);
	pthread_mutex_destroy(&r->lock);
}

/* Waits up to ms for n backward replies in all. */
static void rawsrv_wait(struct rawsrv *r, unsigned int n, int ms)
{
	for (int t = 0; t < ms && atomic_load(&r->nrep) < n; t += 10)
		usleep(10000);
	ck_assert_msg(atomic_load(&r->err) == 0, "the connection ended: %d",
		      atomic_load(&r->err));
	ck_assert_uint_eq(atomic_load(&r->nrep), n);
}

/* A backward call from the raw responder: transport header of xid
 * asking credits, then the RPC words c[0..nc). */
static void raw_bc_call(struct rpcrdma_ep *ep, uint32_t proc, uint32_t xid,
			uint32_t credits, const uint32_t *c, size_t nc)
{
	uint32_t w[7 + 16] = { xid, 1, credits, proc, 0, 0, 0 };

	ck_assert_uint_le(nc, 16);
	memcpy(&w[7], c, nc * 4);
	raw_send(ep, w, 7 + nc);
	usleep(20000);
}

/* Forward NULL calls on cl until stop is set. */
struct nullloop {
	CLIENT *cl;
	atomic_bool stop;
	unsigned int calls, fails;
	enum clnt_stat last;
	pthread_t th;
};

static void *null_loop_main(void *arg)
{
	struct nullloop *a = arg;

	while (!atomic_load(&a->stop)) {
		enum clnt_stat st = clnt_call(a->cl, NULLPROC, XVOID, NULL,
					      XVOID, NULL, tmo30);
		a->calls++;
		if (st != RPC_SUCCESS) {
			a->fails++;
			a->last = st;
		}
	}
	return NULL;
}

static void null_loop_start(struct nullloop *a, CLIENT *cl)
{
	memset(a, 0, sizeof(*a));
	a->cl = cl;
	ck_assert_int_eq(pthread_create(&a->th, NULL, null_loop_main, a), 0);
}

static void null_loop_stop(struct nullloop *a)
{
	atomic_store(&a->stop, true);
	pthread_join(a->th, NULL);
	ck_assert_msg(a->calls > 0 && a->fails == 0,
		      "forward: %u of %u failed (%s)", a->fails, a->calls,
		      clnt_sperrno(a->last));
}

/*
 * Hostile backward calls from a raw responder while the client's
 * forward calls run: an RPC call cut after its msg_type, of RPC version
 * 3, whose XID is not its rdma_xid (dropped, RFC 8167 section 4.1); one
 * carrying a read list and one sent as RDMA_NOMSG (not of backward
 * shape: discarded as forward replies nobody waits for); one asking 1000
 * credits (answered, granting 8); an unknown program and version
 * (PROG_UNAVAIL, PROG_MISMATCH 1..1); then 9 calls at once against
 * the grant of 8: the ninth dropped (section 3.3). Forward calls run
 * throughout and never fail, the connection stays.
 */
START_TEST(test_hostile_bc_calls)
{
	struct rawsrv r;
	CLIENT *cl = rawsrv_open(&r);
	struct rpcrdma_stats s0, s1;
	struct nullloop fl;
	uint32_t x = 0x33000000;

	s0 = cstats(cl);
	null_loop_start(&fl, cl);
	usleep(100000);
	{
		const uint32_t cut[2] = { x + 1, CALL };
		const uint32_t v3[10] = { x + 2, CALL, 3, CB_PROG, 1,
					  NULLPROC, 0, 0, 0, 0 };
		const uint32_t mis[10] = { x + 4, CALL, 2, CB_PROG, 1,
					   NULLPROC, 0, 0, 0, 0 };
		const uint32_t rl[23] = { x + 5, 1, 8, RPCRDMA_MSG, 1, 0,
					  0x1234, 4096, 0, 0x1000, 0, 0, 0,
					  x + 5, CALL, 2, CB_PROG, 1,
					  NULLPROC, 0, 0, 0, 0 };
		const uint32_t nomsg[10] = { x + 6, CALL, 2, CB_PROG, 1,
					     NULLPROC, 0, 0, 0, 0 };
		const uint32_t ok[10] = { x + 7, CALL, 2, CB_PROG, 1,
					  NULLPROC, 0, 0, 0, 0 };
		const uint32_t noprog[10] = { x + 8, CALL, 2, CB_PROG + 5, 1,
					      NULLPROC, 0, 0, 0, 0 };
		const uint32_t novers[10] = { x + 9, CALL, 2, CB_PROG, 7,
					      NULLPROC, 0, 0, 0, 0 };

		raw_bc_call(r.ep, RPCRDMA_MSG, x + 1, 8, cut, 2);
		raw_bc_call(r.ep, RPCRDMA_MSG, x + 2, 8, v3, 10);
		raw_bc_call(r.ep, RPCRDMA_MSG, x + 3, 8, mis, 10);
		raw_send(r.ep, rl, 23);
		raw_bc_call(r.ep, RPCRDMA_NOMSG, x + 6, 8, nomsg, 10);
		raw_bc_call(r.ep, RPCRDMA_MSG, x + 7, 1000, ok, 10);
		raw_bc_call(r.ep, RPCRDMA_MSG, x + 8, 8, noprog, 10);
		raw_bc_call(r.ep, RPCRDMA_MSG, x + 9, 8, novers, 10);
	}
	rawsrv_wait(&r, 3, 10000);
	usleep(500000);
	ck_assert_uint_eq(atomic_load(&r.nrep), 3);
	pthread_mutex_lock(&r.lock);
	for (unsigned int i = 0; i < 3; i++) {
		const uint32_t *w = r.rep[i];

		/* RDMA_MSG, empty lists, accepted, granting 8 (s3.1). */
		ck_assert_uint_eq(w[1], 1);
		ck_assert_uint_eq(w[2], RPCRDMA_BC_CREDITS);
		ck_assert_uint_eq(w[3], RPCRDMA_MSG);
		ck_assert(!w[4] && !w[5] && !w[6]);
		ck_assert_uint_eq(w[7], w[0]);
		ck_assert_uint_eq(w[8], REPLY);
		ck_assert_uint_eq(w[9], MSG_ACCEPTED);
		if (w[0] == x + 7) {
			ck_assert_uint_eq(w[12], SUCCESS);
		} else if (w[0] == x + 8) {
			ck_assert_uint_eq(w[12], PROG_UNAVAIL);
		} else {
			ck_assert_uint_eq(w[0], x + 9);
			ck_assert_uint_eq(w[12], PROG_MISMATCH);
			ck_assert_uint_eq(w[13], 1);
			ck_assert_uint_eq(w[14], 1);
		}
	}
	pthread_mutex_unlock(&r.lock);
	s1 = cstats(cl);
	ck_assert_uint_eq(s1.bc_calls_dropped - s0.bc_calls_dropped, 3);
	ck_assert_uint_eq(s1.bc_replies_sent - s0.bc_replies_sent, 3);
	ck_assert_uint_eq(s1.replies_unmatched + s1.bad_headers -
			  s0.replies_unmatched - s0.bad_headers, 2);

	/* 9 calls at once against a grant of 8: the ninth is dropped as
	 * the forward caller's poll takes it, while the service thread
	 * sleeps in the first. The first sleeps 3 s: the nine sends must
	 * all land within it, and under TCG with two guests on the host
	 * they took more than the 500 ms once used (the ninth was then
	 * answered). The others sleep 0 ms: queued behind the first, they
	 * are in flight all the same, and eight sleeps of 2 s cost this
	 * test 14 s of every boot. */
	for (uint32_t i = 0; i < 9; i++) {
		const uint32_t sl[11] = { x + 16 + i, CALL, 2, CB_PROG, 1,
					  CB_SLEEP, 0, 0, 0, 0,
					  i == 0 ? 3000 : 0 };
		uint32_t w[7 + 11] = { x + 16 + i, 1, 8, RPCRDMA_MSG, 0, 0,
				       0 };

		memcpy(&w[7], sl, sizeof(sl));
		raw_send(r.ep, w, 18);
	}
	rawsrv_wait(&r, 3 + 8, 40000);
	usleep(1000000);
	ck_assert_uint_eq(atomic_load(&r.nrep), 3 + 8);
	null_loop_stop(&fl);
	s1 = cstats(cl);
	ck_assert_uint_eq(s1.bc_calls_dropped - s0.bc_calls_dropped, 4);
	ck_assert_uint_le(s1.bc_inflight_peak, RPCRDMA_BC_CREDITS);
	/* Both directions still work on the same connection. */
	{
		const uint32_t ok[10] = { x + 30, CALL, 2, CB_PROG, 1,
					  NULLPROC, 0, 0, 0, 0 };

		raw_bc_call(r.ep, RPCRDMA_MSG, x + 30, 8, ok, 10);
	}
	rawsrv_wait(&r, 3 + 8 + 1, 10000);
	ck_assert_int_eq(clnt_call(cl, NULLPROC, XVOID, NULL, XVOID, NULL,
				   tmo30), RPC_SUCCESS);
	ck_assert_uint_eq(cstats(cl).connects, 1);
	rawsrv_close(&r, cl);
}
END_TEST

void t_bidir_add_bc_calls(TCase *tc)
{
	tcase_add_test(tc, test_hostile_bc_calls);
}
