/* SPDX-License-Identifier: BSD-3-Clause */
/* Scaffolding of the server-side guest tests: see harness.h. */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "harness.h"

const char *addr_a, *addr_b, *addr_c;
const char *provider = "rxe", *dev_a = "rxe0", *dev_b = "rxe1";
bool iwarp;
SVCXPRT *_Atomic last_xprt;
atomic_uint dispatched, dispatched_by_loop;
static pthread_t loop_th;
static atomic_bool loop_set;

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

bool guest_addrs(const char *prog)
{
	addr_a = getenv("RPCRDMA_ADDR_A");
	addr_b = getenv("RPCRDMA_ADDR_B");
	addr_c = getenv("RPCRDMA_ADDR_C");	/* NULL: no second client host */
	if (getenv("RPCRDMA_PROVIDER"))
		provider = getenv("RPCRDMA_PROVIDER");
	if (getenv("RPCRDMA_DEV_A"))
		dev_a = getenv("RPCRDMA_DEV_A");
	if (getenv("RPCRDMA_DEV_B"))
		dev_b = getenv("RPCRDMA_DEV_B");
	iwarp = !strcmp(provider, "siw");
	if (!addr_a || !addr_b) {
		fprintf(stderr, "%s: RPCRDMA_ADDR_A/B unset (guest only)\n",
			prog);
		return false;
	}
	return true;
}

int run_suite(Suite *su)
{
	SRunner *sr = srunner_create(su);
	int failed;

	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

uint16_t port_new(void)
{
	static uint16_t next;

	if (!next)
		next = (uint16_t)(40000 + (getpid() % 1000) * 8);
	return next++;
}

bool_t xdr_blob(XDR *x, struct blob *b)
{
	return xdr_bytes(x, &b->data, &b->len, ~0u);
}

bool_t xdr_blobs(XDR *x, struct blobs *b)
{
	if (!xdr_u_int(x, &b->n) || b->n > T_MAX_BLOBS)
		return FALSE;
	for (u_int i = 0; i < b->n; i++)
		if (!xdr_blob(x, &b->b[i]))
			return FALSE;
	return TRUE;
}

char *mkdata(uint32_t seed, size_t n)
{
	char *p = malloc(n ? n : 1);
	uint32_t v = seed * 2654435761u + 1;

	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < n; i++) {
		v = v * 1103515245u + 12345u;
		p[i] = (char)(v >> 16);
	}
	return p;
}

/* ---- the server ---- */

void reply_echo(SVCXPRT *x)
{
	struct blob b = { 0, NULL };

	if (!svc_getargs(x, XP(xdr_blob), (caddr_t)&b)) {
		svcerr_decode(x);
		return;
	}
	svc_sendreply(x, XP(xdr_blob), (caddr_t)&b);
	svc_freeargs(x, XP(xdr_blob), (caddr_t)&b);
}

void reply_after_sleep(SVCXPRT *x)
{
	u_int ms = 0;

	if (!svc_getargs(x, XP(xdr_u_int), (caddr_t)&ms)) {
		svcerr_decode(x);
		return;
	}
	usleep((useconds_t)ms * 1000);
	svc_sendreply(x, XVOID, NULL);
}

void dispatch(struct svc_req *rq, SVCXPRT *x)
{
	atomic_store(&last_xprt, x);
	atomic_fetch_add(&dispatched, 1);
	if (atomic_load(&loop_set) && pthread_equal(pthread_self(), loop_th))
		atomic_fetch_add(&dispatched_by_loop, 1);
	switch (rq->rq_proc) {
	case NULLPROC:
		svc_sendreply(x, XVOID, NULL);
		return;
	case P_SLEEP:
		/* Holds the connection's one call in service for a while. */
		reply_after_sleep(x);
		return;
	case P_SETEUID:
		/* The raw syscall changes only this thread (glibc's wrapper
		 * changes every thread): the cred the kernel compares with
		 * the device's opener is this thread's, now a new one. */
		if (syscall(SYS_setresuid, -1, 65534, -1) ||
		    syscall(SYS_setresuid, -1, 0, -1)) {
			svcerr_systemerr(x);
			return;
		}
		svc_sendreply(x, XVOID, NULL);
		return;
	case P_SETEUID_LATE:
		svc_sendreply(x, XVOID, NULL);
		if (syscall(SYS_setresuid, -1, 65534, -1) ||
		    syscall(SYS_setresuid, -1, 0, -1))
			abort();	/* the test runs as root */
		return;
	case P_ECHO:
		reply_echo(x);
		return;
	case P_ECHO_MANY: {
		struct blobs m;

		memset(&m, 0, sizeof(m));
		if (!svc_getargs(x, XP(xdr_blobs), (caddr_t)&m)) {
			svcerr_decode(x);
			return;
		}
		svc_sendreply(x, XP(xdr_blobs), (caddr_t)&m);
		svc_freeargs(x, XP(xdr_blobs), (caddr_t)&m);
		return;
	}
	default:
		svcerr_noproc(x);
	}
}

