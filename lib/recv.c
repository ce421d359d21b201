/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One received message, decided from its bytes (lib/recv.h): what the
 * responder does with a call (RFC 8166 sections 3.5.3, 4.2, 4.5 and 5)
 * and what the requester does with a reply (sections 3.4.6 and 3.5.4;
 * RFC 8167 section 4 for a backward call). These were the glue's own
 * branches (svc_recv.c call_take and call_start_reads, clnt_reply.c
 * ct_dispatch), reached only by the guest tests; here they are pure, so
 * check proves every outcome on the host and libFuzzer drives them with
 * any bytes. The glue keeps what has effects: counters, Reads, Sends,
 * slots, credits, the locked-memory cap.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/hdr.h>
#include <rpcrdma/splice.h>

#include "chunks.h"
#include "recv.h"

static enum rpcrdma_rsp_action rsp_answer(struct rpcrdma_rsp_verdict *v,
					  enum rpcrdma_errcode err)
{
	v->action = RPCRDMA_RSP_ANSWER;
	v->err = err;
	return v->action;
}

/*
 * A call with read chunks (RFC 8166 section 3.5.3), checked before any
 * Read so that a bad call costs no transfer: READ, GARBAGE or ANSWER
 * ERR_CHUNK.
 */
static enum rpcrdma_rsp_action rsp_reads(const uint8_t *buf, size_t len,
					 uint32_t max_msg, bool can_read,
					 const struct rpcrdma_msg *m,
					 struct rpcrdma_rsp_verdict *v)
{
	struct rpcrdma_piece pieces[RPCRDMA_MAX_READ_SEGS];
	const uint8_t *inl;
	uint64_t total = 0;
	size_t inl_len, need;
	uint32_t i, np;

	/* RDMA_NOMSG without a position-zero chunk carries no call; a
	 * client that answers no RDMA Read cannot send chunks. */
	if ((m->proc == RPCRDMA_NOMSG && m->reads[0].position != 0) ||
	    !can_read)
		return rsp_answer(v, RPCRDMA_ERR_CHUNK);
	for (i = 0; i < m->nreads; i++)
		total += m->reads[i].seg.length;
	if (total > max_msg || total == 0)
		return rsp_answer(v, RPCRDMA_ERR_CHUNK);
	/* Lengths only: no buffer to read into yet. */
	if (rpcrdma_call_read_pieces(m, buf + v->hlen, len - v->hlen, NULL,
				     pieces, &np, &inl, &inl_len))
		return rsp_answer(v, RPCRDMA_ERR_CHUNK);
	need = np ? rpcrdma_splice_len(inl_len, pieces, np) : inl_len;
	if (np && need == 0) {
		/*
		 * Section 4.5.2: a valid header whose chunks do not match
		 * the Payload stream SHOULD get GARBAGE_ARGS. Only the
		 * inline part is parsed (for the RPC header the reply
		 * needs); the chunks are never read. A Long Call has no
		 * inline part to answer from.
		 */
		if (m->proc != RPCRDMA_MSG)
			return rsp_answer(v, RPCRDMA_ERR_CHUNK);
		v->action = RPCRDMA_RSP_GARBAGE;
		v->off = v->hlen;
		v->len = len - v->hlen;
		return v->action;
	}
	if (need > max_msg)
		return rsp_answer(v, RPCRDMA_ERR_CHUNK);
	v->action = RPCRDMA_RSP_READ;
	v->read_total = total;
	v->splice_len = np ? need : 0;
	return v->action;
}

