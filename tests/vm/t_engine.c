/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest test of the verbs engine (engine/engine.h) on Soft-RoCE: a
 * listener on $RPCRDMA_ADDR_B and a client from $RPCRDMA_ADDR_A in one
 * process, the server side driven by a thread where both must run at once.
 * Run: tests/vm/run -- ./tests/vm/t_engine (from the build directory).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/ep_int.h"
#include "t_engine.h"

/*
 * RFC 8797 section 5: each side's send threshold is the minimum of its own
 * Send size and the peer's Receive size. Client S=8192 R=2048, server
 * S=4096 R=16384: client send min(8192,16384)=8192, recv min(2048,4096)
 * =2048; server send min(4096,2048)=2048, recv min(16384,8192)=8192.
 */
START_TEST(test_pvtdata_sizes)
{
	struct rpcrdma_ep_opts co = mkopts(8192, 2048, 8, true);
	struct rpcrdma_ep_opts so = mkopts(4096, 16384, 8, true);
	struct rpcrdma_ep *cep;
	struct srv s;

	pair_connect(&co, &so, &s, &cep);
	check_inline(cep, 8192, 2048, true);
	check_inline(s.ep, 2048, 8192, true);
	ck_assert_int_ge(rpcrdma_ep_recvs_posted(cep), 8);
	ck_assert_int_ge(rpcrdma_ep_recvs_posted(s.ep), 8);
	ck_assert_uint_eq(rpcrdma_ep_stats(cep)->connects, 1);
	ck_assert_uint_eq(rpcrdma_ep_stats(s.ep)->connects, 1);
	pair_destroy(&s, cep);
}
END_TEST

/* Equal sizes the other way round: client S=1024 R=65536, server
 * S=262144 R=3072: client send min(1024,3072)=1024, recv
 * min(65536,262144)=65536; server send min(262144,65536)=65536,
 * recv min(3072,1024)=1024. */
START_TEST(test_pvtdata_sizes2)
{
	struct rpcrdma_ep_opts co = mkopts(1024, 65536, 4, true);
	struct rpcrdma_ep_opts so = mkopts(262144, 3072, 4, true);
	struct rpcrdma_ep *cep;
	struct srv s;

	pair_connect(&co, &so, &s, &cep);
	check_inline(cep, 1024, 65536, true);
	check_inline(s.ep, 65536, 1024, true);
	pair_destroy(&s, cep);
}
END_TEST

/* RFC 8797 section 5 / RFC 8166 section 3.3.3: no Private Data from one
 * side means 1024 bytes each way on both. _i == 0: the client sends
 * none; _i == 1: the server answers with none. */
START_TEST(test_pvtdata_none)
{
	struct rpcrdma_ep_opts co = mkopts(8192, 8192, 8, _i != 0);
	struct rpcrdma_ep_opts so = mkopts(8192, 8192, 8, _i == 0);
	struct rpcrdma_ep *cep;
	struct srv s;

	pair_connect(&co, &so, &s, &cep);
	check_inline(cep, 1024, 1024, false);
	check_inline(s.ep, 1024, 1024, false);
	pair_destroy(&s, cep);
}
END_TEST

/* ---- messages ---- */

#define NMSG 100

static uint8_t pattern(uint32_t msg, uint32_t i)
{
	return (uint8_t)(msg * 131u + i * 7u + 1u);
}

static uint32_t msg_len(uint32_t msg, uint32_t max)
{
	/* 0..max, both ends included, spread over the range. */
	if (msg == 0)
		return 0;
	if (msg == 1)
		return max;
	return (msg * 2654435761u) % (max + 1);
}

