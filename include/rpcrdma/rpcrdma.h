/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librpcrdma: RPC-over-RDMA version 1 as a libtirpc transport.
 *
 * A program selects RDMA either explicitly (clnt_rdma_create,
 * svc_rdma_create) or by the netid "rdma" / "rdma6" in libtirpc's own
 * creators (clnt_create, clnt_create_timed, clnt_tp_create,
 * clnt_tp_create_timed, svc_create, svc_tp_create, svc_tli_create,
 * svc_reg, rpcb_set, getnetconfigent, freenetconfigent), which librpcrdma
 * interposes when linked before libtirpc (-lrpcrdma -ltirpc); every other
 * netid goes to libtirpc.
 */
#ifndef RPCRDMA_RPCRDMA_H
#define RPCRDMA_RPCRDMA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <rpc/rpc.h>
#include <rpcrdma/wire.h>
#include <rpcrdma/stats.h>
#include <rpcrdma/pvtdata.h>

/* Knobs for either side. Environment variables (RPCRDMA_PORT,
 * RPCRDMA_SRCADDR, RPCRDMA_INLINE, RPCRDMA_CREDITS, RPCRDMA_MAX_MSG,
 * RPCRDMA_MAX_CONNS, RPCRDMA_NO_PVTDATA)
 * override the defaults for programs created through the netid. */
struct rpcrdma_opts {
	uint16_t port;		/* 0: client asks rpcbind; server: 20049 */
	const char *src_addr;	/* client: source address to bind, or NULL */
	uint32_t inline_send;	/* advertised Send size (RFC 8797), 4096 */
	uint32_t inline_recv;	/* advertised Receive size, 4096 */
	uint32_t credits;	/* client: slots; server: most it grants, 32 */
	uint32_t max_msg;	/* largest call or reply (long ones), 1 MiB */
	bool no_pvtdata;	/* send no Private Data (interop tests) */
	bool remote_inv;	/* advertise the R bit when supported */
	int timeout_ms;		/* address/route resolution and connect */
	uint32_t max_conns;	/* server: connections at once (256); one
				 * more is rejected (RDMA-CM REJECT) */
};
void rpcrdma_opts_default(struct rpcrdma_opts *o);

/* clnt_control() requests beyond libtirpc's own. */
#define CLGET_RDMA_STATS	0x5201	/* struct rpcrdma_stats * */
#define CLGET_RDMA_INLINE	0x5202	/* struct rpcrdma_inline * */

CLIENT *clnt_rdma_create(const char *host, rpcprog_t prog, rpcvers_t vers,
			 const struct rpcrdma_opts *opts);
/* A listener on addr (an IPv4/IPv6 literal, NULL: any) and opts->port
 * (0: 20049); opts NULL: defaults and RPCRDMA_* environment. It is
 * xprt_register'ed; it registers nothing with rpcbind by itself. */
SVCXPRT *svc_rdma_create(const char *addr, const struct rpcrdma_opts *opts);
/* svc_reg(xprt, prog, vers, dispatch, NULL) plus RPCBPROC_SET under the
 * transport's netid ("rdma"/"rdma6") when rpcbind runs (its absence is not
 * an error). svc_create / svc_tp_create with an rdma netid do this. */
bool rpcrdma_svc_reg(SVCXPRT *xprt, rpcprog_t prog, rpcvers_t vers,
		     void (*dispatch)(struct svc_req *, SVCXPRT *));

/* Per-connection counters of a CLIENT or of a connection SVCXPRT. */
int rpcrdma_clnt_stats(CLIENT *cl, struct rpcrdma_stats *out);
int rpcrdma_svc_stats(SVCXPRT *xprt, struct rpcrdma_stats *out);

#endif /* RPCRDMA_RPCRDMA_H */
