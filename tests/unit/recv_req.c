/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_recv: the requester's decision on one received message
 * (lib/recv.c): what it is (rpcrdma_req_recv: a runt, a bad header, a
 * backward call, a reply) and what the call it names takes of a reply
 * (rpcrdma_req_take_reply): inline up to the room, long up to the reply
 * chunk offered, exactly and one past; RDMA_ERROR; echoes of the write
 * list and reply chunk that are not the offer; sums past 2^32.
 */
#include "recv_util.h"

/* What the call offered: two write chunks of one segment, a reply
 * chunk of one segment, 64 bytes of room for an inline reply. */
static const struct rpcrdma_segment offer_w[2] = {
	{ .handle = 0xa1, .length = 1000, .offset = 0x10000 },
	{ .handle = 0xa2, .length = 500, .offset = 0x20000 },
};
static const struct rpcrdma_segment offer_r = {
	.handle = 0xc1, .length = 4096, .offset = 0x50000,
};

static struct rpcrdma_req_offer offer(void)
{
	struct rpcrdma_req_offer o = {
		.wsegs = offer_w, .nwrites = 2,
		.reply_seg = &offer_r, .reply_chunk = 4096,
		.inline_cap = 64,
	};

	return o;
}

/* What buf[0..len) is, from an exact heap copy. */
static enum rpcrdma_req_kind kind_bytes(const uint8_t *b, size_t len,
					const struct rpcrdma_limits *lim,
					struct rpcrdma_msg *m, size_t *hlen)
{
	uint8_t *p = exact(b, len);
	enum rpcrdma_req_kind k;

	*hlen = 99;
	k = rpcrdma_req_recv(p, len, lim, m, hlen);
	free(p);
	ck_assert_uint_le(*hlen, len);
	return k;
}

static enum rpcrdma_req_kind kind(const uint32_t *w, size_t nw,
				  struct rpcrdma_msg *m, size_t *hlen)
{
	uint8_t b[1024];

	return kind_bytes(b, words(b, w, nw), NULL, m, hlen);
}

/* The reply of words w (a REPLY to rpcrdma_req_recv under lim) taken
 * against o, and what holds of every decision: a length within what was
 * offered for it. wlen starts at 0xeeeeeeee so what it gets shows. */
static enum rpcrdma_req_action take_lim(const uint32_t *w, size_t nw,
					const struct rpcrdma_limits *lim,
					const struct rpcrdma_req_offer *o,
					uint32_t *wlen,
					struct rpcrdma_req_verdict *v)
{
	static struct rpcrdma_msg m;
	uint8_t b[1024];
	size_t len = words(b, w, nw), hlen;
	enum rpcrdma_req_action a;

	ck_assert_int_eq(kind_bytes(b, len, lim, &m, &hlen),
			 RPCRDMA_REQ_REPLY);
	for (uint32_t i = 0; i < RPCRDMA_MAX_WRITE_CHUNKS; i++)
		wlen[i] = 0xeeeeeeeeu;
	a = rpcrdma_req_take_reply(&m, hlen, len, o, wlen, v);
	ck_assert_int_eq(a, v->action);
	if (a == RPCRDMA_REQ_INLINE) {
		ck_assert_uint_le(v->len, o->inline_cap);
		ck_assert_uint_eq(v->len, len - hlen);
	}
	if (a == RPCRDMA_REQ_LONG)
		ck_assert_uint_le(v->len, o->reply_chunk);
	return a;
}

static enum rpcrdma_req_action take(const uint32_t *w, size_t nw,
				    const struct rpcrdma_req_offer *o,
				    uint32_t *wlen,
				    struct rpcrdma_req_verdict *v)
{
	return take_lim(w, nw, NULL, o, wlen, v);
}

/* Fewer than the fixed words: no XID to fail. From 16 bytes on, a bad
 * header names its call. */
START_TEST(test_req_runt)
{
	const uint32_t w[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0 };
	struct rpcrdma_msg m;
	uint8_t b[64];
	size_t hlen;

	words(b, w, ARRAY_SIZE(w));
	ck_assert_int_eq(kind_bytes(b, 0, NULL, &m, &hlen), RPCRDMA_REQ_RUNT);
	ck_assert_int_eq(kind_bytes(b, RPCRDMA_HDR_FIXED - 1, NULL, &m, &hlen),
			 RPCRDMA_REQ_RUNT);
	ck_assert_uint_eq(hlen, 0);
	ck_assert_int_eq(kind_bytes(b, RPCRDMA_HDR_FIXED, NULL, &m, &hlen),
			 RPCRDMA_REQ_BAD);
	ck_assert_uint_eq(m.xid, XID);
	ck_assert_uint_eq(hlen, 0);
}
END_TEST

