/* SPDX-License-Identifier: BSD-3-Clause */
/* The growable XDR encode stream (xprt_rdma/xdr_grow.c). */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "../../xprt_rdma/xprt.h"

static void expect_bytes(XDR *x, const uint8_t *want, size_t n)
{
	size_t len;
	const void *buf = rpcrdma_xdrgrow_buf(x, &len);

	ck_assert_uint_eq(len, n);
	ck_assert_uint_eq(XDR_GETPOS(x), n);
	if (n)
		ck_assert_mem_eq(buf, want, n);
}

START_TEST(test_create_errors)
{
	XDR x;

	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 0, 0), -EINVAL);
	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 17, 16), -EINVAL);
	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 0, 16), 0);
	ck_assert_int_eq(x.x_op, XDR_ENCODE);
	expect_bytes(&x, NULL, 0);
	rpcrdma_xdrgrow_destroy(&x);
	/* Destroying twice is harmless (private pointer cleared). */
	rpcrdma_xdrgrow_destroy(&x);
}
END_TEST

/* Integers are 4 bytes big-endian (RFC 4506 section 4.1, 4.2). */
START_TEST(test_ints)
{
	static const uint8_t want[] = {
		0xff, 0xff, 0xff, 0xff,		/* int -1 */
		0x01, 0x02, 0x03, 0x04,		/* u_int 0x01020304 */
		0x00, 0x00, 0x00, 0x01,		/* bool TRUE */
		0x80, 0x00, 0x00, 0x00,		/* int32 INT32_MIN */
		0x00, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef, /* hyper */
	};
	XDR x;
	int i = -1;
	u_int u = 0x01020304;
	bool_t b = TRUE;
	int32_t i32 = INT32_MIN;
	uint64_t h = 0xdeadbeefu;

	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 4, 1024), 0);
	ck_assert(xdr_int(&x, &i));
	ck_assert(xdr_u_int(&x, &u));
	ck_assert(xdr_bool(&x, &b));
	ck_assert(xdr_int32_t(&x, &i32));
	ck_assert(xdr_uint64_t(&x, &h));
	expect_bytes(&x, want, sizeof(want));
	XDR_DESTROY(&x);
}
END_TEST

/* Strings and variable opaques: length word, bytes, zero pad to 4
 * (RFC 4506 sections 4.10, 4.11); fixed opaque: bytes and pad (4.9). */
START_TEST(test_strings_opaques)
{
	static const uint8_t want[] = {
		0, 0, 0, 3, 'a', 'b', 'c', 0,		/* "abc" */
		0, 0, 0, 0,				/* "" */
		0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0, 0, /* "hello" */
		0, 0, 0, 1, 0x11, 0, 0, 0,		/* bytes len 1 */
		0, 0, 0, 4, 1, 2, 3, 4,			/* bytes len 4: no pad */
		9, 8, 7, 6, 5, 0, 0, 0,			/* opaque[5] */
		0, 0, 0, 2, 0xaa, 0xbb, 0, 0,		/* bytes len 2 */
	};
	static char o1[] = { 0x11 }, o4[] = { 1, 2, 3, 4 };
	static char o5[] = { 9, 8, 7, 6, 5 }, o2[] = { (char)0xaa, (char)0xbb };
	char *s1 = "abc", *s2 = "", *s3 = "hello", *p;
	u_int n;
	XDR x;

	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 0, 4096), 0);
	ck_assert(xdr_string(&x, &s1, 100));
	ck_assert(xdr_string(&x, &s2, 100));
	ck_assert(xdr_string(&x, &s3, 100));
	p = o1, n = 1;
	ck_assert(xdr_bytes(&x, &p, &n, 100));
	p = o4, n = 4;
	ck_assert(xdr_bytes(&x, &p, &n, 100));
	ck_assert(xdr_opaque(&x, o5, 5));
	p = o2, n = 2;
	ck_assert(xdr_bytes(&x, &p, &n, 100));
	expect_bytes(&x, want, sizeof(want));
	XDR_DESTROY(&x);
}
END_TEST

