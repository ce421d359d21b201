/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The libtirpc CLIENT for RPC-over-RDMA version 1 (RFC 8166): the
 * requester side of one connection.
 *
 * Calls travel inline (RDMA_MSG) when the transport header plus the RPC
 * message fit the negotiated send threshold, else as a Long Call
 * (RDMA_NOMSG, the whole message in a position-zero read chunk, RFC 8166
 * section 3.5.3). A call offers a reply chunk so that a reply larger than
 * the inline threshold can come back (Long Reply, section 3.5.4): of
 * max_msg bytes when nothing is known of the procedure's replies, of the
 * hinted size, or none when the hint fits inline (CLSET_RDMA_REPLY_MAX,
 * CLSET_RDMA_PROC_REPLY); the server uses it only when the reply does not
 * fit inline. The responder's decoder
 * bounds the sum of all chunks in one header (16 MiB + 64 KiB by default),
 * so a Long Call's reply chunk is cut to what its read chunk leaves.
 *
 * Many threads may call on one CLIENT at once. Each call holds a credit
 * (section 3.3.1) and a slot (its encoder, its reply buffer, its memory
 * registrations). Replies are matched by XID: one waiting caller at a time
 * holds the poller role, polls the endpoint with its own remaining
 * timeout, hands each reply to its owner and gives the role up when its
 * own reply has come or its deadline has passed (leader/follower).
 *
 * Port choice: opts->port if set, else RPCRDMA_PORT from the environment,
 * else the server's rpcbind (RPCBPROC_DUMP, netid "rdma"/"rdma6"); when
 * the program is not registered create fails with RPC_PROGNOTREGISTERED,
 * when rpcbind cannot be asked with RPC_PMAPFAILURE.
 *
 * Errors: a lost connection fails every call in flight with RPC_CANTRECV
 * (re_errno ENOTCONN); the next call reconnects (a new endpoint, a fresh
 * RFC 8797 Private Data exchange). A reconnect that fails gives
 * RPC_CANTSEND with its errno. RDMA_ERROR, a permanent error (RFC 8166
 * section 4.5), fails only its call: ERR_VERS with RPC_SYSTEMERROR,
 * re_errno EPROTONOSUPPORT, ERR_CHUNK with RPC_CANTDECODEARGS, re_errno
 * EBADMSG; a reply whose header the decoder rejects fails its call with
 * RPC_CANTDECODERES. clnt_sperror adds, for a call that met a limit,
 * which knob moves it. A call that times out is abandoned: what it
 * exposed is revoked before clnt_call returns (ct_abandon: locally, or
 * by a reset where the server may invalidate remotely), its credit stays
 * taken until the late reply arrives and is dropped, or the connection
 * is reset. When every credit is held by abandoned calls and a caller
 * has waited a whole timeout for one, the connection is reset by the
 * next call. A reset closes the connection at once, so that no window
 * stays reachable. A Send With Invalidate we did not ask for or a second
 * reply to one XID is the peer's error: the first closes the connection,
 * the second is dropped.
 */
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/random.h>
#include <rpc/rpc.h>
#include <rpc/svc_auth.h>
#include <rpcrdma/credits.h>
#include <rpcrdma/hdr.h>
#include <rpcrdma/plan.h>
#include <rpcrdma/splice.h>
#include "svc.h"
#include "xprt.h"

#define CT_CALLHDR_LEN 20  /* xid, CALL, rpcvers, prog, vers */
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

enum slot_state {
	SLOT_FREE,
	SLOT_OWNED,	/* a caller is encoding / sending */
	SLOT_WAITING,	/* sent, reply expected */
	SLOT_DONE,	/* reply (or failure) delivered to the owner */
	SLOT_ABANDONED, /* owner timed out; dropped when the reply comes */
};

struct ct_slot {
	enum slot_state state;
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
};

/* The limit a failed call ran into, for clnt_sperror (netid.c). */
enum ct_limit_kind {
	CT_LIM_NONE,
	CT_LIM_CALL,		/* call larger than RPCRDMA_CALL_MAX */
	CT_LIM_ERR_CHUNK,	/* RDMA_ERROR ERR_CHUNK */
	CT_LIM_ERR_VERS,	/* RDMA_ERROR ERR_VERS */
	CT_LIM_REPLY,		/* reply not within the chunks offered */
};
struct ct_limit {
	enum ct_limit_kind kind;
	uint32_t bytes;		/* max_msg, or the reply room offered */
};

/* One procedure's hints (0: none of that kind). */
struct ct_hint {
	rpcproc_t proc;
	uint32_t reply_max;	/* reply bound, its DDP items excepted */
	uint32_t ddp_items;	/* write chunks to offer */
	uint32_t ddp_max;	/* bytes in each */
};

struct ct_bc;

struct ct {
	CLIENT clnt;
	pthread_mutex_t lock;
	pthread_cond_t cv; /* any change: reply, credit, role */
	pthread_mutex_t auth_lock;
	pthread_mutex_t gss_lock; /* RPCSEC_GSS calls, one at a time */

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
	uint32_t ep_users;     /* slots OWNED, WAITING or DONE */
	struct rpcrdma_req_credits credits;
	struct rpcrdma_limits limits;
	struct rpcrdma_msg rxmsg; /* the poller's decode area */
	struct ct_slot *slots;
	uint32_t nslots;
	struct rpcrdma_stats base; /* totals of earlier connections */

	uint8_t callhdr[CT_CALLHDR_LEN];
	atomic_uint next_xid;
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
	uint32_t gen;		/* connections installed so far */
};

static const struct clnt_ops clnt_rdma_ops;

static struct ct *to_ct(CLIENT *cl)
{
	return (struct ct *)((char *)cl - offsetof(struct ct, clnt));
}

/* --- time --- */



static bool timeval_ok(const struct timeval *tv)
{
	return tv->tv_sec >= 0 && tv->tv_usec >= 0 && tv->tv_usec < 1000000;
}

/* --- counters (ct->ep set; stats.c keeps the process totals) --- */

#define CT_INC(ct, field) RPCRDMA_STAT_ADD((ct)->ep, field, 1)

static void stats_add(struct rpcrdma_stats *acc, const struct rpcrdma_stats *s)
{
	uint64_t *a = (uint64_t *)acc;
	const uint64_t *b = (const uint64_t *)s;
	uint64_t peak = acc->inflight_peak > s->inflight_peak
			    ? acc->inflight_peak
			    : s->inflight_peak;
	uint64_t bc_peak = acc->bc_inflight_peak > s->bc_inflight_peak
			       ? acc->bc_inflight_peak
			       : s->bc_inflight_peak;

	for (size_t i = 0; i < sizeof(*acc) / sizeof(uint64_t); i++)
		a[i] += b[i];
	/* Not sums: the latest grant and the highest peak. */
	acc->credits_granted = s->credits_granted;
	acc->inflight_peak = peak;
	acc->bc_credits_granted = s->bc_credits_granted;
	acc->bc_inflight = s->bc_inflight;
	acc->bc_inflight_peak = bc_peak;
}

/* --- slots --- */

/* Gives a slot back with its credit; MRs must be deregistered already. */
static void slot_free(struct ct *ct, struct ct_slot *s)
{
	if (s->state == SLOT_OWNED || s->state == SLOT_WAITING ||
	    s->state == SLOT_DONE)
		ct->ep_users--;
	s->state = SLOT_FREE;
	rpcrdma_req_credits_put(&ct->credits);
	pthread_cond_broadcast(&ct->cv);
}

