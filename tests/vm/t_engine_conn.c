/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_engine's "connection" case: test_disconnect (either side goes, the
 * other's fd and poll report it), test_refused (nobody listens; bad
 * options), test_teardown_drain (a teardown waits for its flushes, not a
 * clock) and test_cycles (connect and destroy 200 times: no fd, verbs
 * object or memory left behind).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#include "engine/engine.h"
#include "t_engine.h"

/* ---- disconnection ---- */

/* _i == 0: the client goes away, the server's poll sees it; _i == 1:
 * the other way round. Both through the endpoint's own fd. */
START_TEST(test_disconnect)
{
	struct rpcrdma_ep_opts o = mkopts(4096, 4096, 8, true);
	struct rpcrdma_ep *cep, *gone, *stays;
	struct pollfd pfd;
	struct rpcrdma_rx rx;
	uint8_t b[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct iovec iov = { b, sizeof(b) };
	uint64_t t0;
	struct srv s;
	int ret;

	pair_connect(&o, &o, &s, &cep);
	gone = _i == 0 ? cep : s.ep;
	stays = _i == 0 ? s.ep : cep;
	/* A message in flight before the disconnect is still delivered. */
	ck_assert_int_eq(rpcrdma_ep_send(gone, &iov, 1, 0), 0);
	ck_assert_int_eq(rpcrdma_ep_poll(stays, &rx, T_TIMEOUT_MS), 1);
	ck_assert_mem_eq(rx.data, b, sizeof(b));
	rpcrdma_ep_rx_done(stays, &rx);

	rpcrdma_ep_destroy(gone);
	t0 = now_ms();
	/* The fd alone reports it (what svc_run would see). */
	pfd.fd = rpcrdma_ep_fd(stays);
	pfd.events = POLLIN;
	ck_assert_int_eq(poll(&pfd, 1, T_TIMEOUT_MS), 1);
	ret = rpcrdma_ep_poll(stays, &rx, T_TIMEOUT_MS);
	ck_assert_int_eq(ret, -ENOTCONN);
	ck_assert_uint_lt(now_ms() - t0, T_TIMEOUT_MS);
	ck_assert(!rpcrdma_ep_connected(stays));
	ck_assert_int_eq(rpcrdma_ep_send(stays, &iov, 1, 0), -ENOTCONN);
	ck_assert_uint_eq(rpcrdma_ep_stats(stays)->disconnects, 1);
	/* Still -ENOTCONN, and at once. */
	ck_assert_int_eq(rpcrdma_ep_poll(stays, &rx, -1), -ENOTCONN);
	rpcrdma_ep_destroy(stays);
	rpcrdma_listener_destroy(s.l);
}
END_TEST

/* Nobody listens on that port: the CM rejects, within the timeout. */
START_TEST(test_refused)
{
	struct rpcrdma_ep_opts o = mkopts(4096, 4096, 8, true);
	struct sockaddr_in dst = addr_b;
	struct rpcrdma_ep *ep = (struct rpcrdma_ep *)&dst;
	uint64_t t0 = now_ms();
	int ret;

	dst.sin_port = htons(1);
	ret = rpcrdma_ep_connect((const struct sockaddr *)&dst,
				 (const struct sockaddr *)&addr_a, &o, &ep);
	ck_assert_msg(ret == -ECONNREFUSED || ret == -ETIMEDOUT,
		      "connect: %d", ret);
	ck_assert_ptr_null(ep);
	ck_assert_uint_lt(now_ms() - t0, 4 * T_TIMEOUT_MS);
	/* Bad options: sizes that RFC 8797 cannot carry. */
	o.inline_send = 1000;
	ck_assert_int_eq(rpcrdma_ep_connect((const struct sockaddr *)&dst,
					    (const struct sockaddr *)&addr_a,
					    &o, &ep), -EINVAL);
}
END_TEST

/*
 * 198abdf review #21: a teardown waits for its QP's flushes by their
 * completion events (engine/core.c, ep_drain), not by looking every
 * millisecond for up to EP_DRAIN_MAX_MS (250 ms, engine/ep_int.h): a
 * server that closes many connections pays each one's flush, which rxe
 * and siw deliver within microseconds of the QP's move to error. NCONN
 * server endpoints destroyed in turn, half after their client left (what
 * svc_run does with a connection its client closed), half with the
 * client still there (a server closing on its own): none reaches the
 * bound, and all together take less than two of it. The times are
 * printed; under TCG they are noisy, which the margins allow for.
 */
#define NCONN		16
#define DRAIN_BOUND_MS	250u	/* EP_DRAIN_MAX_MS */

START_TEST(test_teardown_drain)
{
	struct rpcrdma_ep_opts o = mkopts(4096, 4096, 32, true);
	struct rpcrdma_ep *cep[NCONN];
	struct srv s[NCONN];
	struct rpcrdma_rx rx;
	uint64_t t, total = 0, worst = 0;

	for (int i = 0; i < NCONN; i++)
		pair_connect(&o, &o, &s[i], &cep[i]);
	for (int i = 0; i < NCONN; i++) {
		if (i % 2 == 0) {
			rpcrdma_ep_destroy(cep[i]);
			ck_assert_int_eq(rpcrdma_ep_poll(s[i].ep, &rx,
							 T_TIMEOUT_MS),
					 -ENOTCONN);
		}
		t = now_ms();
		rpcrdma_ep_destroy(s[i].ep);
		t = now_ms() - t;
		total += t;
		if (t > worst)
			worst = t;
		if (i % 2)
			rpcrdma_ep_destroy(cep[i]);
		rpcrdma_listener_destroy(s[i].l);
	}
	printf("t_engine: %d teardowns: %llu ms in all, %llu ms at most\n",
	       NCONN, (unsigned long long)total, (unsigned long long)worst);
	ck_assert_uint_lt(worst, DRAIN_BOUND_MS);
	ck_assert_uint_lt(total, 2 * DRAIN_BOUND_MS);
}
END_TEST

/* ---- cleanup ---- */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Sum of one kind of verbs object over all devices, from the rdma tool's
 * "rdma resource" summary ("0: rxe0: pd 2 cq 3 qp 2 cm_id 1 mr 4"), or -1
 * when the tool is missing. */
static long rdma_res_count(const char *kind)
{
	FILE *f = popen("rdma resource show 2>/dev/null", "r");
	char line[512], key[32];
	long sum = -1;

	if (!f)
		return -1;
	snprintf(key, sizeof(key), " %s ", kind);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, key);

		if (p) {
			sum = (sum < 0 ? 0 : sum) +
			      strtol(p + strlen(key), NULL, 10);
		}
	}
	pclose(f);
	return sum;
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long size = 0, rss = 0;

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &rss) != 2)
		rss = -1;
	fclose(f);
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

