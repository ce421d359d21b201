/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Marshalling planner (RFC 8166 section 3.5): decides whether a call or a
 * reply goes as a Short Message, a Chunked Message (DDP items in read or
 * write chunks) or a Long Message (position-zero read chunk, reply chunk).
 * Pure arithmetic on lengths.
 *
 * Sizes follow RFC 8166 section 3.3.2: a message fits inline when the
 * transport header plus the inline part of the RPC message is no larger
 * than the receiver's inline threshold (send_max here).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/hdr.h>
#include <rpcrdma/plan.h>

#include "chunks.h"

/* An empty write list plus an empty reply chunk: two discriminators. */
#define EMPTY_REPLY_LISTS	8u

/* XDR round-up without the 32-bit wrap of rpcrdma_xdr_roundup(). */
static uint64_t roundup64(uint32_t n)
{
	return ((uint64_t)n + 3u) & ~(uint64_t)3u;
}

/*
 * Items must be sorted and non-overlapping (round-up included), each start
 * on an XDR unit and lie inside the message. An item's offset is just
 * after its length word (plan.h), so it is never 0; this also keeps a
 * DDP read chunk from landing at position zero, which RFC 8166 section
 * 3.5.3 reserves for a Long Call.
 */
static int check_items(uint32_t rpc_len, const struct rpcrdma_item *items,
		       uint32_t nitems, uint32_t max)
{
	uint64_t end = 0;
	uint32_t i;

	if (nitems > max || (nitems && !items))
		return -EINVAL;
	for (i = 0; i < nitems; i++) {
		uint64_t off = items[i].offset;

		if (off == 0 || off % RPCRDMA_XDR_UNIT || off < end)
			return -EINVAL;
		end = off + roundup64(items[i].length);
		if (end > rpc_len)
			return -EINVAL;
	}
	return 0;
}

static bool item_moves(const struct rpcrdma_item *it, uint32_t ddp_threshold)
{
	return ddp_threshold && it->length >= ddp_threshold;
}

/*
 * Appends the inline run [*cur, to) to ext[] (skipping empty runs) and
 * advances *cur past a moved item. RFC 8166 section 3.4.5 (read chunks)
 * and 3.4.6 (write chunks): when a data item moves into a chunk, its XDR
 * padding is removed from the Payload stream as well, while its length
 * word stays inline.
 */
static void add_extent(struct rpcrdma_extent *ext, uint32_t *next,
		       uint32_t *cur, uint32_t to)
{
	if (to > *cur) {
		ext[*next].offset = *cur;
		ext[*next].length = to - *cur;
		(*next)++;
	}
	*cur = to;
}

int rpcrdma_plan_call(uint32_t rpc_len, const struct rpcrdma_item *items,
		      uint32_t nitems, uint32_t ddp_threshold,
		      uint32_t send_max, size_t reply_lists_len,
		      struct rpcrdma_call_plan *plan)
{
	uint32_t i, cur = 0, nmoved = 0;
	size_t base;
	int ret;

	if (!plan || reply_lists_len < EMPTY_REPLY_LISTS)
		return -EINVAL;
	memset(plan, 0, sizeof(*plan));
	ret = check_items(rpc_len, items, nitems, RPCRDMA_PLAN_MAX_ITEMS);
	if (ret)
		return ret;

	/* Every item at or above the DDP threshold becomes a read chunk at
	 * its XDR position (RFC 8166 section 3.4.5), carrying exactly the
	 * item's bytes: this requester sends no round-up in a read chunk
	 * (allowed there; the responder supplies it). */
	for (i = 0; i < nitems; i++) {
		struct rpcrdma_read_chunk_plan *c = &plan->chunks[nmoved];

		if (!item_moves(&items[i], ddp_threshold))
			continue;
		c->position = items[i].offset;
		c->offset = items[i].offset;
		c->length = items[i].length;
		nmoved++;
		add_extent(plan->extents, &plan->nextents, &cur,
			   items[i].offset);
		/* check_items() bounded offset + round-up by rpc_len. */
		cur += (uint32_t)roundup64(items[i].length);
	}
	add_extent(plan->extents, &plan->nextents, &cur, rpc_len);
	for (i = 0; i < plan->nextents; i++)
		plan->inline_len += plan->extents[i].length;

