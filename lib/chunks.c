/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A reply's chunk lists given its call's (RFC 8166 sections 3.4.6, 3.5.4
 * and 4.2.1; RFC 8797 section 4.1): the responder's echo of the write
 * list and of the reply chunk, each segment's length saying what was
 * written, and the rkey a reply may invalidate; the requester's check of
 * a reply's lists against what its call offered. Pure functions of the
 * decoded headers; declared in lib/chunks.h (not installed).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <rpcrdma/hdr.h>

#include "chunks.h"

/*
 * The write list of the reply (RFC 8166 section 3.4.6): every write chunk
 * the call offered goes back with its segment count kept; chunk i carries
 * used[i] bytes, filling its segments in order (the lengths say what was
 * written: exactly the item, no round-up), unused ones with length zero.
 */
int rpcrdma_reply_add_writes(const struct rpcrdma_msg *call,
			     struct rpcrdma_msg *m, const uint64_t *used)
{
	uint32_t i, j;
	int idx, rc;

	for (i = 0; i < call->nwrites; i++) {
		const struct rpcrdma_chunk *w = &call->writes[i];
		uint64_t left = used[i];

		idx = rpcrdma_msg_add_write_chunk(m);
		if (idx < 0)
			return idx;
		for (j = 0; j < w->nsegs; j++) {
			struct rpcrdma_segment s = call->segs[w->first + j];

			s.length = left < s.length ? (uint32_t)left : s.length;
			left -= s.length;
			rc = rpcrdma_msg_add_write_seg(m, (uint32_t)idx, &s);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/*
 * The reply chunk of a Long Reply (RFC 8166 section 3.5.4) carrying len
 * bytes: every segment goes back, filled in order, unfilled ones with
 * length zero (sections 4.2.1.3 and 3.6).
 */
int rpcrdma_reply_add_reply_chunk(const struct rpcrdma_msg *call,
				  struct rpcrdma_msg *m, uint64_t len)
{
	const struct rpcrdma_chunk *rc = &call->reply;
	const struct rpcrdma_segment *segs = &call->segs[rc->first];
	uint64_t left = len;
	uint32_t i;
	int err;

	for (i = 0; i < rc->nsegs; i++) {
		struct rpcrdma_segment s = segs[i];

		s.length = left < s.length ? (uint32_t)left : s.length;
		left -= s.length;
		err = rpcrdma_msg_add_reply_seg(m, &s);
		if (err)
			return err;
	}
	if (left)
		return -EMSGSIZE;
	return 0;
}

/*
 * The rkey a reply may invalidate (RFC 8797 section 4.1): only when both
 * sides set R, and, as the Linux server does, only when every segment of
 * the call names the same rkey, so no memory the requester still uses
 * for another purpose is revoked. 0: a plain Send.
 */
uint32_t rpcrdma_reply_inv_rkey(const struct rpcrdma_msg *call,
				bool peer_remote_inv)
{
	const struct rpcrdma_msg *h = call;
	uint32_t rkey = 0, i;
	bool seen = false;

	if (!peer_remote_inv)
		return 0;
	for (i = 0; i < h->nreads + h->nsegs; i++) {
		uint32_t r = i < h->nreads ? h->reads[i].seg.handle
					   : h->segs[i - h->nreads].handle;

		if (seen && r != rkey)
			return 0;
		rkey = r;
		seen = true;
	}
	return rkey;
}

/*
 * The requester's check of a reply's chunk lists against its call's offer
 * (RFC 8166 sections 3.4.6 and 3.5.4; lib/chunks.h): no read list; at
 * most the write chunks offered, each its one segment echoed with what
 * was written into it, no more than offered; a reply chunk only with
 * RDMA_NOMSG, and then the one segment offered (its length checked by
 * the caller). Beside RDMA_MSG the offered reply chunk may come back
 * unused, its segment's length 0: what this library's responder sends,
 * and what the Linux client accepts (rpcrdma_decode_msg), so a server
 * written to either reading of RFC 8166 is understood.
 */
int rpcrdma_call_check_reply(const struct rpcrdma_msg *m,
			     const struct rpcrdma_segment *wsegs,
			     uint32_t nwrites,
			     const struct rpcrdma_segment *reply_seg,
			     uint32_t *wlen)
{
	int used = 0;
	uint32_t i;

	if (m->nreads || m->nwrites > nwrites)
		return -EBADMSG;
	if (m->has_reply) {
		const struct rpcrdma_segment *g = &m->segs[m->reply.first];

		if (!reply_seg || m->reply.nsegs != 1 ||
		    g->handle != reply_seg->handle ||
		    g->offset != reply_seg->offset ||
		    (m->proc != RPCRDMA_NOMSG && g->length != 0))
			return -EBADMSG;
	}
	for (i = 0; i < m->nwrites; i++) {
		const struct rpcrdma_chunk *c = &m->writes[i];
		const struct rpcrdma_segment *g = &m->segs[c->first];

		if (c->nsegs != 1 || g->handle != wsegs[i].handle ||
		    g->offset != wsegs[i].offset ||
		    g->length > wsegs[i].length)
			return -EBADMSG;
		wlen[i] = g->length;
		used += g->length != 0;
	}
	return used;
}
