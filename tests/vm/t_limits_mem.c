/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_limits's test of the per-connection memory cap (of the TCase
 * "limits"; issue 27, security review 21c8dd5 finding 5): a server with
 * max_msg 4 MiB and conn_mem_max 8 MiB, one CLIENT with 8 credits and 8
 * threads echoing 2 MiB at once (a read chunk at the blob's position, a
 * Long Reply through the reply chunk). Every call succeeds with its own
 * bytes on the one connection, no RDMA_ERROR: calls wait for memory
 * (calls_waited_memory) instead of being refused, the connection holds
 * at most the cap and one call's slack (conn_mem_peak), and another
 * CLIENT's NULL calls are answered meanwhile. The same load with no cap
 * shows what the cap bounded.
 */
#define _GNU_SOURCE
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "harness.h"
#include "t_limits.h"

#define MEM_MSG		(4u << 20)	/* the server's max_msg */
#define MEM_CAP		(8u << 20)	/* its conn_mem_max */
#define MEM_ECHO	(2u << 20)	/* each call's blob */
#define MEM_THREADS	8
#define MEM_ROUNDS	3
/*
 * What the peak may pass the cap by here. A call alone is never held
 * (svc_recv.c conn_mem_admit), and one 2 MiB echo alone holds its 2 MiB
 * read buffer, the call rebuilt around it (2 MiB and its 44-byte RPC
 * header and length word) and its reply stream, which doubles from
 * 4 KiB until 2 MiB and the reply's header fit: 4 MiB, max_msg. That is
 * 8 MiB and 44 bytes (check_svc_mem sees exactly that). Two calls' read
 * buffers never fit together under the cap, so no reply grows beside
 * another call's. Buffers of 256 KiB or less that contexts keep between
 * calls are given back only when a call needs the room: here only the
 * 4 KiB reply stream of the first, 1-byte echo, should its context not
 * be the one reused. So 8 MiB, 44 bytes and 4 KiB at most.
 */
#define MEM_SLACK	8192u

struct mem_worker {
	CLIENT *cl;
	int id;
	int ok;
	atomic_int *running;
};

static void *mem_worker_main(void *arg)
{
	struct mem_worker *w = arg;

	for (int i = 0; i < MEM_ROUNDS; i++) {
		uint32_t seed = (uint32_t)(w->id * 131 + i);
		struct blob a = { MEM_ECHO, mkdata(seed, MEM_ECHO) };
		struct blob r = { 0, NULL };
		enum clnt_stat st;

		st = clnt_call(w->cl, P_ECHO, XP(xdr_blob), (caddr_t)&a,
			       XP(xdr_blob), (caddr_t)&r, tmo);
		if (st == RPC_SUCCESS && r.len == MEM_ECHO &&
		    memcmp(r.data, a.data, MEM_ECHO) == 0)
			w->ok++;
		else
			fprintf(stderr, "worker %d echo %d: %s, %u bytes\n",
				w->id, i, clnt_sperrno(st), r.len);
		clnt_freeres(w->cl, XP(xdr_blob), (caddr_t)&r);
		free(a.data);
	}
	atomic_fetch_sub(w->running, 1);
	return NULL;
}

struct mem_run {
	struct rpcrdma_stats srv;	/* the echo connection's, server side */
	struct rpcrdma_stats cl;	/* the echo CLIENT's */
	int ok;
	int nulls;			/* the other CLIENT's NULL calls */
	double worst_ms;		/* the slowest of them */
};

/* The load against a server with conn_mem_max cap (0: none). */
static struct mem_run mem_load(uint32_t cap)
{
	struct mem_worker w[MEM_THREADS];
	pthread_t th[MEM_THREADS];
	struct rpcrdma_opts o;
	struct mem_run run;
	atomic_int running;
	CLIENT *cl, *other;
	struct srv s;
	SVCXPRT *x;

