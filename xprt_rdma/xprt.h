/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the libtirpc glue (clnt_rdma.c, svc_rdma.c, netid.c). */
#ifndef RPCRDMA_XPRT_H
#define RPCRDMA_XPRT_H

#include <rpcrdma/rpcrdma.h>
#include "engine.h"

/* Fills o from the defaults, then the RPCRDMA_* environment variables. */
void rpcrdma_opts_from_env(struct rpcrdma_opts *o);
/* The one place the creators report failure: rpc_createerr (err is an
 * errno, either sign). Internal: not exported by librpcrdma.map. */
void xprt_createerr(enum clnt_stat st, int err);
/* Converts the public options to the engine's; 0 or -EINVAL. */
int rpcrdma_opts_to_ep(const struct rpcrdma_opts *o, struct rpcrdma_ep_opts *eo);

/* rpcbind over TCP to the local (server) or remote (client) rpcbind,
 * because libtirpc's helpers only know netids in /etc/netconfig. */
int rpcrdma_rpcb_set(rpcprog_t prog, rpcvers_t vers, const char *netid,
		     const struct sockaddr *addr);
int rpcrdma_rpcb_unset(rpcprog_t prog, rpcvers_t vers, const char *netid);
/* Looks the program up in the host's rpcbind (RPCBPROC_DUMP, since
 * GETADDR answers empty for "rdma"); 0 and *port, or -ENOENT. */
int rpcrdma_rpcb_lookup(const char *host, rpcprog_t prog, rpcvers_t vers,
			const char *netid, uint16_t *port);

/*
 * Growable XDR encode stream (xdr_grow.c): encodes a call or reply of
 * unknown size into a heap buffer that doubles as needed, up to max bytes
 * (an encode past max fails cleanly: the XDR routine returns FALSE).
 * XDR_ENCODE only. The buffer stays valid until the next encode, reset or
 * destroy. create: 0, -EINVAL (initial > max or max == 0) or -ENOMEM.
 */
int rpcrdma_xdrgrow_create(XDR *xdrs, size_t initial, size_t max);
/* The encoded bytes so far; *len gets their count (XDR_GETPOS). */
void *rpcrdma_xdrgrow_buf(XDR *xdrs, size_t *len);
/* Empties the stream for reuse, keeping the buffer's capacity. */
void rpcrdma_xdrgrow_reset(XDR *xdrs);
/* Frees the buffer; XDR_DESTROY does the same. */
void rpcrdma_xdrgrow_destroy(XDR *xdrs);

#endif /* RPCRDMA_XPRT_H */
