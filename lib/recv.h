/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What each end does with one received message, decided from its bytes
 * alone (lib/recv.c): the responder's choice among dropping it,
 * answering RDMA_ERROR, dispatching it inline, answering GARBAGE_ARGS
 * and reading its chunks (RFC 8166 sections 3.5.3, 4.5 and 5), and the
 * requester's among a backward call (RFC 8167 section 4), a bad header
 * and a reply to match by XID, then that reply against its call's offer
 * (sections 3.4.6 and 3.5.4). No verbs, no libtirpc, no locks: the glue
 * (xprt_rdma/svc_recv.c call_take, xprt_rdma/clnt_reply.c ct_dispatch)
 * keeps every side effect. Internal, like lib/chunks.h: not exported,
 * host-tested by tests/unit/check_recv.c, fuzzed by
 * tests/fuzz/fuzz_svcrecv.c and fuzz_clntreply.c.
 */
#ifndef RPCRDMA_LIB_RECV_H
#define RPCRDMA_LIB_RECV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/hdr.h>

/* What the responder does with one received message. */
enum rpcrdma_rsp_action {
	RPCRDMA_RSP_DROP,     /* discard it, unanswered */
	RPCRDMA_RSP_ERROR_IN, /* an RDMA_ERROR: count it, discard it */
	RPCRDMA_RSP_ANSWER,   /* answer RDMA_ERROR with err */
	RPCRDMA_RSP_INLINE,   /* dispatch the call at buf[off, off + len) */
	RPCRDMA_RSP_GARBAGE,  /* parse buf[off, off + len) for its RPC
			       * header, answer GARBAGE_ARGS */
	RPCRDMA_RSP_READ,     /* RDMA Read read_total bytes first */
};

struct rpcrdma_rsp_verdict {
	enum rpcrdma_rsp_action action;
	enum rpcrdma_hdr_err herr; /* rpcrdma_hdr_decode's verdict */
	size_t hlen;		   /* the header's bytes (herr OK) */
	enum rpcrdma_errcode err;  /* ANSWER */
	size_t off, len;	   /* INLINE, GARBAGE: the inline part */
	uint64_t read_total;	   /* READ: 1..max_msg */
	size_t splice_len;	   /* READ: the call rebuilt around its
				    * chunks, 1..max_msg; 0: nothing to
				    * splice (a Long Call whose one chunk,
				    * at position zero, is the call) */
};

/*
 * The responder's decision on the message buf[0..len), decoded into m
 * under lim (NULL: the defaults). max_msg bounds both the bytes to read
 * and the call they rebuild; can_read is false when the client accepts
 * no RDMA Read (initiator depth 0), which no chunk can then reach:
 *
 * - a header that does not decode: ANSWER with
 *   rpcrdma_hdr_err_to_wire's code, but DROP when shorter than the
 *   smallest call (RPCRDMA_HDR_MIN, RFC 8166 section 4.2; the Linux
 *   server does the same) or when an RDMA_ERROR of any version (never
 *   answer one with another: two peers would ping-pong forever);
 * - a decoded RDMA_ERROR: ERROR_IN; another procedure not a call: DROP;
 * - RDMA_MSG without read chunks: INLINE, the bytes after the header;
 * - RDMA_NOMSG without a position-zero read chunk: no call in it, ANSWER
 *   ERR_CHUNK (section 4.5.3); so too chunks that cannot be read (no
 *   Read allowed, nothing or more than max_msg to read, a chunk of 2^32
 *   bytes or more, a rebuilt call longer than max_msg);
 * - RDMA_MSG whose read chunks do not splice into its inline part
 *   (positions past it, overlapping chunks): GARBAGE (section 4.5.2:
 *   valid header, chunks that do not match the Payload stream);
 *   RDMA_NOMSG whose chunks do not splice: ANSWER ERR_CHUNK;
 * - else READ.
 *
 * Never reads outside buf[0..len). Returns v->action.
 */
enum rpcrdma_rsp_action rpcrdma_rsp_recv(const void *buf, size_t len,
					 const struct rpcrdma_limits *lim,
					 uint32_t max_msg, bool can_read,
					 struct rpcrdma_msg *m,
					 struct rpcrdma_rsp_verdict *v);

/* What a received message is to the requester. */
enum rpcrdma_req_kind {
	RPCRDMA_REQ_RUNT,    /* shorter than the fixed words: no XID */
	RPCRDMA_REQ_BAD,     /* a bad header: fails the call m->xid names */
	RPCRDMA_REQ_BC_CALL, /* a backward call, its RPC message at hlen */
	RPCRDMA_REQ_REPLY,   /* a reply or RDMA_ERROR for call m->xid */
};

/*
 * The requester's first look at buf[0..len): decoded into m under lim
 * (NULL: the defaults), *hlen the header's size. A backward call (RFC
 * 8167 section 4: rpcrdma_hdr_peek_bc_call) goes to the backward
 * service, never to a forward call. Never reads outside buf[0..len).
 */
enum rpcrdma_req_kind rpcrdma_req_recv(const void *buf, size_t len,
				       const struct rpcrdma_limits *lim,
				       struct rpcrdma_msg *m, size_t *hlen);

/* What a call offered for its reply. */
struct rpcrdma_req_offer {
	const struct rpcrdma_segment *wsegs; /* write chunks, one segment
					      * each */
	uint32_t nwrites;
	const struct rpcrdma_segment *reply_seg; /* NULL: no reply chunk */
	uint32_t reply_chunk; /* bytes the reply chunk holds */
	uint64_t inline_cap;  /* bytes an inline reply may have */
};

enum rpcrdma_req_action {
	RPCRDMA_REQ_BADMSG,	/* not a reply this call can take */
	RPCRDMA_REQ_INLINE,	/* len bytes of RPC reply at hlen */
	RPCRDMA_REQ_LONG,	/* len bytes of RPC reply in the reply chunk */
	RPCRDMA_REQ_RDMA_ERROR, /* the responder's RDMA_ERROR, m->err */
};

struct rpcrdma_req_verdict {
	enum rpcrdma_req_action action;
	uint64_t len;	   /* INLINE: <= inline_cap; LONG: <= reply_chunk */
	uint32_t err;	   /* RDMA_ERROR: RPCRDMA_ERR_VERS or _CHUNK */
	uint32_t nwritten; /* write chunks that came back with data */
};

/*
 * The reply m (len bytes received, its header hlen of them, as
 * rpcrdma_req_recv left them for RPCRDMA_REQ_REPLY) against the offer o
 * of the call it names. An RDMA_ERROR is RDMA_ERROR. Otherwise its chunk
 * lists must be what the call offered (rpcrdma_call_check_reply: RFC
 * 8166 sections 3.4.6 and 3.5.4; wlen[0..o->nwrites) gets what was
 * written into each write chunk), and then RDMA_MSG is INLINE with the
 * bytes after the header, at most o->inline_cap of them; RDMA_NOMSG is
 * LONG with the sum of the reply chunk's echoed lengths (section 3.5.4),
 * at most o->reply_chunk. Anything else: BADMSG, before any byte of the
 * reply is used. Returns v->action.
 */
enum rpcrdma_req_action
rpcrdma_req_take_reply(const struct rpcrdma_msg *m, size_t hlen, size_t len,
		       const struct rpcrdma_req_offer *o, uint32_t *wlen,
		       struct rpcrdma_req_verdict *v);

#endif /* RPCRDMA_LIB_RECV_H */
