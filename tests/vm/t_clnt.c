/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest test of the RPC-over-RDMA CLIENT (xprt_rdma/clnt_rdma.c) against
 * the SVCXPRT (svc_rdma.c) of a hand-written program, in one process: the
 * server on $RPCRDMA_ADDR_B driven by a thread looping on
 * svc_getreq_poll, the client from $RPCRDMA_ADDR_A. Every payload is
 * checked byte for byte and the client's counters prove which path
 * (inline, Long Call, Long Reply) each call took.
 * Run: tests/vm/run -- ./tests/vm/t_clnt (from the build directory).
 * Tests here: the NULL procedure and clnt_control, creation errors, call
 * and reply sizes, AUTH_NONE / AUTH_SYS, negotiated thresholds, a flavour
 * with per-call state under threads, reconnection and the big messages;
 * the others are in t_clnt_{threads,raw,expose,zero_copy,backward,cve}.c
 * and the shared helpers in t_clnt_util.c (t_clnt.h).
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_clnt.h"

static bool call_fits(const struct rpcrdma_inline *in, size_t n)
{
	return CALL_OVERHEAD + T_RNDUP(n) <= in->send_max;
}

static bool reply_fits(const struct rpcrdma_inline *in, size_t n)
{
	return REPLY_OVERHEAD + T_RNDUP(n) <= in->recv_max;
}

/* ---- tests ---- */

