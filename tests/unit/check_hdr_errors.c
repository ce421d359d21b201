/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_hdr's "decode_errors" TCase: crafted inputs, one per decoder
 * error (short, version, procedure, MSGP/DONE, truncation, booleans,
 * read/write/segment limits, empty chunks, chunk length, positions,
 * NOMSG, error codes, segments that wrap), plus the strerror table and the default limits;
 * the word writers that craft them (struct wbuf, w32, whdr, ...) live
 * here only.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/hdr.h>

#include "hdr_util.h"

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

/*
 * A segment whose offset + length passes 2^64 names no memory: refused in
 * the read list, a write chunk and the reply chunk alike; one whose last
 * byte is the address space's last is valid.
 */
static void wseg_at(struct wbuf *w, uint32_t length, uint64_t off)
{
	w32(w, 0x1000);
	w32(w, length);
	w32(w, (uint32_t)(off >> 32));
	w32(w, (uint32_t)off);
}

START_TEST(test_err_segwrap)
{
	const uint64_t top = UINT64_MAX - 4095;	/* 4096 bytes to the end */
	struct wbuf w;

	/* Read list: position 32, 4097 bytes from top. */
	whdr(&w, 1, RPCRDMA_MSG);
	w32(&w, 1);
	w32(&w, 32);
	wseg_at(&w, 4097, top);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_ESEGWRAP);
	/* The same 4096 bytes: up to the last address, valid. */
	w.n = 24;
	wseg_at(&w, 4096, top);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_OK);
	/* A write chunk's second segment. */
	whdr(&w, 1, RPCRDMA_MSG);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, 2);
	wseg(&w, 8);
	wseg_at(&w, 0xffffffffu, UINT64_MAX);
	w32(&w, 0);
	w32(&w, 0);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_ESEGWRAP);
	/* The reply chunk. */
	whdr(&w, 1, RPCRDMA_MSG);
	w32(&w, 0);
	w32(&w, 0);
	w32(&w, 1);
	w32(&w, 1);
	wseg_at(&w, 2, UINT64_MAX);
	ck_assert_int_eq(dec(&w, NULL), RPCRDMA_HDR_ESEGWRAP);
	ck_assert_int_eq(rpcrdma_hdr_err_to_wire(RPCRDMA_HDR_ESEGWRAP),
			 RPCRDMA_ERR_CHUNK);
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

TCase *hdr_tc_decode_errors(void)
{
	TCase *tc;

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
	tcase_add_test(tc, test_err_segwrap);
	tcase_add_test(tc, test_strerror);
	tcase_add_test(tc, test_limits_default);
	return tc;
}
