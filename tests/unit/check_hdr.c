/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transport header codec tests: hand-derived vectors (vectors.h) for every
 * message type and chunk shape, every decoder error reached by a crafted
 * input, truncation at every offset, limits exceeded by one, and the
 * encoder's -EINVAL / -ENOSPC rules.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/hdr.h>

#include "vectors.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct rpcrdma_segment S1 = {
	.handle = 0xa1a2a3a4, .length = 256, .offset = 0x0102030405060708ull,
};
static const struct rpcrdma_segment S2 = {
	.handle = 0xb1b2b3b4, .length = 4096, .offset = 0x1112131415161718ull,
};
static const struct rpcrdma_segment S3 = {
	.handle = 0xc1c2c3c4, .length = 65536, .offset = 0x2122232425262728ull,
};
static const struct rpcrdma_segment S4 = {
	.handle = 0xd1d2d3d4, .length = 4, .offset = 0x00000000fffffffcull,
};

#define XID(n)		(0xdeadbe00u + (n))
#define CREDITS		128u

/* ---- Builders for the vectors, from the same description ---- */

static void build_msg_empty(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(1), CREDITS, RPCRDMA_MSG);
}

static void build_msg_read1(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(2), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 132, &S1), 0);
}

static void build_msg_read3(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(3), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 8, &S1), 0);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 8, &S2), 0);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 16, &S3), 0);
}

static void build_nomsg_pos0(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(4), CREDITS, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 0, &S1), 0);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 0, &S2), 0);
}

static void build_msg_write1(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(5), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(m), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S2), 0);
}

static void build_msg_write_multi(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(6), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(m), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S1), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S2), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S3), 0);
}

static void build_msg_write2(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(7), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(m), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S1), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(m), 1);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 1, &S2), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 1, &S3), 0);
}

static void build_msg_reply(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(8), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_reply_seg(m, &S4), 0);
}

static void build_nomsg_reply(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(9), CREDITS, RPCRDMA_NOMSG);
	ck_assert_int_eq(rpcrdma_msg_add_reply_seg(m, &S3), 0);
	ck_assert_int_eq(rpcrdma_msg_add_reply_seg(m, &S4), 0);
}

static void build_msg_all(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init(m, XID(10), CREDITS, RPCRDMA_MSG);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 40, &S1), 0);
	ck_assert_int_eq(rpcrdma_msg_add_read(m, 72, &S2), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_chunk(m), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S3), 0);
	ck_assert_int_eq(rpcrdma_msg_add_write_seg(m, 0, &S4), 0);
	ck_assert_int_eq(rpcrdma_msg_add_reply_seg(m, &S2), 0);
}

static void build_err_vers(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init_error(m, XID(11), CREDITS, RPCRDMA_ERR_VERS);
}

