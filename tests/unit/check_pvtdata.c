/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RFC 8797 Private Data: encode vectors, parse search rules, negotiation.
 *
 * Layout (RFC 8797 section 4): id f6 ab 0e 18, version, flags (R = 0x01),
 * send size, receive size; a size is encoded as size / 1024 - 1
 * (section 4.2).
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/pvtdata.h>

#define ID0 0xf6
#define ID1 0xab
#define ID2 0x0e
#define ID3 0x18

static struct rpcrdma_pvtdata mkpd(bool r, uint32_t send, uint32_t recv)
{
	struct rpcrdma_pvtdata pd = {
		.version = 1,
		.remote_inv = r,
		.send_size = send,
		.recv_size = recv,
	};
	return pd;
}

/* ---- encode ---- */

struct enc_vec {
	bool r;
	uint32_t send, recv;
	uint8_t out[8];
};

/*
 * R set, 4096/4096: 4096 / 1024 - 1 = 3 -> 01 (version) 01 (R) 03 03.
 * R clear, 1024/262144: 1024/1024-1 = 0, 262144/1024-1 = 255 (0xff).
 * R clear, 8192/32768: 8-1 = 7, 32-1 = 31 (0x1f).
 * R set, 262144/1024: ff 00 (send before receive).
 * R set, 65536/2048: 64-1 = 63 (0x3f), 2-1 = 1.
 */
static const struct enc_vec enc_vecs[] = {
	{ true, 4096, 4096, { ID0, ID1, ID2, ID3, 0x01, 0x01, 0x03, 0x03 } },
	{ false, 1024, 262144, { ID0, ID1, ID2, ID3, 0x01, 0x00, 0x00, 0xff } },
	{ false, 8192, 32768, { ID0, ID1, ID2, ID3, 0x01, 0x00, 0x07, 0x1f } },
	{ true, 262144, 1024, { ID0, ID1, ID2, ID3, 0x01, 0x01, 0xff, 0x00 } },
	{ true, 65536, 2048, { ID0, ID1, ID2, ID3, 0x01, 0x01, 0x3f, 0x01 } },
};

START_TEST(test_encode_vectors)
{
	const struct enc_vec *v = &enc_vecs[_i];
	struct rpcrdma_pvtdata pd = mkpd(v->r, v->send, v->recv);
	uint8_t out[8];

	memset(out, 0xaa, sizeof(out));
	ck_assert_int_eq(rpcrdma_pvtdata_encode(&pd, out), 0);
	ck_assert_mem_eq(out, v->out, 8);
}
END_TEST

/* The encoder always writes version 1 and never sets Reserved bits. */
START_TEST(test_encode_version_ignored)
{
	struct rpcrdma_pvtdata pd = mkpd(true, 4096, 4096);
	static const uint8_t want[8] = { ID0, ID1, ID2, ID3, 1, 1, 3, 3 };
	uint8_t out[8];

	pd.version = 0;
	ck_assert_int_eq(rpcrdma_pvtdata_encode(&pd, out), 0);
	ck_assert_mem_eq(out, want, 8);
	pd.version = 7;
	ck_assert_int_eq(rpcrdma_pvtdata_encode(&pd, out), 0);
	ck_assert_mem_eq(out, want, 8);
}
END_TEST

/*
 * Not representable: 0 and 1000 (below 1024), 1025 and 1536 (not a
 * multiple of 1024), 262145 (above), 263168 = 257 * 1024 (would encode
 * as 256, one past an octet), UINT32_MAX.
 */
static const uint32_t bad_sizes[] = {
	0, 1000, 1023, 1025, 1536, 262145, 263168, UINT32_MAX,
};

START_TEST(test_encode_einval)
{
	uint32_t bad = bad_sizes[_i];
	struct rpcrdma_pvtdata pd;
	uint8_t out[8], untouched[8];

	memset(out, 0xaa, sizeof(out));
	memset(untouched, 0xaa, sizeof(untouched));

	pd = mkpd(false, bad, 4096);
	ck_assert_int_eq(rpcrdma_pvtdata_encode(&pd, out), -EINVAL);
	pd = mkpd(false, 4096, bad);
	ck_assert_int_eq(rpcrdma_pvtdata_encode(&pd, out), -EINVAL);
	pd = mkpd(true, bad, bad);
	ck_assert_int_eq(rpcrdma_pvtdata_encode(&pd, out), -EINVAL);
	/* Nothing written on failure. */
	ck_assert_mem_eq(out, untouched, 8);
}
END_TEST

