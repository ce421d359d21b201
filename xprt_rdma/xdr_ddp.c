/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requester's decode stream for a reply whose data items came in
 * write chunks (RFC 8166 section 3.4.6; the generic DDP rule of
 * docs/design.md). The inline part keeps each moved item's length word
 * but neither its data nor its round-up, and a write chunk carries no
 * position: the stream finds the items while the XDR routines decode.
 * An XDR_GETBYTES whose count equals the next returned chunk's length
 * takes that chunk's bytes, and the round-up read that xdr_opaque does
 * next gets zeros without consuming inline bytes. An item at or above the
 * DDP threshold that meets an unused chunk (length 0) stayed inline: the
 * responder found the chunk too small and moves later items into later
 * chunks; one that meets a chunk holding other data fails the decode.
 * Everything else reads the inline part (xdrmem), and XDR_GETPOS counts
 * inline bytes only.
 */
#include <errno.h>
#include <string.h>

#include <rpcrdma/splice.h>
#include "xprt.h"

static struct rpcrdma_xdrddp *to_dd(XDR *xdrs)
{
	return xdrs->x_private;
}

/* Any other primitive ends a moved item: no round-up read follows. */
static XDR *dd_inner(XDR *xdrs)
{
	struct rpcrdma_xdrddp *d = to_dd(xdrs);

	d->pad = 0;
	return &d->inner;
}

static bool_t dd_getlong(XDR *xdrs, long *lp)
{
	return XDR_GETLONG(dd_inner(xdrs), lp);
}

static bool_t dd_putlong(XDR *xdrs, const long *lp)
{
	(void)xdrs;
	(void)lp;
	return FALSE;
}

static bool_t dd_getbytes(XDR *xdrs, char *addr, u_int len)
{
	struct rpcrdma_xdrddp *d = to_dd(xdrs);
	uint32_t pad = d->pad;

	d->pad = 0;
	if (pad && len == pad) {
		memset(addr, 0, len);
		return TRUE;
	}
	if (len && d->next < d->n) {
		const struct rpcrdma_ddp_chunk *c = &d->chunks[d->next];

		if (c->len == len) {
			memcpy(addr, c->data, len);
			d->pad = rpcrdma_xdr_roundup(len) - len;
			d->next++;
			return TRUE;
		}
		if (d->ddp_min && len >= d->ddp_min) {
			/* An eligible item meets a chunk with other data:
			 * the reply does not match this XDR routine. */
			if (c->len)
				return FALSE;
			d->next++;
		}
	}
	return XDR_GETBYTES(&d->inner, addr, len);
}

static bool_t dd_putbytes(XDR *xdrs, const char *addr, u_int len)
{
	(void)xdrs;
	(void)addr;
	(void)len;
	return FALSE;
}

static u_int dd_getpostn(XDR *xdrs)
{
	return XDR_GETPOS(&to_dd(xdrs)->inner);
}

static bool_t dd_setpostn(XDR *xdrs, u_int pos)
{
	return XDR_SETPOS(dd_inner(xdrs), pos);
}

static int32_t *dd_inline(XDR *xdrs, u_int len)
{
	return XDR_INLINE(dd_inner(xdrs), len);
}

static void dd_destroy(XDR *xdrs)
{
	XDR_DESTROY(&to_dd(xdrs)->inner);
}

static bool_t dd_control(XDR *xdrs, int req, void *info)
{
	XDR *in = &to_dd(xdrs)->inner;

	return in->x_ops->x_control ? in->x_ops->x_control(in, req, info)
				    : FALSE;
}

static const struct xdr_ops xdrddp_ops = {
	.x_getlong = dd_getlong,
	.x_putlong = dd_putlong,
	.x_getbytes = dd_getbytes,
	.x_putbytes = dd_putbytes,
	.x_getpostn = dd_getpostn,
	.x_setpostn = dd_setpostn,
	.x_inline = dd_inline,
	.x_destroy = dd_destroy,
	.x_control = dd_control,
};

int rpcrdma_xdrddp_create(XDR *xdrs, struct rpcrdma_xdrddp *d, void *inl,
			  size_t inl_len, uint32_t ddp_min)
{
	if (d->n > RPCRDMA_MAX_WRITE_CHUNKS || inl_len > UINT32_MAX)
		return -EINVAL;
	xdrmem_create(&d->inner, inl, (u_int)inl_len, XDR_DECODE);
	d->next = 0;
	d->pad = 0;
	d->ddp_min = ddp_min;
	memset(xdrs, 0, sizeof(*xdrs));
	xdrs->x_op = XDR_DECODE;
	xdrs->x_ops = &xdrddp_ops;
	xdrs->x_private = d;
	return 0;
}

bool rpcrdma_xdrddp_done(const struct rpcrdma_xdrddp *d)
{
	for (uint32_t i = d->next; i < d->n; i++)
		if (d->chunks[i].len)
			return false;
	return true;
}
