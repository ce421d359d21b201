/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_hdr's "builders" TCase: rpcrdma_msg_init and _init_error, the
 * read / write / reply builders' -EINVAL and -ENOSPC rules, the segment
 * pool, rpcrdma_chunk_length's bounds, rpcrdma_hdr_size_for, and the
 * encoder's -EINVAL for every header the decoder would reject.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/hdr.h>

#include "hdr_util.h"

/* ---- Builders ---- */

START_TEST(test_build_init)
{
	struct rpcrdma_msg m;

	memset(&m, 0xff, sizeof(m));
	rpcrdma_msg_init(&m, 7, 9, RPCRDMA_NOMSG);
	ck_assert_uint_eq(m.xid, 7);
	ck_assert_uint_eq(m.vers, 1);
	ck_assert_uint_eq(m.credits, 9);
	ck_assert_uint_eq(m.proc, RPCRDMA_NOMSG);
	ck_assert_uint_eq(m.nreads, 0);
	ck_assert_uint_eq(m.nwrites, 0);
	ck_assert_uint_eq(m.nsegs, 0);
	ck_assert(!m.has_reply);

	memset(&m, 0xff, sizeof(m));
	rpcrdma_msg_init_error(&m, 7, 9, RPCRDMA_ERR_VERS);
	ck_assert_uint_eq(m.proc, RPCRDMA_ERROR);
	ck_assert_uint_eq(m.err, RPCRDMA_ERR_VERS);
	ck_assert_uint_eq(m.vers_low, 1);
	ck_assert_uint_eq(m.vers_high, 1);
	rpcrdma_msg_init_error(&m, 7, 9, RPCRDMA_ERR_CHUNK);
	ck_assert_uint_eq(m.err, RPCRDMA_ERR_CHUNK);
}
END_TEST

START_TEST(test_build_reads)
{
	struct rpcrdma_msg m;
	uint32_t i;

	rpcrdma_msg_init(&m, 1, 1, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_read(&m, 6, &S1), -EINVAL);
	ck_assert_int_eq(rpcrdma_msg_add_read(&m, 8, NULL), -EINVAL);
	ck_assert_int_eq(rpcrdma_msg_add_read(&m, 8, &S1), 0);
	ck_assert_int_eq(rpcrdma_msg_add_read(&m, 4, &S1), -EINVAL);
	for (i = 1; i < RPCRDMA_MAX_READ_SEGS; i++)
		ck_assert_int_eq(rpcrdma_msg_add_read(&m, 8 + 4 * i, &S2), 0);
	ck_assert_int_eq(rpcrdma_msg_add_read(&m, 1024, &S2), -ENOSPC);
	ck_assert_uint_eq(m.nreads, RPCRDMA_MAX_READ_SEGS);
}
END_TEST

START_TEST(test_build_writes)
{
	struct rpcrdma_msg m;
	uint32_t i;

	rpcrdma_msg_init(&m, 1, 1, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(&m, 0, &S1), -EINVAL);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(&m), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(&m, 0, &S1), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(&m, 0, NULL), -EINVAL);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(&m), 1);
	/* Only the last opened chunk may grow. */
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(&m, 0, &S1), -EINVAL);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(&m, 2, &S1), -EINVAL);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(&m, 1, &S2), 0);
	/* Once the reply chunk took pool entries, chunk 1 is closed. */
	ck_assert_int_eq(rpcrdma_msg_add_reply_seg(&m, &S3), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(&m, 1, &S2), -EINVAL);
	ck_assert_int_eq(rpcrdma_msg_add_reply_seg(&m, &S4), 0);
	ck_assert_uint_eq(m.reply.nsegs, 2);
	ck_assert_uint_eq(rpcrdma_chunk_length(&m, &m.reply), 65540);
	for (i = 2; i < RPCRDMA_MAX_WRITE_CHUNKS; i++)
		ck_assert_int_eq(rpcrdma_msg_add_write_chunk(&m), (int)i);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(&m), -ENOSPC);
	/* And the reply chunk is closed by a newer write chunk's segment. */
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(&m, 7, &S1), 0);
	ck_assert_int_eq(rpcrdma_msg_add_reply_seg(&m, &S4), -EINVAL);
}
END_TEST

