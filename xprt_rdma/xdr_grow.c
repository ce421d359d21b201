/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A growable XDR encode stream: the client encodes its calls and the
 * server its replies without knowing their size in advance. The buffer
 * doubles when full, never beyond 'max' (the largest message the
 * transport may carry); an encode past that fails with FALSE and leaves
 * the stream as it was before the failing primitive.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "xprt.h"

struct xdrgrow {
	char *buf;
	size_t pos;	/* XDR_GETPOS */
	size_t end;	/* high-water mark: bytes ever written */
	size_t cap;	/* allocated */
	size_t max;	/* hard limit */
};

static struct xdrgrow *to_xg(XDR *xdrs)
{
	return xdrs->x_private;
}

/* Makes room for n more bytes at pos; false past max or without memory. */
static bool xg_reserve(struct xdrgrow *xg, size_t n)
{
	size_t need, cap;
	char *nb;

	if (n > xg->max - xg->pos)
		return false;
	need = xg->pos + n;
	if (need <= xg->cap)
		return true;
	cap = xg->cap ? xg->cap : 64;
	while (cap < need)
		cap = cap > xg->max / 2 ? xg->max : cap * 2;
	nb = realloc(xg->buf, cap);
	if (!nb)
		return false;
	xg->buf = nb;
	xg->cap = cap;
	return true;
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
	xg_advance(xg, sizeof(v));
	return TRUE;
}

static bool_t xg_putbytes(XDR *xdrs, const char *addr, u_int len)
{
	struct xdrgrow *xg = to_xg(xdrs);

	if (!xg_reserve(xg, len))
		return FALSE;
	if (len)
		memcpy(xg->buf + xg->pos, addr, len);
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
	xdrs->x_op = XDR_ENCODE;
}

void rpcrdma_xdrgrow_destroy(XDR *xdrs)
{
	xg_destroy(xdrs);
}
