/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_chunks: the responder's rules (lib/chunks.c): the echo of
 * the call's write list and reply chunk, and the rkey a reply may
 * invalidate (RFC 8797 section 4.1).
 */
#include "chunks_util.h"

/* ==== Rule 2: rpcrdma_reply_add_writes, rpcrdma_reply_add_reply_chunk ==== */

/* A call offering two write chunks (one segment; three segments) and a
 * reply chunk of three segments. */
static const uint32_t call_w2_r3[] = {
	XID, 1, CREDITS, RPCRDMA_MSG,
	0,					/* no read list */
	1, 1, 0xa1, 1000, 0, 0x10000,		/* write chunk 0 */
	1, 3, 0xb1, 100, 0, 0x20000,		/* write chunk 1 */
	      0xb2, 200, 1, 0x30000,
	      0xb3, 300, 2, 0x40000,
	0,					/* end of write list */
	1, 3, 0xc1, 100, 0, 0x50000,		/* reply chunk */
	      0xc2, 200, 0, 0x60000,
	      0xc3, 300, 0, 0x70000,
};

START_TEST(test_writes_partial)
{
	const uint64_t used[] = { 600, 250 };
	const uint32_t want[] = {
		XID, 1, 7, RPCRDMA_MSG,
		0,
		1, 1, 0xa1, 600, 0, 0x10000,
		1, 3, 0xb1, 100, 0, 0x20000,
		      0xb2, 150, 1, 0x30000,
		      0xb3, 0, 2, 0x40000,
		0,
		0,
	};
	struct rpcrdma_msg call, m;

	decode_ok(call_w2_r3, ARRAY_SIZE(call_w2_r3), &call);
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_reply_add_writes(&call, &m, used), 0);
	encode_eq(&m, want, ARRAY_SIZE(want));
}
END_TEST

/* Nothing written: every chunk goes back, every length zero. */
START_TEST(test_writes_unused)
{
	const uint64_t used[] = { 0, 0 };
	const uint32_t want[] = {
		XID, 1, 7, RPCRDMA_MSG,
		0,
		1, 1, 0xa1, 0, 0, 0x10000,
		1, 3, 0xb1, 0, 0, 0x20000,
		      0xb2, 0, 1, 0x30000,
		      0xb3, 0, 2, 0x40000,
		0,
		0,
	};
	struct rpcrdma_msg call, m;

	decode_ok(call_w2_r3, ARRAY_SIZE(call_w2_r3), &call);
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_reply_add_writes(&call, &m, used), 0);
	encode_eq(&m, want, ARRAY_SIZE(want));
}
END_TEST

/* Exactly full, and more than offered (clamped to what the chunk holds:
 * the planner never asks for more, the rule does not fail on it). */
START_TEST(test_writes_full_and_over)
{
	const uint64_t full[] = { 1000, 600 };
	const uint64_t over[] = { 1001, UINT64_MAX };
	const uint32_t want[] = {
		XID, 1, 7, RPCRDMA_MSG,
		0,
		1, 1, 0xa1, 1000, 0, 0x10000,
		1, 3, 0xb1, 100, 0, 0x20000,
		      0xb2, 200, 1, 0x30000,
		      0xb3, 300, 2, 0x40000,
		0,
		0,
	};
	struct rpcrdma_msg call, m;

	decode_ok(call_w2_r3, ARRAY_SIZE(call_w2_r3), &call);
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_reply_add_writes(&call, &m, full), 0);
	encode_eq(&m, want, ARRAY_SIZE(want));
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_reply_add_writes(&call, &m, over), 0);
	encode_eq(&m, want, ARRAY_SIZE(want));
}
END_TEST

/* No write list: nothing added, used not read. */
START_TEST(test_writes_none)
{
	const uint32_t c[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0 };
	const uint32_t want[] = { XID, 1, 7, RPCRDMA_MSG, 0, 0, 0 };
	struct rpcrdma_msg call, m;

	decode_ok(c, ARRAY_SIZE(c), &call);
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_reply_add_writes(&call, &m, NULL), 0);
	ck_assert_uint_eq(m.nwrites, 0);
	encode_eq(&m, want, ARRAY_SIZE(want));
}
END_TEST

/* A write chunk of zero segments (the decoder takes one, as Linux does):
 * echoed as it came, whatever used says. */
START_TEST(test_writes_empty_chunk)
{
	const uint32_t c[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
			       1, 0,
			       1, 1, 0xa1, 8, 0, 0x10,
			       0, 0 };
	const uint64_t used[] = { 4096, 8 };
	const uint32_t want[] = { XID, 1, 7, RPCRDMA_MSG, 0,
				  1, 0,
				  1, 1, 0xa1, 8, 0, 0x10,
				  0, 0 };
	struct rpcrdma_msg call, m;

	decode_ok(c, ARRAY_SIZE(c), &call);
	ck_assert_uint_eq(call.nwrites, 2);
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_reply_add_writes(&call, &m, used), 0);
	encode_eq(&m, want, ARRAY_SIZE(want));
}
END_TEST