START_TEST(test_build_pool_full)
{
	struct rpcrdma_msg m;
	uint32_t i;

	rpcrdma_msg_init(&m, 1, 1, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(&m), 0);
	for (i = 0; i < RPCRDMA_MAX_SEGS; i++)
		ck_assert_int_eq(rpcrdma_msg_add_write_seg(&m, 0, &S4), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(&m, 0, &S4), -ENOSPC);
	ck_assert_int_eq(rpcrdma_msg_add_reply_seg(&m, &S4), -ENOSPC);
	ck_assert(!m.has_reply);
	ck_assert_int_eq(rpcrdma_msg_add_reply_seg(&m, NULL), -EINVAL);
	ck_assert_uint_eq(rpcrdma_chunk_length(&m, &m.writes[0]), 4 * 64);
	/* A 64-segment chunk encodes and decodes with the ceilings. */
	{
		struct rpcrdma_limits lim;
		struct rpcrdma_msg d;
		uint8_t buf[2048];
		size_t used;

		rpcrdma_limits_default(&lim);
		lim.max_chunk_segs = RPCRDMA_MAX_SEGS;
		ck_assert_int_eq(rpcrdma_hdr_encode(&m, buf, sizeof(buf),
						    &used), 0);
		ck_assert_uint_eq(used, 28 + 8 + 64 * 16);
		ck_assert_int_eq(decode_exact(buf, used, &lim, &d, NULL),
				 RPCRDMA_HDR_OK);
		msg_eq(&d, &m);
	}
}
END_TEST

START_TEST(test_chunk_length_bounds)
{
	struct rpcrdma_msg m;
	struct rpcrdma_chunk c;

	build_msg_write_multi(&m);
	ck_assert_uint_eq(rpcrdma_chunk_length(&m, &m.writes[0]),
			  256 + 4096 + 65536);
	c.first = 1;
	c.nsegs = 100;		/* clamped to the pool */
	ck_assert_uint_eq(rpcrdma_chunk_length(&m, &c), 4096 + 65536);
	c.first = 3;
	ck_assert_uint_eq(rpcrdma_chunk_length(&m, &c), 0);
	c.first = 0xffffffff;
	ck_assert_uint_eq(rpcrdma_chunk_length(&m, &c), 0);
}
END_TEST

START_TEST(test_hdr_size_for)
{
	const uint32_t w1[] = { 1 }, w3[] = { 3 }, w12[] = { 1, 2 };
	const uint32_t w2[] = { 2 };

	ck_assert_uint_eq(rpcrdma_hdr_size_for(0, 0, NULL, 0), 28);
	ck_assert_uint_eq(rpcrdma_hdr_size_for(1, 0, NULL, 0), 52);
	ck_assert_uint_eq(rpcrdma_hdr_size_for(3, 0, NULL, 0), 100);
	ck_assert_uint_eq(rpcrdma_hdr_size_for(0, 1, w1, 0), 52);
	ck_assert_uint_eq(rpcrdma_hdr_size_for(0, 1, w3, 0), 84);
	ck_assert_uint_eq(rpcrdma_hdr_size_for(0, 2, w12, 0), 92);
	ck_assert_uint_eq(rpcrdma_hdr_size_for(0, 0, NULL, 1), 48);
	ck_assert_uint_eq(rpcrdma_hdr_size_for(2, 1, w2, 1), 136);
}
END_TEST

/* ---- Encoder refuses what the decoder would reject ---- */

