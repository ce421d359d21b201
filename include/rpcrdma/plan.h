/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Marshalling planner: decides how a call or a reply travels (RFC 8166
 * section 3.5: inline, with DDP chunks, Long Call, Long Reply), applying
 * the generic DDP rule of docs/design.md: every opaque/bytes/string item
 * whose length reaches the DDP threshold moves out of line; in a call into
 * a read chunk at its XDR position, in a reply the n-th such item into the
 * n-th write chunk the requester offered (if it is large enough).
 * Pure arithmetic on lengths: no memory is touched.
 */
#ifndef RPCRDMA_PLAN_H
#define RPCRDMA_PLAN_H

#include <rpcrdma/wire.h>

#define RPCRDMA_PLAN_MAX_ITEMS	RPCRDMA_MAX_READ_SEGS

/*
 * A large XDR data item as the encoder reported it: offset of its first
 * data byte in the RPC message (just after its length word, so always a
 * multiple of 4) and its length without the XDR round-up.
 */
struct rpcrdma_item {
	uint32_t offset;
	uint32_t length;
};

/* A run of the RPC message that travels inline: rpc[offset, offset+length). */
struct rpcrdma_extent {
	uint32_t offset;
	uint32_t length;
};

enum rpcrdma_call_kind {
	RPCRDMA_CALL_INLINE,	/* RDMA_MSG, whole message inline */
	RPCRDMA_CALL_READ,	/* RDMA_MSG, items in read chunks (DDP) */
	RPCRDMA_CALL_LONG,	/* RDMA_NOMSG, position-zero read chunk */
	RPCRDMA_CALL_LONG_READ,	/* RDMA_NOMSG, position-zero read chunk
				 * with the rest, items in read chunks */
};

struct rpcrdma_call_plan {
	enum rpcrdma_call_kind kind;
	uint32_t nchunks;		/* read chunks (READ: one per item) */
	/* For READ: chunk i is item i, position = item offset. For LONG:
	 * one chunk, position 0, offset 0, length = whole message. For
	 * LONG_READ: chunk 0 at position 0 carries the extents, which the
	 * caller gathers into one run (its offset field is 0, its length
	 * inline_len), chunk i + 1 is item i; nothing goes inline. */
	struct rpcrdma_read_chunk_plan {
		uint32_t position;
		uint32_t offset;	/* in the RPC message */
		uint32_t length;	/* no XDR pad */
	} chunks[RPCRDMA_PLAN_MAX_ITEMS];
	uint32_t nextents;		/* what goes inline after the header */
	struct rpcrdma_extent extents[RPCRDMA_PLAN_MAX_ITEMS + 1];
	uint32_t inline_len;		/* sum of extents */
	size_t hdr_len;			/* transport header size */
};

/*
 * Plans a call of rpc_len bytes whose large items are items[0..nitems)
 * (sorted, non-overlapping, inside the message). ddp_threshold: items at
 * least this long move (0 disables DDP). send_max: the negotiated inline
 * threshold toward the responder. reply_lists_len: bytes the write list
 * and reply chunk of this call will take in the header (4 + 4 when both
 * are empty). Returns 0, or -EINVAL for inconsistent items, or -E2BIG when
 * even the Long Call header does not fit in send_max.
 */
int rpcrdma_plan_call(uint32_t rpc_len, const struct rpcrdma_item *items,
		      uint32_t nitems, uint32_t ddp_threshold,
		      uint32_t send_max, size_t reply_lists_len,
		      struct rpcrdma_call_plan *plan);

/* What the requester offered for the reply: one entry per chunk. */
struct rpcrdma_chunk_cap {
	uint32_t nsegs;
	uint64_t bytes;		/* total capacity */
};

enum rpcrdma_reply_kind {
	RPCRDMA_REPLY_INLINE,	/* RDMA_MSG, nothing moved */
	RPCRDMA_REPLY_WRITE,	/* RDMA_MSG, items in write chunks */
	RPCRDMA_REPLY_LONG,	/* RDMA_NOMSG, message in the reply chunk */
};

struct rpcrdma_reply_plan {
	enum rpcrdma_reply_kind kind;
	/* item_chunk[i]: write chunk that carries item i, or -1 (inline). */
	int32_t item_chunk[RPCRDMA_MAX_WRITE_CHUNKS];
	uint32_t nextents;		/* remainder of the message */
	struct rpcrdma_extent extents[RPCRDMA_MAX_WRITE_CHUNKS + 1];
	uint32_t remainder_len;		/* inline, or into the reply chunk */
	size_t hdr_len;
};

/*
 * Plans a reply of rpc_len bytes with large items[0..nitems). writes[] are
 * the write chunks the call offered, reply the reply chunk (nsegs 0: none).
 * send_max: inline threshold toward the requester. Item n moves into
 * write chunk n when n < nwrites, its length reaches ddp_threshold and fits
 * the chunk. The remainder goes inline if header plus remainder fit
 * send_max, else into the reply chunk if it fits. Returns 0; -E2BIG when
 * the reply fits nowhere (the responder then sends ERR_CHUNK, RFC 8166
 * section 4.5.3); -EINVAL for inconsistent input.
 */
int rpcrdma_plan_reply(uint32_t rpc_len, const struct rpcrdma_item *items,
		       uint32_t nitems, uint32_t ddp_threshold,
		       uint32_t send_max,
		       const struct rpcrdma_chunk_cap *writes, uint32_t nwrites,
		       const struct rpcrdma_chunk_cap *reply,
		       struct rpcrdma_reply_plan *plan);

#endif /* RPCRDMA_PLAN_H */