static void *srv_main(void *arg)
{
	struct srv *s = arg;
	/* Room for the most connections a listener takes (256) and the
	 * listeners: svc_run's own loop has no cap either. */
	struct pollfd fds[1024];

	while (!atomic_load(&s->stop)) {
		int n = svc_max_pollfd > 1024 ? 1024 : svc_max_pollfd, r;

		memcpy(fds, svc_pollfd, (size_t)n * sizeof(fds[0]));
		r = poll(fds, (nfds_t)n, 50);
		if (r > 0)
			svc_getreq_poll(fds, r);
	}
	return NULL;
}

void srv_start(struct srv *s, uint32_t max_msg)
{
	struct rpcrdma_opts o;

	rpcrdma_opts_default(&o);
	o.credits = 8;
	if (max_msg)
		o.max_msg = max_msg;
	srv_start_opts(s, &o);
}

static void srv_listen(struct srv *s, const struct rpcrdma_opts *opts)
{
	struct rpcrdma_opts o = *opts;

	memset(s, 0, sizeof(*s));
	s->port = port_new();
	o.port = s->port;
	s->lsn = svc_rdma_create(addr_b, &o);
	ck_assert_msg(s->lsn != NULL, "svc_rdma_create: %s",
		      clnt_spcreateerror("svc"));
	ck_assert_str_eq(s->lsn->xp_netid, "rdma");
	ck_assert_uint_eq(s->lsn->xp_port, s->port);
	ck_assert(rpcrdma_svc_reg(s->lsn, T_PROG, T_VERS, dispatch));
	atomic_init(&s->stop, false);
}

void srv_start_opts(struct srv *s, const struct rpcrdma_opts *opts)
{
	srv_listen(s, opts);
	s->polling = true;
	ck_assert_int_eq(pthread_create(&s->th, NULL, srv_main, s), 0);
}

/*
 * The loop beside a pool: pool workers register connections (xprt_register
 * reallocates svc_pollfd) while it runs, and only libtirpc's svc_run may
 * copy svc_pollfd safely (under a lock it does not export). svc_fdset is
 * a fixed array: a racy copy of it is at worst stale.
 */
static void *srv_select_main(void *arg)
{
	struct srv *s = arg;

	while (!atomic_load(&s->stop)) {
		fd_set set = svc_fdset;
		struct timeval tv = { 0, 50000 };

		if (select(svc_maxfd + 1, &set, NULL, NULL, &tv) > 0)
			svc_getreqset(&set);
	}
	return NULL;
}

void srv_pool_start(struct srv *s, unsigned int nthreads)
{
	int fd = s->lsn->xp_fd;

	ck_assert_int_eq(rpcrdma_svc_start(nthreads), 0);
	s->pool = nthreads;
	/* Serving: the listener's xp_fd is the pool's stand-in. */
	ck_assert_int_ne(s->lsn->xp_fd, fd);
}

int srv_pool_stop(struct srv *s)
{
	if (!s->pool)
		return 0;
	s->pool = 0;
	return rpcrdma_svc_stop();
}

void srv_start_pool(struct srv *s, const struct rpcrdma_opts *o,
		    unsigned int nthreads, bool poll_too)
{
	srv_listen(s, o);
	/* The pool first: nothing else may be serving a transport it takes
	 * over (rpcrdma.h). */
	srv_pool_start(s, nthreads);
	if (poll_too) {
		s->polling = true;
		ck_assert_int_eq(pthread_create(&s->th, NULL, srv_select_main,
						s), 0);
		loop_th = s->th;
		atomic_store(&loop_set, true);
	}
}