/* Whatever the decoder refuses fails the call it names: another
 * version, a reply chunk of no segment, an unknown error code. */
START_TEST(test_req_bad)
{
	static const struct {
		uint32_t w[12];
		size_t n;
	} cases[] = {
		{ { XID, 2, CREDITS, RPCRDMA_MSG, 0, 0, 0, RPC_REPLYW }, 10 },
		{ { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0, 1, 0 }, 8 },
		{ { XID, 1, CREDITS, RPCRDMA_ERROR, 3 }, 5 },
		{ { XID, 1, CREDITS, RPCRDMA_MSGP, 0, 0, 0 }, 7 },
	};
	struct rpcrdma_msg m;
	size_t hlen;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		ck_assert_int_eq(kind(cases[i].w, cases[i].n, &m, &hlen),
				 RPCRDMA_REQ_BAD);
		ck_assert_uint_eq(m.xid, XID);
	}
}
END_TEST

/* RFC 8167 section 4: RDMA_MSG, no chunk, an RPC CALL inline is a
 * backward call; a REPLY, any chunk, or too few bytes is a reply. */
START_TEST(test_req_bc_call)
{
	const uint32_t call[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0,
				  RPC_CALLW };
	const uint32_t reply[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0,
				   RPC_REPLYW };
	const uint32_t chunk[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				   1, 1, SEGW(0xa1, 4, 0x10000), 0, 0,
				   RPC_CALLW };
	const uint32_t cut[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0,
				 0x01020304u };
	struct rpcrdma_msg m;
	size_t hlen;

	ck_assert_int_eq(kind(call, ARRAY_SIZE(call), &m, &hlen),
			 RPCRDMA_REQ_BC_CALL);
	ck_assert_uint_eq(hlen, RPCRDMA_HDR_MIN);
	ck_assert_int_eq(kind(reply, ARRAY_SIZE(reply), &m, &hlen),
			 RPCRDMA_REQ_REPLY);
	ck_assert_int_eq(kind(chunk, ARRAY_SIZE(chunk), &m, &hlen),
			 RPCRDMA_REQ_REPLY);
	ck_assert_int_eq(kind(cut, ARRAY_SIZE(cut), &m, &hlen),
			 RPCRDMA_REQ_REPLY);
}
END_TEST

/* The responder's RDMA_ERROR, whatever the offer. */
START_TEST(test_req_rdma_error)
{
	const uint32_t vers[] = { XID, 1, CREDITS, RPCRDMA_ERROR,
				  RPCRDMA_ERR_VERS, 1, 1 };
	const uint32_t chunk[] = { XID, 1, CREDITS, RPCRDMA_ERROR,
				   RPCRDMA_ERR_CHUNK };
	struct rpcrdma_req_offer o = offer();
	struct rpcrdma_req_verdict v;
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS];

	ck_assert_int_eq(take(vers, ARRAY_SIZE(vers), &o, wlen, &v),
			 RPCRDMA_REQ_RDMA_ERROR);
	ck_assert_uint_eq(v.err, RPCRDMA_ERR_VERS);
	o.nwrites = 0;
	o.reply_seg = NULL;
	ck_assert_int_eq(take(chunk, ARRAY_SIZE(chunk), &o, wlen, &v),
			 RPCRDMA_REQ_RDMA_ERROR);
	ck_assert_uint_eq(v.err, RPCRDMA_ERR_CHUNK);
	ck_assert_uint_eq(v.len, 0);
}
END_TEST

/* An inline reply of exactly the room is taken, one byte more is not;
 * an empty one is (the RPC layer refuses it). */
