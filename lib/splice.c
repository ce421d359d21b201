/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * XDR stream reassembly (RFC 8166 sections 3.4.5 and 3.4.6): the receiver
 * re-inserts each chunk's data into the Payload stream at the chunk's XDR
 * position and supplies the round-up that the sender left out: a read
 * chunk MAY be sent without padding and a write chunk never carries it,
 * and in both cases the padding was removed from the inline stream too.
 *
 * Precise rule. Walking the pieces in order, let built be the bytes of the
 * rebuilt stream so far, consumed the inline bytes copied so far and
 * inserted = built - consumed the piece bytes (with their round-up) so
 * far. Piece i is valid when
 *	position % 4 == 0,
 *	position >= built (so positions never decrease and a piece never
 *		starts inside the previous piece or its round-up), and
 *	position - built <= inl_len - consumed, i.e.
 *		position - inserted <= inl_len (the inline bytes that must
 *		precede it exist).
 * Then inline[consumed, consumed + position - built) is copied, the piece
 * data, and zero bytes up to rpcrdma_xdr_roundup(length). The rest of the
 * inline part follows the last piece. Several pieces may share a position
 * only if all but the last have length 0.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/hdr.h>
#include <rpcrdma/splice.h>

#include "chunks.h"

/* XDR round-up without the 32-bit wrap of rpcrdma_xdr_roundup(). */
static uint64_t roundup64(uint32_t n)
{
	return ((uint64_t)n + 3u) & ~(uint64_t)3u;
}

/*
 * Checks the pieces against the rule above and computes the rebuilt
 * length. Returns 0, -EINVAL for a bad position or a NULL pointer with a
 * non-zero length, or -ENOSPC when the total does not fit in a size_t.
 */
static int splice_check(const void *inl, size_t inl_len,
			const struct rpcrdma_piece *p, uint32_t n,
			size_t *total)
{
	uint64_t built = 0, consumed = 0;
	uint32_t i;

	if ((inl_len && !inl) || (n && !p))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		uint64_t pos = p[i].position, gap, pad;

		if (pos % 4u || pos < built || (p[i].length && !p[i].data))
			return -EINVAL;
		gap = pos - built;
		if (gap > (uint64_t)inl_len - consumed)
			return -EINVAL;
		consumed += gap;
		/* pos < 2^32 and pad <= 2^32: no 64-bit wrap, but a 32-bit
		 * size_t may be outgrown (checked below). */
		pad = roundup64(p[i].length);
		built = pos + pad;
	}
	if ((uint64_t)inl_len - consumed > UINT64_MAX - built)
		return -ENOSPC;
	built += (uint64_t)inl_len - consumed;
	if (built > SIZE_MAX)
		return -ENOSPC;
	*total = (size_t)built;
	return 0;
}

size_t rpcrdma_splice_len(size_t inl_len, const struct rpcrdma_piece *p,
			  uint32_t n)
{
	/* Only lengths matter here: pass a non-NULL dummy for inl. */
	static const uint8_t dummy;
	size_t total;

	if (splice_check(&dummy, inl_len, p, n, &total))
		return 0;
	return total;
}

/*
 * All checks happen before the first byte is written, so on error out is
 * untouched. On -ENOSPC *out_len (if out_len is not NULL) tells how many
 * bytes are needed. out must not overlap inl or any piece.
 */
int rpcrdma_splice(const void *inl, size_t inl_len,
		   const struct rpcrdma_piece *p, uint32_t n,
		   void *out, size_t cap, size_t *out_len)
{
	const uint8_t *src = inl;
	uint8_t *dst = out;
	size_t total, built = 0, consumed = 0;
	uint32_t i;
	int ret;

	ret = splice_check(inl, inl_len, p, n, &total);
	if (ret)
		return ret;
	if (out_len)
		*out_len = total;
	if (total > cap)
		return -ENOSPC;
	if (total && !out)
		return -EINVAL;

	for (i = 0; i < n; i++) {
		size_t gap = p[i].position - built;
		/* Fits: total, which includes it, fits in a size_t. */
		size_t pad = (size_t)roundup64(p[i].length);

		if (gap) {
			memcpy(dst + built, src + consumed, gap);
			consumed += gap;
			built += gap;
		}
		if (p[i].length)
			memcpy(dst + built, p[i].data, p[i].length);
		memset(dst + built + p[i].length, 0, pad - p[i].length);
		built += pad;
	}
	if (inl_len > consumed)
		memcpy(dst + built, src + consumed, inl_len - consumed);
	return 0;
}

/*
 * Where a call's read chunks go once read into rd (RFC 8166 sections
 * 3.5.3 and 3.4.5): the inline part (for RDMA_NOMSG the position-zero
 * chunk) and the pieces spliced in at their XDR positions (one chunk =
 * consecutive read segments sharing a position). 0, or -EMSGSIZE. With
 * rd NULL (sizing before any Read, lib/recv.c) what would point into rd
 * points at a placeholder: good for rpcrdma_splice_len only.
 */
int rpcrdma_call_read_pieces(const struct rpcrdma_msg *call, const uint8_t *msg,
			     size_t msg_len, const uint8_t *rd,
			     struct rpcrdma_piece *pieces, uint32_t *npieces,
			     const uint8_t **inl, size_t *inl_len)
{
	static const uint8_t sizing;
	const struct rpcrdma_msg *h = call;
	bool nomsg = h->proc == RPCRDMA_NOMSG;
	uint64_t off = 0;
	uint32_t i, j;

	*inl = msg;
	*inl_len = msg_len;
	*npieces = 0;
	for (i = 0; i < h->nreads; i = j) {
		uint32_t pos = h->reads[i].position;
		const uint8_t *at;
		uint64_t clen = 0;

		for (j = i; j < h->nreads && h->reads[j].position == pos; j++)
			clen += h->reads[j].seg.length;
		at = rd ? rd + off : &sizing;
		if (pos == 0 && nomsg && i == 0) {
			*inl = at;
			*inl_len = (size_t)clen;
		} else {
			if (clen > UINT32_MAX)
				return -EMSGSIZE;
			pieces[*npieces].position = pos;
			pieces[*npieces].data = at;
			pieces[*npieces].length = (uint32_t)clen;
			(*npieces)++;
		}
		off += clen;
	}
	return 0;
}