static void build_err_chunk(struct rpcrdma_msg *m)
{
	rpcrdma_msg_init_error(m, XID(12), CREDITS, RPCRDMA_ERR_CHUNK);
}

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
static void msg_eq(const struct rpcrdma_msg *a, const struct rpcrdma_msg *b)
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
static enum rpcrdma_hdr_err decode_exact(const uint8_t *bytes, size_t len,
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

/* ---- Crafted inputs, one per error ---- */

struct wbuf {
	uint8_t b[4096];
	size_t n;
};

static void w32(struct wbuf *w, uint32_t v)
{
	ck_assert_uint_le(w->n + 4, sizeof(w->b));
	w->b[w->n++] = (uint8_t)(v >> 24);
	w->b[w->n++] = (uint8_t)(v >> 16);
	w->b[w->n++] = (uint8_t)(v >> 8);
	w->b[w->n++] = (uint8_t)v;
}

static void whdr(struct wbuf *w, uint32_t vers, uint32_t proc)
{
	w->n = 0;
	w32(w, 0x01020304);	/* xid */
	w32(w, vers);
	w32(w, 32);		/* credits */
	w32(w, proc);
}

/* A segment: handle, length, offset high, offset low. */
static void wseg(struct wbuf *w, uint32_t length)
{
	w32(w, 0x1000);
	w32(w, length);
	w32(w, 0);
	w32(w, 0x2000);
}

static void wread(struct wbuf *w, uint32_t pos, uint32_t length)
{
	w32(w, 1);
	w32(w, pos);
	wseg(w, length);
}

/* A write-list entry or reply chunk: TRUE, count, count segments. */
static void wchunk(struct wbuf *w, uint32_t count, uint32_t length)
{
	uint32_t i;

	w32(w, 1);
	w32(w, count);
	for (i = 0; i < count; i++)
		wseg(w, length);
}

static enum rpcrdma_hdr_err dec(const struct wbuf *w,
				const struct rpcrdma_limits *lim)
{
	struct rpcrdma_msg m;
	size_t hdr_len = 0;
	enum rpcrdma_hdr_err ret;

	ret = decode_exact(w->b, w->n, lim, &m, &hdr_len);
	if (ret == RPCRDMA_HDR_OK)
		ck_assert_uint_eq(hdr_len, w->n);
	return ret;
}

START_TEST(test_err_short)
{
	static const uint8_t b[15] = { 0, 0, 0, 1, 0, 0, 0, 1 };
	struct rpcrdma_msg m;
	size_t n;

	for (n = 0; n <= sizeof(b); n++)
		ck_assert_int_eq(decode_exact(b, n, NULL, &m, NULL),
				 RPCRDMA_HDR_ESHORT);
	ck_assert_int_eq(rpcrdma_hdr_err_to_wire(RPCRDMA_HDR_ESHORT),
			 RPCRDMA_ERR_CHUNK);
}
END_TEST

/* RFC 8166 section 4.3: version first, whatever follows. */
START_TEST(test_err_vers)
{
	struct rpcrdma_msg m;
	struct wbuf w;

	whdr(&w, 0, 99);
	ck_assert_int_eq(decode_exact(w.b, w.n, NULL, &m, NULL),
			 RPCRDMA_HDR_EVERS);
	ck_assert_uint_eq(m.xid, 0x01020304);
	ck_assert_uint_eq(m.vers, 0);
	ck_assert_uint_eq(m.credits, 32);
	ck_assert_uint_eq(m.proc, 99);

	whdr(&w, 2, RPCRDMA_MSG);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EVERS);
	whdr(&w, 0xffffffff, RPCRDMA_ERROR);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EVERS);
	ck_assert_int_eq(rpcrdma_hdr_err_to_wire(RPCRDMA_HDR_EVERS),
			 RPCRDMA_ERR_VERS);
}
END_TEST

START_TEST(test_err_proc)
{
	struct rpcrdma_msg m;
	struct wbuf w;

	whdr(&w, 1, 5);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(decode_exact(w.b, w.n, NULL, &m, NULL),
			 RPCRDMA_HDR_EPROC);
	ck_assert_uint_eq(m.proc, 5);
	whdr(&w, 1, 0xffffffff);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EPROC);
}
END_TEST

/* RFC 8166 section 4.5: RDMA_MSGP and RDMA_DONE get ERR_CHUNK. */
START_TEST(test_err_msgp_done)
{
	struct wbuf w;

	whdr(&w, 1, RPCRDMA_MSGP);
	w32(&w, 4096);	/* rdma_align */
	w32(&w, 1024);	/* rdma_thresh */
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EMSGP);
	whdr(&w, 1, RPCRDMA_DONE);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EDONE);
	ck_assert_int_eq(rpcrdma_hdr_err_to_wire(RPCRDMA_HDR_EMSGP),
			 RPCRDMA_ERR_CHUNK);
	ck_assert_int_eq(rpcrdma_hdr_err_to_wire(RPCRDMA_HDR_EDONE),
			 RPCRDMA_ERR_CHUNK);
}
END_TEST

START_TEST(test_err_trunc)
{
	struct wbuf w;

	/* Reply chunk counts 2 segments, carries 1. */
	whdr(&w, 1, RPCRDMA_MSG);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, 2);
	wseg(&w, 8);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_ETRUNC);
	/* Write chunk counts 16 segments (the limit), carries 15. */
	whdr(&w, 1, RPCRDMA_MSG);
	w32(&w, 0);
	wchunk(&w, 15, 8);
	w.n -= 15 * 16 + 4;
	w32(&w, 16);
	w.n += 15 * 16;
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_ETRUNC);
	/* RDMA_ERROR without its code. */
	whdr(&w, 1, RPCRDMA_ERROR);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_ETRUNC);
	/* ERR_VERS with only the low version. */
	w32(&w, RPCRDMA_ERR_VERS);
	w32(&w, 1);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_ETRUNC);
}
END_TEST