/* Every odd length 0..67: encode, decode with xdrmem, compare, and check
 * the pad bytes are zero and the size is 4 + RNDUP(len). */
START_TEST(test_odd_lengths_roundtrip)
{
	char data[68], back[68];
	u_int len;

	for (u_int i = 0; i < sizeof(data); i++)
		data[i] = (char)(0x41 + i);
	for (len = 0; len < sizeof(data); len++) {
		XDR x, d;
		char *p = data, *q = back;
		u_int n = len, m = 0;
		size_t blen;
		uint8_t *buf;

		ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 0, 1024), 0);
		ck_assert(xdr_bytes(&x, &p, &n, 1000));
		buf = rpcrdma_xdrgrow_buf(&x, &blen);
		ck_assert_uint_eq(blen, 4 + ((len + 3) & ~3u));
		for (size_t k = 4 + len; k < blen; k++)
			ck_assert_uint_eq(buf[k], 0);
		xdrmem_create(&d, (char *)buf, (u_int)blen, XDR_DECODE);
		ck_assert(xdr_bytes(&d, &q, &m, sizeof(back)));
		ck_assert_uint_eq(m, len);
		ck_assert_mem_eq(back, data, len);
		ck_assert_uint_eq(XDR_GETPOS(&d), blen);
		XDR_DESTROY(&d);
		XDR_DESTROY(&x);
	}
}
END_TEST

/* Growth from nothing across many reallocations: 100000 ints interleaved
 * with 3-byte opaques (each 4 + 4 bytes) land intact. */
START_TEST(test_growth)
{
	enum { N = 100000 };
	XDR x, d;
	size_t len;
	char *buf;

	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 0, 1u << 24), 0);
	for (u_int i = 0; i < N; i++) {
		char o[3] = { (char)i, (char)(i >> 8), (char)(i >> 16) };

		ck_assert(xdr_u_int(&x, &i));
		ck_assert(xdr_opaque(&x, o, 3));
	}
	buf = rpcrdma_xdrgrow_buf(&x, &len);
	ck_assert_uint_eq(len, (size_t)N * 8);
	xdrmem_create(&d, buf, (u_int)len, XDR_DECODE);
	for (u_int i = 0; i < N; i++) {
		char o[3];
		u_int v;

		ck_assert(xdr_u_int(&d, &v));
		ck_assert_uint_eq(v, i);
		ck_assert(xdr_opaque(&d, o, 3));
		ck_assert_int_eq((uint8_t)o[0], (uint8_t)i);
		ck_assert_int_eq((uint8_t)o[1], (uint8_t)(i >> 8));
		ck_assert_int_eq((uint8_t)o[2], (uint8_t)(i >> 16));
	}
	XDR_DESTROY(&d);
	XDR_DESTROY(&x);
}
END_TEST

/* The limit: 16 bytes hold four ints and not a fifth; a failed primitive
 * leaves the position alone; an opaque that would end past max fails. */
START_TEST(test_max_limit)
{
	XDR x;
	u_int v = 7;
	char o[16] = { 0 }, *p = o;
	u_int n;
	size_t len;

	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 0, 16), 0);
	for (int i = 0; i < 4; i++)
		ck_assert(xdr_u_int(&x, &v));
	ck_assert(!xdr_u_int(&x, &v));
	rpcrdma_xdrgrow_buf(&x, &len);
	ck_assert_uint_eq(len, 16);
	ck_assert(XDR_INLINE(&x, 4) == NULL);
	ck_assert(!XDR_PUTBYTES(&x, o, 1));

	/* 4 + 12 = 16 fits exactly; 4 + 13 (+3 pad) does not. */
	rpcrdma_xdrgrow_reset(&x);
	n = 12;
	ck_assert(xdr_bytes(&x, &p, &n, 100));
	rpcrdma_xdrgrow_buf(&x, &len);
	ck_assert_uint_eq(len, 16);
	rpcrdma_xdrgrow_reset(&x);
	n = 13;
	ck_assert(!xdr_bytes(&x, &p, &n, 100));
	/* The length word went in, the data did not. */
	rpcrdma_xdrgrow_buf(&x, &len);
	ck_assert_uint_eq(len, 4);
	/* A huge put cannot wrap the size arithmetic. */
	ck_assert(!XDR_PUTBYTES(&x, o, UINT32_MAX));
	ck_assert(XDR_INLINE(&x, UINT32_MAX) == NULL);
	XDR_DESTROY(&x);
}
END_TEST

