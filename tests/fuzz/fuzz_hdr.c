/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the transport-header decoder and its chunk-list
 * validation (lib/hdr.c). Any input: no crash, no read past it; a header
 * it accepts must encode back to the bytes it came from (the decoder keeps
 * nothing it does not understand), its read list sorted by position (the
 * decoder sorts, stably, RFC 8166 section 4.3.1 only SHOULDs the order),
 * and decode again to the same thing.
 *
 * On every input, the responder's peek for a backward answer
 * (rpcrdma_hdr_peek_bc_answer) reads nothing past it and, on a header the
 * decoder accepts, agrees with what was decoded. On every accepted
 * header, the rules the server glue applies to a decoded call
 * (lib/chunks.h): the rkey a reply may invalidate is shared by every
 * segment; the echo of the write list and of the reply chunk never runs
 * out of room, keeps every chunk's shape, says no more than was offered,
 * and encodes into a header that decodes; the read chunks laid out by
 * position stay inside the read buffer, and whatever the splice accepts
 * it rebuilds within the length it announced.
 *
 * On every accepted header, the client glue's rules (lib/chunks.h): the
 * peek for a backward call reads nothing past the input, agrees with the
 * decoded header and never takes an answer for a call; the check of a
 * reply against its call's offer accepts the offer the reply names
 * exactly when the reply has the shape a requester takes, and whatever
 * it accepts against an offer derived from the input is within it; the
 * reply chunk a call offers keeps to its bounds.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/hdr.h>
#include <rpcrdma/splice.h>

#include "lib/chunks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FIXED	16u	/* xid, vers, credits, proc */
#define RSEG	24u	/* discriminator, position, handle, length, offset */

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* data's header with its read list stably sorted by position: what the
 * encoder must give back (the decoder accepted it, so the list is well
 * formed and within hlen). */
static void sort_read_list(uint8_t *h)
{
	uint8_t *list = h + FIXED, tmp[RSEG];
	uint32_t n = 0;

	if (be32(h + 12) > 1)	/* RDMA_ERROR has no chunk lists */
		return;
	while (be32(list + (size_t)n * RSEG) == 1)
		n++;
	for (uint32_t i = 1; i < n; i++) {
		uint32_t j = i;

		memcpy(tmp, list + (size_t)i * RSEG, RSEG);
		for (; j > 0 && be32(list + (size_t)(j - 1) * RSEG + 4) >
					be32(tmp + 4); j--)
			memcpy(list + (size_t)j * RSEG,
			       list + (size_t)(j - 1) * RSEG, RSEG);
		memcpy(list + (size_t)j * RSEG, tmp, RSEG);
	}
}

/* A value from the input for the byte counts the reply rules take:
 * around the chunk's length (under, exactly, just over) or anything. */
