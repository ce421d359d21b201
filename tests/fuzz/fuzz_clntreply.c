/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the requester's decision on one received message
 * (lib/recv.c rpcrdma_req_recv and rpcrdma_req_take_reply, which
 * xprt_rdma/clnt_reply.c ct_dispatch carries out). The input's first 8
 * bytes shape the offer of the call the reply names: the write chunks and
 * reply chunk the reply echoes, as offered or changed (a length, a
 * handle, an offset, a chunk fewer), the reply chunk's bytes and the
 * inline room exactly what the reply needs, one less or the input's;
 * the rest is the message, read where it lies (ASan sees a byte past it).
 *
 * Beyond "no crash": what the message is agrees with rpcrdma_hdr_decode
 * (a runt below the fixed words, a bad header naming its XID, a backward
 * call exactly when rpcrdma_hdr_peek_bc_call says so: RFC 8167 section
 * 4); a reply's action agrees with rpcrdma_call_check_reply's verdict
 * (RFC 8166 sections 3.4.6 and 3.5.4); an inline reply is the bytes after
 * the header, never outside the input, never more than the room; a Long
 * Reply is the reply chunk's echoed sum, never more than the chunk
 * offered; what came back in the write chunks is within their offer; an
 * RDMA_ERROR is the responder's, its code ERR_VERS or ERR_CHUNK.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/hdr.h>

#include "lib/chunks.h"
#include "lib/recv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PREFIX	8u

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* A bound around need: exactly, one less, or the input's raw value. */
static uint64_t around(unsigned int mode, uint64_t need, uint32_t raw)
{
	switch (mode & 3) {
	case 0:
		return need;
	case 1:
		return need ? need - 1 : 0;
	case 2:
		return raw;
	default:
		return need + 1;
	}
}

/* The offer of the call the reply m names, shaped by the prefix p. */
static void make_offer(const struct rpcrdma_msg *m, size_t hlen, size_t len,
		       const uint8_t *p, struct rpcrdma_segment *w,
		       struct rpcrdma_segment *r, struct rpcrdma_req_offer *o)
{
	uint32_t raw = be32(p + 4), i, k;
	uint64_t rc = 0;

	memset(w, 0, RPCRDMA_MAX_WRITE_CHUNKS * sizeof(*w));
	memset(r, 0, sizeof(*r));
	for (i = 0; i < m->nwrites; i++)
		if (m->writes[i].nsegs)
			w[i] = m->segs[m->writes[i].first];
	o->nwrites = m->nwrites;
	if (m->has_reply) {
		*r = m->segs[m->reply.first];
		rc = rpcrdma_chunk_length(m, &m->reply);
	}
	k = p[1] % RPCRDMA_MAX_WRITE_CHUNKS;
	switch ((p[0] >> 4) & 7) {
	case 1:		/* room to spare in every write chunk */
		for (i = 0; i < RPCRDMA_MAX_WRITE_CHUNKS; i++)
			w[i].length = w[i].length > UINT32_MAX - p[2]
					      ? UINT32_MAX
					      : w[i].length + p[2];
		break;
	case 2:		/* a chunk fewer */
		o->nwrites = o->nwrites ? o->nwrites - 1 : 0;
		break;
	case 3:
		w[k].handle ^= 1u << (p[2] & 31);
		break;
	case 4:
		w[k].offset += (uint64_t)p[2] + 1;
		break;
	case 5:
		w[k].length = w[k].length ? w[k].length - 1 : 0;
		break;
	case 6:		/* more chunks offered than came back */
		o->nwrites = RPCRDMA_MAX_WRITE_CHUNKS;
		break;
	default:
		break;
	}
	if (p[0] & 0x80)
		r->handle ^= 1u << (p[3] & 31);
	o->wsegs = w;
	o->reply_seg = (p[3] & 0x80) ? NULL : r;
	rc = around(p[0] >> 2, rc, raw);
	o->reply_chunk = o->reply_seg ? (rc > UINT32_MAX ? UINT32_MAX
							 : (uint32_t)rc)
				      : 0;
	o->inline_cap = around(p[0], len - hlen, raw);
}

/* Whatever a reply taken says about its write chunks is within the
 * offer, and what rpcrdma_call_check_reply says. */
