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
 * RPCRDMA_MAX_CONNS, RPCRDMA_IDLE_MS, RPCRDMA_STALL_MS, RPCRDMA_DDP_THRESHOLD,
 * RPCRDMA_ZC_THRESHOLD, RPCRDMA_NO_PVTDATA)
 * override the defaults for programs created through the netid. */
struct rpcrdma_opts {
	uint16_t port;		/* 0: client asks rpcbind; server: 20049 */
	const char *src_addr;	/* client: source address to bind, or NULL */
	uint32_t inline_send;	/* advertised Send size (RFC 8797), 4096 */
	uint32_t inline_recv;	/* advertised Receive size, 4096 */
	uint32_t credits;	/* client: slots; server: most it grants, 32 */
	uint32_t max_msg;	/* server: largest call it takes or reply it
				 * sends; client: largest reply it takes
				 * without a hint (its default reply chunk),
				 * largest write chunk; 16 MiB + 64 KiB.
				 * A client's calls are bounded only by
				 * RPCRDMA_CALL_MAX and the server (which
				 * answers ERR_CHUNK beyond its max_msg) */
	bool no_pvtdata;	/* send no Private Data (interop tests) */
	bool remote_inv;	/* advertise the R bit (RFC 8797 section
				 * 4.1), true: a client does where it exposes
				 * memory through windows (not rxe before
				 * Linux 6.12); a server then sends Send With
				 * Invalidate when the call names one rkey */
	int timeout_ms;		/* address/route resolution and connect */
	uint32_t max_conns;	/* server: connections at once (256); one
				 * more is rejected (RDMA-CM REJECT) */
	uint32_t stall_ms;	/* server: a connection whose RDMA Reads,
				 * Writes or signaled Sends make no progress
				 * for this long is closed (15000; 0: never;
				 * rpcrdma_opts_default(3) says which Sends) */
	uint32_t ddp_threshold;	/* direct data placement (RFC 8166 section
				 * 3.4, the generic rule of docs/design.md):
				 * an opaque, bytes or string item of at
				 * least this many bytes moves into a chunk
				 * (client: a read chunk when the call does
				 * not fit inline; server: the next write
				 * chunk offered). Both ends must agree;
				 * RPCRDMA_DDP_THRESHOLD, 0: never; values
				 * below RPCRDMA_DDP_MIN count as it */
	uint32_t zc_threshold;	/* client: an argument item of at least
				 * this many bytes that goes in a read chunk
				 * is exposed from the caller's memory,
				 * registered for the call, not copied (the
				 * crossover measured in docs/performance.md;
				 * AUTH_NONE and AUTH_SYS calls only). The
				 * XDR routine must encode it from memory
				 * that outlives clnt_call, as the arguments
				 * are. RPCRDMA_ZC_THRESHOLD, 1 MiB; 0: copy */
	uint32_t poll_us;	/* client: a caller waiting for its reply
				 * polls the completion queue this many
				 * microseconds before it sleeps (0: sleeps
				 * at once; at most 100000). The default,
				 * RPCRDMA_POLL_AUTO, polls about two round
				 * trips as observed, when they are short
				 * (RPCRDMA_POLL_AUTO_MAX_US at most) */
	uint32_t max_conns_per_source; /* server: of max_conns, how many
				 * one client host may hold (64; 0: no
				 * limit); one more is rejected */
	uint32_t idle_ms;	/* server: a connection that carried nothing
				 * and had no call in progress for this long
				 * is closed, within half as long again
				 * (360000, six minutes, as the Linux
				 * server; 0: never). At max_conns, one idle
				 * for half as long makes room for a new
				 * client */
	uint32_t conn_mem_max;	/* server: bytes the calls in progress on one
				 * connection may hold (their RDMA Read
				 * buffers, rebuilt calls and replies,
				 * buffers kept between calls counted);
				 * beyond it calls wait, never fail.
				 * RPCRDMA_CONN_MEM_AUTO: 4 x max_msg; at
				 * least max_msg; 0: no cap */
};
#define RPCRDMA_CONN_MEM_AUTO	0xffffffffu
#define RPCRDMA_POLL_AUTO	0xffffffffu
#define RPCRDMA_POLL_AUTO_MAX_US 1000u
#define RPCRDMA_ZC_THRESHOLD	(1u << 20)
#define RPCRDMA_CALL_MAX	(1u << 30)	/* a client's largest call */
#define RPCRDMA_DDP_THRESHOLD	1024u
#define RPCRDMA_DDP_MIN		512u
void rpcrdma_opts_default(struct rpcrdma_opts *o);