/* The largest write list a peer can get past the decoder (8 chunks, 64
 * segments in all) echoes into a fresh reply without running out of
 * room, and, all used, comes back byte for byte. */
START_TEST(test_writes_max)
{
	uint32_t c[4 + 1 + 8 * (2 + 8 * 4) + 1 + 1], r[ARRAY_SIZE(c)];
	uint64_t used[RPCRDMA_MAX_WRITE_CHUNKS];
	struct rpcrdma_limits lim;
	struct rpcrdma_msg call, m;
	uint8_t buf[2048];
	size_t n = 0, len, hlen;

	c[n++] = XID;
	c[n++] = 1;
	c[n++] = CREDITS;
	c[n++] = RPCRDMA_MSG;
	c[n++] = 0;
	for (uint32_t i = 0; i < 8; i++) {
		c[n++] = 1;
		c[n++] = 8;
		for (uint32_t j = 0; j < 8; j++) {
			c[n++] = 0x100 * i + j;
			c[n++] = 512 + j;
			c[n++] = i;
			c[n++] = j << 12;
		}
		used[i] = 8 * 512 + 28;
	}
	c[n++] = 0;
	c[n++] = 0;
	ck_assert_uint_eq(n, ARRAY_SIZE(c));
	rpcrdma_limits_default(&lim);
	len = words(buf, c, n);
	ck_assert_int_eq(rpcrdma_hdr_decode(buf, len, &lim, &call, &hlen),
			 RPCRDMA_HDR_OK);
	ck_assert_uint_eq(call.nsegs, RPCRDMA_MAX_SEGS);
	rpcrdma_msg_init(&m, XID, CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_reply_add_writes(&call, &m, used), 0);
	memcpy(r, c, sizeof(r));
	encode_eq(&m, r, n);
}
END_TEST

/* A reply header with no room left: the builders' -ENOSPC comes back. */
START_TEST(test_writes_enospc)
{
	const uint64_t used[] = { 1, 1 };
	const struct rpcrdma_segment s = seg(1, 1, 0);
	struct rpcrdma_msg call, m;
	uint32_t i;

	decode_ok(call_w2_r3, ARRAY_SIZE(call_w2_r3), &call);
	/* No write chunk left. */
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_MSG);
	for (i = 0; i < RPCRDMA_MAX_WRITE_CHUNKS; i++)
		ck_assert_int_eq(rpcrdma_msg_add_write_chunk(&m), (int)i);
	ck_assert_int_eq(rpcrdma_reply_add_writes(&call, &m, used), -ENOSPC);
	/* No segment left (the pool held by a reply chunk). */
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_NOMSG);
	for (i = 0; i < RPCRDMA_MAX_SEGS; i++)
		ck_assert_int_eq(rpcrdma_msg_add_reply_seg(&m, &s), 0);
	ck_assert_int_eq(rpcrdma_reply_add_writes(&call, &m, used), -ENOSPC);
	/* Room for the first chunk only. */
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_NOMSG);
	for (i = 0; i < RPCRDMA_MAX_SEGS - 2; i++)
		ck_assert_int_eq(rpcrdma_msg_add_reply_seg(&m, &s), 0);
	ck_assert_int_eq(rpcrdma_reply_add_writes(&call, &m, used), -ENOSPC);
}
END_TEST

/* A Long Reply of 250 bytes into the 600-byte reply chunk, with the
 * write list echoed first: the whole NOMSG reply header, byte for byte. */
START_TEST(test_reply_chunk_partial)
{
	const uint64_t used[] = { 0, 0 };
	const uint32_t want[] = {
		XID, 1, 7, RPCRDMA_NOMSG,
		0,
		1, 1, 0xa1, 0, 0, 0x10000,
		1, 3, 0xb1, 0, 0, 0x20000,
		      0xb2, 0, 1, 0x30000,
		      0xb3, 0, 2, 0x40000,
		0,
		1, 3, 0xc1, 100, 0, 0x50000,
		      0xc2, 150, 0, 0x60000,
		      0xc3, 0, 0, 0x70000,
	};
	struct rpcrdma_msg call, m;

	decode_ok(call_w2_r3, ARRAY_SIZE(call_w2_r3), &call);
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_reply_add_writes(&call, &m, used), 0);
	ck_assert_int_eq(rpcrdma_reply_add_reply_chunk(&call, &m, 250), 0);
	encode_eq(&m, want, ARRAY_SIZE(want));
}
END_TEST

