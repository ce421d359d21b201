/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The glue's view of the wire rules that look only at a decoded header
 * (struct rpcrdma_msg) or at a message's raw bytes, kept out of the
 * installed headers: internal to the library (not exported, see
 * librpcrdma.map), host-tested by tests/unit/check_chunks.c and fuzzed by
 * tests/fuzz/fuzz_hdr.c. Defined in lib/hdr.c (peeks), lib/chunks.c (a
 * reply's chunk lists given its call's, on either side), lib/splice.c
 * (read chunks by position) and lib/plan.c (the size of the reply chunk
 * a call offers, a rule on sizes alone, placed here rather than in the
 * installed plan.h).
 */
#ifndef RPCRDMA_LIB_CHUNKS_H
#define RPCRDMA_LIB_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/hdr.h>
#include <rpcrdma/splice.h>

/*
 * lib/hdr.c. Received by the responder (server) on a forward connection:
 * does buf[0..len) look like an answer to one of its backward calls
 * (RFC 8167)? A reply (RFC 8167 section 4.2): RDMA_MSG of version 1, all
 * three chunk lists empty, an RPC message of msg_type REPLY inline. Or an
 * RDMA_ERROR of version 1: only a responder sends one (RFC 8166 section
 * 5), and the client is one only in the backward direction. A forward
 * call has neither shape. A cheap look at the fixed words: the header is
 * not decoded (the caller decodes what this accepts). Never reads
 * outside buf[0..len).
 */
bool rpcrdma_hdr_peek_bc_answer(const void *buf, size_t len);

/*
 * lib/hdr.c. Received by the requester (client) on a forward connection:
 * is the message buf[0..len), decoded into m with its header hlen bytes
 * long (as rpcrdma_hdr_decode returned them; an hlen over len is
 * refused), a backward
 * call (RFC 8167 section 4)? RDMA_MSG, all three chunk lists empty, and
 * an RPC message of msg_type CALL inline, which a forward reply never
 * is. Looks at m and at the second word after the header only: the RPC
 * message is not decoded. Never reads outside buf[0..len).
 */
bool rpcrdma_hdr_peek_bc_call(const struct rpcrdma_msg *m, size_t hlen,
			      const void *buf, size_t len);

/*
 * lib/chunks.c. The responder's echo of the call's write list into the
 * reply header m (RFC 8166 section 3.4.6): every write chunk of call
 * goes back with its segment count kept, chunk i carrying used[i] bytes
 * (used has call->nwrites entries) in its segments in order, unused ones
 * with length zero. 0, or what rpcrdma_msg_add_write_chunk / _seg
 * returned (-ENOSPC: m has no room left; never for a fresh m and a
 * decoded call, whose chunks fit the same pool).
 */
int rpcrdma_reply_add_writes(const struct rpcrdma_msg *call,
			     struct rpcrdma_msg *m, const uint64_t *used);

/*
 * lib/chunks.c. The responder's echo of the call's reply chunk into the
 * reply header m for a Long Reply of len bytes (RFC 8166 section 3.5.4):
 * every segment goes back, filled in order, unfilled ones with length
 * zero. 0; -EMSGSIZE when len is more than the chunk holds; or what
 * rpcrdma_msg_add_reply_seg returned. The caller checks call->has_reply.
 */
int rpcrdma_reply_add_reply_chunk(const struct rpcrdma_msg *call,
				  struct rpcrdma_msg *m, uint64_t len);

/*
 * lib/chunks.c. The rkey the reply to call may invalidate with Send With
 * Invalidate (RFC 8797 section 4.1): only when both sides set R
 * (peer_remote_inv, as rpcrdma_pvtdata_negotiate sets it in struct
 * rpcrdma_inline), and only when every segment of the call (read list,
 * write list, reply chunk) names the same rkey, so no memory the
 * requester still uses for another purpose is revoked. 0: a plain Send
 * (also for a call with no segment).
 */
uint32_t rpcrdma_reply_inv_rkey(const struct rpcrdma_msg *call,
				bool peer_remote_inv);

/*
 * lib/chunks.c. The requester's check of reply header m against what its
 * call offered (RFC 8166 sections 3.4.6 and 3.5.4), before any byte of
 * the reply is used: no read list; at most the nwrites write chunks
 * offered (wsegs[0..nwrites), one segment each), each returned as its one
 * segment, same handle and offset, its length (what was written into it)
 * no more than offered; a reply chunk only with RDMA_NOMSG, and then the
 * one segment offered (reply_seg, same handle and offset; NULL: none
 * offered). The reply chunk's length against the bytes offered is the
 * caller's (with RDMA_NOMSG, where it is the reply's length). The caller
 * passes no RDMA_ERROR (it has no chunk lists).
 *
 * Where the rule on a reply chunk sits: the "only with RDMA_NOMSG" test
 * is the first one of the function. A third-party server was seen
 * answering RDMA_MSG with the offered reply chunk returned with length 0
 * (issue tracker, interop); this refuses that reply, as the glue always
 * did. Accepting it is a behaviour change of its own.
 *
 * wlen[i] gets the length of write chunk i as it is checked (wlen has room
 * for nwrites; entries past m->nwrites are left alone, and after a
 * refusal some may have been set). The number of write chunks returned
 * with a non-zero length, or -EBADMSG.
 */
int rpcrdma_call_check_reply(const struct rpcrdma_msg *m,
			     const struct rpcrdma_segment *wsegs,
			     uint32_t nwrites,
			     const struct rpcrdma_segment *reply_seg,
			     uint32_t *wlen);

/*
 * lib/splice.c. Where the read chunks of call go once read, in the order
 * of its read list, into rd (RFC 8166 sections 3.5.3 and 3.4.5): *inl,
 * *inl_len the inline part (msg[0..msg_len), the bytes after the
 * received header; for RDMA_NOMSG the position-zero chunk in rd) and
 * pieces[0..*npieces) the chunks spliced in at their XDR positions (one
 * chunk = consecutive read segments sharing a position; pieces has room
 * for call->nreads). 0, or -EMSGSIZE for a chunk of 2^32 bytes or more.
 * Positions are not checked here: rpcrdma_splice_len / rpcrdma_splice
 * refuse the pieces they cannot place. rd NULL sizes the call before any
 * Read (lib/recv.c): what would point into rd points at a placeholder,
 * good for rpcrdma_splice_len only.
 */
int rpcrdma_call_read_pieces(const struct rpcrdma_msg *call, const uint8_t *msg,
			     size_t msg_len, const uint8_t *rd,
			     struct rpcrdma_piece *pieces, uint32_t *npieces,
			     const uint8_t **inl, size_t *inl_len);

/*
 * lib/plan.c. The reply chunk, in bytes, a requester's call offers (RFC
 * 8166 section 3.5.4): 0 (none) when reply_hint, the largest reply of the
 * procedure (0: unknown), fits in inline_room, what an inline reply
 * leaves for the RPC message after the responder's header; else
 * reply_hint rounded up to XDR units, or max_msg without a hint; never
 * more than max_msg nor than room (what the responder's bound on the
 * sum of chunk lengths leaves after the call's other chunks, and what
 * the reply buffer holds); always a multiple of RPCRDMA_XDR_UNIT.
 */
uint32_t rpcrdma_call_reply_chunk(uint32_t reply_hint, size_t inline_room,
				  uint64_t room, uint32_t max_msg);

#endif /* RPCRDMA_LIB_CHUNKS_H */