	/* Header without the two empty reply lists, then the caller's. */
	base = rpcrdma_hdr_size_for(nmoved, 0, NULL, 0) - EMPTY_REPLY_LISTS;
	if (reply_lists_len > SIZE_MAX - base)
		return -E2BIG;
	plan->hdr_len = base + reply_lists_len;
	if (plan->hdr_len <= send_max &&
	    plan->inline_len <= send_max - plan->hdr_len) {
		/* Short or Chunked Message, RFC 8166 sections 3.5.1-3.5.2. */
		plan->kind = nmoved ? RPCRDMA_CALL_READ : RPCRDMA_CALL_INLINE;
		plan->nchunks = nmoved;
		return 0;
	}

	/*
	 * A Long Call with DDP items (RFC 8166 sections 3.5.3 and 3.4.5):
	 * the rest of the message in a position-zero read chunk, the items
	 * in read chunks at their positions, which the responder splices
	 * into it. Needs a header with one more read segment.
	 */
	base = rpcrdma_hdr_size_for(nmoved + 1, 0, NULL, 0) -
	       EMPTY_REPLY_LISTS;
	if (nmoved && nmoved < RPCRDMA_PLAN_MAX_ITEMS &&
	    reply_lists_len <= SIZE_MAX - base &&
	    base + reply_lists_len <= send_max) {
		memmove(&plan->chunks[1], &plan->chunks[0],
			nmoved * sizeof(plan->chunks[0]));
		plan->chunks[0].position = 0;
		plan->chunks[0].offset = 0;
		plan->chunks[0].length = plan->inline_len;
		plan->kind = RPCRDMA_CALL_LONG_READ;
		plan->nchunks = nmoved + 1;
		plan->hdr_len = base + reply_lists_len;
		return 0;
	}

	/*
	 * RFC 8166 section 3.5.3 (Long Call): RDMA_NOMSG whose read list
	 * holds one position-zero read chunk carrying the whole RPC call;
	 * nothing of the RPC message follows the header inline.
	 */
	memset(plan->chunks, 0, sizeof(plan->chunks));
	memset(plan->extents, 0, sizeof(plan->extents));
	plan->kind = RPCRDMA_CALL_LONG;
	plan->nchunks = 1;
	plan->chunks[0].position = 0;
	plan->chunks[0].offset = 0;
	plan->chunks[0].length = rpc_len;
	plan->nextents = 0;
	plan->inline_len = 0;
	base = rpcrdma_hdr_size_for(1, 0, NULL, 0) - EMPTY_REPLY_LISTS;
	if (reply_lists_len > SIZE_MAX - base)
		return -E2BIG;
	plan->hdr_len = base + reply_lists_len;
	if (plan->hdr_len > send_max)
		return -E2BIG;
	return 0;
}

int rpcrdma_plan_reply(uint32_t rpc_len, const struct rpcrdma_item *items,
		       uint32_t nitems, uint32_t ddp_threshold,
		       uint32_t send_max,
		       const struct rpcrdma_chunk_cap *writes, uint32_t nwrites,
		       const struct rpcrdma_chunk_cap *reply,
		       struct rpcrdma_reply_plan *plan)
{
	uint32_t wsegs[RPCRDMA_MAX_WRITE_CHUNKS];
	uint32_t i, cur = 0, rank = 0, nmoved = 0, reply_segs;
	uint64_t total_segs;
	size_t hdr;
	int ret;

	if (!plan)
		return -EINVAL;
	memset(plan, 0, sizeof(*plan));
	if (nwrites > RPCRDMA_MAX_WRITE_CHUNKS || (nwrites && !writes))
		return -EINVAL;
	ret = check_items(rpc_len, items, nitems, RPCRDMA_MAX_WRITE_CHUNKS);
	if (ret)
		return ret;

