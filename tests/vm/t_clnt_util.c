/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_clnt's shared helpers, no tests: the caller data (blobs, patterns,
 * hashes), the in-process server of the test program, the client with its
 * ECHO / HASH / FILL checks, the raw responder (raw_pair) that the
 * reply-window, exposure and backward tests drive by hand, and whether
 * this guest's provider uses memory windows. It also defines the state
 * those files share (addresses, provider, opts bases, clnt_ddp, tmo,
 * raw_pair_r), declared in t_clnt.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <rpcrdma/hdr.h>
#include "xprt_rdma/xprt.h"
#include "t_clnt.h"

const char *addr_a, *addr_b;
/* The provider under test is iWARP (RPCRDMA_PROVIDER=siw). */
bool iwarp;

/* A port of our own per test: each test runs in its own forked child. */
uint16_t port_new(void)
{
	static uint16_t next;

	if (!next)
		next = (uint16_t)(20100 + (getpid() % 2000) * 8);
	return next++;
}

bool_t xdr_blob(XDR *x, struct blob *b)
{
	return xdr_bytes(x, &b->data, &b->len, T_BLOB_MAX);
}

static uint8_t pattern(uint32_t seed, size_t i)
{
	return (uint8_t)(seed + i * 7u + (i >> 9));
}

char *mkdata(uint32_t seed, size_t n)
{
	char *d = malloc(n ? n : 1);

	ck_assert_ptr_nonnull(d);
	for (size_t i = 0; i < n; i++)
		d[i] = (char)pattern(seed, i);
	return d;
}

u_int fnv1a(const char *d, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)d[i]) * 16777619u;
	return h;
}

bool_t xdr_who(XDR *x, struct who *w)
{
	return xdr_u_int(x, &w->flavor) && xdr_u_int(x, &w->uid) &&
	       xdr_u_int(x, &w->gid) && xdr_u_int(x, &w->ngids);
}

bool_t xdr_trio(XDR *x, struct trio *t)
{
	return xdr_blob(x, &t->b[0]) && xdr_blob(x, &t->b[1]) &&
	       xdr_blob(x, &t->b[2]);
}

u_int trio_hash(const struct trio *t)
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

/* svc_run() with a way out: poll what libtirpc has registered. */
void srv_loop(atomic_bool *stop)
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
const struct rpcrdma_opts *srv_base, *clnt_base;

SVCXPRT *srv_create(uint16_t port, uint32_t credits, uint32_t max_msg)
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

void srv_start(struct srv *s, uint32_t credits, uint32_t max_msg)
{
	memset(s, 0, sizeof(*s));
	s->port = port_new();
	s->lsn = srv_create(s->port, credits, max_msg);
	atomic_init(&s->stop, false);
	ck_assert_int_eq(pthread_create(&s->th, NULL, srv_main, s), 0);
}

void srv_stop(struct srv *s)
{
	usleep(200000);	/* lets the loop see the client's disconnect */
	atomic_store(&s->stop, true);
	pthread_join(s->th, NULL);
	svc_unreg(T_PROG, T_VERS);
	svc_destroy(s->lsn);
}

/* ---- the client ---- */

/* The DDP threshold of the last client made (echo_check's expectation). */
uint32_t clnt_ddp = RPCRDMA_DDP_THRESHOLD;

CLIENT *clnt_mk(uint16_t port, uint32_t credits, uint32_t max_msg)
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

struct rpcrdma_stats stats_of(CLIENT *cl)
{
	struct rpcrdma_stats st;

	ck_assert_int_eq(rpcrdma_clnt_stats(cl, &st), 0);
	return st;
}

const struct timeval tmo = { 60, 0 };