static uint64_t pick(uint64_t *st, uint64_t around)
{
	uint64_t z = (*st += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	switch (z & 3) {
	case 0:
		return around;
	case 1:
		return around + 1;
	case 2:
		return (z >> 2) % (around + 1);
	default:
		return z >> 2;
	}
}

/* RFC 8797 section 4.1: a non-zero rkey to invalidate is every
 * segment's; without R, none. */
static void check_inv_rkey(const struct rpcrdma_msg *m)
{
	uint32_t rkey = rpcrdma_reply_inv_rkey(m, true), i;

	if (rpcrdma_reply_inv_rkey(m, false) != 0)
		abort();
	if (!rkey)
		return;
	for (i = 0; i < m->nreads; i++)
		if (m->reads[i].seg.handle != rkey)
			abort();
	for (i = 0; i < m->nsegs; i++)
		if (m->segs[i].handle != rkey)
			abort();
}

/* The echo of chunk c of call as chunk e of reply: same segments, lengths
 * filled in order up to what was written. */
static void check_echo(const struct rpcrdma_msg *call,
		       const struct rpcrdma_chunk *c,
		       const struct rpcrdma_msg *reply,
		       const struct rpcrdma_chunk *e, uint64_t written)
{
	uint64_t left = written;

	if (e->nsegs != c->nsegs)
		abort();
	for (uint32_t j = 0; j < c->nsegs; j++) {
		const struct rpcrdma_segment *o = &call->segs[c->first + j];
		const struct rpcrdma_segment *r = &reply->segs[e->first + j];
		uint32_t want = left < o->length ? (uint32_t)left : o->length;

		if (r->handle != o->handle || r->offset != o->offset ||
		    r->length != want)
			abort();
		left -= want;
	}
}

/* The server's echo of the call's write list and reply chunk. */
static void check_reply_echo(const struct rpcrdma_msg *m, uint64_t *st)
{
	static struct rpcrdma_msg r, r2;
	uint64_t used[RPCRDMA_MAX_WRITE_CHUNKS], len = 0, cap = 0;
	struct rpcrdma_limits lim;
	uint8_t out[4096];
	size_t enc = 0, hlen = 0;
	uint32_t i;
	int rc;

	for (i = 0; i < m->nwrites; i++)
		used[i] = pick(st, rpcrdma_chunk_length(m, &m->writes[i]));
	rpcrdma_msg_init(&r, m->xid, 1,
			 m->has_reply ? RPCRDMA_NOMSG : RPCRDMA_MSG);
	/* A decoded call's chunks always fit a fresh reply's pool. */
	if (rpcrdma_reply_add_writes(m, &r, used) != 0 ||
	    r.nwrites != m->nwrites)
		abort();
	for (i = 0; i < m->nwrites; i++)
		check_echo(m, &m->writes[i], &r, &r.writes[i], used[i]);
	if (m->has_reply) {
		cap = rpcrdma_chunk_length(m, &m->reply);
		len = pick(st, cap);
		rc = rpcrdma_reply_add_reply_chunk(m, &r, len);
		if (rc != (len > cap ? -EMSGSIZE : 0))
			abort();
		if (rc)
			return;
		check_echo(m, &m->reply, &r, &r.reply, len);
	}
	/* What the glue then sends decodes as a header. */
	rpcrdma_limits_default(&lim);
	if (rpcrdma_hdr_encode(&r, out, sizeof(out), &enc) ||
	    rpcrdma_hdr_decode(out, enc, &lim, &r2, &hlen) != RPCRDMA_HDR_OK ||
	    hlen != enc)
		abort();
}

/* The requester's peek for a backward call, against the decoded m. */
static void check_peek_bc_call(const struct rpcrdma_msg *m, size_t hlen,
			       const uint8_t *data, size_t size,
			       bool bc_answer)
{
	bool call = rpcrdma_hdr_peek_bc_call(m, hlen, data, size);

	if (call && (bc_answer || m->proc != RPCRDMA_MSG || m->nreads ||
		     m->nwrites || m->has_reply || hlen != RPCRDMA_HDR_MIN ||
		     size < hlen + 8 || be32(data + hlen + 4) != 0))
		abort();
	if (!call && m->proc == RPCRDMA_MSG && !m->nreads && !m->nwrites &&
	    !m->has_reply && size >= hlen + 8 && be32(data + hlen + 4) == 0)
		abort();
	if (rpcrdma_hdr_peek_bc_call(m, size + 1, data, size) ||
	    rpcrdma_hdr_peek_bc_call(m, SIZE_MAX, data, size))
		abort();
}

/* Whatever the check accepted is within the offer; wlen says what came. */
static void check_within(const struct rpcrdma_msg *m,
			 const struct rpcrdma_segment *w, uint32_t nw,
			 const struct rpcrdma_segment *r, const uint32_t *wlen,
			 int rc)
{
	int used = 0;

	if (rc < 0)
		return;
	if (m->nreads || m->nwrites > nw ||
	    (m->has_reply &&
	     (!r || m->reply.nsegs != 1 ||
	      m->segs[m->reply.first].handle != r->handle ||
	      m->segs[m->reply.first].offset != r->offset ||
	      (m->proc != RPCRDMA_NOMSG &&
	       m->segs[m->reply.first].length != 0))))
		abort();
	for (uint32_t i = 0; i < m->nwrites; i++) {
		const struct rpcrdma_segment *g = &m->segs[m->writes[i].first];

		if (m->writes[i].nsegs != 1 || g->handle != w[i].handle ||
		    g->offset != w[i].offset || g->length > w[i].length ||
		    wlen[i] != g->length)
			abort();
		used += g->length != 0;
	}
	if (rc != used)
		abort();
}

/* The requester's check of reply m: against the offer m itself names
 * (each write chunk's first segment, lengths at least what came back,
 * the reply chunk's first segment), then against that offer changed by
 * the input (one fewer chunk, a handle, an offset or a length moved). */
static void check_call_reply(const struct rpcrdma_msg *m, uint64_t *st)
{
	struct rpcrdma_segment w[RPCRDMA_MAX_WRITE_CHUNKS], r = { 0, 0, 0 };
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS], nw = m->nwrites, i;
	/* A reply chunk: its one segment, with a length only beside
	 * RDMA_NOMSG (beside RDMA_MSG the offered one comes back unused,
	 * length 0). */
	bool shape = !m->nreads &&
		     (!m->has_reply ||
		      (m->reply.nsegs == 1 &&
		       (m->proc == RPCRDMA_NOMSG ||
			m->segs[m->reply.first].length == 0)));
	uint64_t z;
	int rc;

	for (i = 0; i < nw; i++) {
		const struct rpcrdma_chunk *c = &m->writes[i];

		shape &= c->nsegs == 1;
		w[i] = c->nsegs ? m->segs[c->first] : r;
		z = pick(st, w[i].length);
		w[i].length = z > w[i].length && z <= UINT32_MAX ? (uint32_t)z
								 : w[i].length;
	}
	if (m->has_reply && m->reply.nsegs)
		r = m->segs[m->reply.first];
	rc = rpcrdma_call_check_reply(m, w, nw, m->has_reply ? &r : NULL,
				      wlen);
	if ((rc >= 0) != shape)
		abort();
	check_within(m, w, nw, m->has_reply ? &r : NULL, wlen, rc);

	z = pick(st, 7);
	switch (z % 6) {
	case 0:
		nw = nw ? nw - 1 : 0;
		break;
	case 1:
		if (nw)
			w[z % nw].handle ^= (uint32_t)(z >> 8) | 1;
		break;
	case 2:
		if (nw)
			w[z % nw].offset += (z >> 8) | 1;
		break;
	case 3:
		if (nw && w[z % nw].length)
			w[z % nw].length--;
		break;
	case 4:
		r.handle ^= (uint32_t)(z >> 8) | 1;
		break;
	default:
		break;
	}
	rc = rpcrdma_call_check_reply(m, w, nw, (z >> 3) & 1 ? &r : NULL,
				      wlen);
	check_within(m, w, nw, (z >> 3) & 1 ? &r : NULL, wlen, rc);
}

