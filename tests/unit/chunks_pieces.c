/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_chunks: read chunks by position (lib/splice.c,
 * rpcrdma_call_read_pieces), hostile positions included.
 */
#include "chunks_util.h"

/* ==== Rule 4: rpcrdma_call_read_pieces ==== */

static uint8_t rd[4096];
static const uint8_t msg[64];

START_TEST(test_pieces_none)
{
	const uint32_t c[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0 };
	struct rpcrdma_piece p[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_msg call;
	const uint8_t *inl = NULL;
	size_t inl_len = 1;
	uint32_t np = 99;

	decode_ok(c, ARRAY_SIZE(c), &call);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, sizeof(msg), rd,
						  p, &np, &inl, &inl_len),
			 0);
	ck_assert_uint_eq(np, 0);
	ck_assert_ptr_eq(inl, msg);
	ck_assert_uint_eq(inl_len, sizeof(msg));
}
END_TEST

/* RDMA_MSG with two chunks, the first of two segments: two pieces at
 * their positions, their data one after the other in rd in the order of
 * the read list; the inline part stays the message's. */
START_TEST(test_pieces_msg)
{
	const uint32_t c[] = { XID, 1, CREDITS, RPCRDMA_MSG,
			       1, 8, 0xa, 100, 0, 0x100,
			       1, 8, 0xa, 60, 0, 0x200,
			       1, 16, 0xb, 7, 0, 0x300,
			       0, 0, 0 };
	struct rpcrdma_piece p[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_msg call;
	const uint8_t *inl;
	size_t inl_len;
	uint32_t np;

	decode_ok(c, ARRAY_SIZE(c), &call);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 24, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_uint_eq(np, 2);
	ck_assert_ptr_eq(inl, msg);
	ck_assert_uint_eq(inl_len, 24);
	ck_assert_uint_eq(p[0].position, 8);
	ck_assert_ptr_eq(p[0].data, rd);
	ck_assert_uint_eq(p[0].length, 160);
	ck_assert_uint_eq(p[1].position, 16);
	ck_assert_ptr_eq(p[1].data, rd + 160);
	ck_assert_uint_eq(p[1].length, 7);
}
END_TEST

/* RDMA_NOMSG: the position-zero chunk is the message; a further chunk is
 * spliced into it. */
START_TEST(test_pieces_nomsg)
{
	const uint32_t pos0[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
				  1, 0, 0xa, 1024, 0, 0x100,
				  1, 0, 0xa, 200, 0, 0x200,
				  0, 0, 0 };
	const uint32_t pos0_more[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
				       1, 0, 0xa, 1024, 0, 0x100,
				       1, 512, 0xa, 300, 0, 0x200,
				       0, 0, 0 };
	struct rpcrdma_piece p[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_msg call;
	const uint8_t *inl;
	size_t inl_len;
	uint32_t np;

	decode_ok(pos0, ARRAY_SIZE(pos0), &call);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 0, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_uint_eq(np, 0);
	ck_assert_ptr_eq(inl, rd);
	ck_assert_uint_eq(inl_len, 1224);

	decode_ok(pos0_more, ARRAY_SIZE(pos0_more), &call);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 0, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_uint_eq(np, 1);
	ck_assert_ptr_eq(inl, rd);
	ck_assert_uint_eq(inl_len, 1024);
	ck_assert_uint_eq(p[0].position, 512);
	ck_assert_ptr_eq(p[0].data, rd + 1024);
	ck_assert_uint_eq(p[0].length, 300);
}
END_TEST

/* The decoder sorts a read list sent out of order (stably): the pieces
 * follow the sorted list, which is also the order rd is read in. */
START_TEST(test_pieces_unsorted)
{
	const uint32_t c[] = { XID, 1, CREDITS, RPCRDMA_MSG,
			       1, 16, 0xb, 8, 0, 0x300,
			       1, 8, 0xa, 4, 0, 0x100,
			       1, 16, 0xc, 12, 0, 0x400,
			       0, 0, 0 };
	struct rpcrdma_piece p[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_msg call;
	const uint8_t *inl;
	size_t inl_len;
	uint32_t np;

	decode_ok(c, ARRAY_SIZE(c), &call);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 32, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_uint_eq(np, 2);
	ck_assert_uint_eq(p[0].position, 8);
	ck_assert_uint_eq(p[0].length, 4);
	ck_assert_ptr_eq(p[0].data, rd);
	ck_assert_uint_eq(p[1].position, 16);
	ck_assert_uint_eq(p[1].length, 20);
	ck_assert_ptr_eq(p[1].data, rd + 4);
}
END_TEST

/* Zero-length segments make zero-length pieces: the splice places them
 * (several pieces may share a position only if all but the last are
 * empty, lib/splice.c). */
START_TEST(test_pieces_zero_length)
{
	const uint32_t c[] = { XID, 1, CREDITS, RPCRDMA_MSG,
			       1, 8, 0xa, 0, 0, 0x100,
			       1, 12, 0xa, 0, 0, 0x200,
			       0, 0, 0 };
	struct rpcrdma_piece p[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_msg call;
	const uint8_t *inl;
	size_t inl_len;
	uint32_t np;

	decode_ok(c, ARRAY_SIZE(c), &call);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 16, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_uint_eq(np, 2);
	ck_assert_uint_eq(p[0].length, 0);
	ck_assert_uint_eq(p[1].length, 0);
	ck_assert_ptr_eq(p[1].data, rd);
	ck_assert_uint_eq(rpcrdma_splice_len(inl_len, p, np), 16);
}
END_TEST

/* A chunk of 2^32 bytes or more cannot be a piece: -EMSGSIZE. As the
 * position-zero chunk of RDMA_NOMSG it is the inline part, whose size
 * the caller bounds by max_msg. */
START_TEST(test_pieces_too_long)
{
	const struct rpcrdma_segment big = seg(0xa, UINT32_MAX, 0);
	const struct rpcrdma_segment one = seg(0xa, 1, 0);
	struct rpcrdma_piece p[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_msg call;
	const uint8_t *inl;
	size_t inl_len;
	uint32_t np;

	rpcrdma_msg_init(&call, XID, CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_read(&call, 8, &big), 0);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 16, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_uint_eq(p[0].length, UINT32_MAX);
	ck_assert_int_eq(rpcrdma_msg_add_read(&call, 8, &one), 0);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 16, rd, p, &np,
						  &inl, &inl_len),
			 -EMSGSIZE);

	rpcrdma_msg_init(&call, XID, CREDITS, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_msg_add_read(&call, 0, &big), 0);
	ck_assert_int_eq(rpcrdma_msg_add_read(&call, 0, &one), 0);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 16, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_uint_eq(np, 0);
	ck_assert_uint_eq(inl_len, (size_t)UINT32_MAX + 1);
}
END_TEST

/* Position zero in an RDMA_MSG (the decoder refuses it; built here) is
 * an ordinary piece, as is one after the first chunk in RDMA_NOMSG. */
START_TEST(test_pieces_pos0_not_first)
{
	const struct rpcrdma_segment s = seg(0xa, 8, 0);
	struct rpcrdma_piece p[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_msg call;
	const uint8_t *inl;
	size_t inl_len;
	uint32_t np;

	rpcrdma_msg_init(&call, XID, CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_read(&call, 0, &s), 0);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 16, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_uint_eq(np, 1);
	ck_assert_ptr_eq(inl, msg);
	ck_assert_uint_eq(p[0].position, 0);
	ck_assert_uint_eq(p[0].length, 8);

	/* RDMA_NOMSG whose first chunk is not at zero (the glue refuses it
	 * before reading): every chunk is a piece. */
	rpcrdma_msg_init(&call, XID, CREDITS, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_msg_add_read(&call, 4, &s), 0);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 16, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_uint_eq(np, 1);
	ck_assert_ptr_eq(inl, msg);
}
END_TEST

/* Hostile positions get through the layout and are refused by the
 * splice that follows it (rpcrdma_splice_len 0: the glue answers
 * GARBAGE_ARGS for RDMA_MSG, ERR_CHUNK for RDMA_NOMSG). */
START_TEST(test_pieces_bad_positions)
{
	/* The chunk at 8 (16 bytes) overlaps the one at 12. */
	const uint32_t overlap[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				     1, 8, 0xa, 16, 0, 0x100,
				     1, 12, 0xa, 4, 0, 0x200,
				     0, 0, 0 };
	/* A position past the inline part. */
	const uint32_t past[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				  1, 64, 0xa, 4, 0, 0x100,
				  0, 0, 0 };
	/* In RDMA_NOMSG, past the position-zero chunk. */
	const uint32_t past0[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
				   1, 0, 0xa, 16, 0, 0x100,
				   1, 20, 0xa, 4, 0, 0x200,
				   0, 0, 0 };
	/* Two segments at one position: one chunk (grouped). */
	const uint32_t twice[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				   1, 8, 0xa, 4, 0, 0x100,
				   1, 8, 0xb, 4, 0, 0x200,
				   0, 0, 0 };
	struct rpcrdma_piece p[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_msg call;
	const uint8_t *inl;
	size_t inl_len;
	uint32_t np;

	decode_ok(overlap, ARRAY_SIZE(overlap), &call);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 32, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_uint_eq(np, 2);
	ck_assert_uint_eq(rpcrdma_splice_len(inl_len, p, np), 0);

	decode_ok(past, ARRAY_SIZE(past), &call);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 32, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_uint_eq(rpcrdma_splice_len(inl_len, p, np), 0);

	decode_ok(past0, ARRAY_SIZE(past0), &call);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 32, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_ptr_eq(inl, rd);
	ck_assert_uint_eq(inl_len, 16);
	ck_assert_uint_eq(np, 1);
	ck_assert_uint_eq(rpcrdma_splice_len(inl_len, p, np), 0);

	/* One piece of 8 bytes, which fits. */
	decode_ok(twice, ARRAY_SIZE(twice), &call);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, msg, 32, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_uint_eq(np, 1);
	ck_assert_uint_eq(p[0].length, 8);
	ck_assert_uint_eq(rpcrdma_splice_len(inl_len, p, np), 40);
}
END_TEST

/* The whole path: a decoded call, its reads' data, the rebuilt message
 * byte for byte (round-up zeros included). */
START_TEST(test_pieces_splice_bytes)
{
	const uint32_t c[] = { XID, 1, CREDITS, RPCRDMA_MSG,
			       1, 4, 0xa, 3, 0, 0x100,
			       1, 4, 0xa, 2, 0, 0x200,
			       1, 20, 0xb, 2, 0, 0x300,
			       0, 0, 0 };
	const uint8_t in[16] = { 'A', 'A', 'A', 'A', 'B', 'B', 'B', 'B',
				 'C', 'C', 'C', 'C', 'D', 'D', 'D', 'D' };
	const uint8_t reads[7] = { 1, 2, 3, 4, 5, 6, 7 };
	const uint8_t want[] = { 'A', 'A', 'A', 'A', 1, 2, 3, 4, 5, 0, 0, 0,
				 'B', 'B', 'B', 'B', 'C', 'C', 'C', 'C',
				 6, 7, 0, 0, 'D', 'D', 'D', 'D' };
	struct rpcrdma_piece p[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_msg call;
	const uint8_t *inl;
	size_t inl_len, out_len;
	uint8_t out[64];
	uint32_t np;

	decode_ok(c, ARRAY_SIZE(c), &call);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&call, in, sizeof(in),
						  reads, p, &np, &inl,
						  &inl_len),
			 0);
	ck_assert_uint_eq(np, 2);
	ck_assert_uint_eq(rpcrdma_splice_len(inl_len, p, np), sizeof(want));
	ck_assert_int_eq(rpcrdma_splice(inl, inl_len, p, np, out,
					sizeof(out), &out_len),
			 0);
	ck_assert_uint_eq(out_len, sizeof(want));
	ck_assert_mem_eq(out, want, sizeof(want));
}
END_TEST

/* The read pieces' test cases. */
void chunks_add_pieces(Suite *s)
{
	TCase *tc;

	tc = tcase_create("read_pieces");
	tcase_add_test(tc, test_pieces_none);
	tcase_add_test(tc, test_pieces_msg);
	tcase_add_test(tc, test_pieces_nomsg);
	tcase_add_test(tc, test_pieces_unsorted);
	tcase_add_test(tc, test_pieces_zero_length);
	tcase_add_test(tc, test_pieces_too_long);
	tcase_add_test(tc, test_pieces_pos0_not_first);
	tcase_add_test(tc, test_pieces_bad_positions);
	tcase_add_test(tc, test_pieces_splice_bytes);
	suite_add_tcase(s, tc);
}
