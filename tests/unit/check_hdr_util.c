/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_hdr's shared helpers, no tests: the segments S1..S4, the
 * builders of the vectors' headers (used by the vector table, the
 * builder checks and the encoder's -EINVAL checks), and the header
 * comparison and exact-size decode used by all three test files.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/hdr.h>

#include "hdr_util.h"

const struct rpcrdma_segment S1 = {
	.handle = 0xa1a2a3a4, .length = 256, .offset = 0x0102030405060708ull,
};
const struct rpcrdma_segment S2 = {
	.handle = 0xb1b2b3b4, .length = 4096, .offset = 0x1112131415161718ull,
};
const struct rpcrdma_segment S3 = {
	.handle = 0xc1c2c3c4, .length = 65536, .offset = 0x2122232425262728ull,
};
const struct rpcrdma_segment S4 = {
	.handle = 0xd1d2d3d4, .length = 4, .offset = 0x00000000fffffffcull,
};

/* ---- Builders for the vectors, from the same description ---- */

void build_msg_empty(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(1), CREDITS, RPCRDMA_MSG);
}

void build_msg_read1(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(2), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 132, &S1), 0);
}

void build_msg_read3(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(3), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 8, &S1), 0);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 8, &S2), 0);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 16, &S3), 0);
}

void build_nomsg_pos0(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(4), CREDITS, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 0, &S1), 0);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 0, &S2), 0);
}

void build_msg_write1(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(5), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(m), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S2), 0);
}

void build_msg_write_multi(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(6), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(m), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S1), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S2), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S3), 0);
}

void build_msg_write2(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(7), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(m), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S1), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(m), 1);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 1, &S2), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 1, &S3), 0);
}

void build_msg_reply(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(8), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_reply_seg(m, &S4), 0);
}

void build_nomsg_reply(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(9), CREDITS, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_msg_add_reply_seg(m, &S3), 0);
	ck_assert_int_eq(rpcrdma_msg_add_reply_seg(m, &S4), 0);
}

void build_msg_all(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(10), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 40, &S1), 0);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 72, &S2), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(m), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S3), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S4), 0);
	ck_assert_int_eq(rpcrdma_msg_add_reply_seg(m, &S2), 0);
}

void build_err_vers(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init_error(m, XID(11), CREDITS, RPCRDMA_ERR_VERS);
}

void build_err_chunk(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init_error(m, XID(12), CREDITS, RPCRDMA_ERR_CHUNK);
}

static void seg_eq(const struct rpcrdma_segment *a,
		   const struct rpcrdma_segment *b)
{
	ck_assert_uint_eq(a->handle, b->handle);
	ck_assert_uint_eq(a->length, b->length);
	ck_assert_uint_eq(a->offset, b->offset);
}

static void chunk_eq(const struct rpcrdma_msg *a,
		     const struct rpcrdma_chunk *ca,
		     const struct rpcrdma_msg *b,
		     const struct rpcrdma_chunk *cb)
{
	uint32_t i;

	ck_assert_uint_eq(ca->nsegs, cb->nsegs);
	ck_assert_uint_le(ca->first + ca->nsegs, a->nsegs);
	ck_assert_uint_le(cb->first + cb->nsegs, b->nsegs);
	for (i = 0; i < ca->nsegs; i++)
		seg_eq(&a->segs[ca->first + i], &b->segs[cb->first + i]);
}

/* Compares the meaningful content of two headers. */
void msg_eq(const struct rpcrdma_msg *a, const struct rpcrdma_msg *b)
{
	uint32_t i;

	ck_assert_uint_eq(a->xid, b->xid);
	ck_assert_uint_eq(a->vers, b->vers);
	ck_assert_uint_eq(a->credits, b->credits);
	ck_assert_uint_eq(a->proc, b->proc);
	if (a->proc == RPCRDMA_ERROR) {
		ck_assert_uint_eq(a->err, b->err);
		if (a->err == RPCRDMA_ERR_VERS) {
			ck_assert_uint_eq(a->vers_low, b->vers_low);
			ck_assert_uint_eq(a->vers_high, b->vers_high);
		}
		return;
	}
	ck_assert_uint_eq(a->nreads, b->nreads);
	for (i = 0; i < a->nreads; i++) {
		ck_assert_uint_eq(a->reads[i].position, b->reads[i].position);
		seg_eq(&a->reads[i].seg, &b->reads[i].seg);
	}
	ck_assert_uint_eq(a->nwrites, b->nwrites);
	for (i = 0; i < a->nwrites; i++)
		chunk_eq(a, &a->writes[i], b, &b->writes[i]);
	ck_assert_int_eq(a->has_reply, b->has_reply);
	if (a->has_reply)
		chunk_eq(a, &a->reply, b, &b->reply);
}

/* Decodes from an exactly-sized heap copy so ASan catches any overread. */
enum rpcrdma_hdr_err decode_exact(const uint8_t *bytes, size_t len,
					 const struct rpcrdma_limits *lim,
					 struct rpcrdma_msg *m, size_t *hdr_len)
{
	enum rpcrdma_hdr_err ret;
	uint8_t *copy = malloc(len ? len : 1);

	ck_assert_ptr_nonnull(copy);
	if (len)
		memcpy(copy, bytes, len);
	ret = rpcrdma_hdr_decode(len ? copy : NULL, len, lim, m, hdr_len);
	free(copy);
	return ret;
}