static void slot_dereg(struct ct_slot *s)
{
	if (s->call_mr) {
		rpcrdma_mr_dereg(s->call_mr);
		s->call_mr = NULL;
	}
	if (s->reply_mr) {
		rpcrdma_mr_dereg(s->reply_mr);
		s->reply_mr = NULL;
	}
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

/* Every window a call of s may have bound: the reply and call windows
 * and the zero-copy ones; returns their count (some may be NULL). */
static uint32_t slot_wins(struct ct_slot *s, struct rpcrdma_win **w)
{
	uint32_t n = 0;

	w[n++] = s->win;
	w[n++] = s->call_win;
	for (uint32_t k = 0; k < s->nzc; k++)
		w[n++] = s->zc_win[k];
	return n;
}

static bool slot_bound(struct ct_slot *s)
{
	struct rpcrdma_win *w[CT_MAX_WINS];
	uint32_t n = slot_wins(s, w);

	for (uint32_t i = 0; i < n; i++)
		if (rpcrdma_win_bound(w[i]))
			return true;
	return false;
}

/* Posts the local invalidation of every window s has bound. */
static int slot_invalidate_post(struct ct_slot *s)
{
	struct rpcrdma_win *w[CT_MAX_WINS];
	uint32_t n = slot_wins(s, w);
	int rc = 0;

	for (uint32_t i = 0; i < n && !rc; i++)
		rc = rpcrdma_win_invalidate_post(w[i]);
	return rc;
}

/* Waits for what slot_invalidate_post posted. */
static int slot_invalidate_wait(struct ct_slot *s)
{
	struct rpcrdma_win *w[CT_MAX_WINS];
	uint32_t n = slot_wins(s, w);
	int rc = 0;

	for (uint32_t i = 0; i < n && !rc; i++)
		rc = rpcrdma_win_invalidate_wait(w[i], CT_INVALIDATE_MS);
	return rc;
}

static struct ct_slot *slot_by_xid(struct ct *ct, uint32_t xid)
{
	for (uint32_t i = 0; i < ct->nslots; i++) {
		struct ct_slot *s = &ct->slots[i];

		if ((s->state == SLOT_WAITING || s->state == SLOT_ABANDONED) &&
		    s->xid == xid)
			return s;
	}
	return NULL;
}

static void slot_complete(struct ct *ct, struct ct_slot *s, int err)
{
	s->err = err;
	s->state = SLOT_DONE;
	pthread_cond_broadcast(&ct->cv);
}

/*
 * The connection is gone: every call waiting fails with ENOTCONN, the
 * abandoned ones are dropped, and the next call reconnects once nobody
 * uses the endpoint any more.
 */
static void ct_break(struct ct *ct)
{
	/* Windows still bound (abandoned calls, invalidations cut short)
	 * must stop being reachable now, not at the next reconnect: the
	 * QP goes to error. */
	if (!ct->broken && ct->ep)
		rpcrdma_ep_close(ct->ep, -ENOTCONN);
	ct->broken = true;
	ct->inv_pending = 0;
	for (uint32_t i = 0; i < ct->nslots; i++) {
		struct ct_slot *s = &ct->slots[i];

		s->inv_pending = false;
		if (s->state == SLOT_WAITING) {
			slot_complete(ct, s, -ENOTCONN);
		} else if (s->state == SLOT_ABANDONED && !s->flushing) {
			slot_dereg(s);
			slot_free(ct, s);
		}
	}
	pthread_cond_broadcast(&ct->cv);
}

/* --- receive side: the poller --- */


/*
 * The reply to s is in: its window must be revoked before the call
 * returns or the slot is reused (ct->lock held). A Send With Invalidate
 * revoked the window it names, whichever slot's it is: a second
 * invalidation of a window crashes rxe. Otherwise the poller, the one
 * thread that reaps, posts a local invalidation; the slot completes once
 * it has (ct_flush_invalidations), so that replies arriving together
 * share one wait. False when posting failed: the connection is reset.
 */
static bool ct_revoke(struct ct *ct, struct ct_slot *s,
		      const struct rpcrdma_rx *rx)
{
	if (rx->invalidated) {
		/*
		 * RFC 8797 section 4.1: with R on both sides the responder
		 * may revoke the call's window itself; nothing is left to
		 * invalidate. The Linux server does so whenever we set R,
		 * its own R clear: our R is what we accept. Any other Send
		 * With Invalidate (we did not set R, a window not the
		 * call's, or one whose local invalidation is under way)
		 * breaks the protocol: the window it names is revoked
		 * already and must never be invalidated again (rxe
		 * crashes); the connection is closed.
		 */
		struct rpcrdma_win *mine = NULL, *w[CT_MAX_WINS];
		uint32_t n;

		if (s && !s->inv_pending && ct->ep &&
		    rpcrdma_ep_inline(ct->ep)->remote_inv_in) {
			n = slot_wins(s, w);
			for (uint32_t j = 0; j < n && !mine; j++)
				if (rpcrdma_win_owns(w[j], rx->inv_rkey))
					mine = w[j];
		}
		if (mine) {
			rpcrdma_win_invalidated(mine);
		} else {
			for (uint32_t i = 0; i < ct->nslots; i++) {
				struct ct_slot *o = &ct->slots[i];

				/* Only calls in flight have windows bound;
				 * an owner may be remaking its windows. */
				if (o->state != SLOT_WAITING &&
				    o->state != SLOT_ABANDONED)
					continue;
				n = slot_wins(o, w);
				for (uint32_t j = 0; j < n; j++)
					if (rpcrdma_win_owns(w[j],
							     rx->inv_rkey))
						rpcrdma_win_invalidated(w[j]);
			}
			ct_break(ct);
			return false;
		}
	}
	if (!s || s->inv_pending || !slot_bound(s))
		return true;
	if (slot_invalidate_post(s)) {
		ct_break(ct);
		return false;
	}
	s->inv_pending = true;
	s->inv_err = 0;
	ct->inv_pending++;
	return true;
}

/* s's outcome: now, or once its window's invalidation completed. */
static void slot_finish(struct ct *ct, struct ct_slot *s, int err)
{
	if (s->inv_pending)
		s->inv_err = err;
	else
		slot_complete(ct, s, err);
}

/* Waits for the invalidations posted and completes their slots (ct->lock
 * held, dropped while waiting). */
static void ct_flush_invalidations(struct ct *ct)
{
	for (uint32_t i = 0; i < ct->nslots && ct->inv_pending; i++) {
		struct ct_slot *s = &ct->slots[i];
		int rc;

		if (!s->inv_pending)
			continue;
		s->flushing = true;
		pthread_mutex_unlock(&ct->lock);
		rc = slot_invalidate_wait(s);
		pthread_mutex_lock(&ct->lock);
		s->flushing = false;
		pthread_cond_broadcast(&ct->cv);
		if (!s->inv_pending) {
			/* Reset meanwhile: an abandoned slot was left to us. */
			if (s->state == SLOT_ABANDONED) {
				slot_dereg(s);
				slot_free(ct, s);
			}
			continue;
		}
		if (rc) {
			ct_break(ct);
			return;
		}
		s->inv_pending = false;
		ct->inv_pending--;
		if (s->state == SLOT_WAITING) {
			slot_complete(ct, s, s->inv_err);
		} else if (s->state == SLOT_ABANDONED) {
			/* Revoked; its credit waits for its reply, unless
			 * that came already. */
			slot_dereg(s);
			if (s->replied)
				slot_free(ct, s);
		}
	}
}

/*
 * s's caller timed out: nothing the call exposed may stay reachable once
 * clnt_call returns. Where the responder may revoke our windows itself
 * (we set R), a local invalidation could meet a late reply's Send With
 * Invalidate, and a second invalidation crashes rxe: the connection is
 * reset instead, as the Linux client does on a timeout (xprt_rdma_timer).
 * Otherwise the windows are invalidated, or the registrations dropped,
 * now; a late reply that still writes into them fails on the responder,
 * which ends the connection then. The invalidation goes the way a
 * reply's does (the poller waits for it, the slot is then freed), and we
 * wait for that: as the poller ourselves when nobody is (ct->lock held).
 */
static void ct_abandon(struct ct *ct, struct ct_slot *s)
{
	uint32_t xid = s->xid;
	struct timespec dl;

	if (!ct->ep)
		return;
	if (!s->inv_pending && !s->flushing) {
		if (!slot_bound(s)) {
			slot_dereg(s);
			return;
		}
		if (rpcrdma_ep_inline(ct->ep)->remote_inv_in ||
		    slot_invalidate_post(s)) {
			ct_break(ct);
			return;
		}
		s->inv_pending = true;
		s->inv_err = 0;
		ct->inv_pending++;
	}
	xprt_deadline_after(&dl,
			    &(struct timeval){ CT_INVALIDATE_MS / 1000, 0 });
	while (s->state == SLOT_ABANDONED && s->xid == xid &&
	       (s->inv_pending || s->flushing)) {
		if (!ct->polling) {
			ct->polling = true;
			ct_flush_invalidations(ct);
			ct->polling = false;
			pthread_cond_broadcast(&ct->cv);
			continue;
		}
		/* The poller may sleep in rpcrdma_ep_poll until a message
		 * comes: have it flush now. */
		rpcrdma_ep_wake(ct->ep);
		if (pthread_cond_timedwait(&ct->cv, &ct->lock, &dl) ==
		    ETIMEDOUT) {
			ct_break(ct);
			break;
		}
	}
}

/*
 * The chunk lists of a reply must be what s's call offered (RFC 8166
 * sections 3.4.6 and 3.5.4): no read list; at most the write chunks
 * offered, each its one segment echoed with what was written into it, no
 * more than offered; a reply chunk only with RDMA_NOMSG, and then the one
 * segment offered (its length checked by the caller). -EBADMSG otherwise,
 * before any byte of the reply is used (ct->lock held).
 */
static int ct_take_writes(struct ct *ct, struct ct_slot *s,
			  const struct rpcrdma_msg *m)
{
	bool used = false;
	uint32_t i;

	if (m->nreads || m->nwrites > s->nwrites ||
	    (m->has_reply && m->proc != RPCRDMA_NOMSG))
		return -EBADMSG;
	if (m->has_reply) {
		const struct rpcrdma_segment *g = &m->segs[m->reply.first];

		if (!s->reply_chunk || m->reply.nsegs != 1 ||
		    g->handle != s->reply_seg.handle ||
		    g->offset != s->reply_seg.offset)
			return -EBADMSG;
	}
	for (i = 0; i < m->nwrites; i++) {
		const struct rpcrdma_chunk *c = &m->writes[i];
		const struct rpcrdma_segment *g = &m->segs[c->first];

		if (c->nsegs != 1 || g->handle != s->wsegs[i].handle ||
		    g->offset != s->wsegs[i].offset ||
		    g->length > s->wsegs[i].length)
			return -EBADMSG;
		s->wlen[i] = g->length;
		used |= g->length != 0;
	}
	if (used)
		CT_INC(ct, replies_write_chunks);
	return 0;
}

/*
 * A backward-direction call (RFC 8167 section 4: RDMA_MSG, every chunk
 * list empty, the RPC message inline with msg_type CALL), which a forward
 * reply never is: it goes to the backward service (ct_bc_take) without
 * touching forward credits or calls.
 */
static bool ct_is_backward_call(const struct rpcrdma_msg *m,
				const struct rpcrdma_rx *rx, size_t hlen)
{
	uint32_t type;

	if (m->proc != RPCRDMA_MSG || m->nreads || m->nwrites ||
	    m->has_reply || rx->len < hlen + 8)
		return false;
	memcpy(&type, rx->data + hlen + 4, sizeof(type));
	return ntohl(type) == CALL;
}

static void ct_bc_take(struct ct *ct, const struct rpcrdma_rx *rx,
		       size_t hlen);

/* The reply of a call its caller abandoned: the slot, and its credit,
 * go back, unless its revocation is still under way, which then frees it
 * (ct->lock held). */
static void slot_late_reply(struct ct *ct, struct ct_slot *s)
{
	s->replied = true;
	if (!s->inv_pending && !s->flushing) {
		slot_dereg(s);
		slot_free(ct, s);
	}
}

/* Hands one received message to its call (ct->lock held). */
static void ct_dispatch(struct ct *ct, struct rpcrdma_rx *rx)
{
	struct rpcrdma_msg *m = &ct->rxmsg;
	enum rpcrdma_hdr_err he;
	struct ct_slot *s;
	size_t hlen = 0;
	uint64_t len;

	he = rpcrdma_hdr_decode(rx->data, rx->len, &ct->limits, m, &hlen);
	if (he != RPCRDMA_HDR_OK) {
		CT_INC(ct, bad_headers);
		if (rx->len < RPCRDMA_HDR_FIXED) {
			ct_revoke(ct, NULL, rx);
			goto out;
		}
		s = slot_by_xid(ct, m->xid);
		if (!ct_revoke(ct, s, rx))
			goto out;
		if (s && s->state == SLOT_WAITING && !s->replied) {
			s->replied = true;
			slot_finish(ct, s, -EBADMSG);
		} else if (s && s->state == SLOT_ABANDONED) {
			slot_late_reply(ct, s);
		}
		goto out;
	}
	switch (m->proc) {
	case RPCRDMA_MSG:
		CT_INC(ct, recv_msg);
		break;
	case RPCRDMA_NOMSG:
		CT_INC(ct, recv_nomsg);
		break;
	default:
		CT_INC(ct, recv_error);
		if (m->err == RPCRDMA_ERR_VERS)
			CT_INC(ct, err_vers_recv);
		else
			CT_INC(ct, err_chunk_recv);
		break;
	}
	if (ct_is_backward_call(m, rx, hlen)) {
		if (ct_revoke(ct, NULL, rx))
			ct_bc_take(ct, rx, hlen);
		goto out;
	}
	s = slot_by_xid(ct, m->xid);
	if (!ct_revoke(ct, s, rx))
		goto out;
	if (!s) {
		/* Not a reply to a call of ours: its grant is not the
		 * responder's answer to us either (RFC 8166 section 3.3.1
		 * ties credits to replies). */
		CT_INC(ct, replies_unmatched);
		goto out;
	}
	/* RFC 8166 section 3.3.1: every reply carries the current grant. */
	rpcrdma_req_credits_update(&ct->credits, m->credits);
	RPCRDMA_STAT_SET(ct->ep, credits_granted, m->credits);
	if (s->state == SLOT_ABANDONED) {
		slot_late_reply(ct, s);
		goto out;
	}
	if (s->state != SLOT_WAITING || s->replied)
		goto out;	/* reset meanwhile, or a duplicate reply */
	s->replied = true;
	if (m->proc != RPCRDMA_ERROR && ct_take_writes(ct, s, m)) {
		slot_finish(ct, s, -EBADMSG);
		goto out;
	}
	switch (m->proc) {
	case RPCRDMA_MSG:
		/* The RPC reply follows the header in the receive buffer. */
		len = rx->len - hlen;
		if (len > (s->nwrites ? s->wbase : s->reply_cap)) {
			slot_finish(ct, s, -EBADMSG);
			break;
		}
		memcpy(s->reply_buf, rx->data + hlen, (size_t)len);
		s->reply_len = (uint32_t)len;
		CT_INC(ct, replies_inline);
		slot_finish(ct, s, 0);
		break;
	case RPCRDMA_NOMSG:
		/* Section 3.5.4: the reply is in our reply chunk; its length
		 * is the sum of the lengths the responder echoed back. */
		len = m->has_reply ? rpcrdma_chunk_length(m, &m->reply) : 0;
		if (!m->has_reply || len > s->reply_chunk) {
			slot_finish(ct, s, -EBADMSG);
			break;
		}
		s->reply_len = (uint32_t)len;
		CT_INC(ct, replies_long);
		slot_finish(ct, s, 0);
		break;
	default:
		s->rdma_err = m->err;
		slot_finish(ct, s, -EPROTO);
		break;
	}
out:
	rpcrdma_ep_rx_done(ct->ep, rx);
}

typedef bool (*ct_pred)(struct ct *ct, void *arg);

/* Holds the poller role until pred holds, the deadline passes or the
 * connection breaks (ct->lock held on entry and exit, dropped while
 * polling; ct->ep cannot change meanwhile: polling blocks reconnects). */
static int ct_poll(struct ct *ct, ct_pred pred, void *arg,
		   const struct timespec *dl)
{
	struct rpcrdma_ep *ep = ct->ep;
	struct rpcrdma_rx rx;
	int rc = 0, n, ms;

	ct->polling = true;
	while (!pred(ct, arg) && !ct->broken) {
		/* Replies already queued first: their invalidations are
		 * then awaited together. */
		if (ct->inv_pending && !rpcrdma_ep_rx_pending(ep)) {
			ct_flush_invalidations(ct);
			continue;
		}
		ms = ct->inv_pending ? 0 : xprt_ms_left(dl);
		pthread_mutex_unlock(&ct->lock);
		n = rpcrdma_ep_poll(ep, &rx, ms);
		pthread_mutex_lock(&ct->lock);
		if (n > 0) {
			ct_dispatch(ct, &rx);
			/* A peer that keeps messages coming must not hold
			 * the poller past its deadline. */
			if (!pred(ct, arg) && xprt_ms_left(dl) <= 0) {
				rc = -ETIMEDOUT;
				break;
			}
		} else if (n == 0) {
			if (ms == 0 && !ct->inv_pending) {
				rc = -ETIMEDOUT;
				break;
			}
		} else {
			ct_break(ct);
			break;
		}
	}
	if (ct->inv_pending && !ct->broken)
		ct_flush_invalidations(ct);
	ct->polling = false;
	pthread_cond_broadcast(&ct->cv);
	return rc;
}

/*
 * Waits (ct->lock held) until pred holds: 0, -ETIMEDOUT or -ENOTCONN.
 * A caller waiting for its reply takes the free poller role. One waiting
 * for a credit does so only when no call has an owner (all in flight
 * were abandoned): otherwise an owner polls, and the credit comes back
 * when that owner frees its slot, an event ep_poll would not notice.
 */
static int ct_wait(struct ct *ct, ct_pred pred, void *arg,
		   const struct timespec *dl, bool for_credit)
{
	int rc;

	for (;;) {
		if (pred(ct, arg))
			return 0;
		if (ct->broken || !ct->ep)
			return -ENOTCONN;
		if (!ct->polling && ct->credits.inflight > 0 &&
		    (!for_credit || ct->ep_users == 0)) {
			rc = ct_poll(ct, pred, arg, dl);
			if (rc)
				return pred(ct, arg) ? 0 : rc;
			continue;
		}
		rc = pthread_cond_timedwait(&ct->cv, &ct->lock, dl);
		if (rc == ETIMEDOUT)
			return pred(ct, arg) ? 0 : -ETIMEDOUT;
	}
}

static bool pred_slot_done(struct ct *ct, void *arg)
{
	(void)ct;
	return ((struct ct_slot *)arg)->state == SLOT_DONE;
}

static bool pred_credit(struct ct *ct, void *arg)
{
	(void)arg;
	return ct->credits.inflight < ct->credits.granted;
}

/* --- connection --- */

static void ct_bc_purge(struct ct *ct);

/* Takes a new endpoint into use (ct->lock held, or at creation). */
static void ct_install(struct ct *ct, struct rpcrdma_ep *ep)
{
	ct_bc_purge(ct);
	ct->ep = ep;
	ct->gen++;
	ct->broken = false;
	ct->no_windows = false;
	rpcrdma_req_credits_init(&ct->credits, ct->nslots);
	pthread_cond_broadcast(&ct->cv);
}

/* Connects within timeout_ms (never more than the CLIENT's own limit). */
static int ct_connect_ep(struct ct *ct, int timeout_ms,
			 struct rpcrdma_ep **out)
{
	struct rpcrdma_ep_opts eo = ct->eo;

	if (timeout_ms < eo.timeout_ms)
		eo.timeout_ms = timeout_ms;
	return rpcrdma_ep_connect(
	    (struct sockaddr *)&ct->addr,
	    ct->has_src ? (struct sockaddr *)&ct->src : NULL, &eo, out);
}

/* The first connection, at creation. */
static int ct_connect(struct ct *ct, int timeout_ms)
{
	struct rpcrdma_ep *ep;
	int rc = ct_connect_ep(ct, timeout_ms, &ep);

	if (!rc)
		ct_install(ct, ep);
	return rc;
}

/*
 * Lets go of the endpoint (ct->lock held): the slots' registrations and
 * windows first (windows die before their endpoint), its counters kept.
 * Returns it for rpcrdma_ep_destroy, which may drain for a while: better
 * without the lock.
 */
static struct rpcrdma_ep *ct_detach(struct ct *ct)
{
	struct rpcrdma_ep *ep = ct->ep;

	for (uint32_t i = 0; i < ct->nslots; i++) {
		slot_dereg(&ct->slots[i]);
		rpcrdma_win_destroy(ct->slots[i].win);
		ct->slots[i].win = NULL;
		rpcrdma_win_destroy(ct->slots[i].call_win);
		ct->slots[i].call_win = NULL;
	}
	if (ep)
		stats_add(&ct->base, rpcrdma_ep_stats(ep));
	ct->ep = NULL;
	return ep;
}

/*
 * Makes sure a live endpoint exists (ct->lock held): waits until the
 * calls on a broken one are gone, then reconnects. One caller connects,
 * without the lock (a connect can take its whole timeout): the others
 * wait on the condition variable within their own deadlines, and
 * clnt_control and other calls' completions go on meanwhile.
 */
static int ct_ensure_conn(struct ct *ct, const struct timespec *dl)
{
	for (;;) {
		if (ct->ep && !ct->broken) {
			if (rpcrdma_ep_connected(ct->ep))
				return 0;
			ct_break(ct);
		}
		if (ct->ep_users == 0 && !ct->polling && !ct->connecting) {
			/* A reconnect spends the call's time, not more. */
			struct rpcrdma_ep *old, *ep = NULL;
			int ms, rc;

			if (xprt_ms_left(dl) <= 0)
				return -ETIMEDOUT;
			ct_break(ct); /* drops abandoned slots */
			old = ct_detach(ct);
			ct->connecting = true;
			pthread_mutex_unlock(&ct->lock);
			rpcrdma_ep_destroy(old);
			ms = xprt_ms_left(dl);
			rc = ms > 0 ? ct_connect_ep(ct, ms, &ep) : -ETIMEDOUT;
			pthread_mutex_lock(&ct->lock);
			ct->connecting = false;
			if (!rc)
				ct_install(ct, ep);
			pthread_cond_broadcast(&ct->cv);
			return rc;
		}
		if (pthread_cond_timedwait(&ct->cv, &ct->lock, dl) == ETIMEDOUT)
			return -ETIMEDOUT;
	}
}

/* --- the call --- */

/*
 * The slot's buffers for its next call. The reply buffer holds the
 * largest reply the call may get (its procedure's hint, or max_msg
 * without one; an inline reply at least) and, behind it, the write chunks
 * the call's DDP hint asks for. It only grows, when a call needs more
 * (its window is then made again), never while a window is still bound
 * over it (the call then offers no write chunks): so pinned memory
 * follows the calls actually made, not the credits. The call's encoder
 * grows with the call up to RPCRDMA_CALL_MAX; one left larger than
 * max_msg by an earlier call is dropped rather than kept pinned.
 */
static int slot_prepare(struct ct *ct, struct ct_slot *s)
{
	size_t cap = ct->opts.max_msg, need;

	if (s->reply_hint) {
		need = rpcrdma_xdr_roundup(s->reply_hint);
		if (need < cap)
			cap = need;
	}
	if (cap < ct->opts.inline_recv)
		cap = ct->opts.inline_recv;
	need = cap + (size_t)s->ddp_items * rpcrdma_xdr_roundup(s->ddp_max);
	if (s->xdr_ok && rpcrdma_xdrgrow_cap(&s->xdr) > ct->opts.max_msg &&
	    !rpcrdma_win_bound(s->call_win) && !s->call_mr) {
		rpcrdma_xdrgrow_destroy(&s->xdr);
		s->xdr_ok = false;
		/* Its window pins the old pages: a new buffer at the same
		 * address and size must not pass for it. */
		rpcrdma_win_destroy(s->call_win);
		s->call_win = NULL;
	}
	if (!s->xdr_ok) {
		if (rpcrdma_xdrgrow_create(&s->xdr, CT_XDR_INITIAL,
					   RPCRDMA_CALL_MAX))
			return -ENOMEM;
		s->xdr_ok = true;
	}
	if (need > s->reply_cap && s->reply_buf &&
	    (rpcrdma_win_bound(s->win) || s->reply_mr)) {
		s->ddp_items = 0;
		need = s->reply_cap;
	}
	if (!s->reply_buf || need > s->reply_cap) {
		uint8_t *nb = realloc(s->reply_buf, need);

		if (!nb)
			return -ENOMEM;
		s->reply_buf = nb;
		s->reply_cap = need;
	}
	rpcrdma_xdrgrow_reset(&s->xdr);
	s->err = 0;
	s->rdma_err = 0;
	s->reply_len = 0;
	s->replied = false;
	s->nwrites = 0;
	s->reply_area = (uint32_t)s->reply_cap;
	memset(s->wlen, 0, sizeof(s->wlen));
	return 0;
}

/* Takes a credit and a slot (ct->lock held). */
static int ct_get_slot(struct ct *ct, const struct timespec *dl,
		       struct ct_slot **out)
{
	bool waited = false;
	int rc;

	while (!rpcrdma_req_credits_get(&ct->credits)) {
		if (!waited) {
			CT_INC(ct, credit_waits);
			waited = true;
		}
		rc = ct_wait(ct, pred_credit, NULL, dl, true);
		if (rc == -ETIMEDOUT && ct->ep_users == 0 &&
		    ct->credits.inflight > 0)
			ct_break(ct); /* all held by abandoned calls */
		if (rc)
			return rc;
	}
	if (ct->broken) {
		/* Reset while waiting (ct_break closed the QP, which woke
		 * the poller): a credit of the old connection sends nothing;
		 * the caller reconnects. */
		rpcrdma_req_credits_put(&ct->credits);
		return -ENOTCONN;
	}
	RPCRDMA_STAT_MAX(ct->ep, inflight_peak, ct->credits.peak);
	for (uint32_t i = 0; i < ct->nslots; i++) {
		if (ct->slots[i].state == SLOT_FREE) {
			ct->slots[i].state = SLOT_OWNED;
			ct->ep_users++;
			*out = &ct->slots[i];
			return 0;
		}
	}
	/* Cannot happen: slots == credit maximum. */
	rpcrdma_req_credits_put(&ct->credits);
	return -ENOSPC;
}

/* AUTH_NONE and AUTH_SYS keep no per-call state: their WRAP and UNWRAP
 * may run in parallel. */
static bool ct_auth_stateless(const AUTH *auth)
{
	return auth->ah_cred.oa_flavor == AUTH_NONE ||
	       auth->ah_cred.oa_flavor == AUTH_SYS;
}

/* Encodes the call into the slot: header, procedure, credentials, args. */
static bool ct_encode(struct ct *ct, struct ct_slot *s, uint32_t xid,
		      rpcproc_t proc, xdrproc_t xargs, void *argsp)
{
	AUTH *auth = ct->clnt.cl_auth;
	uint8_t hdr[CT_CALLHDR_LEN];
	int32_t p = (int32_t)proc;
	uint32_t nxid = htonl(xid);
	bool ok;

	pthread_mutex_lock(&ct->lock);
	memcpy(hdr, ct->callhdr, sizeof(hdr));
	pthread_mutex_unlock(&ct->lock);
	memcpy(hdr, &nxid, sizeof(nxid));
	pthread_mutex_lock(&ct->auth_lock);
	rpcrdma_xdrgrow_set_ddp(&s->xdr, 0);
	rpcrdma_xdrgrow_set_zc(&s->xdr, 0);
	ok = XDR_PUTBYTES(&s->xdr, (char *)hdr, sizeof(hdr)) &&
	     XDR_PUTINT32(&s->xdr, &p) && AUTH_MARSHALL(auth, &s->xdr);
	/* Items are the arguments' only: the header and credentials are
	 * not DDP-eligible (RFC 8166 section 3.4.2). */
	rpcrdma_xdrgrow_set_ddp(&s->xdr, ct->opts.ddp_threshold);
	if (ct_auth_stateless(auth)) {
		/* Their WRAP encodes the arguments themselves, from the
		 * caller's memory: large items may stay there. Other
		 * flavours wrap from buffers of their own. */
		rpcrdma_xdrgrow_set_zc(&s->xdr, ct->opts.zc_threshold);
		pthread_mutex_unlock(&ct->auth_lock);
		return ok && AUTH_WRAP(auth, &s->xdr, xargs, argsp);
	}
	/* A flavour with state (RPCSEC_GSS: the sequence number MARSHALL
	 * took) wraps the arguments with that state: no other call's
	 * MARSHALL in between. */
	ok = ok && AUTH_WRAP(auth, &s->xdr, xargs, argsp);
	pthread_mutex_unlock(&ct->auth_lock);
	return ok;
}

/* Index of proc's own hint, or ct->nhints (ct->lock held). */
static uint32_t ct_hint_index(const struct ct *ct, rpcproc_t proc)
{
	uint32_t i;

	for (i = 0; i < ct->nhints && ct->hints[i].proc != proc; i++)
		;
	return i;
}

/* The bound on proc's replies, or 0 (ct->lock held). */
static uint32_t ct_reply_hint(const struct ct *ct, rpcproc_t proc)
{
	uint32_t i = ct_hint_index(ct, proc);

	return i < ct->nhints && ct->hints[i].reply_max ?
		       ct->hints[i].reply_max : ct->reply_max;
}

/* proc's entry, made if missing (ct->lock held); NULL without memory. */
static struct ct_hint *ct_hint_get(struct ct *ct, rpcproc_t proc)
{
	uint32_t i = ct_hint_index(ct, proc);

	if (i < ct->nhints)
		return &ct->hints[i];
	if (ct->nhints == ct->hints_cap) {
		uint32_t cap = ct->hints_cap ? 2 * ct->hints_cap : 8;
		struct ct_hint *n;

		n = realloc(ct->hints, cap * sizeof(*n));
		if (!n)
			return NULL;
		ct->hints = n;
		ct->hints_cap = cap;
	}
	memset(&ct->hints[ct->nhints], 0, sizeof(ct->hints[0]));
	ct->hints[ct->nhints].proc = proc;
	return &ct->hints[ct->nhints++];
}

/* Drops h when it no longer says anything (ct->lock held). */
static void ct_hint_trim(struct ct *ct, struct ct_hint *h)
{
	if (!h->reply_max && !h->ddp_items)
		*h = ct->hints[--ct->nhints];
}

/* Sets (reply_max 0: drops) proc's reply bound (ct->lock held). */
static bool ct_set_hint(struct ct *ct, const struct rpcrdma_proc_reply *r)
{
	struct ct_hint *h;

	if (!r->reply_max && ct_hint_index(ct, r->proc) == ct->nhints)
		return true;
	h = ct_hint_get(ct, r->proc);
	if (!h)
		return false;
	h->reply_max = r->reply_max;
	ct_hint_trim(ct, h);
	return true;
}

/*
 * Sets (items 0: drops) proc's DDP hint (ct->lock held). Its write chunks
 * live behind the reply area of a slot's reply buffer, which grows for
 * them: an item is at most max_msg bytes, as a whole message is.
 */
static bool ct_set_ddp(struct ct *ct, const struct rpcrdma_proc_ddp *r)
{
	struct ct_hint *h;

	if (r->items > RPCRDMA_MAX_WRITE_CHUNKS ||
	    (r->items && (!r->item_max || r->item_max > ct->opts.max_msg)))
		return false;
	if (!r->items && ct_hint_index(ct, r->proc) == ct->nhints)
		return true;
	h = ct_hint_get(ct, r->proc);
	if (!h)
		return false;
	h->ddp_items = r->items;
	h->ddp_max = r->items ? r->item_max : 0;
	ct_hint_trim(ct, h);
	return true;
}

/*
 * The reply chunk s offers (RFC 8166 section 3.5.4): none when the hinted
 * reply fits inline after our reply's transport header (no chunk lists),
 * else the hint rounded to XDR units, or max_msg without a hint; never
 * more than room, what the responder's chunk bound leaves.
 */
static uint32_t ct_reply_chunk(const struct ct *ct, const struct ct_slot *s,
			       size_t inline_room, uint64_t room)
{
	uint64_t want = ct->opts.max_msg;

	if (s->reply_hint) {
		if (s->reply_hint <= inline_room)
			return 0;
		want = ((uint64_t)s->reply_hint + RPCRDMA_XDR_UNIT - 1) &
		       ~(uint64_t)(RPCRDMA_XDR_UNIT - 1);
	}
	if (want > ct->opts.max_msg)
		want = ct->opts.max_msg;
	if (want > room)
		want = room;
	return (uint32_t)want & ~(RPCRDMA_XDR_UNIT - 1);
}

/*
 * A slot's window on ep over buf[0, len), made at its first use on this
 * connection over cap bytes, and made again when the buffer moved or
 * grew: true when it is free to bind, false when the chunk must be
 * registered for the call instead (no type-2 windows, or a window still
 * bound after a failure, which a reset will clear).
 */
static bool ct_window(struct ct *ct, struct rpcrdma_ep *ep,
		      struct rpcrdma_win **wp, void *buf, size_t len,
		      size_t cap)
{
	bool off;

	pthread_mutex_lock(&ct->lock);
	off = ct->no_windows;
	pthread_mutex_unlock(&ct->lock);
	if (off)
		return false;
	if (*wp && !rpcrdma_win_covers(*wp, buf, cap)) {
		/* The buffer moved or grew: a new registration, once (the
		 * old one pinned the old pages, which may be gone). */
		if (rpcrdma_win_bound(*wp))
			return false;
		rpcrdma_win_destroy(*wp);
		*wp = NULL;
	}
	if (!*wp && rpcrdma_win_create(ep, buf, cap, wp)) {
		pthread_mutex_lock(&ct->lock);
		ct->no_windows = true;
		pthread_mutex_unlock(&ct->lock);
		return false;
	}
	return !rpcrdma_win_bound(*wp);
}

/*
 * How the call travels (RFC 8166 section 3.5): inline when the whole
 * message fits; else with its large items (the generic DDP rule) in read
 * chunks at their XDR positions when the rest then fits; else as a Long
 * Call, whose position-zero chunk carries the rest and the items their
 * own chunks (a plain Long Call when there are none, or no room for that
 * header). lists: the header bytes of the write list and reply chunk.
 */
static int ct_plan(struct ct *ct, struct ct_slot *s, uint32_t send_max,
		   size_t lists, struct rpcrdma_call_plan *plan)
{
	const struct rpcrdma_item *items;
	struct rpcrdma_call_plan ddp;
	size_t rpc_len;
	uint32_t nitems;
	int rc;

	(void)rpcrdma_xdrgrow_buf(&s->xdr, &rpc_len);
	nitems = rpcrdma_xdrgrow_items(&s->xdr, &items);
	rc = rpcrdma_plan_call((uint32_t)rpc_len, NULL, 0, 0, send_max, lists,
			       plan);
	if (rc || plan->kind == RPCRDMA_CALL_INLINE || !nitems)
		return rc;
	/* Items an XDR routine emitted oddly (-EINVAL) just stay inline. */
	if (rpcrdma_plan_call((uint32_t)rpc_len, items, nitems,
			      ct->opts.ddp_threshold, send_max, lists,
			      &ddp) == 0)
		*plan = ddp;
	return 0;
}

/*
 * Zero-copy read chunks (docs/performance.md, "copy or register"): an
 * item the encoder left in the caller's memory is exposed from there for
 * this call, through a window over a registration of it where windows
 * are used (the responder may revoke a window remotely), else through
 * the registration itself, REMOTE_READ only. What cannot go so (a Long
 * Call, an item the plan keeps inline, a third one, a registration
 * refused: read-only pages, say) is copied in after all. zc[c] for plan
 * chunk c: 1 + its index in s->zc_*, or 0 (the call's buffer).
 */
static void ct_zc_expose(struct ct *ct, struct rpcrdma_ep *ep,
			 struct ct_slot *s,
			 const struct rpcrdma_call_plan *plan, uint8_t *zc)
{
	const struct rpcrdma_item *items;
	uint32_t n = rpcrdma_xdrgrow_items(&s->xdr, &items), i, c;
	bool chunked = plan->kind == RPCRDMA_CALL_READ ||
		       plan->kind == RPCRDMA_CALL_LONG_READ;
	bool wins;

	pthread_mutex_lock(&ct->lock);
	wins = !ct->no_windows && rpcrdma_ep_windows(ep);
	pthread_mutex_unlock(&ct->lock);
	memset(zc, 0, plan->nchunks);
	for (i = 0; i < n; i++) {
		void *ext = (void *)(uintptr_t)rpcrdma_xdrgrow_item_ext(
			&s->xdr, i);
		uint32_t len = items[i].length, k = s->nzc;
		int rc = -ENOENT;

		if (!ext)
			continue;
		for (c = 0; chunked && c < plan->nchunks; c++)
			if (plan->chunks[c].offset == items[i].offset)
				break;
		if (chunked && c < plan->nchunks && k < CT_ZC_MAX) {
			if (wins)
				rc = rpcrdma_win_create(ep, ext, len,
							&s->zc_win[k]);
			else if (!rpcrdma_ep_inline(ep)->remote_inv_in)
				rc = rpcrdma_ep_reg(ep, ext, len,
						    RPCRDMA_ACCESS_REMOTE_READ,
						    &s->zc_mr[k]);
		}
		if (rc) {
			rpcrdma_xdrgrow_fill(&s->xdr, i);
			continue;
		}
		s->zc_addr[k] = ext;
		s->zc_len[k] = len;
		s->nzc++;
		zc[c] = (uint8_t)(k + 1);
	}
}

/* Where write chunk i of s lives: behind the reply area. */
static uint8_t *slot_write_area(const struct ct_slot *s, uint32_t i)
{
	return s->reply_buf + s->wbase +
	       (size_t)i * rpcrdma_xdr_roundup(s->ddp_max);
}

/*
 * Exposes what the peer needs, builds the transport header and sends:
 * read chunks (DDP items or the whole Long Call) readable through a
 * registration of the call; write chunks and the reply chunk writable
 * through the slot's window over its reply buffer (or a registration of
 * it). 0 or -errno; the failure's clnt_stat is in *stat.
 */
static int ct_send(struct ct *ct, struct rpcrdma_ep *ep, struct ct_slot *s,
		   enum clnt_stat *stat)
{
	const struct rpcrdma_inline *inl = rpcrdma_ep_inline(ep);
	struct iovec iov[RPCRDMA_PLAN_MAX_ITEMS + 2];
	uint32_t wsegs[RPCRDMA_MAX_WRITE_CHUNKS], i, niov = 1, rkey = 0;
	struct rpcrdma_call_plan plan;
	struct rpcrdma_segment seg;
	struct rpcrdma_msg m;
	uint8_t hbuf[CT_HDRBUF_LEN];
	uint64_t room, wbytes, read_bytes = 0, expose;
	size_t rpc_len, call_len, hlen, lists, inline_room;
	struct rpcrdma_bind binds[RPCRDMA_MAX_BINDS];
	uint8_t zc[RPCRDMA_PLAN_MAX_ITEMS];
	bool use_win, use_cwin;
	uint32_t nb = 0, ncopied;
	uint8_t *rpc;
	int rc;

	rpc = rpcrdma_xdrgrow_buf(&s->xdr, &rpc_len);
	/* Write chunks (section 3.4.6), one segment each; none when the
	 * reply's bound with its items in fits inline anyway. */
	s->nwrites = s->ddp_items;
	if (s->nwrites && s->reply_hint &&
	    s->reply_hint + (uint64_t)s->nwrites *
				    rpcrdma_xdr_roundup(s->ddp_max) <=
		    inl->recv_max - RPCRDMA_HDR_MIN)
		s->nwrites = 0;
	wbytes = (uint64_t)s->nwrites * rpcrdma_xdr_roundup(s->ddp_max);
	s->reply_area = (uint32_t)(s->reply_cap - wbytes);
	for (i = 0; i < s->nwrites; i++)
		wsegs[i] = 1;
	/* What an inline reply leaves for the RPC message: the responder's
	 * header echoes the write list (section 3.3.2). */
	inline_room = inl->recv_max - rpcrdma_hdr_size_for(0, s->nwrites,
							    wsegs, 0);
	/* Read list terminator excluded: the plan adds the read list. */
	lists = rpcrdma_hdr_size_for(0, s->nwrites, wsegs, 1) -
		RPCRDMA_HDR_FIXED - 4;
	rc = ct_plan(ct, s, inl->send_max, lists, &plan);
	if (rc) {
		*stat = RPC_CANTENCODEARGS;
		return rc;
	}
	ct_zc_expose(ct, ep, s, &plan, zc);
	call_len = rpc_len;
	if (plan.kind == RPCRDMA_CALL_LONG_READ) {
		/* The rest of the call, gathered behind it into the run that
		 * the position-zero chunk carries (the buffer may move). */
		size_t goff;

		rc = rpcrdma_xdrgrow_gather(&s->xdr, plan.extents,
					    plan.nextents, &goff);
		if (rc)
			goto out_sys;
		rpc = rpcrdma_xdrgrow_buf(&s->xdr, &rpc_len);
		plan.chunks[0].offset = (uint32_t)goff;
		call_len = goff + plan.inline_len;
		plan.nextents = 0;
	}
	ncopied = 0;
	for (i = 0; i < plan.nchunks; i++) {
		read_bytes += plan.chunks[i].length;
		ncopied += !zc[i];
	}
	/*
	 * The responder bounds the sum of all chunk lengths in a header
	 * (max_chunk_bytes of rpcrdma_limits, the same default on both sides
	 * of this library): the reply chunk gets what the others leave.
	 */
	room = ct->limits.max_chunk_bytes;
	/* A call larger than that goes all the same: only the server knows
	 * what it takes (ERR_CHUNK beyond it); no reply chunk rides along. */
	room = read_bytes + wbytes < room ? room - read_bytes - wbytes : 0;
	if (room > s->reply_area)
		room = s->reply_area;
	s->reply_chunk = ct_reply_chunk(ct, s, inline_room, room);
	if (s->reply_hint > inline_room && s->reply_chunk < s->reply_hint) {
		/* What the other chunks leave cannot hold the hinted reply:
		 * fail now rather than after the server ran the call. */
		*stat = RPC_CANTENCODEARGS;
		return -EMSGSIZE;
	}
	/* The write chunks sit behind the inline reply and the reply
	 * chunk (reply_area >= inline_recv leaves room for both). */
	s->wbase = rpcrdma_xdr_roundup(s->reply_chunk > inl->recv_max ?
					       s->reply_chunk : inl->recv_max);
	expose = s->nwrites ? s->wbase + wbytes : s->reply_chunk;
	use_win = expose && ct_window(ct, ep, &s->win, s->reply_buf,
				      s->reply_cap, s->reply_cap);
	use_cwin = ncopied &&
		   ct_window(ct, ep, &s->call_win, rpc, call_len,
			     rpcrdma_xdrgrow_cap(&s->xdr));
	/*
	 * Once we set R the responder may invalidate the rkey when a call
	 * names only one (the Linux server does even when its own R is
	 * clear): what the call exposes must be windows, never a
	 * registration (an MR cannot be invalidated remotely; the QP would
	 * fail).
	 */
	if (((expose && !use_win) || (ncopied && !use_cwin)) &&
	    inl->remote_inv_in) {
		/* No window to expose where R promised one: this connection
		 * cannot carry the call; the next one will not promise. */
		pthread_mutex_lock(&ct->lock);
		/* ct->eo is read only by a reconnect, which waits until no
		 * slot is in use: this one is. */
		if (ct->no_windows)
			ct->eo.remote_inv = false;
		ct_break(ct);
		pthread_mutex_unlock(&ct->lock);
		*stat = RPC_CANTSEND;
		return -EAGAIN;	/* nothing sent: the caller reconnects */
	}
	if (expose && !use_win) {
		rc = rpcrdma_ep_reg(ep, s->reply_buf, (size_t)expose,
				    RPCRDMA_ACCESS_REMOTE_WRITE, &s->reply_mr);
		if (rc)
			goto out_sys;
	}
	if (expose)
		rkey = use_win ? rpcrdma_win_next_rkey(s->win)
			       : rpcrdma_mr_rkey(s->reply_mr);
	rpcrdma_msg_init(&m, s->xid, ct->opts.credits,
			 plan.kind == RPCRDMA_CALL_LONG ||
				 plan.kind == RPCRDMA_CALL_LONG_READ ?
				 RPCRDMA_NOMSG
							: RPCRDMA_MSG);
	if (ncopied && !use_cwin) {
		rc = rpcrdma_ep_reg(ep, rpc, call_len,
				    RPCRDMA_ACCESS_REMOTE_READ, &s->call_mr);
		if (rc)
			goto out_sys;
	}
	for (i = 0; i < plan.nchunks; i++) {
		uint32_t k = zc[i] - 1u;

		seg.length = plan.chunks[i].length;
		if (zc[i]) {
			seg.handle = s->zc_win[k] ?
				rpcrdma_win_next_rkey(s->zc_win[k]) :
				rpcrdma_mr_rkey(s->zc_mr[k]);
			seg.offset = (uint64_t)(uintptr_t)s->zc_addr[k];
		} else {
			seg.handle = use_cwin ?
				rpcrdma_win_next_rkey(s->call_win) :
				rpcrdma_mr_rkey(s->call_mr);
			seg.offset = (uint64_t)(uintptr_t)(rpc +
						plan.chunks[i].offset);
		}
		rc = rpcrdma_msg_add_read(&m, plan.chunks[i].position, &seg);
		if (rc)
			goto out_enc;
	}
	for (i = 0; i < s->nwrites; i++) {
		int idx = rpcrdma_msg_add_write_chunk(&m);

		s->wsegs[i].handle = rkey;
		s->wsegs[i].length = s->ddp_max;
		s->wsegs[i].offset = (uint64_t)(uintptr_t)slot_write_area(s, i);
		rc = idx < 0 ? idx : rpcrdma_msg_add_write_seg(&m, (uint32_t)idx,
							       &s->wsegs[i]);
		if (rc)
			goto out_enc;
	}
	if (s->reply_chunk) {
		seg.handle = rkey;
		seg.length = s->reply_chunk;
		seg.offset = (uint64_t)(uintptr_t)s->reply_buf;
		s->reply_seg = seg;
		rc = rpcrdma_msg_add_reply_seg(&m, &seg);
		if (rc)
			goto out_enc;
	}
	rc = rpcrdma_hdr_encode(&m, hbuf, sizeof(hbuf), &hlen);
	if (rc)
		goto out_enc;
	iov[0].iov_base = hbuf;
	iov[0].iov_len = hlen;
	for (i = 0; i < plan.nextents; i++) {
		iov[niov].iov_base = rpc + plan.extents[i].offset;
		iov[niov].iov_len = plan.extents[i].length;
		niov++;
	}

	pthread_mutex_lock(&ct->lock);
	s->state = SLOT_WAITING;
	switch (plan.kind) {
	case RPCRDMA_CALL_LONG:
	case RPCRDMA_CALL_LONG_READ:
		CT_INC(ct, calls_long);
		CT_INC(ct, sent_nomsg);
		break;
	case RPCRDMA_CALL_READ:
		CT_INC(ct, calls_read_chunks);
		CT_INC(ct, sent_msg);
		break;
	default:
		CT_INC(ct, calls_inline);
		CT_INC(ct, sent_msg);
		break;
	}
	RPCRDMA_STAT_ADD(ct->ep, read_chunks, plan.nchunks);
	RPCRDMA_STAT_ADD(ct->ep, zc_chunks, s->nzc);
	RPCRDMA_STAT_ADD(ct->ep, write_chunks, s->nwrites);
	if (s->reply_chunk)
		CT_INC(ct, reply_chunks);
	pthread_mutex_unlock(&ct->lock);

	if (use_cwin) {
		binds[nb].w = s->call_win;
		binds[nb].len = call_len;
		binds[nb++].access = RPCRDMA_ACCESS_REMOTE_READ;
	}
	if (use_win) {
		binds[nb].w = s->win;
		binds[nb].len = (size_t)expose;
		binds[nb++].access = RPCRDMA_ACCESS_REMOTE_WRITE;
	}
	for (i = 0; i < s->nzc; i++) {
		if (!s->zc_win[i])
			continue;
		binds[nb].w = s->zc_win[i];
		binds[nb].len = s->zc_len[i];
		binds[nb++].access = RPCRDMA_ACCESS_REMOTE_READ;
	}
	if (nb)
		rc = rpcrdma_ep_send_bind(ep, iov, (int)niov, binds, nb);
	else
		rc = rpcrdma_ep_send(ep, iov, (int)niov, 0);
	if (rc) {
		*stat = RPC_CANTSEND;
		pthread_mutex_lock(&ct->lock);
		if (s->state == SLOT_WAITING)
			s->state = SLOT_DONE;
		/* A window bound without its call: only a new connection
		 * frees it for sure. */
		if (rc == -ENOTCONN || slot_bound(s))
			ct_break(ct);
		pthread_mutex_unlock(&ct->lock);
	}
	return rc;
out_enc:
	*stat = RPC_CANTENCODEARGS;
	return rc;
out_sys:
	*stat = RPC_SYSTEMERROR;
	return rc;
}

/* Decodes no results: xdr_replymsg's placeholder for them. */
static bool_t ct_xdr_void(XDR *xdrs, ...)
{
	(void)xdrs;
	return TRUE;
}

/* Decodes the reply in the slot (RPC message in s->reply_buf). */
static enum clnt_stat ct_decode(struct ct *ct, struct ct_slot *s,
				xdrproc_t xres, void *resp, struct rpc_err *err,
				bool *refresh)
{
	AUTH *auth = ct->clnt.cl_auth;
	struct rpcrdma_xdrddp dd;
	struct rpc_msg reply;
	bool ddp = false;
	XDR x;

	memset(&reply, 0, sizeof(reply));
	reply.acpted_rply.ar_verf = _null_auth;
	reply.acpted_rply.ar_results.where = NULL;
	reply.acpted_rply.ar_results.proc = ct_xdr_void;
	for (uint32_t i = 0; i < s->nwrites; i++) {
		dd.chunks[i].data = slot_write_area(s, i);
		dd.chunks[i].len = s->wlen[i];
		ddp |= s->wlen[i] != 0;
	}
	dd.n = s->nwrites;
	if (ddp &&
	    rpcrdma_xdrddp_create(&x, &dd, s->reply_buf, s->reply_len,
				  ct->opts.ddp_threshold)) {
		err->re_status = RPC_CANTDECODERES;
		return err->re_status;
	} else if (!ddp)
		xdrmem_create(&x, (char *)s->reply_buf, s->reply_len,
			      XDR_DECODE);
	if (!xdr_replymsg(&x, &reply) || reply.rm_xid != s->xid) {
		err->re_status = RPC_CANTDECODERES;
		goto out;
	}
	_seterr_reply(&reply, err);
	if (err->re_status == RPC_SUCCESS) {
		bool stateless = ct_auth_stateless(auth);

		pthread_mutex_lock(&ct->auth_lock);
		if (!AUTH_VALIDATE(auth, &reply.acpted_rply.ar_verf)) {
			err->re_status = RPC_AUTHERROR;
			err->re_why = AUTH_INVALIDRESP;
		}
		if (stateless)
			pthread_mutex_unlock(&ct->auth_lock);
		if (err->re_status == RPC_SUCCESS &&
		    !AUTH_UNWRAP(auth, &x, xres, resp))
			err->re_status = RPC_CANTDECODERES;
		if (err->re_status == RPC_SUCCESS && ddp &&
		    !rpcrdma_xdrddp_done(&dd)) {
			/* Returned bytes the results did not take: not the
			 * reply to this call's XDR. What was decoded goes
			 * (libtirpc callers free nothing after a failure). */
			xdr_free(xres, resp);
			err->re_status = RPC_CANTDECODERES;
		}
		if (!stateless)
			pthread_mutex_unlock(&ct->auth_lock);
	} else if (err->re_status == RPC_AUTHERROR) {
		pthread_mutex_lock(&ct->auth_lock);
		*refresh = AUTH_REFRESH(auth, &reply);
		pthread_mutex_unlock(&ct->auth_lock);
	}
	if (reply.acpted_rply.ar_verf.oa_base) {
		x.x_op = XDR_FREE;
		(void)xdr_opaque_auth(&x, &reply.acpted_rply.ar_verf);
	}
out:
	XDR_DESTROY(&x);
	return err->re_status;
}

static void err_from_errno(struct rpc_err *err, enum clnt_stat st, int rc)
{
	memset(err, 0, sizeof(*err));
	err->re_status = st;
	err->re_errno = rc < 0 ? -rc : rc;
}

static enum clnt_stat ct_call_once(struct ct *ct, rpcproc_t proc,
				   xdrproc_t xargs, void *argsp, xdrproc_t xres,
				   void *resp, const struct timespec *dl,
				   struct rpc_err *err, struct ct_limit *lim,
				   bool *refresh)
{
	enum clnt_stat st = RPC_SUCCESS;
	struct rpcrdma_ep *ep;
	struct ct_slot *s;
	bool retried = false;
	uint32_t xid;
	int rc;

	memset(err, 0, sizeof(*err));
retry:
	pthread_mutex_lock(&ct->lock);
	for (;;) {
		rc = ct_ensure_conn(ct, dl);
		if (rc) {
			st = rc == -ETIMEDOUT ? RPC_TIMEDOUT : RPC_CANTSEND;
			goto out_unlock;
		}
		rc = ct_get_slot(ct, dl, &s);
		if (rc == -ENOTCONN)
			continue; /* broke while waiting: reconnect */
		if (rc) {
			st = rc == -ETIMEDOUT ? RPC_TIMEDOUT : RPC_SYSTEMERROR;
			goto out_unlock;
		}
		break;
	}
	ep = ct->ep;
	xid = atomic_fetch_add(&ct->next_xid, 1);
	ct->last_xid = xid;
	s->xid = xid;
	s->reply_hint = ct_reply_hint(ct, proc);
	{
		uint32_t i = ct_hint_index(ct, proc);

		s->ddp_items = i < ct->nhints && ct->opts.ddp_threshold ?
				       ct->hints[i].ddp_items : 0;
		s->ddp_max = s->ddp_items ? ct->hints[i].ddp_max : 0;
	}
	pthread_mutex_unlock(&ct->lock);

	rc = slot_prepare(ct, s);
	if (rc) {
		st = RPC_SYSTEMERROR;
		goto out_release;
	}
	if (!ct_encode(ct, s, xid, proc, xargs, argsp)) {
		st = RPC_CANTENCODEARGS;
		rc = -EMSGSIZE;
		if (rpcrdma_xdrgrow_over(&s->xdr)) {
			lim->kind = CT_LIM_CALL;
			lim->bytes = RPCRDMA_CALL_MAX;
		}
		goto out_release;
	}
	rc = ct_send(ct, ep, s, &st);
	if (rc == -EAGAIN && !retried) {
		/* Nothing was sent; the connection was reset to drop a
		 * promise (R) it could not keep: once more on a new one. */
		retried = true;
		slot_dereg(s);
		pthread_mutex_lock(&ct->lock);
		slot_free(ct, s);
		pthread_mutex_unlock(&ct->lock);
		st = RPC_SUCCESS;
		goto retry;
	}
	if (rc)
		goto out_release;

	pthread_mutex_lock(&ct->lock);
	rc = ct_wait(ct, pred_slot_done, s, dl, false);
	if (rc == -ETIMEDOUT && s->state == SLOT_WAITING) {
		/* The credit stays taken until the reply shows up or the
		 * connection is reset; the memory is revoked now. */
		s->state = SLOT_ABANDONED;
		ct_abandon(ct, s);
		ct->ep_users--;
		pthread_cond_broadcast(&ct->cv);
		err->re_status = RPC_TIMEDOUT;
		pthread_mutex_unlock(&ct->lock);
		return RPC_TIMEDOUT;
	}
	/* A reset completed the slot while the poller still waits on its
	 * windows: they are freed only after that. */
	while (s->flushing)
		pthread_cond_wait(&ct->cv, &ct->lock);
	pthread_mutex_unlock(&ct->lock);
	/* Done, or the connection broke (ct_break completed the slot). */
	if (s->state != SLOT_DONE || s->err == -ENOTCONN) {
		st = RPC_CANTRECV;
		rc = -ENOTCONN;
	} else if (s->err == -EPROTO) {
		/* RFC 8166 section 4.5: RDMA_ERROR reports a permanent
		 * error; a status callers do not take for a transport
		 * hiccup to retry (conformance review 16). */
		if (s->rdma_err == RPCRDMA_ERR_VERS) {
			st = RPC_SYSTEMERROR;
			rc = -EPROTONOSUPPORT;
			lim->kind = CT_LIM_ERR_VERS;
		} else {
			st = RPC_CANTDECODEARGS;
			rc = -EBADMSG;
			lim->kind = CT_LIM_ERR_CHUNK;
		}
		lim->bytes = s->nwrites ? s->wbase : s->reply_chunk;
	} else if (s->err) {
		st = RPC_CANTDECODERES;
		rc = s->err;
		lim->kind = CT_LIM_REPLY;
		lim->bytes = s->nwrites ? s->wbase : s->reply_chunk;
	}
	slot_dereg(s);
	if (st == RPC_SUCCESS) {
		st = ct_decode(ct, s, xres, resp, err, refresh);
		rc = 0;
	}
out_release:
	slot_dereg(s);
	pthread_mutex_lock(&ct->lock);
	slot_free(ct, s);
out_unlock:
	pthread_mutex_unlock(&ct->lock);
	if (rc)
		err_from_errno(err, st, rc);
	return st;
}

static enum clnt_stat clnt_rdma_call(CLIENT *cl, rpcproc_t proc,
				     xdrproc_t xargs, void *argsp,
				     xdrproc_t xres, void *resp,
				     struct timeval timeout)
{
	struct ct *ct = to_ct(cl);
	int refreshes = CT_REFRESHES;
	struct timespec dl;
	struct rpc_err err;
	struct ct_limit lim;
	enum clnt_stat st;
	struct timeval tv;
	bool refresh, gss;

	pthread_mutex_lock(&ct->lock);
	if (ct->wait_set || !timeval_ok(&timeout))
		tv = ct->wait;
	else
		tv = timeout;
	pthread_mutex_unlock(&ct->lock);
	xprt_deadline_after(&dl, &tv);
	/* RPCSEC_GSS checks a reply against the AUTH's current sequence
	 * number, the last one MARSHALL took: its calls go one at a time,
	 * as over libtirpc's own transports. */
	gss = cl->cl_auth->ah_cred.oa_flavor == RPCSEC_GSS;
	if (gss)
		pthread_mutex_lock(&ct->gss_lock);
	do {
		refresh = false;
		memset(&lim, 0, sizeof(lim));
		st = ct_call_once(ct, proc, xargs, argsp, xres, resp, &dl, &err,
				  &lim, &refresh);
	} while (st == RPC_AUTHERROR && refresh && refreshes-- > 0);
	if (gss)
		pthread_mutex_unlock(&ct->gss_lock);

	pthread_mutex_lock(&ct->lock);
	ct->error = err;
	ct->limit = lim;
	pthread_mutex_unlock(&ct->lock);
	return st;
}

int rpcrdma_clnt_errtext(CLIENT *cl, char *buf, size_t len)
{
	struct ct_limit lim;
	struct ct *ct;
	int n = 0;

	if (!cl || cl->cl_ops != &clnt_rdma_ops || !len)
		return 0;
	ct = to_ct(cl);
	pthread_mutex_lock(&ct->lock);
	lim = ct->limit;
	pthread_mutex_unlock(&ct->lock);
	switch (lim.kind) {
	case CT_LIM_NONE:
		buf[0] = 0;
		break;
	case CT_LIM_CALL:
		n = snprintf(buf, len, "the call is larger than "
			     "RPCRDMA_CALL_MAX (%u bytes)", lim.bytes);
		break;
	case CT_LIM_ERR_CHUNK:
		n = snprintf(buf, len, "RDMA_ERROR ERR_CHUNK: the server "
			     "refused the call's chunks: a call over its "
			     "largest message (its RPCRDMA_MAX_MSG), or a "
			     "reply larger than the %u bytes this call "
			     "offered (raise CLSET_RDMA_PROC_REPLY or "
			     "CLSET_RDMA_REPLY_MAX, at most the client's "
			     "RPCRDMA_MAX_MSG)", lim.bytes);
		break;
	case CT_LIM_ERR_VERS:
		n = snprintf(buf, len, "RDMA_ERROR ERR_VERS: the server "
			     "does not speak RPC-over-RDMA version 1");
		break;
	case CT_LIM_REPLY:
		n = snprintf(buf, len, "the reply did not fit the %u bytes "
			     "and chunks the call offered (CLSET_RDMA_PROC_"
			     "REPLY, CLSET_RDMA_PROC_DDP)", lim.bytes);
		break;
	}
	return n < 0 ? 0 : n;
}

static void clnt_rdma_abort(CLIENT *cl)
{
	(void)cl;
}

static void clnt_rdma_geterr(CLIENT *cl, struct rpc_err *errp)
{
	struct ct *ct = to_ct(cl);

	pthread_mutex_lock(&ct->lock);
	*errp = ct->error;
	pthread_mutex_unlock(&ct->lock);
}

static bool_t clnt_rdma_freeres(CLIENT *cl, xdrproc_t xres, void *resp)
{
	(void)cl;
	xdr_free(xres, resp);
	return TRUE;
}

/* Words of the prebuilt call header (RFC 5531 section 9). */
#define CALLHDR_PROG 3
#define CALLHDR_VERS 4

static uint32_t callhdr_get(const struct ct *ct, int word)
{
	uint32_t v;

	memcpy(&v, ct->callhdr + 4 * word, sizeof(v));
	return ntohl(v);
}

static void callhdr_set(struct ct *ct, int word, uint32_t v)
{
	v = htonl(v);
	memcpy(ct->callhdr + 4 * word, &v, sizeof(v));
}

static bool_t clnt_rdma_control(CLIENT *cl, u_int req, void *info)
{
	struct ct *ct = to_ct(cl);
	bool_t ok = TRUE;

	switch (req) {
	case CLSET_FD_CLOSE:
	case CLSET_FD_NCLOSE:
		return TRUE;
	}
	if (!info)
		return FALSE;
	pthread_mutex_lock(&ct->lock);
	switch (req) {
	case CLSET_TIMEOUT:
		if (!timeval_ok(info)) {
			ok = FALSE;
			break;
		}
		ct->wait = *(struct timeval *)info;
		ct->wait_set = true;
		break;
	case CLGET_TIMEOUT:
		*(struct timeval *)info = ct->wait;
		break;
	case CLGET_SERVER_ADDR:
		memcpy(info, &ct->addr, ct->addrlen);
		break;
	case CLGET_SVC_ADDR:
		*(struct netbuf *)info = ct->nb;
		break;
	case CLGET_FD:
		if (ct->ep)
			*(int *)info = rpcrdma_ep_fd(ct->ep);
		else
			ok = FALSE;
		break;
	case CLGET_XID:
		*(uint32_t *)info = ct->last_xid;
		break;
	case CLSET_XID:
		/* The xid of the next call. */
		atomic_store(&ct->next_xid, *(uint32_t *)info);
		break;
	case CLGET_VERS:
		*(uint32_t *)info = callhdr_get(ct, CALLHDR_VERS);
		break;
	case CLSET_VERS:
		callhdr_set(ct, CALLHDR_VERS, *(uint32_t *)info);
		break;
	case CLGET_PROG:
		*(uint32_t *)info = callhdr_get(ct, CALLHDR_PROG);
		break;
	case CLSET_PROG:
		callhdr_set(ct, CALLHDR_PROG, *(uint32_t *)info);
		break;
	case CLGET_RDMA_STATS:
		*(struct rpcrdma_stats *)info = ct->base;
		if (ct->ep)
			stats_add(info, rpcrdma_ep_stats(ct->ep));
		break;
	case CLGET_RDMA_INLINE:
		if (ct->ep)
			*(struct rpcrdma_inline *)info =
			    *rpcrdma_ep_inline(ct->ep);
		else
			ok = FALSE;
		break;
	case CLSET_RDMA_REPLY_MAX:
		ct->reply_max = *(uint32_t *)info;
		break;
	case CLGET_RDMA_REPLY_MAX:
		*(uint32_t *)info = ct->reply_max;
		break;
	case CLSET_RDMA_PROC_REPLY:
		ok = ct_set_hint(ct, info);
		break;
	case CLGET_RDMA_PROC_REPLY: {
		struct rpcrdma_proc_reply *h = info;
		uint32_t i = ct_hint_index(ct, h->proc);

		h->reply_max = i < ct->nhints ? ct->hints[i].reply_max : 0;
		break;
	}
	case CLSET_RDMA_PROC_DDP:
		ok = ct_set_ddp(ct, info);
		break;
	case CLGET_RDMA_MAX_MSG:
		*(uint32_t *)info = ct->opts.max_msg;
		break;
	case CLGET_RDMA_PROC_DDP: {
		struct rpcrdma_proc_ddp *h = info;
		uint32_t i = ct_hint_index(ct, h->proc);

		h->items = i < ct->nhints ? ct->hints[i].ddp_items : 0;
		h->item_max = i < ct->nhints ? ct->hints[i].ddp_max : 0;
		break;
	}
	default:
		ok = FALSE;
		break;
	}
	pthread_mutex_unlock(&ct->lock);
	return ok;
}

/* --- backward service (RFC 8167): the client as responder --- */

#define CT_BC_POLL_MS	200	/* the service thread's polling round */
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

static struct ct_bc *to_bc(SVCXPRT *xprt)
{
	return (struct ct_bc *)((char *)xprt - offsetof(struct ct_bc, xprt));
}

/*
 * Answers the backward call in rx at once, from the poller (ct->lock
 * held, ct->ep live), with an accepted reply of status why and a null
 * verifier: PROG_UNAVAIL when no service is registered, SYSTEM_ERR when
 * the call cannot be queued. The server's callback then fails at once
 * instead of waiting out its timeout with a backward credit taken (RFC
 * 8167 section 5 leaves backward support to the upper layer; answering is
 * what an RPC service without the program does). The receive and Send
 * were provisioned for backward calls whether or not a service is
 * registered (RFC 8167 section 3.3). A call whose RPC header does not
 * parse, or whose XID is not its rdma_xid (section 4.1), is dropped, as
 * ct_bc_serve drops it.
 */
static void ct_bc_answer_now(struct ct *ct, const struct rpcrdma_rx *rx,
			     size_t hlen, enum accept_stat why)
{
	char area[2 * MAX_AUTH_BYTES];
	uint32_t buf[RPCRDMA_HDR_MIN / 4 + 6], rdma_xid;
	struct rpcrdma_msg m;
	struct rpc_msg msg;
	struct iovec iov;
	size_t n, hlen_out;
	XDR x;
	bool ok;

	memset(&msg, 0, sizeof(msg));
	msg.rm_call.cb_cred.oa_base = area;
	msg.rm_call.cb_verf.oa_base = &area[MAX_AUTH_BYTES];
	memcpy(&rdma_xid, rx->data, sizeof(rdma_xid));
	xdrmem_create(&x, (char *)rx->data + hlen, rx->len - (u_int)hlen,
		      XDR_DECODE);
	ok = xdr_callmsg(&x, &msg) && msg.rm_xid == ntohl(rdma_xid);
	XDR_DESTROY(&x);
	if (!ok) {
		CT_INC(ct, bc_calls_dropped);
		return;
	}
	CT_INC(ct, bc_calls_recv);
	memset(&msg, 0, sizeof(msg));
	msg.rm_xid = ntohl(rdma_xid);
	msg.rm_direction = REPLY;
	msg.rm_reply.rp_stat = MSG_ACCEPTED;
	msg.acpted_rply.ar_verf = _null_auth;
	msg.acpted_rply.ar_stat = why;
	xdrmem_create(&x, (char *)buf + RPCRDMA_HDR_MIN,
		      sizeof(buf) - RPCRDMA_HDR_MIN, XDR_ENCODE);
	ok = xdr_replymsg(&x, &msg);
	n = RPCRDMA_HDR_MIN + XDR_GETPOS(&x);
	XDR_DESTROY(&x);
	rpcrdma_msg_init(&m, msg.rm_xid, RPCRDMA_BC_CREDITS, RPCRDMA_MSG);
	if (ok)
		ok = !rpcrdma_hdr_encode(&m, buf, RPCRDMA_HDR_MIN, &hlen_out);
	iov.iov_base = buf;
	iov.iov_len = n;
	/* The Send waits for send-queue room by itself, reaping its own
	 * completions (rarely, and within EP_SEND_WAIT_MS): nothing here
	 * needs another thread, so ct->lock may stay held. */
	if (ok && rpcrdma_ep_send(ct->ep, &iov, 1, 0) == 0) {
		CT_INC(ct, bc_replies_sent);
		CT_INC(ct, sent_msg);
		RPCRDMA_STAT_SET(ct->ep, bc_credits_granted,
				 RPCRDMA_BC_CREDITS);
	}
}

/*
 * A backward call came in (ct->lock held). With no service registered it
 * is answered PROG_UNAVAIL at once (ct_bc_answer_now). Beyond the
 * backward credits we grant it is dropped: the server broke the grant
 * (RFC 8167 section 3.1), its receive was not provisioned for it, and
 * section 3.3 lets the responder drop such a call (counted
 * bc_calls_dropped; the server's call times out, and when every backward
 * credit is held so it closes the connection). A call that cannot be
 * queued (memory) is answered SYSTEM_ERR.
 */
static void ct_bc_take(struct ct *ct, const struct rpcrdma_rx *rx,
		       size_t hlen)
{
	struct ct_bc *bc = ct->bc;
	uint32_t len = rx->len - (uint32_t)hlen;
	struct ct_bcall *k;

	if (!bc) {
		ct_bc_answer_now(ct, rx, hlen, PROG_UNAVAIL);
		return;
	}
	if (bc->queued >= RPCRDMA_BC_CREDITS) {
		CT_INC(ct, bc_calls_dropped);
		return;
	}
	if (!(k = malloc(sizeof(*k) + len))) {
		ct_bc_answer_now(ct, rx, hlen, SYSTEM_ERR);
		return;
	}
	k->next = NULL;
	k->gen = ct->gen;
	k->released = false;
	memcpy(&k->rdma_xid, rx->data, sizeof(k->rdma_xid));
	k->rdma_xid = ntohl(k->rdma_xid);
	k->len = len;
	memcpy(k->data, rx->data + hlen, len);
	if (bc->tail)
		bc->tail->next = k;
	else
		bc->head = k;
	bc->tail = k;
	bc->queued++;
	CT_INC(ct, bc_calls_recv);
	RPCRDMA_STAT_SET(ct->ep, bc_inflight, bc->queued);
	RPCRDMA_STAT_MAX(ct->ep, bc_inflight_peak, bc->queued);
	pthread_cond_broadcast(&ct->cv);
}

/*
 * A new connection: the backward calls still queued came on the old one,
 * where alone their replies could go (RFC 8167 section 4.1 ties a reply
 * to its connection); they leave, so that the new connection's server
 * has every backward credit we grant it (ct->lock held).
 */
static void ct_bc_purge(struct ct *ct)
{
	struct ct_bc *bc = ct->bc;
	struct ct_bcall *k;

	if (!bc)
		return;
	while ((k = bc->head)) {
		bc->head = k->next;
		bc->queued--;
		free(k);
	}
	bc->tail = NULL;
}

static bool_t ct_bc_getargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	struct ct_bc *bc = to_bc(xprt);
	SVCAUTH *auth = &SVC_XP_AUTH(xprt);

	if (!bc->cur)
		return FALSE;
	if (auth->svc_ah_ops)
		return SVCAUTH_UNWRAP(auth, &bc->args, xargs, argsp);
	return (*xargs)(&bc->args, argsp);
}

