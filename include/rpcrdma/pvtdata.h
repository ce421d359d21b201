/* SPDX-License-Identifier: BSD-3-Clause */
/* RDMA-CM Private Data for RPC-over-RDMA version 1: RFC 8797. */
#ifndef RPCRDMA_PVTDATA_H
#define RPCRDMA_PVTDATA_H

#include <rpcrdma/wire.h>

/* What both sides settled on (RFC 8797 section 5). */
struct rpcrdma_inline {
	uint32_t send_max;	/* largest message we may Send to the peer */
	uint32_t recv_max;	/* largest message the peer may Send us */
	bool peer_remote_inv;	/* we may use Send With Invalidate toward peer */
	bool remote_inv_in;	/* the peer may revoke our memory with Send
				 * With Invalidate: we set R (the Linux
				 * server does so whatever its own flag) */
	bool peer_sent_pvtdata;	/* false: RFC 8166 defaults were applied */
};

/*
 * Encodes pd into out[8]. Sizes must be multiples of 1024 within
 * 1024..262144 (RFC 8797 section 4); returns 0 or -EINVAL.
 */
int rpcrdma_pvtdata_encode(const struct rpcrdma_pvtdata *pd,
			   uint8_t out[RPCRDMA_PVTDATA_LEN]);

/*
 * Looks for an RPC-over-RDMA Private Data message anywhere in buf[0..len)
 * (any offset, any alignment: other private data may precede it, RFC 8797
 * section 5.1). Returns 0 and fills *pd, or -ENOENT when no valid message
 * (identifier absent, unknown version, or the message overruns buf).
 */
int rpcrdma_pvtdata_parse(const void *buf, size_t len,
			  struct rpcrdma_pvtdata *pd);

/*
 * Given our own values and the peer's (NULL when the peer sent none or an
 * invalid one), computes the thresholds each way and whether we may send
 * with invalidate. Without peer values: 1024 both ways, and we never send
 * with invalidate (remote_inv_in still follows our own R).
 */
void rpcrdma_pvtdata_negotiate(const struct rpcrdma_pvtdata *local,
			       const struct rpcrdma_pvtdata *peer,
			       struct rpcrdma_inline *out);

#endif /* RPCRDMA_PVTDATA_H */