void srv_stop(struct srv *s)
{
	ck_assert_int_eq(srv_pool_stop(s), 0);
	atomic_store(&s->stop, true);
	if (s->polling)
		pthread_join(s->th, NULL);
	svc_unreg(T_PROG, T_VERS);
	svc_destroy(s->lsn);
}

bool fd_registered(int fd)
{
	for (int i = 0; i < svc_max_pollfd; i++)
		if (svc_pollfd[i].fd == fd)
			return true;
	return false;
}

/* ---- clients the rpcgen way ---- */

const struct timeval tmo = { 60, 0 };

CLIENT *clnt_by_netid(uint16_t port)
{
	char p[8];
	CLIENT *cl;

	snprintf(p, sizeof(p), "%u", port);
	setenv("RPCRDMA_PORT", p, 1);
	setenv("RPCRDMA_SRCADDR", addr_a, 1);
	cl = clnt_create(addr_b, T_PROG, T_VERS, "rdma");
	ck_assert_msg(cl != NULL, "clnt_create rdma: %s",
		      clnt_spcreateerror("clnt"));
	return cl;
}

struct rpcrdma_stats svc_stats_of(SVCXPRT *x)
{
	struct rpcrdma_stats st;

	ck_assert_int_eq(rpcrdma_svc_stats(x, &st), 0);
	return st;
}

void null_call(CLIENT *cl)
{
	ck_assert_int_eq(clnt_call(cl, NULLPROC, XVOID, NULL, XVOID, NULL,
				   tmo), RPC_SUCCESS);
}

/* Echo of n bytes, content checked; returns the server transport. */
SVCXPRT *echo(CLIENT *cl, size_t n, uint32_t seed)
{
	struct blob a = { (u_int)n, mkdata(seed, n) }, r = { 0, NULL };
	enum clnt_stat st;

	st = clnt_call(cl, P_ECHO, XP(xdr_blob), (caddr_t)&a, XP(xdr_blob),
		       (caddr_t)&r, tmo);
	ck_assert_msg(st == RPC_SUCCESS, "echo %zu: %s", n, clnt_sperrno(st));
	ck_assert_uint_eq(r.len, n);
	ck_assert(n == 0 || memcmp(r.data, a.data, n) == 0);
	clnt_freeres(cl, XP(xdr_blob), (caddr_t)&r);
	free(a.data);
	return atomic_load(&last_xprt);
}

/*
 * One echo and the server connection's counters it moved. The client
 * always offers a reply chunk; with the default 4096-byte thresholds a
 * 1000-byte echo goes inline both ways, a 64 KiB one sends its blob in a
 * read chunk at its XDR position (RDMA_MSG, DDP) and gets a Long Reply
 * (the reply chunk, RDMA_NOMSG).
 */
void echo_path(CLIENT *cl, size_t n, bool long_path)
{
	SVCXPRT *x = echo(cl, 1, 1);
	struct rpcrdma_stats a = svc_stats_of(x), b;

	ck_assert_ptr_eq(echo(cl, n, (uint32_t)n), x);
	b = svc_stats_of(x);
	/* A large blob comes in a read chunk at its position (RDMA_MSG). */
	ck_assert_uint_eq(b.recv_msg - a.recv_msg, 1);
	ck_assert_uint_eq(b.recv_nomsg, a.recv_nomsg);
	ck_assert_uint_eq(b.read_chunks - a.read_chunks, long_path ? 1 : 0);
	ck_assert_uint_eq(b.sent_msg - a.sent_msg, long_path ? 0 : 1);
	ck_assert_uint_eq(b.sent_nomsg - a.sent_nomsg, long_path ? 1 : 0);
	ck_assert_uint_eq(b.reply_chunks - a.reply_chunks, long_path ? 1 : 0);
	ck_assert_uint_eq(b.sent_error, a.sent_error);
}

/* ---- crafted headers through a raw endpoint ---- */

struct rpcrdma_ep *raw_connect(uint16_t port)
{
	struct rpcrdma_opts o;

