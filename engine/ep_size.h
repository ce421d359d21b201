/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How large an endpoint's queues are (ep_setup), from the credits asked
 * for and what the device allows: a pure function, so that check proves
 * it (tests/unit/check_ep_size.c) without a device.
 */
#ifndef RPCRDMA_EP_SIZE_H
#define RPCRDMA_EP_SIZE_H

#include <errno.h>
#include <stdint.h>

#define EP_RX_EXTRA		8u	/* receives beyond credits */
#define EP_TX_EXTRA		8u	/* send buffers beyond credits */
#define EP_RDMA_PER_RPC		2u	/* SQ room per credit for Read/Write */
#define EP_SQ_SLACK		16u
#define EP_DEFAULT_MAX_WR	64u	/* a device that reports no limit */

struct ep_sizes {
	uint32_t credits;	/* calls in flight the receives allow */
	uint32_t nrx;		/* receives posted */
	uint32_t ntx;		/* send buffers */
	uint32_t sq_depth;	/* send queue work requests */
	uint32_t cqe;		/* one CQ for both queues */
};

/*
 * Sizes for want credits (0 taken as 1) and bc_credits backward ones on
 * a device whose QPs take max_qp_wr work requests per queue and whose
 * CQs take max_cqe entries (either <= 0: not reported). RFC 8166 section
 * 3.3.1: the credits advertised are the receives posted for them, so a
 * device that cannot hold the queues lowers the credits, and with them
 * every queue (clamping the CQ alone let its completions overrun it:
 * 198abdf review #24). The CQ holds a completion of every receive and
 * every send queue entry at once (flushes at teardown) plus one.
 * Returns 0, or -ENOSPC when not even one credit fits.
 */
static inline int ep_size(uint32_t want, uint32_t bc_credits, int max_qp_wr,
			  int max_cqe, struct ep_sizes *s)
{
	uint64_t wr = max_qp_wr > 0 ? (uint64_t)max_qp_wr : EP_DEFAULT_MAX_WR;
	uint64_t c = want ? want : 1, fixed, lim;

	/* A quarter of the send queue per credit leaves its Reads and
	 * Writes room (as before: no device is asked for more). */
	if (c > wr / 4)
		c = wr / 4;
	/* Receives: credits + backward + extra within a queue. */
	fixed = (uint64_t)bc_credits + EP_RX_EXTRA;
	lim = wr > fixed ? wr - fixed : 0;
	if (c > lim)
		c = lim;
	/* Send queue: credits x (Send + its Reads / Writes) + slack. */
	lim = wr > EP_SQ_SLACK ? (wr - EP_SQ_SLACK) / (1 + EP_RDMA_PER_RPC)
			       : 0;
	if (c > lim)
		c = lim;
	/* The CQ: both queues and one. */
	if (max_cqe > 0) {
		fixed = (uint64_t)bc_credits + EP_RX_EXTRA + EP_SQ_SLACK + 1;
		lim = (uint64_t)max_cqe > fixed ?
			      ((uint64_t)max_cqe - fixed) /
				      (2 + EP_RDMA_PER_RPC) :
			      0;
		if (c > lim)
			c = lim;
	}
	if (!c)
		return -ENOSPC;
	s->credits = (uint32_t)c;
	s->nrx = s->credits + bc_credits + EP_RX_EXTRA;
	s->ntx = s->credits + bc_credits + EP_TX_EXTRA;
	s->sq_depth = s->credits * (1 + EP_RDMA_PER_RPC) + EP_SQ_SLACK;
	s->cqe = s->nrx + s->sq_depth + 1;
	return 0;
}

#endif /* RPCRDMA_EP_SIZE_H */