enum rpcrdma_rsp_action rpcrdma_rsp_recv(const void *buf, size_t len,
					 const struct rpcrdma_limits *lim,
					 uint32_t max_msg, bool can_read,
					 struct rpcrdma_msg *m,
					 struct rpcrdma_rsp_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->herr = rpcrdma_hdr_decode(buf, len, lim, m, &v->hlen);
	if (v->herr != RPCRDMA_HDR_OK) {
		/*
		 * Shorter than the smallest call (28 bytes, RFC 8166
		 * section 4.2): discarded unanswered, as the Linux server
		 * does. Never an RDMA_ERROR for an RDMA_ERROR, of any
		 * version, a malformed one included: two peers could
		 * ping-pong forever. (m->proc is valid from 16 bytes on.)
		 */
		v->hlen = 0;
		if (len < RPCRDMA_HDR_MIN || m->proc == RPCRDMA_ERROR) {
			v->action = RPCRDMA_RSP_DROP;
			return v->action;
		}
		return rsp_answer(v, rpcrdma_hdr_err_to_wire(v->herr));
	}
	switch (m->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
		break;
	case RPCRDMA_ERROR:
		v->action = RPCRDMA_RSP_ERROR_IN;
		return v->action;
	default:
		v->action = RPCRDMA_RSP_DROP;
		return v->action;
	}
	if (m->nreads)
		return rsp_reads(buf, len, max_msg, can_read, m, v);
	/* RDMA_NOMSG with no position-zero chunk: no call (section 4.5.3;
	 * the decoder let it by for its reply chunk, a Long Reply's shape). */
	if (m->proc == RPCRDMA_NOMSG)
		return rsp_answer(v, RPCRDMA_ERR_CHUNK);
	v->action = RPCRDMA_RSP_INLINE;
	v->off = v->hlen;
	v->len = len - v->hlen;
	return v->action;
}

enum rpcrdma_req_kind rpcrdma_req_recv(const void *buf, size_t len,
				       const struct rpcrdma_limits *lim,
				       struct rpcrdma_msg *m, size_t *hlen)
{
	*hlen = 0;
	if (rpcrdma_hdr_decode(buf, len, lim, m, hlen) != RPCRDMA_HDR_OK) {
		*hlen = 0;
		/* m->xid is valid from the fixed words on. */
		return len < RPCRDMA_HDR_FIXED ? RPCRDMA_REQ_RUNT
					       : RPCRDMA_REQ_BAD;
	}
	/* RFC 8167 section 4: RDMA_MSG, every chunk list empty, an RPC
	 * message of msg_type CALL inline, which a forward reply never
	 * is. */
	if (rpcrdma_hdr_peek_bc_call(m, *hlen, buf, len))
		return RPCRDMA_REQ_BC_CALL;
	return RPCRDMA_REQ_REPLY;
}

enum rpcrdma_req_action
rpcrdma_req_take_reply(const struct rpcrdma_msg *m, size_t hlen, size_t len,
		       const struct rpcrdma_req_offer *o, uint32_t *wlen,
		       struct rpcrdma_req_verdict *v)
{
	int used;

	memset(v, 0, sizeof(*v));
	v->action = RPCRDMA_REQ_BADMSG;
	if (m->proc == RPCRDMA_ERROR) {
		v->action = RPCRDMA_REQ_RDMA_ERROR;
		v->err = m->err;
		return v->action;
	}
	used = rpcrdma_call_check_reply(m, o->wsegs, o->nwrites, o->reply_seg,
					wlen);
	if (used < 0 || hlen > len)
		return v->action;
	v->nwritten = (uint32_t)used;
	switch (m->proc) {
	case RPCRDMA_MSG:
		/* The RPC reply follows the header in the receive buffer. */
		if (len - hlen > o->inline_cap)
			return v->action;
		v->len = len - hlen;
		v->action = RPCRDMA_REQ_INLINE;
		break;
	case RPCRDMA_NOMSG:
		/* Section 3.5.4: the reply is in our reply chunk; its length
		 * is the sum of the lengths the responder echoed back. */
		if (!m->has_reply ||
		    rpcrdma_chunk_length(m, &m->reply) > o->reply_chunk)
			return v->action;
		v->len = rpcrdma_chunk_length(m, &m->reply);
		v->action = RPCRDMA_REQ_LONG;
		break;
	default:
		break;
	}
	return v->action;
}