/* A message of exactly max (1 MiB) is accepted; one more byte is not. */
START_TEST(test_max_exact_large)
{
	const u_int max = 1u << 20;
	char *data = calloc(1, max);
	XDR x;
	u_int n = max - 4;
	size_t len;
	uint8_t *buf;

	ck_assert_ptr_nonnull(data);
	data[0] = 1;
	data[max - 5] = 2;
	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 128, max), 0);
	ck_assert(xdr_bytes(&x, &data, &n, max));
	buf = rpcrdma_xdrgrow_buf(&x, &len);
	ck_assert_uint_eq(len, max);
	ck_assert_uint_eq(buf[4], 1);
	ck_assert_uint_eq(buf[max - 1], 2);
	rpcrdma_xdrgrow_reset(&x);
	n = max - 3;
	ck_assert(!xdr_bytes(&x, &data, &n, max));
	XDR_DESTROY(&x);
	free(data);
}
END_TEST

/* A lower max set after a reset (the server's reply to a call without
 * chunks, held to the inline threshold): encoding stops there and the
 * buffer grows no further; a later max takes effect again; 0 or a max
 * below the position already written is ignored. */
START_TEST(test_set_max)
{
	XDR x;
	u_int v = 7;
	char big[1000] = { 0 }, *p = big;
	u_int n = sizeof(big);
	size_t len;

	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 0, 1u << 20), 0);
	rpcrdma_xdrgrow_set_max(&x, 64);
	for (int i = 0; i < 16; i++)
		ck_assert(xdr_u_int(&x, &v));
	ck_assert(!xdr_u_int(&x, &v));
	ck_assert(rpcrdma_xdrgrow_over(&x));
	ck_assert_uint_le(rpcrdma_xdrgrow_cap(&x), 64);
	rpcrdma_xdrgrow_set_max(&x, 8);		/* below pos: ignored */
	rpcrdma_xdrgrow_set_max(&x, 0);		/* ignored */
	rpcrdma_xdrgrow_reset(&x);
	ck_assert(!xdr_bytes(&x, &p, &n, sizeof(big)));
	rpcrdma_xdrgrow_reset(&x);
	rpcrdma_xdrgrow_set_max(&x, 1u << 20);
	ck_assert(xdr_bytes(&x, &p, &n, sizeof(big)));
	rpcrdma_xdrgrow_buf(&x, &len);
	ck_assert_uint_eq(len, 4 + sizeof(big));
	XDR_DESTROY(&x);
}
END_TEST

/* Positions: back to rewrite a word, forward up to what was written,
 * never beyond. */
START_TEST(test_setpos)
{
	static const uint8_t want[] = { 0, 0, 0, 9, 0, 0, 0, 2, 0, 0, 0, 3 };
	XDR x;
	u_int a = 1, b = 2, c = 3, nine = 9;

	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 0, 64), 0);
	ck_assert(xdr_u_int(&x, &a));
	ck_assert(xdr_u_int(&x, &b));
	ck_assert(xdr_u_int(&x, &c));
	ck_assert(XDR_SETPOS(&x, 0));
	ck_assert(xdr_u_int(&x, &nine));
	ck_assert_uint_eq(XDR_GETPOS(&x), 4);
	ck_assert(!XDR_SETPOS(&x, 13));
	ck_assert_uint_eq(XDR_GETPOS(&x), 4);
	ck_assert(XDR_SETPOS(&x, 12));
	expect_bytes(&x, want, sizeof(want));
	XDR_DESTROY(&x);
}
END_TEST

