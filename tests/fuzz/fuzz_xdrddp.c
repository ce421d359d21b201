/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the requester's reassembly of a reply whose items
 * came in write chunks (xprt_rdma/xdr_ddp.c), decoded by an XDR routine
 * of up to six opaque items (some into buffers of the caller's, as an
 * rpcgen result may name). Chunk lengths and contents come from the
 * input, so do the inline part and the length words in it: no crash, no
 * read past a chunk or the inline part, no leak after XDR_FREE.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../xprt_rdma/xprt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct items {
	u_int n;
	char *v[6];
	u_int len[6];
};

static char given[6][64];

/* A result that names its own buffer bounds the item by that buffer's
 * size, as rpcgen does with a declared bound (xdr_bytes trusts it). */
static bool_t xdr_items(XDR *x, struct items *it)
{
	for (u_int i = 0; i < it->n; i++) {
		u_int max = it->v[i] == given[i] ? sizeof(given[i]) : 1u << 20;

		if (!xdr_bytes(x, &it->v[i], &it->len[i], max))
			return FALSE;
	}
	return TRUE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpcrdma_xdrddp dd;
	struct items it;
	size_t off = 2;
	XDR x;

	if (size < 2)
		return 0;
	memset(&it, 0, sizeof(it));
	it.n = data[0] % 7;
	dd.n = data[1] % 5;
	for (uint32_t i = 0; i < dd.n; i++) {
		uint32_t len = 0;

		if (off + 2 <= size) {
			len = ((uint32_t)data[off] << 8 | data[off + 1]) % 2048;
			off += 2;
		}
		if (len > size - off)
			len = (uint32_t)(size - off);
		dd.chunks[i].data = data + off;
		dd.chunks[i].len = len;
		off += len;
	}
	/* Items 0 and 3 decode into buffers of the caller's (64 bytes: a
	 * longer item fails, never overflows). */
	it.v[0] = given[0];
	it.len[0] = sizeof(given[0]);
	it.v[3] = given[3];
	it.len[3] = sizeof(given[3]);
	if (rpcrdma_xdrddp_create(&x, &dd, (void *)(data + off), size - off,
				  512))
		return 0;
	(void)xdr_items(&x, &it);
	(void)rpcrdma_xdrddp_done(&dd);
	XDR_DESTROY(&x);
	/* Free what XDR allocated, not the caller's buffers. */
	for (u_int i = 0; i < it.n; i++)
		if (it.v[i] != given[i])
			free(it.v[i]);
	return 0;
}
