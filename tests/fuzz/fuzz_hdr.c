/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the transport-header decoder and its chunk-list
 * validation (lib/hdr.c). Any input: no crash, no read past it; a header
 * it accepts must encode back to the bytes it came from (the decoder keeps
 * nothing it does not understand) and decode again to the same thing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/hdr.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rpcrdma_msg m, m2;
	struct rpcrdma_limits lim;
	uint8_t out[4096];
	size_t hlen = 0, used = 0, hlen2 = 0;

	rpcrdma_limits_default(&lim);
	if (rpcrdma_hdr_decode(data, size, &lim, &m, &hlen) != RPCRDMA_HDR_OK)
		return 0;
	if (hlen > size || hlen != rpcrdma_hdr_size(&m))
		abort();
	if (rpcrdma_hdr_encode(&m, out, sizeof(out), &used) || used != hlen ||
	    memcmp(out, data, hlen) != 0)
		abort();
	if (rpcrdma_hdr_decode(out, used, &lim, &m2, &hlen2) !=
		    RPCRDMA_HDR_OK ||
	    hlen2 != hlen)
		abort();
	return 0;
}