	/* What the requester offered must be a header it could have sent:
	 * at most RPCRDMA_MAX_SEGS segments in all. An empty write chunk
	 * holds no item and goes back as it came. */
	reply_segs = reply ? reply->nsegs : 0;
	total_segs = reply_segs;
	for (i = 0; i < nwrites; i++) {
		wsegs[i] = writes[i].nsegs;
		total_segs += writes[i].nsegs;
	}
	if (total_segs > RPCRDMA_MAX_SEGS)
		return -EINVAL;

	/*
	 * Generic DDP rule (docs/design.md): the n-th item whose length
	 * reaches the threshold goes into write chunk n if it fits. n counts
	 * only such items, so the requester, decoding the same XDR, finds
	 * the same chunk. An item too large for its chunk stays inline and
	 * the chunk goes back unused (RFC 8166 section 3.4.6). A write chunk
	 * need not hold round-up: the responder MUST NOT write XDR padding
	 * into it, and removes the padding from the Payload stream.
	 */
	for (i = 0; i < nitems; i++) {
		plan->item_chunk[i] = -1;
		if (!item_moves(&items[i], ddp_threshold))
			continue;
		if (rank < nwrites && items[i].length <= writes[rank].bytes) {
			plan->item_chunk[i] = (int32_t)rank;
			nmoved++;
			add_extent(plan->extents, &plan->nextents, &cur,
				   items[i].offset);
			cur += (uint32_t)roundup64(items[i].length);
		}
		rank++;
	}
	for (i = nitems; i < RPCRDMA_MAX_WRITE_CHUNKS; i++)
		plan->item_chunk[i] = -1;
	add_extent(plan->extents, &plan->nextents, &cur, rpc_len);
	for (i = 0; i < plan->nextents; i++)
		plan->remainder_len += plan->extents[i].length;

	/* The reply echoes every offered write chunk, used or not, with the
	 * same segment count (RFC 8166 section 3.4.6), and an offered reply
	 * chunk it does not use the same way, each segment's length 0: the
	 * form the Linux client accepts beside RDMA_MSG and the one
	 * nfstest_rdma checks for (issue 26). */
	hdr = rpcrdma_hdr_size_for(0, nwrites, wsegs, reply_segs);
	if (hdr <= send_max && plan->remainder_len <= send_max - hdr) {
		plan->kind = nmoved ? RPCRDMA_REPLY_WRITE :
				      RPCRDMA_REPLY_INLINE;
		plan->hdr_len = hdr;
		return 0;
	}

	/* RFC 8166 section 3.5.3 (Long Reply): RDMA_NOMSG, the remainder of
	 * the reply goes into the reply chunk; items stay in write chunks. */
	if (reply_segs == 0)
		return -E2BIG;
	hdr = rpcrdma_hdr_size_for(0, nwrites, wsegs, reply_segs);
	plan->hdr_len = hdr;
	if (hdr > send_max || plan->remainder_len > reply->bytes)
		return -E2BIG;
	plan->kind = RPCRDMA_REPLY_LONG;
	return 0;
}

/*
 * The reply chunk a call offers (RFC 8166 section 3.5.4; lib/chunks.h):
 * none when the hinted reply fits inline after the reply's transport
 * header (no chunk lists), else the hint rounded to XDR units, or max_msg
 * without a hint; never more than room, what the responder's chunk bound
 * leaves.
 */
uint32_t rpcrdma_call_reply_chunk(uint32_t reply_hint, size_t inline_room,
				  uint64_t room, uint32_t max_msg)
{
	uint64_t want = max_msg;

	if (reply_hint) {
		if (reply_hint <= inline_room)
			return 0;
		want = ((uint64_t)reply_hint + RPCRDMA_XDR_UNIT - 1) &
		       ~(uint64_t)(RPCRDMA_XDR_UNIT - 1);
	}
	if (want > max_msg)
		want = max_msg;
	if (want > room)
		want = room;
	return (uint32_t)want & ~(RPCRDMA_XDR_UNIT - 1);
}