/* Sends NMSG messages as 3-piece iovecs; returns 0 or the error. */
static int send_all(struct rpcrdma_ep *ep)
{
	uint32_t max = rpcrdma_ep_inline(ep)->send_max;
	static uint8_t buf[65536];
	uint32_t m, i;

	for (m = 0; m < NMSG; m++) {
		uint32_t len = msg_len(m, max);
		struct iovec iov[3];
		int ret;

		for (i = 0; i < len; i++)
			buf[i] = pattern(m, i);
		iov[0].iov_base = buf;
		iov[0].iov_len = len / 3;
		iov[1].iov_base = buf + len / 3;
		iov[1].iov_len = len / 3;
		iov[2].iov_base = buf + 2 * (len / 3);
		iov[2].iov_len = len - 2 * (len / 3);
		ret = rpcrdma_ep_send(ep, iov, 3, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/* Receives NMSG messages and checks them byte for byte: 0, or -1 - the
 * index of the first bad message, or the poll error. */
static int recv_all(struct rpcrdma_ep *ep, uint32_t peer_max)
{
	uint32_t m, i;

	for (m = 0; m < NMSG; m++) {
		struct rpcrdma_rx rx;
		int ret = rpcrdma_ep_poll(ep, &rx, T_TIMEOUT_MS);

		if (ret != 1)
			return ret < 0 ? ret : -ETIMEDOUT;
		if (rx.len != msg_len(m, peer_max) || rx.invalidated)
			return -1000 - (int)m;
		for (i = 0; i < rx.len; i++)
			if (rx.data[i] != pattern(m, i))
				return -1000 - (int)m;
		rpcrdma_ep_rx_done(ep, &rx);
	}
	return 0;
}

struct echo {
	struct rpcrdma_ep *ep;
	uint32_t peer_max;
	int rx_ret, tx_ret;
};

static void *echo_main(void *arg)
{
	struct echo *e = arg;

	e->rx_ret = recv_all(e->ep, e->peer_max);
	e->tx_ret = send_all(e->ep);
	return NULL;
}

START_TEST(test_messages)
{
	/* Credits >= NMSG: each side has a receive posted for every message
	 * (credits + 8), so the burst never meets an RNR NAK (flow control
	 * is the glue's job); test_concurrent_send recycles the send ring. */
	struct rpcrdma_ep_opts co = mkopts(4096, 8192, NMSG, true);
	struct rpcrdma_ep_opts so = mkopts(8192, 4096, NMSG, true);
	struct rpcrdma_ep *cep;
	struct rpcrdma_stats g0, g1;
	struct echo e;
	pthread_t th;
	struct srv s;
	uint8_t big[4097];
	struct iovec iov = { big, sizeof(big) };

	rpcrdma_stats_global(&g0);
	pair_connect(&co, &so, &s, &cep);
	/* client send min(4096,4096) = 4096, server send min(8192,8192). */
	check_inline(cep, 4096, 8192, true);
	memset(big, 0, sizeof(big));
	ck_assert_int_eq(rpcrdma_ep_send(cep, &iov, 1, 0), -EMSGSIZE);
	ck_assert(!rpcrdma_ep_rx_pending(cep));

	e.ep = s.ep;
	e.peer_max = 4096;
	ck_assert_int_eq(pthread_create(&th, NULL, echo_main, &e), 0);
	ck_assert_int_eq(send_all(cep), 0);
	ck_assert_int_eq(recv_all(cep, 8192), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(e.rx_ret, 0);
	ck_assert_int_eq(e.tx_ret, 0);

	/* Nothing more queued: a zero-timeout poll returns 0 at once. */
	{
		struct rpcrdma_rx rx;

		ck_assert_int_eq(rpcrdma_ep_poll(cep, &rx, 0), 0);
		ck_assert_int_eq(rpcrdma_ep_poll(s.ep, &rx, 0), 0);
	}
	/* Receives are re-posted: still at least the credits. */
	ck_assert_uint_ge(rpcrdma_ep_recvs_posted(cep), NMSG);
	ck_assert_uint_ge(rpcrdma_ep_recvs_posted(s.ep), NMSG);
	rpcrdma_stats_global(&g1);
	ck_assert_uint_eq(g1.connects - g0.connects, 2);
	pair_destroy(&s, cep);
}
END_TEST

/* rpcrdma_ep_send from several threads at once on one endpoint (the
 * client glue's situation): every message arrives intact, none twice. A
 * message is [thread][seq lo][seq hi][fill = thread ^ seq ...]. */
#define NTHREADS	4
#define PER_THREAD	50

/* The senders respect a credit window, as the glue does: a receiver
 * without a posted receive answers RNR NAK, and the RDMA-CM's RNR timer
 * (0 = 655 ms) would make the test crawl, not fail. */
static pthread_mutex_t win_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t win_cond = PTHREAD_COND_INITIALIZER;
static uint32_t win_free;

static void win_get(void)
{
	pthread_mutex_lock(&win_lock);
	while (!win_free)
		pthread_cond_wait(&win_cond, &win_lock);
	win_free--;
	pthread_mutex_unlock(&win_lock);
}

static void win_put(void)
{
	pthread_mutex_lock(&win_lock);
	win_free++;
	pthread_cond_signal(&win_cond);
	pthread_mutex_unlock(&win_lock);
}

struct sender {
	struct rpcrdma_ep *ep;
	uint8_t id;
	int ret;
};

static void *sender_main(void *arg)
{
	struct sender *t = arg;
	uint8_t buf[600];
	uint32_t n, i;

	for (n = 0; n < PER_THREAD; n++) {
		uint32_t len = 3 + (n * 37u + t->id * 11u) % 597u;
		struct iovec iov = { buf, len };

		win_get();
		buf[0] = t->id;
		buf[1] = (uint8_t)n;
		buf[2] = (uint8_t)(n >> 8);
		for (i = 3; i < len; i++)
			buf[i] = (uint8_t)(t->id ^ n ^ i);
		t->ret = rpcrdma_ep_send(t->ep, &iov, 1, 0);
		if (t->ret)
			return NULL;
	}
	return NULL;
}

START_TEST(test_concurrent_send)
{
	struct rpcrdma_ep_opts co = mkopts(4096, 4096, 4, true);
	struct rpcrdma_ep_opts so = mkopts(4096, 4096, 16, true);
	struct sender t[NTHREADS];
	pthread_t th[NTHREADS];
	uint32_t next[NTHREADS] = { 0 };
	struct rpcrdma_ep *cep;
	struct srv s;
	uint32_t m, i;

	/* Few client credits: its send ring (credits + 8 = 12 buffers) must
	 * recycle many times; 16 messages in flight at most. */
	pair_connect(&co, &so, &s, &cep);
	win_free = 16;
	for (i = 0; i < NTHREADS; i++) {
		t[i].ep = cep;
		t[i].id = (uint8_t)i;
		t[i].ret = 0;
		ck_assert_int_eq(pthread_create(&th[i], NULL, sender_main,
						&t[i]), 0);
	}
	for (m = 0; m < NTHREADS * PER_THREAD; m++) {
		struct rpcrdma_rx rx;
		uint32_t id, n, len;

		ck_assert_int_eq(rpcrdma_ep_poll(s.ep, &rx, T_TIMEOUT_MS), 1);
		ck_assert_uint_ge(rx.len, 3);
		id = rx.data[0];
		n = rx.data[1] | (uint32_t)rx.data[2] << 8;
		ck_assert_uint_lt(id, NTHREADS);
		/* One thread's messages keep their order. */
		ck_assert_uint_eq(n, next[id]);
		next[id]++;
		len = 3 + (n * 37u + id * 11u) % 597u;
		ck_assert_uint_eq(rx.len, len);
		/* One assertion per message: in fork mode each passed
		 * ck_assert is a write to the parent, slow under TCG. */
		for (i = 3; i < len; i++)
			if (rx.data[i] != (uint8_t)(id ^ n ^ i))
				break;
		ck_assert_uint_eq(i, len);
		rpcrdma_ep_rx_done(s.ep, &rx);
		win_put();
	}
	for (i = 0; i < NTHREADS; i++) {
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
		ck_assert_int_eq(t[i].ret, 0);
		ck_assert_uint_eq(next[i], PER_THREAD);
	}
	pair_destroy(&s, cep);
}
END_TEST

/* This thread's CPU time, ms. */
static double thread_cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/*
 * poll_us: a waiting rpcrdma_ep_poll polls the CQ that long before it
 * sleeps. Messages flow both ways with it on both sides; a zero timeout
 * never polls (svc_run's xp_recv asks only what is there); a timeout
 * shorter than poll_us bounds the polling; a connection lost meanwhile
 * is reported (its CM event is read once the polling ends).
 */
START_TEST(test_poll_us)
{
	struct rpcrdma_ep_opts o = mkopts(4096, 4096, NMSG, true);
	struct rpcrdma_ep *cep;
	struct rpcrdma_rx rx;
	struct echo e;
	pthread_t th;
	struct srv s;
	uint64_t t0;
	double c0;

	o.poll_us = 400000;	/* far beyond any wait below */
	pair_connect(&o, &o, &s, &cep);
	e.ep = s.ep;
	e.peer_max = 4096;
	ck_assert_int_eq(pthread_create(&th, NULL, echo_main, &e), 0);
	ck_assert_int_eq(send_all(cep), 0);
	ck_assert_int_eq(recv_all(cep, 4096), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(e.rx_ret, 0);
	ck_assert_int_eq(e.tx_ret, 0);

	/* A zero timeout: no polling (polling would spin for poll_us, 400
	 * ms of CPU; 40 leaves room for a TCG guest on a loaded host, where
	 * one such call was seen to take 7 ms). 50 ms: polled (this
	 * thread's CPU time, which sleeping in poll(2) would not use), not
	 * past it. */
	t0 = now_ms();
	c0 = thread_cpu_ms();
	ck_assert_int_eq(rpcrdma_ep_poll(cep, &rx, 0), 0);
	ck_assert_uint_lt(now_ms() - t0, 200);
	ck_assert_double_lt(thread_cpu_ms() - c0, 40);
	t0 = now_ms();
	c0 = thread_cpu_ms();
	ck_assert_int_eq(rpcrdma_ep_poll(cep, &rx, 50), 0);
	ck_assert_uint_ge(now_ms() - t0, 50);
	ck_assert_uint_lt(now_ms() - t0, 300);
	ck_assert_msg(thread_cpu_ms() - c0 >= 10,
		      "%.1f ms of CPU in a 50 ms polled wait",
		      thread_cpu_ms() - c0);
	/* Without poll_us a wait sleeps: 200 ms of it use far less than
	 * the 200 ms of CPU a spin would (16.5 ms of a 50 ms wait was seen
	 * under ASan with two guests on the host). */
	{
		struct rpcrdma_ep_opts q = o;
		struct rpcrdma_ep *qep;
		struct srv qs;

		q.poll_us = 0;
		pair_connect(&q, &q, &qs, &qep);
		c0 = thread_cpu_ms();
		ck_assert_int_eq(rpcrdma_ep_poll(qep, &rx, 200), 0);
		ck_assert_msg(thread_cpu_ms() - c0 < 40,
			      "%.1f ms of CPU in a 200 ms sleeping wait",
			      thread_cpu_ms() - c0);
		pair_destroy(&qs, qep);
	}

	/* The peer goes while we poll: -ENOTCONN. */
	rpcrdma_ep_destroy(s.ep);
	t0 = now_ms();
	ck_assert_int_eq(rpcrdma_ep_poll(cep, &rx, T_TIMEOUT_MS), -ENOTCONN);
	ck_assert_uint_lt(now_ms() - t0, T_TIMEOUT_MS);
	rpcrdma_ep_destroy(cep);
	rpcrdma_listener_destroy(s.l);
}
END_TEST

static Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc;

	tc = tcase_create("pvtdata");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_pvtdata_sizes);
	tcase_add_test(tc, test_pvtdata_sizes2);
	tcase_add_loop_test(tc, test_pvtdata_none, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("data");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_messages);
	tcase_add_test(tc, test_concurrent_send);
	t_engine_add_rdma(tc);
	tcase_add_test(tc, test_poll_us);
	suite_add_tcase(s, tc);

	tc = t_engine_tc_connection();
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(engine_suite());
	int failed;

	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
