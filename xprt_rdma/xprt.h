/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the libtirpc glue (clnt_rdma.c, svc_rdma.c, netid.c). */
#ifndef RPCRDMA_XPRT_H
#define RPCRDMA_XPRT_H

#include <rpcrdma/rpcrdma.h>
#include <rpcrdma/plan.h>
#include "engine/engine.h"

/* Fills o from the defaults, then the RPCRDMA_* environment variables. */
void rpcrdma_opts_from_env(struct rpcrdma_opts *o);
/* getenv for RPCRDMA_* (opts.c): NULL in a privileged (set-user-ID,
 * capabilities) process, where the environment is the caller's. */
const char *rpcrdma_getenv(const char *name);
/* The one place the creators report failure: rpc_createerr (err is an
 * errno, either sign). Internal: not exported by librpcrdma.map. */
void xprt_createerr(enum clnt_stat st, int err);
/* A line for the operator, through rpcrdma_set_log's hook (log.c). */
void xprt_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Converts the public options to the engine's; 0 or -EINVAL. */
/* For a CLIENT of ours whose last call failed against a limit: what the
 * limit was and which knob moves it, into buf (clnt_sperror appends it).
 * Returns the length, 0 when there is nothing to say or cl is not ours. */
int rpcrdma_clnt_errtext(CLIENT *cl, char *buf, size_t len);
int rpcrdma_opts_to_ep(const struct rpcrdma_opts *o, struct rpcrdma_ep_opts *eo);
/* A server connection's cap on its calls' bytes from o->conn_mem_max
 * (RPCRDMA_CONN_MEM_AUTO resolved, at least max_msg); 0: none. */
size_t rpcrdma_conn_mem_max(const struct rpcrdma_opts *o);

/* CLOCK_MONOTONIC in microseconds (deadline.c). */
uint64_t xprt_now_us(void);
/* The longest a caller polls, whatever opts.poll_us says: a tenth of a
 * second is already far past any round trip worth polling for. */
#define XPRT_POLL_MAX_US	100000u
/* The smoothed round trip with one more sample (0: none yet). */
uint32_t xprt_srtt_update(uint32_t srtt_us, uint64_t sample_us);
/*
 * How long a caller waiting for the reply to its call, sent at sent_us,
 * polls the CQ before it sleeps, at now_us: poll_us as set, or with
 * RPCRDMA_POLL_AUTO until two smoothed round trips have passed since the
 * call went, and not at all while no round trip is known or one is over
 * RPCRDMA_POLL_AUTO_MAX_US (a wake-up is then a small part of the wait).
 * The caller also checks that no other caller could use the core.
 */
uint32_t xprt_poll_budget(uint32_t poll_us, uint32_t srtt_us,
			  uint64_t sent_us, uint64_t now_us);
/* dl = now + tv on CLOCK_MONOTONIC, tv at most XPRT_TIMEOUT_MAX_S
 * (deadline.c); milliseconds left until dl, rounded up, 0 when passed,
 * INT_MAX at most. */
#define XPRT_TIMEOUT_MAX_S	((time_t)10 * 365 * 86400)	/* 10 years */
/* Returns the clock it read (xprt_now_us's), for a caller that needs
 * "now" too. */
uint64_t xprt_deadline_after(struct timespec *dl, const struct timeval *tv);
int xprt_ms_left(const struct timespec *dl);
/* The same at now_us (xprt_now_us's clock), read by the caller already. */
int xprt_ms_left_at(const struct timespec *dl, uint64_t now_us);

/* Whether xprt is an rdma listener or connection (svc_rdma.c). */
bool svc_rdma_owns(const SVCXPRT *xprt);
/* Has the rdma listener xprt call fn(xprt) as it is destroyed, before
 * it is freed (netid.c forgets the one svc_create keeps); false when
 * xprt is no listener of ours. */
bool svc_rdma_on_destroy(SVCXPRT *xprt, void (*fn)(SVCXPRT *xprt));
/* The listener svc_create(..., netid) serves "rdma" or "rdma6" with, or
 * NULL (netid.c; the guest tests destroy it as an application may). */
SVCXPRT *rpcrdma_svc_made(const char *netid);

/* Encodes an RPC reply into x as svc_vc does, letting xprt's auth flavour
 * wrap the results (tirpc.c: the server's replies and the backward
 * direction's too). */
bool xprt_reply_encode(SVCXPRT *xprt, XDR *x, struct rpc_msg *msg);
/* Frees what decoding the reply msg from x allocated for its verifier:
 * an accepted reply's only (the rejected reply overlays it). */