	rpcrdma_opts_default(&o);
	/* Its chunks are plain registrations, which a Send With Invalidate
	 * cannot revoke: no R (RFC 8797 section 4.1). */
	o.remote_inv = false;
	return raw_connect_opts(port, &o);
}

struct rpcrdma_ep *raw_connect_opts(uint16_t port,
				    const struct rpcrdma_opts *o)
{
	struct rpcrdma_ep_opts eo;

	ck_assert_int_eq(rpcrdma_opts_to_ep(o, &eo), 0);
	return raw_connect_eo(port, &eo);
}

void guest_sockaddrs(uint16_t port, struct sockaddr_in *dst,
		     struct sockaddr_in *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->sin_family = AF_INET;
	dst->sin_port = htons(port);
	inet_pton(AF_INET, addr_b, &dst->sin_addr);
	memset(src, 0, sizeof(*src));
	src->sin_family = AF_INET;
	inet_pton(AF_INET, addr_a, &src->sin_addr);
}

struct rpcrdma_ep *raw_connect_eo(uint16_t port,
				  const struct rpcrdma_ep_opts *eo)
{
	struct sockaddr_in dst, src;
	struct rpcrdma_ep *ep;

	guest_sockaddrs(port, &dst, &src);
	ck_assert_int_eq(rpcrdma_ep_connect((struct sockaddr *)&dst,
					    (struct sockaddr *)&src, eo, &ep),
			 0);
	return ep;
}

struct rpcrdma_mr *raw_reg(struct rpcrdma_ep *ep, void *buf, size_t len,
			   enum rpcrdma_access acc, uint32_t *rkey)
{
	struct rpcrdma_mr *mr;

	ck_assert_int_eq(rpcrdma_ep_reg(ep, buf, len, acc, &mr), 0);
	*rkey = rpcrdma_mr_rkey(mr);
	return mr;
}

void raw_send(struct rpcrdma_ep *ep, const uint32_t *w, size_t nw)
{
	uint32_t be[256];
	struct iovec iov = { be, nw * 4 };

	ck_assert_uint_le(nw, 256);
	for (size_t i = 0; i < nw; i++)
		be[i] = htonl(w[i]);
	ck_assert_int_eq(rpcrdma_ep_send(ep, &iov, 1, 0), 0);
}

/* The next message must be exactly want[0..nw) (host-order words). */
void raw_expect(struct rpcrdma_ep *ep, const uint32_t *want, size_t nw)
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

/* An RDMA_MSG NULL call of xid, and its exact RDMA_MSG reply. */
void raw_null_call(struct rpcrdma_ep *ep, uint32_t xid)
{
	/*
	 * Transport header (RFC 8166 section 4.2): xid, vers 1, credits 1,
	 * RDMA_MSG 0, three empty lists. RPC call (RFC 5531 section 9):
	 * xid, CALL 0, rpcvers 2, prog, vers, proc 0, AUTH_NONE cred and
	 * verifier (flavor 0, length 0 each).
	 */
	const uint32_t call[] = { xid, 1, 1, 0, 0, 0, 0,
				  xid, 0, 2, T_PROG, T_VERS, 0, 0, 0, 0, 0 };
	/*
	 * Reply: xid, vers 1, credits 1 (we asked for 1), RDMA_MSG, three
	 * empty lists; RPC: xid, REPLY 1, MSG_ACCEPTED 0, AUTH_NONE
	 * verifier (0, 0), SUCCESS 0, and no results for NULL.
	 */
	const uint32_t reply[] = { xid, 1, 1, 0, 0, 0, 0,
				   xid, 1, 0, 0, 0, 0 };

	raw_send(ep, call, sizeof(call) / 4);
	raw_expect(ep, reply, sizeof(reply) / 4);
}

/* Appends a segment (handle, length, 64-bit offset) as four words. */
size_t put_seg_at(uint32_t *w, size_t n, uint32_t h, uint32_t len,
		  uint64_t off)
{
	w[n++] = h;
	w[n++] = len;
	w[n++] = (uint32_t)(off >> 32);
	w[n++] = (uint32_t)off;
	return n;
}

size_t put_seg(uint32_t *w, size_t n, uint32_t h, uint32_t len,
	       const void *addr)
{
	return put_seg_at(w, n, h, len, (uint64_t)(uintptr_t)addr);
}