START_TEST(test_req_inline_cap)
{
	uint32_t w[4 + 3 + 16] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0,
				   RPC_REPLYW };
	struct rpcrdma_req_offer o = offer();
	struct rpcrdma_req_verdict v;
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS];
	uint8_t b[128];
	size_t len;

	ck_assert_int_eq(take(w, ARRAY_SIZE(w), &o, wlen, &v),
			 RPCRDMA_REQ_INLINE);
	ck_assert_uint_eq(v.len, 64);
	ck_assert_uint_eq(v.nwritten, 0);
	ck_assert_uint_eq(wlen[0], 0xeeeeeeeeu);
	o.inline_cap = 63;
	ck_assert_int_eq(take(w, ARRAY_SIZE(w), &o, wlen, &v),
			 RPCRDMA_REQ_BADMSG);
	/* One byte past: the length need not be a whole word. */
	len = words(b, w, ARRAY_SIZE(w)) - 1;
	{
		static struct rpcrdma_msg m;
		size_t hlen;

		ck_assert_int_eq(kind_bytes(b, len, NULL, &m, &hlen),
				 RPCRDMA_REQ_REPLY);
		ck_assert_int_eq(rpcrdma_req_take_reply(&m, hlen, len, &o,
							wlen, &v),
				 RPCRDMA_REQ_INLINE);
		ck_assert_uint_eq(v.len, 63);
	}
	o.inline_cap = 0;
	ck_assert_int_eq(take(w, 7, &o, wlen, &v), RPCRDMA_REQ_INLINE);
	ck_assert_uint_eq(v.len, 0);
}
END_TEST

/* Write chunks echoed: taken with what was written, when within the
 * offer; a longer echo, another handle, a chunk of no segment or one
 * chunk too many is not. A
 * reply refused for its length still had its writes checked. */
START_TEST(test_req_writes)
{
	uint32_t w[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
			 1, 1, SEGW(0xa1, 600, 0x10000),
			 1, 1, SEGW(0xa2, 0, 0x20000), 0, 0, RPC_REPLYW };
	const uint32_t three[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				   1, 1, SEGW(0xa1, 1, 0x10000),
				   1, 1, SEGW(0xa2, 1, 0x20000),
				   1, 1, SEGW(0xa3, 1, 0x30000), 0, 0,
				   RPC_REPLYW };
	const uint32_t empty[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				   1, 0, 0, 0, RPC_REPLYW };
	struct rpcrdma_req_offer o = offer();
	struct rpcrdma_req_verdict v;
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS];

	ck_assert_int_eq(take(w, ARRAY_SIZE(w), &o, wlen, &v),
			 RPCRDMA_REQ_INLINE);
	ck_assert_uint_eq(v.nwritten, 1);
	ck_assert_uint_eq(wlen[0], 600);
	ck_assert_uint_eq(wlen[1], 0);
	ck_assert_uint_eq(v.len, 12);
	w[8] = 1000;		/* exactly the offer */
	ck_assert_int_eq(take(w, ARRAY_SIZE(w), &o, wlen, &v),
			 RPCRDMA_REQ_INLINE);
	w[8] = 1001;
	ck_assert_int_eq(take(w, ARRAY_SIZE(w), &o, wlen, &v),
			 RPCRDMA_REQ_BADMSG);
	ck_assert_uint_eq(v.nwritten, 0);
	w[8] = 600;
	w[13] = 0xa9;
	ck_assert_int_eq(take(w, ARRAY_SIZE(w), &o, wlen, &v),
			 RPCRDMA_REQ_BADMSG);
	w[13] = 0xa2;
	o.inline_cap = 11;
	ck_assert_int_eq(take(w, ARRAY_SIZE(w), &o, wlen, &v),
			 RPCRDMA_REQ_BADMSG);
	ck_assert_uint_eq(v.nwritten, 1);
	o.inline_cap = 64;
	ck_assert_int_eq(take(three, ARRAY_SIZE(three), &o, wlen, &v),
			 RPCRDMA_REQ_BADMSG);
	/* A write chunk of no segment is not the one segment offered. */
	ck_assert_int_eq(take(empty, ARRAY_SIZE(empty), &o, wlen, &v),
			 RPCRDMA_REQ_BADMSG);
	o.nwrites = 1;
	ck_assert_int_eq(take(w, ARRAY_SIZE(w), &o, wlen, &v),
			 RPCRDMA_REQ_BADMSG);
}
END_TEST

/* RFC 8166 section 3.5.4: a Long Reply is the sum of the reply chunk's
 * echoed lengths, taken up to the bytes offered, exactly, not one more;
 * empty is taken; another handle, no reply chunk offered, or one used
 * beside RDMA_MSG is not. */