/* XDR_INLINE: an aligned pointer into the buffer, only on a word boundary;
 * the decode-side operations are refused. */
START_TEST(test_inline_and_refusals)
{
	static const uint8_t want[] = { 0, 0, 0, 5, 0, 0, 0, 6, 'x', 0, 0, 0 };
	XDR x;
	int32_t *ip;
	long l;
	char c;

	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 0, 64), 0);
	ip = XDR_INLINE(&x, 8);
	ck_assert_ptr_nonnull(ip);
	ck_assert_uint_eq((uintptr_t)ip % 4, 0);
	IXDR_PUT_U_INT32(ip, 5);
	IXDR_PUT_U_INT32(ip, 6);
	ck_assert(XDR_PUTBYTES(&x, "x", 1));
	ck_assert(XDR_INLINE(&x, 4) == NULL);	/* unaligned */
	ck_assert(XDR_PUTBYTES(&x, "\0\0\0", 3));
	expect_bytes(&x, want, sizeof(want));
	ck_assert(!XDR_GETLONG(&x, &l));
	ck_assert(!XDR_GETBYTES(&x, &c, 1));
	ck_assert(!x.x_ops->x_control(&x, 1, NULL));
	XDR_DESTROY(&x);
}
END_TEST

/* A whole RPC call header with AUTH_NONE (xdr_callmsg uses the inline
 * fast path) decodes back with xdrmem, after a reset reusing the buffer. */
START_TEST(test_callmsg_roundtrip)
{
	struct rpc_msg m, d;
	XDR x, dx;
	char *buf;
	size_t len;
	u_int arg = 0xcafe, back = 0;

	memset(&m, 0, sizeof(m));
	m.rm_xid = 0x12345678;
	m.rm_direction = CALL;
	m.rm_call.cb_rpcvers = RPC_MSG_VERSION;
	m.rm_call.cb_prog = 0x20000099;
	m.rm_call.cb_vers = 2;
	m.rm_call.cb_proc = 7;
	m.rm_call.cb_cred.oa_flavor = AUTH_NONE;
	m.rm_call.cb_verf.oa_flavor = AUTH_NONE;

	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 0, 4096), 0);
	ck_assert(xdr_u_int(&x, &arg));
	rpcrdma_xdrgrow_reset(&x);
	ck_assert(xdr_callmsg(&x, &m));
	ck_assert(xdr_u_int(&x, &arg));
	buf = rpcrdma_xdrgrow_buf(&x, &len);
	/* xid, CALL, rpcvers, prog, vers, proc, 2 x (flavor, len 0), arg */
	ck_assert_uint_eq(len, 11 * 4);
	memset(&d, 0, sizeof(d));
	xdrmem_create(&dx, buf, (u_int)len, XDR_DECODE);
	ck_assert(xdr_callmsg(&dx, &d));
	ck_assert(xdr_u_int(&dx, &back));
	ck_assert_uint_eq(d.rm_xid, 0x12345678);
	ck_assert_uint_eq(d.rm_call.cb_prog, 0x20000099);
	ck_assert_uint_eq(d.rm_call.cb_vers, 2);
	ck_assert_uint_eq(d.rm_call.cb_proc, 7);
	ck_assert_uint_eq(back, 0xcafe);
	XDR_DESTROY(&dx);
	XDR_DESTROY(&x);
}
END_TEST


/* ---- direct data placement: items noted, gathered, decoded from chunks ---- */

/* A result with items of every kind (the generic DDP rule). */
struct ddp_res {
	u_int a;
	char *b; u_int blen;		/* bytes<> */
	char *str;			/* string<> */
	char fixed[2048];		/* opaque[2048] */
	char *small; u_int slen;	/* bytes<>, under the threshold */
	char *c; u_int clen;		/* bytes<> */
};

