/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_recv: the responder's decision on one received message
 * (rpcrdma_rsp_recv, lib/recv.c): dropped, answered RDMA_ERROR (ERR_VERS
 * or ERR_CHUNK), an RDMA_ERROR received, dispatched inline, answered
 * GARBAGE_ARGS, or its chunks read, with max_msg's bounds exactly and
 * one past, sums past 2^32, positions past the inline part, overlaps.
 */
#include "recv_util.h"

#define MAXM	(1u << 20)	/* max_msg of most cases */
#define BODY2	0x01020304u, RPC_CALL	/* 8 bytes of RPC call */

/* The decision on buf[0..len), an exact heap copy, and what holds of
 * every decision: an inline part is the bytes after the header, a read
 * total is within 1..max_msg. */
static enum rpcrdma_rsp_action rsp_bytes(const uint8_t *b, size_t len,
					 const struct rpcrdma_limits *lim,
					 uint32_t max_msg, bool can_read,
					 struct rpcrdma_rsp_verdict *v)
{
	static struct rpcrdma_msg m;
	uint8_t *p = exact(b, len);
	enum rpcrdma_rsp_action a;

	a = rpcrdma_rsp_recv(p, len, lim, max_msg, can_read, &m, v);
	free(p);
	ck_assert_int_eq(a, v->action);
	switch (a) {
	case RPCRDMA_RSP_INLINE:
	case RPCRDMA_RSP_GARBAGE:
		ck_assert_uint_eq(v->off, v->hlen);
		ck_assert_uint_eq(v->off + v->len, len);
		break;
	case RPCRDMA_RSP_READ:
		ck_assert_uint_gt(v->read_total, 0);
		ck_assert_uint_le(v->read_total, max_msg);
		ck_assert_uint_le(v->splice_len, max_msg);
		ck_assert_uint_eq(m.nreads > 0, 1);
		break;
	case RPCRDMA_RSP_DROP:
	case RPCRDMA_RSP_ANSWER:
		ck_assert_uint_eq(v->herr != RPCRDMA_HDR_OK ||
					  a == RPCRDMA_RSP_ANSWER,
				  1);
		break;
	default:
		break;
	}
	return a;
}

static enum rpcrdma_rsp_action rsp_lim(const uint32_t *w, size_t nw,
				       const struct rpcrdma_limits *lim,
				       uint32_t max_msg, bool can_read,
				       struct rpcrdma_rsp_verdict *v)
{
	uint8_t b[1024];

	return rsp_bytes(b, words(b, w, nw), lim, max_msg, can_read, v);
}

static enum rpcrdma_rsp_action rsp(const uint32_t *w, size_t nw,
				   struct rpcrdma_rsp_verdict *v)
{
	return rsp_lim(w, nw, NULL, MAXM, true, v);
}

/* An answer of code err to a header the decoder refused for why. */
static void answered(const uint32_t *w, size_t nw, enum rpcrdma_hdr_err why,
		     enum rpcrdma_errcode err)
{
	struct rpcrdma_rsp_verdict v;

	ck_assert_int_eq(rsp(w, nw, &v), RPCRDMA_RSP_ANSWER);
	ck_assert_int_eq(v.herr, why);
	ck_assert_int_eq(v.err, err);
}

/* Shorter than the smallest call (28 bytes): dropped, whatever it says;
 * from 28 bytes on a bad header is answered. */
START_TEST(test_rsp_short)
{
	const uint32_t msg[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0 };
	const uint32_t bad[] = { XID, 1, CREDITS, RPCRDMA_MSG, 2, 0, 0 };
	const uint32_t v2[] = { XID, 2, CREDITS, RPCRDMA_MSG, 0 };
	struct rpcrdma_rsp_verdict v;
	uint8_t b[64];

	words(b, msg, ARRAY_SIZE(msg));
	ck_assert_int_eq(rsp_bytes(b, 0, NULL, MAXM, true, &v),
			 RPCRDMA_RSP_DROP);
	ck_assert_int_eq(v.herr, RPCRDMA_HDR_ESHORT);
	ck_assert_int_eq(rsp_bytes(b, RPCRDMA_HDR_MIN - 1, NULL, MAXM, true,
				   &v),
			 RPCRDMA_RSP_DROP);
	ck_assert_int_eq(v.herr, RPCRDMA_HDR_ETRUNC);
	ck_assert_int_eq(rsp_bytes(b, RPCRDMA_HDR_FIXED, NULL, MAXM, true,
				   &v),
			 RPCRDMA_RSP_DROP);
	/* A version-2 header of 20 bytes: too short to be answered. */
	ck_assert_int_eq(rsp(v2, ARRAY_SIZE(v2), &v), RPCRDMA_RSP_DROP);
	ck_assert_int_eq(v.herr, RPCRDMA_HDR_EVERS);
	/* Exactly 28 bytes, a bad list discriminator: answered. */
	answered(bad, ARRAY_SIZE(bad), RPCRDMA_HDR_EBOOL, RPCRDMA_ERR_CHUNK);
	ck_assert_int_eq(rsp(msg, ARRAY_SIZE(msg), &v), RPCRDMA_RSP_INLINE);
	ck_assert_uint_eq(v.len, 0);
}
END_TEST

