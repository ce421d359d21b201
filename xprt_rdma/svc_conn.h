/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to the server files: the listener, connection, call context
 * and backward-direction structs, the tunables, the counting macro, the
 * small helpers of the hot path, and the functions one file calls in
 * another. Floor order, top to bottom: svc_rdma.c -> svc_recv.c ->
 * svc_bc.c, svc_send.c -> svc_call.c -> this header (and tirpc.c, the
 * engine, lib/ below it all); a file calls only files below it.
 */
#ifndef RPCRDMA_SVC_CONN_H
#define RPCRDMA_SVC_CONN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <rpc/rpc.h>
#include <rpc/svc_mt.h>
#include <rpcrdma/hdr.h>
#include <rpcrdma/credits.h>
#include "svc.h"
#include "xprt.h"

#define SVC_REPLY_INITIAL	4096u
#define SVC_BURST		16u	/* messages per xp_recv */
#define SVC_ROUNDS		8u	/* xp_recv rounds before others' turn */
#define SVC_HOLD_MAX		4u	/* replies held for one doorbell */
#define SVC_KEEP_BYTES		(256u << 10) /* per call, kept while idle */
#define SVC_KEEP_BIG		4u	/* contexts that keep more between
					 * calls, until the connection idles
					 * or needs them under its cap */
#define SVC_CALLS_EXTRA		16u	/* contexts beyond 2 x credits */

struct svc_lsn {
	SVCXPRT xprt;
	SVCXPRT_EXT ext;
	struct svc_member mem;
	struct rpcrdma_listener *l;
	struct rpcrdma_opts opts;
	struct sockaddr_storage laddr;
	/* Told of the destruction first (svc_rdma_on_destroy), or NULL. */
	void (*on_destroy)(SVCXPRT *xprt);
};

struct svc_conn;

/* One call in progress on a connection, from its receive until its
 * reply is posted (without chunks) or its Writes and Send completed. */
enum call_state {
	CALL_FREE,
	CALL_WAITING,		/* its Reads wait for memory (conn_mem_max),
				 * only its receive held */
	CALL_READING,		/* its RDMA Reads are in flight */
	CALL_READY,		/* waiting for dispatch */
	CALL_SERVING,		/* in the dispatch function */
	CALL_SENDING,		/* its reply (or RDMA_ERROR) is posted */
};

struct svc_call {
	struct svc_conn *c;
	enum call_state state;
	struct svc_call *next;		/* free list, wait or ready queue */
	bool has_rx;
	struct rpcrdma_rx rx;		/* its message, until the reply */
	struct rpcrdma_msg hdr;		/* its transport header */
	size_t hlen;
	const uint8_t *msg;		/* the RPC call, once gathered */
	size_t msg_len;
	struct rpcrdma_segment rdsegs[RPCRDMA_MAX_READ_SEGS];
	uint8_t *rdbuf;			/* data pulled by RDMA Read */
	size_t rdcap;
	uint8_t *callbuf;		/* a call rebuilt by splicing */
	size_t callcap;
	uint64_t rdtotal;		/* bytes its read chunks carry */
	size_t splice_len;		/* its call rebuilt, 0: read whole */
	size_t replycap;		/* its reply stream's, counted */
	bool reads_on;			/* rdbuf and callbuf hold its call */
	bool mem_waited;		/* counted in calls_waited_memory */
	struct rpcrdma_xfer xfer;	/* its Reads, then its reply */
	bool big;			/* holds more than SVC_KEEP_BYTES */
	bool reply_ok;
	bool garbage;			/* its chunks do not fit its call:
					 * answered GARBAGE_ARGS, not run */
	XDR reply;			/* growable encode stream */
	uint8_t hbuf[RPCRDMA_HDR_FIXED + 4 + 4 + 4 + 8 +
		     4 * (RPCRDMA_MAX_SEGS + RPCRDMA_MAX_WRITE_CHUNKS) +
		     RPCRDMA_SEGMENT_WIRE * RPCRDMA_MAX_SEGS];
};

/*
 * Backward calls (RFC 8167) of one connection, shared by the connection
 * and its callback CLIENTs (which may outlive it): refcounted. Its lock
 * comes after nothing of the connection's (the connection's fields are
 * only touched by the thread serving it).
 */
enum bc_state { BC_FREE, BC_WAITING, BC_DONE, BC_ABANDONED };
struct bc_slot {
	enum bc_state state;
	uint32_t xid;
	int err;			/* 0, -ENOTCONN, -EBADMSG, -EMSGSIZE,
					 * -EPROTO */
	uint32_t rdma_err;		/* RDMA_ERROR code with -EPROTO */
	uint32_t len;			/* reply bytes in buf */
	uint8_t *buf;			/* inline_recv bytes */
};
struct conn_bc {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	uint32_t refs;
	struct svc_conn *c;		/* NULL once the connection is gone */
	struct rpcrdma_ep *ep;		/* likewise */
	/* How bc_wait moves c on: conn_pump, set by conn_create. */
	void (*pump)(struct svc_conn *c, int ms);
	uint32_t senders;		/* threads sending on ep, unlocked */
	bool dead;
	bool close_wanted;		/* atomic: bc_abandoned asks the thread
					 * serving c to close it */
	/* disp_thread runs a dispatch of c. Both atomic, no lock
	 * (bc_dispatching, bc_wait). */
	bool in_dispatch;
	pthread_t disp_thread;
	uint32_t next_xid;
	struct rpcrdma_req_credits cr;	/* RFC 8167 section 3.1 */
	struct bc_slot slots[RPCRDMA_BC_CREDITS];
};