static bool_t xdr_ddp_res(XDR *x, struct ddp_res *r)
{
	return xdr_u_int(x, &r->a) &&
	       xdr_bytes(x, &r->b, &r->blen, ~0u) &&
	       xdr_string(x, &r->str, ~0u) &&
	       xdr_opaque(x, r->fixed, sizeof(r->fixed)) &&
	       xdr_bytes(x, &r->small, &r->slen, ~0u) &&
	       xdr_bytes(x, &r->c, &r->clen, ~0u);
}

static char *filled(size_t n, int seed)
{
	char *p = malloc(n + 1);

	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (char)('a' + (i * 7 + (size_t)seed) % 26);
	p[n] = 0;
	return p;
}

static void ddp_res_init(struct ddp_res *r, u_int blen, u_int strlen_,
			 u_int clen)
{
	memset(r, 0, sizeof(*r));
	r->a = 0xfeedu;
	r->b = filled(blen, 1);
	r->blen = blen;
	r->str = filled(strlen_, 2);
	memset(r->fixed, 'F', sizeof(r->fixed));
	r->small = filled(10, 3);
	r->slen = 10;
	r->c = filled(clen, 4);
	r->clen = clen;
}

static void ddp_res_free(struct ddp_res *r)
{
	XDR f;

	f.x_op = XDR_FREE;
	ck_assert(xdr_ddp_res(&f, r));
}

START_TEST(test_items_noted)
{
	const struct rpcrdma_item *it;
	struct ddp_res r;
	XDR x;

	ddp_res_init(&r, 5001, 1500, 4096);
	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 64, 1u << 20), 0);
	/* Off by default. */
	ck_assert(xdr_ddp_res(&x, &r));
	ck_assert_uint_eq(rpcrdma_xdrgrow_items(&x, &it), 0);
	rpcrdma_xdrgrow_reset(&x);
	rpcrdma_xdrgrow_set_ddp(&x, 1024);
	ck_assert(xdr_ddp_res(&x, &r));
	ck_assert_uint_eq(rpcrdma_xdrgrow_items(&x, &it), 4);
	/* a, b's length word: b's data at 8. */
	ck_assert_uint_eq(it[0].offset, 8);
	ck_assert_uint_eq(it[0].length, 5001);
	ck_assert_uint_eq(it[1].offset, 8 + 5004 + 4);
	ck_assert_uint_eq(it[1].length, 1500);
	/* The fixed opaque has no length word. */
	ck_assert_uint_eq(it[2].offset, 8 + 5004 + 4 + 1500);
	ck_assert_uint_eq(it[2].length, 2048);
	ck_assert_uint_eq(it[3].length, 4096);
	/* Rewinding into an item's round-up forgets it too. */
	ck_assert(XDR_SETPOS(&x, it[0].offset + 5002));
	ck_assert_uint_eq(rpcrdma_xdrgrow_items(&x, &it), 0);
	rpcrdma_xdrgrow_reset(&x);
	ck_assert(xdr_ddp_res(&x, &r));
	ck_assert_uint_eq(rpcrdma_xdrgrow_items(&x, &it), 4);
	/* Rewinding into an item forgets it and those after it. */
	ck_assert(XDR_SETPOS(&x, it[1].offset + 4));
	ck_assert_uint_eq(rpcrdma_xdrgrow_items(&x, &it), 1);
	rpcrdma_xdrgrow_reset(&x);
	ck_assert_uint_eq(rpcrdma_xdrgrow_items(&x, &it), 0);
	XDR_DESTROY(&x);
	ddp_res_free(&r);
}
END_TEST

/*
 * Zero-copy: an item at or above the zero-copy threshold keeps its place
 * (zeroed, never stale heap bytes) but not its bytes, which stay the
 * caller's; fill copies it in; rewinding into it copies it in before it
 * is forgotten; items below the threshold are copied as always.
 */
