/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_chunks: the peeks at raw bytes after the transport header,
 * the server's for an answer to its backward call and the client's for a
 * backward call (lib/hdr.c).
 */
#include "chunks_util.h"

/* ==== Rule 1: rpcrdma_hdr_peek_bc_answer ==== */

/* RFC 8167 section 4.2: a backward reply, RDMA_MSG with three empty
 * lists, then an RPC reply (xid, msg_type REPLY, MSG_ACCEPTED ...). */
static const uint32_t bc_reply[] = {
	XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0,
	XID, RPC_REPLY, 0, 0, 0, 0,
};

START_TEST(test_peek_reply)
{
	uint8_t b[64];
	size_t len = words(b, bc_reply, ARRAY_SIZE(bc_reply));
	struct rpcrdma_msg m;
	size_t hlen;

	ck_assert(peek_exact(b, len));
	/* The minimum: the header and the RPC message's first two words. */
	ck_assert(peek_exact(b, RPCRDMA_HDR_MIN + 8));
	/* What it accepts, the decoder takes as an empty RDMA_MSG. */
	ck_assert_int_eq(rpcrdma_hdr_decode(b, len, NULL, &m, &hlen),
			 RPCRDMA_HDR_OK);
	ck_assert_uint_eq(hlen, RPCRDMA_HDR_MIN);
	ck_assert(m.nreads == 0 && m.nwrites == 0 && !m.has_reply);
}
END_TEST

START_TEST(test_peek_error)
{
	const uint32_t chunk[] = { XID, 1, CREDITS, RPCRDMA_ERROR,
				   RPCRDMA_ERR_CHUNK };
	const uint32_t vers[] = { XID, 1, CREDITS, RPCRDMA_ERROR,
				  RPCRDMA_ERR_VERS, 1, 1 };
	uint8_t b[64];
	size_t len;

	len = words(b, chunk, ARRAY_SIZE(chunk));
	ck_assert(peek_exact(b, len));
	len = words(b, vers, ARRAY_SIZE(vers));
	ck_assert(peek_exact(b, len));
	/* The fixed words are enough: the decode that follows judges the
	 * rest (an RDMA_ERROR cut after rdma_proc, an unknown code). */
	ck_assert(peek_exact(b, RPCRDMA_HDR_FIXED));
	{
		const uint32_t odd[] = { XID, 1, CREDITS, RPCRDMA_ERROR, 9 };

		len = words(b, odd, ARRAY_SIZE(odd));
		ck_assert(peek_exact(b, len));
	}
}
END_TEST

/* Every prefix shorter than what the rule needs is refused, without a
 * read past it. */
START_TEST(test_peek_short)
{
	const uint32_t err[] = { XID, 1, CREDITS, RPCRDMA_ERROR,
				 RPCRDMA_ERR_CHUNK };
	uint8_t b[64];
	size_t len, n;

	/* Each prefix alone, and inside the whole message (the words past
	 * len would pass: only len may refuse them). */
	len = words(b, bc_reply, ARRAY_SIZE(bc_reply));
	ck_assert(rpcrdma_hdr_peek_bc_answer(b, len));
	for (n = 0; n < RPCRDMA_HDR_MIN + 8; n++) {
		ck_assert_msg(!peek_exact(b, n), "reply prefix %zu", n);
		ck_assert_msg(!rpcrdma_hdr_peek_bc_answer(b, n),
			      "reply prefix %zu", n);
	}
	len = words(b, err, ARRAY_SIZE(err));
	ck_assert(rpcrdma_hdr_peek_bc_answer(b, len));
	for (n = 0; n < RPCRDMA_HDR_FIXED; n++) {
		ck_assert_msg(!peek_exact(b, n), "error prefix %zu", n);
		ck_assert_msg(!rpcrdma_hdr_peek_bc_answer(b, n),
			      "error prefix %zu", n);
	}
	ck_assert(!rpcrdma_hdr_peek_bc_answer(NULL, 0));
}
END_TEST

START_TEST(test_peek_vers)
{
	uint32_t w[ARRAY_SIZE(bc_reply)];
	const uint32_t bad[] = { 0, 2, 0xffffffffu, 0x01000000u };
	uint8_t b[64];
	size_t len;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memcpy(w, bc_reply, sizeof(w));
		w[1] = bad[i];
		len = words(b, w, ARRAY_SIZE(w));
		ck_assert(!peek_exact(b, len));
		w[3] = RPCRDMA_ERROR;
		w[4] = RPCRDMA_ERR_VERS;
		len = words(b, w, ARRAY_SIZE(w));
		ck_assert(!peek_exact(b, len));
	}
}
END_TEST

/* Other procedures, even shaped like a reply otherwise. */
START_TEST(test_peek_proc)
{
	uint32_t w[ARRAY_SIZE(bc_reply)];
	const uint32_t procs[] = { RPCRDMA_NOMSG, RPCRDMA_MSGP, RPCRDMA_DONE,
				   5, 0x00000004u << 24, 0xffffffffu };
	uint8_t b[64];
	size_t len;

	for (size_t i = 0; i < ARRAY_SIZE(procs); i++) {
		memcpy(w, bc_reply, sizeof(w));
		w[3] = procs[i];
		len = words(b, w, ARRAY_SIZE(w));
		ck_assert_msg(!peek_exact(b, len), "proc %u", procs[i]);
	}
}
END_TEST

