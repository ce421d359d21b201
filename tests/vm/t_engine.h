/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the parts of t_engine share (t_engine.c: the Private Data and
 * message tests, the suite and main; t_engine_rdma.c: RDMA Read and
 * Write; t_engine_conn.c: disconnection and cleanup; t_engine_util.c:
 * everything below): the addresses, the endpoint options, and a listener
 * with its accepting thread.
 */
#ifndef T_ENGINE_H
#define T_ENGINE_H

#include <check.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include "engine/engine.h"

#define T_TIMEOUT_MS	10000

/* ---- t_engine_util.c ---- */

extern struct sockaddr_in addr_a, addr_b;

uint64_t now_ms(void);
bool cep_iwarp(const struct rpcrdma_ep *ep);
void setup(void);
struct rpcrdma_ep_opts mkopts(uint32_t snd, uint32_t rcv, uint32_t credits,
			      bool pvt);

/* A listener and an accepting thread. */
struct srv {
	struct rpcrdma_listener *l;
	struct rpcrdma_ep *ep;		/* the accepted one (one-shot mode) */
	int err;
	/* cycle mode: accept and destroy until stop */
	bool cycle;
	volatile bool stop;
	int accepted;
	pthread_t th;
};

void srv_start(struct srv *s, const struct rpcrdma_ep_opts *o, bool cycle);
struct sockaddr_in srv_dst(const struct srv *s);
void pair_connect(const struct rpcrdma_ep_opts *co,
		  const struct rpcrdma_ep_opts *so, struct srv *s,
		  struct rpcrdma_ep **cep);
void pair_destroy(struct srv *s, struct rpcrdma_ep *cep);
void check_inline(const struct rpcrdma_ep *ep, uint32_t snd, uint32_t rcv,
		  bool sent);

/* ---- the tests of the other files, as engine_suite adds them ---- */

/* t_engine_rdma.c: the RDMA tests of the "data" case, in their order. */
void t_engine_add_rdma(TCase *tc);
/* t_engine_conn.c: the "connection" case. */
TCase *t_engine_tc_connection(void);

#endif /* T_ENGINE_H */
