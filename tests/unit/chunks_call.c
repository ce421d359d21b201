/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_chunks: the requester's rules: a reply checked against its
 * call's offer (lib/chunks.c) and the size of the reply chunk offered
 * (lib/plan.c).
 */
#include "chunks_util.h"

/* ---- rpcrdma_call_check_reply ---- */

/* What the call offered: two write chunks of one segment, a reply
 * chunk of one segment. */
static const struct rpcrdma_segment offer_w[2] = {
	{ .handle = 0xa1, .length = 1000, .offset = 0x10000 },
	{ .handle = 0xa2, .length = 500, .offset = 0x20000 },
};
static const struct rpcrdma_segment offer_r = {
	.handle = 0xc1, .length = 4096, .offset = 0x50000,
};

/* The check on a reply given as words (decoded first); wlen starts at
 * 0xeeeeeeee so what it writes shows. */
static int check_words(const uint32_t *w, size_t nw, uint32_t nwrites,
		       const struct rpcrdma_segment *reply_seg, uint32_t *wlen)
{
	struct rpcrdma_msg m;

	decode_ok(w, nw, &m);
	for (uint32_t i = 0; i < RPCRDMA_MAX_WRITE_CHUNKS; i++)
		wlen[i] = 0xeeeeeeeeu;
	return rpcrdma_call_check_reply(&m, offer_w, nwrites, reply_seg,
					wlen);
}

/* RDMA_MSG with both write chunks: what was written, counted. */
START_TEST(test_check_msg_writes)
{
	const uint32_t some[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				  1, 1, 0xa1, 600, 0, 0x10000,
				  1, 1, 0xa2, 0, 0, 0x20000,
				  0, 0 };
	const uint32_t full[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				  1, 1, 0xa1, 1000, 0, 0x10000,
				  1, 1, 0xa2, 500, 0, 0x20000,
				  0, 0 };
	const uint32_t first[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				   1, 1, 0xa1, 4, 0, 0x10000,
				   0, 0 };
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS];

	ck_assert_int_eq(check_words(some, ARRAY_SIZE(some), 2, &offer_r,
				     wlen), 1);
	ck_assert_uint_eq(wlen[0], 600);
	ck_assert_uint_eq(wlen[1], 0);
	ck_assert_uint_eq(wlen[2], 0xeeeeeeeeu);
	ck_assert_int_eq(check_words(full, ARRAY_SIZE(full), 2, NULL, wlen),
			 2);
	ck_assert_uint_eq(wlen[0], 1000);
	ck_assert_uint_eq(wlen[1], 500);
	/* Fewer chunks back than offered: the rest left alone. */
	ck_assert_int_eq(check_words(first, ARRAY_SIZE(first), 2, NULL, wlen),
			 1);
	ck_assert_uint_eq(wlen[0], 4);
	ck_assert_uint_eq(wlen[1], 0xeeeeeeeeu);
}
END_TEST

/* No chunk list at all: 0, whatever was offered; wlen not touched. */
START_TEST(test_check_msg_plain)
{
	const uint32_t w[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0 };
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS];

	ck_assert_int_eq(check_words(w, ARRAY_SIZE(w), 0, NULL, wlen), 0);
	ck_assert_int_eq(check_words(w, ARRAY_SIZE(w), 2, &offer_r, wlen), 0);
	ck_assert_uint_eq(wlen[0], 0xeeeeeeeeu);
}
END_TEST

/* A Long Reply: RDMA_NOMSG, the reply chunk offered, with and without
 * the write list. Its length is the caller's to check, even over the
 * offer (ct_dispatch compares the sum with the bytes offered). */