/* RFC 8166 section 4.3: another version gets ERR_VERS. */
START_TEST(test_rsp_vers)
{
	const uint32_t v2[] = { XID, 2, CREDITS, RPCRDMA_MSG, 0, 0, 0 };
	const uint32_t v0[] = { XID, 0, CREDITS, RPCRDMA_NOMSG, 0, 0, 0, 9 };

	answered(v2, ARRAY_SIZE(v2), RPCRDMA_HDR_EVERS, RPCRDMA_ERR_VERS);
	answered(v0, ARRAY_SIZE(v0), RPCRDMA_HDR_EVERS, RPCRDMA_ERR_VERS);
}
END_TEST

/* Every other refusal of the decoder gets ERR_CHUNK (section 4.5). */
START_TEST(test_rsp_err_chunk)
{
	static const struct {
		uint32_t w[24];
		size_t n;
		enum rpcrdma_hdr_err why;
	} cases[] = {
		{ { XID, 1, CREDITS, RPCRDMA_MSGP, 0, 0, 0 }, 7,
		  RPCRDMA_HDR_EMSGP },
		{ { XID, 1, CREDITS, RPCRDMA_DONE, 0, 0, 0 }, 7,
		  RPCRDMA_HDR_EDONE },
		{ { XID, 1, CREDITS, 7, 0, 0, 0 }, 7, RPCRDMA_HDR_EPROC },
		/* A write chunk of more segments than allowed, a reply
		 * chunk of none. */
		{ { XID, 1, CREDITS, RPCRDMA_MSG, 0, 1, 17, 0, 0 }, 9,
		  RPCRDMA_HDR_ESEGS },
		{ { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 1, 0 }, 8,
		  RPCRDMA_HDR_EEMPTY },
		{ { XID, 1, CREDITS, RPCRDMA_MSG, 1, 0, SEGW(1, 8, 0), 0, 0,
		    0 }, 13, RPCRDMA_HDR_EPOSZERO },
		{ { XID, 1, CREDITS, RPCRDMA_MSG, 1, 6, SEGW(1, 8, 0), 0, 0,
		    0, BODY2 }, 15, RPCRDMA_HDR_EPOSALIGN },
		{ { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0, 0 }, 7,
		  RPCRDMA_HDR_ENOMSG },
		/* The reply chunk's last word missing. */
		{ { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 1, 1, SEGW(1, 8, 0) },
		  11, RPCRDMA_HDR_ETRUNC },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		answered(cases[i].w, cases[i].n, cases[i].why,
			 RPCRDMA_ERR_CHUNK);
}
END_TEST

/* A well-formed RDMA_ERROR is counted, never answered. */
START_TEST(test_rsp_error_in)
{
	const uint32_t chunk[] = { XID, 1, CREDITS, RPCRDMA_ERROR,
				   RPCRDMA_ERR_CHUNK };
	const uint32_t vers[] = { XID, 1, CREDITS, RPCRDMA_ERROR,
				  RPCRDMA_ERR_VERS, 1, 1 };
	struct rpcrdma_rsp_verdict v;

	ck_assert_int_eq(rsp(chunk, ARRAY_SIZE(chunk), &v),
			 RPCRDMA_RSP_ERROR_IN);
	ck_assert_int_eq(v.herr, RPCRDMA_HDR_OK);
	ck_assert_int_eq(rsp(vers, ARRAY_SIZE(vers), &v),
			 RPCRDMA_RSP_ERROR_IN);
}
END_TEST

/* A malformed RDMA_ERROR, of any version and 28 bytes or more, is
 * dropped: an answer could ping-pong between two peers. */
START_TEST(test_rsp_error_unanswered)
{
	const uint32_t code[] = { XID, 1, CREDITS, RPCRDMA_ERROR, 3, 0, 0 };
	const uint32_t v2[] = { XID, 2, CREDITS, RPCRDMA_ERROR,
				RPCRDMA_ERR_VERS, 1, 1 };
	const uint32_t cut[] = { XID, 1, CREDITS, RPCRDMA_ERROR,
				 RPCRDMA_ERR_VERS, 1 };
	struct rpcrdma_rsp_verdict v;

	ck_assert_int_eq(rsp(code, ARRAY_SIZE(code), &v), RPCRDMA_RSP_DROP);
	ck_assert_int_eq(v.herr, RPCRDMA_HDR_EERRCODE);
	ck_assert_int_eq(rsp(v2, ARRAY_SIZE(v2), &v), RPCRDMA_RSP_DROP);
	ck_assert_int_eq(v.herr, RPCRDMA_HDR_EVERS);
	ck_assert_int_eq(rsp(cut, ARRAY_SIZE(cut), &v), RPCRDMA_RSP_DROP);
}
END_TEST

/* RDMA_MSG without read chunks: the bytes after the header, whatever
 * write and reply chunks it offers, an empty write chunk included. */
START_TEST(test_rsp_inline)
{
	const uint32_t plain[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0,
				   BODY2 };
	const uint32_t offers[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0,
				    1, 1, SEGW(0xa1, 4096, 0x1000), 0,
				    1, 1, SEGW(0xc1, 4096, 0x9000),
				    BODY2, 7 };
	/* A write chunk of no segment is a call's (the Linux server
	 * takes it too, lib/hdr.c). */
	const uint32_t empty[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 1, 0, 0, 0,
				   BODY2 };
	struct rpcrdma_rsp_verdict v;

	ck_assert_int_eq(rsp(empty, ARRAY_SIZE(empty), &v),
			 RPCRDMA_RSP_INLINE);
	ck_assert_uint_eq(v.off, 36);
	ck_assert_int_eq(rsp(plain, ARRAY_SIZE(plain), &v),
			 RPCRDMA_RSP_INLINE);
	ck_assert_uint_eq(v.off, RPCRDMA_HDR_MIN);
	ck_assert_uint_eq(v.len, 8);
	ck_assert_int_eq(rsp(offers, ARRAY_SIZE(offers), &v),
			 RPCRDMA_RSP_INLINE);
	ck_assert_uint_eq(v.hlen, 72);
	ck_assert_uint_eq(v.off, 72);
	ck_assert_uint_eq(v.len, 12);
}
END_TEST

/* RDMA_NOMSG with no position-zero read chunk carries no call. */
START_TEST(test_rsp_nomsg_no_call)
{
	const uint32_t reply_only[] = { XID, 1, CREDITS, RPCRDMA_NOMSG, 0, 0,
					1, 1, SEGW(0xc1, 4096, 0x9000) };
	const uint32_t pos8[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
				  1, 8, SEGW(0xa, 64, 0x100), 0, 0,
				  1, 1, SEGW(0xc1, 4096, 0x9000) };
	struct rpcrdma_rsp_verdict v;

	ck_assert_int_eq(rsp(reply_only, ARRAY_SIZE(reply_only), &v),
			 RPCRDMA_RSP_ANSWER);
	ck_assert_int_eq(v.herr, RPCRDMA_HDR_OK);
	ck_assert_int_eq(v.err, RPCRDMA_ERR_CHUNK);
	ck_assert_int_eq(rsp(pos8, ARRAY_SIZE(pos8), &v), RPCRDMA_RSP_ANSWER);
	ck_assert_int_eq(v.herr, RPCRDMA_HDR_OK);
	ck_assert_int_eq(v.err, RPCRDMA_ERR_CHUNK);
}
END_TEST

/* Read chunks to read: the sum of the read segments' lengths. */
START_TEST(test_rsp_read)
{
	const uint32_t msg[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				 1, 4, SEGW(0xa, 100, 0x100), 0, 0, 0,
				 BODY2 };
	const uint32_t nomsg[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
				   1, 0, SEGW(0xa, 100, 0x100),
				   1, 0, SEGW(0xb, 200, 0x200), 0,
				   1, 1, SEGW(0xa1, 4096, 0x1000), 0, 0 };
	struct rpcrdma_rsp_verdict v;

	ck_assert_int_eq(rsp(msg, ARRAY_SIZE(msg), &v), RPCRDMA_RSP_READ);
	ck_assert_uint_eq(v.hlen, 52);
	ck_assert_uint_eq(v.read_total, 100);
	/* 4 inline bytes, the chunk, the other 4: what the server sizes
	 * (and counts against conn_mem_max) before its Reads. */
	ck_assert_uint_eq(v.splice_len, 108);
	ck_assert_int_eq(rsp(nomsg, ARRAY_SIZE(nomsg), &v), RPCRDMA_RSP_READ);
	ck_assert_uint_eq(v.read_total, 300);
	ck_assert_uint_eq(v.splice_len, 0);	/* a Long Call: read whole */
}
END_TEST

/* What is read: exactly max_msg is read, one byte more is ERR_CHUNK;
 * nothing to read is ERR_CHUNK too. */
START_TEST(test_rsp_read_max_msg)
{
	uint32_t one[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
			   1, 0, SEGW(0xa, MAXM, 0x100), 0, 0, 0 };
	uint32_t two[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
			   1, 0, SEGW(0xa, MAXM - 4, 0x100),
			   1, 0, SEGW(0xa, 4, 0x200), 0, 0, 0 };
	const uint32_t zero[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				  1, 4, SEGW(0xa, 0, 0x100), 0, 0, 0, BODY2 };
	struct rpcrdma_rsp_verdict v;

	ck_assert_int_eq(rsp(one, ARRAY_SIZE(one), &v), RPCRDMA_RSP_READ);
	ck_assert_uint_eq(v.read_total, MAXM);
	one[7] = MAXM + 1;
	ck_assert_int_eq(rsp(one, ARRAY_SIZE(one), &v), RPCRDMA_RSP_ANSWER);
	ck_assert_int_eq(v.err, RPCRDMA_ERR_CHUNK);
	ck_assert_int_eq(rsp(two, ARRAY_SIZE(two), &v), RPCRDMA_RSP_READ);
	ck_assert_uint_eq(v.read_total, MAXM);
	two[13] = 5;
	ck_assert_int_eq(rsp(two, ARRAY_SIZE(two), &v), RPCRDMA_RSP_ANSWER);
	ck_assert_int_eq(rsp(zero, ARRAY_SIZE(zero), &v), RPCRDMA_RSP_ANSWER);
	ck_assert_int_eq(v.err, RPCRDMA_ERR_CHUNK);
}
END_TEST

/* The call rebuilt (inline part, chunks and their round-up): exactly
 * max_msg is read, one XDR unit more is ERR_CHUNK though fewer bytes
 * than max_msg are read. */
START_TEST(test_rsp_rebuilt_max_msg)
{
	uint32_t w[] = { XID, 1, CREDITS, RPCRDMA_MSG,
			 1, 4, SEGW(0xa, MAXM - 8, 0x100), 0, 0, 0, BODY2 };
	struct rpcrdma_rsp_verdict v;

	ck_assert_int_eq(rsp(w, ARRAY_SIZE(w), &v), RPCRDMA_RSP_READ);
	ck_assert_uint_eq(v.read_total, MAXM - 8);
	ck_assert_uint_eq(v.splice_len, MAXM);
	w[7] = MAXM - 7;	/* rounds up to MAXM - 4, plus 8 inline */
	ck_assert_int_eq(rsp(w, ARRAY_SIZE(w), &v), RPCRDMA_RSP_ANSWER);
	ck_assert_int_eq(v.err, RPCRDMA_ERR_CHUNK);
}
END_TEST

/* A client that accepts no RDMA Read cannot send chunks: ERR_CHUNK for
 * any, GARBAGE's shape included; inline calls go on. */
START_TEST(test_rsp_no_read)
{
	const uint32_t msg[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				 1, 4, SEGW(0xa, 100, 0x100), 0, 0, 0,
				 BODY2 };
	const uint32_t past[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				  1, 12, SEGW(0xa, 100, 0x100), 0, 0, 0,
				  BODY2 };
	const uint32_t plain[] = { XID, 1, CREDITS, RPCRDMA_MSG, 0, 0, 0,
				   BODY2 };
	struct rpcrdma_rsp_verdict v;

	ck_assert_int_eq(rsp_lim(msg, ARRAY_SIZE(msg), NULL, MAXM, false, &v),
			 RPCRDMA_RSP_ANSWER);
	ck_assert_int_eq(v.err, RPCRDMA_ERR_CHUNK);
	ck_assert_int_eq(rsp_lim(past, ARRAY_SIZE(past), NULL, MAXM, false,
				 &v),
			 RPCRDMA_RSP_ANSWER);
	ck_assert_int_eq(rsp_lim(plain, ARRAY_SIZE(plain), NULL, MAXM, false,
				 &v),
			 RPCRDMA_RSP_INLINE);
}
END_TEST

/* RFC 8166 section 4.5.2: a chunk placed past the inline part of an
 * RDMA_MSG is GARBAGE_ARGS (the inline part parsed, nothing read); at
 * its very end it is a call. */
START_TEST(test_rsp_garbage_past)
{
	uint32_t w[] = { XID, 1, CREDITS, RPCRDMA_MSG,
			 1, 8, SEGW(0xa, 100, 0x100), 0, 0, 0, BODY2 };
	struct rpcrdma_rsp_verdict v;

	ck_assert_int_eq(rsp(w, ARRAY_SIZE(w), &v), RPCRDMA_RSP_READ);
	w[5] = 12;
	ck_assert_int_eq(rsp(w, ARRAY_SIZE(w), &v), RPCRDMA_RSP_GARBAGE);
	ck_assert_uint_eq(v.off, 52);
	ck_assert_uint_eq(v.len, 8);
	ck_assert_int_eq(v.herr, RPCRDMA_HDR_OK);
	w[5] = 0x7ffffff8;
	ck_assert_int_eq(rsp(w, ARRAY_SIZE(w), &v), RPCRDMA_RSP_GARBAGE);
}
END_TEST

/* Chunks that overlap (a position inside the previous chunk or its
 * round-up) do not splice: GARBAGE for RDMA_MSG; ERR_CHUNK for an
 * RDMA_NOMSG, which has no inline part to answer from. */
START_TEST(test_rsp_garbage_overlap)
{
	uint32_t w[] = { XID, 1, CREDITS, RPCRDMA_MSG,
			 1, 4, SEGW(0xa, 8, 0x100),
			 1, 8, SEGW(0xb, 4, 0x200), 0, 0, 0, BODY2 };
	uint32_t nomsg[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
			     1, 0, SEGW(0xa, 16, 0x100),
			     1, 20, SEGW(0xb, 4, 0x200), 0, 0, 0 };
	struct rpcrdma_rsp_verdict v;

	ck_assert_int_eq(rsp(w, ARRAY_SIZE(w), &v), RPCRDMA_RSP_GARBAGE);
	w[11] = 12;		/* right after the first: fits */
	ck_assert_int_eq(rsp(w, ARRAY_SIZE(w), &v), RPCRDMA_RSP_READ);
	ck_assert_uint_eq(v.read_total, 12);
	w[7] = 9;		/* its round-up reaches 16: overlap */
	ck_assert_int_eq(rsp(w, ARRAY_SIZE(w), &v), RPCRDMA_RSP_GARBAGE);
	ck_assert_int_eq(rsp(nomsg, ARRAY_SIZE(nomsg), &v),
			 RPCRDMA_RSP_ANSWER);
	ck_assert_int_eq(v.err, RPCRDMA_ERR_CHUNK);
	nomsg[11] = 16;		/* at the end of the message: fits */
	ck_assert_int_eq(rsp(nomsg, ARRAY_SIZE(nomsg), &v), RPCRDMA_RSP_READ);
	ck_assert_uint_eq(v.read_total, 20);
}
END_TEST

/* Sums past 2^32 (the decoder's byte bound lifted): never wrapped into
 * a small read. */
START_TEST(test_rsp_sum_2_32)
{
	const uint32_t wrap0[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
				   1, 0, SEGW(0xa, 0x80000000u, 0x100),
				   1, 0, SEGW(0xa, 0x80000000u, 0x200),
				   0, 0, 0 };
	const uint32_t wrap4[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
				   1, 0, SEGW(0xa, 0xffffffffu, 0x100),
				   1, 0, SEGW(0xa, 5, 0x200), 0, 0, 0 };
	const uint32_t rebuilt[] = { XID, 1, CREDITS, RPCRDMA_MSG,
				     1, 4, SEGW(0xa, 0xfffffffcu, 0x100),
				     0, 0, 0, BODY2 };
	const uint32_t whole[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
				   1, 0, SEGW(0xa, 0xffffffffu, 0x100),
				   0, 0, 0 };
	struct rpcrdma_limits lim;
	struct rpcrdma_rsp_verdict v;

	rpcrdma_limits_default(&lim);
	lim.max_chunk_bytes = UINT64_MAX;
	ck_assert_int_eq(rsp_lim(wrap0, ARRAY_SIZE(wrap0), &lim, UINT32_MAX,
				 true, &v),
			 RPCRDMA_RSP_ANSWER);
	ck_assert_int_eq(v.err, RPCRDMA_ERR_CHUNK);
	ck_assert_int_eq(rsp_lim(wrap4, ARRAY_SIZE(wrap4), &lim, UINT32_MAX,
				 true, &v),
			 RPCRDMA_RSP_ANSWER);
	/* 2^32 - 4 read, 2^32 + 4 rebuilt. */
	ck_assert_int_eq(rsp_lim(rebuilt, ARRAY_SIZE(rebuilt), &lim,
				 UINT32_MAX, true, &v),
			 RPCRDMA_RSP_ANSWER);
	ck_assert_int_eq(rsp_lim(whole, ARRAY_SIZE(whole), &lim, UINT32_MAX,
				 true, &v),
			 RPCRDMA_RSP_READ);
	ck_assert_uint_eq(v.read_total, 0xffffffffu);
	/* Under the default limits the decoder refuses the sum first. */
	answered(wrap0, ARRAY_SIZE(wrap0), RPCRDMA_HDR_ECHUNKLEN,
		 RPCRDMA_ERR_CHUNK);
}
END_TEST

/* Sizing without a buffer (rd NULL) gives what a buffer gives. */
START_TEST(test_rsp_pieces_sizing)
{
	const uint32_t c[] = { XID, 1, CREDITS, RPCRDMA_NOMSG,
			       1, 0, SEGW(0xa, 1024, 0x100),
			       1, 512, SEGW(0xa, 300, 0x200), 0, 0, 0 };
	struct rpcrdma_piece p[RPCRDMA_MAX_READ_SEGS];
	static uint8_t rd[2048];
	struct rpcrdma_msg m;
	const uint8_t *inl;
	size_t inl_len, need;
	uint32_t np;

	decode_ok(c, ARRAY_SIZE(c), &m);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&m, NULL, 0, NULL, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_ptr_nonnull(inl);
	ck_assert_ptr_nonnull(p[0].data);
	need = rpcrdma_splice_len(inl_len, p, np);
	ck_assert_int_eq(rpcrdma_call_read_pieces(&m, NULL, 0, rd, p, &np,
						  &inl, &inl_len),
			 0);
	ck_assert_uint_eq(need, rpcrdma_splice_len(inl_len, p, np));
	ck_assert_uint_eq(need, 1024 + 300 + 0);
}
END_TEST

void recv_add_rsp(Suite *s)
{
	TCase *tc = tcase_create("rsp_recv");

	tcase_add_test(tc, test_rsp_short);
	tcase_add_test(tc, test_rsp_vers);
	tcase_add_test(tc, test_rsp_err_chunk);
	tcase_add_test(tc, test_rsp_error_in);
	tcase_add_test(tc, test_rsp_error_unanswered);
	tcase_add_test(tc, test_rsp_inline);
	tcase_add_test(tc, test_rsp_nomsg_no_call);
	tcase_add_test(tc, test_rsp_read);
	tcase_add_test(tc, test_rsp_read_max_msg);
	tcase_add_test(tc, test_rsp_rebuilt_max_msg);
	tcase_add_test(tc, test_rsp_no_read);
	tcase_add_test(tc, test_rsp_garbage_past);
	tcase_add_test(tc, test_rsp_garbage_overlap);
	tcase_add_test(tc, test_rsp_sum_2_32);
	tcase_add_test(tc, test_rsp_pieces_sizing);
	suite_add_tcase(s, tc);
}
