/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Guest test of the RPC-over-RDMA CLIENT (xprt_rdma/clnt_rdma.c) against
 * the SVCXPRT (svc_rdma.c) of a hand-written program, in one process: the
 * server on $RPCRDMA_ADDR_B driven by a thread looping on
 * svc_getreq_poll, the client from $RPCRDMA_ADDR_A. Every payload is
 * checked byte for byte and the client's counters prove which path
 * (inline, Long Call, Long Reply) each call took.
 * Run: tests/vm/run -- ./tests/vm/t_clnt (from the build directory).
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <rpc/rpc.h>

#include <rpcrdma/rpcrdma.h>
#include <rpcrdma/hdr.h>
#include <rpcrdma/pvtdata.h>
#include <rpcrdma/wire.h>
#include "xprt_rdma/xprt.h"
#include "ep_sync.h"

#define T_PROG		0x20005a5au
#define T_VERS		1u
#define P_NULL		0u
#define P_ECHO		1u	/* blob -> the same blob */
#define P_FILL		2u	/* u_int n -> blob of n pattern bytes */
#define P_SLEEP		3u	/* u_int ms -> void, after ms */
#define P_HASH		4u	/* blob -> u_int FNV-1a of its bytes */
#define P_WHO		5u	/* void -> struct who: the caller's credential */
#define P_HASH3		6u	/* three blobs -> u_int trio_hash of them */
#define T_BLOB_MAX	(17u << 20)
#define T_BIG_MSG	((16u << 20) + 4096u)

/* Inline sizes with the defaults (RFC 8797: 4096 each way, section 4):
 * call = 48-byte header (fixed 16, empty read list 4, empty write list 4,
 * reply chunk 4 + 4 + 16) + 40 bytes of call header and AUTH_NONE
 * (xid, CALL, rpcvers, prog, vers, proc, 2 x (flavor, length 0)) + the
 * blob (4 + RNDUP(n)); reply = 28-byte header (fixed 16, three empty
 * lists) + 24 bytes of accepted reply (xid, REPLY, MSG_ACCEPTED, verifier
 * 8, SUCCESS) + the blob. */
#define CALL_OVERHEAD	(48u + 40u + 4u)
#define REPLY_OVERHEAD	(28u + 24u + 4u)
#define T_RNDUP(n)	(((n) + 3u) & ~3u)

#define XP(f) ((xdrproc_t)(void (*)(void))(f))

static const char *addr_a, *addr_b;
/* The provider under test is iWARP (RPCRDMA_PROVIDER=siw). */
static bool iwarp;

/* A port of our own per test: each test runs in its own forked child. */
static uint16_t port_new(void)
{
	static uint16_t next;

	if (!next)
		next = (uint16_t)(20100 + (getpid() % 2000) * 8);
	return next++;
}

struct blob {
	u_int len;
	char *data;
};

static bool_t xdr_blob(XDR *x, struct blob *b)
{
	return xdr_bytes(x, &b->data, &b->len, T_BLOB_MAX);
}

static uint8_t pattern(uint32_t seed, size_t i)
{
	return (uint8_t)(seed + i * 7u + (i >> 9));
}

static char *mkdata(uint32_t seed, size_t n)
{
	char *d = malloc(n ? n : 1);

	ck_assert_ptr_nonnull(d);
	for (size_t i = 0; i < n; i++)
		d[i] = (char)pattern(seed, i);
	return d;
}

static u_int fnv1a(const char *d, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)d[i]) * 16777619u;
	return h;
}

/* What the server saw of the caller's credential. */
struct who {
	u_int flavor, uid, gid, ngids;
};

static bool_t xdr_who(XDR *x, struct who *w)
{
	return xdr_u_int(x, &w->flavor) && xdr_u_int(x, &w->uid) &&
	       xdr_u_int(x, &w->gid) && xdr_u_int(x, &w->ngids);
}

/* Three items in one call. */
struct trio {
	struct blob b[3];
};

static bool_t xdr_trio(XDR *x, struct trio *t)
{
	return xdr_blob(x, &t->b[0]) && xdr_blob(x, &t->b[1]) &&
	       xdr_blob(x, &t->b[2]);
}

static u_int trio_hash(const struct trio *t)
{
	return fnv1a(t->b[0].data, t->b[0].len) ^
	       (fnv1a(t->b[1].data, t->b[1].len) * 3u) ^
	       (fnv1a(t->b[2].data, t->b[2].len) * 7u);
}

/* ---- the server ---- */

static void dispatch(struct svc_req *rq, SVCXPRT *x)
{
	struct blob b = { 0, NULL };
	u_int n = 0;

	switch (rq->rq_proc) {
	case P_NULL:
		svc_sendreply(x, XP(xdr_void), NULL);
		break;
	case P_ECHO:
		if (!svc_getargs(x, XP(xdr_blob), &b)) {
			svcerr_decode(x);
			break;
		}
		svc_sendreply(x, XP(xdr_blob), &b);
		svc_freeargs(x, XP(xdr_blob), &b);
		break;
	case P_FILL:
		if (!svc_getargs(x, XP(xdr_u_int), &n) || n > T_BLOB_MAX) {
			svcerr_decode(x);
			break;
		}
		b.len = n;
		b.data = mkdata(n, n);
		svc_sendreply(x, XP(xdr_blob), &b);
		free(b.data);
		break;
	case P_HASH:
		if (!svc_getargs(x, XP(xdr_blob), &b)) {
			svcerr_decode(x);
			break;
		}
		n = fnv1a(b.data, b.len);
		svc_sendreply(x, XP(xdr_u_int), &n);
		svc_freeargs(x, XP(xdr_blob), &b);
		break;
	case P_HASH3: {
		struct trio t;

		memset(&t, 0, sizeof(t));
		if (!svc_getargs(x, XP(xdr_trio), &t)) {
			svcerr_decode(x);
			break;
		}
		n = trio_hash(&t);
		svc_sendreply(x, XP(xdr_u_int), &n);
		svc_freeargs(x, XP(xdr_trio), &t);
		break;
	}
	case P_SLEEP:
		if (!svc_getargs(x, XP(xdr_u_int), &n)) {
			svcerr_decode(x);
			break;
		}
		usleep(n * 1000u);
		svc_sendreply(x, XP(xdr_void), NULL);
		break;
	case P_WHO: {
		struct who w = { (u_int)rq->rq_cred.oa_flavor, 0, 0, 0 };

		/* libtirpc's AUTH_SYS service has already unpacked it. */
		if (rq->rq_cred.oa_flavor == AUTH_SYS) {
			const struct authunix_parms *p = (const void *)
							       rq->rq_clntcred;
			w.uid = p->aup_uid;
			w.gid = p->aup_gid;
			w.ngids = p->aup_len;
		}
		svc_sendreply(x, XP(xdr_who), &w);
		break;
	}
	default:
		svcerr_noproc(x);
		break;
	}
}