#define NCYCLES 200

START_TEST(test_cycles)
{
	struct rpcrdma_ep_opts o = mkopts(4096, 4096, 32, true);
	struct rpcrdma_ep *ep;
	struct sockaddr_in dst;
	struct srv s;
	long mr0 = -1, qp0 = -1, cq0 = -1, pd0 = -1, rss0 = -1;
	int fds0 = -1, i;
	uint64_t t0;

	srv_start(&s, &o, true);
	dst = srv_dst(&s);
	for (i = 0; i <= NCYCLES; i++) {
		if (i == 1) {	/* after librdmacm opened its devices */
			fds0 = count_fds();
			mr0 = rdma_res_count("mr");
			qp0 = rdma_res_count("qp");
			cq0 = rdma_res_count("cq");
			pd0 = rdma_res_count("pd");
			rss0 = rss_kib();
		}
		ck_assert_int_eq(rpcrdma_ep_connect(
					 (const struct sockaddr *)&dst,
					 (const struct sockaddr *)&addr_a, &o,
					 &ep), 0);
		rpcrdma_ep_destroy(ep);
	}
	/* The server side ends each connection either as an accepted
	 * endpoint it destroys or, when the client's DREQ overtakes its RTU,
	 * as a pending one the listener frees on DISCONNECTED: either way
	 * every fd comes back. */
	t0 = now_ms();
	while (count_fds() > fds0 && now_ms() - t0 < 20000)
		poll(NULL, 0, 10);
	/* The kernel's own objects may go a little later than our fds
	 * (rxe frees a QP from its tasks): a leak stays, lag does not. */
	while ((rdma_res_count("qp") > qp0 || rdma_res_count("mr") > mr0 ||
		rdma_res_count("cq") > cq0 || rdma_res_count("pd") > pd0) &&
	       now_ms() - t0 < 20000)
		poll(NULL, 0, 100);
	s.stop = true;
	ck_assert_int_eq(pthread_join(s.th, NULL), 0);
	ck_assert_int_eq(s.err, 0);
	ck_assert_int_le(s.accepted, NCYCLES + 1);
	ck_assert_int_ge(s.accepted, NCYCLES / 2);
	/* At most fds0: the count taken after the first cycle may still
	 * hold that cycle's server endpoint (the listener thread had not
	 * destroyed it yet: 12 then 10 seen under load); a leak only grows. */
	ck_assert_int_le(count_fds(), fds0);
	/* No verbs object left behind (the rdma tool counts the kernel's;
	 * at most the first cycle's count, as for the fds),
	 * no memory growth beyond noise (each endpoint holds ~330 KiB). */
	ck_assert_int_le(rdma_res_count("mr"), mr0);
	ck_assert_int_le(rdma_res_count("qp"), qp0);
	ck_assert_int_le(rdma_res_count("cq"), cq0);
	ck_assert_int_le(rdma_res_count("pd"), pd0);
	ck_assert_int_ge(mr0, 0);
#ifndef __SANITIZE_ADDRESS__	/* ASan's quarantine holds freed memory */
	ck_assert_int_lt(rss_kib() - rss0, 4096);
#else
	(void)rss0;
#endif
	rpcrdma_listener_destroy(s.l);
	ck_assert_int_eq(count_fds(), fds0 - 1);
}
END_TEST

/* The "connection" case, as engine_suite adds it. */
TCase *t_engine_tc_connection(void)
{
	TCase *tc;

	tc = tcase_create("connection");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, test_disconnect, 0, 2);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_teardown_drain);
	tcase_add_test(tc, test_cycles);
	return tc;
}
