/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Connection loss in both directions (t_bidir): test_server_killed (a
 * forked server killed while a forward call waits and a callback
 * sleeps; the client reconnects) and test_client_killed (a forked client
 * killed while callbacks wait: they fail promptly).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include "t_bidir.h"

/* ---- connection loss ---- */

static pid_t fork_server(uint16_t port)
{
	int fds[2];
	char c;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		(void)srv_create_bidir(port, 2);
		if (write(fds[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &c, 1), 1);
	close(fds[0]);
	return pid;
}

/* One call of a sleeping procedure (F_SLEEP or CB_SLEEP) on its own
 * thread: its status and how long it took. */
struct sleepcall {
	CLIENT *cl;
	rpcproc_t proc;
	u_int ms;
	enum clnt_stat st;
	double took;
};

static void *sleepcall_main(void *arg)
{
	struct sleepcall *a = arg;
	double t0 = now_ms();

	a->st = clnt_call(a->cl, a->proc, XP(xdr_u_int), (caddr_t)&a->ms,
			  XVOID, NULL, tmo30);
	a->took = now_ms() - t0;
	return NULL;
}

/*
 * The server is killed while a forward call waits and a callback sleeps
 * in the client's dispatch: the forward call fails promptly (not at its
 * timeout), the callback's reply goes nowhere, and once a server is back
 * the next forward call reconnects and callbacks work on the new
 * connection.
 */
START_TEST(test_server_killed)
{
	uint16_t port = port_new();
	pid_t pid = fork_server(port);
	CLIENT *cl = clnt_bidir(port);
	struct sleepcall fs = { cl, F_SLEEP, 20000, RPC_SUCCESS, 0 };
	struct cbreq r = { 3, 11, 500 };
	struct rpcrdma_stats st;
	pthread_t th;
	u_int ok = 0;
	int status;

	ck_assert_int_eq(echo_on(cl, F_ECHO, 1, 1000), RPC_SUCCESS);
	ck_assert_int_eq(pthread_create(&th, NULL, sleepcall_main, &fs), 0);
	usleep(300000);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	pthread_join(th, NULL);
	ck_assert_msg(fs.st == RPC_CANTRECV || fs.st == RPC_CANTSEND,
		      "after kill: %s", clnt_sperrno(fs.st));
	ck_assert_msg(fs.took < 15000, "failed after %.0f ms", fs.took);
	pid = fork_server(port);
	ck_assert_int_eq(echo_on(cl, F_ECHO, 2, 1000), RPC_SUCCESS);
	ck_assert_int_eq(clnt_call(cl, F_CB_ECHO, XP(xdr_cbreq), (caddr_t)&r,
				   XP(xdr_u_int), (caddr_t)&ok, tmo30),
			 RPC_SUCCESS);
	ck_assert_uint_eq(ok, r.n);
	st = cstats(cl);
	ck_assert_uint_eq(st.connects, 2);
	clnt_destroy(cl);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}
END_TEST

/*
 * The client is killed while callbacks wait (one sleeping in its
 * dispatch, others queued behind it): they fail promptly with
 * RPC_CANTRECV, later calls on the callback CLIENT fail at once, and the
 * CLIENT outlives the connection.
 */
START_TEST(test_client_killed)
{
	uint16_t port = port_new();
	struct sleepcall cs[3];
	pthread_t th[3];
	int up[2], go[2], status;
	SVCXPRT *l;
	CLIENT *cb;
	char c;
	pid_t pid;

	/* The child forks before this process opens any device. */
	ck_assert_int_eq(pipe(up), 0);
	ck_assert_int_eq(pipe(go), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		CLIENT *cl;

		close(up[0]);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		cl = clnt_bidir(port);
		if (clnt_call(cl, F_SUBSCRIBE, XVOID, NULL, XVOID, NULL,
			      tmo30) != RPC_SUCCESS ||
		    write(up[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(up[1]);
	close(go[0]);
	atomic_store(&subscribed, NULL);
	l = srv_create_bidir(port, 2);
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	ck_assert_int_eq(read(up[0], &c, 1), 1);
	close(up[0]);
	close(go[1]);
	ck_assert_ptr_nonnull(atomic_load(&subscribed));
	cb = rpcrdma_svc_callback_create(atomic_load(&subscribed), CB_PROG, 1);
	ck_assert_ptr_nonnull(cb);
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 1, 2000), RPC_SUCCESS);
	for (int i = 0; i < 3; i++) {
		cs[i] = (struct sleepcall){ cb, CB_SLEEP, 20000, RPC_SUCCESS,
					    0 };
		ck_assert_int_eq(pthread_create(&th[i], NULL, sleepcall_main,
						&cs[i]), 0);
	}
	usleep(500000);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		ck_assert_msg(cs[i].st == RPC_CANTRECV ||
			      cs[i].st == RPC_CANTSEND,
			      "callback %d: %s", i, clnt_sperrno(cs[i].st));
		ck_assert_msg(cs[i].took < 15000, "failed after %.0f ms",
			      cs[i].took);
	}
	ck_assert_int_eq(echo_on(cb, CB_ECHO, 2, 100), RPC_CANTSEND);
	clnt_destroy(cb);
	srv_destroy_bidir(l);
}
END_TEST

void t_bidir_add_loss(TCase *tc)
{
	tcase_add_test(tc, test_server_killed);
	tcase_add_test(tc, test_client_killed);
}