	memset(&run, 0, sizeof(run));
	rpcrdma_opts_default(&o);
	o.max_msg = MEM_MSG;
	o.conn_mem_max = cap;
	srv_start_opts(&s, &o);
	other = clnt_by_netid(s.port);
	null_call(other);
	rpcrdma_opts_default(&o);
	o.port = s.port;
	o.src_addr = addr_a;
	o.credits = 8;
	o.max_msg = MEM_MSG;
	cl = clnt_rdma_create(addr_b, T_PROG, T_VERS, &o);
	ck_assert_msg(cl != NULL, "clnt_rdma_create: %s",
		      clnt_spcreateerror("clnt"));
	/* Its server side, before any other call can set last_xprt. */
	x = echo(cl, 1, 1);
	atomic_init(&running, MEM_THREADS);
	for (int i = 0; i < MEM_THREADS; i++) {
		w[i] = (struct mem_worker){ .cl = cl, .id = i,
					    .running = &running };
		ck_assert_int_eq(pthread_create(&th[i], NULL, mem_worker_main,
						&w[i]), 0);
	}
	while (atomic_load(&running) > 0) {
		double t0 = now_ms(), dt;

		null_call(other);
		dt = now_ms() - t0;
		if (dt > run.worst_ms)
			run.worst_ms = dt;
		run.nulls++;
	}
	for (int i = 0; i < MEM_THREADS; i++) {
		pthread_join(th[i], NULL);
		run.ok += w[i].ok;
	}
	run.srv = svc_stats_of(x);
	ck_assert_int_eq(rpcrdma_clnt_stats(cl, &run.cl), 0);
	clnt_destroy(cl);
	clnt_destroy(other);
	srv_stop(&s);
	return run;
}

/*
 * conn_mem_max 8 MiB, max_msg 4 MiB: 24 echoes of 2 MiB from 8 threads
 * of one CLIENT (8 credits) all succeed byte for byte on its one
 * connection, none refused (no RDMA_ERROR, no reconnection); some waited
 * for memory; the connection never held more than the cap and MEM_SLACK.
 * Another CLIENT's NULL calls are answered meanwhile (under 2 s each).
 * Then the same load with no cap: its peak, printed, is what the cap
 * bounded (two calls' buffers at once pass it).
 */
START_TEST(test_conn_mem_cap)
{
	const int calls = MEM_THREADS * MEM_ROUNDS;
	struct mem_run r = mem_load(MEM_CAP), u;

	fprintf(stderr, "conn_mem_max %u: %d of %d echoes of %u bytes, "
		"calls_waited_memory %llu, conn_mem_peak %llu; %d NULL calls "
		"of another client, slowest %.1f ms\n", MEM_CAP, r.ok, calls,
		MEM_ECHO, (unsigned long long)r.srv.calls_waited_memory,
		(unsigned long long)r.srv.conn_mem_peak, r.nulls, r.worst_ms);
	ck_assert_int_eq(r.ok, calls);
	/* Each call read and answered through its chunks, none refused. */
	ck_assert_uint_eq(r.srv.read_chunks, calls);
	ck_assert_uint_eq(r.srv.reply_chunks, calls);
	ck_assert_uint_eq(r.srv.sent_error, 0);
	ck_assert_uint_eq(r.cl.connects, 1);
	ck_assert_uint_eq(r.cl.disconnects, 0);
	ck_assert_uint_gt(r.srv.calls_waited_memory, 0);
	ck_assert_uint_le(r.srv.calls_waited_memory, calls);
	ck_assert_uint_ge(r.srv.conn_mem_peak, MEM_ECHO);
	ck_assert_msg(r.srv.conn_mem_peak <= MEM_CAP + MEM_SLACK,
		      "conn_mem_peak %llu over the cap %u and %u",
		      (unsigned long long)r.srv.conn_mem_peak, MEM_CAP,
		      MEM_SLACK);
	ck_assert_int_gt(r.nulls, 0);
	ck_assert_msg(r.worst_ms < 2000, "a NULL call took %.0f ms",
		      r.worst_ms);

	u = mem_load(0);
	fprintf(stderr, "no cap: %d of %d echoes, calls_waited_memory %llu, "
		"conn_mem_peak %llu; %d NULL calls, slowest %.1f ms\n", u.ok,
		calls, (unsigned long long)u.srv.calls_waited_memory,
		(unsigned long long)u.srv.conn_mem_peak, u.nulls, u.worst_ms);
	ck_assert_int_eq(u.ok, calls);
	ck_assert_uint_eq(u.srv.calls_waited_memory, 0);
	ck_assert_msg(u.srv.conn_mem_peak > MEM_CAP + MEM_SLACK,
		      "without a cap the connection held at most %llu: the "
		      "load never overlapped two calls",
		      (unsigned long long)u.srv.conn_mem_peak);
}
END_TEST

void t_limits_add_mem(TCase *tc)
{
	tcase_add_test(tc, test_conn_mem_cap);
}
