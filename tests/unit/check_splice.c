/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * XDR stream reassembly: pieces at their positions, zero round-up, bounds,
 * and a round trip through the call planner.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/plan.h>
#include <rpcrdma/splice.h>

#define FILL 0xee

static const uint8_t p5[5] = { 'a', 'b', 'c', 'd', 'e' };
static const uint8_t p6[6] = { 'f', 'g', 'h', 'i', 'j', 'k' };
static const uint8_t p7[7] = { 'l', 'm', 'n', 'o', 'p', 'q', 'r' };

/*
 * Rebuilt stream of 40 bytes:
 *   [0,4)   inline 1 2 3 4
 *   [4,12)  piece "abcde" + 3 zero bytes        (position 4)
 *   [12,16) inline 5 6 7 8
 *   [16,24) piece "fghijk" + 2 zero bytes       (position 16)
 *   [24,32) piece "lmnopqr" + 1 zero byte       (position 24, adjacent)
 *   [32,40) inline 9 .. 16
 * inline part: 4 + 4 + 8 = 16 bytes; pieces take 8 + 8 + 8 = 24.
 */
static const uint8_t inl16[16] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
};
static const uint8_t want40[40] = {
	1, 2, 3, 4,
	'a', 'b', 'c', 'd', 'e', 0, 0, 0,
	5, 6, 7, 8,
	'f', 'g', 'h', 'i', 'j', 'k', 0, 0,
	'l', 'm', 'n', 'o', 'p', 'q', 'r', 0,
	9, 10, 11, 12, 13, 14, 15, 16
};

static const struct rpcrdma_piece three[3] = {
	{ 4, p5, 5 }, { 16, p6, 6 }, { 24, p7, 7 }
};

START_TEST(splice_several)
{
	uint8_t out[48];
	size_t len = 0;
	uint32_t i;

	ck_assert_uint_eq(rpcrdma_splice_len(16, three, 3), 40);
	memset(out, FILL, sizeof(out));
	ck_assert_int_eq(rpcrdma_splice(inl16, 16, three, 3, out, sizeof(out),
					&len), 0);
	ck_assert_uint_eq(len, 40);
	ck_assert_mem_eq(out, want40, 40);
	/* Pad bytes are zero even though out was pre-filled. */
	ck_assert_uint_eq(out[9], 0);
	ck_assert_uint_eq(out[10], 0);
	ck_assert_uint_eq(out[11], 0);
	ck_assert_uint_eq(out[22], 0);
	ck_assert_uint_eq(out[23], 0);
	ck_assert_uint_eq(out[31], 0);
	/* Nothing written past the rebuilt length. */
	for (i = 40; i < sizeof(out); i++)
		ck_assert_uint_eq(out[i], FILL);
}
END_TEST

