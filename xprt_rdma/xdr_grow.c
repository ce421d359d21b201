/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A growable XDR encode stream: the client encodes its calls and the
 * server its replies without knowing their size in advance. The buffer
 * doubles when full, never beyond 'max' (the largest message the
 * transport may carry); an encode past that fails with FALSE and leaves
 * the stream as it was before the failing primitive.
 *
 * With a DDP threshold set, the stream also notes the data items that
 * may move into chunks (docs/design.md, generic DDP rule): every
 * XDR_PUTBYTES of at least that many bytes that starts on an XDR unit,
 * which is how xdr_opaque, xdr_bytes and xdr_string emit their data (the
 * round-up follows as a separate XDR_PUTBYTES). Rewinding forgets the
 * items at or past the new position.
 *
 * With a zero-copy threshold set as well, an item of at least that many
 * bytes is not copied: its place in the buffer is kept (so positions and
 * the buffer's layout stay those of the whole message) and the item is
 * left where the caller has it, to be exposed from there; whoever then
 * needs the message whole copies it in (rpcrdma_xdrgrow_fill). The
 * caller's memory must outlive the message: arguments passed to
 * clnt_call do. Bytes of the buffer never written are zeroed once, so a
 * place kept is never stale heap memory.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rpcrdma/splice.h>
#include "xprt.h"

struct xdrgrow {
	char *buf;
	size_t pos;	/* XDR_GETPOS */
	size_t end;	/* high-water mark: bytes ever written */
	size_t cap;	/* allocated */
	size_t max;	/* hard limit */
	bool over;	/* an encode met max since the last reset */
	size_t clean;	/* buf[0, clean) was written or zeroed */
	uint32_t ddp_min;	/* 0: items are not noted */
	uint32_t zc_min;	/* 0: every item is copied */
	uint32_t nitems;
	struct rpcrdma_item items[RPCRDMA_PLAN_MAX_ITEMS];
	const void *ext[RPCRDMA_PLAN_MAX_ITEMS];	/* not copied: where */
};

static struct xdrgrow *to_xg(XDR *xdrs)
{
	return xdrs->x_private;
}

/* Makes the buffer at least need bytes long, at most limit. */
static bool xg_room(struct xdrgrow *xg, size_t need, size_t limit)
{
	size_t cap;
	char *nb;

	if (need <= xg->cap)
		return true;
	if (need > limit)
		return false;
	cap = xg->cap ? xg->cap : 64;
	while (cap < need)
		cap = cap > limit / 2 ? limit : cap * 2;
	nb = realloc(xg->buf, cap);
	if (!nb)
		return false;
	xg->buf = nb;
	xg->cap = cap;
	if (xg->clean > cap)
		xg->clean = cap;
	return true;
}

/* Bytes [at, at + n) are about to be written: keep 'clean' exact. */
static void xg_written(struct xdrgrow *xg, size_t at, size_t n)
{
	if (at <= xg->clean && at + n > xg->clean)
		xg->clean = at + n;
}

/* Makes room for n more bytes at pos; false past max or without memory. */
static bool xg_reserve(struct xdrgrow *xg, size_t n)
{
	if (n > xg->max - xg->pos) {
		xg->over = true;
		return false;
	}
	return xg_room(xg, xg->pos + n, xg->max);
}

static void xg_advance(struct xdrgrow *xg, size_t n)
{
	xg->pos += n;
	if (xg->pos > xg->end)
		xg->end = xg->pos;
}

static bool_t xg_getlong(XDR *xdrs, long *lp)
{
	(void)xdrs;
	(void)lp;
	return FALSE;
}

static bool_t xg_getbytes(XDR *xdrs, char *addr, u_int len)
{
	(void)xdrs;
	(void)addr;
	(void)len;
	return FALSE;
}

static bool_t xg_putlong(XDR *xdrs, const long *lp)
{
	struct xdrgrow *xg = to_xg(xdrs);
	uint32_t v = htonl((uint32_t)*lp);

	if (!xg_reserve(xg, sizeof(v)))
		return FALSE;
	memcpy(xg->buf + xg->pos, &v, sizeof(v));
	xg_written(xg, xg->pos, sizeof(v));
	xg_advance(xg, sizeof(v));
	return TRUE;
}

static bool_t xg_putbytes(XDR *xdrs, const char *addr, u_int len)
{
	struct xdrgrow *xg = to_xg(xdrs);

	const void *ext = NULL;

	if (!xg_reserve(xg, len))
		return FALSE;
	if (xg->ddp_min && len >= xg->ddp_min &&
	    xg->pos % RPCRDMA_XDR_UNIT == 0 &&
	    xg->nitems < RPCRDMA_PLAN_MAX_ITEMS) {
		if (xg->zc_min && len >= xg->zc_min)
			ext = addr;
		xg->items[xg->nitems].offset = (uint32_t)xg->pos;
		xg->items[xg->nitems].length = len;
		xg->ext[xg->nitems] = ext;
		xg->nitems++;
	}
	if (ext) {
		/* Its place only; zeroed where never written before. */
		if (xg->pos + len > xg->clean) {
			size_t from = xg->pos > xg->clean ? xg->pos : xg->clean;

			memset(xg->buf + from, 0, xg->pos + len - from);
			xg->clean = xg->pos + len;
		}
	} else if (len) {
		memcpy(xg->buf + xg->pos, addr, len);
		xg_written(xg, xg->pos, len);
	}
	xg_advance(xg, len);
	return TRUE;
}

static u_int xg_getpostn(XDR *xdrs)
{
	return (u_int)to_xg(xdrs)->pos;
}

/* Back or forward within what was written (never onto unwritten bytes). */
static bool_t xg_setpostn(XDR *xdrs, u_int pos)
{
	struct xdrgrow *xg = to_xg(xdrs);

	if (pos > xg->end)
		return FALSE;
	xg->pos = pos;
	/* What is written from here on may overwrite a noted item, which
	 * then is plain message bytes: copied in if it was left out. */
	while (xg->nitems &&
	       (uint64_t)xg->items[xg->nitems - 1].offset +
			       rpcrdma_xdr_roundup(
				       xg->items[xg->nitems - 1].length) > pos) {
		rpcrdma_xdrgrow_fill(xdrs, xg->nitems - 1);
		xg->nitems--;
	}
	return TRUE;
}

/*
 * Direct access to the next len bytes, which the caller fills at once
 * (xdr_callmsg's fast path). Only on a word boundary, so the int32_t
 * pointer is aligned (malloc memory is).
 */
static int32_t *xg_inline(XDR *xdrs, u_int len)
{
	struct xdrgrow *xg = to_xg(xdrs);
	int32_t *p;

	if (xdrs->x_op != XDR_ENCODE || xg->pos % RPCRDMA_XDR_UNIT ||
	    !xg_reserve(xg, len))
		return NULL;
	p = (int32_t *)(void *)(xg->buf + xg->pos);
	xg_written(xg, xg->pos, len);
	xg_advance(xg, len);
	return p;
}

static bool_t xg_control(XDR *xdrs, int req, void *info)
{
	(void)xdrs;
	(void)req;
	(void)info;
	return FALSE;
}

static void xg_destroy(XDR *xdrs)
{
	struct xdrgrow *xg = to_xg(xdrs);

	if (!xg)
		return;
	free(xg->buf);
	free(xg);
	xdrs->x_private = NULL;
}

static const struct xdr_ops xdrgrow_ops = {
	.x_getlong = xg_getlong,
	.x_putlong = xg_putlong,
	.x_getbytes = xg_getbytes,
	.x_putbytes = xg_putbytes,
	.x_getpostn = xg_getpostn,
	.x_setpostn = xg_setpostn,
	.x_inline = xg_inline,
	.x_destroy = xg_destroy,
	.x_control = xg_control,
};

int rpcrdma_xdrgrow_create(XDR *xdrs, size_t initial, size_t max)
{
	struct xdrgrow *xg;

	if (max == 0 || initial > max || max > UINT32_MAX)
		return -EINVAL;
	xg = calloc(1, sizeof(*xg));
	if (!xg)
		return -ENOMEM;
	xg->max = max;
	if (initial) {
		xg->buf = malloc(initial);
		if (!xg->buf) {
			free(xg);
			return -ENOMEM;
		}
		xg->cap = initial;
	}
	memset(xdrs, 0, sizeof(*xdrs));
	xdrs->x_op = XDR_ENCODE;
	xdrs->x_ops = &xdrgrow_ops;
	xdrs->x_private = xg;
	return 0;
}

void *rpcrdma_xdrgrow_buf(XDR *xdrs, size_t *len)
{
	struct xdrgrow *xg = to_xg(xdrs);

	if (len)
		*len = xg->pos;
	return xg->buf;
}

void rpcrdma_xdrgrow_reset(XDR *xdrs)
{
	struct xdrgrow *xg = to_xg(xdrs);

	xg->pos = 0;
	xg->end = 0;
	xg->nitems = 0;
	xg->over = false;
	xdrs->x_op = XDR_ENCODE;
}

bool rpcrdma_xdrgrow_over(XDR *xdrs)
{
	return to_xg(xdrs)->over;
}

size_t rpcrdma_xdrgrow_cap(XDR *xdrs)
{
	return to_xg(xdrs)->cap;
}

void rpcrdma_xdrgrow_set_ddp(XDR *xdrs, uint32_t min)
{
	to_xg(xdrs)->ddp_min = min;
}

void rpcrdma_xdrgrow_set_max(XDR *xdrs, size_t max)
{
	struct xdrgrow *xg = to_xg(xdrs);

	if (max && max <= UINT32_MAX && max >= xg->end)
		xg->max = max;
}

void rpcrdma_xdrgrow_set_zc(XDR *xdrs, uint32_t min)
{
	to_xg(xdrs)->zc_min = min;
}

const void *rpcrdma_xdrgrow_item_ext(XDR *xdrs, uint32_t i)
{
	struct xdrgrow *xg = to_xg(xdrs);

	return i < xg->nitems ? xg->ext[i] : NULL;
}

void rpcrdma_xdrgrow_fill(XDR *xdrs, uint32_t i)
{
	struct xdrgrow *xg = to_xg(xdrs);

	if (i >= xg->nitems || !xg->ext[i])
		return;
	memcpy(xg->buf + xg->items[i].offset, xg->ext[i],
	       xg->items[i].length);
	xg->ext[i] = NULL;
}

uint32_t rpcrdma_xdrgrow_items(XDR *xdrs, const struct rpcrdma_item **items)
{
	struct xdrgrow *xg = to_xg(xdrs);

	*items = xg->items;
	return xg->nitems;
}

int rpcrdma_xdrgrow_gather(XDR *xdrs, const struct rpcrdma_extent *ext,
			   uint32_t n, size_t *off)
{
	struct xdrgrow *xg = to_xg(xdrs);
	size_t need = xg->pos, at = xg->pos;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if ((uint64_t)ext[i].offset + ext[i].length > xg->pos)
			return -EINVAL;
		need += ext[i].length;
	}
	/* The copy may take the message's size again beyond max. */
	if (!xg_room(xg, need, 2 * xg->max))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		memcpy(xg->buf + at, xg->buf + ext[i].offset, ext[i].length);
		xg_written(xg, at, ext[i].length);
		at += ext[i].length;
	}
	*off = xg->pos;
	return 0;
}

void rpcrdma_xdrgrow_destroy(XDR *xdrs)
{
	xg_destroy(xdrs);
}
