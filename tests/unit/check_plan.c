/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Marshalling planner: call and reply decisions at their boundaries.
 *
 * Header sizes used below, derived by hand from RFC 8166 section 4.1
 * (every field is one 4-byte XDR word; a segment is handle, length and a
 * 64-bit offset = 16 bytes):
 *   fixed part: xid, vers, credits, proc              = 16
 *   read list: 24 per read segment (disc + position + segment) + 4
 *   write list: per chunk 4 (disc) + 4 (count) + 16 per segment; + 4
 *   reply chunk: 4 when absent, else 4 + 4 + 16 per segment
 * so
 *   call, no read, empty write list and reply chunk:  16 + 4 + 4 + 4 = 28
 *   call, 1 / 2 / 3 / 32 reads: 28 + 24 n = 52 / 76 / 100 / 796
 *   reply, no write chunk, no reply chunk:                          28
 *   reply, one write chunk of 1 segment: 16 + 4 + (8 + 16) + 4 + 4 = 52
 *   reply, write chunks of 1 and 2 segments: 16+4+24+40+4+4         = 92
 *   reply, no write, reply chunk of 1 segment: 16 + 4 + 4 + 24      = 48
 *   reply, 1 write (1 seg), reply chunk 1 seg: 16 + 4 + 24 + 4 + 24 = 72
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/plan.h>

#define EMPTY_LISTS 8u	/* empty write list + empty reply chunk */

static struct rpcrdma_call_plan cp;
static struct rpcrdma_reply_plan rp;

static void check_extent(const struct rpcrdma_extent *e, uint32_t off,
			 uint32_t len)
{
	ck_assert_uint_eq(e->offset, off);
	ck_assert_uint_eq(e->length, len);
}

static void check_chunk(uint32_t i, uint32_t pos, uint32_t len)
{
	ck_assert_uint_eq(cp.chunks[i].position, pos);
	ck_assert_uint_eq(cp.chunks[i].offset, pos);
	ck_assert_uint_eq(cp.chunks[i].length, len);
}

static void check_long_call(uint32_t rpc_len, size_t hdr_len)
{
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_LONG);
	ck_assert_uint_eq(cp.nchunks, 1);
	ck_assert_uint_eq(cp.chunks[0].position, 0);
	ck_assert_uint_eq(cp.chunks[0].offset, 0);
	ck_assert_uint_eq(cp.chunks[0].length, rpc_len);
	ck_assert_uint_eq(cp.nextents, 0);
	ck_assert_uint_eq(cp.inline_len, 0);
	ck_assert_uint_eq(cp.hdr_len, hdr_len);
}

/* ---- calls ---- */