static bool_t ct_bc_freeargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	XDR x;

	(void)xprt;
	memset(&x, 0, sizeof(x));
	x.x_op = XDR_FREE;
	return (*xargs)(&x, argsp);
}

/*
 * RFC 8167 section 4.2: the backward reply is an RDMA_MSG with every
 * chunk list empty and the whole reply inline; its rdma_credit is our
 * backward grant (section 3.1). A reply larger than the server's inline
 * threshold (or whose results do not encode) cannot go: SYSTEM_ERR goes
 * in its place, so that the server's call fails now rather than at its
 * timeout with a backward credit held, and the dispatch function gets
 * FALSE. A reply for a connection gone since the call came is not sent
 * (FALSE).
 */
static bool_t ct_bc_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct ct_bc *bc = to_bc(xprt);
	struct ct *ct = bc->ct;
	struct rpcrdma_ep *ep = NULL;
	struct rpcrdma_msg m;
	struct rpc_msg e;
	uint32_t send_max;
	struct iovec iov;
	uint8_t *buf;
	size_t hlen;
	bool ok, sent = false;
	XDR x;

	if (!bc->cur || bc->replied)
		return FALSE;
	bc->replied = true;
	pthread_mutex_lock(&ct->lock);
	if (ct->ep && !ct->broken && ct->gen == bc->cur->gen) {
		ep = ct->ep;
		ct->ep_users++;	/* no reconnect while we send on it */
		/* Its backward credit goes back before the reply leaves:
		 * the server may use it as soon as the reply is in. */
		bc->queued--;
		bc->cur->released = true;
		RPCRDMA_STAT_SET(ct->ep, bc_inflight, bc->queued);
		/* Counted before the Send, taken back if it fails: the peer
		 * may have the reply, and read our counters, before
		 * rpcrdma_ep_send returns. */
		CT_INC(ct, bc_replies_sent);
		CT_INC(ct, sent_msg);
	}
	pthread_mutex_unlock(&ct->lock);
	if (!ep)
		return FALSE;
	send_max = rpcrdma_ep_inline(ep)->send_max;
	buf = malloc(send_max);
	ok = buf != NULL;
	if (ok) {
		xdrmem_create(&x, (char *)buf + RPCRDMA_HDR_MIN,
			      send_max - RPCRDMA_HDR_MIN, XDR_ENCODE);
		msg->rm_xid = bc->xid;
		ok = xprt_reply_encode(xprt, &x, msg);
		sent = ok;
		if (!ok) {
			RPCRDMA_STAT_ADD(ep, bc_replies_too_big, 1);
			XDR_DESTROY(&x);
			xdrmem_create(&x, (char *)buf + RPCRDMA_HDR_MIN,
				      send_max - RPCRDMA_HDR_MIN, XDR_ENCODE);
			memset(&e, 0, sizeof(e));
			e.rm_xid = bc->xid;
			e.rm_direction = REPLY;
			e.rm_reply.rp_stat = MSG_ACCEPTED;
			e.acpted_rply.ar_verf = xprt->xp_verf;
			e.acpted_rply.ar_stat = SYSTEM_ERR;
			sent = xprt_reply_encode(xprt, &x, &e);
		}
		if (sent) {
			rpcrdma_msg_init(&m, bc->xid, RPCRDMA_BC_CREDITS,
					 RPCRDMA_MSG);
			sent = !rpcrdma_hdr_encode(&m, buf, RPCRDMA_HDR_MIN,
						   &hlen);
		}
		if (sent) {
			iov.iov_base = buf;
			iov.iov_len = RPCRDMA_HDR_MIN + XDR_GETPOS(&x);
			sent = rpcrdma_ep_send(ep, &iov, 1, 0) == 0;
		}
		XDR_DESTROY(&x);
	}
	ok = ok && sent;
	free(buf);
	pthread_mutex_lock(&ct->lock);
	if (sent) {
		RPCRDMA_STAT_SET(ep, bc_credits_granted, RPCRDMA_BC_CREDITS);
	} else {
		RPCRDMA_STAT_ADD(ep, bc_replies_sent, (uint64_t)-1);
		RPCRDMA_STAT_ADD(ep, sent_msg, (uint64_t)-1);
	}
	ct->ep_users--;
	pthread_cond_broadcast(&ct->cv);
	pthread_mutex_unlock(&ct->lock);
	return ok;
}

