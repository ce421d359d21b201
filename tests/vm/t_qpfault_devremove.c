/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "devremove" case of t_qpfault (t/90-devremove.sh runs it last, and
 * adds the devices back whatever happened): test_device_removal deletes
 * the client's device (rxe0) and test_server_device_removal the server's
 * (rxe1) with `rdma link delete` while calls are in flight, with the
 * helpers that delete, wait for and add back a device under load.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "t_qpfault.h"

/*
 * ---- the client's device removed while connected ----
 *
 * rxe0 is deleted (`rdma link delete`) while 3 threads have calls in
 * flight on a CLIENT bound to it: the delete returns within D_DELETE_S,
 * every call within its timeout, failures are connection errors, no echo
 * succeeds with other bytes, both ends free their QP; with rxe0 added back
 * the same CLIENT reconnects and a new one connects; fds, RDMA objects
 * and malloc'ed memory back to idle. It removes the device the other
 * tests use: t/90-devremove.sh runs it last and adds rxe0 back whatever
 * happened.
 */

static atomic_bool del_done;
static _Atomic double del_t1;
static int del_rc;

/* arg: the device's name. */
static void *del_main(void *arg)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rdma link delete %s 2>&1",
		 (const char *)arg);
	/* timeout cannot end a delete blocked in the kernel: the test's
	 * bound is del_wait's. */
	del_rc = system(cmd);
	atomic_store(&del_t1, now_ms());
	atomic_store(&del_done, true);
	return NULL;
}

static bool del_wait(double max_s)
{
	double t0 = now_ms();

	while (!atomic_load(&del_done) && now_ms() - t0 < max_s * 1e3)
		usleep(20000);
	return atomic_load(&del_done);
}

static bool dev_active(const char *dev)
{
	char path[128], st[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/state",
		 dev);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(st, sizeof(st), f))
		st[0] = 0;
	fclose(f);
	return strstr(st, "ACTIVE") != NULL;
}

#define D_THREADS	3
#define D_DELETE_S	20	/* the delete returns within this */

/* D_THREADS threads calling on cl (one with BIG echoes), all served. */
static void load_start(struct worker *w, CLIENT *cl)
{
	memset(w, 0, D_THREADS * sizeof(*w));
	for (int i = 0; i < D_THREADS; i++) {
		w[i].cl = cl;
		w[i].id = i;
		w[i].big = i == 0;
	}
	workers_start(w, D_THREADS);
	ck_assert(workers_recovered(w, D_THREADS, 0, 2, 60));
}

/*
 * Deletes dev in another thread (the kernel's unregister waits for every
 * user of the device to close its context) while w's calls go on: the
 * delete returns within D_DELETE_S with status 0; waits until each caller
 * has made a call after it (bounded by a call's time), stops them and
 * judges every call into *v. Returns the seconds the delete took.
 */
static double delete_under_load(const char *dev, const char *tag,
				struct worker *w, struct verdict *v)
{
	double t_del0, t;
	pthread_t th;

	atomic_store(&del_done, false);
	t_del0 = now_ms();
	ck_assert_int_eq(pthread_create(&th, NULL, del_main, (void *)dev), 0);
	ck_assert_msg(del_wait(D_DELETE_S),
		      "rdma link delete %s still blocked after %d s", dev,
		      D_DELETE_S);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(del_rc, 0);
	t = now_ms();
	for (int i = 0; i < D_THREADS; i++)
		while (w[i].n && w[i].r[w[i].n - 1].t0 < atomic_load(&del_t1) &&
		       now_ms() - t < (TMO_S + MARGIN_S) * 1e3)
			usleep(10000);
	workers_stop(w, D_THREADS);
	memset(v, 0, sizeof(*v));
	for (int i = 0; i < D_THREADS; i++)
		judge(&w[i], &t_del0, 1, v);
	verdict_print(tag, v);
	return (atomic_load(&del_t1) - t_del0) / 1e3;
}

