/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transport header codec tests: hand-derived vectors (vectors.h) for every
 * message type and chunk shape, every decoder error reached by a crafted
 * input, truncation at every offset, limits exceeded by one, and the
 * encoder's -EINVAL / -ENOSPC rules.
 *
 * This file: main, the suite and the "vectors" TCase (the vector table
 * and its size / encode / decode / round-trip / truncation / -ENOSPC
 * checks); the decode_errors TCase is in check_hdr_errors.c, the
 * builders TCase in check_hdr_builders.c, shared helpers in
 * check_hdr_util.c (hdr_util.h).
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/hdr.h>

#include "hdr_util.h"
#include "vectors.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct vector {
	const char *name;
	const uint8_t *bytes;
	size_t len;
	size_t expect_len;	/* derived in vectors.h comments */
	void (*build)(struct rpcrdma_msg *m);
};

static const struct vector vectors[] = {
	{ "msg_empty", vec_msg_empty, sizeof(vec_msg_empty), 28,
	  build_msg_empty },
	{ "msg_read1", vec_msg_read1, sizeof(vec_msg_read1), 52,
	  build_msg_read1 },
	{ "msg_read3", vec_msg_read3, sizeof(vec_msg_read3), 100,
	  build_msg_read3 },
	{ "nomsg_pos0", vec_nomsg_pos0, sizeof(vec_nomsg_pos0), 76,
	  build_nomsg_pos0 },
	{ "msg_write1", vec_msg_write1, sizeof(vec_msg_write1), 52,
	  build_msg_write1 },
	{ "msg_write_multi", vec_msg_write_multi, sizeof(vec_msg_write_multi),
	  84, build_msg_write_multi },
	{ "msg_write2", vec_msg_write2, sizeof(vec_msg_write2), 92,
	  build_msg_write2 },
	{ "msg_reply", vec_msg_reply, sizeof(vec_msg_reply), 48,
	  build_msg_reply },
	{ "nomsg_reply", vec_nomsg_reply, sizeof(vec_nomsg_reply), 64,
	  build_nomsg_reply },
	{ "msg_all", vec_msg_all, sizeof(vec_msg_all), 136, build_msg_all },
	{ "err_vers", vec_err_vers, sizeof(vec_err_vers), 28, build_err_vers },
	{ "err_chunk", vec_err_chunk, sizeof(vec_err_chunk), 20,
	  build_err_chunk },
};
#define NVEC ((int)ARRAY_SIZE(vectors))

/* ---- Vectors: encode, decode, round trips ---- */

START_TEST(test_vec_size)
{
	const struct vector *v = &vectors[_i];
	struct rpcrdma_msg m;

	ck_assert_msg(v->len == v->expect_len, "%s: %zu bytes, derived %zu",
		      v->name, v->len, v->expect_len);
	v->build(&m);
	ck_assert_uint_eq(rpcrdma_hdr_size(&m), v->len);
}
END_TEST

START_TEST(test_vec_encode)
{
	const struct vector *v = &vectors[_i];
	struct rpcrdma_msg m;
	uint8_t *buf = malloc(v->len);
	size_t used = 0;

	ck_assert_ptr_nonnull(buf);
	v->build(&m);
	ck_assert_int_eq(rpcrdma_hdr_encode(&m, buf, v->len, &used), 0);
	ck_assert_uint_eq(used, v->len);
	ck_assert_msg(memcmp(buf, v->bytes, v->len) == 0, "%s differs",
		      v->name);
	free(buf);
}
END_TEST

START_TEST(test_vec_decode)
{
	const struct vector *v = &vectors[_i];
	struct rpcrdma_msg want, got;
	size_t hdr_len = 0;

	v->build(&want);
	memset(&got, 0xa5, sizeof(got));
	ck_assert_int_eq(decode_exact(v->bytes, v->len, NULL, &got, &hdr_len),
			 RPCRDMA_HDR_OK);
	ck_assert_uint_eq(hdr_len, v->len);
	msg_eq(&got, &want);
}
END_TEST

