/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the responder's XDR stream reassembly (lib/splice.c).
 * The input is cut into an inline part and up to 8 pieces whose positions
 * and lengths come from its first bytes. Accepted input is checked
 * against a naive rebuild: inline bytes up to each position, the piece,
 * zeros to its round-up, the rest of the inline part.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/splice.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t take16(const uint8_t **d, size_t *n)
{
	uint32_t v = 0;

	if (*n >= 2) {
		v = (uint32_t)(*d)[0] << 8 | (*d)[1];
		*d += 2;
		*n -= 2;
	}
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpcrdma_piece p[8];
	uint32_t np, i, plen[8];
	size_t inl_len, len, need, cap, want_len = 0, used = 0;
	uint8_t *out, *want;

	if (size < 1)
		return 0;
	np = data[0] % 9;
	data++;
	size--;
	for (i = 0; i < np; i++) {
		p[i].position = take16(&data, &size) & ~3u;
		plen[i] = take16(&data, &size) % 4097;
	}
	inl_len = take16(&data, &size);
	if (inl_len > size)
		inl_len = size;
	/* Piece data: the rest of the input, cycled. */
	for (i = 0; i < np; i++) {
		p[i].length = plen[i];
		p[i].data = plen[i] ? malloc(plen[i]) : NULL;
		for (uint32_t j = 0; j < plen[i]; j++)
			((uint8_t *)p[i].data)[j] =
				(uint8_t)(size ? data[(j + i) % size] : j);
	}
	need = rpcrdma_splice_len(inl_len, p, np);
	cap = need ? need : 16;
	out = malloc(cap);
	if (rpcrdma_splice(data, inl_len, p, np, out, cap, &len) == 0) {
		/* Naive rebuild. */
		want = malloc(inl_len + np * 4100u + 1);
		for (i = 0; i < np; i++) {
			size_t gap = p[i].position - want_len;

			memcpy(want + want_len, data + used, gap);
			want_len += gap;
			used += gap;
			if (p[i].length)
				memcpy(want + want_len, p[i].data,
				       p[i].length);
			want_len += p[i].length;
			while (want_len % 4)
				want[want_len++] = 0;
		}
		memcpy(want + want_len, data + used, inl_len - used);
		want_len += inl_len - used;
		if (len != want_len || len != need ||
		    memcmp(out, want, len) != 0)
			abort();
		free(want);
	}
	free(out);
	for (i = 0; i < np; i++)
		free((void *)p[i].data);
	return 0;
}
