/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test support: a synchronous RDMA Read / Write on an engine endpoint
 * (rpcrdma_ep_read / _write, ep_sync.h), for tests/vm/t_engine_rdma.c and
 * t_clnt.c, which play a peer that moves bytes by hand. It was the
 * engine's once; the library uses completion-driven transfers
 * (engine/xfer.c) only. It posts through the engine's send queue
 * (rpcrdma_ep_sq_room / _post / _wait) under the endpoint's lock and
 * shares its Read window (rdq, engine/ep_int.h) with xfer.c: an endpoint
 * uses one or the other, never both.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "engine/ep_int.h"
#include "ep_sync.h"

/* A timed-out transfer may still touch the local MR: stop the QP before
 * the caller deregisters it. Lock held. */
static void ep_abort(struct rpcrdma_ep *ep)
{
	ep_qp_to_error(ep->qp);
	ep_mark_down(ep, -ETIMEDOUT);
}

static int seg_total(const struct rpcrdma_segment *segs, uint32_t nsegs,
		     uint64_t *total)
{
	uint64_t t = 0;
	uint32_t i;

	if (nsegs && !segs)
		return -EINVAL;
	for (i = 0; i < nsegs; i++)
		t += segs[i].length;	/* < 2^32 * 2^32: no wrap */
	*total = t;
	return 0;
}

/*
 * Posts RDMA Read (read) or Write (!read) WRs moving local[0..len) to or
 * from the segments in order, at most one device message size per WR.
 * Reads keep at most ep_rd_depth in flight (each signaled); of the
 * Writes, the last is signaled (RC completes in order). Lock held.
 */
static int ep_rdma(struct rpcrdma_ep *ep, bool read, uint8_t *local,
		   uint64_t len, uint32_t lkey,
		   const struct rpcrdma_segment *segs, uint32_t nsegs,
		   uint32_t *written, uint64_t deadline)
{
	uint64_t done = 0, last = 0;
	uint32_t i;
	int ret;

	for (i = 0; i < nsegs; i++) {
		uint64_t seg_len = segs[i].length;
		uint64_t off = 0;

		if (!read) {
			if (seg_len > len - done)
				seg_len = len - done;
			if (written)
				written[i] = (uint32_t)seg_len;
		}
		while (off < seg_len) {
			uint32_t chunk = ep->max_msg_sz;
			struct ibv_send_wr wr;
			struct ibv_sge sge;

			if (seg_len - off < chunk)
				chunk = (uint32_t)(seg_len - off);
			/* Reads: wait for the oldest when the window is full. */
			while (read && ep->rdq_count >= ep_rd_depth(ep)) {
				ret = rpcrdma_ep_sq_wait(ep,
							 ep->rdq[ep->rdq_head],
							 deadline);
				if (ret)
					return ret;
			}
			ret = rpcrdma_ep_sq_room(ep, 1, false, deadline);
			if (ret)
				return ret;
			memset(&wr, 0, sizeof(wr));
			sge.addr = (uint64_t)(uintptr_t)(local + done);
			sge.length = chunk;
			sge.lkey = lkey;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = segs[i].offset + off;
			wr.wr.rdma.rkey = segs[i].handle;
			/* The last WR is signaled so sq_done reaches it. */
			ret = rpcrdma_ep_sq_post(ep, &wr,
						 read || done + chunk == len);
			if (ret)
				return ret;
			last = ep->sq_seq;
			off += chunk;
			done += chunk;
		}
	}
	if (!last)
		return 0;
	return rpcrdma_ep_sq_wait(ep, last, deadline);
}

static int ep_transfer(struct rpcrdma_ep *ep, bool read, void *local,
		       uint64_t len, const struct rpcrdma_segment *segs,
		       uint32_t nsegs, uint32_t *written, int timeout_ms)
{
	uint64_t deadline = ep_deadline_of(timeout_ms);
	uint64_t total;
	struct ibv_mr *mr = NULL;
	uint64_t moved, seq0;
	uint32_t i;
	int ret;

	ret = seg_total(segs, nsegs, &total);
	if (ret)
		return ret;
	if (written)
		for (i = 0; i < nsegs; i++)
			written[i] = 0;
	/* Read: the segments must fit the buffer. Write: len must fit
	 * the segments. */
	if (read ? total > len : len > total)
		return -EMSGSIZE;
	moved = read ? total : len;
	if (moved && !local)
		return -EINVAL;
	if (!ep_is_up(ep))
		return ep->down_err ? ep->down_err : -ENOTCONN;
	if (moved) {
		if (moved > SIZE_MAX)
			return -EMSGSIZE;
		mr = ibv_reg_mr(ep->pd, local, (size_t)moved,
				ep_sink_access(ep, read));
		if (!mr)
			return errno > 0 ? -errno : -ENOMEM;
	}

	pthread_mutex_lock(&ep->lock);
	seq0 = ep->sq_seq;
	if (moved)
		ret = ep_rdma(ep, read, local, moved, mr->lkey, segs, nsegs,
			      written, deadline);
	/* Reads or Writes of ours still posted must not touch local once
	 * mr goes: any failure after posting stops the QP first. */
	if (ret == -ETIMEDOUT ||
	    (ret && ep->sq_seq != seq0 && ep->sq_done < ep->sq_seq))
		ep_abort(ep);
	pthread_mutex_unlock(&ep->lock);
	if (mr)
		ibv_dereg_mr(mr);
	if (ret == 0 && moved) {
		if (read)
			RPCRDMA_STAT_ADD(ep, rdma_read_bytes, moved);
		else
			RPCRDMA_STAT_ADD(ep, rdma_write_bytes, moved);
	}
	return ret;
}

int rpcrdma_ep_read(struct rpcrdma_ep *ep, void *local, uint64_t len,
		    const struct rpcrdma_segment *segs, uint32_t nsegs,
		    int timeout_ms)
{
	return ep_transfer(ep, true, local, len, segs, nsegs, NULL,
			   timeout_ms);
}

int rpcrdma_ep_write(struct rpcrdma_ep *ep, const void *local, uint64_t len,
		     const struct rpcrdma_segment *segs, uint32_t nsegs,
		     uint32_t *written, int timeout_ms)
{
	return ep_transfer(ep, false, (void *)(uintptr_t)local, len, segs,
			   nsegs, written, timeout_ms);
}
