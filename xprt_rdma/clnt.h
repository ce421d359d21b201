/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to the client's files (clnt_*.c): the CLIENT's state (struct
 * ct), its slots, the backward service's structs, and the small helpers
 * several steps need on every call, static inline so that the split into
 * files adds no call on the fast path. The files form floors: each calls
 * only files below it, never one above (a new call upward needs a
 * function pointer set by the file above):
 *
 *   clnt_rdma.c    the CLIENT: ops, create / destroy, a call's
 *                  orchestration, clnt_control, public entry points
 *   clnt_call.c    one call's orchestration: connect, prepare, send,
 *                  wait, finish; the outcome as a clnt_stat
 *   clnt_bc.c      the backward service (RFC 8167) and its thread
 *   clnt_conn.c    connection lifecycle: first connect, reconnect
 *   clnt_marshal.c building and sending a call (its steps), per-procedure
 *                  hints
 *   clnt_reply.c   the poller, reply dispatch and decode, the backward
 *                  inbox
 *   clnt_expose.c  what a call lets the server touch, and its revocation
 *   clnt_slot.c    slot preparation, the connection reset, counters
 *   clnt.h         this header
 */
#ifndef RPCRDMA_CLNT_H
#define RPCRDMA_CLNT_H

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <rpc/rpc.h>
#include <rpc/svc_auth.h>
#include <rpcrdma/credits.h>
#include <rpcrdma/hdr.h>
#include <rpcrdma/plan.h>
#include <rpcrdma/splice.h>
#include "xprt.h"

#define CT_CALLHDR_LEN 20  /* xid, CALL, rpcvers, prog, vers */
#define CT_REPLY_PLAIN_LEN 24 /* xid, REPLY, MSG_ACCEPTED, verifier, SUCCESS */
/* Our largest header: every read chunk a DDP call may have, every write
 * chunk (one segment each) and the reply chunk (one segment). */
#define CT_HDRBUF_LEN                                                   \
	(RPCRDMA_HDR_FIXED + 3 * 4 +                                    \
	 RPCRDMA_PLAN_MAX_ITEMS * RPCRDMA_READ_SEG_WIRE +                \
	 RPCRDMA_MAX_WRITE_CHUNKS * (4 + 4 + RPCRDMA_SEGMENT_WIRE) +     \
	 4 + RPCRDMA_SEGMENT_WIRE)
#define CT_XDR_INITIAL 4096
#define CT_ZC_MAX	2	/* zero-copy items per call; others copied */
#define CT_MAX_WINS	(2 + CT_ZC_MAX)
#define CT_INVALIDATE_MS 5000	/* a local invalidation, at most */
#define CT_REFRESHES   2
#define CT_WAKEQ	32	/* callers the poller wakes at once, unlocked */
#define CT_QUIET_US	1000000u /* a call after this long without one
				  * reads the CM channel (ct_ensure_conn) */

enum slot_state {
	SLOT_FREE,
	SLOT_OWNED,	/* a caller is encoding / sending */
	SLOT_WAITING,	/* sent, reply expected */
	SLOT_DONE,	/* reply (or failure) delivered to the owner */
	SLOT_ABANDONED, /* owner timed out; dropped when the reply comes */
};