/* Adds dev back on netdev and waits until its port is ACTIVE. */
static void dev_readd(const char *dev, const char *netdev)
{
	char cmd[96];
	double t;

	snprintf(cmd, sizeof(cmd), "rdma link add %s type %s netdev %s", dev,
		 provider, netdev);
	ck_assert_int_eq(system(cmd), 0);
	t = now_ms();
	while (!dev_active(dev) && now_ms() - t < 20e3)
		usleep(100000);
	ck_assert_msg(dev_active(dev), "%s not ACTIVE 20 s after add", dev);
}

START_TEST(test_device_removal)
{
	static struct worker w[D_THREADS];
	struct rpcrdma_stats st0, st1;
	struct verdict v;
	struct idle idle;
	struct srv s;
	double t_del, t;
	int from, cq, sq, wrong = 0, tries = 0;
	enum clnt_stat st;
	CLIENT *cl, *cl2;

	alarm(240);
	srv_start(&s, 0);
	warm_up("devremove", s.port, D_THREADS);
	idle_take(&idle);
	from = q_count();
	cl = clnt_mk(s.port);
	ck_assert_int_eq(do_call(cl, K_SMALL, 7, &wrong), RPC_SUCCESS);
	q_pair(from, s.port, &cq, &sq);
	st0 = stats_of(cl);
	load_start(w, cl);

	/* The client's device (rxe0, under $RPCRDMA_ADDR_A) goes. */
	t_del = delete_under_load(dev_a, "devremove", w, &v);
	printf("devremove: rdma link delete returned after %.3f s; the "
	       "client's QP %s, the server's %s\n", t_del,
	       q_get(cq).live ? "live" : "freed",
	       q_get(sq).live ? "live" : "freed");
	/* The device goes some time into the delete: calls in flight then
	 * (not necessarily at its start) lost their connection. */
	ck_assert_int_ge(v.hist[RPC_CANTRECV], 1);
	/* Both QPs go: at once on rxe; on siw the server's when the
	 * client's TCP connection closes under it, a little later. */
	t = now_ms();
	while ((q_get(cq).live || q_get(sq).live) && now_ms() - t < 10e3)
		usleep(50000);
	printf("devremove: both QPs freed %.0f ms after the delete "
	       "returned\n", now_ms() - t);
	ck_assert(!q_get(cq).live && !q_get(sq).live);

	/* No device under the source address: a call fails at once. */
	t = now_ms();
	st = do_call(cl, K_SMALL, 9, &wrong);
	printf("devremove: a call with no device: %s after %.0f ms\n",
	       clnt_sperrno(st), now_ms() - t);
	ck_assert_msg(conn_error(st), "no device: %s", clnt_sperrno(st));
	ck_assert(now_ms() - t < TMO_S * 1e3);

	/* The device is back: the SAME CLIENT reconnects, and a new one
	 * connects (address resolution may need the new device's GID
	 * table: a few tries within 10 s). */
	dev_readd(dev_a, "v0");
	t = now_ms();
	do {
		tries++;
		st = do_call(cl, K_BIG, 13, &wrong);
	} while (st != RPC_SUCCESS && now_ms() - t < 10e3 &&
		 usleep(100000) == 0);
	st1 = stats_of(cl);
	printf("devremove: %s back; the same CLIENT: %s after %d tries, "
	       "%.0f ms (connects %llu -> %llu, disconnects %llu -> %llu)\n",
	       dev_a, clnt_sperrno(st), tries, now_ms() - t,
	       (unsigned long long)st0.connects,
	       (unsigned long long)st1.connects,
	       (unsigned long long)st0.disconnects,
	       (unsigned long long)st1.disconnects);
	ck_assert_int_eq(st, RPC_SUCCESS);
	ck_assert_int_eq(wrong, 0);
	ck_assert_uint_eq(st1.connects, 2);
	ck_assert_uint_eq(st1.disconnects, 1);
	cl2 = clnt_mk(s.port);
	ck_assert_int_eq(do_call(cl2, K_CHUNK, 15, &wrong), RPC_SUCCESS);
	ck_assert_int_eq(wrong, 0);
	clnt_destroy(cl2);
	clnt_destroy(cl);
	idle_check("devremove", &idle, s.port);
	srv_stop(&s);
	alarm(0);
}
END_TEST