START_TEST(test_check_nomsg_reply)
{
	const uint32_t plain[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0,
				   1, 1, 0xc1, 3000, 0, 0x50000 };
	const uint32_t empty[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0,
				   1, 1, 0xc1, 0, 0, 0x50000 };
	const uint32_t over[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0,
				  1, 1, 0xc1, 4097, 0, 0x50000 };
	const uint32_t writes[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0,
				    1, 1, 0xa1, 8, 0, 0x10000,
				    1, 1, 0xa2, 12, 0, 0x20000,
				    0,
				    1, 1, 0xc1, 100, 0, 0x50000 };
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS];

	ck_assert_int_eq(check_words(plain, ARRAY_SIZE(plain), 0, &offer_r,
				     wlen), 0);
	ck_assert_int_eq(check_words(empty, ARRAY_SIZE(empty), 0, &offer_r,
				     wlen), 0);
	ck_assert_int_eq(check_words(over, ARRAY_SIZE(over), 0, &offer_r,
				     wlen), 0);
	ck_assert_int_eq(check_words(writes, ARRAY_SIZE(writes), 2, &offer_r,
				     wlen), 2);
	ck_assert_uint_eq(wlen[0], 8);
	ck_assert_uint_eq(wlen[1], 12);
}
END_TEST

/* A read list in a reply (RFC 8166 section 3.4.6 gives a reply none). */
START_TEST(test_check_bad_reads)
{
	const uint32_t rmsg[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				  1, 8, 0xa1, 64, 0, 0x10000, 0,
				  0, 0 };
	const uint32_t nomsg[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
				   1, 0, 0xa1, 64, 0, 0x10000, 0,
				   0, 0 };
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS];

	ck_assert_int_eq(check_words(rmsg, ARRAY_SIZE(rmsg), 2, &offer_r,
				     wlen), -EBADMSG);
	/* RDMA_NOMSG without a reply chunk gets past the decoder only
	 * with a position-zero read chunk: refused here for its read
	 * list. */
	ck_assert_int_eq(check_words(nomsg, ARRAY_SIZE(nomsg), 2, &offer_r,
				     wlen), -EBADMSG);
}
END_TEST

/* A write list longer than offered (none offered; one more). */
START_TEST(test_check_bad_write_count)
{
	const uint32_t one[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				 1, 1, 0xa1, 4, 0, 0x10000,
				 0, 0 };
	const uint32_t three[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				   1, 1, 0xa1, 4, 0, 0x10000,
				   1, 1, 0xa2, 4, 0, 0x20000,
				   1, 1, 0xa2, 4, 0, 0x20000,
				   0, 0 };
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS];

	ck_assert_int_eq(check_words(one, ARRAY_SIZE(one), 0, NULL, wlen),
			 -EBADMSG);
	ck_assert_int_eq(check_words(three, ARRAY_SIZE(three), 2, NULL, wlen),
			 -EBADMSG);
	ck_assert_uint_eq(wlen[0], 0xeeeeeeeeu);
}
END_TEST

/* A write chunk wider than offered (two segments), or of zero segments
 * (the decoder takes one), in either place. */
START_TEST(test_check_bad_write_width)
{
	const uint32_t wide[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				  1, 2, 0xa1, 4, 0, 0x10000,
				        0xa1, 4, 0, 0x10004,
				  0, 0 };
	const uint32_t zero0[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				   1, 0,
				   0, 0 };
	const uint32_t zero1[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				   1, 1, 0xa1, 4, 0, 0x10000,
				   1, 0,
				   0, 0 };
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS];

	ck_assert_int_eq(check_words(wide, ARRAY_SIZE(wide), 2, NULL, wlen),
			 -EBADMSG);
	ck_assert_int_eq(check_words(zero0, ARRAY_SIZE(zero0), 2, NULL, wlen),
			 -EBADMSG);
	/* Refused after the first chunk was taken: wlen[0] is set, as the
	 * glue always left it (the slot fails, its lengths unused). */
	ck_assert_int_eq(check_words(zero1, ARRAY_SIZE(zero1), 2, NULL, wlen),
			 -EBADMSG);
	ck_assert_uint_eq(wlen[0], 4);
}
END_TEST

/* A write segment elsewhere than offered (handle, offset, another
 * chunk's place) or longer than offered. */