START_TEST(test_req_long)
{
	uint32_t w[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0,
			 1, 1, SEGW(0xc1, 4096, 0x50000) };
	uint32_t msg[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0,
			   1, 1, SEGW(0xc1, 0, 0x50000), RPC_REPLYW };
	struct rpcrdma_req_offer o = offer();
	struct rpcrdma_req_verdict v;
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS];

	ck_assert_int_eq(take(w, ARRAY_SIZE(w), &o, wlen, &v),
			 RPCRDMA_REQ_LONG);
	ck_assert_uint_eq(v.len, 4096);
	w[9] = 4097;
	ck_assert_int_eq(take(w, ARRAY_SIZE(w), &o, wlen, &v),
			 RPCRDMA_REQ_BADMSG);
	w[9] = 0;
	ck_assert_int_eq(take(w, ARRAY_SIZE(w), &o, wlen, &v),
			 RPCRDMA_REQ_LONG);
	ck_assert_uint_eq(v.len, 0);
	w[8] = 0xc2;
	ck_assert_int_eq(take(w, ARRAY_SIZE(w), &o, wlen, &v),
			 RPCRDMA_REQ_BADMSG);
	w[8] = 0xc1;
	o.reply_seg = NULL;
	o.reply_chunk = 0;
	ck_assert_int_eq(take(w, ARRAY_SIZE(w), &o, wlen, &v),
			 RPCRDMA_REQ_BADMSG);
	/* Beside RDMA_MSG the offered reply chunk comes back unused
	 * (lib/chunks.c, issue 26): length 0, or the reply is refused. */
	o = offer();
	ck_assert_int_eq(take(msg, ARRAY_SIZE(msg), &o, wlen, &v),
			 RPCRDMA_REQ_INLINE);
	ck_assert_uint_eq(v.len, 12);
	msg[9] = 4;
	ck_assert_int_eq(take(msg, ARRAY_SIZE(msg), &o, wlen, &v),
			 RPCRDMA_REQ_BADMSG);
}
END_TEST

/* Sums past 2^32 (the decoder's byte bound lifted): a reply chunk of two
 * segments is not the one offered, whatever its 32-bit sum; one of
 * 2^32 - 1 bytes is taken against an offer of as much, not of one less. */
START_TEST(test_req_sum_2_32)
{
	const uint32_t two[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0,
				 1, 2, SEGW(0xc1, 0x80000000u, 0x50000),
				 SEGW(0xc1, 0x80000000u, 0x50000) };
	const uint32_t one[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0,
				 1, 1, SEGW(0xc1, 0xffffffffu, 0x50000) };
	struct rpcrdma_req_offer o = offer();
	struct rpcrdma_req_verdict v;
	struct rpcrdma_limits lim;
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS];

	rpcrdma_limits_default(&lim);
	lim.max_chunk_bytes = UINT64_MAX;
	o.reply_chunk = UINT32_MAX;
	ck_assert_int_eq(take_lim(two, ARRAY_SIZE(two), &lim, &o, wlen, &v),
			 RPCRDMA_REQ_BADMSG);
	ck_assert_int_eq(take_lim(one, ARRAY_SIZE(one), &lim, &o, wlen, &v),
			 RPCRDMA_REQ_LONG);
	ck_assert_uint_eq(v.len, 0xffffffffu);
	o.reply_chunk = UINT32_MAX - 1;
	ck_assert_int_eq(take_lim(one, ARRAY_SIZE(one), &lim, &o, wlen, &v),
			 RPCRDMA_REQ_BADMSG);
}
END_TEST

void recv_add_req(Suite *s)
{
	TCase *tc = tcase_create("req_recv");

	tcase_add_test(tc, test_req_runt);
	tcase_add_test(tc, test_req_bad);
	tcase_add_test(tc, test_req_bc_call);
	suite_add_tcase(s, tc);
	tc = tcase_create("req_take_reply");
	tcase_add_test(tc, test_req_rdma_error);
	tcase_add_test(tc, test_req_inline_cap);
	tcase_add_test(tc, test_req_writes);
	tcase_add_test(tc, test_req_long);
	tcase_add_test(tc, test_req_sum_2_32);
	suite_add_tcase(s, tc);
}