/* clnt_control() requests beyond libtirpc's own. */
#define CLGET_RDMA_STATS	0x5201	/* struct rpcrdma_stats * */
#define CLGET_RDMA_INLINE	0x5202	/* struct rpcrdma_inline * */
/*
 * Reply size hints (RFC 8166 section 3.5.4: a requester offers a reply
 * chunk when the reply might not fit inline). Without a hint every call
 * offers a reply chunk of max_msg bytes, registered for the call: safe
 * for any reply, and the largest part of a small call's cost. With a
 * hint, the largest RPC reply message (header included) of a procedure,
 * a call offers no reply chunk when that fits the inline threshold, and
 * else one of the hinted size. The hint must be an upper bound: a larger
 * reply then fails its call (RPC_CANTDECODEARGS, re_errno EBADMSG: the
 * server's ERR_CHUNK) after the server ran the procedure.
 *
 * CLSET_RDMA_REPLY_MAX: uint32_t *, the bound for every procedure without
 * a hint of its own (0: none, the default). CLSET_RDMA_PROC_REPLY: struct
 * rpcrdma_proc_reply *, one procedure's bound (0: forget it).
 */
#define CLSET_RDMA_REPLY_MAX	0x5203
#define CLGET_RDMA_REPLY_MAX	0x5204
#define CLSET_RDMA_PROC_REPLY	0x5205
#define CLGET_RDMA_PROC_REPLY	0x5206	/* in: proc; out: its bound or 0 */
struct rpcrdma_proc_reply {
	rpcproc_t proc;
	uint32_t reply_max;
};

/*
 * Direct data placement of results (RFC 8166 sections 3.4.6 and 3.5.2):
 * the calls of procedure proc offer 'items' write chunks (at most
 * RPCRDMA_MAX_WRITE_CHUNKS) of item_max bytes each, and the responder
 * places in the n-th one the n-th opaque, bytes or string item of the
 * reply that reaches the DDP threshold (opts.ddp_threshold, the same on
 * both ends; docs/design.md). The reply's XDR routine then reads those
 * items from the chunks: into the caller's buffer when the result names
 * one (xdr_bytes with a non-NULL pointer), else into memory it allocates.
 * An item larger than item_max stays in the reply (inline or in the
 * reply chunk). With such a hint, a procedure's reply bound
 * (CLSET_RDMA_PROC_REPLY) counts the reply without its placed items.
 * item_max is at most max_msg (else clnt_control returns FALSE); a slot
 * that carries such a call keeps items * item_max bytes more for its
 * replies, registered once. items 0 forgets the hint.
 */
#define CLSET_RDMA_PROC_DDP	0x5207	/* struct rpcrdma_proc_ddp * */
#define CLGET_RDMA_PROC_DDP	0x5208	/* in: proc; out: its hint or 0s */
#define CLGET_RDMA_MAX_MSG	0x5209	/* uint32_t *: largest call or reply */
struct rpcrdma_proc_ddp {
	rpcproc_t proc;
	uint32_t items;
	uint32_t item_max;
};

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