struct svc_conn {
	SVCXPRT xprt;
	SVCXPRT_EXT ext;
	struct svc_member mem;
	struct rpcrdma_ep *ep;
	uint32_t max_msg;
	uint32_t max_credits;
	uint32_t ddp_min;		/* items moved into write chunks */
	struct rpcrdma_limits lim;
	struct sockaddr_storage laddr, raddr;
	bool dead;
	int close_err;			/* close left to a clean thread */
	enum rpcrdma_close_why close_why; /* and its reason */
	uint32_t grant_max;		/* largest grant sent so far */
	uint32_t rounds;		/* xp_recv rounds in a row */
	uint32_t nheld;			/* replies held for one doorbell */

	struct svc_call *calls;		/* ncalls contexts */
	uint32_t ncalls, inuse;
	uint32_t nbig;			/* contexts with big set */
	uint32_t active;		/* reading, ready or serving */
	struct svc_call *free;
	struct svc_call *ready, *ready_tail;
	struct svc_call *serving;	/* handed to libtirpc */
	/*
	 * Bytes the contexts' buffers hold (read, rebuilt call, reply; kept
	 * ones too) against mem_max (0: no cap): calls with read chunks
	 * over it wait in mwait, in order; mem_held says that the ready
	 * queue's head waits (svc_recv.c, conn_mem_admit / conn_mem_hold).
	 */
	size_t mem_used, mem_max;
	struct svc_call *mwait, *mwait_tail;
	bool mem_held;
	XDR args;			/* memory stream over its call */
	struct conn_bc *bc;		/* backward calls */
	struct rpcrdma_msg bchdr;	/* decode area for backward replies */
};

static inline struct svc_conn *to_conn(SVCXPRT *xprt)
{
	return (struct svc_conn *)((char *)xprt -
				   offsetof(struct svc_conn, xprt));
}

/* Counts on this connection and in the process totals (engine.h). */
#define STAT_INC(c, f)	RPCRDMA_STAT_ADD((c)->ep, f, 1)

/* A buffer of c's grew from old to now bytes (its peak is a gauge). */
static inline void conn_mem_grew(struct svc_conn *c, size_t old, size_t now)
{
	c->mem_used += now - old;
	RPCRDMA_STAT_MAX(c->ep, conn_mem_peak, c->mem_used);
}

/* What k's buffers hold, counted in c->mem_used. */
static inline size_t call_mem(const struct svc_call *k)
{
	return k->rdcap + k->callcap + k->replycap;
}

/* Empties k's transfer for its next use (Reads, or a reply). */
static inline void call_xfer_reset(struct svc_call *k)
{
	memset(&k->xfer, 0, sizeof(k->xfer));
	k->xfer.owner = k;
}

/* Gives the received buffer back (the call's bytes are no longer needed). */
static inline void call_drop_rx(struct svc_call *k)
{
	if (k->has_rx) {
		rpcrdma_ep_rx_done(k->c->ep, &k->rx);
		k->has_rx = false;
	}
}

/* The callback CLIENT. */
struct cbc {
	CLIENT clnt;
	struct conn_bc *bc;
	pthread_mutex_t lock;		/* the fields below */
	struct timeval wait;
	bool wait_set;
	struct rpc_err error;
	uint32_t last_xid;
	rpcprog_t prog;
	rpcvers_t vers;
};

/* svc_call.c */
void call_free_buffers(struct svc_call *k);
void call_mem_reply(struct svc_call *k);
size_t conn_mem_trim(struct svc_conn *c, const struct svc_call *skip);
void call_wait_mem(struct svc_call *k);
void call_count_mem_wait(struct svc_call *k);
struct svc_call *call_get(struct svc_conn *c);
void call_put(struct svc_call *k);
void conn_fail(struct svc_conn *c, enum rpcrdma_close_why why, int err);
void conn_close_pending(struct svc_conn *c);
void conn_count_error_recv(struct svc_conn *c,
			   const struct rpcrdma_msg *h);
void conn_end_serving(struct svc_conn *c);

/* svc_send.c */
void call_send_error(struct svc_call *k, enum rpcrdma_errcode err);
bool_t conn_reply(SVCXPRT *xprt, struct rpc_msg *msg);
void conn_reply_garbage(struct svc_conn *c);

/* svc_bc.c */
struct conn_bc *bc_create(uint32_t recv_max);
void bc_unref(struct conn_bc *bc);
void bc_kill_locked(struct conn_bc *bc);
void bc_kill(struct conn_bc *bc);
void bc_dispatching(struct svc_conn *c, bool on);
bool conn_take_bc_answer(struct svc_conn *c, struct rpcrdma_rx *rx);
bool msg_is_not_bc_answer(const uint8_t *data, uint32_t len);
extern const struct clnt_ops cbc_ops;

/* svc_recv.c; conn_pump reaches svc_bc.c's bc_wait only as bc->pump,
 * set by conn_create. */
void conn_pump(struct svc_conn *c, int ms);
/* Posts the replies held for one doorbell (svc_send.c) and reaps those
 * done by it. */
void conn_flush_held(struct svc_conn *c);
bool_t conn_recv(SVCXPRT *xprt, struct rpc_msg *msg);
bool_t conn_getargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp);
bool_t conn_freeargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp);

#endif /* RPCRDMA_SVC_CONN_H */