/* Bytes after the header are the inline RPC message: not consumed. */
START_TEST(test_vec_decode_trailing)
{
	const struct vector *v = &vectors[_i];
	struct rpcrdma_limits lim;
	struct rpcrdma_msg want, got;
	uint8_t buf[256];
	size_t hdr_len = 0;

	rpcrdma_limits_default(&lim);
	v->build(&want);
	memcpy(buf, v->bytes, v->len);
	memset(buf + v->len, 0x01, 40);	/* TRUE-looking words */
	ck_assert_int_eq(decode_exact(buf, v->len + 40, &lim, &got, &hdr_len),
			 RPCRDMA_HDR_OK);
	ck_assert_uint_eq(hdr_len, v->len);
	msg_eq(&got, &want);
}
END_TEST

START_TEST(test_vec_roundtrip)
{
	const struct vector *v = &vectors[_i];
	struct rpcrdma_msg built, dec, dec2;
	uint8_t buf[256];
	size_t used = 0, hdr_len = 0;

	/* wire -> host -> wire */
	ck_assert_int_eq(decode_exact(v->bytes, v->len, NULL, &dec, &hdr_len),
			 RPCRDMA_HDR_OK);
	ck_assert_int_eq(rpcrdma_hdr_encode(&dec, buf, sizeof(buf), &used), 0);
	ck_assert_uint_eq(used, v->len);
	ck_assert(memcmp(buf, v->bytes, v->len) == 0);

	/* host -> wire -> host */
	v->build(&built);
	ck_assert_int_eq(rpcrdma_hdr_encode(&built, buf, sizeof(buf), &used),
			 0);
	ck_assert_int_eq(decode_exact(buf, used, NULL, &dec2, &hdr_len),
			 RPCRDMA_HDR_OK);
	ck_assert_uint_eq(hdr_len, used);
	msg_eq(&dec2, &built);
}
END_TEST

/* Explicit field expectations for the richest vector (see vectors.h #10). */
START_TEST(test_vec_all_fields)
{
	struct rpcrdma_msg m;
	size_t hdr_len;

	ck_assert_int_eq(decode_exact(vec_msg_all, sizeof(vec_msg_all), NULL,
				      &m, &hdr_len), RPCRDMA_HDR_OK);
	ck_assert_uint_eq(hdr_len, 136);
	ck_assert_uint_eq(m.xid, 0xdeadbe0a);
	ck_assert_uint_eq(m.vers, 1);
	ck_assert_uint_eq(m.credits, 128);
	ck_assert_uint_eq(m.proc, RPCRDMA_MSG);
	ck_assert_uint_eq(m.nreads, 2);
	ck_assert_uint_eq(m.reads[0].position, 40);
	ck_assert_uint_eq(m.reads[0].seg.handle, 0xa1a2a3a4);
	ck_assert_uint_eq(m.reads[0].seg.length, 256);
	ck_assert_uint_eq(m.reads[0].seg.offset, 0x0102030405060708ull);
	ck_assert_uint_eq(m.reads[1].position, 72);
	ck_assert_uint_eq(m.reads[1].seg.handle, 0xb1b2b3b4);
	ck_assert_uint_eq(m.nwrites, 1);
	ck_assert_uint_eq(m.writes[0].nsegs, 2);
	ck_assert_uint_eq(m.segs[m.writes[0].first].handle, 0xc1c2c3c4);
	ck_assert_uint_eq(m.segs[m.writes[0].first].length, 65536);
	ck_assert_uint_eq(m.segs[m.writes[0].first + 1].offset,
			  0x00000000fffffffcull);
	ck_assert(m.has_reply);
	ck_assert_uint_eq(m.reply.nsegs, 1);
	ck_assert_uint_eq(m.segs[m.reply.first].handle, 0xb1b2b3b4);
	ck_assert_uint_eq(m.nsegs, 3);
	ck_assert_uint_eq(rpcrdma_chunk_length(&m, &m.writes[0]), 65540);
	ck_assert_uint_eq(rpcrdma_chunk_length(&m, &m.reply), 4096);

	ck_assert_int_eq(decode_exact(vec_err_vers, sizeof(vec_err_vers), NULL,
				      &m, &hdr_len), RPCRDMA_HDR_OK);
	ck_assert_uint_eq(m.proc, RPCRDMA_ERROR);
	ck_assert_uint_eq(m.err, RPCRDMA_ERR_VERS);
	ck_assert_uint_eq(m.vers_low, 1);
	ck_assert_uint_eq(m.vers_high, 1);
	ck_assert_int_eq(decode_exact(vec_err_chunk, sizeof(vec_err_chunk),
				      NULL, &m, &hdr_len), RPCRDMA_HDR_OK);
	ck_assert_uint_eq(hdr_len, 20);
	ck_assert_uint_eq(m.err, RPCRDMA_ERR_CHUNK);
}
END_TEST