/* A chunk list that is not empty (or a discriminator that is not even a
 * boolean) is not a backward reply: a forward call, or junk. */
START_TEST(test_peek_lists)
{
	uint32_t w[ARRAY_SIZE(bc_reply)];
	const uint32_t disc[] = { 1, 2, 0x01000000u, 0xffffffffu };
	uint8_t b[64];
	size_t len;

	for (uint32_t list = 4; list <= 6; list++) {
		for (size_t i = 0; i < ARRAY_SIZE(disc); i++) {
			memcpy(w, bc_reply, sizeof(w));
			w[list] = disc[i];
			len = words(b, w, ARRAY_SIZE(w));
			ck_assert_msg(!peek_exact(b, len), "word %u = %x",
				      list, disc[i]);
		}
	}
}
END_TEST

/* msg_type other than REPLY: a forward call (CALL), or junk. */
START_TEST(test_peek_msg_type)
{
	uint32_t w[ARRAY_SIZE(bc_reply)];
	const uint32_t types[] = { RPC_CALL, 2, 0x01000000u, 0xffffffffu };
	uint8_t b[64];
	size_t len;

	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		memcpy(w, bc_reply, sizeof(w));
		w[8] = types[i];
		len = words(b, w, ARRAY_SIZE(w));
		ck_assert(!peek_exact(b, len));
	}
	/* The RPC XID is not part of the rule (the decode checks it
	 * against rdma_xid afterwards). */
	memcpy(w, bc_reply, sizeof(w));
	w[7] = ~XID;
	len = words(b, w, ARRAY_SIZE(w));
	ck_assert(peek_exact(b, len));
}
END_TEST

/* Forward calls as clients send them: inline, with chunks, long. */
START_TEST(test_peek_forward_calls)
{
	const uint32_t inline_call[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0,
					 0, XID, RPC_CALL, 2, 100003, 3, 1 };
	const uint32_t read_call[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				       1, 8, 0xa, 64, 0, 0x1000,
				       0, 0, 0, XID, RPC_CALL };
	const uint32_t long_call[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
				       1, 0, 0xa, 64, 0, 0x1000,
				       0, 0, 0 };
	uint8_t b[128];

	ck_assert(!peek_exact(b, words(b, inline_call,
				       ARRAY_SIZE(inline_call))));
	ck_assert(!peek_exact(b, words(b, read_call, ARRAY_SIZE(read_call))));
	ck_assert(!peek_exact(b, words(b, long_call, ARRAY_SIZE(long_call))));
}
END_TEST

/* RFC 8167 section 4: a backward call, RDMA_MSG with three empty lists,
 * then an RPC call (xid, msg_type CALL, rpcvers, prog, vers, proc). */
static const uint32_t bc_call[] = {
	XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0,
	XID, RPC_CALL, 2, 0x40000000u, 1, 0,
};

static bool peek_call_exact(const uint8_t *src, size_t len)
{
	uint8_t *p = exact(src, len);
	struct rpcrdma_msg m;
	size_t hlen;
	bool r;

	ck_assert_int_eq(rpcrdma_hdr_decode(p, len, NULL, &m, &hlen),
			 RPCRDMA_HDR_OK);
	r = rpcrdma_hdr_peek_bc_call(&m, hlen, p, len);
	free(p);
	return r;
}

START_TEST(test_peek_call)
{
	uint8_t b[64];
	size_t len = words(b, bc_call, ARRAY_SIZE(bc_call));
	struct rpcrdma_msg m;
	size_t hlen;

	ck_assert(peek_call_exact(b, len));
	/* The minimum: the header and the RPC message's first two words. */
	ck_assert(peek_call_exact(b, RPCRDMA_HDR_MIN + 8));
	/* A call is never an answer, and an answer never a call. */
	ck_assert(!peek_exact(b, len));
	ck_assert_int_eq(rpcrdma_hdr_decode(b, len, NULL, &m, &hlen),
			 RPCRDMA_HDR_OK);
	ck_assert_uint_eq(hlen, RPCRDMA_HDR_MIN);
	/* The rdma_xid the glue takes from the decoded header is the first
	 * word, in host order (what it used to read by hand). */
	ck_assert_uint_eq(m.xid, XID);
	len = words(b, bc_reply, ARRAY_SIZE(bc_reply));
	ck_assert(!peek_call_exact(b, len));
}
END_TEST

/* Every length short of the RPC message's second word is refused, with
 * no read past it; so is an hlen past the message (no wrap of hlen + 8). */