struct ct_slot {
	/* Changed under ct->lock, but for SLOT_OWNED -> SLOT_WAITING by its
	 * owner (ct_post_count) and read without it by an owner woken on
	 * its reply (ct_wait): atomic, so that either sees the other's
	 * writes made before (seq_cst; a few per call). */
	_Atomic enum slot_state state;
	uint32_t xid;
	bool xdr_ok;
	XDR xdr;	    /* the call, reused call after call */
	uint8_t *reply_buf; /* reply chunk / copy of inline reply */
	size_t reply_cap;
	struct rpcrdma_mr *call_mr;  /* Long Call: REMOTE_READ */
	struct rpcrdma_mr *reply_mr; /* reply chunk: REMOTE_WRITE */
	struct rpcrdma_win *win;     /* write and reply chunks: over
				      * reply_buf */
	struct rpcrdma_win *call_win; /* read chunks: over the call's
				       * buffer (remade when it grows) */
	/* Zero-copy read chunks: the caller's memory, for one call. */
	uint32_t nzc;
	const void *zc_addr[CT_ZC_MAX];
	uint32_t zc_len[CT_ZC_MAX];
	struct rpcrdma_win *zc_win[CT_ZC_MAX];	/* where windows are used */
	struct rpcrdma_mr *zc_mr[CT_ZC_MAX];	/* elsewhere */
	/* Delivered by the poller. */
	int err;	    /* 0, -ENOTCONN, -EBADMSG, -EPROTO */
	uint32_t rdma_err;  /* RDMA_ERROR code with -EPROTO */
	uint32_t reply_len; /* RPC reply bytes in reply_buf */
	uint32_t reply_chunk; /* bytes offered in the reply chunk */
	uint32_t reply_hint;  /* largest reply of its procedure, 0: unknown */
	uint32_t call_len;    /* the RPC call's bytes, as sent */
	bool call_chunked;    /* sent in read chunks or as a Long Call */
	uint32_t ddp_items, ddp_max; /* write chunks to offer */
	uint32_t reply_area;  /* reply_buf[0, reply_area): inline or reply
			       * chunk; write chunks behind it */
	uint32_t nwrites;     /* write chunks offered, each one segment */
	uint32_t wbase;	      /* reply_buf offset of the first */
	struct rpcrdma_segment wsegs[RPCRDMA_MAX_WRITE_CHUNKS];
	uint32_t wlen[RPCRDMA_MAX_WRITE_CHUNKS]; /* bytes written in them */
	struct rpcrdma_segment reply_seg;        /* the reply chunk offered */
	bool inv_pending;     /* reply in, its window's LOCAL_INV posted */
	bool flushing;	      /* the poller waits on its windows, unlocked:
			       * they stay until it is done */
	bool replied;	      /* its reply was taken: later ones dropped */
	int inv_err;	      /* the slot's outcome once that completes */
	/* Its owner sleeps on wake (ct_wait, sleeping set): woken alone by
	 * its reply, the poller role falling free or the connection's end,
	 * never by another call's reply (a broadcast woke every caller on
	 * every reply: 23 futex calls per NULL call at 32 in flight). A
	 * semaphore, not a condition variable: glibc takes a mutex back
	 * after a condition wait as if contended, so the unlock that
	 * follows always made a futex call, one per call. A post that
	 * finds its caller gone is a spurious wake-up of the slot's next
	 * use, which looks and sleeps again (slot_prepare drains it). */
	sem_t wake;
	bool sleeping;
	bool pin_waiting;     /* its owner waits for pinned memory
			       * (ct_pin_wait), its reply and call buffers'
			       * registrations given back */
	uint64_t sent_us;     /* when its call was posted (CLOCK_MONOTONIC) */
};

/* The limit a failed call ran into, for clnt_sperror (netid.c): what
 * the call sent and offered, so that the text states the limit met and
 * on which side (errtext.c). */
enum ct_limit_kind {
	CT_LIM_NONE,
	CT_LIM_CALL,		/* call larger than RPCRDMA_CALL_MAX */
	CT_LIM_ERR_CHUNK,	/* RDMA_ERROR ERR_CHUNK */
	CT_LIM_ERR_VERS,	/* RDMA_ERROR ERR_VERS */
	CT_LIM_REPLY,		/* reply not within the chunks offered */
	CT_LIM_MEMLOCK,		/* RLIMIT_MEMLOCK (bytes: the limit) */
};
struct ct_limit {
	enum ct_limit_kind kind;
	uint32_t bytes;		/* RPCRDMA_CALL_MAX, the reply room offered
				 * (0: inline only), or the memlock limit */
	uint32_t hint;		/* the procedure's reply bound, 0: none */
	uint32_t call;		/* the call's RPC message, bytes */
	bool call_chunked;	/* it went in read chunks or as a Long Call */
	uint32_t inline_recv;	/* the reply's inline room (our receive) */
	uint32_t max_msg;	/* this client's */
};
/* The text for l (errtext.c): its length, 0 when there is none. */
int ct_limit_text(const struct ct_limit *l, char *buf, size_t len);

/* One procedure's hints (0: none of that kind). */
struct ct_hint {
	rpcproc_t proc;
	uint32_t reply_max;	/* reply bound, its DDP items excepted */
	uint32_t ddp_items;	/* write chunks to offer */
	uint32_t ddp_max;	/* bytes in each */
};

struct ct_bc;