static void ct_bc_xp_destroy(SVCXPRT *xprt)
{
	(void)xprt;	/* the CLIENT's: clnt_destroy frees it */
}

static const struct xp_ops ct_bc_ops = {
	.xp_recv = svc_no_reply,
	.xp_stat = svc_stat_idle,
	.xp_getargs = ct_bc_getargs,
	.xp_reply = ct_bc_reply,
	.xp_freeargs = ct_bc_freeargs,
	.xp_destroy = ct_bc_xp_destroy,
};

/*
 * Runs one backward call the way libtirpc's svc_getreq_common does:
 * authentication, then the registered dispatch function, or PROG_UNAVAIL
 * / PROG_MISMATCH. A call whose RPC header does not parse, or whose XID
 * is not its rdma_xid (RFC 8167 section 4.1), is dropped.
 */
static void ct_bc_serve(struct ct_bc *bc, struct ct_bcall *k)
{
	void (*disp)(struct svc_req *, SVCXPRT *) = NULL;
	struct ct *ct = bc->ct;
	rpcvers_t lo = ~(rpcvers_t)0, hi = 0;
	bool prog_found = false;
	enum auth_stat why;
	struct rpc_msg msg;
	struct svc_req r;

	memset(&msg, 0, sizeof(msg));
	memset(&r, 0, sizeof(r));
	msg.rm_call.cb_cred.oa_base = bc->cred_area;
	msg.rm_call.cb_verf.oa_base = &bc->cred_area[MAX_AUTH_BYTES];
	r.rq_clntcred = &bc->cred_area[2 * MAX_AUTH_BYTES];
	xdrmem_create(&bc->args, (char *)k->data, k->len, XDR_DECODE);
	if (!xdr_callmsg(&bc->args, &msg) || msg.rm_xid != k->rdma_xid) {
		pthread_mutex_lock(&ct->lock);
		if (ct->ep)
			CT_INC(ct, bc_calls_dropped);
		pthread_mutex_unlock(&ct->lock);
		goto out;
	}
	bc->cur = k;
	bc->xid = msg.rm_xid;
	bc->replied = false;
	r.rq_xprt = &bc->xprt;
	r.rq_prog = msg.rm_call.cb_prog;
	r.rq_vers = msg.rm_call.cb_vers;
	r.rq_proc = msg.rm_call.cb_proc;
	r.rq_cred = msg.rm_call.cb_cred;
	why = _authenticate(&r, &msg);
	if (why != AUTH_OK) {
		svcerr_auth(&bc->xprt, why);
		goto out;
	}
	pthread_mutex_lock(&ct->lock);
	for (uint32_t i = 0; i < bc->nsvcs; i++) {
		if (bc->svcs[i].prog != r.rq_prog)
			continue;
		prog_found = true;
		if (bc->svcs[i].vers == r.rq_vers)
			disp = bc->svcs[i].dispatch;
		if (bc->svcs[i].vers < lo)
			lo = bc->svcs[i].vers;
		if (bc->svcs[i].vers > hi)
			hi = bc->svcs[i].vers;
	}
	pthread_mutex_unlock(&ct->lock);
	if (disp)
		disp(&r, &bc->xprt);
	else if (prog_found)
		svcerr_progvers(&bc->xprt, lo, hi);
	else
		svcerr_noprog(&bc->xprt);
out:
	XDR_DESTROY(&bc->args);
	bc->cur = NULL;
}