START_TEST(test_err_bool)
{
	struct wbuf w;

	whdr(&w, 1, RPCRDMA_MSG);	/* read list discriminator 2 */
	w32(&w, 2);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EBOOL);

	whdr(&w, 1, RPCRDMA_MSG);	/* second read entry: 0x100 */
	wread(&w, 8, 10);
	w32(&w, 0x100);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EBOOL);

	whdr(&w, 1, RPCRDMA_MSG);	/* write list after a chunk: 7 */
	w32(&w, 0);
	wchunk(&w, 1, 10);
	w32(&w, 7);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EBOOL);

	whdr(&w, 1, RPCRDMA_MSG);	/* reply chunk 0xffffffff */
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0xffffffff);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EBOOL);
}
END_TEST

static void reads_msg(struct wbuf *w, uint32_t n)
{
	uint32_t i;

	whdr(w, 1, RPCRDMA_MSG);
	for (i = 0; i < n; i++)
		wread(w, 4 * i + 4, 1);
	w32(w, 0);
	w32(w, 0);
	w32(w, 0);
}

START_TEST(test_err_reads)
{
	struct rpcrdma_limits lim;
	struct wbuf w;

	rpcrdma_limits_default(&lim);
	lim.max_read_segs = 2;
	reads_msg(&w, 2);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_OK);
	reads_msg(&w, 3);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_EREADS);

	/* Limits above the ceiling are clamped to it. */
	lim.max_read_segs = 1000;
	reads_msg(&w, RPCRDMA_MAX_READ_SEGS);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_OK);
	reads_msg(&w, RPCRDMA_MAX_READ_SEGS + 1);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_EREADS);
	lim.max_read_segs = 0;
	reads_msg(&w, 1);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_EREADS);
}
END_TEST

static void writes_msg(struct wbuf *w, uint32_t nchunks, uint32_t segs)
{
	uint32_t i;

	whdr(w, 1, RPCRDMA_MSG);
	w32(w, 0);
	for (i = 0; i < nchunks; i++)
		wchunk(w, segs, 1);
	w32(w, 0);
	w32(w, 0);
}

START_TEST(test_err_writes)
{
	struct rpcrdma_limits lim;
	struct wbuf w;

	rpcrdma_limits_default(&lim);
	lim.max_write_chunks = 1;
	writes_msg(&w, 1, 1);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_OK);
	writes_msg(&w, 2, 1);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_EWRITES);

	lim.max_write_chunks = 1000;
	writes_msg(&w, RPCRDMA_MAX_WRITE_CHUNKS, 1);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_OK);
	writes_msg(&w, RPCRDMA_MAX_WRITE_CHUNKS + 1, 1);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_EWRITES);
}
END_TEST

START_TEST(test_err_segs)
{
	struct rpcrdma_limits lim;
	struct wbuf w;
	uint32_t i;

	/* Per-chunk limit, write chunk. */
	rpcrdma_limits_default(&lim);
	lim.max_chunk_segs = 2;
	writes_msg(&w, 1, 2);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_OK);
	writes_msg(&w, 1, 3);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_ESEGS);

	/* Per-chunk limit, reply chunk. */
	whdr(&w, 1, RPCRDMA_MSG);
	w32(&w, 0);
	w32(&w, 0);
	wchunk(&w, 2, 1);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_OK);
	whdr(&w, 1, RPCRDMA_MSG);
	w32(&w, 0);
	w32(&w, 0);
	wchunk(&w, 3, 1);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_ESEGS);

	/* Default: 16 a chunk. */
	writes_msg(&w, 1, 16);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_OK);
	writes_msg(&w, 1, 17);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_ESEGS);

	/* Ceiling: one chunk of 64 fits the pool, 65 does not. */
	lim.max_chunk_segs = 1000;
	writes_msg(&w, 1, RPCRDMA_MAX_SEGS);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_OK);
	writes_msg(&w, 1, RPCRDMA_MAX_SEGS + 1);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_ESEGS);

	/* Pool shared by writes and reply: 4 x 16 + 1 reply. */
	whdr(&w, 1, RPCRDMA_MSG);
	w32(&w, 0);
	for (i = 0; i < 4; i++)
		wchunk(&w, 16, 1);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_OK);
	w.n -= 4;
	wchunk(&w, 1, 1);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_ESEGS);

	/* A huge count is refused before any size arithmetic. */
	whdr(&w, 1, RPCRDMA_MSG);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, 0xffffffff);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_ESEGS);
	whdr(&w, 1, RPCRDMA_MSG);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, 0x10000000);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_ESEGS);
}
END_TEST

/*
 * An empty write chunk is accepted (the Linux server echoes one back as it
 * came) and encodes to the same words; an empty reply chunk is not.
 */
