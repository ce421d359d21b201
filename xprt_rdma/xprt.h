/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the libtirpc glue (clnt_rdma.c, svc_rdma.c, netid.c). */
#ifndef RPCRDMA_XPRT_H
#define RPCRDMA_XPRT_H

#include <rpcrdma/rpcrdma.h>
#include "engine.h"

/* Fills o from the defaults, then the RPCRDMA_* environment variables. */
void rpcrdma_opts_from_env(struct rpcrdma_opts *o);
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

#endif /* RPCRDMA_XPRT_H */