/* NULL procedure, clnt_control requests, RPC-level errors. */
START_TEST(test_control)
{
	struct srv s;
	CLIENT *cl;
	struct timeval tv = { 7, 5 }, got;
	struct rpcrdma_inline in;
	struct sockaddr_storage ss;
	struct netbuf nb;
	uint32_t v;
	int fd = -1;
	enum clnt_stat st;

	srv_start(&s, 32, 1u << 20);
	cl = clnt_mk(s.port, 32, 1u << 20);
	ck_assert_str_eq(cl->cl_netid, "rdma");
	ck_assert_int_eq(clnt_call(cl, P_NULL, XP(xdr_void), NULL,
				   XP(xdr_void), NULL, tmo), RPC_SUCCESS);

	/* RFC 8797 defaults on both sides: 4096 each way. */
	ck_assert(clnt_control(cl, CLGET_RDMA_INLINE, (char *)&in));
	ck_assert_uint_eq(in.send_max, 4096);
	ck_assert_uint_eq(in.recv_max, 4096);
	ck_assert(in.peer_sent_pvtdata);

	ck_assert(clnt_control(cl, CLSET_TIMEOUT, (char *)&tv));
	ck_assert(clnt_control(cl, CLGET_TIMEOUT, (char *)&got));
	ck_assert_int_eq(got.tv_sec, 7);
	ck_assert_int_eq(got.tv_usec, 5);
	tv.tv_usec = 1000000;
	ck_assert(!clnt_control(cl, CLSET_TIMEOUT, (char *)&tv));

	v = 0x12345;
	ck_assert(clnt_control(cl, CLSET_XID, (char *)&v));
	ck_assert_int_eq(clnt_call(cl, P_NULL, XP(xdr_void), NULL,
				   XP(xdr_void), NULL, tmo), RPC_SUCCESS);
	ck_assert(clnt_control(cl, CLGET_XID, (char *)&v));
	ck_assert_uint_eq(v, 0x12345);

	ck_assert(clnt_control(cl, CLGET_VERS, (char *)&v));
	ck_assert_uint_eq(v, T_VERS);
	ck_assert(clnt_control(cl, CLGET_PROG, (char *)&v));
	ck_assert_uint_eq(v, T_PROG);
	ck_assert(clnt_control(cl, CLGET_FD, (char *)&fd));
	ck_assert_int_ge(fd, 0);
	ck_assert(clnt_control(cl, CLSET_FD_CLOSE, NULL));
	ck_assert(clnt_control(cl, CLGET_SERVER_ADDR, (char *)&ss));
	ck_assert_int_eq(ss.ss_family, AF_INET);
	ck_assert_uint_eq(ntohs(((struct sockaddr_in *)&ss)->sin_port),
			  s.port);
	ck_assert(clnt_control(cl, CLGET_SVC_ADDR, (char *)&nb));
	ck_assert_uint_eq(nb.len, sizeof(struct sockaddr_in));

	/* Unknown procedure, then wrong version and program. */
	st = clnt_call(cl, 99, XP(xdr_void), NULL, XP(xdr_void), NULL, tmo);
	ck_assert_int_eq(st, RPC_PROCUNAVAIL);
	v = T_VERS + 1;
	ck_assert(clnt_control(cl, CLSET_VERS, (char *)&v));
	st = clnt_call(cl, P_NULL, XP(xdr_void), NULL, XP(xdr_void), NULL,
		       tmo);
	ck_assert_int_eq(st, RPC_PROGVERSMISMATCH);
	v = T_VERS;
	ck_assert(clnt_control(cl, CLSET_VERS, (char *)&v));
	v = T_PROG + 1;
	ck_assert(clnt_control(cl, CLSET_PROG, (char *)&v));
	st = clnt_call(cl, P_NULL, XP(xdr_void), NULL, XP(xdr_void), NULL,
		       tmo);
	ck_assert_int_eq(st, RPC_PROGUNAVAIL);
	v = T_PROG;
	ck_assert(clnt_control(cl, CLSET_PROG, (char *)&v));
	ck_assert_int_eq(clnt_call(cl, P_NULL, XP(xdr_void), NULL,
				   XP(xdr_void), NULL, tmo), RPC_SUCCESS);
	ck_assert_uint_eq(stats_of(cl).calls_inline, 6);

	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

/* Calls of every interesting size: inline, at the threshold (header
 * counted), Long Call, Long Reply. */
START_TEST(test_sizes)
{
	static const size_t fixed[] = { 0, 1, 1023, 1024, 1025, 65536,
					1u << 20 };
	struct rpcrdma_inline in;
	struct srv s;
	CLIENT *cl;
	size_t t;

	srv_start(&s, 32, (1u << 20) + 4096);
	cl = clnt_mk(s.port, 32, (1u << 20) + 4096);
	ck_assert(clnt_control(cl, CLGET_RDMA_INLINE, (char *)&in));
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		echo_check(cl, fixed[i], call_fits(&in, fixed[i]),
			   reply_fits(&in, fixed[i]));
	/* The call threshold: the largest n with 92 + T_RNDUP(n) <= 4096 is
	 * 4004; 4005 rounds up to 4008 and goes as a Long Call (its reply,
	 * 76 + 4008 = 4084 bytes, still fits inline). */
	t = in.send_max - CALL_OVERHEAD;
	ck_assert_uint_eq(t, 4004);
	echo_check(cl, t - 1, true, true);
	echo_check(cl, t, true, true);
	echo_check(cl, t + 1, false, true);
	/* The reply threshold: 76 + T_RNDUP(n) <= 4096 up to n = 4020. */
	t = in.recv_max - REPLY_OVERHEAD;
	ck_assert_uint_eq(t, 4020);
	fill_check(cl, (u_int)t - 1, true);
	fill_check(cl, (u_int)t, true);
	fill_check(cl, (u_int)t + 1, false);
	echo_check(cl, t + 1, false, false);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

/* AUTH_NONE and AUTH_SYS pass through the transport unchanged. */
START_TEST(test_auth)
{
	gid_t gids[2] = { 100, 101 };
	struct who w;
	struct srv s;
	AUTH *none;
	CLIENT *cl;

	srv_start(&s, 8, 1u << 16);
	cl = clnt_mk(s.port, 8, 1u << 16);
	memset(&w, 0xff, sizeof(w));
	expect_ok(cl, clnt_call(cl, P_WHO, XP(xdr_void), NULL, XP(xdr_who),
				&w, tmo), "who (none)");
	ck_assert_uint_eq(w.flavor, AUTH_NONE);
	none = cl->cl_auth;
	cl->cl_auth = authunix_create("rdmahost", 1234, 5678, 2, gids);
	ck_assert_ptr_nonnull(cl->cl_auth);
	expect_ok(cl, clnt_call(cl, P_WHO, XP(xdr_void), NULL, XP(xdr_who),
				&w, tmo), "who (sys)");
	ck_assert_uint_eq(w.flavor, AUTH_SYS);
	ck_assert_uint_eq(w.uid, 1234);
	ck_assert_uint_eq(w.gid, 5678);
	ck_assert_uint_eq(w.ngids, 2);
	/* A large call with AUTH_SYS: the credential survives a Long Call. */
	echo_check(cl, 20000, false, false);
	auth_destroy(cl->cl_auth);
	cl->cl_auth = none;
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

/*
 * Several negotiated thresholds (RFC 8797 section 4.2: each direction's
 * threshold is the smaller of the sender's Send size and the receiver's
 * Receive size; no Private Data means 1024 both ways, RFC 8166 section
 * 3.3.3). For each pairing: the negotiated values, then calls and replies
 * at threshold - 1, threshold and threshold + 1, with the header counted.
 */
struct pairing {
	uint32_t c_send, c_recv, s_send, s_recv;
	bool c_nopd, s_nopd, c_r, s_r;
	uint32_t want_send, want_recv;	/* as the client sees them */
};

static const struct pairing pairings[] = {
	/* client 1024/1024 vs server 4096/4096: 1024 both ways */
	{ 1024, 1024, 4096, 4096, false, false, false, false, 1024, 1024 },
	/* asymmetric: send min(8192, 2048), receive min(16384, 4096) */
	{ 8192, 16384, 4096, 2048, false, false, false, false, 2048, 4096 },
	/* both large */
	{ 16384, 16384, 16384, 16384, false, false, false, false, 16384,
	  16384 },
	/* the client sends no Private Data: 1024 both ways */
	{ 8192, 8192, 8192, 8192, true, false, false, false, 1024, 1024 },
	/* the server sends none */
	{ 8192, 8192, 8192, 8192, false, true, false, false, 1024, 1024 },
	/* the R bit on one side only: no Send With Invalidate (s4.1) */
	{ 4096, 4096, 4096, 4096, false, false, true, false, 4096, 4096 },
	{ 4096, 4096, 4096, 4096, false, false, false, true, 4096, 4096 },
};

START_TEST(test_thresholds)
{
	const struct pairing *p = &pairings[_i];
	struct rpcrdma_opts co, so;
	struct rpcrdma_inline in;
	struct srv s;
	CLIENT *cl;
	size_t t;

	rpcrdma_opts_default(&co);
	rpcrdma_opts_default(&so);
	co.inline_send = p->c_send;
	co.inline_recv = p->c_recv;
	co.no_pvtdata = p->c_nopd;
	co.remote_inv = p->c_r;
	so.inline_send = p->s_send;
	so.inline_recv = p->s_recv;
	so.no_pvtdata = p->s_nopd;
	so.remote_inv = p->s_r;
	clnt_base = &co;
	srv_base = &so;
	srv_start(&s, 8, 1u << 16);
	cl = clnt_mk(s.port, 8, 1u << 16);
	ck_assert(clnt_control(cl, CLGET_RDMA_INLINE, (char *)&in));
	ck_assert_uint_eq(in.send_max, p->want_send);
	ck_assert_uint_eq(in.recv_max, p->want_recv);
	ck_assert(!in.peer_remote_inv);
	ck_assert(in.peer_sent_pvtdata == !(p->s_nopd || p->c_nopd));
	t = in.send_max - CALL_OVERHEAD;
	echo_check(cl, t - 1, true, reply_fits(&in, t - 1));
	echo_check(cl, t, true, reply_fits(&in, t));
	echo_check(cl, t + 1, false, reply_fits(&in, t + 1));
	t = in.recv_max - REPLY_OVERHEAD;
	fill_check(cl, (u_int)t - 1, true);
	fill_check(cl, (u_int)t, true);
	fill_check(cl, (u_int)t + 1, false);
	clnt_destroy(cl);
	srv_stop(&s);
	clnt_base = srv_base = NULL;
}
END_TEST

/*
 * Large messages each way. One header's chunks may total 16 MiB + 64 KiB
 * (the default decoder limit), so a Long Call leaves a reply chunk of
 * what remains: the big call goes out with an inline reply (HASH), the
 * big reply comes back to an inline call (FILL), and half of it makes the
 * round trip (ECHO). The server scales its RDMA Read/Write time limit
 * with the size, so the full 16 MiB runs even under TCG (about a minute);
 * RPCRDMA_T_BIG_MIB=1..16 picks a smaller size for quick runs. A CLIENT
 * made with the defaults takes the big reply with no configuration. A
 * call over the server's largest message goes out (the client sets no
 * limit of its own below RPCRDMA_CALL_MAX) and gets the server's
 * ERR_CHUNK before any RDMA Read: RPC_CANTDECODEARGS, the error text
 * naming the limit, the connection kept.
 */
START_TEST(test_big)
{
	const char *env = getenv("RPCRDMA_T_BIG_MIB");
	u_int mib = env && atoi(env) > 0 && atoi(env) <= 16 ? (u_int)atoi(env)
							       : 16;
	struct blob arg = { mib << 20, mkdata(5, mib << 20) };
	struct rpcrdma_stats a, b;
	struct srv s;
	CLIENT *cl;

	srv_start(&s, 4, T_BIG_MSG);
	cl = clnt_mk(s.port, 4, T_BIG_MSG);
	a = stats_of(cl);
	hash_check(cl, &arg);
	b = stats_of(cl);
	/* The blob in a read chunk at its position (DDP). */
	ck_assert_uint_eq(b.calls_read_chunks - a.calls_read_chunks, 1);
	ck_assert_uint_eq(b.replies_inline - a.replies_inline, 1);
	fill_check(cl, mib << 20, false);
	echo_check(cl, mib << 19, false, false);
	/* Without DDP the same calls are Long Calls. */
	{
		struct rpcrdma_opts o;
		CLIENT *lc;

		rpcrdma_opts_default(&o);
		o.ddp_threshold = 0;
		clnt_base = &o;
		lc = clnt_mk(s.port, 4, T_BIG_MSG);
		clnt_base = NULL;
		a = stats_of(lc);
		hash_check(lc, &arg);
		b = stats_of(lc);
		ck_assert_uint_eq(b.calls_long - a.calls_long, 1);
		echo_check(lc, mib << 18, false, false);
		clnt_destroy(lc);
		clnt_ddp = RPCRDMA_DDP_THRESHOLD;
	}
	/* The defaults take the big reply (a Long Reply): no knob. */
	{
		struct rpcrdma_opts o;
		uint32_t mm = 0;
		CLIENT *dc;

		rpcrdma_opts_default(&o);
		o.port = s.port;
		o.src_addr = addr_a;
		dc = clnt_rdma_create(addr_b, T_PROG, T_VERS, &o);
		ck_assert_ptr_nonnull(dc);
		ck_assert(clnt_control(dc, CLGET_RDMA_MAX_MSG, (char *)&mm));
		ck_assert_uint_ge(mm, (16u << 20) + 28);
		fill_check(dc, mib << 20, false);
		clnt_destroy(dc);
	}
	/* Past the server's max_msg: sent, refused before any RDMA Read. */
	free(arg.data);
	arg.len = T_BIG_MSG;
	arg.data = mkdata(1, T_BIG_MSG);
	a = stats_of(cl);
	ck_assert_int_eq(clnt_call(cl, P_ECHO, XP(xdr_blob), &arg,
				   XP(xdr_blob), NULL, tmo),
			 RPC_CANTDECODEARGS);
	/* The error text names the limit and its knob. */
	ck_assert_msg(strstr(clnt_sperror(cl, "big"), "RPCRDMA_MAX_MSG"),
		      "%s", clnt_sperror(cl, "big"));
	b = stats_of(cl);
	ck_assert_uint_eq(b.calls_read_chunks - a.calls_read_chunks, 1);
	ck_assert_uint_eq(b.err_chunk_recv - a.err_chunk_recv, 1);
	ck_assert_uint_eq(b.connects, a.connects);
	hash_check(cl, &(struct blob){ 4096, arg.data });
	free(arg.data);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

/*
 * A flavour with per-call state, as RPCSEC_GSS is (its WRAP uses the
 * sequence number its MARSHALL took): MARSHALL counts, WRAP checks, after
 * a pause, that no other call's MARSHALL came in between. On the wire it
 * is AUTH_NONE. Its flavour number is private (RFC 5531 section 8.2).
 */
#define T_FLAVOR	390000
static atomic_uint stateful_seq, stateful_mixups, stateful_wraps;
static _Thread_local unsigned int stateful_mine;

static int stateful_marshal(AUTH *a, XDR *x)
{
	int32_t none[4] = { 0, 0, 0, 0 };

	(void)a;
	stateful_mine = atomic_fetch_add(&stateful_seq, 1) + 1;
	return XDR_PUTBYTES(x, (char *)none, sizeof(none));
}

static int stateful_wrap(AUTH *a, XDR *x, xdrproc_t f, caddr_t p)
{
	(void)a;
	usleep(300);	/* widens the window another MARSHALL would use */
	if (atomic_load(&stateful_seq) != stateful_mine)
		atomic_fetch_add(&stateful_mixups, 1);
	atomic_fetch_add(&stateful_wraps, 1);
	return (*f)(x, p);
}

static int stateful_validate(AUTH *a, struct opaque_auth *v)
{
	(void)a;
	(void)v;
	return TRUE;
}

static int stateful_unwrap(AUTH *a, XDR *x, xdrproc_t f, caddr_t p)
{
	(void)a;
	return (*f)(x, p);
}

static int stateful_refresh(AUTH *a, void *m)
{
	(void)a;
	(void)m;
	return FALSE;
}

static void stateful_nop(AUTH *a)
{
	(void)a;
}

static struct auth_ops stateful_ops = {
	.ah_nextverf = stateful_nop,
	.ah_marshal = stateful_marshal,
	.ah_validate = stateful_validate,
	.ah_refresh = stateful_refresh,
	.ah_destroy = stateful_nop,
	.ah_wrap = stateful_wrap,
	.ah_unwrap = stateful_unwrap,
};

static void *stateful_caller(void *arg)
{
	CLIENT *cl = arg;

	for (int i = 0; i < 20; i++)
		if (clnt_call(cl, P_NULL, XP(xdr_void), NULL, XP(xdr_void),
			      NULL, tmo) != RPC_SUCCESS)
			return (void *)1;
	return NULL;
}

/*
 * Many threads on one CLIENT with a flavour that keeps per-call state:
 * its MARSHALL and WRAP of one call are never split by another call's
 * MARSHALL (RPCSEC_GSS would otherwise wrap with another call's sequence
 * number).
 */
START_TEST(test_auth_stateful_threads)
{
	AUTH st, *none;
	pthread_t th[8];
	struct srv s;
	CLIENT *cl;

	memset(&st, 0, sizeof(st));
	st.ah_cred.oa_flavor = T_FLAVOR;
	st.ah_verf = _null_auth;
	st.ah_ops = &stateful_ops;
	srv_start(&s, 8, 1u << 16);
	cl = clnt_mk(s.port, 8, 1u << 16);
	none = cl->cl_auth;
	cl->cl_auth = &st;
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, stateful_caller,
						cl), 0);
	for (int i = 0; i < 8; i++) {
		void *r;

		pthread_join(th[i], &r);
		ck_assert_ptr_null(r);
	}
	ck_assert_uint_eq(atomic_load(&stateful_wraps), 8 * 20);
	ck_assert_uint_eq(atomic_load(&stateful_mixups), 0);
	cl->cl_auth = none;
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

/* The server process dies: calls fail (never hang); once it is back the
 * next call reconnects with a fresh Private Data exchange. */
static pid_t srv_fork(uint16_t port)
{
	char ready;
	int fds[2];
	pid_t pid;

	/* The child says when it listens: a fixed sleep is too short under
	 * TCG on a loaded machine (the connect is then refused). */
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		srv_create(port, 8, 1u << 16);
		if (write(fds[1], "r", 1) != 1)
			_exit(1);
		close(fds[1]);
		srv_loop(NULL);
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &ready, 1), 1);
	close(fds[0]);
	return pid;
}

START_TEST(test_reconnect)
{
	struct timeval t5 = { 5, 0 };
	uint16_t port = port_new();
	struct rpcrdma_stats st;
	struct rpc_err err;
	enum clnt_stat rc;
	pid_t pid;
	CLIENT *cl;

	pid = srv_fork(port);
	cl = clnt_mk(port, 8, 1u << 16);
	echo_check(cl, 10, true, true);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	rc = clnt_call(cl, P_NULL, XP(xdr_void), NULL, XP(xdr_void), NULL,
		       t5);
	ck_assert_msg(rc == RPC_CANTRECV || rc == RPC_CANTSEND ||
			      rc == RPC_TIMEDOUT,
		      "after kill: %s", clnt_sperrno(rc));
	clnt_geterr(cl, &err);
	/* Nobody listens now: the reconnect fails, quickly. */
	rc = clnt_call(cl, P_NULL, XP(xdr_void), NULL, XP(xdr_void), NULL,
		       t5);
	ck_assert_msg(rc != RPC_SUCCESS, "no server yet");
	pid = srv_fork(port);
	echo_check(cl, 10, true, true);
	echo_check(cl, 50000, false, false);
	st = stats_of(cl);
	ck_assert_uint_ge(st.connects, 2);
	clnt_destroy(cl);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
END_TEST

/* Creation errors: no such host, nobody listening. */
START_TEST(test_create_errors)
{
	struct rpcrdma_opts o;

	rpcrdma_opts_default(&o);
	o.port = port_new();
	o.src_addr = addr_a;
	o.timeout_ms = 2000;
	ck_assert_ptr_null(clnt_rdma_create("no.such.host.invalid", T_PROG,
					    T_VERS, &o));
	ck_assert_int_eq(rpc_createerr.cf_stat, RPC_UNKNOWNHOST);
	ck_assert_ptr_null(clnt_rdma_create(addr_b, T_PROG, T_VERS, &o));
	ck_assert_int_eq(rpc_createerr.cf_stat, RPC_SYSTEMERROR);
	ck_assert_int_ne(rpc_createerr.cf_error.re_errno, 0);
	o.credits = 0;
	ck_assert_ptr_null(clnt_rdma_create(addr_b, T_PROG, T_VERS, &o));
}
END_TEST

static Suite *clnt_suite(void)
{
	Suite *s = suite_create("clnt_rdma");
	TCase *tc = tcase_create("calls");
	TCase *big = tcase_create("big");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_control);
	tcase_add_test(tc, test_create_errors);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_auth);
	tcase_add_loop_test(tc, test_thresholds, 0,
			    (int)(sizeof(pairings) / sizeof(pairings[0])));
	t_clnt_add_threads(tc);
	t_clnt_add_raw(tc);
	t_clnt_add_exposure(tc);
	t_clnt_add_zero_copy(tc);
	tcase_add_test(tc, test_auth_stateful_threads);
	t_clnt_add_backward(tc);
	t_clnt_add_cve(tc);
	tcase_add_test(tc, test_reconnect);
	suite_add_tcase(s, tc);
	tcase_set_timeout(big, 400);
	tcase_add_test(big, test_big);
	suite_add_tcase(s, big);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	addr_a = getenv("RPCRDMA_ADDR_A");
	addr_b = getenv("RPCRDMA_ADDR_B");
	if (!addr_a || !*addr_a)
		addr_a = "10.99.0.1";
	if (!addr_b || !*addr_b)
		addr_b = "10.99.0.2";
	iwarp = getenv("RPCRDMA_PROVIDER") &&
		!strcmp(getenv("RPCRDMA_PROVIDER"), "siw");
	sr = srunner_create(clnt_suite());
	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
