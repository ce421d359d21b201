/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of check_chunks share: hand-written headers as wire
 * bytes, exact heap copies (the sanitizers see a read past the end),
 * segments, and byte-exact encode and decode checks. Each file adds its
 * test cases to the one suite through its chunks_add_* function.
 */
#ifndef RPCRDMA_TESTS_CHUNKS_UTIL_H
#define RPCRDMA_TESTS_CHUNKS_UTIL_H

#include <check.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/hdr.h>
#include <rpcrdma/splice.h>

#include "lib/chunks.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define XID		0x0badcafeu
#define CREDITS		32u
#define RPC_CALL	0u
#define RPC_REPLY	1u

/* Big-endian words into bytes: the wire form of a hand-written header. */
static inline size_t words(uint8_t *buf, const uint32_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t v = htobe32(w[i]);

		memcpy(buf + 4 * i, &v, 4);
	}
	return 4 * n;
}

/* A copy of exactly len bytes on the heap, so the sanitizers see any
 * read past the end. */
static inline uint8_t *exact(const uint8_t *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	ck_assert_ptr_nonnull(p);
	if (len)
		memcpy(p, src, len);
	return p;
}

static inline bool peek_exact(const uint8_t *src, size_t len)
{
	uint8_t *p = exact(src, len);
	bool r = rpcrdma_hdr_peek_bc_answer(p, len);

	free(p);
	return r;
}

static inline struct rpcrdma_segment seg(uint32_t handle, uint32_t length,
				  uint64_t offset)
{
	struct rpcrdma_segment s = {
		.handle = handle, .length = length, .offset = offset,
	};

	return s;
}

static inline void encode_eq(const struct rpcrdma_msg *m, const uint32_t *w,
		      size_t nw)
{
	uint8_t got[2048], want[2048];
	size_t used = 0, wl;

	ck_assert_int_eq(rpcrdma_hdr_encode(m, got, sizeof(got), &used), 0);
	wl = words(want, w, nw);
	ck_assert_uint_eq(used, wl);
	ck_assert_mem_eq(got, want, wl);
}

static inline void decode_ok(const uint32_t *w, size_t nw, struct rpcrdma_msg *m)
{
	uint8_t buf[2048];
	size_t len = words(buf, w, nw), hlen;

	ck_assert_int_eq(rpcrdma_hdr_decode(buf, len, NULL, m, &hlen),
			 RPCRDMA_HDR_OK);
	ck_assert_uint_eq(hlen, len);
}

void chunks_add_peek(Suite *s);
void chunks_add_reply(Suite *s);
void chunks_add_pieces(Suite *s);
void chunks_add_call(Suite *s);

#endif /* RPCRDMA_TESTS_CHUNKS_UTIL_H */