static bool pred_bc_work(struct ct *ct, void *arg)
{
	struct ct_bc *bc = arg;

	(void)ct;
	return bc->head || bc->stop;
}

/*
 * The service thread: runs the backward calls queued, one at a time, and
 * between them holds the poller role when nobody else does, so that
 * backward calls arrive while no forward call waits. It gives the role
 * up before each dispatch: a forward call made by the dispatch function
 * polls for itself.
 */
static void *ct_bc_thread(void *arg)
{
	struct ct_bc *bc = arg;
	struct ct *ct = bc->ct;
	struct timespec dl;

	pthread_mutex_lock(&ct->lock);
	while (!bc->stop) {
		struct ct_bcall *k = bc->head;

		if (k) {
			bc->head = k->next;
			if (!bc->head)
				bc->tail = NULL;
			pthread_mutex_unlock(&ct->lock);
			ct_bc_serve(bc, k);
			pthread_mutex_lock(&ct->lock);
			if (!k->released) {
				bc->queued--;
				if (ct->ep)
					RPCRDMA_STAT_SET(ct->ep, bc_inflight,
							 bc->queued);
			}
			free(k);
			continue;
		}
		xprt_deadline_after(&dl, &(struct timeval){
						 0, CT_BC_POLL_MS * 1000 });
		if (ct->ep && !ct->broken && !ct->polling &&
		    !ct->connecting && rpcrdma_ep_connected(ct->ep)) {
			(void)ct_poll(ct, pred_bc_work, bc, &dl);
			continue;
		}
		(void)pthread_cond_timedwait(&ct->cv, &ct->lock, &dl);
	}
	pthread_mutex_unlock(&ct->lock);
	return NULL;
}