/* Exactly full, and empty (every segment goes back with length 0). */
START_TEST(test_reply_chunk_full_and_zero)
{
	const uint32_t c[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0,
			       1, 2, 0xc1, 100, 0, 0x50000,
			       0xc2, 200, 0, 0x60000 };
	const uint32_t full[] = { XID, 1, 7, RPCRDMA_NOMSG, 0, 0,
				  1, 2, 0xc1, 100, 0, 0x50000,
				  0xc2, 200, 0, 0x60000 };
	const uint32_t zero[] = { XID, 1, 7, RPCRDMA_NOMSG, 0, 0,
				  1, 2, 0xc1, 0, 0, 0x50000,
				  0xc2, 0, 0, 0x60000 };
	struct rpcrdma_msg call, m;

	decode_ok(c, ARRAY_SIZE(c), &call);
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_reply_add_reply_chunk(&call, &m, 300), 0);
	encode_eq(&m, full, ARRAY_SIZE(full));
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_reply_add_reply_chunk(&call, &m, 0), 0);
	encode_eq(&m, zero, ARRAY_SIZE(zero));
}
END_TEST

/* A reply longer than the chunk: -EMSGSIZE (the caller answers
 * ERR_CHUNK), however much longer. Zero-length segments hold nothing. */
START_TEST(test_reply_chunk_too_small)
{
	const uint32_t zeros[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0,
				   1, 2, 0xc1, 0, 0, 0x50000,
				   0xc2, 0, 0, 0x60000 };
	struct rpcrdma_msg call, m;

	decode_ok(call_w2_r3, ARRAY_SIZE(call_w2_r3), &call);
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_reply_add_reply_chunk(&call, &m, 601),
			 -EMSGSIZE);
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_reply_add_reply_chunk(&call, &m, UINT64_MAX),
			 -EMSGSIZE);
	decode_ok(zeros, ARRAY_SIZE(zeros), &call);
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_reply_add_reply_chunk(&call, &m, 1),
			 -EMSGSIZE);
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_reply_add_reply_chunk(&call, &m, 0), 0);
}
END_TEST

/* A call without a reply chunk (the caller checks has_reply first): no
 * room for any byte, and nothing added. */
START_TEST(test_reply_chunk_absent)
{
	const uint32_t c[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0 };
	struct rpcrdma_msg call, m;

	decode_ok(c, ARRAY_SIZE(c), &call);
	call.reply.first = 0;	/* as rpcrdma_msg_init leaves it */
	call.reply.nsegs = 0;
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_reply_add_reply_chunk(&call, &m, 1),
			 -EMSGSIZE);
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_reply_add_reply_chunk(&call, &m, 0), 0);
	ck_assert(!m.has_reply);
}
END_TEST

/* A reply header with no segment left: -ENOSPC. */
START_TEST(test_reply_chunk_enospc)
{
	const struct rpcrdma_segment s = seg(1, 1, 0);
	struct rpcrdma_msg call, m;
	uint32_t i;

	decode_ok(call_w2_r3, ARRAY_SIZE(call_w2_r3), &call);
	rpcrdma_msg_init(&m, XID, 7, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(&m), 0);
	for (i = 0; i < RPCRDMA_MAX_SEGS - 1; i++)
		ck_assert_int_eq(rpcrdma_msg_add_write_seg(&m, 0, &s), 0);
	ck_assert_int_eq(rpcrdma_reply_add_reply_chunk(&call, &m, 10),
			 -ENOSPC);
}
END_TEST

/* ==== Rule 3: rpcrdma_reply_inv_rkey ==== */

START_TEST(test_inv_same_rkey)
{
	const uint32_t c[] = { XID, 1, CREDITS, RPCRDMA_MSG,
			       1, 8, 0x77, 64, 0, 0x100,
			       1, 16, 0x77, 64, 0, 0x200,
			       0,
			       1, 2, 0x77, 64, 0, 0x300,
			       0x77, 64, 0, 0x400,
			       0,
			       1, 1, 0x77, 64, 0, 0x500 };
	struct rpcrdma_msg call;

	decode_ok(c, ARRAY_SIZE(c), &call);
	ck_assert_uint_eq(rpcrdma_reply_inv_rkey(&call, true), 0x77);
	/* Unless both sides set R (RFC 8797 section 4.1). */
	ck_assert_uint_eq(rpcrdma_reply_inv_rkey(&call, false), 0);
}
END_TEST

/* One list alone carries the rkey. */
START_TEST(test_inv_one_list)
{
	const uint32_t rd[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				1, 8, 0x55, 64, 0, 0x100, 0, 0, 0 };
	const uint32_t wr[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				1, 1, 0x66, 64, 0, 0x100, 0, 0 };
	const uint32_t rp[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0,
				1, 1, 0x88, 64, 0, 0x100 };
	struct rpcrdma_msg call;

	decode_ok(rd, ARRAY_SIZE(rd), &call);
	ck_assert_uint_eq(rpcrdma_reply_inv_rkey(&call, true), 0x55);
	decode_ok(wr, ARRAY_SIZE(wr), &call);
	ck_assert_uint_eq(rpcrdma_reply_inv_rkey(&call, true), 0x66);
	decode_ok(rp, ARRAY_SIZE(rp), &call);
	ck_assert_uint_eq(rpcrdma_reply_inv_rkey(&call, true), 0x88);
}
END_TEST