START_TEST(test_encode_null)
{
	struct rpcrdma_pvtdata pd = mkpd(false, 1024, 1024);
	uint8_t out[8];

	ck_assert_int_eq(rpcrdma_pvtdata_encode(NULL, out), -EINVAL);
	ck_assert_int_eq(rpcrdma_pvtdata_encode(&pd, NULL), -EINVAL);
}
END_TEST

/* Every encodable pair survives encode then parse. */
START_TEST(test_roundtrip_all_sizes)
{
	uint32_t k;

	for (k = 0; k < 256; k++) {
		struct rpcrdma_pvtdata in, got;
		uint8_t out[8];

		in = mkpd(k & 1, (k + 1) * 1024, (256 - k) * 1024);
		ck_assert_int_eq(rpcrdma_pvtdata_encode(&in, out), 0);
		ck_assert_uint_eq(out[6], k);
		ck_assert_uint_eq(out[7], 255 - k);
		memset(&got, 0, sizeof(got));
		ck_assert_int_eq(rpcrdma_pvtdata_parse(out, 8, &got), 0);
		ck_assert_uint_eq(got.version, 1);
		ck_assert(got.remote_inv == in.remote_inv);
		ck_assert_uint_eq(got.send_size, in.send_size);
		ck_assert_uint_eq(got.recv_size, in.recv_size);
	}
}
END_TEST

/* ---- parse ---- */

static void expect_pd(const uint8_t *buf, size_t len, bool r, uint32_t send,
		      uint32_t recv)
{
	struct rpcrdma_pvtdata pd;

	memset(&pd, 0x55, sizeof(pd));
	ck_assert_int_eq(rpcrdma_pvtdata_parse(buf, len, &pd), 0);
	ck_assert_uint_eq(pd.version, 1);
	ck_assert(pd.remote_inv == r);
	ck_assert_uint_eq(pd.send_size, send);
	ck_assert_uint_eq(pd.recv_size, recv);
}

/* -ENOENT, and *pd left untouched. */
static void expect_enoent(const void *buf, size_t len)
{
	struct rpcrdma_pvtdata pd, before;

	memset(&pd, 0x55, sizeof(pd));
	before = pd;
	ck_assert_int_eq(rpcrdma_pvtdata_parse(buf, len, &pd), -ENOENT);
	ck_assert_mem_eq(&pd, &before, sizeof(pd));
}

START_TEST(test_parse_offset0)
{
	static const uint8_t b[8] = { ID0, ID1, ID2, ID3, 1, 1, 3, 3 };

	expect_pd(b, sizeof(b), true, 4096, 4096);
}
END_TEST

/* Odd offset 3: no alignment is required (RFC 8797 section 5.2). */
START_TEST(test_parse_odd_offset)
{
	static const uint8_t b[11] = {
		0x01, 0x02, 0x03,
		ID0, ID1, ID2, ID3, 1, 0, 0x07, 0x1f,
	};

	expect_pd(b, sizeof(b), false, 8192, 32768);
}
END_TEST

/* 16 octets of someone else's private data first (e.g. MPAv2). */
START_TEST(test_parse_after_junk)
{
	static const uint8_t b[24] = {
		0x80, 0x00, 0x00, 0x10, 0xde, 0xad, 0xbe, 0xef,
		0xf6, 0xab, 0x0e, 0x17, 0x18, 0xf6, 0xab, 0x00,
		ID0, ID1, ID2, ID3, 1, 1, 0xff, 0x00,
	};

	expect_pd(b, sizeof(b), true, 262144, 1024);
}
END_TEST

/* The message would end one octet past the buffer: not accepted. */
START_TEST(test_parse_truncated)
{
	static const uint8_t b[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0,
		ID0, ID1, ID2, ID3, 1, 1, 3, /* receive size missing */
	};

	expect_enoent(b, sizeof(b));
	/* Only the first 7 octets of a valid message. */
	expect_enoent(b + 9, 7);
	/* The identifier alone, and three octets of it. */
	expect_enoent(b + 9, 4);
	expect_enoent(b + 9, 3);
	/* A valid 8-octet message whose length is given one short. */
	{
		static const uint8_t m[8] = { ID0, ID1, ID2, ID3, 1, 1, 3, 3 };

		expect_enoent(m, 7);
		expect_pd(m, 8, true, 4096, 4096);
	}
}
END_TEST