START_TEST(test_err_empty)
{
	static struct rpcrdma_msg m;
	struct rpcrdma_limits lim;
	uint8_t out[64];
	struct wbuf w;
	size_t hlen, used;

	writes_msg(&w, 1, 0);
	rpcrdma_limits_default(&lim);
	ck_assert_int_eq(rpcrdma_hdr_decode(w.b, w.n, &lim, &m, &hlen),
			 RPCRDMA_HDR_OK);
	ck_assert_uint_eq(m.nwrites, 1);
	ck_assert_uint_eq(m.writes[0].nsegs, 0);
	ck_assert_int_eq(rpcrdma_hdr_encode(&m, out, sizeof(out), &used), 0);
	ck_assert_uint_eq(used, hlen);
	ck_assert_mem_eq(out, w.b, used);
	whdr(&w, 1, RPCRDMA_NOMSG);
	w32(&w, 0);
	w32(&w, 0);
	wchunk(&w, 0, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EEMPTY);
}
END_TEST

/* Reads 60 + write 30 + reply 'rl' bytes. */
static void len_msg(struct wbuf *w, uint32_t rl)
{
	whdr(w, 1, RPCRDMA_MSG);
	wread(w, 4, 60);
	w32(w, 0);
	wchunk(w, 1, 30);
	w32(w, 0);
	wchunk(w, 1, rl);
}

/* 32 reads and 4 x 16 write segments, every length 0xffffffff. */
static void huge_msg(struct wbuf *w)
{
	uint32_t i;

	whdr(w, 1, RPCRDMA_MSG);
	for (i = 0; i < RPCRDMA_MAX_READ_SEGS; i++)
		wread(w, 4, 0xffffffff);
	w32(w, 0);
	for (i = 0; i < 4; i++)
		wchunk(w, 16, 0xffffffff);
	w32(w, 0);
	w32(w, 0);
}

START_TEST(test_err_chunklen)
{
	struct rpcrdma_limits lim;
	struct wbuf w;
	/* 96 x 0xffffffff = 0x5f_ffffffa0: far past 32 bits. */
	const uint64_t huge = 96ull * 0xffffffffull;

	rpcrdma_limits_default(&lim);
	lim.max_chunk_bytes = 100;
	len_msg(&w, 10);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_OK);
	len_msg(&w, 11);
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_ECHUNKLEN);

	/* Default limit: 16 MiB + 64 KiB = 16842752 exactly is fine. */
	len_msg(&w, 16842752 - 90);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_OK);
	len_msg(&w, 16842752 - 89);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_ECHUNKLEN);

	/* Two reads of 0xffffffff: a 32-bit sum would wrap to 0xfffffffe. */
	whdr(&w, 1, RPCRDMA_MSG);
	wread(&w, 4, 0xffffffff);
	wread(&w, 8, 0xffffffff);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	lim.max_chunk_bytes = 0xffffffff;
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_ECHUNKLEN);
	lim.max_chunk_bytes = 0x1fffffffeull;
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_OK);

	/* The largest total the ceilings allow, no wrap anywhere. */
	huge_msg(&w);
	lim.max_chunk_segs = 16;
	lim.max_chunk_bytes = UINT64_MAX;
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_OK);
	lim.max_chunk_bytes = huge;
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_OK);
	lim.max_chunk_bytes = huge - 1;
	ck_assert_int_eq(dec(&w, &lim), RPCRDMA_HDR_ECHUNKLEN);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_ECHUNKLEN);
}
END_TEST