/* Stops the service thread and frees the service (not from it). */
static void ct_bc_free(struct ct *ct)
{
	struct ct_bc *bc = ct->bc;

	if (!bc)
		return;
	pthread_mutex_lock(&ct->lock);
	bc->stop = true;
	if (ct->ep)
		rpcrdma_ep_wake(ct->ep);
	pthread_cond_broadcast(&ct->cv);
	pthread_mutex_unlock(&ct->lock);
	pthread_join(bc->th, NULL);
	while (bc->head) {
		struct ct_bcall *k = bc->head;

		bc->head = k->next;
		free(k);
	}
	free(bc->svcs);
	free(bc->xprt.xp_netid);
	free(bc);
	ct->bc = NULL;
}

bool rpcrdma_clnt_svc_reg(CLIENT *cl, rpcprog_t prog, rpcvers_t vers,
			  void (*dispatch)(struct svc_req *, SVCXPRT *))
{
	struct ct_bsvc *n;
	struct ct_bc *bc;
	struct ct *ct;
	bool ok = false;
	uint32_t i;

	if (!cl || cl->cl_ops != &clnt_rdma_ops || !dispatch)
		return false;
	ct = to_ct(cl);
	pthread_mutex_lock(&ct->lock);
	bc = ct->bc;
	if (!bc) {
		bc = calloc(1, sizeof(*bc));
		if (!bc)
			goto out;
		bc->ct = ct;
		bc->xprt.xp_fd = -1;
		bc->xprt.xp_ops = &ct_bc_ops;
		bc->xprt.xp_p3 = &bc->ext;
		bc->xprt.xp_netid = strdup(ct->clnt.cl_netid);
		bc->xprt.xp_rtaddr.buf = &ct->addr;
		bc->xprt.xp_rtaddr.len = ct->addrlen;
		bc->xprt.xp_rtaddr.maxlen = sizeof(ct->addr);
		if (!bc->xprt.xp_netid ||
		    pthread_create(&bc->th, NULL, ct_bc_thread, bc)) {
			free(bc->xprt.xp_netid);
			free(bc);
			goto out;
		}
		ct->bc = bc;
	}
	for (i = 0; i < bc->nsvcs; i++)
		if (bc->svcs[i].prog == prog && bc->svcs[i].vers == vers)
			break;
	if (i == bc->nsvcs) {
		n = realloc(bc->svcs, (bc->nsvcs + 1) * sizeof(*n));
		if (!n)
			goto out;
		bc->svcs = n;
		bc->nsvcs++;
	}
	bc->svcs[i].prog = prog;
	bc->svcs[i].vers = vers;
	bc->svcs[i].dispatch = dispatch;
	ok = true;
out:
	pthread_mutex_unlock(&ct->lock);
	return ok;
}

