/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scaffolding shared by the guest tests of the server side (t_svc.c,
 * t_limits.c): a server on $RPCRDMA_ADDR_B in a thread looping on
 * svc_getreq_poll with a small dispatch (NULL, ECHO, SLEEP), clients made
 * the rpcgen way, and a raw engine endpoint for crafted transport headers.
 * Failures are check assertions.
 */
#ifndef T_HARNESS_H
#define T_HARNESS_H

#include <check.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "../../xprt_rdma/xprt.h"
#include "procself.h"

#define T_PROG		0x20000b01
#define T_PROG2		0x20000b02
#define T_PROG3		0x20000b03
#define T_VERS		1
#define P_ECHO		1	/* blob -> the same blob */
#define P_SLEEP		2	/* u_int ms -> void, after sleeping ms */
#define P_SETEUID	3	/* void -> void: this thread's euid to 65534
				 * and back, as NFS servers do per request */
#define P_SETEUID_LATE	4	/* the same after replying */
#define P_ECHO_MANY	5	/* blobs -> the same blobs */
#define XP(f)		((xdrproc_t)(f))
#define XVOID		((xdrproc_t)(void (*)(void))xdr_void)

extern const char *addr_a, *addr_b;	/* $RPCRDMA_ADDR_A / _B */
extern const char *addr_c;	/* $RPCRDMA_ADDR_C: a second client host on
				 * A's side (guest-setup.sh), or NULL */
/* The soft provider under test ($RPCRDMA_PROVIDER: rxe or siw) and its
 * devices under addr_a and addr_b ($RPCRDMA_DEV_A / _B). */
extern const char *provider, *dev_a, *dev_b;
extern bool iwarp;			/* provider is siw */
extern SVCXPRT *_Atomic last_xprt;	/* transport of the last call */
extern const struct timeval tmo;	/* 60 s */

uint16_t port_new(void);
double now_ms(void);			/* CLOCK_MONOTONIC */
/* Sets addr_a/addr_b (and the provider's names) from the environment; false (and says why) when
 * unset, outside the guest: the test then exits 77. */
bool guest_addrs(const char *prog);
/* Runs the suite verbosely: EXIT_SUCCESS or EXIT_FAILURE. */
int run_suite(Suite *su);

struct blob {
	u_int len;
	char *data;
};
bool_t xdr_blob(XDR *x, struct blob *b);
/* Up to 4 blobs, each an item for the generic DDP rule. */
#define T_MAX_BLOBS	12
struct blobs {
	u_int n;
	struct blob b[T_MAX_BLOBS];
};
bool_t xdr_blobs(XDR *x, struct blobs *b);
/* n pseudo-random bytes from seed (malloc'ed). */
char *mkdata(uint32_t seed, size_t n);

void dispatch(struct svc_req *rq, SVCXPRT *x);
/* Procedures the test servers share, for their dispatch functions: the
 * blob argument sent back; a void reply after sleeping the u_int
 * argument's milliseconds. A bad argument gets svcerr_decode. */
void reply_echo(SVCXPRT *x);
void reply_after_sleep(SVCXPRT *x);

extern atomic_uint dispatched;		/* calls dispatch() saw */
extern atomic_uint dispatched_by_loop;	/* of them, in srv_start_pool's
					 * loop beside the pool */

struct srv {
	SVCXPRT *lsn;
	uint16_t port;
	atomic_bool stop;
	bool polling;			/* th runs the svc_getreq_poll loop */
	pthread_t th;
	unsigned int pool;		/* rpcrdma_svc_start threads, or 0 */
};
/* Listens on addr_b (a new port), T_PROG registered with dispatch,
 * served by a thread looping on svc_getreq_poll. */
void srv_start(struct srv *s, uint32_t max_msg);	/* credits 8 */
void srv_start_opts(struct srv *s, const struct rpcrdma_opts *o);
/* The same served by rpcrdma_svc_run(nthreads) in a thread of its own,
 * and with poll_too the svc_getreq_poll loop as well (as a server of tcp
 * and rdma running svc_run beside the pool would). */
void srv_start_pool(struct srv *s, const struct rpcrdma_opts *o,
		    unsigned int nthreads, bool poll_too);
/* The pool alone: started on a listening server, or stopped (returns
 * what rpcrdma_svc_run returned; the transports stay). */
void srv_pool_start(struct srv *s, unsigned int nthreads);
int srv_pool_stop(struct srv *s);
/* Stops the pool (asserting it returned 0) and the loop, unregisters
 * and destroys the listener. */
void srv_stop(struct srv *s);
bool fd_registered(int fd);

CLIENT *clnt_by_netid(uint16_t port);
struct rpcrdma_stats svc_stats_of(SVCXPRT *x);
void null_call(CLIENT *cl);
/* Echo of n bytes, content checked; returns the server transport. */
SVCXPRT *echo(CLIENT *cl, size_t n, uint32_t seed);
void echo_path(CLIENT *cl, size_t n, bool long_path);

/* addr_b:port to connect to, from addr_a. */
struct sockaddr_in;
void guest_sockaddrs(uint16_t port, struct sockaddr_in *dst,
		     struct sockaddr_in *src);
/* A raw engine endpoint from addr_a to the server's port (default
 * options, or o). */
struct rpcrdma_ep *raw_connect(uint16_t port);
struct rpcrdma_ep *raw_connect_opts(uint16_t port,
				    const struct rpcrdma_opts *o);
struct rpcrdma_ep *raw_connect_eo(uint16_t port,
				  const struct rpcrdma_ep_opts *eo);
/* Sends nw host-order words as one message. */
void raw_send(struct rpcrdma_ep *ep, const uint32_t *w, size_t nw);
/* buf[0, len) registered on ep for acc; *rkey gets its handle. */
struct rpcrdma_mr *raw_reg(struct rpcrdma_ep *ep, void *buf, size_t len,
			   enum rpcrdma_access acc, uint32_t *rkey);
/* The next message must be exactly want[0..nw) (host-order words). */
void raw_expect(struct rpcrdma_ep *ep, const uint32_t *want, size_t nw);
/* An RDMA_MSG NULL call of xid (credits 1), and its exact reply. */
void raw_null_call(struct rpcrdma_ep *ep, uint32_t xid);
/* Appends a segment (handle, length, 64-bit offset) as four words at
 * w[n]; returns the new n. */
size_t put_seg(uint32_t *w, size_t n, uint32_t h, uint32_t len,
	       const void *addr);
/* The same with any 64-bit offset (a hostile one, say). */
size_t put_seg_at(uint32_t *w, size_t n, uint32_t h, uint32_t len,
		  uint64_t off);

#endif /* T_HARNESS_H */