START_TEST(test_check_bad_write_seg)
{
	const uint32_t good[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				  1, 1, 0xa1, 1000, 0, 0x10000,
				  1, 1, 0xa2, 500, 0, 0x20000,
				  0, 0 };
	/* word index of chunk 1's handle, length, offset (low word) */
	const struct {
		size_t word;
		uint32_t value;
	} bad[] = {
		{ 13, 0xa3 },		/* handle */
		{ 13, 0xa1 },		/* chunk 0's handle */
		{ 16, 0x20004 },	/* offset, low word */
		{ 15, 1 },		/* offset, high word */
		{ 16, 0x10000 },	/* chunk 0's offset */
		{ 14, 501 },		/* one over the offer */
		{ 14, 70000 },		/* far over */
	};
	uint32_t w[ARRAY_SIZE(good)], wlen[RPCRDMA_MAX_WRITE_CHUNKS];
	const uint32_t swapped[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				     1, 1, 0xa2, 4, 0, 0x20000,
				     1, 1, 0xa1, 4, 0, 0x10000,
				     0, 0 };

	ck_assert_int_eq(check_words(good, ARRAY_SIZE(good), 2, NULL, wlen),
			 2);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(w, good, sizeof(w));
		w[bad[i].word] = bad[i].value;
		ck_assert_msg(check_words(w, ARRAY_SIZE(w), 2, NULL, wlen) ==
				      -EBADMSG,
			      "case %zu", i);
		/* The same on chunk 0. */
		memcpy(w, good, sizeof(w));
		w[bad[i].word - 6] = bad[i].value == 0xa1 ? 0xa2
			: bad[i].value == 0x10000 ? 0x20000
			: bad[i].value == 501 ? 1001 : bad[i].value;
		ck_assert_msg(check_words(w, ARRAY_SIZE(w), 2, NULL, wlen) ==
				      -EBADMSG,
			      "case %zu on chunk 0", i);
	}
	ck_assert_int_eq(check_words(swapped, ARRAY_SIZE(swapped), 2, NULL,
				     wlen), -EBADMSG);
}
END_TEST

/* A reply chunk beside RDMA_MSG: only the offered one, returned unused
 * with length 0 (what our responder and nfsd-compatible servers send,
 * issue 26), beside write chunks or not; with a length it is refused. */
START_TEST(test_check_bad_reply_msg)
{
	const uint32_t zero[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0,
				  1, 1, 0xc1, 0, 0, 0x50000 };
	const uint32_t used[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0,
				  1, 1, 0xc1, 100, 0, 0x50000 };
	const uint32_t writes[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				    1, 1, 0xa1, 8, 0, 0x10000,
				    0,
				    1, 1, 0xc1, 0, 0, 0x50000 };
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS];

	const uint32_t other[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0,
				   1, 1, 0xc2, 0, 0, 0x50000 };

	ck_assert_int_eq(check_words(zero, ARRAY_SIZE(zero), 2, &offer_r,
				     wlen), 0);
	ck_assert_int_eq(check_words(used, ARRAY_SIZE(used), 2, &offer_r,
				     wlen), -EBADMSG);
	ck_assert_int_eq(check_words(other, ARRAY_SIZE(other), 2, &offer_r,
				     wlen), -EBADMSG);
	ck_assert_int_eq(check_words(zero, ARRAY_SIZE(zero), 2, NULL, wlen),
			 -EBADMSG);
	ck_assert_int_eq(check_words(writes, ARRAY_SIZE(writes), 2, &offer_r,
				     wlen), 1);
	ck_assert_uint_eq(wlen[0], 8);
}
END_TEST

/* A reply chunk with RDMA_NOMSG that is not the one offered: none was
 * offered, two segments, another handle or offset; one of zero segments
 * and RDMA_NOMSG with no reply chunk do not get past the decoder. */