START_TEST(test_zero_copy_items)
{
	const struct rpcrdma_item *it;
	char *big = malloc(8192), *small = malloc(1500), *p;
	u_int blen = 8192, slen = 1500;
	size_t len;
	XDR x;

	ck_assert(big && small);
	memset(big, 0xab, 8192);
	memset(small, 0xcd, 1500);
	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 64, 1u << 20), 0);
	/* Stale bytes where the item's place will be: they must go. */
	memset(rpcrdma_xdrgrow_buf(&x, &len), 0x77, 64);
	rpcrdma_xdrgrow_set_ddp(&x, 1024);
	rpcrdma_xdrgrow_set_zc(&x, 4096);
	ck_assert(xdr_bytes(&x, &small, &slen, ~0u));
	ck_assert(xdr_bytes(&x, &big, &blen, ~0u));
	ck_assert_uint_eq(rpcrdma_xdrgrow_items(&x, &it), 2);
	ck_assert_ptr_null(rpcrdma_xdrgrow_item_ext(&x, 0));
	ck_assert_ptr_eq(rpcrdma_xdrgrow_item_ext(&x, 1), big);
	p = rpcrdma_xdrgrow_buf(&x, &len);
	ck_assert_uint_eq(len, 4 + 1500 + 4 + 8192);
	ck_assert_uint_eq((uint8_t)p[4], 0xcd);
	for (u_int i = 0; i < 8192; i++)
		ck_assert_uint_eq((uint8_t)p[it[1].offset + i], 0);
	rpcrdma_xdrgrow_fill(&x, 1);
	ck_assert_ptr_null(rpcrdma_xdrgrow_item_ext(&x, 1));
	ck_assert_mem_eq(p + it[1].offset, big, 8192);
	/* Rewinding into a zero-copy item copies it in, then forgets it. */
	rpcrdma_xdrgrow_reset(&x);
	rpcrdma_xdrgrow_set_zc(&x, 4096);
	memset(big, 0x11, 8192);
	ck_assert(xdr_bytes(&x, &big, &blen, ~0u));
	ck_assert_ptr_eq(rpcrdma_xdrgrow_item_ext(&x, 0), big);
	ck_assert(XDR_SETPOS(&x, 4 + 100));
	ck_assert_uint_eq(rpcrdma_xdrgrow_items(&x, &it), 0);
	p = rpcrdma_xdrgrow_buf(&x, &len);
	ck_assert_uint_eq(len, 4 + 100);
	ck_assert_uint_eq((uint8_t)p[4 + 99], 0x11);
	/* Threshold 0: copied. */
	rpcrdma_xdrgrow_reset(&x);
	rpcrdma_xdrgrow_set_zc(&x, 0);
	ck_assert(xdr_bytes(&x, &big, &blen, ~0u));
	ck_assert_ptr_null(rpcrdma_xdrgrow_item_ext(&x, 0));
	XDR_DESTROY(&x);
	free(big);
	free(small);
}
END_TEST

START_TEST(test_gather)
{
	static const struct rpcrdma_extent ext[] = { { 0, 4 }, { 8, 4 } };
	struct rpcrdma_extent bad = { 8, 8 };
	uint32_t v[3] = { 1, 2, 3 };
	const uint8_t *buf;
	size_t off, len;
	XDR x;

	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 4, 12), 0);
	for (int i = 0; i < 3; i++)
		ck_assert(xdr_u_int(&x, &v[i]));
	/* Past max (12) on purpose: the copy may double the message. */
	ck_assert_int_eq(rpcrdma_xdrgrow_gather(&x, ext, 2, &off), 0);
	ck_assert_uint_eq(off, 12);
	buf = rpcrdma_xdrgrow_buf(&x, &len);
	ck_assert_uint_eq(len, 12);	/* the message is unchanged */
	ck_assert_mem_eq(buf + 12, buf + 0, 4);
	ck_assert_mem_eq(buf + 16, buf + 8, 4);
	ck_assert_int_eq(rpcrdma_xdrgrow_gather(&x, &bad, 1, &off), -EINVAL);
	XDR_DESTROY(&x);
}
END_TEST

