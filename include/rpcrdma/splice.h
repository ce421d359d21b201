/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reassembly of an XDR stream from its inline part and chunk data
 * (RFC 8166 sections 3.4 and 3.5): each piece is inserted at its XDR
 * position in the rebuilt stream and followed by the XDR round-up
 * (zero bytes) that the sender did not transfer.
 */
#ifndef RPCRDMA_SPLICE_H
#define RPCRDMA_SPLICE_H

#include <stddef.h>
#include <stdint.h>

struct rpcrdma_piece {
	uint32_t position;	/* offset in the rebuilt stream, multiple of 4 */
	const void *data;
	uint32_t length;	/* without round-up */
};

/* Round-up of n to the XDR unit. */
static inline uint32_t rpcrdma_xdr_roundup(uint32_t n)
{
	return (n + 3u) & ~3u;
}

/* Bytes the rebuilt stream will take, or 0 on inconsistent input. */
size_t rpcrdma_splice_len(size_t inl_len, const struct rpcrdma_piece *p,
			  uint32_t n);

/*
 * Writes inline data interleaved with pieces (sorted by position,
 * positions aligned, each inside the stream built so far) into
 * out[0..cap). Returns 0 and *out_len, -EINVAL for bad positions, or
 * -ENOSPC when cap is too small. Never writes past cap.
 */
int rpcrdma_splice(const void *inl, size_t inl_len,
		   const struct rpcrdma_piece *p, uint32_t n,
		   void *out, size_t cap, size_t *out_len);

#endif /* RPCRDMA_SPLICE_H */