static void ct_free(struct ct *ct)
{
	ct_bc_free(ct);
	rpcrdma_ep_destroy(ct_detach(ct));
	for (uint32_t i = 0; i < ct->nslots; i++) {
		if (ct->slots[i].xdr_ok)
			rpcrdma_xdrgrow_destroy(&ct->slots[i].xdr);
		free(ct->slots[i].reply_buf);
	}
	free(ct->slots);
	free(ct->hints);
	free(ct->src_str);
	free(ct->clnt.cl_netid);
	free(ct->clnt.cl_tp);
	pthread_cond_destroy(&ct->cv);
	pthread_mutex_destroy(&ct->gss_lock);
	pthread_mutex_destroy(&ct->auth_lock);
	pthread_mutex_destroy(&ct->lock);
	free(ct);
}

static void clnt_rdma_destroy(CLIENT *cl)
{
	struct ct *ct = to_ct(cl);

	/* cl_auth belongs to the caller (authnone's is a shared one). */
	ct_free(ct);
}

static const struct clnt_ops clnt_rdma_ops = {
	.cl_call = clnt_rdma_call,
	.cl_abort = clnt_rdma_abort,
	.cl_geterr = clnt_rdma_geterr,
	.cl_freeres = clnt_rdma_freeres,
	.cl_destroy = clnt_rdma_destroy,
	.cl_control = clnt_rdma_control,
};