/* Piece at 0: "abc" + 1 zero, then inline 8 bytes: 12 bytes. */
START_TEST(splice_at_start)
{
	const struct rpcrdma_piece p = { 0, p5, 3 };
	const uint8_t want[12] = { 'a', 'b', 'c', 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t out[12];
	size_t len;

	memset(out, FILL, sizeof(out));
	ck_assert_int_eq(rpcrdma_splice(inl16, 8, &p, 1, out, sizeof(out),
					&len), 0);
	ck_assert_uint_eq(len, 12);
	ck_assert_mem_eq(out, want, 12);
}
END_TEST

/* Piece at the end (position = inline length): 8 inline + "ab" + 2 zero. */
START_TEST(splice_at_end)
{
	const struct rpcrdma_piece p = { 8, p5, 2 };
	const uint8_t want[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 'a', 'b', 0, 0 };
	uint8_t out[12];
	size_t len;

	memset(out, FILL, sizeof(out));
	ck_assert_int_eq(rpcrdma_splice(inl16, 8, &p, 1, out, sizeof(out),
					&len), 0);
	ck_assert_uint_eq(len, 12);
	ck_assert_mem_eq(out, want, 12);
}
END_TEST

/* No inline part at all (a Long Call's position-zero chunk): the piece
 * alone, 7 bytes + 1 zero; and an empty stream. */
START_TEST(splice_piece_only)
{
	const struct rpcrdma_piece p = { 0, p7, 7 };
	const uint8_t want[8] = { 'l', 'm', 'n', 'o', 'p', 'q', 'r', 0 };
	uint8_t out[8];
	size_t len;

	memset(out, FILL, sizeof(out));
	ck_assert_int_eq(rpcrdma_splice(NULL, 0, &p, 1, out, sizeof(out),
					&len), 0);
	ck_assert_uint_eq(len, 8);
	ck_assert_mem_eq(out, want, 8);

	ck_assert_int_eq(rpcrdma_splice(NULL, 0, NULL, 0, NULL, 0, &len), 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_uint_eq(rpcrdma_splice_len(0, NULL, 0), 0);
}
END_TEST

/*
 * Zero-length pieces add nothing, and may share a position with the next
 * piece; a piece of length 4 needs no pad.
 *   inline 1..8; {4, len 0}, {4, "abcd"}, {12, len 0}
 *   -> 1 2 3 4 a b c d 5 6 7 8
 */
START_TEST(splice_zero_length)
{
	const struct rpcrdma_piece p[3] = {
		{ 4, p5, 0 }, { 4, p5, 4 }, { 12, NULL, 0 }
	};
	const uint8_t want[12] = { 1, 2, 3, 4, 'a', 'b', 'c', 'd', 5, 6, 7, 8 };
	uint8_t out[12];
	size_t len;

	ck_assert_int_eq(rpcrdma_splice(inl16, 8, p, 3, out, sizeof(out),
					&len), 0);
	ck_assert_uint_eq(len, 12);
	ck_assert_mem_eq(out, want, 12);
}
END_TEST

START_TEST(splice_bad_positions)
{
	struct rpcrdma_piece p[2];
	uint8_t out[64];
	size_t len = 12345;

	/* Not a multiple of 4. */
	p[0] = (struct rpcrdma_piece){ 6, p5, 5 };
	ck_assert_int_eq(rpcrdma_splice(inl16, 16, p, 1, out, sizeof(out),
					&len), -EINVAL);
	ck_assert_uint_eq(rpcrdma_splice_len(16, p, 1), 0);
	ck_assert_uint_eq(len, 12345);	/* untouched on error */
	/* Beyond the inline part: position 12 but only 8 inline bytes. */
	p[0] = (struct rpcrdma_piece){ 12, p5, 5 };
	ck_assert_int_eq(rpcrdma_splice(inl16, 8, p, 1, out, sizeof(out),
					&len), -EINVAL);
	ck_assert_uint_eq(rpcrdma_splice_len(8, p, 1), 0);
	/* Decreasing positions. */
	p[0] = (struct rpcrdma_piece){ 8, p5, 4 };
	p[1] = (struct rpcrdma_piece){ 4, p5, 4 };
	ck_assert_int_eq(rpcrdma_splice(inl16, 16, p, 2, out, sizeof(out),
					&len), -EINVAL);
	/* Inside the previous piece's round-up: {4, 5} fills [4,12). */
	p[0] = (struct rpcrdma_piece){ 4, p5, 5 };
	p[1] = (struct rpcrdma_piece){ 8, p6, 4 };
	ck_assert_int_eq(rpcrdma_splice(inl16, 16, p, 2, out, sizeof(out),
					&len), -EINVAL);
	/* Same position as a non-empty piece. */
	p[1].position = 4;
	ck_assert_int_eq(rpcrdma_splice(inl16, 16, p, 2, out, sizeof(out),
					&len), -EINVAL);
	/* Right after it is fine (adjacent). */
	p[1].position = 12;
	ck_assert_int_eq(rpcrdma_splice(inl16, 16, p, 2, out, sizeof(out),
					&len), 0);
	ck_assert_uint_eq(len, 16 + 8 + 4);
	/*
	 * After a piece, the inline bytes left bound the next position:
	 * inline 8, {4, 4} inserts 4, so position - 4 <= 8: 12 is the
	 * end of the stream (ok), 16 is past it.
	 */
	p[0] = (struct rpcrdma_piece){ 4, p5, 4 };
	p[1] = (struct rpcrdma_piece){ 12, p6, 4 };
	ck_assert_int_eq(rpcrdma_splice(inl16, 8, p, 2, out, sizeof(out),
					&len), 0);
	ck_assert_uint_eq(len, 16);
	p[1].position = 16;
	ck_assert_int_eq(rpcrdma_splice(inl16, 8, p, 2, out, sizeof(out),
					&len), -EINVAL);
	ck_assert_uint_eq(rpcrdma_splice_len(8, p, 2), 0);
	/* NULL where bytes are needed. */
	p[0] = (struct rpcrdma_piece){ 4, NULL, 4 };
	ck_assert_int_eq(rpcrdma_splice(inl16, 8, p, 1, out, sizeof(out),
					&len), -EINVAL);
	ck_assert_int_eq(rpcrdma_splice(NULL, 8, NULL, 0, out, sizeof(out),
					&len), -EINVAL);
	ck_assert_int_eq(rpcrdma_splice(inl16, 8, NULL, 1, out, sizeof(out),
					&len), -EINVAL);
	ck_assert_int_eq(rpcrdma_splice(inl16, 8, NULL, 0, NULL, sizeof(out),
					&len), -EINVAL);
}
END_TEST

/* Heap buffers of the exact size so ASan sees any stray byte. */
START_TEST(splice_cap)
{
	uint8_t *out = malloc(40);
	uint8_t *small = malloc(39);
	size_t len = 0;
	uint32_t i;

	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(small);
	ck_assert_int_eq(rpcrdma_splice(inl16, 16, three, 3, out, 40, &len),
			 0);
	ck_assert_uint_eq(len, 40);
	ck_assert_mem_eq(out, want40, 40);

	/* One short: -ENOSPC, the needed size reported, nothing written. */
	memset(small, FILL, 39);
	len = 0;
	ck_assert_int_eq(rpcrdma_splice(inl16, 16, three, 3, small, 39, &len),
			 -ENOSPC);
	ck_assert_uint_eq(len, 40);
	for (i = 0; i < 39; i++)
		ck_assert_uint_eq(small[i], FILL);
	ck_assert_int_eq(rpcrdma_splice(inl16, 16, three, 3, NULL, 0, NULL),
			 -ENOSPC);
	free(small);
	free(out);
}
END_TEST

/*
 * Lengths at the 32-bit edge: rpcrdma_xdr_roundup(0xffffffff) wraps to 0
 * in 32 bits, but the rebuilt length must be 2^32. Nothing is read from
 * the piece because the small cap is refused first.
 */
START_TEST(splice_overflow)
{
	const struct rpcrdma_piece big = { 0, p5, UINT32_MAX };
	const struct rpcrdma_piece four = { 0, p5, 4 };
	uint8_t out[8];
	size_t len = 0;

#if SIZE_MAX > UINT32_MAX
	ck_assert_uint_eq(rpcrdma_splice_len(0, &big, 1), (size_t)1 << 32);
	ck_assert_int_eq(rpcrdma_splice(NULL, 0, &big, 1, out, sizeof(out),
					&len), -ENOSPC);
	ck_assert_uint_eq(len, (size_t)1 << 32);
#else
	ck_assert_uint_eq(rpcrdma_splice_len(0, &big, 1), 0);
	ck_assert_int_eq(rpcrdma_splice(NULL, 0, &big, 1, out, sizeof(out),
					&len), -ENOSPC);
#endif
	/* inl_len + piece does not fit in a size_t. */
	ck_assert_uint_eq(rpcrdma_splice_len(SIZE_MAX, &four, 1), 0);
	ck_assert_int_eq(rpcrdma_splice(inl16, SIZE_MAX, &four, 1, out,
					sizeof(out), &len), -ENOSPC);
	/* A decreasing position is caught as such even when the inline
	 * length is so large that pos - built, wrapped, would look small. */
	{
		const struct rpcrdma_piece back[2] = { { 8, inl16, 16 },
						       { 4, p5, 4 } };

		ck_assert_int_eq(rpcrdma_splice(inl16, SIZE_MAX, back, 2, out,
						sizeof(out), &len), -EINVAL);
	}
}
END_TEST

/* ---- round trip through the planner ---- */

static uint32_t rng_state;

static uint32_t rng(void)
{
	/* xorshift32 */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/*
 * Builds a random XDR-like message: random bytes, with random opaques
 * (length word, data, zero pad) reported as items. Returns the length.
 */
static uint32_t make_msg(uint8_t *msg, uint32_t max,
			 struct rpcrdma_item *items, uint32_t *nitems)
{
	uint32_t pos = 4 * (1 + rng() % 8), n = 0, len, i;

	for (i = 0; i < pos; i++)
		msg[i] = (uint8_t)rng();
	while (n < RPCRDMA_PLAN_MAX_ITEMS && rng() % 4) {
		uint32_t filler = 4 * (rng() % 4);

		len = rng() % 2 ? rng() % 16 : rng() % 3000;
		if (pos + filler + 4 + rpcrdma_xdr_roundup(len) + 8 > max)
			break;
		for (i = 0; i < filler; i++)
			msg[pos++] = (uint8_t)rng();
		/* length word, big-endian as XDR has it */
		msg[pos++] = (uint8_t)(len >> 24);
		msg[pos++] = (uint8_t)(len >> 16);
		msg[pos++] = (uint8_t)(len >> 8);
		msg[pos++] = (uint8_t)len;
		items[n].offset = pos;
		items[n].length = len;
		n++;
		for (i = 0; i < len; i++)
			msg[pos++] = (uint8_t)rng();
		while (pos % 4)
			msg[pos++] = 0;	/* XDR pad */
	}
	len = 4 * (rng() % 3);
	for (i = 0; i < len; i++)
		msg[pos++] = (uint8_t)rng();
	*nitems = n;
	return pos;
}

START_TEST(splice_roundtrip)
{
	enum { MAX = 64 * 1024, ROUNDS = 3000 };
	uint8_t *msg = malloc(MAX), *inl = malloc(MAX), *out = malloc(MAX);
	struct rpcrdma_item items[RPCRDMA_PLAN_MAX_ITEMS];
	struct rpcrdma_piece pieces[RPCRDMA_PLAN_MAX_ITEMS];
	struct rpcrdma_call_plan plan;
	uint32_t round, nitems, rpc_len, i, kinds[4] = { 0, 0, 0, 0 };

	ck_assert_ptr_nonnull(msg);
	ck_assert_ptr_nonnull(inl);
	ck_assert_ptr_nonnull(out);
	rng_state = 0x2545f491;	/* fixed seed: reproducible */
	for (round = 0; round < ROUNDS; round++) {
		const uint32_t thresholds[4] = { 0, 1, 16, 1024 };
		uint32_t thr = thresholds[rng() % 4];
		uint32_t send_max = 1024 * (1 + rng() % 8);
		size_t inl_len = 0, len = 0;
		uint64_t moved = 0;
		uint32_t first;

		rpc_len = make_msg(msg, MAX, items, &nitems);
		ck_assert_int_eq(rpcrdma_plan_call(rpc_len, items, nitems, thr,
						   send_max, 8, &plan), 0);
		kinds[plan.kind]++;

		/* Inline part: the extents, in order, no overlap. */
		for (i = 0; i < plan.nextents; i++) {
			const struct rpcrdma_extent *e = &plan.extents[i];

			ck_assert_uint_le((uint64_t)e->offset + e->length,
					  rpc_len);
			if (i)
				ck_assert_uint_gt(e->offset,
						  plan.extents[i - 1].offset);
			memcpy(inl + inl_len, msg + e->offset, e->length);
			inl_len += e->length;
		}
		ck_assert_uint_eq(inl_len, plan.inline_len);
		/* A Long Call with items: the extents travel gathered in the
		 * position-zero chunk (the server's inline part), the items
		 * in the chunks after it; nothing follows the header. */
		first = plan.kind == RPCRDMA_CALL_LONG_READ;
		ck_assert_uint_le(plan.hdr_len +
				  (plan.kind == RPCRDMA_CALL_LONG || first ?
				   0 : inl_len), send_max);
		if (first) {
			ck_assert_uint_eq(plan.chunks[0].position, 0);
			ck_assert_uint_eq(plan.chunks[0].length, inl_len);
		}
		for (i = first; i < plan.nchunks; i++) {
			pieces[i - first].position = plan.chunks[i].position;
			pieces[i - first].data = msg + plan.chunks[i].offset;
			pieces[i - first].length = plan.chunks[i].length;
			moved += rpcrdma_xdr_roundup(plan.chunks[i].length);
		}
		ck_assert_uint_eq(inl_len + moved, rpc_len);
		ck_assert_uint_eq(rpcrdma_splice_len(inl_len, pieces,
						     plan.nchunks - first),
				  rpc_len);
		ck_assert_int_eq(rpcrdma_splice(inl, inl_len, pieces,
						plan.nchunks - first, out,
						rpc_len, &len), 0);
		ck_assert_uint_eq(len, rpc_len);
		ck_assert_mem_eq(out, msg, rpc_len);
	}
	/* The seed exercises all four kinds. */
	ck_assert_uint_gt(kinds[RPCRDMA_CALL_INLINE], 0);
	ck_assert_uint_gt(kinds[RPCRDMA_CALL_READ], 0);
	ck_assert_uint_gt(kinds[RPCRDMA_CALL_LONG], 0);
	ck_assert_uint_gt(kinds[RPCRDMA_CALL_LONG_READ], 0);
	free(out);
	free(inl);
	free(msg);
}
END_TEST

static Suite *splice_suite(void)
{
	Suite *s = suite_create("splice");
	TCase *tc = tcase_create("splice");

	tcase_add_test(tc, splice_several);
	tcase_add_test(tc, splice_at_start);
	tcase_add_test(tc, splice_at_end);
	tcase_add_test(tc, splice_piece_only);
	tcase_add_test(tc, splice_zero_length);
	tcase_add_test(tc, splice_bad_positions);
	tcase_add_test(tc, splice_cap);
	tcase_add_test(tc, splice_overflow);
	suite_add_tcase(s, tc);

	tc = tcase_create("roundtrip");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, splice_roundtrip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(splice_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