/*
 * The responder's side (items noted, planned into write chunks, the rest
 * inline without their data and round-up) and the requester's (the same
 * XDR routine decoding from the inline part and the chunks) agree.
 * wcap: capacity of each offered write chunk; nw of them.
 */
static void ddp_roundtrip(const struct ddp_res *in, uint32_t nw,
			  uint32_t wcap, uint32_t want_moved, bool alloc)
{
	struct rpcrdma_chunk_cap caps[RPCRDMA_MAX_WRITE_CHUNKS];
	struct rpcrdma_chunk_cap reply = { 1, 1u << 20 };
	const struct rpcrdma_item *it;
	struct rpcrdma_reply_plan plan;
	struct rpcrdma_xdrddp dd;
	struct ddp_res out;
	uint8_t *inl, *buf;
	uint32_t n, i, moved = 0;
	size_t len, inl_len = 0;
	XDR x, dx;

	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 64, 1u << 20), 0);
	rpcrdma_xdrgrow_set_ddp(&x, 1024);
	ck_assert(xdr_ddp_res(&x, (struct ddp_res *)in));
	buf = rpcrdma_xdrgrow_buf(&x, &len);
	n = rpcrdma_xdrgrow_items(&x, &it);
	for (i = 0; i < nw; i++) {
		caps[i].nsegs = 1;
		caps[i].bytes = wcap;
	}
	ck_assert_int_eq(rpcrdma_plan_reply((uint32_t)len, it, n, 1024,
					    1u << 20, caps, nw, &reply,
					    &plan), 0);
	inl = malloc(len);
	for (i = 0; i < plan.nextents; i++) {
		memcpy(inl + inl_len, buf + plan.extents[i].offset,
		       plan.extents[i].length);
		inl_len += plan.extents[i].length;
	}
	dd.n = nw;
	for (i = 0; i < nw; i++) {
		dd.chunks[i].data = NULL;
		dd.chunks[i].len = 0;
	}
	for (i = 0; i < n; i++) {
		int32_t ch = plan.item_chunk[i];

		if (ch < 0)
			continue;
		dd.chunks[ch].data = buf + it[i].offset;
		dd.chunks[ch].len = it[i].length;
		moved++;
	}
	ck_assert_uint_eq(moved, want_moved);
	ck_assert_uint_eq(inl_len, plan.remainder_len);

	memset(&out, 0, sizeof(out));
	if (!alloc) {
		/* The caller's buffers: results land there. */
		out.b = malloc(in->blen);
		out.str = malloc(strlen(in->str) + 1);
		out.small = malloc(in->slen);
		out.c = malloc(in->clen);
	}
	ck_assert_int_eq(rpcrdma_xdrddp_create(&dx, &dd, inl, inl_len, 1024),
			 0);
	ck_assert(xdr_ddp_res(&dx, &out));
	ck_assert(rpcrdma_xdrddp_done(&dd));
	ck_assert_uint_eq(XDR_GETPOS(&dx), inl_len);
	ck_assert_uint_eq(out.a, in->a);
	ck_assert_uint_eq(out.blen, in->blen);
	ck_assert_mem_eq(out.b, in->b, in->blen);
	ck_assert_str_eq(out.str, in->str);
	ck_assert_mem_eq(out.fixed, in->fixed, sizeof(in->fixed));
	ck_assert_uint_eq(out.slen, in->slen);
	ck_assert_mem_eq(out.small, in->small, in->slen);
	ck_assert_uint_eq(out.clen, in->clen);
	ck_assert_mem_eq(out.c, in->c, in->clen);
	XDR_DESTROY(&dx);
	ddp_res_free(&out);
	free(inl);
	XDR_DESTROY(&x);
}