/*
 * Serves every rdma transport of the process (listeners and the
 * connections they accept, created before or during the call) with
 * nthreads threads, until rpcrdma_svc_exit(); the dispatch functions are
 * those registered with svc_reg / rpcrdma_svc_reg, called the way svc_run
 * calls them (libtirpc's svc_getreq_common), one call at a time per
 * connection and different connections in parallel. Register services
 * before, and destroy transports only after, it returns. Start it before
 * any other thread serves the rdma transports (svc_run, svc_getreq_poll):
 * until then they are libtirpc's, and one being served at the moment the
 * pool takes it over would be served twice at once. libtirpc's svc_run
 * may then run in another thread for the other netids (tcp, udp): the
 * rdma transports are invisible to it until the pool stops, when they go
 * back to it (a transport of the pool's own wakes it to see them).
 *
 * Dispatch functions may switch their own thread's credentials per call
 * (setfsuid/setfsgid, or syscall(SYS_setresuid / SYS_setgroups ...)):
 * the thread is replaced after such a call (counter cred_changes). glibc's
 * setresuid, seteuid and setgroups switch every thread of the process,
 * after which the kernel refuses the devices to all of them: the pool
 * then stops with -EACCES.
 *
 * Returns 0 after rpcrdma_svc_exit, -EINVAL (nthreads 0 or above
 * RPCRDMA_SVC_MAX_THREADS), -EBUSY (already running), -EACCES, -errno.
 */
#define RPCRDMA_SVC_MAX_THREADS	256u
int rpcrdma_svc_run(unsigned int nthreads);
/*
 * on false: the application's word that no dispatch function changes its
 * own thread's credentials (it switches on threads of its own, as nfs3d
 * does), so the pool skips the check it makes after each call (two
 * system calls per call). A thread whose commands the kernel refuses all
 * the same is still found and replaced, but a reply it sent may be lost
 * with its connection. true (the default) checks. While no pool runs: 0,
 * or -EBUSY.
 */
int rpcrdma_svc_cred_check(bool on);
/* Makes rpcrdma_svc_run return once the calls being served are done.
 * From any thread (a dispatch function too), not from a signal handler. */
void rpcrdma_svc_exit(void);
/* rpcrdma_svc_run in a thread of the library's: returns once the pool
 * serves (0) or failed to start (-errno); then svc_run, or anything else,
 * may run in the calling thread. rpcrdma_svc_wait waits for that pool to
 * end (rpcrdma_svc_exit, or -EACCES) and returns what rpcrdma_svc_run
 * returned; rpcrdma_svc_stop is rpcrdma_svc_exit then rpcrdma_svc_wait.
 * Both -ESRCH when no pool was started this way. One thread waits. */
int rpcrdma_svc_start(unsigned int nthreads);
int rpcrdma_svc_wait(void);
int rpcrdma_svc_stop(void);

/*
 * A server's transfer limits, which a libtirpc server may be used to
 * learn from its socket: an rdma SVCXPRT's xp_fd is an RDMA-CM or
 * completion channel, not a socket (getsockopt on it fails, ENOTSOCK).
 * SVC_CONTROL(xprt, SVCGET_RDMA_LIMITS, &l) or rpcrdma_svc_limits(xprt,
 * &l): on a connection, what was agreed with its peer (RFC 8797 Private
 * Data); on a listener, what it offers (the inline sizes it advertises,
 * which bound those of its connections). -EINVAL for another xprt. An NFS
 * server's rtmax and wtmax (RFC 1813 section 3.3.19) are max_reply and
 * max_call less the headers around the data (a few KiB).
 */
#define SVCGET_RDMA_LIMITS	0x5301	/* struct rpcrdma_svc_limits * */
struct rpcrdma_svc_limits {
	uint32_t max_call;	/* largest RPC call taken, chunks included */
	uint32_t max_reply;	/* largest RPC reply sent, chunks included */
	uint32_t inline_send;	/* largest message Sent to the peer */
	uint32_t inline_recv;	/* largest message the peer may Send */
	uint32_t credits;	/* most calls in progress it grants */
	uint32_t ddp_threshold;	/* reply items from this size go in the
				 * write chunks a call offers */
	bool remote_inv;	/* replies may Send With Invalidate */
	bool connected;		/* a connection, not a listener */
};
int rpcrdma_svc_limits(SVCXPRT *xprt, struct rpcrdma_svc_limits *out);