/* The reply chunk a call offers: an XDR multiple, within max_msg and the
 * room, none when the hint fits inline, else at least the hint when the
 * bounds leave room for it. */
static void check_reply_chunk_size(uint64_t *st)
{
	uint32_t max_msg = (uint32_t)pick(st, 1u << 20);
	uint32_t hint = (uint32_t)pick(st, 4096);
	size_t inl = (size_t)pick(st, 1024);
	uint64_t room = pick(st, 1u << 20), hr;
	uint32_t got = rpcrdma_call_reply_chunk(hint, inl, room, max_msg);

	if (got % 4 || got > max_msg || got > room)
		abort();
	if (hint && hint <= inl && got)
		abort();
	hr = ((uint64_t)hint + 3) & ~(uint64_t)3;
	if (hint > inl && hr <= (max_msg & ~3u) && hr <= (room & ~(uint64_t)3) &&
	    got != hr)
		abort();
	if (!hint && got != ((max_msg < room ? max_msg : room) & ~(uint64_t)3))
		abort();
}

/* Read chunks by position, then the splice the glue runs on them. */
static void check_read_pieces(const struct rpcrdma_msg *m,
			      const uint8_t *inl_msg, size_t inl_msg_len)
{
	static uint8_t rd[1u << 16], out[1u << 17];
	struct rpcrdma_piece p[RPCRDMA_MAX_READ_SEGS];
	const uint8_t *inl;
	size_t inl_len, need, got = 0;
	uint64_t total = 0;
	uint32_t np, i;

	for (i = 0; i < m->nreads; i++)
		total += m->reads[i].seg.length;
	if (total > sizeof(rd))
		return;		/* more than the buffer: not read */
	memset(rd, 0xa5, (size_t)total);
	/* Chunks this small are never 2^32 bytes. */
	if (rpcrdma_call_read_pieces(m, inl_msg, inl_msg_len, rd, p, &np,
				     &inl, &inl_len) != 0 ||
	    np > m->nreads)
		abort();
	if (inl != inl_msg &&
	    (inl != rd || inl_len > total || m->proc != RPCRDMA_NOMSG))
		abort();
	for (i = 0; i < np; i++)
		if ((const uint8_t *)p[i].data < rd ||
		    (const uint8_t *)p[i].data + p[i].length > rd + total ||
		    (i && p[i].position <= p[i - 1].position))
			abort();
	need = np ? rpcrdma_splice_len(inl_len, p, np) : inl_len;
	if (!np || !need || need > sizeof(out))
		return;
	if (rpcrdma_splice(inl, inl_len, p, np, out, sizeof(out), &got) ||
	    got != need)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rpcrdma_msg m, m2;
	struct rpcrdma_limits lim;
	uint8_t out[4096], want[4096];
	size_t hlen = 0, used = 0, hlen2 = 0;

	bool bc_answer = rpcrdma_hdr_peek_bc_answer(data, size);
	uint64_t st = size;

	rpcrdma_limits_default(&lim);
	if (rpcrdma_hdr_decode(data, size, &lim, &m, &hlen) != RPCRDMA_HDR_OK)
		return 0;
	/* A decoded RDMA_ERROR is always taken for an answer; otherwise an
	 * answer is an RDMA_MSG with no chunk and the RPC message's first
	 * two words inline. */
	if (m.proc == RPCRDMA_ERROR ? !bc_answer
				    : bc_answer && (m.proc != RPCRDMA_MSG ||
						    m.nreads || m.nwrites ||
						    m.has_reply ||
						    size < hlen + 8))
		abort();
	if (m.proc != RPCRDMA_ERROR) {
		for (size_t i = 0; i < size; i++)
			st = st * 131 + data[i];
		check_inv_rkey(&m);
		check_reply_echo(&m, &st);
		check_read_pieces(&m, data + hlen, size - hlen);
		check_peek_bc_call(&m, hlen, data, size, bc_answer);
		check_call_reply(&m, &st);
		check_reply_chunk_size(&st);
	}
	if (hlen > size || hlen != rpcrdma_hdr_size(&m) || hlen > sizeof(want))
		abort();
	memcpy(want, data, hlen);
	sort_read_list(want);
	if (rpcrdma_hdr_encode(&m, out, sizeof(out), &used) || used != hlen ||
	    memcmp(out, want, hlen) != 0)
		abort();
	if (rpcrdma_hdr_decode(out, used, &lim, &m2, &hlen2) !=
		    RPCRDMA_HDR_OK ||
	    hlen2 != hlen)
		abort();
	return 0;
}