/* Every proper prefix of a valid header is short or truncated. */
START_TEST(test_vec_truncated)
{
	const struct vector *v = &vectors[_i];
	struct rpcrdma_msg m;
	size_t n, hdr_len;

	for (n = 0; n < v->len; n++) {
		enum rpcrdma_hdr_err ret;

		hdr_len = 12345;
		ret = decode_exact(v->bytes, n, NULL, &m, &hdr_len);
		ck_assert_msg(ret == (n < 16 ? RPCRDMA_HDR_ESHORT :
					       RPCRDMA_HDR_ETRUNC),
			      "%s cut at %zu: %s", v->name, n,
			      rpcrdma_hdr_strerror(ret));
		ck_assert_uint_eq(hdr_len, 12345);
		if (n >= 16) {
			ck_assert_uint_eq(m.xid, XID((uint32_t)_i + 1));
			ck_assert_uint_eq(m.vers, 1);
			ck_assert_uint_eq(m.credits, CREDITS);
		}
	}
}
END_TEST

/* Every short buffer: -ENOSPC and not a byte written. */
START_TEST(test_vec_enospc)
{
	const struct vector *v = &vectors[_i];
	struct rpcrdma_msg m;
	size_t n, i, used;

	v->build(&m);
	for (n = 0; n < v->len; n++) {
		uint8_t *buf = malloc(n ? n : 1);

		ck_assert_ptr_nonnull(buf);
		memset(buf, 0x5a, n ? n : 1);
		used = 777;
		ck_assert_int_eq(rpcrdma_hdr_encode(&m, n ? buf : NULL, n,
						    &used), -ENOSPC);
		ck_assert_uint_eq(used, 777);
		for (i = 0; i < n; i++)
			ck_assert_uint_eq(buf[i], 0x5a);
		free(buf);
	}
}
END_TEST

static Suite *hdr_suite(void)
{
	Suite *s = suite_create("hdr");
	TCase *tc;

	tc = tcase_create("vectors");
	tcase_add_loop_test(tc, test_vec_size, 0, NVEC);
	tcase_add_loop_test(tc, test_vec_encode, 0, NVEC);
	tcase_add_loop_test(tc, test_vec_decode, 0, NVEC);
	tcase_add_loop_test(tc, test_vec_decode_trailing, 0, NVEC);
	tcase_add_loop_test(tc, test_vec_roundtrip, 0, NVEC);
	tcase_add_loop_test(tc, test_vec_truncated, 0, NVEC);
	tcase_add_loop_test(tc, test_vec_enospc, 0, NVEC);
	tcase_add_test(tc, test_vec_all_fields);
	suite_add_tcase(s, tc);

	tc = hdr_tc_decode_errors();
	suite_add_tcase(s, tc);

	tc = hdr_tc_builders();
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(hdr_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