START_TEST(test_peek_call_short)
{
	uint8_t b[64];
	size_t len = words(b, bc_call, ARRAY_SIZE(bc_call)), n;
	struct rpcrdma_msg m;
	size_t hlen;

	ck_assert_int_eq(rpcrdma_hdr_decode(b, len, NULL, &m, &hlen),
			 RPCRDMA_HDR_OK);
	for (n = RPCRDMA_HDR_MIN; n < RPCRDMA_HDR_MIN + 8; n++)
		ck_assert_msg(!peek_call_exact(b, n), "prefix %zu", n);
	ck_assert(rpcrdma_hdr_peek_bc_call(&m, hlen, b, len));
	ck_assert(!rpcrdma_hdr_peek_bc_call(&m, len, b, len));
	ck_assert(!rpcrdma_hdr_peek_bc_call(&m, len - 7, b, len));
	ck_assert(rpcrdma_hdr_peek_bc_call(&m, len - 8, b, len) ==
		  (b[len - 1] == 0 && b[len - 2] == 0 && b[len - 3] == 0 &&
		   b[len - 4] == 0));
	ck_assert(!rpcrdma_hdr_peek_bc_call(&m, len + 1, b, len));
	ck_assert(!rpcrdma_hdr_peek_bc_call(&m, SIZE_MAX, b, len));
	ck_assert(!rpcrdma_hdr_peek_bc_call(&m, SIZE_MAX - 7, b, len));
	ck_assert(!rpcrdma_hdr_peek_bc_call(&m, 0, NULL, 0));
}
END_TEST

/* msg_type other than CALL: a forward reply (REPLY), or junk. The RPC
 * XID is not part of the rule (the glue checks it against rdma_xid). */
START_TEST(test_peek_call_msg_type)
{
	uint32_t w[ARRAY_SIZE(bc_call)];
	const uint32_t types[] = { RPC_REPLY, 2, 0x01000000u, 0xffffffffu };
	uint8_t b[64];
	size_t len;

	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		memcpy(w, bc_call, sizeof(w));
		w[8] = types[i];
		len = words(b, w, ARRAY_SIZE(w));
		ck_assert_msg(!peek_call_exact(b, len), "type %x", types[i]);
	}
	memcpy(w, bc_call, sizeof(w));
	w[7] = ~XID;
	len = words(b, w, ARRAY_SIZE(w));
	ck_assert(peek_call_exact(b, len));
}
END_TEST

/* A chunk list, or RDMA_NOMSG or RDMA_ERROR, is not a backward call,
 * even with a zero (CALL) where msg_type would be after the header. */
START_TEST(test_peek_call_lists)
{
	const uint32_t reads[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				   1, 8, 0xa, 64, 0, 0x1000, 0,
				   0, 0, XID, RPC_CALL };
	const uint32_t writes[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				    1, 1, 0xa, 64, 0, 0x1000, 0,
				    0, XID, RPC_CALL };
	const uint32_t empty_write[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
					 1, 0, 0,
					 0, XID, RPC_CALL };
	const uint32_t reply[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0,
				   1, 1, 0xc, 64, 0, 0x1000,
				   XID, RPC_CALL };
	const uint32_t nomsg[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0,
				   1, 1, 0xc, 64, 0, 0x1000,
				   XID, RPC_CALL };
	const uint32_t pos0[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
				  1, 0, 0xa, 64, 0, 0x1000, 0,
				  0, 0, XID, RPC_CALL };
	const uint32_t err[] = { XID, 1, CREDITS, RPCRDMA_ERROR,
				 RPCRDMA_ERR_CHUNK, 0, 0 };
	const struct {
		const uint32_t *w;
		size_t n;
	} cases[] = {
		{ reads, ARRAY_SIZE(reads) },
		{ writes, ARRAY_SIZE(writes) },
		{ empty_write, ARRAY_SIZE(empty_write) },
		{ reply, ARRAY_SIZE(reply) },
		{ nomsg, ARRAY_SIZE(nomsg) },
		{ pos0, ARRAY_SIZE(pos0) },
		{ err, ARRAY_SIZE(err) },
	};
	uint8_t b[128];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		ck_assert_msg(!peek_call_exact(b, words(b, cases[i].w,
							 cases[i].n)),
			      "case %zu", i);
}
END_TEST

/* The peeks' test cases. */
void chunks_add_peek(Suite *s)
{
	TCase *tc;

	tc = tcase_create("peek_bc_answer");
	tcase_add_test(tc, test_peek_reply);
	tcase_add_test(tc, test_peek_error);
	tcase_add_test(tc, test_peek_short);
	tcase_add_test(tc, test_peek_vers);
	tcase_add_test(tc, test_peek_proc);
	tcase_add_test(tc, test_peek_lists);
	tcase_add_test(tc, test_peek_msg_type);
	tcase_add_test(tc, test_peek_forward_calls);
	suite_add_tcase(s, tc);
	tc = tcase_create("peek_bc_call");
	tcase_add_test(tc, test_peek_call);
	tcase_add_test(tc, test_peek_call_short);
	tcase_add_test(tc, test_peek_call_msg_type);
	tcase_add_test(tc, test_peek_call_lists);
	suite_add_tcase(s, tc);
}
