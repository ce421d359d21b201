/* SPDX-License-Identifier: BSD-3-Clause */
/* Transport header codec: RFC 8166 sections 4 and 5. */
#include <rpcrdma/hdr.h>

/*
 * RFC 8166 section 4.2.1: every list is a sequence of discriminated items
 * ended by a FALSE discriminator. A read segment costs its discriminator
 * plus position plus segment; a write chunk its discriminator, a count and
 * its segments; the reply chunk an optional discriminator, count, segments.
 */
size_t rpcrdma_hdr_size_for(uint32_t nreads, uint32_t nwrites,
			    const uint32_t *write_segs, uint32_t reply_segs)
{
	size_t len = RPCRDMA_HDR_FIXED;
	uint32_t i;

	len += (size_t)nreads * RPCRDMA_READ_SEG_WIRE + 4;
	for (i = 0; i < nwrites; i++)
		len += 4 + 4 + (size_t)write_segs[i] * RPCRDMA_SEGMENT_WIRE;
	len += 4;
	if (reply_segs)
		len += 4 + 4 + (size_t)reply_segs * RPCRDMA_SEGMENT_WIRE;
	else
		len += 4;
	return len;
}