/* First copy has version 2, the second is good: the second is used. */
START_TEST(test_parse_second_copy_bad_version)
{
	static const uint8_t b[18] = {
		0x00, ID0, ID1, ID2, ID3, 2, 1, 0x0f, 0x0f,
		ID0, ID1, ID2, ID3, 1, 0, 0x01, 0x02, 0x00,
	};

	expect_pd(b, sizeof(b), false, 2048, 3072);
}
END_TEST

/*
 * Overlapping: the first copy is cut short by the second identifier (its
 * "version" octet is 0xf6), the second starting at offset 4 is whole.
 */
START_TEST(test_parse_second_copy_overlap)
{
	static const uint8_t b[12] = {
		ID0, ID1, ID2, ID3,
		ID0, ID1, ID2, ID3, 1, 1, 0x03, 0x07,
	};

	expect_pd(b, sizeof(b), true, 4096, 8192);
}
END_TEST

/* A partial identifier (3 octets) right before a good message. */
START_TEST(test_parse_partial_id_first)
{
	static const uint8_t b[11] = {
		ID0, ID1, ID2,
		ID0, ID1, ID2, ID3, 1, 0, 0, 0,
	};

	expect_pd(b, sizeof(b), false, 1024, 1024);
}
END_TEST

/* Two good copies: the first one found wins. */
START_TEST(test_parse_first_good_wins)
{
	static const uint8_t b[20] = {
		ID0, ID1, ID2, ID3, 1, 1, 0, 1,
		ID0, ID1, ID2, ID3, 1, 0, 2, 3,
		ID0, ID1, ID2, ID3, /* truncated third copy */
	};

	expect_pd(b, sizeof(b), true, 1024, 2048);
}
END_TEST

/* Unknown version: behave as if nothing was sent (section 5.1, 5.2). */
static const uint8_t bad_versions[] = { 0, 2, 3, 0x80, 0xff };

START_TEST(test_parse_unknown_version)
{
	uint8_t b[8] = { ID0, ID1, ID2, ID3, 0, 1, 3, 3 };

	b[4] = bad_versions[_i];
	expect_enoent(b, sizeof(b));
}
END_TEST

/* Reserved bits MUST be ignored by receivers (section 4). */
START_TEST(test_parse_reserved_ignored)
{
	uint8_t b[8] = { ID0, ID1, ID2, ID3, 1, 0xfe, 3, 3 };

	expect_pd(b, sizeof(b), false, 4096, 4096);
	b[5] = 0xff;
	expect_pd(b, sizeof(b), true, 4096, 4096);
	b[5] = 0x80;
	expect_pd(b, sizeof(b), false, 4096, 4096);
}
END_TEST

/* Encoded 0 -> 1024 and 255 -> 262144, both fields (section 4.2). */
START_TEST(test_parse_size_extremes)
{
	uint8_t b[8] = { ID0, ID1, ID2, ID3, 1, 0, 0x00, 0xff };

	expect_pd(b, sizeof(b), false, 1024, 262144);
	b[6] = 0xff;
	b[7] = 0x00;
	expect_pd(b, sizeof(b), false, 262144, 1024);
	b[6] = 0xff;
	b[7] = 0xff;
	expect_pd(b, sizeof(b), false, 262144, 262144);
}
END_TEST

/* A one-bit change anywhere in the identifier: no match. */
START_TEST(test_parse_id_bitflip)
{
	uint8_t b[8] = { ID0, ID1, ID2, ID3, 1, 1, 3, 3 };

	b[_i / 8] ^= (uint8_t)(1u << (_i % 8));
	expect_enoent(b, sizeof(b));
}
END_TEST

START_TEST(test_parse_empty)
{
	static const uint8_t b[8] = { ID0, ID1, ID2, ID3, 1, 1, 3, 3 };

	expect_enoent(NULL, 0);
	expect_enoent(b, 0);
	/* A NULL buffer with a length is refused, not dereferenced. */
	expect_enoent(NULL, 8);
	expect_enoent(NULL, 56);
	ck_assert_int_eq(rpcrdma_pvtdata_parse(b, sizeof(b), NULL), -EINVAL);
}
END_TEST

/*
 * 56 octets is what rdma_connect() can carry on InfiniBand (the 92-octet
 * IB CM REQ private data less the 36-octet RDMA-CM header; a REP carries
 * up to 196). Receivers see such areas zero padded: the message may sit
 * anywhere in it and the rest is zero.
 */
