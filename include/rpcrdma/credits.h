/* SPDX-License-Identifier: BSD-3-Clause */
/* Credit-based flow control: RFC 8166 section 3.3.1. Not thread-safe:
 * the engine holds its own lock around these. */
#ifndef RPCRDMA_CREDITS_H
#define RPCRDMA_CREDITS_H

#include <stdbool.h>
#include <stdint.h>

/* Requester side. */
struct rpcrdma_req_credits {
	uint32_t max;		/* most we will ever use (our slot count) */
	uint32_t granted;	/* last grant, clamped to 1..max */
	uint32_t inflight;	/* calls sent and not yet answered */
	uint32_t peak;		/* highest inflight seen */
	uint64_t zero_grants;	/* grants of 0 received (treated as 1) */
	uint64_t clamped_grants;/* grants above max received */
};

/* Before the first reply the requester may have one call outstanding. */
void rpcrdma_req_credits_init(struct rpcrdma_req_credits *c, uint32_t max);
/* Takes a credit for a new call; false when inflight == granted. */
bool rpcrdma_req_credits_get(struct rpcrdma_req_credits *c);
/* Returns a credit when a call ends (reply, error or abandonment). */
void rpcrdma_req_credits_put(struct rpcrdma_req_credits *c);
/* Applies the rdma_credit value of a received reply. */
void rpcrdma_req_credits_update(struct rpcrdma_req_credits *c, uint32_t grant);

/*
 * Responder side: what to put in rdma_credit. At least 1, never more than
 * max nor more than the receives currently posted; the requester's own
 * request is honoured when smaller (0 counts as a request for 1).
 */
uint32_t rpcrdma_rsp_credits_grant(uint32_t requested, uint32_t max,
				   uint32_t recvs_posted);

#endif /* RPCRDMA_CREDITS_H */