/*
 * Bi-directional RPC (RFC 8167): calls from the server to the client on
 * the connection the client opened, RDMA_MSG with every chunk list empty
 * and the whole RPC message inline, in either direction.
 *
 * Backward credits (RFC 8167 section 3.1) are counted apart from the
 * forward ones: a client grants RPCRDMA_BC_CREDITS in every backward
 * reply and keeps that many receives posted for backward calls beyond
 * its forward credits (section 3.3.1); a server has at most one backward
 * call outstanding per connection until the first backward reply, then
 * at most the client's grant (never above RPCRDMA_BC_CREDITS), and keeps
 * as many receives posted for their replies (section 3.3.2).
 */
#define RPCRDMA_BC_CREDITS	8u

/*
 * Client side: serves program prog, version vers on the connection of the
 * RDMA CLIENT cl (and on every later one, after reconnects) with dispatch,
 * called the way svc_run calls a dispatch function: svc_getargs,
 * svc_sendreply, svcerr_* work on the SVCXPRT it gets, whose replies go
 * back inline (never destroy it). The first registration starts one
 * thread of the library's for cl, which polls cl's connection while no
 * caller of clnt_call does and runs the dispatch functions, one backward
 * call at a time; a dispatch function may call clnt_call on cl (or any
 * other CLIENT). Another program or version answers PROG_UNAVAIL or
 * PROG_MISMATCH; without any registration backward calls are answered
 * PROG_UNAVAIL too. A reply larger than the server's inline receive
 * threshold is answered SYSTEM_ERR in its place (svc_sendreply returns
 * false; counter bc_replies_too_big).
 * false: cl not an RDMA CLIENT, or no memory or thread.
 */
bool rpcrdma_clnt_svc_reg(CLIENT *cl, rpcprog_t prog, rpcvers_t vers,
			  void (*dispatch)(struct svc_req *, SVCXPRT *));

/*
 * Server side: a CLIENT that sends calls of prog, vers backward over the
 * connection transport xprt (an rdma SVCXPRT handed to a dispatch
 * function, not a listener). clnt_call works from the dispatch function
 * serving a call of xprt (it then polls the connection itself) and from
 * any other thread while the connection is served (svc_run,
 * rpcrdma_svc_run), with the CLIENT's timeout (CLSET_TIMEOUT, 25 s) or
 * clnt_call's. A call (RDMA header included) larger than the client's
 * inline receive threshold fails with RPC_CANTENCODEARGS (re_errno
 * EMSGSIZE), nothing sent; once the connection is gone every call fails
 * (RPC_CANTSEND or RPC_CANTRECV, re_errno ENOTCONN). The CLIENT may
 * outlive xprt; destroy it with clnt_destroy. NULL and rpc_createerr on
 * failure.
 */
CLIENT *rpcrdma_svc_callback_create(SVCXPRT *xprt, rpcprog_t prog,
				    rpcvers_t vers);

/* Per-connection counters of a CLIENT or of a connection SVCXPRT. */
int rpcrdma_clnt_stats(CLIENT *cl, struct rpcrdma_stats *out);
int rpcrdma_svc_stats(SVCXPRT *xprt, struct rpcrdma_stats *out);

/*
 * The library prints nothing. What it has to tell an operator goes to
 * fn, one line (no newline) per event, from the thread that noticed it:
 * today, every connection a server closes on its own, with the peer's
 * address and the reason (each reason also has its counter). The line
 * is only valid during the call; fn must not call back into the
 * library. NULL (the default) drops them. Process-wide.
 */
typedef void (*rpcrdma_log_fn)(void *arg, const char *line);
void rpcrdma_set_log(rpcrdma_log_fn fn, void *arg);

#endif /* RPCRDMA_RPCRDMA_H */