START_TEST(test_parse_zero_padded_56)
{
	static const uint8_t msg[8] = { ID0, ID1, ID2, ID3, 1, 1, 0x0f, 0x1f };
	uint8_t b[56];

	memset(b, 0, sizeof(b));
	expect_enoent(b, sizeof(b));

	memcpy(b, msg, 8);
	expect_pd(b, sizeof(b), true, 16384, 32768);

	/* Last offset where 8 octets fit: 48. */
	memset(b, 0, sizeof(b));
	memcpy(b + 48, msg, 8);
	expect_pd(b, sizeof(b), true, 16384, 32768);

	/* At 49 the receive size falls off the end. */
	memset(b, 0, sizeof(b));
	memcpy(b + 49, msg, 7);
	expect_enoent(b, sizeof(b));
}
END_TEST

/* The search never reads past len: a heap buffer of exactly len octets. */
START_TEST(test_parse_exact_heap)
{
	static const uint8_t msg[8] = { ID0, ID1, ID2, ID3, 1, 0, 1, 1 };
	size_t len;

	for (len = 0; len <= 16; len++) {
		uint8_t *b = malloc(len ? len : 1);
		size_t k;

		ck_assert_ptr_nonnull(b);
		memset(b, 0, len);
		/* Place as much of the message as fits at the end. */
		for (k = 0; k < 8 && k < len; k++)
			b[len - 1 - k] = msg[7 - k];
		if (len >= 8)
			expect_pd(b, len, false, 2048, 2048);
		else
			expect_enoent(b, len);
		free(b);
	}
}
END_TEST

/* ---- negotiate ---- */

struct neg_vec {
	bool l_r;
	uint32_t l_send, l_recv;
	bool has_peer;
	bool p_r;
	uint32_t p_send, p_recv;
	uint32_t send_max, recv_max;
	bool rinv;
};

/*
 * send_max = min(local send, peer receive), recv_max = min(local receive,
 * peer send) (section 4.2); R needs both sides (section 4.1); without
 * peer data 1024 each way and no R (section 5.1). Receiving Send With
 * Invalidate follows our own R only.
 */
static const struct neg_vec neg_vecs[] = {
	/* Both 4096/4096 with R (what Linux sends with FRWR). */
	{ true, 4096, 4096, true, true, 4096, 4096, 4096, 4096, true },
	/* min(4096, 262144) = 4096; min(4096, 1024) = 1024; peer no R. */
	{ true, 4096, 4096, true, false, 1024, 262144, 4096, 1024, false },
	/* min(262144, 16384); min(262144, 8192); R on peer only. */
	{ false, 262144, 262144, true, true, 8192, 16384, 16384, 8192, false },
	/* min(1024, 262144); min(1024, 262144); R on local only. */
	{ true, 1024, 1024, true, false, 262144, 262144, 1024, 1024, false },
	/* Asymmetric: min(65536, 65536); min(4096, 4096). */
	{ true, 65536, 4096, true, true, 4096, 65536, 65536, 4096, true },
	/* Asymmetric the other way: min(4096, 2048); min(65536, 32768). */
	{ false, 4096, 65536, true, false, 32768, 2048, 2048, 32768, false },
	/* No peer data: RFC 8166 section 3.3.3 defaults. */
	{ true, 8192, 32768, false, false, 0, 0, 1024, 1024, false },
	{ false, 262144, 262144, false, false, 0, 0, 1024, 1024, false },
	{ true, 1024, 1024, false, false, 0, 0, 1024, 1024, false },
};

START_TEST(test_negotiate_table)
{
	const struct neg_vec *v = &neg_vecs[_i];
	struct rpcrdma_pvtdata l = mkpd(v->l_r, v->l_send, v->l_recv);
	struct rpcrdma_pvtdata p = mkpd(v->p_r, v->p_send, v->p_recv);
	struct rpcrdma_inline out;

	memset(&out, 0x55, sizeof(out));
	rpcrdma_pvtdata_negotiate(&l, v->has_peer ? &p : NULL, &out);
	ck_assert_uint_eq(out.send_max, v->send_max);
	ck_assert_uint_eq(out.recv_max, v->recv_max);
	ck_assert(out.peer_remote_inv == v->rinv);
	/* What we accept is our own R alone (the Linux server invalidates
	 * with its R clear). */
	ck_assert(out.remote_inv_in == v->l_r);
	ck_assert(out.peer_sent_pvtdata == v->has_peer);
}
END_TEST