/* A backward call answered at once, its answer not sent yet. */
struct ct_bc_answer {
	uint32_t xid;		/* its rdma_xid (host order) */
	enum accept_stat why;	/* PROG_UNAVAIL, SYSTEM_ERR */
};

struct ct {
	CLIENT clnt;
	pthread_mutex_t lock;
	pthread_cond_t cv; /* credit, role, connection, backward inbox;
			    * a caller waiting for its reply sleeps on its
			    * slot's semaphore (wake) instead */
	pthread_mutex_t auth_lock;
	pthread_mutex_t gss_lock; /* RPCSEC_GSS calls, one at a time */
	/* libtirpc's AUTH_NONE operations (from authnone_create, whose AUTH
	 * is one shared by all): a cl_auth with these is encoded in place
	 * (ct_encode). */
	const struct auth_ops *none_ops;

	struct rpcrdma_opts opts; /* src_addr points into src_str */
	char *src_str;
	struct rpcrdma_ep_opts eo;
	struct sockaddr_storage addr, src;
	socklen_t addrlen;
	bool has_src;
	struct netbuf nb;

	struct rpcrdma_ep *ep; /* NULL until (re)connected */
	bool broken;	       /* reconnect when nobody uses ep */
	bool connecting;       /* a caller connects, without the lock */
	bool no_windows;       /* this connection cannot make them */
	uint32_t inv_pending;  /* slots with inv_pending set */
	bool polling;	       /* the poller role is taken */
	/* Callers whose replies ct_dispatch handed over (defer_wake set by
	 * ct_poll around it), woken once the poller drops the lock: woken
	 * under it, each would block on it at once, two more futex calls
	 * and a task switch. */
	struct ct_slot *wakeq[CT_WAKEQ];
	uint32_t nwake;
	bool defer_wake;
	uint32_t nsleeping;	/* callers asleep, not woken yet (sleeping) */
	uint32_t cv_waiters;	/* on cv (ct_cv_wait): none, no broadcast */
	uint64_t last_call_us; /* when a call last found the connection
				* up (ct_ensure_conn) */
	uint32_t srtt_us;      /* round trips as observed (7/8 weighted),
				* 0: none yet; opts.poll_us AUTO's basis */
	uint32_t ep_users;     /* slots OWNED, WAITING or DONE */
	struct rpcrdma_req_credits credits;
	struct rpcrdma_limits limits;
	struct rpcrdma_msg rxmsg; /* the poller's decode area */
	struct ct_slot *slots;
	uint32_t nslots;
	struct rpcrdma_stats base; /* totals of earlier connections */

	uint8_t callhdr[CT_CALLHDR_LEN];
	atomic_uint next_xid;
	bool xid_set;	       /* CLSET_XID was used (ct->lock) */
	uint64_t xids_issued;  /* by ct_next_xid, counted while calls are
				* out (ct->lock) */
	uint32_t last_xid;
	struct timeval wait;
	bool wait_set;
	struct rpc_err error;
	struct ct_limit limit;	/* of the call that set error */
	/* Reply size hints: for every procedure, and per procedure. */
	uint32_t reply_max;
	struct ct_hint *hints;
	uint32_t nhints, hints_cap;
	/* Backward service (RFC 8167), NULL until rpcrdma_clnt_svc_reg. */
	struct ct_bc *bc;
	/* Backward calls answered at once (clnt_reply.c): queued by the
	 * poller under the lock, sent by it without; within the grant. */
	struct ct_bc_answer bc_ans[RPCRDMA_BC_CREDITS];
	uint32_t bc_nans;
	uint32_t gen;		/* connections installed so far */
};

/* Waits on ct->cv (ct->lock held) until dl, or for ever when dl is NULL:
 * pthread_cond_timedwait's result. Counted, so that a broadcast with no
 * one waiting (every call's end, nearly always) costs nothing. */
static inline int ct_cv_wait(struct ct *ct, const struct timespec *dl)
{
	int rc;

	ct->cv_waiters++;
	rc = dl ? pthread_cond_timedwait(&ct->cv, &ct->lock, dl)
		: pthread_cond_wait(&ct->cv, &ct->lock);
	ct->cv_waiters--;
	return rc;
}