void xprt_reply_verf_free(XDR *x, struct rpc_msg *msg);
/* Decodes the whole reply to xid in buf (RFC 5531 section 9), its
 * results by xres into resp within xdr_replymsg (no AUTH unwrap), the
 * verifier validated by auth and freed: the server's callback CLIENT
 * (svc_bc.c). The status, also in err. */
enum clnt_stat xprt_reply_decode(AUTH *auth, const uint8_t *buf,
				 uint32_t len, uint32_t xid, xdrproc_t xres,
				 void *resp, struct rpc_err *err);

/* The one mapping of a received RDMA_ERROR (its wire code, kept with
 * -EPROTO by the call it failed) to the call's clnt_stat and re_errno
 * (tirpc.c; both directions' CLIENTs). */
enum clnt_stat xprt_rdma_err_stat(uint32_t rdma_err, int *eno);
/* What both CLIENTs (the forward one, the server's callback one) do
 * alike (tirpc.c). */
bool xprt_timeval_ok(const struct timeval *tv);
void xprt_clnt_abort(CLIENT *cl);
bool_t xprt_clnt_freeres(CLIENT *cl, xdrproc_t xres, void *resp);

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
/* Bytes the buffer holds now (it keeps its largest size until freed). */
size_t rpcrdma_xdrgrow_cap(XDR *xdrs);
/* Whether an encode failed for want of room below max since the reset. */
bool rpcrdma_xdrgrow_over(XDR *xdrs);
/* Notes, from now on, the data items of at least min bytes (0: none) that
 * the generic DDP rule may move into chunks (up to RPCRDMA_PLAN_MAX_ITEMS,
 * later ones stay inline). */
void rpcrdma_xdrgrow_set_ddp(XDR *xdrs, uint32_t min);
/* From now on, encoding past max bytes fails, whatever max the stream
 * was created with (ignored when 0 or below what was written since the
 * last reset); the buffer is not shrunk. */
void rpcrdma_xdrgrow_set_max(XDR *xdrs, size_t max);
/* From now on, items of at least min bytes (0: none) are not copied: the
 * buffer keeps their place, the caller's memory (which must outlive the
 * message) keeps their bytes. */
void rpcrdma_xdrgrow_set_zc(XDR *xdrs, uint32_t min);
/* Where item i's bytes are when they were not copied, else NULL. */
const void *rpcrdma_xdrgrow_item_ext(XDR *xdrs, uint32_t i);
/* Copies item i in, if it was left out: the message is then whole there. */
void rpcrdma_xdrgrow_fill(XDR *xdrs, uint32_t i);
/* The items noted since the last reset, sorted; returns their count. */
uint32_t rpcrdma_xdrgrow_items(XDR *xdrs, const struct rpcrdma_item **items);
/* Copies the message's extents ext[0..n), in order, behind its end (the
 * buffer may move; the message and its position stay as they are): *off
 * gets where the copy starts. 0, -EINVAL (an extent outside the message),
 * -ENOMEM. */
int rpcrdma_xdrgrow_gather(XDR *xdrs, const struct rpcrdma_extent *ext,
			   uint32_t n, size_t *off);

/*
 * The DDP threshold in force: a credential or verifier (at most
 * MAX_AUTH_BYTES, 400, RFC 5531 section 8.2) is never an item, so no
 * threshold is below RPCRDMA_DDP_MIN (0 stays 0: no DDP).
 */
static inline uint32_t rpcrdma_ddp_min(uint32_t threshold)
{
	return threshold && threshold < RPCRDMA_DDP_MIN ? RPCRDMA_DDP_MIN
						       : threshold;
}

/*
 * Decode stream over an inline reply whose data items came in write
 * chunks (xdr_ddp.c): chunks[i] is what the responder wrote into write
 * chunk i (len 0: unused). Fill n and chunks, then create; after the
 * results are decoded, done says whether every returned chunk was
 * consumed (if not, the reply does not match its XDR routine).
 */
struct rpcrdma_ddp_chunk {
	const uint8_t *data;
	uint32_t len;
};
struct rpcrdma_xdrddp {
	XDR inner;
	uint32_t n, next, pad, ddp_min;
	struct rpcrdma_ddp_chunk chunks[RPCRDMA_MAX_WRITE_CHUNKS];
};
int rpcrdma_xdrddp_create(XDR *xdrs, struct rpcrdma_xdrddp *d, void *inl,
			  size_t inl_len, uint32_t ddp_min);
bool rpcrdma_xdrddp_done(const struct rpcrdma_xdrddp *d);

#endif /* RPCRDMA_XPRT_H */