START_TEST(test_err_pos)
{
	struct wbuf w;

	whdr(&w, 1, RPCRDMA_MSG);	/* position 6: not a multiple of 4 */
	wread(&w, 6, 1);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EPOSALIGN);
	whdr(&w, 1, RPCRDMA_NOMSG);	/* position 0 then 1 */
	wread(&w, 0, 1);
	wread(&w, 1, 1);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EPOSALIGN);

	/* 16, 8, then 16 again: accepted (RFC 8166 section 4.3.1 only
	 * SHOULDs the order; the Linux server sorts too), sorted by
	 * position with the two segments at 16 in their order
	 * (conformance review 14). */
	whdr(&w, 1, RPCRDMA_MSG);
	wread(&w, 16, 1);
	wread(&w, 8, 2);
	wread(&w, 16, 3);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	{
		struct rpcrdma_msg m2;
		size_t hl = 0;

		ck_assert_int_eq(decode_exact(w.b, w.n, NULL, &m2, &hl),
				 RPCRDMA_HDR_OK);
		ck_assert_uint_eq(m2.nreads, 3);
		ck_assert_uint_eq(m2.reads[0].position, 8);
		ck_assert_uint_eq(m2.reads[0].seg.length, 2);
		ck_assert_uint_eq(m2.reads[1].position, 16);
		ck_assert_uint_eq(m2.reads[1].seg.length, 1);
		ck_assert_uint_eq(m2.reads[2].position, 16);
		ck_assert_uint_eq(m2.reads[2].seg.length, 3);
	}

	whdr(&w, 1, RPCRDMA_MSG);	/* position zero in RDMA_MSG */
	wread(&w, 0, 1);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EPOSZERO);

	/* NOMSG: position zero plus a later DDP chunk is accepted. */
	whdr(&w, 1, RPCRDMA_NOMSG);
	wread(&w, 0, 1);
	wread(&w, 64, 1);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_OK);
}
END_TEST

START_TEST(test_err_nomsg)
{
	struct wbuf w;

	whdr(&w, 1, RPCRDMA_NOMSG);	/* no lists at all */
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_ENOMSG);

	whdr(&w, 1, RPCRDMA_NOMSG);	/* read at 8, a write chunk, no reply */
	wread(&w, 8, 1);
	w32(&w, 0);
	wchunk(&w, 1, 1);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_ENOMSG);
}
END_TEST

START_TEST(test_err_errcode)
{
	struct wbuf w;

	whdr(&w, 1, RPCRDMA_ERROR);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EERRCODE);
	whdr(&w, 1, RPCRDMA_ERROR);
	w32(&w, 3);
	w32(&w, 1);
	w32(&w, 1);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_EERRCODE);
}
END_TEST

START_TEST(test_strerror)
{
	int i, j;

	for (i = 0; i < RPCRDMA_HDR_NERR; i++) {
		const char *s = rpcrdma_hdr_strerror(i);

		ck_assert_ptr_nonnull(s);
		ck_assert_uint_gt(strlen(s), 0);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(s, rpcrdma_hdr_strerror(j));
		if (i != RPCRDMA_HDR_EVERS)
			ck_assert_int_eq(rpcrdma_hdr_err_to_wire(i),
					 RPCRDMA_ERR_CHUNK);
	}
	ck_assert_ptr_nonnull(rpcrdma_hdr_strerror(RPCRDMA_HDR_NERR));
	ck_assert_ptr_nonnull(rpcrdma_hdr_strerror(-1));
}
END_TEST

START_TEST(test_limits_default)
{
	struct rpcrdma_limits lim;

	rpcrdma_limits_default(&lim);
	ck_assert_uint_eq(lim.max_read_segs, RPCRDMA_MAX_READ_SEGS);
	ck_assert_uint_eq(lim.max_write_chunks, RPCRDMA_MAX_WRITE_CHUNKS);
	ck_assert_uint_eq(lim.max_chunk_segs, 16);
	ck_assert_uint_eq(lim.max_chunk_bytes, 16 * 1024 * 1024 + 64 * 1024);
}
END_TEST

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

	tc = tcase_create("decode_errors");
	tcase_add_test(tc, test_err_short);
	tcase_add_test(tc, test_err_vers);
	tcase_add_test(tc, test_err_proc);
	tcase_add_test(tc, test_err_msgp_done);
	tcase_add_test(tc, test_err_trunc);
	tcase_add_test(tc, test_err_bool);
	tcase_add_test(tc, test_err_reads);
	tcase_add_test(tc, test_err_writes);
	tcase_add_test(tc, test_err_segs);
	tcase_add_test(tc, test_err_empty);
	tcase_add_test(tc, test_err_chunklen);
	tcase_add_test(tc, test_err_pos);
	tcase_add_test(tc, test_err_nomsg);
	tcase_add_test(tc, test_err_errcode);
	tcase_add_test(tc, test_strerror);
	tcase_add_test(tc, test_limits_default);
	suite_add_tcase(s, tc);

	tc = tcase_create("builders");
	tcase_add_test(tc, test_build_init);
	tcase_add_test(tc, test_build_reads);
	tcase_add_test(tc, test_build_writes);
	tcase_add_test(tc, test_build_pool_full);
	tcase_add_test(tc, test_chunk_length_bounds);
	tcase_add_test(tc, test_hdr_size_for);
	tcase_add_test(tc, test_enc_einval);
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