/* Wakes whoever waits on ct->cv (ct->lock held). */
static inline void ct_cv_broadcast(struct ct *ct)
{
	if (ct->cv_waiters)
		pthread_cond_broadcast(&ct->cv);
}

static inline struct ct *to_ct(CLIENT *cl)
{
	return (struct ct *)((char *)cl - offsetof(struct ct, clnt));
}

/* --- counters (ct->ep set; stats.c keeps the process totals) --- */

#define CT_INC(ct, field) RPCRDMA_STAT_ADD((ct)->ep, field, 1)

/* --- backward service (RFC 8167): clnt_bc.c, inbox in clnt_reply.c --- */

#define CT_BC_POLL_MS	200	/* the service thread's polling round */
#define CT_BC_RETRY_MS	10	/* answers waiting for send queue room:
				 * the poller looks again this often */
#define CT_BC_CRED	1024	/* decoded credentials (authunix_parms) */

struct ct_bsvc {
	rpcprog_t prog;
	rpcvers_t vers;
	void (*dispatch)(struct svc_req *, SVCXPRT *);
};

/* A backward call received, waiting for the service thread. */
struct ct_bcall {
	struct ct_bcall *next;
	uint32_t gen;		/* the connection it came on */
	bool released;		/* its credit went back with its reply */
	uint32_t rdma_xid;
	uint32_t len;
	uint8_t data[];		/* the RPC call */
};

struct ct_bc {
	SVCXPRT xprt;			/* what dispatch functions get */
	SVCXPRT_EXT ext;
	struct ct *ct;
	pthread_t th;
	/* ct->lock */
	bool stop;
	struct ct_bsvc *svcs;
	uint32_t nsvcs;
	struct ct_bcall *head, *tail;
	uint32_t queued;		/* received and not yet answered */
	/* The call being served: the service thread's only. */
	struct ct_bcall *cur;
	uint32_t xid;
	bool replied;
	XDR args;
	char cred_area[2 * MAX_AUTH_BYTES + CT_BC_CRED];
};

typedef bool (*ct_pred)(struct ct *ct, void *arg);

/* One call's marshalling, from step to step (clnt_marshal.c). */
struct ct_marshal {
	struct rpcrdma_call_plan plan;
	/* Per read chunk: ct_zc_expose's zero-copy index + 1, or 0. */
	uint8_t zc[RPCRDMA_PLAN_MAX_ITEMS];
	uint8_t *rpc;		/* the call's buffer */
	size_t call_len;	/* its bytes read chunks may reach */
	size_t inline_room;	/* an inline reply's room for the RPC */
	uint64_t wbytes;	/* the write chunks' bytes */
	uint64_t expose;	/* reply buffer bytes the peer may write */
	uint32_t ncopied;	/* read chunks over the call's buffer */
	bool use_win, use_cwin; /* windows over reply buffer, call */
	uint32_t rkey;		/* of the write and reply chunks */
	uint8_t hbuf[CT_HDRBUF_LEN];
	size_t hlen;
};

/* --- slots --- */

/* Gives a slot back with its credit; MRs must be deregistered already. */
static inline void slot_free(struct ct *ct, struct ct_slot *s)
{
	if (s->state == SLOT_OWNED || s->state == SLOT_WAITING ||
	    s->state == SLOT_DONE)
		ct->ep_users--;
	s->state = SLOT_FREE;
	rpcrdma_req_credits_put(&ct->credits);
	ct_cv_broadcast(ct);
}

/* The call's own registrations (no window): its call and reply chunk. */
static inline void slot_dereg_call(struct ct_slot *s)
{
	if (s->call_mr) {
		rpcrdma_mr_dereg(s->call_mr);
		s->call_mr = NULL;
	}
	if (s->reply_mr) {
		rpcrdma_mr_dereg(s->reply_mr);
		s->reply_mr = NULL;
	}
}

static inline void slot_dereg(struct ct_slot *s)
{
	slot_dereg_call(s);
	/* Revoked by now (or their QP is gone): the caller's pages go. */
	for (uint32_t k = 0; k < s->nzc; k++) {
		rpcrdma_win_destroy(s->zc_win[k]);
		s->zc_win[k] = NULL;
		if (s->zc_mr[k])
			rpcrdma_mr_dereg(s->zc_mr[k]);
		s->zc_mr[k] = NULL;
	}
	s->nzc = 0;
}