static void enc_einval(const struct rpcrdma_msg *m)
{
	uint8_t buf[2048];
	size_t used = 99;

	ck_assert_int_eq(rpcrdma_hdr_encode(m, buf, sizeof(buf), &used),
			 -EINVAL);
	ck_assert_int_eq(rpcrdma_hdr_encode(m, NULL, 0, &used), -EINVAL);
	ck_assert_uint_eq(used, 99);
}

START_TEST(test_enc_einval)
{
	struct rpcrdma_msg m;

	/* Reply chunk flagged but empty. */
	build_msg_empty(&m);
	m.has_reply = true;
	enc_einval(&m);

	/* Deprecated or unknown procedures, wrong version. */
	build_msg_empty(&m);
	m.proc = RPCRDMA_MSGP;
	enc_einval(&m);
	m.proc = RPCRDMA_DONE;
	enc_einval(&m);
	m.proc = 5;
	enc_einval(&m);
	build_msg_empty(&m);
	m.vers = 2;
	enc_einval(&m);

	/* Position zero with RDMA_MSG; NOMSG without a message chunk. */
	build_nomsg_pos0(&m);
	m.proc = RPCRDMA_MSG;
	enc_einval(&m);
	build_msg_write1(&m);
	m.proc = RPCRDMA_NOMSG;
	enc_einval(&m);
	build_msg_read1(&m);
	m.proc = RPCRDMA_NOMSG;
	enc_einval(&m);

	/* Positions set by hand: misaligned, out of order. */
	build_msg_read3(&m);
	m.reads[1].position = 10;
	enc_einval(&m);
	build_msg_read3(&m);
	m.reads[2].position = 4;
	enc_einval(&m);

	/* Counts beyond the ceilings and chunks outside the pool. */
	build_msg_empty(&m);
	m.nreads = RPCRDMA_MAX_READ_SEGS + 1;
	enc_einval(&m);
	build_msg_empty(&m);
	m.nwrites = RPCRDMA_MAX_WRITE_CHUNKS + 1;
	enc_einval(&m);
	build_msg_empty(&m);
	m.nsegs = RPCRDMA_MAX_SEGS + 1;
	enc_einval(&m);
	build_msg_write2(&m);
	m.writes[1].nsegs = 3;
	enc_einval(&m);
	build_msg_write2(&m);
	m.writes[1].first = 0xffffffff;
	enc_einval(&m);
	build_msg_reply(&m);
	m.reply.first = 1;
	enc_einval(&m);

	/* Chunks aliasing pool entries: 8 x 16 segments > 64 on the wire. */
	build_msg_empty(&m);
	{
		uint32_t i;

		for (i = 0; i < 16; i++)
			m.segs[i] = S1;
		m.nsegs = 16;
		m.nwrites = RPCRDMA_MAX_WRITE_CHUNKS;
		for (i = 0; i < m.nwrites; i++) {
			m.writes[i].first = 0;
			m.writes[i].nsegs = 16;
		}
	}
	enc_einval(&m);
	m.nwrites = 4;		/* exactly 64 on the wire: fine */
	{
		uint8_t buf[2048];
		size_t used;

		ck_assert_int_eq(rpcrdma_hdr_encode(&m, buf, sizeof(buf),
						    &used), 0);
		ck_assert_uint_eq(used, 28 + 4 * (8 + 16 * 16));
	}

	/* RDMA_ERROR with an unknown code. */
	rpcrdma_msg_init_error(&m, 1, 1, 3);
	enc_einval(&m);
	rpcrdma_msg_init_error(&m, 1, 1, 0);
	enc_einval(&m);
}
END_TEST

TCase *hdr_tc_builders(void)
{
	TCase *tc;

	tc = tcase_create("builders");
	tcase_add_test(tc, test_build_init);
	tcase_add_test(tc, test_build_reads);
	tcase_add_test(tc, test_build_writes);
	tcase_add_test(tc, test_build_pool_full);
	tcase_add_test(tc, test_chunk_length_bounds);
	tcase_add_test(tc, test_hdr_size_for);
	tcase_add_test(tc, test_enc_einval);
	return tc;
}