/* A second rkey anywhere (read list, write list, reply chunk; first or
 * last segment) means no invalidation: it might revoke memory the
 * requester still uses. */
START_TEST(test_inv_mixed)
{
	uint32_t c[] = { XID, 1, CREDITS, RPCRDMA_MSG,
			 1, 8, 0x77, 64, 0, 0x100,
			 1, 16, 0x77, 64, 0, 0x200,
			 0,
			 1, 2, 0x77, 64, 0, 0x300,
			 0x77, 64, 0, 0x400,
			 0,
			 1, 1, 0x77, 64, 0, 0x500 };
	const size_t handles[] = { 6, 12, 19, 23, 30 };
	struct rpcrdma_msg call;

	for (size_t i = 0; i < ARRAY_SIZE(handles); i++) {
		uint32_t save = c[handles[i]];

		c[handles[i]] = 0x78;
		decode_ok(c, ARRAY_SIZE(c), &call);
		ck_assert_msg(rpcrdma_reply_inv_rkey(&call, true) == 0,
			      "handle at word %zu", handles[i]);
		c[handles[i]] = save;
	}
	decode_ok(c, ARRAY_SIZE(c), &call);
	ck_assert_uint_eq(rpcrdma_reply_inv_rkey(&call, true), 0x77);
}
END_TEST

/* No segment at all: a plain Send. An rkey of 0 is 0 as well. */
START_TEST(test_inv_no_segments)
{
	const uint32_t none[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0 };
	const uint32_t empty_w[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				     1, 0, 0, 0 };
	const uint32_t zero[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				  1, 8, 0, 64, 0, 0x100, 0, 0, 0 };
	struct rpcrdma_msg call;

	decode_ok(none, ARRAY_SIZE(none), &call);
	ck_assert_uint_eq(rpcrdma_reply_inv_rkey(&call, true), 0);
	decode_ok(empty_w, ARRAY_SIZE(empty_w), &call);
	ck_assert_uint_eq(rpcrdma_reply_inv_rkey(&call, true), 0);
	decode_ok(zero, ARRAY_SIZE(zero), &call);
	ck_assert_uint_eq(rpcrdma_reply_inv_rkey(&call, true), 0);
}
END_TEST

/* Only the segments the counts cover are looked at: stale entries past
 * them (a previous, larger call decoded into the same struct) do not
 * count. */
START_TEST(test_inv_counts_bound)
{
	const uint32_t big[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				 1, 8, 0x11, 64, 0, 0x100,
				 1, 8, 0x12, 64, 0, 0x100,
				 0,
				 1, 1, 0x13, 64, 0, 0x300,
				 0, 0 };
	const uint32_t small[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				   1, 8, 0x44, 64, 0, 0x100, 0, 0, 0 };
	struct rpcrdma_msg call;

	decode_ok(big, ARRAY_SIZE(big), &call);
	ck_assert_uint_eq(rpcrdma_reply_inv_rkey(&call, true), 0);
	decode_ok(small, ARRAY_SIZE(small), &call);
	ck_assert_uint_eq(rpcrdma_reply_inv_rkey(&call, true), 0x44);
}
END_TEST

/* The responder's test cases. */
void chunks_add_reply(Suite *s)
{
	TCase *tc;

	tc = tcase_create("reply_echo");
	tcase_add_test(tc, test_writes_partial);
	tcase_add_test(tc, test_writes_unused);
	tcase_add_test(tc, test_writes_full_and_over);
	tcase_add_test(tc, test_writes_none);
	tcase_add_test(tc, test_writes_empty_chunk);
	tcase_add_test(tc, test_writes_max);
	tcase_add_test(tc, test_writes_enospc);
	tcase_add_test(tc, test_reply_chunk_partial);
	tcase_add_test(tc, test_reply_chunk_full_and_zero);
	tcase_add_test(tc, test_reply_chunk_too_small);
	tcase_add_test(tc, test_reply_chunk_absent);
	tcase_add_test(tc, test_reply_chunk_enospc);
	suite_add_tcase(s, tc);
	tc = tcase_create("inv_rkey");
	tcase_add_test(tc, test_inv_same_rkey);
	tcase_add_test(tc, test_inv_one_list);
	tcase_add_test(tc, test_inv_mixed);
	tcase_add_test(tc, test_inv_no_segments);
	tcase_add_test(tc, test_inv_counts_bound);
	suite_add_tcase(s, tc);
}