struct srv {
	SVCXPRT *lsn;
	uint16_t port;
	atomic_bool stop;
	pthread_t th;
};

/* svc_run() with a way out: poll what libtirpc has registered. */
static void srv_loop(atomic_bool *stop)
{
	struct pollfd fds[256];

	while (!stop || !atomic_load(stop)) {
		int n = svc_max_pollfd, r;

		if (n > 256)
			n = 256;
		memcpy(fds, svc_pollfd, (size_t)n * sizeof(fds[0]));
		r = poll(fds, (nfds_t)n, 50);
		if (r > 0)
			svc_getreq_poll(fds, r);
	}
}

static void *srv_main(void *arg)
{
	struct srv *s = arg;

	srv_loop(&s->stop);
	return NULL;
}

/* Private Data settings a test wants on each side (NULL: defaults). */
static const struct rpcrdma_opts *srv_base, *clnt_base;

static SVCXPRT *srv_create(uint16_t port, uint32_t credits, uint32_t max_msg)
{
	struct rpcrdma_opts o;
	SVCXPRT *lsn;

	if (srv_base)
		o = *srv_base;
	else
		rpcrdma_opts_default(&o);
	o.port = port;
	o.credits = credits;
	o.max_msg = max_msg;
	lsn = svc_rdma_create(addr_b, &o);
	ck_assert_msg(lsn != NULL, "svc_rdma_create: %s",
		      clnt_spcreateerror("svc"));
	ck_assert(rpcrdma_svc_reg(lsn, T_PROG, T_VERS, dispatch));
	return lsn;
}

static void srv_start(struct srv *s, uint32_t credits, uint32_t max_msg)
{
	memset(s, 0, sizeof(*s));
	s->port = port_new();
	s->lsn = srv_create(s->port, credits, max_msg);
	atomic_init(&s->stop, false);
	ck_assert_int_eq(pthread_create(&s->th, NULL, srv_main, s), 0);
}

static void srv_stop(struct srv *s)
{
	usleep(200000);	/* lets the loop see the client's disconnect */
	atomic_store(&s->stop, true);
	pthread_join(s->th, NULL);
	svc_unreg(T_PROG, T_VERS);
	svc_destroy(s->lsn);
}

/* ---- the client ---- */

/* The DDP threshold of the last client made (echo_check's expectation). */
static uint32_t clnt_ddp = RPCRDMA_DDP_THRESHOLD;

static CLIENT *clnt_mk(uint16_t port, uint32_t credits, uint32_t max_msg)
{
	struct rpcrdma_opts o;
	CLIENT *cl;

	if (clnt_base)
		o = *clnt_base;
	else
		rpcrdma_opts_default(&o);
	o.port = port;
	o.src_addr = addr_a;
	o.credits = credits;
	o.max_msg = max_msg;
	clnt_ddp = o.ddp_threshold;
	cl = clnt_rdma_create(addr_b, T_PROG, T_VERS, &o);
	ck_assert_msg(cl != NULL, "clnt_rdma_create: %s",
		      clnt_spcreateerror("clnt"));
	return cl;
}

static struct rpcrdma_stats stats_of(CLIENT *cl)
{
	struct rpcrdma_stats st;

	ck_assert_int_eq(rpcrdma_clnt_stats(cl, &st), 0);
	return st;
}

static const struct timeval tmo = { 60, 0 };

static void expect_ok(CLIENT *cl, enum clnt_stat st, const char *what)
{
	struct rpc_err e;

	if (st == RPC_SUCCESS)
		return;
	clnt_geterr(cl, &e);
	ck_abort_msg("%s: %s (errno %d)", what, clnt_sperrno(st), e.re_errno);
}

/*
 * ECHO of n bytes: content and the path each direction took. A call that
 * does not fit inline moves its blob into a read chunk at its position
 * when the blob reaches the client's DDP threshold, else it is a Long
 * Call (RFC 8166 sections 3.5.2-3.5.3).
 */
static void echo_check(CLIENT *cl, size_t n, bool want_call_inline,
		       bool want_reply_inline)
{
	bool ddp = !want_call_inline && clnt_ddp && n >= clnt_ddp;
	struct rpcrdma_stats a = stats_of(cl), b;
	struct blob arg = { (u_int)n, mkdata((uint32_t)n, n) };
	struct blob res = { 0, NULL };
	enum clnt_stat st;

	st = clnt_call(cl, P_ECHO, XP(xdr_blob), &arg, XP(xdr_blob), &res, tmo);
	expect_ok(cl, st, "echo");
	ck_assert_uint_eq(res.len, n);
	if (n)
		ck_assert_msg(memcmp(res.data, arg.data, n) == 0,
			      "echo %zu: bytes differ", n);
	b = stats_of(cl);
	ck_assert_msg(b.calls_inline - a.calls_inline == want_call_inline &&
		      b.calls_read_chunks - a.calls_read_chunks == ddp &&
		      b.calls_long - a.calls_long ==
			      (!want_call_inline && !ddp),
		      "echo %zu: call not %s", n,
		      want_call_inline ? "inline" : ddp ? "DDP" : "long");
	ck_assert_msg(b.replies_inline - a.replies_inline ==
			      want_reply_inline &&
		      b.replies_long - a.replies_long == !want_reply_inline,
		      "echo %zu: reply not %s", n,
		      want_reply_inline ? "inline" : "long");
	ck_assert(clnt_freeres(cl, XP(xdr_blob), &res));
	free(arg.data);
}

