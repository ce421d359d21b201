/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the transport-header decoder and its chunk-list
 * validation (lib/hdr.c). Any input: no crash, no read past it; a header
 * it accepts must encode back to the bytes it came from (the decoder keeps
 * nothing it does not understand), its read list sorted by position (the
 * decoder sorts, stably, RFC 8166 section 4.3.1 only SHOULDs the order),
 * and decode again to the same thing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/hdr.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rpcrdma_msg m, m2;
	struct rpcrdma_limits lim;
	uint8_t out[4096], want[4096];
	size_t hlen = 0, used = 0, hlen2 = 0;

	rpcrdma_limits_default(&lim);
	if (rpcrdma_hdr_decode(data, size, &lim, &m, &hlen) != RPCRDMA_HDR_OK)
		return 0;
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
