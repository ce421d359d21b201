/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test support (ep_sync.c): synchronous RDMA Read / Write on an engine
 * endpoint. Called by one thread at a time, as rpcrdma_ep_poll, and never
 * on an endpoint that also runs transfers (rpcrdma_ep_xfer_start): both
 * keep the one RDMA Read window.
 */
#ifndef RPCRDMA_TESTS_EP_SYNC_H
#define RPCRDMA_TESTS_EP_SYNC_H

#include "engine/engine.h"

/* Pulls the peer's segments into local memory (which the engine registers
 * for local write as needed), respecting the negotiated read depth, and
 * waits for completion; messages arriving meanwhile stay queued for
 * rpcrdma_ep_poll. 0 or -errno. */
int rpcrdma_ep_read(struct rpcrdma_ep *ep, void *local, uint64_t len,
		    const struct rpcrdma_segment *segs, uint32_t nsegs,
		    int timeout_ms);
/* Pushes len bytes of local memory into the peer's segments, in order,
 * filling each before the next; stores the bytes written per segment in
 * written[] (may be NULL) and waits for completion. 0, -EMSGSIZE when len
 * exceeds the segments, or -errno. */
int rpcrdma_ep_write(struct rpcrdma_ep *ep, const void *local, uint64_t len,
		     const struct rpcrdma_segment *segs, uint32_t nsegs,
		     uint32_t *written, int timeout_ms);

#endif /* RPCRDMA_TESTS_EP_SYNC_H */