/* HASH of a blob: the server saw exactly its bytes. */
static void hash_check(CLIENT *cl, struct blob *arg)
{
	u_int h = 0;

	expect_ok(cl, clnt_call(cl, P_HASH, XP(xdr_blob), arg, XP(xdr_u_int),
				&h, tmo), "hash");
	ck_assert_uint_eq(h, fnv1a(arg->data, arg->len));
}

/* FILL n: a small inline call, an n-byte reply. */
static void fill_check(CLIENT *cl, u_int n, bool want_reply_inline)
{
	struct rpcrdma_stats a = stats_of(cl), b;
	struct blob res = { 0, NULL };
	enum clnt_stat st;
	char *want = mkdata(n, n);

	st = clnt_call(cl, P_FILL, XP(xdr_u_int), &n, XP(xdr_blob), &res, tmo);
	expect_ok(cl, st, "fill");
	ck_assert_uint_eq(res.len, n);
	ck_assert(n == 0 || memcmp(res.data, want, n) == 0);
	b = stats_of(cl);
	ck_assert_uint_eq(b.calls_inline - a.calls_inline, 1);
	ck_assert_msg(b.replies_inline - a.replies_inline ==
			      want_reply_inline &&
		      b.replies_long - a.replies_long == !want_reply_inline,
		      "fill %u: reply not %s", n,
		      want_reply_inline ? "inline" : "long");
	clnt_freeres(cl, XP(xdr_blob), &res);
	free(want);
}

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
	 * 56 + 4008 = 4064 bytes, still fits inline). */
	t = in.send_max - CALL_OVERHEAD;
	ck_assert_uint_eq(t, 4004);
	echo_check(cl, t - 1, true, true);
	echo_check(cl, t, true, true);
	echo_check(cl, t + 1, false, true);
	/* The reply threshold: 56 + T_RNDUP(n) <= 4096 up to n = 4040. */
	t = in.recv_max - REPLY_OVERHEAD;
	ck_assert_uint_eq(t, 4040);
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

/* ---- many threads on one CLIENT ---- */

#define NTHREADS	64
#define NCALLS		4

struct worker {
	CLIENT *cl;
	int id;
	int ok;
};

static pthread_barrier_t workers_go;

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	u_int ms = 40;

	/*
	 * All at once, a first call that the server holds 40 ms: the server
	 * serves one call at a time, so 8 are out and the other 56 callers
	 * must wait for a credit, however fast the fabric is.
	 */
	pthread_barrier_wait(&workers_go);
	if (clnt_call(w->cl, P_SLEEP, XP(xdr_u_int), &ms, XP(xdr_void), NULL,
		      tmo) != RPC_SUCCESS)
		return NULL;
	for (int i = 0; i < NCALLS; i++) {
		/* Every fourth call does not fit inline (8000 > 4004). */
		size_t n = (w->id + i) % 4 == 0 ? 8000 : 100 + w->id;
		struct blob a = { (u_int)n, mkdata((uint32_t)(w->id * 31 + i),
						   n) };
		struct blob r = { 0, NULL };

		enum clnt_stat cs = clnt_call(w->cl, P_ECHO, XP(xdr_blob), &a,
					      XP(xdr_blob), &r, tmo);
		if (cs == RPC_SUCCESS &&
		    r.len == n && memcmp(r.data, a.data, n) == 0)
			w->ok++;
		else
			printf("worker %d call %d (%zu bytes): %s, %u bytes "
			       "back\n", w->id, i, n, clnt_sperrno(cs), r.len);
		clnt_freeres(w->cl, XP(xdr_blob), &r);
		free(a.data);
	}
	return NULL;
}

/* 64 threads, a server granting 8: all complete, never more than 8 out;
 * the second time with the poller polling the CQ before it sleeps
 * (opts.poll_us), which hands the poller role on as often. */