/* send_max 1024, header 28: 1024 - 28 = 996 bytes of RPC fit inline. */
START_TEST(call_inline_threshold)
{
	ck_assert_int_eq(rpcrdma_plan_call(995, NULL, 0, 0, 1024,
					   EMPTY_LISTS, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_INLINE);
	ck_assert_uint_eq(cp.inline_len, 995);

	ck_assert_int_eq(rpcrdma_plan_call(996, NULL, 0, 0, 1024,
					   EMPTY_LISTS, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_INLINE);
	ck_assert_uint_eq(cp.hdr_len, 28);
	ck_assert_uint_eq(cp.nchunks, 0);
	ck_assert_uint_eq(cp.nextents, 1);
	check_extent(&cp.extents[0], 0, 996);
	ck_assert_uint_eq(cp.inline_len, 996);

	/* One byte more: Long Call, header 28 + 24 = 52. */
	ck_assert_int_eq(rpcrdma_plan_call(997, NULL, 0, 0, 1024,
					   EMPTY_LISTS, &cp), 0);
	check_long_call(997, 52);
}
END_TEST

/*
 * reply_lists_len replaces the 8 bytes of empty lists: a write list with
 * one 1-segment chunk (4 + 4 + 16 + 4 = 28) and no reply chunk (4) = 32.
 * Header 16 + 4 + 32 = 52, so 1024 - 52 = 972 bytes fit; Long Call header
 * is 52 + 24 = 76.
 */
START_TEST(call_reply_lists_counted)
{
	ck_assert_int_eq(rpcrdma_plan_call(972, NULL, 0, 0, 1024, 32, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_INLINE);
	ck_assert_uint_eq(cp.hdr_len, 52);
	ck_assert_int_eq(rpcrdma_plan_call(976, NULL, 0, 0, 1024, 32, &cp), 0);
	check_long_call(976, 76);
}
END_TEST

/* Long Call header is 52: send_max 52 still works, 51 does not. */
START_TEST(call_long_header_too_big)
{
	ck_assert_int_eq(rpcrdma_plan_call(100, NULL, 0, 0, 52,
					   EMPTY_LISTS, &cp), 0);
	check_long_call(100, 52);
	ck_assert_int_eq(rpcrdma_plan_call(100, NULL, 0, 0, 51,
					   EMPTY_LISTS, &cp), -E2BIG);
	/* Even a tiny call cannot go when the short header does not fit:
	 * 28 + 4 > 31, and the Long Call header 52 > 31. */
	ck_assert_int_eq(rpcrdma_plan_call(4, NULL, 0, 0, 31,
					   EMPTY_LISTS, &cp), -E2BIG);
	ck_assert_int_eq(rpcrdma_plan_call(4, NULL, 0, 0, 32,
					   EMPTY_LISTS, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_INLINE);
	/* Absurd reply_lists_len: no overflow, just too big. */
	ck_assert_int_eq(rpcrdma_plan_call(4, NULL, 0, 0, 1024,
					   SIZE_MAX - 10, &cp), -E2BIG);
}
END_TEST

/*
 * DDP threshold 1024, send_max 4096, rpc_len 2048, item at offset 100:
 *   1023: stays, INLINE, 2048 inline, header 28.
 *   1024: moves; inline [0,100) and [1124,2048) = 100 + 924 = 1024,
 *         header 52.
 *   1025: moves, round-up 1028 leaves the stream too: [0,100) and
 *         [1128,2048) = 100 + 920 = 1020; chunk length 1025 (no pad).
 */
START_TEST(call_ddp_threshold)
{
	struct rpcrdma_item it = { 100, 1023 };

	ck_assert_int_eq(rpcrdma_plan_call(2048, &it, 1, 1024, 4096,
					   EMPTY_LISTS, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_INLINE);
	ck_assert_uint_eq(cp.nchunks, 0);
	ck_assert_uint_eq(cp.nextents, 1);
	check_extent(&cp.extents[0], 0, 2048);
	ck_assert_uint_eq(cp.inline_len, 2048);
	ck_assert_uint_eq(cp.hdr_len, 28);

	it.length = 1024;
	ck_assert_int_eq(rpcrdma_plan_call(2048, &it, 1, 1024, 4096,
					   EMPTY_LISTS, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_READ);
	ck_assert_uint_eq(cp.nchunks, 1);
	check_chunk(0, 100, 1024);
	ck_assert_uint_eq(cp.nextents, 2);
	check_extent(&cp.extents[0], 0, 100);
	check_extent(&cp.extents[1], 1124, 924);
	ck_assert_uint_eq(cp.inline_len, 1024);
	ck_assert_uint_eq(cp.hdr_len, 52);

	it.length = 1025;
	ck_assert_int_eq(rpcrdma_plan_call(2048, &it, 1, 1024, 4096,
					   EMPTY_LISTS, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_READ);
	check_chunk(0, 100, 1025);
	ck_assert_uint_eq(cp.nextents, 2);
	check_extent(&cp.extents[0], 0, 100);
	check_extent(&cp.extents[1], 1128, 920);
	ck_assert_uint_eq(cp.inline_len, 1020);

	/* Threshold 0: DDP off, even a big item stays inline. */
	ck_assert_int_eq(rpcrdma_plan_call(2048, &it, 1, 0, 4096,
					   EMPTY_LISTS, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_INLINE);
	ck_assert_uint_eq(cp.inline_len, 2048);
}
END_TEST

/*
 * rpc_len 64, threshold 9, items of length 9, 10, 11 (1, 2, 3 mod 4):
 *   {12, 9}  occupies [12, 24)  (9 + 3 pad)
 *   {28, 10} occupies [28, 40)  (10 + 2 pad)
 *   {44, 11} occupies [44, 56)  (11 + 1 pad)
 * inline: [0,12) [24,28) [40,44) [56,64) = 12 + 4 + 4 + 8 = 28 = 64 - 36.
 * header 16 + 3 * 24 + 4 + 8 = 100.
 */
START_TEST(call_odd_lengths)
{
	const struct rpcrdma_item it[3] = { { 12, 9 }, { 28, 10 }, { 44, 11 } };

	ck_assert_int_eq(rpcrdma_plan_call(64, it, 3, 9, 1024,
					   EMPTY_LISTS, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_READ);
	ck_assert_uint_eq(cp.nchunks, 3);
	check_chunk(0, 12, 9);
	check_chunk(1, 28, 10);
	check_chunk(2, 44, 11);
	ck_assert_uint_eq(cp.nextents, 4);
	check_extent(&cp.extents[0], 0, 12);
	check_extent(&cp.extents[1], 24, 4);
	check_extent(&cp.extents[2], 40, 4);
	check_extent(&cp.extents[3], 56, 8);
	ck_assert_uint_eq(cp.inline_len, 28);
	ck_assert_uint_eq(cp.hdr_len, 100);

	/* Threshold 10: the 9-byte item stays, its bytes inline.
	 * inline [0,28) [40,44) [56,64) = 28 + 4 + 8 = 40, header 76. */
	ck_assert_int_eq(rpcrdma_plan_call(64, it, 3, 10, 1024,
					   EMPTY_LISTS, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_READ);
	ck_assert_uint_eq(cp.nchunks, 2);
	check_chunk(0, 28, 10);
	check_chunk(1, 44, 11);
	ck_assert_uint_eq(cp.nextents, 3);
	check_extent(&cp.extents[0], 0, 28);
	check_extent(&cp.extents[1], 40, 4);
	check_extent(&cp.extents[2], 56, 8);
	ck_assert_uint_eq(cp.inline_len, 40);
	ck_assert_uint_eq(cp.hdr_len, 76);
}
END_TEST

/*
 * Adjacent items and an item ending the message: no empty extent.
 * rpc_len 24: {4, 4} [4,8), {8, 5} [8,16), {20, 1} [20,24).
 * inline [0,4) [16,20) = 8.
 */
START_TEST(call_adjacent_and_last)
{
	const struct rpcrdma_item it[3] = { { 4, 4 }, { 8, 5 }, { 20, 1 } };

	ck_assert_int_eq(rpcrdma_plan_call(24, it, 3, 1, 1024,
					   EMPTY_LISTS, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_READ);
	ck_assert_uint_eq(cp.nchunks, 3);
	check_chunk(0, 4, 4);
	check_chunk(1, 8, 5);
	check_chunk(2, 20, 1);
	ck_assert_uint_eq(cp.nextents, 2);
	check_extent(&cp.extents[0], 0, 4);
	check_extent(&cp.extents[1], 16, 4);
	ck_assert_uint_eq(cp.inline_len, 8);
}
END_TEST

/*
 * DDP makes a big call fit: send_max 1024, item {100, 1500} (no pad),
 * header 52, so the rest fits when rpc_len - 1500 <= 972.
 *   rpc_len 2472: inline 972, 52 + 972 = 1024: READ.
 *   rpc_len 2476: inline 976: Long Call of the whole 2476 bytes.
 */
START_TEST(call_ddp_then_long)
{
	const struct rpcrdma_item it = { 100, 1500 };

	ck_assert_int_eq(rpcrdma_plan_call(2472, &it, 1, 1024, 1024,
					   EMPTY_LISTS, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_READ);
	ck_assert_uint_eq(cp.inline_len, 972);
	ck_assert_uint_eq(cp.hdr_len, 52);
	check_extent(&cp.extents[0], 0, 100);
	check_extent(&cp.extents[1], 1600, 872);

	/* 4 bytes more: the rest no longer fits either. A Long Call with
	 * the item: the rest (976 bytes, two extents) in a position-zero
	 * chunk, the item at 100; header 16 + 2 x 24 + 4 + 8 = 76. */
	ck_assert_int_eq(rpcrdma_plan_call(2476, &it, 1, 1024, 1024,
					   EMPTY_LISTS, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_LONG_READ);
	ck_assert_uint_eq(cp.nchunks, 2);
	ck_assert_uint_eq(cp.chunks[0].position, 0);
	ck_assert_uint_eq(cp.chunks[0].length, 976);
	check_chunk(1, 100, 1500);
	ck_assert_uint_eq(cp.inline_len, 976);
	ck_assert_uint_eq(cp.nextents, 2);
	check_extent(&cp.extents[0], 0, 100);
	check_extent(&cp.extents[1], 1600, 876);
	ck_assert_uint_eq(cp.hdr_len, 76);
	/* No room for that header (send_max 70 < 76, > 52): a plain Long
	 * Call; without DDP too. */
	ck_assert_int_eq(rpcrdma_plan_call(2476, &it, 1, 1024, 70,
					   EMPTY_LISTS, &cp), 0);
	check_long_call(2476, 52);
	ck_assert_int_eq(rpcrdma_plan_call(2476, &it, 1, 0, 1024,
					   EMPTY_LISTS, &cp), 0);
	check_long_call(2476, 52);
}
END_TEST

/* 32 items of 4 bytes at 8, 16, ..., 256 in a 264-byte call:
 * header 16 + 32 * 24 + 4 + 8 = 796; inline = 264 - 128 = 136. */
START_TEST(call_max_items)
{
	struct rpcrdma_item it[RPCRDMA_PLAN_MAX_ITEMS + 1];
	uint32_t i;

	for (i = 0; i <= RPCRDMA_PLAN_MAX_ITEMS; i++) {
		it[i].offset = 8 + 8 * i;
		it[i].length = 4;
	}
	ck_assert_int_eq(rpcrdma_plan_call(264, it, RPCRDMA_PLAN_MAX_ITEMS, 4,
					   4096, EMPTY_LISTS, &cp), 0);
	ck_assert_int_eq(cp.kind, RPCRDMA_CALL_READ);
	ck_assert_uint_eq(cp.nchunks, 32);
	ck_assert_uint_eq(cp.hdr_len, 796);
	ck_assert_uint_eq(cp.inline_len, 136);
	ck_assert_uint_eq(cp.nextents, 33);
	check_extent(&cp.extents[0], 0, 8);
	check_extent(&cp.extents[32], 260, 4);
	check_chunk(31, 256, 4);
	ck_assert_int_eq(rpcrdma_plan_call(272, it, RPCRDMA_PLAN_MAX_ITEMS + 1,
					   4, 4096, EMPTY_LISTS, &cp), -EINVAL);
}
END_TEST

START_TEST(call_invalid)
{
	struct rpcrdma_item it[2];

	/* Unsorted. */
	it[0] = (struct rpcrdma_item){ 16, 4 };
	it[1] = (struct rpcrdma_item){ 8, 4 };
	ck_assert_int_eq(rpcrdma_plan_call(64, it, 2, 1, 1024, 8, &cp),
			 -EINVAL);
	/* Second starts inside the first's round-up: {4,5} ends at 12. */
	it[0] = (struct rpcrdma_item){ 4, 5 };
	it[1] = (struct rpcrdma_item){ 8, 4 };
	ck_assert_int_eq(rpcrdma_plan_call(64, it, 2, 1, 1024, 8, &cp),
			 -EINVAL);
	it[1].offset = 12;
	ck_assert_int_eq(rpcrdma_plan_call(64, it, 2, 1, 1024, 8, &cp), 0);
	/* Misaligned offset. */
	it[0] = (struct rpcrdma_item){ 6, 4 };
	ck_assert_int_eq(rpcrdma_plan_call(64, it, 1, 1, 1024, 8, &cp),
			 -EINVAL);
	/* Offset 0: no room for its length word (would be position zero). */
	it[0] = (struct rpcrdma_item){ 0, 4 };
	ck_assert_int_eq(rpcrdma_plan_call(64, it, 1, 1, 1024, 8, &cp),
			 -EINVAL);
	/* Past the end with its round-up: 8 + 12 > 16; 8 + 8 fits. */
	it[0] = (struct rpcrdma_item){ 8, 9 };
	ck_assert_int_eq(rpcrdma_plan_call(16, it, 1, 1, 1024, 8, &cp),
			 -EINVAL);
	it[0].length = 8;
	ck_assert_int_eq(rpcrdma_plan_call(16, it, 1, 1, 1024, 8, &cp), 0);
	/* A length whose 32-bit round-up would wrap to 0. */
	it[0] = (struct rpcrdma_item){ 4, UINT32_MAX };
	ck_assert_int_eq(rpcrdma_plan_call(UINT32_MAX, it, 1, 1, 1024, 8,
					   &cp), -EINVAL);
	/* Checked even with DDP off. */
	it[0] = (struct rpcrdma_item){ 6, 4 };
	ck_assert_int_eq(rpcrdma_plan_call(64, it, 1, 0, 1024, 8, &cp),
			 -EINVAL);
	/* Bad pointers and reply_lists_len below the 8 empty bytes. */
	ck_assert_int_eq(rpcrdma_plan_call(64, NULL, 1, 1, 1024, 8, &cp),
			 -EINVAL);
	ck_assert_int_eq(rpcrdma_plan_call(64, NULL, 0, 1, 1024, 8, NULL),
			 -EINVAL);
	ck_assert_int_eq(rpcrdma_plan_call(64, NULL, 0, 1, 1024, 7, &cp),
			 -EINVAL);
}
END_TEST

/* ---- replies ---- */

static void check_reply(enum rpcrdma_reply_kind kind, size_t hdr,
			uint32_t remainder)
{
	ck_assert_int_eq(rp.kind, kind);
	ck_assert_uint_eq(rp.hdr_len, hdr);
	ck_assert_uint_eq(rp.remainder_len, remainder);
}

/* No write chunk: 1024 - 28 = 996 inline; beyond, the reply chunk
 * (header 48) if offered and large enough, else -E2BIG. */
START_TEST(reply_no_writes)
{
	struct rpcrdma_chunk_cap rc = { 1, 4096 };
	uint32_t i;

	ck_assert_int_eq(rpcrdma_plan_reply(996, NULL, 0, 0, 1024, NULL, 0,
					    NULL, &rp), 0);
	check_reply(RPCRDMA_REPLY_INLINE, 28, 996);
	ck_assert_uint_eq(rp.nextents, 1);
	check_extent(&rp.extents[0], 0, 996);
	for (i = 0; i < RPCRDMA_MAX_WRITE_CHUNKS; i++)
		ck_assert_int_eq(rp.item_chunk[i], -1);

	/* An offered reply chunk the reply does not use goes back with
	 * length 0 (issue 26): counted in the header, 28 + 20 = 48, so
	 * 976 bytes fit inline and 977 take the chunk. */
	ck_assert_int_eq(rpcrdma_plan_reply(976, NULL, 0, 0, 1024, NULL, 0,
					    &rc, &rp), 0);
	check_reply(RPCRDMA_REPLY_INLINE, 48, 976);
	ck_assert_int_eq(rpcrdma_plan_reply(977, NULL, 0, 0, 1024, NULL, 0,
					    &rc, &rp), 0);
	check_reply(RPCRDMA_REPLY_LONG, 48, 977);

	ck_assert_int_eq(rpcrdma_plan_reply(997, NULL, 0, 0, 1024, NULL, 0,
					    NULL, &rp), -E2BIG);
	rc.nsegs = 0;	/* nsegs 0 means no reply chunk */
	ck_assert_int_eq(rpcrdma_plan_reply(997, NULL, 0, 0, 1024, NULL, 0,
					    &rc, &rp), -E2BIG);
	rc.nsegs = 1;
	ck_assert_int_eq(rpcrdma_plan_reply(997, NULL, 0, 0, 1024, NULL, 0,
					    &rc, &rp), 0);
	check_reply(RPCRDMA_REPLY_LONG, 48, 997);
	ck_assert_uint_eq(rp.nextents, 1);
	check_extent(&rp.extents[0], 0, 997);

	/* Reply chunk of exactly 997 bytes is enough, 996 is not. */
	rc.bytes = 997;
	ck_assert_int_eq(rpcrdma_plan_reply(997, NULL, 0, 0, 1024, NULL, 0,
					    &rc, &rp), 0);
	check_reply(RPCRDMA_REPLY_LONG, 48, 997);
	rc.bytes = 996;
	ck_assert_int_eq(rpcrdma_plan_reply(997, NULL, 0, 0, 1024, NULL, 0,
					    &rc, &rp), -E2BIG);

	/* Long Reply header alone too big: reply chunk of 3 segments is
	 * 16 + 4 + 4 + 8 + 48 = 80 > 60. */
	rc = (struct rpcrdma_chunk_cap){ 3, 1 << 20 };
	ck_assert_int_eq(rpcrdma_plan_reply(100, NULL, 0, 0, 60, NULL, 0,
					    &rc, &rp), -E2BIG);
	/* send_max 100: inline needs 28 + 100, Long Reply 80 fits. */
	ck_assert_int_eq(rpcrdma_plan_reply(100, NULL, 0, 0, 100, NULL, 0,
					    &rc, &rp), 0);
	check_reply(RPCRDMA_REPLY_LONG, 80, 100);
}
END_TEST

/*
 * One write chunk of 1 segment (header 52), threshold 1024, send_max
 * 1024, item at 200:
 *   length 4097 (pad 3): remainder = rpc_len - 4100.
 *   rpc_len 5072: remainder 972, 52 + 972 = 1024: WRITE, extents
 *     [0,200) [4300,5072).
 *   rpc_len 5076: remainder 976: Long Reply (header 72) or -E2BIG.
 */
START_TEST(reply_one_write)
{
	struct rpcrdma_chunk_cap w = { 1, 8192 }, rc = { 1, 1000 };
	struct rpcrdma_item it = { 200, 4097 };

	ck_assert_int_eq(rpcrdma_plan_reply(5072, &it, 1, 1024, 1024, &w, 1,
					    NULL, &rp), 0);
	check_reply(RPCRDMA_REPLY_WRITE, 52, 972);
	ck_assert_int_eq(rp.item_chunk[0], 0);
	ck_assert_int_eq(rp.item_chunk[1], -1);
	ck_assert_uint_eq(rp.nextents, 2);
	check_extent(&rp.extents[0], 0, 200);
	check_extent(&rp.extents[1], 4300, 772);

	ck_assert_int_eq(rpcrdma_plan_reply(5076, &it, 1, 1024, 1024, &w, 1,
					    NULL, &rp), -E2BIG);
	ck_assert_int_eq(rpcrdma_plan_reply(5076, &it, 1, 1024, 1024, &w, 1,
					    &rc, &rp), 0);
	check_reply(RPCRDMA_REPLY_LONG, 72, 976);
	ck_assert_int_eq(rp.item_chunk[0], 0);

	/* Chunk of 4096 bytes: the 4097-byte item stays inline, the whole
	 * 5000-byte reply goes into a large enough reply chunk. */
	w.bytes = 4096;
	rc.bytes = 5000;
	ck_assert_int_eq(rpcrdma_plan_reply(5000, &it, 1, 1024, 1024, &w, 1,
					    &rc, &rp), 0);
	check_reply(RPCRDMA_REPLY_LONG, 72, 5000);
	ck_assert_int_eq(rp.item_chunk[0], -1);
	ck_assert_uint_eq(rp.nextents, 1);
	check_extent(&rp.extents[0], 0, 5000);
	rc.bytes = 4999;
	ck_assert_int_eq(rpcrdma_plan_reply(5000, &it, 1, 1024, 1024, &w, 1,
					    &rc, &rp), -E2BIG);

	/* 4096 bytes fit a 4096-byte chunk exactly (no pad in the chunk):
	 * remainder 5000 - 4096 = 904, 52 + 904 <= 1024. */
	it.length = 4096;
	ck_assert_int_eq(rpcrdma_plan_reply(5000, &it, 1, 1024, 1024, &w, 1,
					    NULL, &rp), 0);
	check_reply(RPCRDMA_REPLY_WRITE, 52, 904);

	/* Threshold around the item length 4096: 4095 and 4096 move, 4097
	 * does not (then 5000 bytes fit nowhere without a reply chunk). */
	ck_assert_int_eq(rpcrdma_plan_reply(5000, &it, 1, 4095, 1024, &w, 1,
					    NULL, &rp), 0);
	ck_assert_int_eq(rp.item_chunk[0], 0);
	ck_assert_int_eq(rpcrdma_plan_reply(5000, &it, 1, 4096, 1024, &w, 1,
					    NULL, &rp), 0);
	ck_assert_int_eq(rp.item_chunk[0], 0);
	ck_assert_int_eq(rpcrdma_plan_reply(5000, &it, 1, 4097, 1024, &w, 1,
					    NULL, &rp), -E2BIG);
	ck_assert_int_eq(rpcrdma_plan_reply(5000, &it, 1, 0, 1024, &w, 1,
					    NULL, &rp), -E2BIG);

	/* Offered chunk unused but echoed: a small reply still pays 52. */
	ck_assert_int_eq(rpcrdma_plan_reply(972, NULL, 0, 1024, 1024, &w, 1,
					    NULL, &rp), 0);
	check_reply(RPCRDMA_REPLY_INLINE, 52, 972);
	ck_assert_int_eq(rpcrdma_plan_reply(976, NULL, 0, 1024, 1024, &w, 1,
					    NULL, &rp), -E2BIG);
}
END_TEST

/*
 * Two write chunks: 1 segment of 100 bytes, 2 segments of 10000 bytes
 * (header 92), threshold 1000, send_max 4096, rpc_len 6000:
 *   A {8, 2000}    [8, 2008):   rank 0, 2000 > 100: stays inline
 *   B {2012, 3001} [2012, 5016): rank 1, fits chunk 1
 * remainder 6000 - 3004 = 2996, extents [0,2012) [5016,6000).
 */
START_TEST(reply_two_writes)
{
	const struct rpcrdma_chunk_cap w[2] = { { 1, 100 }, { 2, 10000 } };
	struct rpcrdma_item it[3] = { { 8, 2000 }, { 2012, 3001 } };

	ck_assert_int_eq(rpcrdma_plan_reply(6000, it, 2, 1000, 4096, w, 2,
					    NULL, &rp), 0);
	check_reply(RPCRDMA_REPLY_WRITE, 92, 2996);
	ck_assert_int_eq(rp.item_chunk[0], -1);
	ck_assert_int_eq(rp.item_chunk[1], 1);
	ck_assert_uint_eq(rp.nextents, 2);
	check_extent(&rp.extents[0], 0, 2012);
	check_extent(&rp.extents[1], 5016, 984);

	/*
	 * Chunks of 2000 and 3000 bytes. A below-threshold item takes no
	 * chunk: {4, 10} [4,16) stays, {20, 2000} is the first eligible
	 * item -> chunk 0 (exact fit), {2024, 3000} -> chunk 1, and a third
	 * eligible item {5028, 1000} [5028,6028) has no chunk left.
	 * rpc_len 7000: remainder 7000 - 2000 - 3000 = 2000, extents
	 * [0,20) [2020,2024) [5024,7000).
	 */
	{
		const struct rpcrdma_chunk_cap w2[2] = { { 1, 2000 },
							 { 2, 3000 } };
		const struct rpcrdma_item it2[4] = {
			{ 4, 10 }, { 20, 2000 }, { 2024, 3000 }, { 5028, 1000 }
		};

		ck_assert_int_eq(rpcrdma_plan_reply(7000, it2, 4, 1000, 4096,
						    w2, 2, NULL, &rp), 0);
		check_reply(RPCRDMA_REPLY_WRITE, 92, 2000);
		ck_assert_int_eq(rp.item_chunk[0], -1);
		ck_assert_int_eq(rp.item_chunk[1], 0);
		ck_assert_int_eq(rp.item_chunk[2], 1);
		ck_assert_int_eq(rp.item_chunk[3], -1);
		ck_assert_uint_eq(rp.nextents, 3);
		check_extent(&rp.extents[0], 0, 20);
		check_extent(&rp.extents[1], 2020, 4);
		check_extent(&rp.extents[2], 5024, 1976);
	}

	/* Remainder exactly at the threshold: 92 + 2996 = 3088. */
	ck_assert_int_eq(rpcrdma_plan_reply(6000, it, 2, 1000, 3088, w, 2,
					    NULL, &rp), 0);
	check_reply(RPCRDMA_REPLY_WRITE, 92, 2996);
	ck_assert_int_eq(rpcrdma_plan_reply(6000, it, 2, 1000, 3087, w, 2,
					    NULL, &rp), -E2BIG);
	/* With a reply chunk of 2 segments: header 16+4+64+4+40 = 128. */
	{
		const struct rpcrdma_chunk_cap rc = { 2, 2996 };

		ck_assert_int_eq(rpcrdma_plan_reply(6000, it, 2, 1000, 3087,
						    w, 2, &rc, &rp), 0);
		check_reply(RPCRDMA_REPLY_LONG, 128, 2996);
		ck_assert_int_eq(rp.item_chunk[1], 1);
	}
}
END_TEST

START_TEST(reply_invalid)
{
	struct rpcrdma_chunk_cap w[RPCRDMA_MAX_WRITE_CHUNKS + 1];
	struct rpcrdma_item it[RPCRDMA_MAX_WRITE_CHUNKS + 1];
	struct rpcrdma_chunk_cap rc = { 1, 100 };
	uint32_t i;

	for (i = 0; i <= RPCRDMA_MAX_WRITE_CHUNKS; i++) {
		w[i] = (struct rpcrdma_chunk_cap){ 1, 100 };
		it[i] = (struct rpcrdma_item){ 8 + 8 * i, 4 };
	}
	ck_assert_int_eq(rpcrdma_plan_reply(100, NULL, 0, 0, 1024, w,
					    RPCRDMA_MAX_WRITE_CHUNKS, NULL,
					    &rp), 0);
	ck_assert_int_eq(rpcrdma_plan_reply(100, NULL, 0, 0, 1024, w,
					    RPCRDMA_MAX_WRITE_CHUNKS + 1, NULL,
					    &rp), -EINVAL);
	ck_assert_int_eq(rpcrdma_plan_reply(100, NULL, 0, 0, 1024, NULL, 1,
					    NULL, &rp), -EINVAL);
	/* A write chunk with no segment holds no item: accepted, unused. */
	w[0].nsegs = 0;
	w[0].bytes = 0;
	{
		const struct rpcrdma_item one = { 8, 2000 };

		ck_assert_int_eq(rpcrdma_plan_reply(2100, &one, 1, 1024, 4096, w,
						    1, NULL, &rp), 0);
		ck_assert_int_eq(rp.item_chunk[0], -1);
		ck_assert_int_eq(rp.kind, RPCRDMA_REPLY_INLINE);
	}
	w[0].bytes = 100;
	/* More than RPCRDMA_MAX_SEGS segments in all: 64 + 1. */
	w[0].nsegs = RPCRDMA_MAX_SEGS;
	ck_assert_int_eq(rpcrdma_plan_reply(100, NULL, 0, 0, 4096, w, 1,
					    NULL, &rp), 0);
	ck_assert_int_eq(rpcrdma_plan_reply(100, NULL, 0, 0, 4096, w, 1,
					    &rc, &rp), -EINVAL);
	w[0].nsegs = 1;
	/* Items: at most RPCRDMA_MAX_WRITE_CHUNKS, valid layout. */
	ck_assert_int_eq(rpcrdma_plan_reply(100, it, RPCRDMA_MAX_WRITE_CHUNKS,
					    4, 4096, w, 1, NULL, &rp), 0);
	ck_assert_int_eq(rp.item_chunk[0], 0);
	ck_assert_int_eq(rp.item_chunk[1], -1);
	ck_assert_int_eq(rpcrdma_plan_reply(100, it,
					    RPCRDMA_MAX_WRITE_CHUNKS + 1, 4,
					    4096, w, 1, NULL, &rp), -EINVAL);
	it[1].offset = 4;
	ck_assert_int_eq(rpcrdma_plan_reply(100, it, 2, 4, 4096, w, 1, NULL,
					    &rp), -EINVAL);
	it[1].offset = 16;
	it[1].length = 85;	/* 16 + 88 > 100 */
	ck_assert_int_eq(rpcrdma_plan_reply(100, it, 2, 4, 4096, w, 1, NULL,
					    &rp), -EINVAL);
	ck_assert_int_eq(rpcrdma_plan_reply(100, NULL, 1, 4, 4096, w, 1, NULL,
					    &rp), -EINVAL);
	ck_assert_int_eq(rpcrdma_plan_reply(100, NULL, 0, 4, 4096, w, 1, NULL,
					    NULL), -EINVAL);
}
END_TEST

static Suite *plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("call");

	tcase_add_test(tc, call_inline_threshold);
	tcase_add_test(tc, call_reply_lists_counted);
	tcase_add_test(tc, call_long_header_too_big);
	tcase_add_test(tc, call_ddp_threshold);
	tcase_add_test(tc, call_odd_lengths);
	tcase_add_test(tc, call_adjacent_and_last);
	tcase_add_test(tc, call_ddp_then_long);
	tcase_add_test(tc, call_max_items);
	tcase_add_test(tc, call_invalid);
	suite_add_tcase(s, tc);

	tc = tcase_create("reply");
	tcase_add_test(tc, reply_no_writes);
	tcase_add_test(tc, reply_one_write);
	tcase_add_test(tc, reply_two_writes);
	tcase_add_test(tc, reply_invalid);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(plan_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