int rpcrdma_clnt_stats(CLIENT *cl, struct rpcrdma_stats *out)
{
	if (!cl || !out || cl->cl_ops != &clnt_rdma_ops)
		return -EINVAL;
	return clnt_rdma_control(cl, CLGET_RDMA_STATS, out) ? 0 : -EINVAL;
}

/* --- creation --- */

/* explicit port > RPCRDMA_PORT > the server's rpcbind. */
static int ct_port(const char *host, rpcprog_t prog, rpcvers_t vers,
		   const struct rpcrdma_opts *o, int family, uint16_t *port)
{
	const char *env = rpcrdma_getenv("RPCRDMA_PORT");
	unsigned long v;
	char *end;

	if (o->port) {
		*port = o->port;
		return 0;
	}
	if (env && *env) {
		errno = 0;
		v = strtoul(env, &end, 10);
		if (!errno && !*end && v > 0 && v <= 65535) {
			*port = (uint16_t)v;
			return 0;
		}
	}
	return rpcrdma_rpcb_lookup(host, prog, vers,
				   family == AF_INET6 ? "rdma6" : "rdma", port);
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

static int ct_resolve_src(struct ct *ct, int family)
{
	struct addrinfo hints, *res;
	int rc;

	if (!ct->opts.src_addr)
		return 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(ct->opts.src_addr, NULL, &hints, &res);
	if (rc)
		return -EADDRNOTAVAIL;
	memcpy(&ct->src, res->ai_addr, res->ai_addrlen);
	ct->has_src = true;
	freeaddrinfo(res);
	return 0;
}

/* Tries each address of host in turn; 0 or the clnt_stat in *st. */
static int ct_first_connect(struct ct *ct, const char *host, rpcprog_t prog,
			    rpcvers_t vers, enum clnt_stat *st)
{
	struct addrinfo hints, *res, *ai;
	uint16_t port;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &res)) {
		*st = RPC_UNKNOWNHOST;
		return -EHOSTUNREACH;
	}
	rc = -EAFNOSUPPORT;
	*st = RPC_UNKNOWNHOST;
	for (ai = res; ai; ai = ai->ai_next) {
		if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
		    ai->ai_addrlen > sizeof(ct->addr))
			continue;
		rc = ct_port(host, prog, vers, &ct->opts, ai->ai_family, &port);
		if (rc) {
			*st = rc == -ENOENT ? RPC_PROGNOTREGISTERED
					    : RPC_PMAPFAILURE;
			continue;
		}
		memset(&ct->addr, 0, sizeof(ct->addr));
		memcpy(&ct->addr, ai->ai_addr, ai->ai_addrlen);
		ct->addrlen = ai->ai_addrlen;
		set_port(&ct->addr, port);
		ct->has_src = false;
		rc = ct_resolve_src(ct, ai->ai_family);
		if (!rc)
			rc = ct_connect(ct, ct->eo.timeout_ms);
		if (!rc)
			break;
		*st = RPC_SYSTEMERROR;
	}
	freeaddrinfo(res);
	return rc;
}

static void ct_callhdr(struct ct *ct, rpcprog_t prog, rpcvers_t vers)
{
	struct rpc_msg call;
	XDR x;

	memset(&call, 0, sizeof(call));
	call.rm_xid = 0;
	call.rm_direction = CALL;
	call.rm_call.cb_rpcvers = RPC_MSG_VERSION;
	call.rm_call.cb_prog = prog;
	call.rm_call.cb_vers = vers;
	xdrmem_create(&x, (char *)ct->callhdr, sizeof(ct->callhdr), XDR_ENCODE);
	(void)xdr_callhdr(&x, &call); /* exactly 20 bytes */
	XDR_DESTROY(&x);
}

static int ct_init_locks(struct ct *ct)
{
	pthread_condattr_t ca;
	int rc;

	rc = pthread_mutex_init(&ct->lock, NULL);
	if (rc)
		return -rc;
	rc = pthread_mutex_init(&ct->auth_lock, NULL);
	if (rc)
		goto out_lock;
	rc = pthread_mutex_init(&ct->gss_lock, NULL);
	if (rc)
		goto out_auth;
	rc = pthread_condattr_init(&ca);
	if (rc)
		goto out_gss;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&ct->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (rc)
		goto out_gss;
	return 0;
out_gss:
	pthread_mutex_destroy(&ct->gss_lock);
out_auth:
	pthread_mutex_destroy(&ct->auth_lock);
out_lock:
	pthread_mutex_destroy(&ct->lock);
	return -rc;
}

CLIENT *clnt_rdma_create(const char *host, rpcprog_t prog, rpcvers_t vers,
			 const struct rpcrdma_opts *opts)
{
	enum clnt_stat st = RPC_SYSTEMERROR;
	uint32_t xid0;
	struct ct *ct;
	int rc;

	if (!host) {
		xprt_createerr(RPC_UNKNOWNHOST, EINVAL);
		return NULL;
	}
	ct = calloc(1, sizeof(*ct));
	if (!ct) {
		xprt_createerr(RPC_SYSTEMERROR, ENOMEM);
		return NULL;
	}
	if (opts)
		ct->opts = *opts;
	else
		rpcrdma_opts_from_env(&ct->opts);
	ct->opts.ddp_threshold = rpcrdma_ddp_min(ct->opts.ddp_threshold);
	rc = rpcrdma_opts_to_ep(&ct->opts, &ct->eo);
	/* RFC 8167 section 3.3.1: receives for the backward calls we
	 * grant, whether or not a service is registered yet. */
	ct->eo.bc_credits = RPCRDMA_BC_CREDITS;
	if (rc || ct->opts.max_msg < RPCRDMA_XDR_UNIT) {
		free(ct);
		xprt_createerr(RPC_SYSTEMERROR, EINVAL);
		return NULL;
	}
	rc = ct_init_locks(ct);
	if (rc) {
		free(ct);
		xprt_createerr(RPC_SYSTEMERROR, rc);
		return NULL;
	}
	ct->slots = calloc(ct->opts.credits, sizeof(*ct->slots));
	if (ct->slots)
		ct->nslots = ct->opts.credits;
	if (ct->opts.src_addr)
		ct->src_str = strdup(ct->opts.src_addr);
	ct->clnt.cl_netid = strdup("rdma");
	if (!ct->slots || !ct->clnt.cl_netid ||
	    (ct->opts.src_addr && !ct->src_str)) {
		rc = -ENOMEM;
		goto out_free;
	}
	ct->opts.src_addr = ct->src_str;
	rpcrdma_limits_default(&ct->limits);
	ct->wait.tv_sec = 25; /* libtirpc's customary default */
	/* libtirpc's field is not const; nothing writes through it. */
	ct->clnt.cl_ops = (struct clnt_ops *)(uintptr_t)&clnt_rdma_ops;
	ct->clnt.cl_private = ct;
	ct_callhdr(ct, prog, vers);
	if (getrandom(&xid0, sizeof(xid0), GRND_NONBLOCK) != sizeof(xid0))
		xid0 = (uint32_t)time(NULL) ^ ((uint32_t)getpid() << 16);
	atomic_init(&ct->next_xid, xid0);
	ct->last_xid = xid0;

	rc = ct_first_connect(ct, host, prog, vers, &st);
	if (rc)
		goto out_free;
	if (ct->addr.ss_family == AF_INET6) {
		free(ct->clnt.cl_netid);
		ct->clnt.cl_netid = strdup("rdma6");
		if (!ct->clnt.cl_netid) {
			rc = -ENOMEM;
			st = RPC_SYSTEMERROR;
			goto out_free;
		}
	}
	ct->nb.buf = &ct->addr;
	ct->nb.len = ct->addrlen;
	ct->nb.maxlen = sizeof(ct->addr);
	ct->clnt.cl_auth = authnone_create();
	if (!ct->clnt.cl_auth) {
		rc = -ENOMEM;
		st = RPC_SYSTEMERROR;
		goto out_free;
	}
	return &ct->clnt;
out_free:
	ct_free(ct);
	xprt_createerr(st, rc);
	return NULL;
}