/*
 * The server's device (rxe1, under $RPCRDMA_ADDR_B) deleted while a
 * CLIENT has calls in flight to a listener bound to it: the delete
 * returns within D_DELETE_S (the listener lets go of its cm_id, the
 * server frees the connection), the calls fail with connection errors in
 * time; with rxe1 back the old listener accepts nothing (it is dead, not
 * silently listening on), and a new server on the same address serves a
 * new CLIENT. fds, RDMA objects and memory back to idle.
 */
START_TEST(test_server_device_removal)
{
	static struct worker w[D_THREADS];
	struct rpcrdma_opts o;
	struct verdict v;
	struct idle idle;
	struct srv s, s2;
	double t_del, t;
	int from, cq, sq, wrong = 0;
	CLIENT *cl, *cl2;

	alarm(240);
	srv_start(&s, 0);
	warm_up("devremove server", s.port, D_THREADS);
	idle_take(&idle);
	from = q_count();
	cl = clnt_mk(s.port);
	ck_assert_int_eq(do_call(cl, K_SMALL, 7, &wrong), RPC_SUCCESS);
	q_pair(from, s.port, &cq, &sq);
	load_start(w, cl);

	timeout_ok = true;
	t_del = delete_under_load(dev_b, "devremove server", w, &v);
	printf("devremove server: rdma link delete %s returned after %.3f "
	       "s; the client's QP %s, the server's %s\n", dev_b, t_del,
	       q_get(cq).live ? "live" : "freed",
	       q_get(sq).live ? "live" : "freed");
	/* Calls in flight lost their connection, or waited out their
	 * timeout for a server that vanished. */
	ck_assert_int_ge(v.hist[RPC_CANTRECV] + v.hist[RPC_TIMEDOUT], 1);
	ck_assert(!q_get(sq).live);
	timeout_ok = false;

	dev_readd(dev_b, "v1");
	/* The old listener is gone with its device: nobody answers on its
	 * port, the old CLIENT's calls fail. */
	rpcrdma_opts_default(&o);
	o.port = s.port;
	o.src_addr = addr_a;
	o.timeout_ms = 3000;
	cl2 = clnt_rdma_create(addr_b, T_PROG, T_VERS, &o);
	printf("devremove server: a CLIENT to the old listener after the "
	       "re-add: %s\n", cl2 ? "connected" : clnt_spcreateerror("clnt"));
	ck_assert_ptr_null(cl2);
	ck_assert(conn_error(do_call(cl, K_SMALL, 9, &wrong)));
	clnt_destroy(cl);
	srv_stop(&s);
	/* A new server on the same address serves again. */
	srv_start(&s2, 0);
	t = now_ms();
	cl2 = clnt_mk(s2.port);
	ck_assert_int_eq(do_call(cl2, K_BIG, 17, &wrong), RPC_SUCCESS);
	ck_assert_int_eq(wrong, 0);
	printf("devremove server: a new server and CLIENT after the re-add: "
	       "first call after %.0f ms\n", now_ms() - t);
	clnt_destroy(cl2);
	idle_check("devremove server", &idle, s2.port);
	srv_stop(&s2);
	alarm(0);
}
END_TEST

/* The "devremove" case, added to su after the "qpfault" one. */
void t_qpfault_add_devremove(Suite *su)
{
	TCase *td = tcase_create("devremove");

	tcase_set_timeout(td, 300);
	tcase_add_test(td, test_device_removal);
	tcase_add_test(td, test_server_device_removal);
	suite_add_tcase(su, td);
}