void expect_ok(CLIENT *cl, enum clnt_stat st, const char *what)
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
void echo_check(CLIENT *cl, size_t n, bool want_call_inline,
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
void hash_check(CLIENT *cl, struct blob *arg)
{
	u_int h = 0;

	expect_ok(cl, clnt_call(cl, P_HASH, XP(xdr_blob), arg, XP(xdr_u_int),
				&h, tmo), "hash");
	ck_assert_uint_eq(h, fnv1a(arg->data, arg->len));
}

/* FILL n: a small inline call, an n-byte reply. */
void fill_check(CLIENT *cl, u_int n, bool want_reply_inline)
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

static void *raw_caller_main(void *arg)
{
	struct raw_caller *c = arg;
	struct timeval t = c->tmo.tv_sec || c->tmo.tv_usec ? c->tmo : tmo;

	c->st = clnt_call(c->cl, c->proc, c->xargs ? c->xargs : XP(xdr_void),
			  c->args, c->xres ? c->xres : XP(xdr_void), c->res,
			  t);
	return NULL;
}

/* Whether the raw responder advertises R (RFC 8797 section 4.1); the
 * RNR retry count its accept asks of the client's QP (0) and its credits,
 * so its receives (0: the default). */
bool raw_pair_r = true;
uint8_t raw_pair_rnr;
uint32_t raw_pair_credits;

void raw_pair_open(struct raw_pair *p)
{
	struct rpcrdma_ep_opts eo;
	struct rpcrdma_opts o;
	struct sockaddr_in sin;
	uint16_t port = port_new();
	pthread_t ath;

	memset(p, 0, sizeof(*p));
	rpcrdma_opts_default(&o);
	o.remote_inv = raw_pair_r;
	if (raw_pair_credits)
		o.credits = raw_pair_credits;
	ck_assert_int_eq(rpcrdma_opts_to_ep(&o, &eo), 0);
	eo.rnr_retry_count = raw_pair_rnr;
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
void raw_pair_take(struct raw_pair *p, struct rpcrdma_msg *m)
{
	struct rpcrdma_limits lim;
	struct rpcrdma_rx rx;
	size_t hlen;
	int rc;

	ck_assert_int_eq(pthread_create(&p->cth, NULL, raw_caller_main,
					&p->c), 0);
	rc = rpcrdma_ep_poll(p->a.ep, &rx, 10000);
	if (rc != 1) {
		struct timespec ts;
		bool ended;

		/* Whether the call failed before sending, or is stuck. */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		ended = pthread_timedjoin_np(p->cth, NULL, &ts) == 0;
		ck_abort_msg("no call came in 10 s (poll %d, the responder's "
			     "connection: '%s'); the call %s%s", rc,
			     rpcrdma_close_why_str(rpcrdma_ep_why(p->a.ep)),
			     ended ? "ended: " : "is still in clnt_call",
			     ended ? clnt_sperrno(p->c.st) : "");
	}
	rpcrdma_limits_default(&lim);
	ck_assert_int_eq(rpcrdma_hdr_decode(rx.data, rx.len, &lim, m, &hlen),
			 RPCRDMA_HDR_OK);
	rpcrdma_ep_rx_done(p->a.ep, &rx);
}

/* As raw_pair_take, for a call that offers a reply chunk (NULL does). */
void raw_pair_call(struct raw_pair *p, struct rpcrdma_msg *m)
{
	raw_pair_take(p, m);
	ck_assert(m->has_reply);
	ck_assert_uint_eq(m->reply.nsegs, 1);
}

/* RDMA_MSG, three empty lists, then an accepted reply with accept_stat
 * stat (0: SUCCESS) and nres words of results, sent With Invalidate of
 * inv_rkey unless 0. */
void raw_pair_reply_res(struct raw_pair *p, const struct rpcrdma_msg *m,
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

void raw_pair_reply(struct raw_pair *p, const struct rpcrdma_msg *m,
			   uint32_t stat, uint32_t inv_rkey)
{
	raw_pair_reply_res(p, m, stat, inv_rkey, NULL, 0);
}

enum clnt_stat raw_pair_result(struct raw_pair *p)
{
	pthread_join(p->cth, NULL);
	return p->c.st;
}

void raw_pair_close(struct raw_pair *p)
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
bool refused(struct rpcrdma_ep *ep, int rc)
{
	struct rpcrdma_rx rx;

	if (rc == -EACCES)
		return true;
	if (!iwarp || (rc != 0 && rc != -ENOTCONN && rc != -EIO))
		return false;
	return rpcrdma_ep_poll(ep, &rx, 5000) == -ENOTCONN;
}

/* RDMA_MSG whose write list is one chunk of segs[0..n), then an
 * accepted reply (SUCCESS) whose results are nres words (a NULL call's:
 * none). */
void raw_pair_reply_writes(struct raw_pair *p,
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
 * Whether this guest's provider gets memory windows (docs/conformance.md:
 * rxe under Linux 6.12 and later, never siw; RPCRDMA_WINDOWS=0/1
 * overrides).
 */
bool windows_expected(void)
{
	const char *env = getenv("RPCRDMA_WINDOWS");
	unsigned int major = 0, minor = 0;
	struct utsname u;

	if (env && (!strcmp(env, "0") || !strcmp(env, "1") ||
		    !strcmp(env, "2")))
		return env[0] != '0';
	if (iwarp)
		return false;
	ck_assert_int_eq(uname(&u), 0);
	ck_assert_int_eq(sscanf(u.release, "%u.%u", &major, &minor), 2);
	return major > 6 || (major == 6 && minor >= 12);
}

/*
 * Whether a client agrees R (RFC 8797 section 4.1): where its windows are
 * type 2. Every guest device is rxe, whose windows are type 1 unless
 * RPCRDMA_WINDOWS=2 (engine/reg.c), or siw, which has none.
 */
bool remote_inv_expected(void)
{
	const char *env = getenv("RPCRDMA_WINDOWS");

	return windows_expected() && env && !strcmp(env, "2");
}

/* RPCRDMA_WINDOWS=2 where windows are expected (rxe from 6.12): type 2
 * and R, the configuration of a client with a trusted server. */
void windows_type2(void)
{
	if (windows_expected())
		ck_assert_int_eq(setenv("RPCRDMA_WINDOWS", "2", 1), 0);
}
