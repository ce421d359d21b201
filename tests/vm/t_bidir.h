/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of t_bidir share: the forward and backward programs
 * (F_* on the server, CB_* on the client), the server and the client
 * with their dispatch functions (t_bidir_util.c), the connection the
 * server was last told of by F_SUBSCRIBE, the echo of checked bytes
 * and the load thread; and the functions that add each file's tests
 * to the one TCase "bidir", in the order of main.
 */
#ifndef T_BIDIR_H
#define T_BIDIR_H

#include "harness.h"

#define F_PROG		0x20000b10	/* forward, on the server */
#define F_ECHO		1	/* blob -> blob */
#define F_CB_ECHO	2	/* cbreq -> u_int: n callbacks from dispatch */
#define F_SUBSCRIBE	3	/* void -> void: remember the connection */
#define F_SLEEP		4	/* u_int ms -> void */
#define F_CB_NULL	5 /* void -> u_int: clnt_stat of a NULL callback */
#define CB_PROG		0x20000b11	/* backward, on the client */
#define CB_ECHO		1	/* blob -> blob */
#define CB_FWD		2	/* u_int seed -> u_int: forward call inside */
#define CB_SLEEP	3	/* u_int ms -> void */
#define CB_SILENT	4	/* void -> never answered */
#define CB_BIG		5	/* u_int n -> blob of n bytes */

struct cbreq {
	u_int n, seed, len;
};

struct loadarg {
	CLIENT *cl;
	rpcproc_t proc;
	uint32_t seed;
	unsigned int n;
	size_t max;
	unsigned int fails;
	enum clnt_stat last;
};

extern SVCXPRT *_Atomic subscribed;	/* server: the client's connection */
extern const struct timeval tmo30;

bool_t xdr_cbreq(XDR *x, struct cbreq *r);
enum clnt_stat echo_on(CLIENT *cl, rpcproc_t proc, uint32_t seed,
		       size_t n);
SVCXPRT *srv_create_bidir(uint16_t port, unsigned int threads);
/* The same with opts.idle_ms (0: the default). */
SVCXPRT *srv_create_bidir_idle(uint16_t port, unsigned int threads,
			       uint32_t idle_ms);
void srv_destroy_bidir(SVCXPRT *l);
int big_sent_wait(void);
CLIENT *clnt_bidir(uint16_t port);
struct rpcrdma_stats cstats(CLIENT *cl);
struct rpcrdma_stats cbstats(CLIENT *cb);
void subscribe(CLIENT *cl);
void *load_main(void *arg);

/* Each adds its file's tests to tc, in their order. */
void t_bidir_add_cb(TCase *tc);		/* t_bidir_cb.c */
void t_bidir_add_bc_replies(TCase *tc);	/* t_bidir_bcreplies.c */
void t_bidir_add_bc_calls(TCase *tc);	/* t_bidir_bccalls.c */
void t_bidir_add_loss(TCase *tc);	/* t_bidir_loss.c */

#endif