/* The two ends of a connection agree: my send_max is the peer's recv_max. */
START_TEST(test_negotiate_symmetric)
{
	struct rpcrdma_pvtdata c = mkpd(true, 4096, 65536);
	struct rpcrdma_pvtdata s = mkpd(true, 32768, 8192);
	struct rpcrdma_inline co, so;

	rpcrdma_pvtdata_negotiate(&c, &s, &co);
	rpcrdma_pvtdata_negotiate(&s, &c, &so);
	/* Client to server: min(4096, 8192); server to client: min(32768,
	 * 65536). */
	ck_assert_uint_eq(co.send_max, 4096);
	ck_assert_uint_eq(so.recv_max, 4096);
	ck_assert_uint_eq(co.recv_max, 32768);
	ck_assert_uint_eq(so.send_max, 32768);
	ck_assert(co.peer_remote_inv && so.peer_remote_inv);
}
END_TEST

/* Wire to negotiation: what the parser returns feeds negotiate. */
START_TEST(test_negotiate_from_wire)
{
	static const uint8_t wire[12] = {
		0, 0, 0, 0,
		ID0, ID1, ID2, ID3, 1, 1, 0x1f, 0x03,
	};
	struct rpcrdma_pvtdata l = mkpd(true, 16384, 16384), p;
	struct rpcrdma_inline out;

	ck_assert_int_eq(rpcrdma_pvtdata_parse(wire, sizeof(wire), &p), 0);
	rpcrdma_pvtdata_negotiate(&l, &p, &out);
	/* Peer: send 32768, receive 4096. */
	ck_assert_uint_eq(out.send_max, 4096);
	ck_assert_uint_eq(out.recv_max, 16384);
	ck_assert(out.peer_remote_inv);
	ck_assert(out.peer_sent_pvtdata);
}
END_TEST

START_TEST(test_negotiate_null)
{
	struct rpcrdma_pvtdata p = mkpd(true, 8192, 8192);
	struct rpcrdma_inline out;

	/* A NULL local is the defaults too: no R, 1024 each way. */
	rpcrdma_pvtdata_negotiate(NULL, &p, &out);
	ck_assert_uint_eq(out.send_max, 1024);
	ck_assert_uint_eq(out.recv_max, 1024);
	ck_assert(!out.peer_remote_inv);
	ck_assert(out.peer_sent_pvtdata);

	rpcrdma_pvtdata_negotiate(NULL, NULL, &out);
	ck_assert_uint_eq(out.send_max, 1024);
	ck_assert_uint_eq(out.recv_max, 1024);
	ck_assert(!out.peer_remote_inv);
	ck_assert(!out.remote_inv_in);
	ck_assert(!out.peer_sent_pvtdata);

	/* NULL out: no crash. */
	rpcrdma_pvtdata_negotiate(&p, &p, NULL);
}
END_TEST

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static Suite *pvtdata_suite(void)
{
	Suite *s = suite_create("pvtdata");
	TCase *tc;

	tc = tcase_create("encode");
	tcase_add_loop_test(tc, test_encode_vectors, 0, NELEM(enc_vecs));
	tcase_add_test(tc, test_encode_version_ignored);
	tcase_add_loop_test(tc, test_encode_einval, 0, NELEM(bad_sizes));
	tcase_add_test(tc, test_encode_null);
	tcase_add_test(tc, test_roundtrip_all_sizes);
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_offset0);
	tcase_add_test(tc, test_parse_odd_offset);
	tcase_add_test(tc, test_parse_after_junk);
	tcase_add_test(tc, test_parse_truncated);
	tcase_add_test(tc, test_parse_second_copy_bad_version);
	tcase_add_test(tc, test_parse_second_copy_overlap);
	tcase_add_test(tc, test_parse_partial_id_first);
	tcase_add_test(tc, test_parse_first_good_wins);
	tcase_add_loop_test(tc, test_parse_unknown_version, 0,
			    NELEM(bad_versions));
	tcase_add_test(tc, test_parse_reserved_ignored);
	tcase_add_test(tc, test_parse_size_extremes);
	tcase_add_loop_test(tc, test_parse_id_bitflip, 0, 32);
	tcase_add_test(tc, test_parse_empty);
	tcase_add_test(tc, test_parse_zero_padded_56);
	tcase_add_test(tc, test_parse_exact_heap);
	suite_add_tcase(s, tc);

	tc = tcase_create("negotiate");
	tcase_add_loop_test(tc, test_negotiate_table, 0, NELEM(neg_vecs));
	tcase_add_test(tc, test_negotiate_symmetric);
	tcase_add_test(tc, test_negotiate_from_wire);
	tcase_add_test(tc, test_negotiate_null);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pvtdata_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
