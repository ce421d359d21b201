/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of t_clnt share: the test program (its procedures and
 * inline sizes), the in-process server (t_clnt_util.c: dispatch and the
 * thread looping on svc_getreq_poll), the client and its checks (ECHO,
 * HASH, FILL), the raw responder of the engine (raw_pair) and the probes
 * of memory windows. Each file adds its tests to the one "calls" TCase
 * through its t_clnt_add_* function, in the original order.
 */
#ifndef RPCRDMA_TESTS_T_CLNT_H
#define RPCRDMA_TESTS_T_CLNT_H

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rpc/rpc.h>

#include <rpcrdma/rpcrdma.h>
#include <rpcrdma/wire.h>
#include "engine/engine.h"

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
 * blob (4 + RNDUP(n)); reply = 48-byte header (fixed 16, empty read and
 * write lists, the offered reply chunk returned unused with length 0:
 * 4 + 4 + 16, issue 26) + 24 bytes of accepted reply (xid, REPLY,
 * MSG_ACCEPTED, verifier 8, SUCCESS) + the blob. */
#define CALL_OVERHEAD	(48u + 40u + 4u)
#define REPLY_OVERHEAD	(48u + 24u + 4u)
#define T_RNDUP(n)	(((n) + 3u) & ~3u)

#define XP(f) ((xdrproc_t)(void (*)(void))(f))

extern const char *addr_a, *addr_b;
extern bool iwarp;
extern const struct rpcrdma_opts *srv_base, *clnt_base;
extern uint32_t clnt_ddp;
extern const struct timeval tmo;
extern bool raw_pair_r;
extern uint8_t raw_pair_rnr;
extern uint32_t raw_pair_credits;

struct blob {
	u_int len;
	char *data;
};

/* What the server saw of the caller's credential. */
struct who {
	u_int flavor, uid, gid, ngids;
};

/* Three items in one call. */
struct trio {
	struct blob b[3];
};

struct srv {
	SVCXPRT *lsn;
	uint16_t port;
	atomic_bool stop;
	pthread_t th;
};

struct raw_accept {
	struct rpcrdma_listener *l;
	struct rpcrdma_ep *ep;
};

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

/* A raw responder on a new port with a client connected to it. */
struct raw_pair {
	struct raw_accept a;
	struct raw_caller c;
	pthread_t cth;
};

uint16_t port_new(void);
bool_t xdr_blob(XDR *x, struct blob *b);
char *mkdata(uint32_t seed, size_t n);
u_int fnv1a(const char *d, size_t n);
bool_t xdr_who(XDR *x, struct who *w);
bool_t xdr_trio(XDR *x, struct trio *t);
u_int trio_hash(const struct trio *t);
void srv_loop(atomic_bool *stop);
SVCXPRT *srv_create(uint16_t port, uint32_t credits, uint32_t max_msg);
void srv_start(struct srv *s, uint32_t credits, uint32_t max_msg);
void srv_stop(struct srv *s);
CLIENT *clnt_mk(uint16_t port, uint32_t credits, uint32_t max_msg);
struct rpcrdma_stats stats_of(CLIENT *cl);
void expect_ok(CLIENT *cl, enum clnt_stat st, const char *what);
void echo_check(CLIENT *cl, size_t n, bool want_call_inline,
		bool want_reply_inline);
void hash_check(CLIENT *cl, struct blob *arg);
void fill_check(CLIENT *cl, u_int n, bool want_reply_inline);
void raw_pair_open(struct raw_pair *p);
void raw_pair_take(struct raw_pair *p, struct rpcrdma_msg *m);
void raw_pair_call(struct raw_pair *p, struct rpcrdma_msg *m);
void raw_pair_reply_res(struct raw_pair *p, const struct rpcrdma_msg *m,
			uint32_t stat, uint32_t inv_rkey, const uint32_t *res,
			uint32_t nres);
void raw_pair_reply(struct raw_pair *p, const struct rpcrdma_msg *m,
		    uint32_t stat, uint32_t inv_rkey);
enum clnt_stat raw_pair_result(struct raw_pair *p);
void raw_pair_close(struct raw_pair *p);
bool refused(struct rpcrdma_ep *ep, int rc);
void raw_pair_reply_writes(struct raw_pair *p, const struct rpcrdma_msg *m,
			   const struct rpcrdma_segment *segs, uint32_t n,
			   const uint32_t *res, uint32_t nres);
bool windows_expected(void);
bool remote_inv_expected(void);
void windows_type2(void);

/* The tests of each file, added to the "calls" TCase in order. */
void t_clnt_add_threads(TCase *tc);
void t_clnt_add_raw(TCase *tc);
void t_clnt_add_exposure(TCase *tc);
void t_clnt_add_zero_copy(TCase *tc);
void t_clnt_add_backward(TCase *tc);
void t_clnt_add_cve(TCase *tc);

#endif /* RPCRDMA_TESTS_T_CLNT_H */