START_TEST(test_threads_credits)
{
	struct worker w[NTHREADS];
	pthread_t th[NTHREADS];
	struct rpcrdma_stats st;
	struct rpcrdma_opts o;
	struct srv s;
	CLIENT *cl;
	int ok = 0;

	srv_start(&s, 8, 1u << 16);
	rpcrdma_opts_default(&o);
	o.poll_us = _i ? 500 : 0;
	clnt_base = &o;
	cl = clnt_mk(s.port, 64, 1u << 16);
	clnt_base = NULL;
	ck_assert_int_eq(pthread_barrier_init(&workers_go, NULL, NTHREADS), 0);
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .cl = cl, .id = i };
		ck_assert_int_eq(pthread_create(&th[i], NULL, worker_main,
						&w[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		ok += w[i].ok;
	}
	st = stats_of(cl);
	ck_assert_int_eq(ok, NTHREADS * NCALLS);
	pthread_barrier_destroy(&workers_go);
	/* The SLEEP calls are inline too. */
	ck_assert_uint_eq(st.calls_inline + st.calls_read_chunks,
			  NTHREADS * (NCALLS + 1));
	/* 8000 bytes reach the DDP threshold: a read chunk each. */
	ck_assert_uint_eq(st.calls_read_chunks, NTHREADS * NCALLS / 4);
	ck_assert_uint_eq(st.credits_granted, 8);
	ck_assert_uint_le(st.inflight_peak, 8);
	ck_assert_uint_ge(st.inflight_peak, 2);
	ck_assert_uint_gt(st.credit_waits, 0);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

/* A call that times out is abandoned; its late reply is dropped and its
 * credit comes back: the next calls work. */
START_TEST(test_timeout)
{
	struct timeval short_tmo = { 0, 300000 };
	struct srv s;
	CLIENT *cl;
	u_int ms = 1500;
	struct rpc_err err;

	srv_start(&s, 8, 1u << 16);
	cl = clnt_mk(s.port, 8, 1u << 16);
	ck_assert_int_eq(clnt_call(cl, P_SLEEP, XP(xdr_u_int), &ms,
				   XP(xdr_void), NULL, short_tmo),
			 RPC_TIMEDOUT);
	clnt_geterr(cl, &err);
	ck_assert_int_eq(err.re_status, RPC_TIMEDOUT);
	/* Waits behind the sleeping call (the server is serial). */
	ck_assert_int_eq(clnt_call(cl, P_NULL, XP(xdr_void), NULL,
				   XP(xdr_void), NULL, tmo), RPC_SUCCESS);
	for (int i = 0; i < 20; i++)
		echo_check(cl, 10, true, true);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

/*
 * A call times out while another thread holds the poller role, asleep
 * for its own long call: the timed-out call's windows (reply chunk; the
 * client without R, so they are invalidated, not reset) are revoked by
 * the poller, woken for it, and the caller returns at once; the long
 * call goes on undisturbed on the same connection.
 */
struct sleeper {
	CLIENT *cl;
	u_int ms;
	struct timeval tmo;
	enum clnt_stat st;
	double secs;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *sleeper_main(void *arg)
{
	struct sleeper *z = arg;
	double t0 = now_s();

	z->st = clnt_call(z->cl, P_SLEEP, XP(xdr_u_int), &z->ms,
			  XP(xdr_void), NULL, z->tmo);
	z->secs = now_s() - t0;
	return NULL;
}

static bool windows_expected(void);

static void null_ok(CLIENT *cl)
{
	expect_ok(cl, clnt_call(cl, P_NULL, XP(xdr_void), NULL, XP(xdr_void),
				NULL, tmo), "null");
}

START_TEST(test_timeout_while_polled)
{
	struct sleeper p, t;
	struct rpcrdma_stats a, b;
	struct rpcrdma_opts o;
	pthread_t pth, tth;
	struct srv s;
	CLIENT *cl;

	srv_start(&s, 8, 1u << 16);
	rpcrdma_opts_default(&o);
	o.remote_inv = false;
	clnt_base = &o;
	cl = clnt_mk(s.port, 8, 1u << 16);
	clnt_base = NULL;
	null_ok(cl);
	a = stats_of(cl);
	p = (struct sleeper){ cl, 2500, { 20, 0 }, RPC_FAILED, 0 };
	t = (struct sleeper){ cl, 10, { 0, 400000 }, RPC_FAILED, 0 };
	ck_assert_int_eq(pthread_create(&pth, NULL, sleeper_main, &p), 0);
	usleep(300000);		/* p is the poller, asleep */
	ck_assert_int_eq(pthread_create(&tth, NULL, sleeper_main, &t), 0);
	pthread_join(tth, NULL);
	pthread_join(pth, NULL);
	b = stats_of(cl);
	/* t waited behind p on the serial server and gave up. */
	ck_assert_int_eq(t.st, RPC_TIMEDOUT);
	ck_assert_msg(t.secs < 2.0, "the timed-out call took %.2f s", t.secs);
	ck_assert_int_eq(p.st, RPC_SUCCESS);
	ck_assert_uint_eq(b.connects, a.connects);
	ck_assert_uint_eq(b.disconnects, a.disconnects);
	if (windows_expected())
		ck_assert_uint_ge(b.local_invalidations - a.local_invalidations,
				  2);
	null_ok(cl);
	clnt_destroy(cl);
	srv_stop(&s);
}
END_TEST

/*
 * The reply chunk is exposed for its call only: a raw responder (the
 * engine's listener) writes into it while the call waits, which works,
 * answers inline, and once clnt_call has returned the same RDMA Write is
 * refused by the client's side (remote access error): the window was
 * invalidated, locally, before the call returned (or, where windows are
 * not used, the chunk's registration was dropped).
 */
struct raw_accept {
	struct rpcrdma_listener *l;
	struct rpcrdma_ep *ep;
};

static void *raw_accept_main(void *arg)
{
	struct raw_accept *a = arg;
	struct pollfd pfd = { .fd = rpcrdma_listener_fd(a->l),
			      .events = POLLIN };

	for (int i = 0; i < 200 && !a->ep; i++) {
		poll(&pfd, 1, 50);
		if (rpcrdma_listener_accept(a->l, &a->ep) < 0)
			break;
	}
	return NULL;
}

/* The call raw_pair_call makes: P_NULL with tmo unless a test sets
 * another (a NULL xargs or xres is xdr_void, a zero tmo is tmo). */
struct raw_caller {
	CLIENT *cl;
	rpcproc_t proc;
	xdrproc_t xargs, xres;
	void *args, *res;
	struct timeval tmo;
	enum clnt_stat st;
};

static void *raw_caller_main(void *arg)
{
	struct raw_caller *c = arg;
	struct timeval t = c->tmo.tv_sec || c->tmo.tv_usec ? c->tmo : tmo;

	c->st = clnt_call(c->cl, c->proc, c->xargs ? c->xargs : XP(xdr_void),
			  c->args, c->xres ? c->xres : XP(xdr_void), c->res,
			  t);
	return NULL;
}

/* A raw responder on a new port with a client connected to it. */
struct raw_pair {
	struct raw_accept a;
	struct raw_caller c;
	pthread_t cth;
};

/* Whether the raw responder advertises R (RFC 8797 section 4.1). */
static bool raw_pair_r = true;

static void raw_pair_open(struct raw_pair *p)
{
	struct rpcrdma_ep_opts eo;
	struct rpcrdma_opts o;
	struct sockaddr_in sin;
	uint16_t port = port_new();
	pthread_t ath;

	memset(p, 0, sizeof(*p));
	rpcrdma_opts_default(&o);
	o.remote_inv = raw_pair_r;
	ck_assert_int_eq(rpcrdma_opts_to_ep(&o, &eo), 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	inet_pton(AF_INET, addr_b, &sin.sin_addr);
	ck_assert_int_eq(rpcrdma_listener_create((struct sockaddr *)&sin, &eo,
						 &p->a.l), 0);
	ck_assert_int_eq(pthread_create(&ath, NULL, raw_accept_main, &p->a),
			 0);
	p->c.cl = clnt_mk(port, 4, 1u << 16);
	pthread_join(ath, NULL);
	ck_assert_ptr_nonnull(p->a.ep);
}

/* Starts p->c's call in a thread and takes it: its header in *m. */
static void raw_pair_take(struct raw_pair *p, struct rpcrdma_msg *m)
{
	struct rpcrdma_limits lim;
	struct rpcrdma_rx rx;
	size_t hlen;

	ck_assert_int_eq(pthread_create(&p->cth, NULL, raw_caller_main,
					&p->c), 0);
	ck_assert_int_eq(rpcrdma_ep_poll(p->a.ep, &rx, 10000), 1);
	rpcrdma_limits_default(&lim);
	ck_assert_int_eq(rpcrdma_hdr_decode(rx.data, rx.len, &lim, m, &hlen),
			 RPCRDMA_HDR_OK);
	rpcrdma_ep_rx_done(p->a.ep, &rx);
}

/* As raw_pair_take, for a call that offers a reply chunk (NULL does). */
static void raw_pair_call(struct raw_pair *p, struct rpcrdma_msg *m)
{
	raw_pair_take(p, m);
	ck_assert(m->has_reply);
	ck_assert_uint_eq(m->reply.nsegs, 1);
}

/* RDMA_MSG, three empty lists, then an accepted reply with accept_stat
 * stat (0: SUCCESS) and nres words of results, sent With Invalidate of
 * inv_rkey unless 0. */
static void raw_pair_reply_res(struct raw_pair *p, const struct rpcrdma_msg *m,
			       uint32_t stat, uint32_t inv_rkey,
			       const uint32_t *res, uint32_t nres)
{
	uint32_t w[13 + 4];
	struct iovec iov = { w, (13 + nres) * 4 };

	ck_assert_uint_le(nres, 4);
	w[0] = htonl(m->xid); w[1] = htonl(1); w[2] = htonl(m->credits);
	w[3] = htonl(RPCRDMA_MSG); w[4] = w[5] = w[6] = 0;
	w[7] = htonl(m->xid); w[8] = htonl(1); w[9] = w[10] = w[11] = 0;
	w[12] = htonl(stat);
	for (uint32_t i = 0; i < nres; i++)
		w[13 + i] = htonl(res[i]);
	ck_assert_int_eq(rpcrdma_ep_send(p->a.ep, &iov, 1, inv_rkey), 0);
}

static void raw_pair_reply(struct raw_pair *p, const struct rpcrdma_msg *m,
			   uint32_t stat, uint32_t inv_rkey)
{
	raw_pair_reply_res(p, m, stat, inv_rkey, NULL, 0);
}

static enum clnt_stat raw_pair_result(struct raw_pair *p)
{
	pthread_join(p->cth, NULL);
	return p->c.st;
}

static void raw_pair_close(struct raw_pair *p)
{
	clnt_destroy(p->c.cl);
	rpcrdma_ep_destroy(p->a.ep);
	rpcrdma_listener_destroy(p->a.l);
}

/*
 * Whether the client refused the RDMA operation that returned rc from
 * the raw endpoint ep: a remote access error (IB and RoCE NAK it). iWARP
 * reports the error to the target instead (RFC 5040 section 4.8): the
 * initiator's Write completes once handed to TCP, and the target ends the
 * connection with a TERMINATE, which then flushes the initiator's work
 * (docs/conformance.md). There, a refusal is the connection ending.
 */
static bool refused(struct rpcrdma_ep *ep, int rc)
{
	struct rpcrdma_rx rx;

	if (rc == -EACCES)
		return true;
	if (!iwarp || (rc != 0 && rc != -ENOTCONN && rc != -EIO))
		return false;
	return rpcrdma_ep_poll(ep, &rx, 5000) == -ENOTCONN;
}

START_TEST(test_reply_window)
{
	struct rpcrdma_stats st;
	struct rpcrdma_segment seg;
	struct rpcrdma_msg m;
	struct raw_pair p;
	uint8_t junk[64];

	raw_pair_open(&p);
	raw_pair_call(&p, &m);
	seg = m.segs[m.reply.first];
	memset(junk, 0x5a, sizeof(junk));
	/* While the call waits, its reply chunk takes RDMA Writes. */
	ck_assert_int_eq(rpcrdma_ep_write(p.a.ep, junk, sizeof(junk), &seg, 1,
					  NULL, 5000), 0);
	raw_pair_reply(&p, &m, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	st = stats_of(p.c.cl);
	/* A window invalidated locally, or (rxe before 6.12) an MR
	 * deregistered. */
	ck_assert_uint_eq(st.local_invalidations,
			  rpcrdma_ep_windows(p.a.ep) ? 1 : 0);
	/* The call returned: the same Write is refused (remote access
	 * error, not a timeout or a lost connection; on iWARP the client's
	 * TERMINATE). */
	ck_assert(refused(p.a.ep, rpcrdma_ep_write(p.a.ep, junk, sizeof(junk),
						   &seg, 1, NULL, 5000)));
	raw_pair_close(&p);
}
END_TEST

/*
 * Two replies to one call, sent back to back: the first is the call's
 * (SUCCESS), the second (PROC_UNAVAIL) is dropped, and the connection
 * carries the next call. Whether the second arrives while the first's
 * window invalidation is pending (the slot's replied flag drops it) or
 * after the call completed (no slot matches it) is not forced: in this
 * guest it is the latter.
 */
START_TEST(test_duplicate_reply)
{
	struct rpcrdma_msg m;
	struct raw_pair p;

	raw_pair_open(&p);
	raw_pair_call(&p, &m);
	raw_pair_reply(&p, &m, 0, 0);
	raw_pair_reply(&p, &m, 3, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	raw_pair_call(&p, &m);
	raw_pair_reply(&p, &m, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	ck_assert_uint_eq(stats_of(p.c.cl).connects, 1);
	raw_pair_close(&p);
}
END_TEST

/*
 * A reply sent With Invalidate of the call's reply chunk although the
 * client did not set R (RFC 8797 section 4.1), or of an rkey that is not
 * the call's: the client closes the connection and fails the call, and
 * never invalidates that window again (on rxe that would crash the
 * guest's kernel). The call's own rkey, once the client set R, is the
 * legitimate case, whether the responder set R (c == 1) or not (c == 0:
 * the Linux server advertises R = 0 and invalidates all the same): the
 * call succeeds without a local invalidation.
 */
START_TEST(test_unasked_remote_invalidation)
{
	struct rpc_err e;
	struct rpcrdma_msg m;
	struct raw_pair p;
	struct rpcrdma_stats a, b;
	struct rpcrdma_opts no_r;

	rpcrdma_opts_default(&no_r);
	no_r.remote_inv = false;
	for (int c = 0; c < 4; c++) {
		uint32_t rkey;

		raw_pair_r = c != 0;
		clnt_base = c == 3 ? &no_r : NULL;
		raw_pair_open(&p);
		raw_pair_r = true;
		clnt_base = NULL;
		if (!rpcrdma_ep_windows(p.a.ep)) {
			/* An MR cannot be invalidated remotely: the Send
			 * would only break the responder's own QP. */
			raw_pair_close(&p);
			return;
		}
		a = stats_of(p.c.cl);
		raw_pair_call(&p, &m);
		rkey = m.segs[m.reply.first].handle;
		/* c == 2: the next key of the same window, not this call's. */
		raw_pair_reply(&p, &m, 0, c == 2 ? ((rkey & ~0xffu) |
						    ((rkey + 1) & 0xffu))
						  : rkey);
		b = stats_of(p.c.cl);
		if (c <= 1) {
			ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
			b = stats_of(p.c.cl);
			ck_assert_uint_eq(b.connects, 1);
		} else {
			ck_assert_int_eq(raw_pair_result(&p), RPC_CANTRECV);
			clnt_geterr(p.c.cl, &e);
			ck_assert_int_eq(e.re_errno, ENOTCONN);
			b = stats_of(p.c.cl);
		}
		/* c == 2: rxe itself refuses a key that is not the
		 * window's current one (the QP fails), or the client finds
		 * the key is not the call's: the connection goes either
		 * way, and nothing is invalidated locally. */
		if (c != 2 && c != 3)
			ck_assert_uint_ge(b.remote_invalidations -
						  a.remote_invalidations, 1);
		ck_assert_uint_eq(b.local_invalidations,
				  a.local_invalidations);
		raw_pair_close(&p);
	}
}
END_TEST

/* RDMA_MSG whose write list is one chunk of segs[0..n), then an
 * accepted reply (SUCCESS) whose results are nres words (a NULL call's:
 * none). */
static void raw_pair_reply_writes(struct raw_pair *p,
				  const struct rpcrdma_msg *m,
				  const struct rpcrdma_segment *segs,
				  uint32_t n, const uint32_t *res,
				  uint32_t nres)
{
	uint32_t w[64];
	size_t k = 0;
	struct iovec iov;

	w[k++] = htonl(m->xid); w[k++] = htonl(1); w[k++] = htonl(m->credits);
	w[k++] = htonl(RPCRDMA_MSG); w[k++] = 0;
	w[k++] = htonl(1); w[k++] = htonl(n);
	for (uint32_t i = 0; i < n; i++) {
		w[k++] = htonl(segs[i].handle);
		w[k++] = htonl(segs[i].length);
		w[k++] = htonl((uint32_t)(segs[i].offset >> 32));
		w[k++] = htonl((uint32_t)segs[i].offset);
	}
	w[k++] = 0; w[k++] = 0;
	w[k++] = htonl(m->xid); w[k++] = htonl(1); w[k++] = 0; w[k++] = 0;
	w[k++] = 0; w[k++] = 0;
	ck_assert_uint_le(k + nres, 64);
	for (uint32_t i = 0; i < nres; i++)
		w[k++] = htonl(res[i]);
	iov.iov_base = w;
	iov.iov_len = k * 4;
	ck_assert_int_eq(rpcrdma_ep_send(p->a.ep, &iov, 1, 0), 0);
}

/*
 * A reply's chunk lists must be what the call offered (RFC 8166 section
 * 3.4.6): more bytes than the chunk holds, more segments than offered, a
 * segment the call never named, data in a chunk that the results do not
 * take, a read list, a reply chunk with RDMA_MSG or elsewhere than
 * offered fail that call (RPC_CANTDECODERES), never mix bytes into it,
 * and the connection carries the next call. A chunk returned unused
 * (length 0) is fine.
 */
START_TEST(test_bad_write_list)
{
	struct rpcrdma_proc_ddp d = { P_NULL, 1, 4096 };
	struct rpcrdma_segment g[2];
	struct rpcrdma_msg m;
	struct raw_pair p;

	raw_pair_open(&p);
	ck_assert(clnt_control(p.c.cl, CLSET_RDMA_PROC_DDP, (char *)&d));
	for (int c = 0; c < 5; c++) {
		uint32_t n = 1;

		raw_pair_call(&p, &m);
		ck_assert_uint_eq(m.nwrites, 1);
		ck_assert_uint_eq(m.writes[0].nsegs, 1);
		g[0] = m.segs[m.writes[0].first];
		ck_assert_uint_eq(g[0].length, 4096);
		switch (c) {
		case 0:		/* more than offered */
			g[0].length = 4100;
			break;
		case 1:		/* more segments than offered */
			g[1] = g[0];
			g[0].length = 8;
			g[1].length = 8;
			n = 2;
			break;
		case 2:		/* a segment the call never named */
			g[0].offset += 64;
			g[0].length = 8;
			break;
		case 3:		/* data nobody decodes */
			g[0].length = 100;
			break;
		case 4:		/* unused: the call succeeds */
			g[0].length = 0;
			break;
		}
		raw_pair_reply_writes(&p, &m, g, n, NULL, 0);
		ck_assert_int_eq(raw_pair_result(&p),
				 c == 4 ? RPC_SUCCESS : RPC_CANTDECODERES);
	}
	/* Other lists a reply may not carry (conformance review 13): a
	 * read list; a reply chunk with RDMA_MSG; with RDMA_NOMSG a reply
	 * chunk at another address than offered. */
	for (int c = 0; c < 3; c++) {
		struct rpcrdma_segment r;
		uint32_t w[32];
		size_t k = 0;
		struct iovec iov;

		raw_pair_call(&p, &m);
		r = m.segs[m.reply.first];
		w[k++] = m.xid; w[k++] = 1; w[k++] = m.credits;
		w[k++] = c == 2 ? RPCRDMA_NOMSG : RPCRDMA_MSG;
		if (c == 0) {
			w[k++] = 1; w[k++] = 4;
			w[k++] = r.handle; w[k++] = 4; w[k++] = 0; w[k++] = 0;
		}
		w[k++] = 0;			/* read list ends */
		w[k++] = 0;			/* no write list */
		if (c == 0) {
			w[k++] = 0;		/* no reply chunk */
		} else {
			w[k++] = 1; w[k++] = 1;
			w[k++] = r.handle;
			w[k++] = c == 1 ? 0 : 28;
			w[k++] = (uint32_t)(r.offset >> 32);
			w[k++] = (uint32_t)r.offset + (c == 2 ? 64 : 0);
		}
		if (c != 2) {
			w[k++] = m.xid; w[k++] = 1; w[k++] = 0; w[k++] = 0;
			w[k++] = 0; w[k++] = 0;
		}
		for (size_t i = 0; i < k; i++)
			w[i] = htonl(w[i]);
		iov.iov_base = w;
		iov.iov_len = k * 4;
		ck_assert_int_eq(rpcrdma_ep_send(p.a.ep, &iov, 1, 0), 0);
		ck_assert_int_eq(raw_pair_result(&p), RPC_CANTDECODERES);
	}
	raw_pair_call(&p, &m);
	raw_pair_reply(&p, &m, 0, 0);
	ck_assert_int_eq(raw_pair_result(&p), RPC_SUCCESS);
	ck_assert_uint_eq(stats_of(p.c.cl).connects, 1);
	raw_pair_close(&p);
}
END_TEST

/*
 * Whether this guest's provider gets memory windows (docs/conformance.md:
 * rxe under Linux 6.12 and later, never siw; RPCRDMA_WINDOWS=0/1
 * overrides).
 */
static bool windows_expected(void)
{
	const char *env = getenv("RPCRDMA_WINDOWS");
	unsigned int major = 0, minor = 0;
	struct utsname u;

	if (env && (!strcmp(env, "0") || !strcmp(env, "1")))
		return env[0] == '1';
	if (iwarp)
		return false;
	ck_assert_int_eq(uname(&u), 0);
	ck_assert_int_eq(sscanf(u.release, "%u.%u", &major, &minor), 2);
	return major > 6 || (major == 6 && minor >= 12);
}

/*
 * Remote invalidation (RFC 8797 section 4.1) between our client and
 * server: R is agreed exactly where the client exposes memory through
 * windows; a call naming one rkey (its reply window, or its call window
 * for read chunks) gets its reply by Send With Invalidate and needs no
 * local invalidation; a call naming two (read chunks and write chunks)
 * gets a plain Send and both windows are invalidated locally. Where
 * windows are not used (rxe before 6.12) nothing is invalidated: the
 * chunks were registered for the call.
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
	bool win = windows_expected();

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
	ck_assert(rin == win);	/* the client sets R where windows work */
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
	bool win;

	raw_pair_open(&p);
	win = rpcrdma_ep_windows(p.a.ep);
	ck_assert(win == windows_expected());
	ck_assert(clnt_control(p.c.cl, CLGET_RDMA_INLINE, (char *)&in));
	ck_assert(in.peer_remote_inv == win);
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
	raw_pair_reply_res(&p, &m, stat, win ? g.handle : 0, &h,
			   !stat && k == EXPO_READ);
	ck_assert_int_eq(raw_pair_result(&p),
			 stat ? RPC_PROCUNAVAIL : RPC_SUCCESS);
	if (!stat && k == EXPO_READ)
		ck_assert_uint_eq(got, fnv1a(arg->data, EXPO_LEN));
	b = stats_of(p.c.cl);
	ck_assert_uint_eq(b.remote_invalidations - a.remote_invalidations,
			  win ? 1 : 0);
	ck_assert_uint_eq(b.local_invalidations, a.local_invalidations);
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
	/* With R: SUCCESS and PROC_UNAVAIL, each sent With Invalidate. */
	for (int i = 0; i < 4; i++)
		expo_one_rkey(i < 2 ? EXPO_REPLY : EXPO_READ, i % 2 ? 3 : 0,
			      &arg, buf);
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
 * Zero-copy read chunks (opts.zc_threshold, 1 MiB by default): an
 * argument item that large goes to the server from the caller's memory,
 * registered for the call (a window over it where windows are used),
 * not copied: zc_chunks counts it and the server hashes exactly the
 * caller's bytes. Two such items and a small one in one call; an item in
 * read-only memory (registration refused) is copied after all; below the
 * threshold, or with it 0, nothing is zero-copy; a Long Call (DDP off)
 * copies the message whole.
 */
static const char zc_rodata[(1u << 20) + 8] = "read-only";

START_TEST(test_zero_copy)
{
	enum { ZC = (1u << 20) + 4 };
	struct blob big = { ZC, mkdata(41, ZC) };
	struct blob ro = { sizeof(zc_rodata), (char *)zc_rodata };
	struct trio t;
	struct rpcrdma_stats a, b;
	u_int h = 0;
	struct rpcrdma_opts o;
	struct srv s;
	CLIENT *cl;

	srv_start(&s, 4, 8u << 20);
	cl = clnt_mk(s.port, 4, 8u << 20);
	a = stats_of(cl);
	hash_check(cl, &big);
	b = stats_of(cl);
	ck_assert_uint_eq(b.calls_read_chunks - a.calls_read_chunks, 1);
	ck_assert_uint_eq(b.zc_chunks - a.zc_chunks, 1);

	/* Three items, two of them zero-copy, hashed as sent. */
	t.b[0] = big;
	t.b[1] = (struct blob){ 3001, mkdata(42, 3001) };
	t.b[2] = (struct blob){ ZC + 7, mkdata(43, ZC + 7) };
	a = stats_of(cl);
	expect_ok(cl, clnt_call(cl, P_HASH3, XP(xdr_trio), &t, XP(xdr_u_int),
				&h, tmo), "hash3");
	b = stats_of(cl);
	ck_assert_uint_eq(h, trio_hash(&t));
	ck_assert_uint_eq(b.zc_chunks - a.zc_chunks, 2);
	ck_assert_uint_eq(b.read_chunks - a.read_chunks, 3);
	free(t.b[1].data);
	free(t.b[2].data);

	/* Read-only pages: the registration is refused, the item copied. */
	a = stats_of(cl);
	hash_check(cl, &ro);
	b = stats_of(cl);
	ck_assert_uint_eq(b.calls_read_chunks - a.calls_read_chunks, 1);
	ck_assert_uint_eq(b.zc_chunks, a.zc_chunks);
	clnt_destroy(cl);

	/* Threshold 0: always copied; DDP off: a Long Call, copied. */
	for (int c = 0; c < 2; c++) {
		rpcrdma_opts_default(&o);
		if (c == 0)
			o.zc_threshold = 0;
		else
			o.ddp_threshold = 0;
		clnt_base = &o;
		cl = clnt_mk(s.port, 4, 8u << 20);
		clnt_base = NULL;
		a = stats_of(cl);
		hash_check(cl, &big);
		b = stats_of(cl);
		ck_assert_uint_eq(b.zc_chunks, a.zc_chunks);
		ck_assert_uint_eq(b.calls_long - a.calls_long, c);
		clnt_destroy(cl);
	}
	clnt_ddp = RPCRDMA_DDP_THRESHOLD;
	free(big.data);
	srv_stop(&s);
}
END_TEST

/*
 * A Long Call with DDP items (RFC 8166 sections 3.5.3 and 3.4.5): with a
 * 1024-byte inline threshold, a 1000-byte blob (below the DDP threshold)
 * keeps the rest of the call from fitting inline, so the rest goes in a
 * position-zero read chunk and the two large blobs in read chunks at
 * their positions (one of them zero-copy), which the server splices into
 * the call: RDMA_NOMSG, three read chunks, the hash of exactly what was
 * sent. With DDP off the same call is one plain Long Call.
 */
START_TEST(test_long_call_ddp)
{
	struct rpcrdma_stats a, b;
	struct rpcrdma_opts o;
	struct trio t;
	struct srv s;
	CLIENT *cl;
	u_int h = 0;

	t.b[0] = (struct blob){ 65537, mkdata(51, 65537) };
	t.b[1] = (struct blob){ 1000, mkdata(52, 1000) };
	t.b[2] = (struct blob){ (1u << 20) + 3, mkdata(53, (1u << 20) + 3) };
	srv_start(&s, 4, 4u << 20);
	for (int c = 0; c < 2; c++) {
		rpcrdma_opts_default(&o);
		o.inline_send = o.inline_recv = 1024;
		if (c == 1)
			o.ddp_threshold = 0;
		clnt_base = &o;
		cl = clnt_mk(s.port, 4, 4u << 20);
		clnt_base = NULL;
		a = stats_of(cl);
		expect_ok(cl, clnt_call(cl, P_HASH3, XP(xdr_trio), &t,
					XP(xdr_u_int), &h, tmo), "hash3");
		b = stats_of(cl);
		ck_assert_uint_eq(h, trio_hash(&t));
		ck_assert_uint_eq(b.calls_long - a.calls_long, 1);
		ck_assert_uint_eq(b.sent_nomsg - a.sent_nomsg, 1);
		ck_assert_uint_eq(b.read_chunks - a.read_chunks, c ? 1 : 3);
		ck_assert_uint_eq(b.zc_chunks - a.zc_chunks, c ? 0 : 1);
		clnt_destroy(cl);
	}
	clnt_ddp = RPCRDMA_DDP_THRESHOLD;
	for (int i = 0; i < 3; i++)
		free(t.b[i].data);
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
	tcase_add_loop_test(tc, test_threads_credits, 0, 2);
	tcase_add_test(tc, test_timeout);
	tcase_add_test(tc, test_timeout_while_polled);
	tcase_add_test(tc, test_reply_window);
	tcase_add_test(tc, test_duplicate_reply);
	tcase_add_test(tc, test_unasked_remote_invalidation);
	tcase_add_test(tc, test_bad_write_list);
	tcase_add_test(tc, test_remote_invalidation);
	tcase_add_test(tc, test_exposure_after_return);
	tcase_add_test(tc, test_zero_copy);
	tcase_add_test(tc, test_long_call_ddp);
	tcase_add_test(tc, test_auth_stateful_threads);
	tcase_add_test(tc, test_unmatched_messages);
	tcase_add_test(tc, test_backward_raw);
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