/* The call met the locked-memory limit (-EDQUOT from a registration). */
static inline void ct_limit_memlock(struct ct_limit *l)
{
	size_t v = rpcrdma_pin_limit();

	l->kind = CT_LIM_MEMLOCK;
	l->bytes = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static inline struct ct_slot *slot_by_xid(struct ct *ct, uint32_t xid)
{
	for (uint32_t i = 0; i < ct->nslots; i++) {
		struct ct_slot *s = &ct->slots[i];

		if ((s->state == SLOT_WAITING || s->state == SLOT_ABANDONED) &&
		    s->xid == xid)
			return s;
	}
	return NULL;
}

/* s's caller, asleep, is woken: no longer counted asleep (ct->lock held;
 * the post itself is the caller's, now or deferred). */
static inline bool slot_wake_mark(struct ct *ct, struct ct_slot *s)
{
	if (!s->sleeping)
		return false;
	s->sleeping = false;
	ct->nsleeping--;
	return true;
}

static inline void slot_complete(struct ct *ct, struct ct_slot *s, int err)
{
	s->err = err;
	s->state = SLOT_DONE;
	if (!slot_wake_mark(ct, s))
		return;
	if (ct->defer_wake && ct->nwake < CT_WAKEQ)
		ct->wakeq[ct->nwake++] = s;
	else
		sem_post(&s->wake);
}

/* s's outcome: now, or once its window's invalidation completed. */
static inline void slot_finish(struct ct *ct, struct ct_slot *s, int err)
{
	if (s->inv_pending)
		s->inv_err = err;
	else
		slot_complete(ct, s, err);
}

/* Where write chunk i of s lives: behind the reply area. */
static inline uint8_t *slot_write_area(const struct ct_slot *s, uint32_t i)
{
	return s->reply_buf + s->wbase +
	       (size_t)i * rpcrdma_xdr_roundup(s->ddp_max);
}

/* --- the call: small helpers of clnt_marshal.c used elsewhere too --- */

/* AUTH_NONE and AUTH_SYS keep no per-call state: their WRAP and UNWRAP
 * may run in parallel. */
static inline bool ct_auth_stateless(const AUTH *auth)
{
	return auth->ah_cred.oa_flavor == AUTH_NONE ||
	       auth->ah_cred.oa_flavor == AUTH_SYS;
}

/* Whether calls with this AUTH need ct->auth_lock around MARSHALL and
 * VALIDATE. libtirpc's AUTH_NONE has no state to guard (its marshal
 * takes a lock of its own, its validate accepts anything); AUTH_SYS's
 * VALIDATE may store a shorthand (AUTH_SHORT) that its MARSHALL reads,
 * and an application's own AUTH may have state of any kind. */
static inline bool ct_auth_locked(const struct ct *ct, const AUTH *auth)
{
	return auth->ah_ops != ct->none_ops || !ct_auth_stateless(auth);
}

/* Index of proc's own hint, or ct->nhints (ct->lock held). */
static inline uint32_t ct_hint_index(const struct ct *ct, rpcproc_t proc)
{
	uint32_t i;

	for (i = 0; i < ct->nhints && ct->hints[i].proc != proc; i++)
		;
	return i;
}

/* The bound on proc's replies, or 0 (ct->lock held). */
static inline uint32_t ct_reply_hint(const struct ct *ct, rpcproc_t proc)
{
	uint32_t i = ct_hint_index(ct, proc);

	return i < ct->nhints && ct->hints[i].reply_max ?
		       ct->hints[i].reply_max : ct->reply_max;
}

/* --- clnt_slot.c --- */
void stats_add(struct rpcrdma_stats *acc, const struct rpcrdma_stats *s);
void ct_break(struct ct *ct);
int slot_prepare(struct ct *ct, struct ct_slot *s);
uint32_t ct_next_xid(struct ct *ct, const struct ct_slot *s);

/* --- clnt_expose.c --- */
bool slot_bound(struct ct_slot *s);
bool ct_revoke(struct ct *ct, struct ct_slot *s, const struct rpcrdma_rx *rx);
void ct_flush_invalidations(struct ct *ct);
void ct_abandon(struct ct *ct, struct ct_slot *s);
int ct_window(struct ct *ct, struct rpcrdma_ep *ep, struct rpcrdma_win **wp,
	      void *buf, size_t len, size_t cap, enum rpcrdma_access access);
int ct_pin_wait(struct ct *ct, struct ct_slot *s, const struct timespec *dl);
void ct_zc_expose(struct ct *ct, struct rpcrdma_ep *ep, struct ct_slot *s,
		  const struct rpcrdma_call_plan *plan, uint8_t *zc);

/* --- clnt_reply.c --- */
int ct_poll(struct ct *ct, ct_pred pred, void *arg, const struct timespec *dl);
void ct_poller_leave(struct ct *ct);
/* Waits (ct->lock held) until pred holds: 0 (the lock held), -ETIMEDOUT
 * or -ENOTCONN (likewise), or CT_WAIT_DONE_UNLOCKED: a caller woken with
 * its reply, the lock not taken again (pred_slot_done only). */
#define CT_WAIT_DONE_UNLOCKED 1
int ct_wait(struct ct *ct, ct_pred pred, void *arg, const struct timespec *dl,
	    bool for_credit);
bool pred_slot_done(struct ct *ct, void *arg);
bool pred_credit(struct ct *ct, void *arg);
void ct_bc_purge(struct ct *ct);
enum clnt_stat ct_decode(struct ct *ct, struct ct_slot *s, xdrproc_t xres,
			 void *resp, struct rpc_err *err, bool *refresh);

/* --- clnt_marshal.c --- */
bool ct_encode(struct ct *ct, struct ct_slot *s,
	       const uint8_t hdr[CT_CALLHDR_LEN], rpcproc_t proc,
	       xdrproc_t xargs, void *argsp);
bool ct_set_hint(struct ct *ct, const struct rpcrdma_proc_reply *r);
bool ct_set_ddp(struct ct *ct, const struct rpcrdma_proc_ddp *r);
int ct_plan_call(struct ct *ct, struct rpcrdma_ep *ep, struct ct_slot *s,
		 struct ct_marshal *mm);
int ct_expose_items(struct ct *ct, struct rpcrdma_ep *ep, struct ct_slot *s,
		    struct ct_marshal *mm);
int ct_plan_reply(struct ct *ct, struct rpcrdma_ep *ep, struct ct_slot *s,
		  struct ct_marshal *mm);
int ct_expose_windows(struct ct *ct, struct rpcrdma_ep *ep, struct ct_slot *s,
		      struct ct_marshal *mm);
int ct_expose_regs(struct rpcrdma_ep *ep, struct ct_slot *s,
		   struct ct_marshal *mm);
int ct_encode_hdr(struct ct *ct, struct ct_slot *s, struct ct_marshal *mm);
int ct_post(struct ct *ct, struct rpcrdma_ep *ep, struct ct_slot *s,
	    struct ct_marshal *mm, const struct timespec *dl);

/* --- clnt_conn.c --- */
struct rpcrdma_ep *ct_detach(struct ct *ct);
int ct_ensure_conn(struct ct *ct, const struct timespec *dl,
		   uint64_t now_us);
int ct_first_connect(struct ct *ct, const char *host, rpcprog_t prog,
		     rpcvers_t vers, enum clnt_stat *st);
void ct_unpromise(struct ct *ct);

/* --- clnt_call.c --- */
/* A call's deadline, taken under ct->lock by its first connect step (the
 * CLIENT's CLSET_TIMEOUT read there, no lock of its own) and kept across
 * the call's retries. */
struct ct_when {
	struct timeval timeout; /* the caller's */
	struct timespec dl;
	uint64_t now_us;	/* when dl was taken */
	bool set;
};
/* Takes w's deadline unless taken (ct->lock held). */
void ct_when_take(struct ct *ct, struct ct_when *w);
/* One attempt; err and lim are also kept as the CLIENT's last error
 * (clnt_geterr, rpcrdma_clnt_errtext). */
enum clnt_stat ct_call_once(struct ct *ct, rpcproc_t proc, xdrproc_t xargs,
			    void *argsp, xdrproc_t xres, void *resp,
			    struct ct_when *w, struct rpc_err *err,
			    struct ct_limit *lim, bool *refresh);

/* --- clnt_bc.c --- */
extern const struct xp_ops ct_bc_ops;
void *ct_bc_thread(void *arg);
void ct_bc_free(struct ct *ct);

#endif /* RPCRDMA_CLNT_H */