START_TEST(test_check_bad_reply_nomsg)
{
	const uint32_t good[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0,
				  1, 1, 0xc1, 100, 0, 0x50000 };
	const uint32_t two[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0,
				 1, 2, 0xc1, 100, 0, 0x50000,
				       0xc1, 100, 0, 0x50064 };
	const uint32_t empty[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0,
				   1, 0 };
	const uint32_t none[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0, 0 };
	uint32_t w[ARRAY_SIZE(good)], wlen[RPCRDMA_MAX_WRITE_CHUNKS];
	struct rpcrdma_msg m;
	uint8_t buf[64];
	size_t hlen;

	ck_assert_int_eq(check_words(good, ARRAY_SIZE(good), 0, &offer_r,
				     wlen), 0);
	ck_assert_int_eq(check_words(good, ARRAY_SIZE(good), 2, NULL, wlen),
			 -EBADMSG);
	ck_assert_int_eq(check_words(two, ARRAY_SIZE(two), 0, &offer_r,
				     wlen), -EBADMSG);
	memcpy(w, good, sizeof(w));
	w[8] = 0xc2;
	ck_assert_int_eq(check_words(w, ARRAY_SIZE(w), 0, &offer_r, wlen),
			 -EBADMSG);
	memcpy(w, good, sizeof(w));
	w[11] = 0x50004;
	ck_assert_int_eq(check_words(w, ARRAY_SIZE(w), 0, &offer_r, wlen),
			 -EBADMSG);
	memcpy(w, good, sizeof(w));
	w[10] = 1;
	ck_assert_int_eq(check_words(w, ARRAY_SIZE(w), 0, &offer_r, wlen),
			 -EBADMSG);
	ck_assert_int_eq(rpcrdma_hdr_decode(buf, words(buf, empty,
						       ARRAY_SIZE(empty)),
					    NULL, &m, &hlen),
			 RPCRDMA_HDR_EEMPTY);
	ck_assert_int_eq(rpcrdma_hdr_decode(buf, words(buf, none,
						       ARRAY_SIZE(none)),
					    NULL, &m, &hlen),
			 RPCRDMA_HDR_ENOMSG);
}
END_TEST

/* ---- rpcrdma_call_reply_chunk ---- */

/* A hinted reply that fits inline: no reply chunk (at and under the
 * room); one byte over: the hint rounded to XDR units. */
START_TEST(test_reply_chunk_size_hint)
{
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(1000, 1000, 1 << 20,
						   1 << 20), 0);
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(1, 1000, 1 << 20,
						   1 << 20), 0);
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(1001, 1000, 1 << 20,
						   1 << 20), 1004);
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(1004, 1000, 1 << 20,
						   1 << 20), 1004);
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(1, 0, 1 << 20, 1 << 20),
			  4);
}
END_TEST

/* No hint: max_msg (rounded down to XDR units); a hint over max_msg, up
 * to the largest (no wrap in the round-up): max_msg. */
START_TEST(test_reply_chunk_size_max)
{
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(0, 1000, 1 << 20, 65536),
			  65536);
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(0, 1000, 1 << 20, 65537),
			  65536);
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(70000, 1000, 1 << 20,
						   65536), 65536);
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(UINT32_MAX, 1000,
						   UINT64_MAX, 65536), 65536);
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(UINT32_MAX, 1000,
						   UINT64_MAX, UINT32_MAX),
			  UINT32_MAX & ~3u);
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(0, 1000, 1 << 20, 0), 0);
}
END_TEST

/* The room the chunk bound leaves caps it, rounded down to XDR units
 * (the caller then refuses a hinted reply that no longer fits). */
START_TEST(test_reply_chunk_size_room)
{
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(0, 1000, 1003, 65536),
			  1000);
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(5000, 1000, 4099, 65536),
			  4096);
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(5000, 1000, 3, 65536), 0);
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(5000, 1000, 0, 65536), 0);
	/* A hint that fits inline needs no room. */
	ck_assert_uint_eq(rpcrdma_call_reply_chunk(500, 1000, 0, 65536), 0);
}
END_TEST

/* The requester's test cases. */
void chunks_add_call(Suite *s)
{
	TCase *tc;

	tc = tcase_create("check_reply");
	tcase_add_test(tc, test_check_msg_writes);
	tcase_add_test(tc, test_check_msg_plain);
	tcase_add_test(tc, test_check_nomsg_reply);
	tcase_add_test(tc, test_check_bad_reads);
	tcase_add_test(tc, test_check_bad_write_count);
	tcase_add_test(tc, test_check_bad_write_width);
	tcase_add_test(tc, test_check_bad_write_seg);
	tcase_add_test(tc, test_check_bad_reply_msg);
	tcase_add_test(tc, test_check_bad_reply_nomsg);
	suite_add_tcase(s, tc);
	tc = tcase_create("reply_chunk_size");
	tcase_add_test(tc, test_reply_chunk_size_hint);
	tcase_add_test(tc, test_reply_chunk_size_max);
	tcase_add_test(tc, test_reply_chunk_size_room);
	suite_add_tcase(s, tc);
}