static void check_writes(const struct rpcrdma_msg *m,
			 const struct rpcrdma_req_offer *o,
			 const uint32_t *wlen, const uint32_t *wref, int ref,
			 const struct rpcrdma_req_verdict *v)
{
	if (ref < 0 || v->nwritten != (uint32_t)ref || m->nwrites > o->nwrites)
		abort();
	for (uint32_t i = 0; i < m->nwrites; i++)
		if (wlen[i] != wref[i] || wlen[i] > o->wsegs[i].length)
			abort();
}

/* Does the reply m fit the room its call offered for it? */
static bool fits(const struct rpcrdma_msg *m, size_t hlen, size_t len,
		 const struct rpcrdma_req_offer *o)
{
	if (m->proc == RPCRDMA_MSG)
		return len - hlen <= o->inline_cap;
	return m->has_reply &&
	       rpcrdma_chunk_length(m, &m->reply) <= o->reply_chunk;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rpcrdma_msg m, m2;
	struct rpcrdma_segment w[RPCRDMA_MAX_WRITE_CHUNKS], r;
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS], wref[RPCRDMA_MAX_WRITE_CHUNKS];
	struct rpcrdma_req_verdict v;
	struct rpcrdma_req_offer o;
	struct rpcrdma_limits lim;
	enum rpcrdma_req_kind kind;
	enum rpcrdma_hdr_err herr;
	const uint8_t *msg;
	size_t len, hlen = 0, hlen2 = 0;
	int ref;

	if (size < PREFIX)
		return 0;
	msg = data + PREFIX;
	len = size - PREFIX;
	rpcrdma_limits_default(&lim);
	if (data[3] & 1)
		lim.max_chunk_bytes = UINT64_MAX;

	herr = rpcrdma_hdr_decode(msg, len, &lim, &m2, &hlen2);
	kind = rpcrdma_req_recv(msg, len, &lim, &m, &hlen);
	switch (kind) {
	case RPCRDMA_REQ_RUNT:
		if (len >= RPCRDMA_HDR_FIXED || hlen)
			abort();
		return 0;
	case RPCRDMA_REQ_BAD:
		if (herr == RPCRDMA_HDR_OK || len < RPCRDMA_HDR_FIXED ||
		    m.xid != be32(msg) || hlen)
			abort();
		return 0;
	case RPCRDMA_REQ_BC_CALL:
		if (herr != RPCRDMA_HDR_OK || hlen != hlen2 ||
		    !rpcrdma_hdr_peek_bc_call(&m, hlen, msg, len) ||
		    m.proc != RPCRDMA_MSG || hlen + 8 > len)
			abort();
		return 0;
	case RPCRDMA_REQ_REPLY:
		if (herr != RPCRDMA_HDR_OK || hlen != hlen2 || hlen > len ||
		    rpcrdma_hdr_peek_bc_call(&m, hlen, msg, len))
			abort();
		break;
	default:
		abort();
	}

	make_offer(&m, hlen, len, data, w, &r, &o);
	memset(wlen, 0xee, sizeof(wlen));
	memset(wref, 0xee, sizeof(wref));
	if (rpcrdma_req_take_reply(&m, hlen, len, &o, wlen, &v) != v.action)
		abort();
	if (m.proc == RPCRDMA_ERROR) {
		if (v.action != RPCRDMA_REQ_RDMA_ERROR || v.err != m.err ||
		    (v.err != RPCRDMA_ERR_VERS && v.err != RPCRDMA_ERR_CHUNK))
			abort();
		return 0;
	}
	ref = rpcrdma_call_check_reply(&m, o.wsegs, o.nwrites, o.reply_seg,
				       wref);
	switch (v.action) {
	case RPCRDMA_REQ_INLINE:
		check_writes(&m, &o, wlen, wref, ref, &v);
		if (m.proc != RPCRDMA_MSG || v.len != len - hlen ||
		    v.len > o.inline_cap || hlen + v.len > len)
			abort();
		break;
	case RPCRDMA_REQ_LONG:
		check_writes(&m, &o, wlen, wref, ref, &v);
		if (m.proc != RPCRDMA_NOMSG || !m.has_reply || !o.reply_seg ||
		    v.len != rpcrdma_chunk_length(&m, &m.reply) ||
		    v.len > o.reply_chunk || m.reply.nsegs != 1 ||
		    m.segs[m.reply.first].handle != o.reply_seg->handle)
			abort();
		break;
	case RPCRDMA_REQ_BADMSG:
		/* Refused for its chunk lists, or for its length. */
		if (ref >= 0 && fits(&m, hlen, len, &o))
			abort();
		break;
	default:
		abort();
	}
	return 0;
}