START_TEST(test_ddp_roundtrip)
{
	struct ddp_res r;

	/* Odd lengths: round-up removed inline, supplied by the decoder. */
	ddp_res_init(&r, 5001, 1501, 4099);
	/* Every item moves (four chunks), into allocated and given memory. */
	ddp_roundtrip(&r, 4, 8192, 4, true);
	ddp_roundtrip(&r, 4, 8192, 4, false);
	/* Fewer chunks than items: the rest stay inline. */
	ddp_roundtrip(&r, 2, 8192, 2, true);
	/* Chunk 0 too small for b (5001): b stays inline, chunk 0 comes
	 * back unused, the string goes to chunk 1, and so on. */
	ddp_roundtrip(&r, 4, 4100, 3, true);
	/* More chunks than items: the last ones come back unused. */
	ddp_roundtrip(&r, 8, 8192, 4, false);
	ddp_res_free(&r);
}
END_TEST

/* A reply that does not match its chunks is a decode failure, never a
 * silent mix of bytes. */
START_TEST(test_ddp_mismatch)
{
	static uint8_t inl[128], data[2000];
	struct rpcrdma_xdrddp dd;
	char *p = NULL;
	u_int plen = 0;
	uint32_t w[2];
	XDR dx;

	/* Inline: length word 100, then 100 bytes (data not moved). */
	w[0] = htonl(100);
	memcpy(inl, w, 4);
	dd.n = 1;
	dd.chunks[0].data = data;
	dd.chunks[0].len = 2000;
	ck_assert_int_eq(rpcrdma_xdrddp_create(&dx, &dd, inl, 4 + 100, 1024),
			 0);
	ck_assert(xdr_bytes(&dx, &p, &plen, ~0u));
	ck_assert_uint_eq(plen, 100);
	/* Chunk 0 was returned with data nobody took. */
	ck_assert(!rpcrdma_xdrddp_done(&dd));
	XDR_DESTROY(&dx);
	free(p);
	/* An item at the threshold meeting a chunk of another length. */
	p = NULL;
	plen = 0;
	w[0] = htonl(1500);
	memcpy(inl, w, 4);
	dd.n = 1;
	dd.chunks[0].len = 2000;
	ck_assert_int_eq(rpcrdma_xdrddp_create(&dx, &dd, inl, 4, 1024), 0);
	ck_assert(!xdr_bytes(&dx, &p, &plen, ~0u));
	XDR_DESTROY(&dx);
	free(p);
	p = NULL;
	/* Too many chunks for the stream. */
	dd.n = RPCRDMA_MAX_WRITE_CHUNKS + 1;
	ck_assert_int_eq(rpcrdma_xdrddp_create(&dx, &dd, inl, 4, 1024),
			 -EINVAL);
	/* Encoding through it is refused. */
	dd.n = 0;
	ck_assert_int_eq(rpcrdma_xdrddp_create(&dx, &dd, inl, 8, 1024), 0);
	dx.x_op = XDR_ENCODE;
	ck_assert(!xdr_u_int(&dx, &plen));
	XDR_DESTROY(&dx);
}
END_TEST

static Suite *xdrgrow_suite(void)
{
	Suite *s = suite_create("xdrgrow");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_create_errors);
	tcase_add_test(tc, test_ints);
	tcase_add_test(tc, test_strings_opaques);
	tcase_add_test(tc, test_odd_lengths_roundtrip);
	tcase_add_test(tc, test_growth);
	tcase_add_test(tc, test_max_limit);
	tcase_add_test(tc, test_max_exact_large);
	tcase_add_test(tc, test_set_max);
	tcase_add_test(tc, test_setpos);
	tcase_add_test(tc, test_inline_and_refusals);
	tcase_add_test(tc, test_callmsg_roundtrip);
	tcase_add_test(tc, test_items_noted);
	tcase_add_test(tc, test_gather);
	tcase_add_test(tc, test_zero_copy_items);
	tcase_add_test(tc, test_ddp_roundtrip);
	tcase_add_test(tc, test_ddp_mismatch);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(xdrgrow_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
