/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The server side of RPC-over-RDMA as libtirpc SVCXPRTs.
 *
 * A listener is a "rendezvous" transport whose xp_fd is the RDMA-CM event
 * channel; its xp_recv accepts the pending connections and makes one
 * connection transport per endpoint, whose xp_fd is the endpoint's
 * completion channel. Both are xprt_register'ed, so svc_run() and
 * svc_getreq_poll() drive everything (docs/design.md): libtirpc's
 * svc_getreq_common() calls xp_recv, the dispatch routine (which calls
 * xp_getargs, xp_reply, xp_freeargs), then xp_stat, looping while it says
 * XPRT_MOREREQS and destroying the transport when it says XPRT_DIED.
 *
 * Completion-driven: nothing whose timing the peer controls blocks the
 * thread that runs svc_run. A connection has up to twice its credits of
 * calls in progress (struct svc_call): a call with read chunks has its
 * RDMA Reads posted and waits for them while the connection serves
 * others; calls whose data is in wait for dispatch, which libtirpc does
 * one at a time per transport; a reply's RDMA Writes and its Send are
 * posted together and never waited on; a full send queue makes work wait
 * in the engine (xfer.c), not the thread. Each xp_recv handles a bounded
 * number of messages; xp_stat then lets other connections in and makes
 * this one's fd readable again (rpcrdma_ep_kick).
 *
 * Flow control (RFC 8166 section 3.3.1): the grant is min(requested, our
 * maximum), bounded by the receives the engine provisioned; it does not
 * move with the calls queued. A client found with more calls outstanding
 * than it was ever granted is disconnected (and with rnr_retry_count 0 a
 * flood past the provisioned receives breaks its own connection). A reply
 * or RDMA_ERROR that cannot be sent closes the connection: the requester
 * would otherwise wait for it forever.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <sys/random.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <rpc/rpc.h>
#include <rpc/svc_mt.h>
#include <rpcrdma/hdr.h>
#include <rpcrdma/credits.h>
#include <rpcrdma/plan.h>
#include <rpcrdma/splice.h>
#include "svc.h"
#include "xprt.h"

#define SVC_REPLY_INITIAL	4096u
#define SVC_BURST		16u	/* messages per xp_recv */
#define SVC_ROUNDS		4u	/* xp_recv rounds before others' turn */
#define SVC_KEEP_BYTES		(256u << 10) /* per call, kept while idle */
#define SVC_CALLS_EXTRA		16u	/* contexts beyond 2 x credits */

struct svc_lsn {
	SVCXPRT xprt;
	SVCXPRT_EXT ext;
	struct svc_member mem;
	struct rpcrdma_listener *l;
	struct rpcrdma_opts opts;
	struct sockaddr_storage laddr;
};

struct svc_conn;

/* One call in progress on a connection, from its receive to the
 * completion of its reply's Send. */
enum call_state {
	CALL_FREE,
	CALL_READING,		/* its RDMA Reads are in flight */
	CALL_READY,		/* waiting for dispatch */
	CALL_SERVING,		/* in the dispatch function */
	CALL_SENDING,		/* its reply (or RDMA_ERROR) is posted */
};

struct svc_call {
	struct svc_conn *c;
	enum call_state state;
	struct svc_call *next;		/* free list or ready queue */
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
	int err;
	uint32_t len;			/* reply bytes in buf */
	uint8_t *buf;			/* inline_recv bytes */
};
struct conn_bc {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	uint32_t refs;
	struct svc_conn *c;		/* NULL once the connection is gone */
	struct rpcrdma_ep *ep;		/* likewise */
	uint32_t senders;		/* threads sending on ep, unlocked */
	bool dead;
	bool close_wanted;		/* atomic: bc_abandoned asks the thread
					 * serving c to close it */
	bool in_dispatch;		/* disp_thread runs a dispatch of c */
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
	uint32_t grant_max;		/* largest grant sent so far */
	uint32_t rounds;		/* xp_recv rounds in a row */

	struct svc_call *calls;		/* ncalls contexts */
	uint32_t ncalls, inuse;
	uint32_t nbig;			/* contexts with big set */
	uint32_t active;		/* reading, ready or serving */
	struct svc_call *free;
	struct svc_call *ready, *ready_tail;
	struct svc_call *serving;	/* handed to libtirpc */
	XDR args;			/* memory stream over its call */
	struct conn_bc *bc;		/* backward calls */
	struct rpcrdma_msg bchdr;	/* decode area for backward replies */
};

static const struct xp_ops lsn_ops;
static const struct xp_ops conn_ops;
static const struct xp_ops2 svc_rdma_ops2;

static struct svc_conn *to_conn(SVCXPRT *xprt)
{
	return (struct svc_conn *)((char *)xprt -
				   offsetof(struct svc_conn, xprt));
}

static struct svc_lsn *to_lsn(SVCXPRT *xprt)
{
	return (struct svc_lsn *)((char *)xprt -
				  offsetof(struct svc_lsn, xprt));
}

/* Counts on this connection and in the process totals (engine.h). */
#define STAT_INC(c, f)	RPCRDMA_STAT_ADD((c)->ep, f, 1)

static socklen_t sa_len(const struct sockaddr *sa)
{
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (sa->sa_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return 0;
}

static uint16_t sa_port(const struct sockaddr *sa)
{
	if (sa && sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa && sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

/* Fills the address fields libtirpc and its callers read. */
static void xprt_set_addrs(SVCXPRT *x, struct sockaddr_storage *lss,
			   const struct sockaddr *local,
			   struct sockaddr_storage *rss,
			   const struct sockaddr *remote)
{
	socklen_t ll = sa_len(local), rl = sa_len(remote);

	if (ll) {
		memcpy(lss, local, ll);
		x->xp_ltaddr.buf = (char *)lss;
		x->xp_ltaddr.len = ll;
		x->xp_ltaddr.maxlen = sizeof(*lss);
		x->xp_port = sa_port(local);
	}
	if (rl && rss) {
		memcpy(rss, remote, rl);
		x->xp_rtaddr.buf = (char *)rss;
		x->xp_rtaddr.len = rl;
		x->xp_rtaddr.maxlen = sizeof(*rss);
		/* svc_getcaller() reads xp_raddr (a sockaddr_in6). */
		memcpy(&x->xp_raddr, remote, rl);
		x->xp_addrlen = (int)rl;
	}
}

static const char *netid_of(const struct sockaddr *sa)
{
	return sa && sa->sa_family == AF_INET6 ? "rdma6" : "rdma";
}

/* ---- connection transport ---- */

static void call_free_buffers(struct svc_call *k)
{
	if (k->reply_ok)
		rpcrdma_xdrgrow_destroy(&k->reply);
	k->reply_ok = false;
	free(k->rdbuf);
	free(k->callbuf);
	k->rdbuf = k->callbuf = NULL;
	k->rdcap = k->callcap = 0;
}

/* Empties k's transfer for its next use (Reads, or a reply). */
static void call_xfer_reset(struct svc_call *k)
{
	memset(&k->xfer, 0, sizeof(k->xfer));
	k->xfer.owner = k;
}

/* A context for a new message, or NULL when all are in use. */
static struct svc_call *call_get(struct svc_conn *c)
{
	struct svc_call *k = c->free;

	if (!k)
		return NULL;
	c->free = k->next;
	k->next = NULL;
	k->has_rx = false;
	k->msg = NULL;
	k->msg_len = 0;
	k->garbage = false;
	call_xfer_reset(k);
	c->inuse++;
	return k;
}

/* Gives the received buffer back (the call's bytes are no longer needed). */
static void call_drop_rx(struct svc_call *k)
{
	if (k->has_rx) {
		rpcrdma_ep_rx_done(k->c->ep, &k->rx);
		k->has_rx = false;
	}
}

static void call_put(struct svc_call *k)
{
	struct svc_conn *c = k->c;

	call_drop_rx(k);
	if (k->state != CALL_SENDING && c->active)
		c->active--;
	k->state = CALL_FREE;
	k->next = c->free;
	c->free = k;
	if (!k->big && (k->rdcap > SVC_KEEP_BYTES ||
			k->callcap > SVC_KEEP_BYTES ||
			(k->reply_ok &&
			 rpcrdma_xdrgrow_cap(&k->reply) > SVC_KEEP_BYTES))) {
		k->big = true;
		c->nbig++;
	}
	/* An idle connection gives its large buffers back (a walk only
	 * when some call holds one: this runs after every call). */
	if (--c->inuse == 0 && c->nbig) {
		for (uint32_t i = 0; i < c->ncalls; i++) {
			struct svc_call *f = &c->calls[i];

			if (f->big) {
				call_free_buffers(f);
				f->big = false;
			}
		}
		c->nbig = 0;
	}
}

/* Our fatal error on this connection: close it (RFC 8166 section 4.5:
 * the requester must not wait for a reply that will never come). */
static void conn_fail(struct svc_conn *c, int err)
{
	if (c->dead)
		return;
	c->dead = true;
	/* A pool worker poisoned by its dispatch (svc.h) cannot disconnect;
	 * the next clean one does (conn_close_pending). */
	if (svc_pool_thread_dirty()) {
		c->close_err = err < 0 ? err : -ENOTCONN;
		return;
	}
	rpcrdma_ep_close(c->ep, err);
}

static void conn_close_pending(struct svc_conn *c)
{
	int err = c->close_err;

	/* Every backward credit is held by abandoned callbacks
	 * (bc_abandoned): a load, no lock, per round. */
	if (!c->dead &&
	    __atomic_load_n(&c->bc->close_wanted, __ATOMIC_ACQUIRE)) {
		conn_fail(c, -ETIMEDOUT);
		return;
	}
	if (err) {
		c->close_err = 0;
		rpcrdma_ep_close(c->ep, err);
	}
}

/* A reply or RDMA_ERROR that could not go out ends the connection. */
static void conn_send_failed(struct svc_conn *c, int err)
{
	if (err != -ENOTCONN && !c->dead)
		STAT_INC(c, send_failures);
	conn_fail(c, err);
}

/* RFC 8166 section 3.3.1: min(requested, our maximum), never beyond the
 * provisioned receives, whatever is in flight. */
static uint32_t conn_grant(struct svc_conn *c, uint32_t requested)
{
	uint32_t g = rpcrdma_rsp_credits_grant(requested, c->max_credits,
					       rpcrdma_ep_credits(c->ep));

	if (g > c->grant_max)
		c->grant_max = g;
	RPCRDMA_STAT_SET(c->ep, credits_granted, g);
	RPCRDMA_STAT_MIN(c->ep, credits_grant_min, g);
	RPCRDMA_STAT_MAX(c->ep, credits_grant_max, g);
	return g;
}

/*
 * Encodes m into k->hbuf and starts k's transfer: the Writes already set
 * up in k->xfer (write chunks, reply chunk), then one Send of the header
 * and the inline runs body[0..nbody). The call is then only waiting for
 * its Send to complete (CALL_SENDING). Never waits; 0 or -errno (the
 * connection is then closed).
 */
static int call_send(struct svc_call *k, const struct rpcrdma_msg *m,
		     const struct iovec *body, uint32_t nbody)
{
	struct svc_conn *c = k->c;
	size_t used;
	uint32_t i;
	int rc;

	rc = rpcrdma_hdr_encode(m, k->hbuf, sizeof(k->hbuf), &used);
	if (rc || nbody >= RPCRDMA_XFER_MAX_SEND) {
		/* Cannot happen with hbuf's size and the planner's extents:
		 * never leave k behind. */
		rc = rc ? rc : -EINVAL;
		conn_fail(c, rc);
		call_put(k);
		return rc;
	}
	k->xfer.send[0].iov_base = k->hbuf;
	k->xfer.send[0].iov_len = used;
	k->xfer.send_cnt = 1;
	for (i = 0; i < nbody; i++)
		if (body[i].iov_len)
			k->xfer.send[k->xfer.send_cnt++] = body[i];
	call_drop_rx(k);
	if (k->state != CALL_SENDING && c->active)
		c->active--;
	k->state = CALL_SENDING;
	/* From a poisoned pool worker the Send waits for a clean thread's
	 * reap (conn_stat kicks the connection to get one). */
	k->xfer.defer = svc_pool_thread_dirty();
	rc = rpcrdma_ep_xfer_start(c->ep, &k->xfer);
	if (rc) {
		conn_send_failed(c, rc);
		call_put(k);
	}
	return rc;
}

/*
 * RDMA_ERROR (RFC 8166 section 4.2.4 / 5) in answer to k's message: ERR_VERS
 * carries the range of versions we support (1..1), ERR_CHUNK nothing more.
 */
static void call_send_error(struct svc_call *k, enum rpcrdma_errcode err)
{
	struct svc_conn *c = k->c;
	struct rpcrdma_msg m;

	rpcrdma_msg_init_error(&m, k->hdr.xid, conn_grant(c, k->hdr.credits),
			       err);
	/* RFC 8166 section 4.5: the failing message's XID and version. */
	m.vers = k->hdr.vers;
	m.vers_low = RPCRDMA_VERSION;
	m.vers_high = RPCRDMA_VERSION;
	call_xfer_reset(k);
	if (call_send(k, &m, NULL, 0))
		return;
	STAT_INC(c, sent_error);
	if (err == RPCRDMA_ERR_VERS)
		STAT_INC(c, err_vers_sent);
	else
		STAT_INC(c, err_chunk_sent);
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *nb;

	if (need <= *cap)
		return 0;
	nb = realloc(*buf, need);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = need;
	return 0;
}

/*
 * Where k's read chunks go once read into rd: the inline part (for
 * RDMA_NOMSG the position-zero chunk) and the pieces spliced in at their
 * XDR positions (one chunk = consecutive read segments sharing a
 * position). 0, or -EMSGSIZE.
 */
static int call_layout(const struct svc_call *k, const uint8_t *rd,
		       struct rpcrdma_piece *pieces, uint32_t *npieces,
		       const uint8_t **inl, size_t *inl_len)
{
	const struct rpcrdma_msg *h = &k->hdr;
	bool nomsg = h->proc == RPCRDMA_NOMSG;
	uint64_t off = 0;
	uint32_t i, j;

	*inl = k->rx.data + k->hlen;
	*inl_len = k->rx.len - k->hlen;
	*npieces = 0;
	for (i = 0; i < h->nreads; i = j) {
		uint32_t pos = h->reads[i].position;
		uint64_t clen = 0;

		for (j = i; j < h->nreads && h->reads[j].position == pos; j++)
			clen += h->reads[j].seg.length;
		if (pos == 0 && nomsg && i == 0) {
			*inl = rd + off;
			*inl_len = (size_t)clen;
		} else {
			if (clen > UINT32_MAX)
				return -EMSGSIZE;
			pieces[*npieces].position = pos;
			pieces[*npieces].data = rd + off;
			pieces[*npieces].length = (uint32_t)clen;
			(*npieces)++;
		}
		off += clen;
	}
	return 0;
}

/*
 * Posts the RDMA Reads of every read chunk of k (RFC 8166 section 3.5.3)
 * into k->rdbuf, in the order of the read list; the call waits for them
 * in CALL_READING while the connection serves others. Checked before any
 * Read, so a bad call costs no transfer: -EMSGSIZE when the chunks are
 * larger than max_msg or carry no call (the caller answers ERR_CHUNK),
 * -EBADMSG when an RDMA_MSG's chunks cannot be spliced into its inline
 * part (positions past it: the caller answers GARBAGE_ARGS). Or another
 * -errno.
 */
static int call_start_reads(struct svc_call *k)
{
	const struct rpcrdma_msg *h = &k->hdr;
	struct rpcrdma_piece pieces[RPCRDMA_MAX_READ_SEGS];
	const uint8_t *inl;
	uint64_t total = 0;
	size_t inl_len, need;
	uint32_t i, np;
	int rc;

	/* RDMA_NOMSG without a position-zero chunk carries no call; a
	 * client that answers no RDMA Read cannot send chunks. */
	if ((h->proc == RPCRDMA_NOMSG &&
	     (h->nreads == 0 || h->reads[0].position != 0)) ||
	    !rpcrdma_ep_can_read(k->c->ep))
		return -EMSGSIZE;
	for (i = 0; i < h->nreads; i++) {
		k->rdsegs[i] = h->reads[i].seg;
		total += h->reads[i].seg.length;
	}
	if (total > k->c->max_msg || total == 0)
		return -EMSGSIZE;
	rc = grow(&k->rdbuf, &k->rdcap, (size_t)total);
	if (rc)
		return rc;
	rc = call_layout(k, k->rdbuf, pieces, &np, &inl, &inl_len);
	if (rc)
		return rc;
	need = np ? rpcrdma_splice_len(inl_len, pieces, np) : inl_len;
	if (np && need == 0)
		return h->proc == RPCRDMA_MSG ? -EBADMSG : -EMSGSIZE;
	if (need > k->c->max_msg)
		return -EMSGSIZE;
	k->xfer.read = true;
	k->xfer.local = k->rdbuf;
	k->xfer.len = total;
	k->xfer.segs = k->rdsegs;
	k->xfer.nsegs = h->nreads;
	k->state = CALL_READING;
	rc = rpcrdma_ep_xfer_start(k->c->ep, &k->xfer);
	if (rc == 0)
		STAT_INC(k->c, read_chunks);
	return rc;
}

/*
 * The reads of k are in: rebuild the RPC message (call_layout, checked
 * by call_start_reads). 0, or -EMSGSIZE (the caller answers ERR_CHUNK).
 */
static int call_finish_reads(struct svc_call *k)
{
	struct rpcrdma_piece pieces[RPCRDMA_MAX_READ_SEGS];
	const uint8_t *inl;
	size_t inl_len, need;
	uint32_t npieces;

	if (call_layout(k, k->rdbuf, pieces, &npieces, &inl, &inl_len))
		return -EMSGSIZE;
	if (npieces == 0) {
		if (inl_len > k->c->max_msg)
			return -EMSGSIZE;
		k->msg = inl;
		k->msg_len = inl_len;
		return 0;
	}
	need = rpcrdma_splice_len(inl_len, pieces, npieces);
	if (need == 0 || need > k->c->max_msg ||
	    grow(&k->callbuf, &k->callcap, need))
		return -EMSGSIZE;
	if (rpcrdma_splice(inl, inl_len, pieces, npieces, k->callbuf, need,
			   &k->msg_len))
		return -EMSGSIZE;
	k->msg = k->callbuf;
	return 0;
}

static void ready_push(struct svc_conn *c, struct svc_call *k)
{
	k->state = CALL_READY;
	k->next = NULL;
	if (c->ready_tail)
		c->ready_tail->next = k;
	else
		c->ready = k;
	c->ready_tail = k;
}

static struct svc_call *ready_pop(struct svc_conn *c)
{
	struct svc_call *k = c->ready;

	if (k) {
		c->ready = k->next;
		if (!c->ready)
			c->ready_tail = NULL;
		k->next = NULL;
	}
	return k;
}

/* Counts an RDMA_ERROR the client sent us; it is then dropped. */
static void conn_count_error_recv(struct svc_conn *c,
				  const struct rpcrdma_msg *h)
{
	STAT_INC(c, recv_error);
	if (h->err == RPCRDMA_ERR_VERS)
		STAT_INC(c, err_vers_recv);
	else
		STAT_INC(c, err_chunk_recv);
}

/*
 * Takes one received message into k: answered with RDMA_ERROR or dropped
 * (k freed), ready for dispatch (inline), or waiting for its RDMA Reads.
 */
static void call_take(struct svc_call *k)
{
	struct svc_conn *c = k->c;
	enum rpcrdma_hdr_err herr;
	int rc;

	herr = rpcrdma_hdr_decode(k->rx.data, k->rx.len, &c->lim, &k->hdr,
				  &k->hlen);
	if (herr != RPCRDMA_HDR_OK) {
		STAT_INC(c, bad_headers);
		/*
		 * A message shorter than the smallest header of a call (28
		 * bytes, RFC 8166 section 4.2) is discarded unanswered, as
		 * the Linux server does. Never answer an RDMA_ERROR with
		 * another, of any version (a malformed one included), or
		 * two peers could ping-pong forever.
		 */
		if (k->rx.len >= RPCRDMA_HDR_MIN &&
		    k->hdr.proc != RPCRDMA_ERROR)
			call_send_error(k, rpcrdma_hdr_err_to_wire(herr));
		else
			call_put(k);
		return;
	}
	switch (k->hdr.proc) {
	case RPCRDMA_MSG:
		STAT_INC(c, recv_msg);
		break;
	case RPCRDMA_NOMSG:
		STAT_INC(c, recv_nomsg);
		break;
	case RPCRDMA_ERROR:
		conn_count_error_recv(c, &k->hdr);
		call_put(k);
		return;
	default:
		call_put(k);
		return;
	}
	if (k->hdr.nreads == 0) {
		if (k->hdr.proc == RPCRDMA_NOMSG) {
			/* RDMA_NOMSG with no position-zero chunk: no call. */
			call_send_error(k, RPCRDMA_ERR_CHUNK);
			return;
		}
		k->msg = k->rx.data + k->hlen;
		k->msg_len = k->rx.len - k->hlen;
		ready_push(c, k);
		return;
	}
	rc = call_start_reads(k);
	if (rc == -EMSGSIZE) {
		/* RFC 8166 section 4.5.3: chunks we cannot process. */
		call_send_error(k, RPCRDMA_ERR_CHUNK);
	} else if (rc == -EBADMSG) {
		/*
		 * RFC 8166 section 4.5.2: a valid header whose chunks do not
		 * match the Payload stream SHOULD get GARBAGE_ARGS. The
		 * inline part alone is parsed for the RPC header the reply
		 * needs; the chunks are never read.
		 */
		k->garbage = true;
		k->msg = k->rx.data + k->hlen;
		k->msg_len = k->rx.len - k->hlen;
		ready_push(c, k);
	} else if (rc) {
		conn_fail(c, rc);
		call_put(k);
	}
}

/* Moves on the transfers that finished: reads make calls ready, sends
 * free their call. */
static void conn_reap_xfers(struct svc_conn *c)
{
	struct rpcrdma_xfer *x;

	while ((x = rpcrdma_ep_xfer_done(c->ep))) {
		struct svc_call *k = x->owner;

		if (x->status) {
			/* The connection is gone or the peer's segments
			 * failed us (bad rkey): nothing on it completes. */
			conn_fail(c, x->status);
			call_put(k);
			continue;
		}
		if (k->state == CALL_SENDING) {
			call_put(k);
			continue;
		}
		if (call_finish_reads(k))
			call_send_error(k, RPCRDMA_ERR_CHUNK);
		else
			ready_push(c, k);
	}
}

/*
 * Hands the ready call k to libtirpc: parses its RPC header into msg.
 * An RPC message we cannot parse is dropped, as svc_vc does.
 */
static bool call_parse(struct svc_call *k, struct rpc_msg *msg)
{
	struct svc_conn *c = k->c;

	xdrmem_create(&c->args, (char *)(uintptr_t)k->msg, (u_int)k->msg_len,
		      XDR_DECODE);
	if (!xdr_callmsg(&c->args, msg)) {
		XDR_DESTROY(&c->args);
		/* A call refused for its chunks is answered all the same. */
		if (k->garbage)
			call_send_error(k, RPCRDMA_ERR_CHUNK);
		else
			call_put(k);
		return false;
	}
	/* RFC 8166 section 4.2.1: rdma_xid repeats the RPC message's XID;
	 * the reply would otherwise be matched to the wrong call. */
	if (msg->rm_xid != k->hdr.xid) {
		XDR_DESTROY(&c->args);
		STAT_INC(c, xid_mismatches);
		call_send_error(k, RPCRDMA_ERR_CHUNK);
		return false;
	}
	k->state = CALL_SERVING;
	c->serving = k;
	return true;
}

/* The call being dispatched is over (replied, or abandoned by a
 * dispatcher that never replied). */
static void conn_end_serving(struct svc_conn *c)
{
	struct svc_call *k = c->serving;

	if (!k)
		return;
	XDR_DESTROY(&c->args);
	c->serving = NULL;
	if (k->state == CALL_SERVING)
		call_put(k);
}

static bool_t conn_reply(SVCXPRT *xprt, struct rpc_msg *msg);

/* Answers the call being parsed, refused for its chunks, with
 * GARBAGE_ARGS (RFC 5531: MSG_ACCEPTED, a null verifier) through the
 * reply path, so the offered chunks are echoed as for any reply. */
static void conn_reply_garbage(struct svc_conn *c)
{
	struct rpc_msg r;

	memset(&r, 0, sizeof(r));
	r.rm_direction = REPLY;
	r.rm_reply.rp_stat = MSG_ACCEPTED;
	r.acpted_rply.ar_verf = _null_auth;
	r.acpted_rply.ar_stat = GARBAGE_ARGS;
	if (conn_reply(&c->xprt, &r))
		STAT_INC(c, garbage_args_sent);
	else
		conn_end_serving(c);	/* the connection is gone */
}

/* ---- backward direction (RFC 8167): the server as requester ---- */



static struct conn_bc *bc_create(uint32_t recv_max)
{
	struct conn_bc *bc = calloc(1, sizeof(*bc));
	pthread_condattr_t ca;
	uint32_t i;

	if (!bc)
		return NULL;
	for (i = 0; i < RPCRDMA_BC_CREDITS; i++) {
		bc->slots[i].buf = malloc(recv_max);
		if (!bc->slots[i].buf)
			goto out_free;
	}
	if (pthread_mutex_init(&bc->lock, NULL))
		goto out_free;
	if (pthread_condattr_init(&ca))
		goto out_lock;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (pthread_cond_init(&bc->cv, &ca)) {
		pthread_condattr_destroy(&ca);
		goto out_lock;
	}
	pthread_condattr_destroy(&ca);
	bc->refs = 1;
	/* RFC 8167 section 3.1: one backward call until the client's
	 * first backward reply says how many. */
	rpcrdma_req_credits_init(&bc->cr, RPCRDMA_BC_CREDITS);
	if (getrandom(&bc->next_xid, sizeof(bc->next_xid), GRND_NONBLOCK) !=
	    sizeof(bc->next_xid))
		bc->next_xid = (uint32_t)time(NULL) * 2654435761u;
	return bc;
out_lock:
	pthread_mutex_destroy(&bc->lock);
out_free:
	for (i = 0; i < RPCRDMA_BC_CREDITS; i++)
		free(bc->slots[i].buf);
	free(bc);
	return NULL;
}

static void bc_unref(struct conn_bc *bc)
{
	bool last;

	pthread_mutex_lock(&bc->lock);
	last = --bc->refs == 0;
	pthread_mutex_unlock(&bc->lock);
	if (!last)
		return;
	for (uint32_t i = 0; i < RPCRDMA_BC_CREDITS; i++)
		free(bc->slots[i].buf);
	pthread_cond_destroy(&bc->cv);
	pthread_mutex_destroy(&bc->lock);
	free(bc);
}

/* Counts backward calls outstanding (bc->lock held, bc->ep live). */
static void bc_count_inflight(struct conn_bc *bc)
{
	if (!bc->ep)
		return;
	RPCRDMA_STAT_SET(bc->ep, bc_inflight, bc->cr.inflight);
	RPCRDMA_STAT_MAX(bc->ep, bc_inflight_peak, bc->cr.inflight);
}

/* The connection is gone: every backward call waiting fails, abandoned
 * ones are dropped (bc->lock held). */
static void bc_kill_locked(struct conn_bc *bc)
{
	bc->dead = true;
	for (uint32_t i = 0; i < RPCRDMA_BC_CREDITS; i++) {
		struct bc_slot *s = &bc->slots[i];

		if (s->state == BC_WAITING) {
			s->err = -ENOTCONN;
			s->state = BC_DONE;
		} else if (s->state == BC_ABANDONED) {
			s->state = BC_FREE;
			rpcrdma_req_credits_put(&bc->cr);
		}
	}
	bc_count_inflight(bc);
	pthread_cond_broadcast(&bc->cv);
}

static void bc_kill(struct conn_bc *bc)
{
	pthread_mutex_lock(&bc->lock);
	bc_kill_locked(bc);
	pthread_mutex_unlock(&bc->lock);
}

/* The thread serving c is now in (or out of) a dispatch function. */
static void bc_dispatching(struct svc_conn *c, bool on)
{
	struct conn_bc *bc = c->bc;

	if (!on && !bc->in_dispatch)
		return;
	pthread_mutex_lock(&bc->lock);
	bc->in_dispatch = on;
	if (on)
		bc->disp_thread = pthread_self();
	pthread_mutex_unlock(&bc->lock);
}

/*
 * The shape of an answer to a backward call. A reply (RFC 8167 section
 * 4.2): RDMA_MSG of version 1, all three chunk lists empty, an RPC
 * message of msg_type REPLY inline. Or an RDMA_ERROR of version 1: only
 * a responder sends one (RFC 8166 section 5), and the client is ours
 * only in the backward direction. A forward call has neither shape.
 */
static bool msg_is_bc_answer(const uint8_t *data, uint32_t len)
{
	uint32_t w[RPCRDMA_HDR_MIN / 4 + 2];

	if (len < RPCRDMA_HDR_FIXED)
		return false;
	memcpy(w, data, RPCRDMA_HDR_FIXED);
	if (ntohl(w[1]) != RPCRDMA_VERSION)
		return false;
	if (ntohl(w[3]) == RPCRDMA_ERROR)
		return true;
	if (len < sizeof(w))
		return false;
	memcpy(w, data, sizeof(w));
	return ntohl(w[3]) == RPCRDMA_MSG && !w[4] && !w[5] && !w[6] &&
	       ntohl(w[RPCRDMA_HDR_MIN / 4 + 1]) == REPLY;
}

/* The backward call waiting for xid, or abandoned by its caller, or NULL
 * (bc->lock held). */
static struct bc_slot *bc_slot_by_xid(struct conn_bc *bc, uint32_t xid)
{
	for (uint32_t i = 0; i < RPCRDMA_BC_CREDITS; i++)
		if ((bc->slots[i].state == BC_WAITING ||
		     bc->slots[i].state == BC_ABANDONED) &&
		    bc->slots[i].xid == xid)
			return &bc->slots[i];
	return NULL;
}

/* s has its answer: 0 with len bytes of reply at data, or an error for
 * its caller (bc_err_stat); an abandoned call just frees its credit
 * (bc->lock held). */
static void bc_slot_answered(struct conn_bc *bc, struct bc_slot *s, int err,
			     const uint8_t *data, uint32_t len)
{
	if (s->state == BC_ABANDONED) {
		s->state = BC_FREE;
		rpcrdma_req_credits_put(&bc->cr);
	} else {
		if (!err)
			memcpy(s->buf, data, len);
		s->len = err ? 0 : len;
		s->err = err;
		s->state = BC_DONE;
	}
	bc_count_inflight(bc);
	pthread_cond_broadcast(&bc->cv);
}

/*
 * What a backward call's caller sees for s->err: the connection went
 * (RPC_CANTRECV); RDMA_ERROR, a permanent error (RFC 8166 section 4.5),
 * as the forward CLIENT reports it (ERR_VERS: RPC_SYSTEMERROR,
 * EPROTONOSUPPORT; ERR_CHUNK: RPC_CANTDECODEARGS, EBADMSG); a reply that
 * cannot be taken (RPC_CANTDECODERES).
 */
static enum clnt_stat bc_err_stat(int err, int *eno)
{
	switch (err) {
	case -ENOTCONN:
		*eno = ENOTCONN;
		return RPC_CANTRECV;
	case -EPROTONOSUPPORT:
		*eno = EPROTONOSUPPORT;
		return RPC_SYSTEMERROR;
	case -EREMOTEIO:
		*eno = EBADMSG;
		return RPC_CANTDECODEARGS;
	default:
		*eno = -err;
		return RPC_CANTDECODERES;
	}
}

/* An RDMA_ERROR from the client: counted, and it fails the backward call
 * it names; never answered (RFC 8166 section 5). */
static void conn_take_bc_error(struct svc_conn *c, const struct rpcrdma_msg *m)
{
	struct conn_bc *bc = c->bc;
	struct bc_slot *s;

	conn_count_error_recv(c, m);
	pthread_mutex_lock(&bc->lock);
	s = bc_slot_by_xid(bc, m->xid);
	if (!s) {
		STAT_INC(c, replies_unmatched);
	} else {
		/* Its grant counts as a reply's does, as the forward
		 * CLIENT takes an RDMA_ERROR's. */
		rpcrdma_req_credits_update(&bc->cr, m->credits);
		RPCRDMA_STAT_SET(c->ep, bc_credits_granted, bc->cr.granted);
		bc_slot_answered(bc, s,
				 m->err == RPCRDMA_ERR_VERS ? -EPROTONOSUPPORT :
							      -EREMOTEIO,
				 NULL, 0);
	}
	pthread_mutex_unlock(&bc->lock);
}

/*
 * An answer to a backward call (msg_is_bc_answer) goes to its call by
 * XID; a reply's rdma_credit is the client's backward grant (RFC 8167
 * section 3.1). True when rx was one (then consumed): it is never taken
 * for a forward call.
 */
static bool conn_take_bc_answer(struct svc_conn *c, struct rpcrdma_rx *rx)
{
	struct rpcrdma_msg *m = &c->bchdr;
	struct conn_bc *bc = c->bc;
	struct bc_slot *s;
	uint32_t xid, len;
	size_t hlen;
	int err = 0;

	/* Cheap look first: forward calls pay no second decode. */
	if (!msg_is_bc_answer(rx->data, rx->len))
		return false;
	if (rpcrdma_hdr_decode(rx->data, rx->len, &c->lim, m, &hlen) !=
	    RPCRDMA_HDR_OK) {
		/* Never answered: it may be an RDMA_ERROR (section 5). */
		STAT_INC(c, bad_headers);
		goto done;
	}
	if (m->proc == RPCRDMA_ERROR) {
		conn_take_bc_error(c, m);
		goto done;
	}
	STAT_INC(c, recv_msg);
	/* RFC 8166 section 4.2.1: rdma_xid repeats the RPC XID. A reply
	 * saying otherwise fails the call its rdma_xid names, if any: its
	 * results cannot be trusted to be that call's. */
	memcpy(&xid, rx->data + hlen, sizeof(xid));
	if (ntohl(xid) != m->xid) {
		STAT_INC(c, xid_mismatches);
		err = -EBADMSG;
	}
	len = rx->len - (uint32_t)hlen;
	if (!err && len > rpcrdma_ep_inline(c->ep)->recv_max)
		err = -EMSGSIZE;
	pthread_mutex_lock(&bc->lock);
	s = bc_slot_by_xid(bc, m->xid);
	if (!s) {
		if (!err || err == -EMSGSIZE)
			STAT_INC(c, replies_unmatched);
	} else {
		if (!err) {
			rpcrdma_req_credits_update(&bc->cr, m->credits);
			RPCRDMA_STAT_SET(c->ep, bc_credits_granted,
					 bc->cr.granted);
			STAT_INC(c, bc_replies_recv);
		}
		bc_slot_answered(bc, s, err, rx->data + hlen, len);
	}
	pthread_mutex_unlock(&bc->lock);
done:
	rpcrdma_ep_rx_done(c->ep, rx);
	return true;
}

static void call_take(struct svc_call *k);

/* Queued messages that are not answers to backward calls: forward
 * calls. */
static bool msg_is_not_bc_answer(const uint8_t *data, uint32_t len)
{
	return !msg_is_bc_answer(data, len);
}

/*
 * One received message: an answer to a backward call, or a forward call
 * taken into a free context (one is free: the caller checked). False when
 * the client has more forward calls outstanding than ever granted (RFC
 * 8166 section 3.3.1): every call queued behind this one was sent before
 * our reply to it. Answers to backward calls queued beside them are not
 * calls (RFC 8167 section 3.3): they are told apart only when the bound
 * is passed, by a second look at the queue. The connection is then
 * closed.
 */
static bool conn_take_msg(struct svc_conn *c, struct rpcrdma_rx *rx)
{
	struct svc_call *k;
	uint32_t held, bound;

	if (conn_take_bc_answer(c, rx))
		return true;
	held = c->active + 1 + rpcrdma_ep_rx_queued(c->ep);
	bound = c->grant_max ? c->grant_max : rpcrdma_ep_credits(c->ep);

	if (held > bound &&
	    c->active + 1 + rpcrdma_ep_rx_queued_count(c->ep,
						       msg_is_not_bc_answer) >
		    bound) {
		STAT_INC(c, credit_overruns);
		rpcrdma_ep_rx_done(c->ep, rx);
		conn_fail(c, -EPROTO);
		return false;
	}
	k = call_get(c);
	k->rx = *rx;
	k->has_rx = true;
	k->state = CALL_READING;	/* counted as in progress */
	c->active++;
	call_take(k);
	return true;
}

static void conn_reap_xfers(struct svc_conn *c);

/*
 * A dispatch function of c waits for a backward reply: nobody else
 * serves c meanwhile, so its own thread moves c on, as conn_recv would,
 * for up to ms (forward calls arriving meanwhile wait in the ready queue
 * for the dispatch to end).
 */
static void conn_pump(struct svc_conn *c, int ms)
{
	struct rpcrdma_rx rx;
	int rc;

	conn_reap_xfers(c);
	if (c->dead) {
		bc_kill(c->bc);
		return;
	}
	if (!c->free) {
		/* Only Sends not yet reaped hold the contexts. */
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		return;
	}
	rc = rpcrdma_ep_poll(c->ep, &rx, ms);
	if (rc < 0) {
		c->dead = true;
		bc_kill(c->bc);
	} else if (rc > 0) {
		conn_take_msg(c, &rx);
	}
}

/* Waits (bc->lock held) for news until dl: 0 or ETIMEDOUT. A dispatch
 * function of the connection calling back moves it on itself. */
static int bc_wait(struct conn_bc *bc, const struct timespec *dl)
{
	if (bc->in_dispatch && bc->c && !bc->dead &&
	    pthread_equal(bc->disp_thread, pthread_self())) {
		struct svc_conn *c = bc->c;	/* ours: we serve it */
		int ms = xprt_ms_left(dl);

		if (ms <= 0)
			return ETIMEDOUT;
		pthread_mutex_unlock(&bc->lock);
		conn_pump(c, ms > 100 ? 100 : ms);
		pthread_mutex_lock(&bc->lock);
		return 0;
	}
	return pthread_cond_timedwait(&bc->cv, &bc->lock, dl);
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

static const struct clnt_ops cbc_ops;

static struct cbc *to_cbc(CLIENT *cl)
{
	return (struct cbc *)((char *)cl - offsetof(struct cbc, clnt));
}

/* Frees s and its credit (bc->lock held). */
static void bc_slot_free(struct conn_bc *bc, struct bc_slot *s)
{
	s->state = BC_FREE;
	rpcrdma_req_credits_put(&bc->cr);
	bc_count_inflight(bc);
	pthread_cond_broadcast(&bc->cv);
}

/*
 * A backward call was just abandoned (bc->lock held, bc->ep live). Its
 * credit stays taken: only its reply may give it back (RFC 8167 section
 * 3.1 counts backward credits as RFC 8166 section 3.3.1 counts forward
 * ones, and a reply may still come). When every call outstanding is
 * abandoned and they hold all the client's grant, no callback can ever be
 * sent on this connection again unless the client answers after all. As
 * the forward requester does in that state (clnt_rdma.c, ct_get_slot),
 * and the Linux requester on any timeout, the connection is closed: its
 * credits come back with a new connection (the client's next forward call
 * reconnects) and later callbacks fail at once (RPC_CANTSEND, ENOTCONN)
 * instead of each waiting out its timeout for a credit. The close is left
 * to the thread serving the connection (conn_close_pending), which alone
 * touches its fields: the endpoint's fd is made readable for it.
 */
static void bc_abandoned(struct conn_bc *bc)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < RPCRDMA_BC_CREDITS; i++)
		n += bc->slots[i].state == BC_ABANDONED;
	if (bc->dead || !bc->ep || n != bc->cr.inflight || n < bc->cr.granted)
		return;
	RPCRDMA_STAT_ADD(bc->ep, bc_abandoned_closes, 1);
	__atomic_store_n(&bc->close_wanted, true, __ATOMIC_RELEASE);
	rpcrdma_ep_kick(bc->ep);
	bc_kill_locked(bc);
}

/* Encodes the backward call behind room for its transport header. */
static bool cbc_encode(struct cbc *cb, XDR *x, uint32_t xid, rpcproc_t proc,
		       xdrproc_t xargs, void *argsp)
{
	AUTH *auth = cb->clnt.cl_auth;
	struct rpc_msg call;
	int32_t p = (int32_t)proc;

	memset(&call, 0, sizeof(call));
	call.rm_xid = xid;
	call.rm_direction = CALL;
	call.rm_call.cb_rpcvers = RPC_MSG_VERSION;
	call.rm_call.cb_prog = cb->prog;
	call.rm_call.cb_vers = cb->vers;
	return xdr_callhdr(x, &call) && XDR_PUTINT32(x, &p) &&
	       AUTH_MARSHALL(auth, x) && AUTH_WRAP(auth, x, xargs, argsp);
}

static enum clnt_stat cbc_decode(struct cbc *cb, const struct bc_slot *s,
				 xdrproc_t xres, void *resp,
				 struct rpc_err *err)
{
	struct rpc_msg reply;
	XDR x;

	memset(&reply, 0, sizeof(reply));
	reply.acpted_rply.ar_verf = _null_auth;
	reply.acpted_rply.ar_results.where = resp;
	reply.acpted_rply.ar_results.proc = xres;
	xdrmem_create(&x, (char *)s->buf, s->len, XDR_DECODE);
	if (!xdr_replymsg(&x, &reply) || reply.rm_xid != s->xid) {
		err->re_status = RPC_CANTDECODERES;
	} else {
		_seterr_reply(&reply, err);
		if (err->re_status == RPC_SUCCESS &&
		    !AUTH_VALIDATE(cb->clnt.cl_auth,
				   &reply.acpted_rply.ar_verf)) {
			err->re_status = RPC_AUTHERROR;
			err->re_why = AUTH_INVALIDRESP;
		}
	}
	if (reply.acpted_rply.ar_verf.oa_base) {
		x.x_op = XDR_FREE;
		(void)xdr_opaque_auth(&x, &reply.acpted_rply.ar_verf);
	}
	XDR_DESTROY(&x);
	return err->re_status;
}

/*
 * RFC 8167 section 4.1: a backward call is an RDMA_MSG with every chunk
 * list empty and the whole RPC call inline, within the client's inline
 * receive threshold; its rdma_credit asks for our most backward credits.
 */
static enum clnt_stat cbc_call(CLIENT *cl, rpcproc_t proc, xdrproc_t xargs,
			       void *argsp, xdrproc_t xres, void *resp,
			       struct timeval timeout)
{
	struct cbc *cb = to_cbc(cl);
	struct conn_bc *bc = cb->bc;
	struct rpc_err err;
	struct rpcrdma_ep *ep;
	struct bc_slot *s = NULL;
	struct rpcrdma_msg m;
	struct timespec dl;
	struct timeval tv;
	enum clnt_stat st = RPC_SUCCESS;
	uint32_t xid, send_max;
	uint8_t *buf = NULL;
	struct iovec iov;
	size_t hlen;
	int e = 0, rc;
	XDR x;

	memset(&err, 0, sizeof(err));
	pthread_mutex_lock(&cb->lock);
	tv = cb->wait_set || timeout.tv_sec < 0 || timeout.tv_usec < 0 ||
		     timeout.tv_usec >= 1000000 ? cb->wait : timeout;
	pthread_mutex_unlock(&cb->lock);
	xprt_deadline_after(&dl, &tv);

	pthread_mutex_lock(&bc->lock);
	for (;;) {
		if (bc->dead || !bc->ep) {
			st = RPC_CANTSEND;
			e = ENOTCONN;
			goto out_unlock;
		}
		if (rpcrdma_req_credits_get(&bc->cr))
			break;
		if (bc_wait(bc, &dl) == ETIMEDOUT &&
		    bc->cr.inflight >= bc->cr.granted) {
			st = RPC_TIMEDOUT;
			goto out_unlock;
		}
	}
	for (uint32_t i = 0; i < RPCRDMA_BC_CREDITS && !s; i++)
		if (bc->slots[i].state == BC_FREE)
			s = &bc->slots[i];
	if (!s) {	/* cannot happen: a slot per credit */
		rpcrdma_req_credits_put(&bc->cr);
		st = RPC_SYSTEMERROR;
		e = ENOSPC;
		goto out_unlock;
	}
	xid = bc->next_xid++;
	s->state = BC_WAITING;
	s->xid = xid;
	s->err = 0;
	s->len = 0;
	ep = bc->ep;
	bc->senders++;
	send_max = rpcrdma_ep_inline(ep)->send_max;
	bc_count_inflight(bc);
	pthread_mutex_unlock(&bc->lock);

	pthread_mutex_lock(&cb->lock);
	cb->last_xid = xid;
	pthread_mutex_unlock(&cb->lock);
	buf = malloc(send_max);
	rc = buf ? 0 : -ENOMEM;
	if (!rc) {
		xdrmem_create(&x, (char *)buf + RPCRDMA_HDR_MIN,
			      send_max - RPCRDMA_HDR_MIN, XDR_ENCODE);
		if (!cbc_encode(cb, &x, xid, proc, xargs, argsp)) {
			/* Section 4.1: inline only, nothing else to try. */
			st = RPC_CANTENCODEARGS;
			rc = -EMSGSIZE;
		} else {
			rpcrdma_msg_init(&m, xid, RPCRDMA_BC_CREDITS,
					 RPCRDMA_MSG);
			rc = rpcrdma_hdr_encode(&m, buf, RPCRDMA_HDR_MIN,
						&hlen);
			iov.iov_base = buf;
			iov.iov_len = RPCRDMA_HDR_MIN + XDR_GETPOS(&x);
			if (!rc)
				rc = rpcrdma_ep_send(ep, &iov, 1, 0);
			if (rc)
				st = RPC_CANTSEND;
			else {
				RPCRDMA_STAT_ADD(ep, bc_calls_sent, 1);
				RPCRDMA_STAT_ADD(ep, sent_msg, 1);
			}
		}
		XDR_DESTROY(&x);
	} else {
		st = RPC_SYSTEMERROR;
	}
	free(buf);

	pthread_mutex_lock(&bc->lock);
	bc->senders--;
	pthread_cond_broadcast(&bc->cv);
	if (rc) {
		e = -rc;
		if (s->state == BC_WAITING || s->state == BC_DONE)
			bc_slot_free(bc, s);
		goto out_unlock;
	}
	while (s->state == BC_WAITING) {
		if (bc_wait(bc, &dl) == ETIMEDOUT &&
		    s->state == BC_WAITING) {
			/* Its credit stays taken until the late reply
			 * comes or the connection goes. */
			s->state = BC_ABANDONED;
			st = RPC_TIMEDOUT;
			bc_abandoned(bc);
			goto out_unlock;
		}
	}
	if (s->err) {
		st = bc_err_stat(s->err, &e);
		bc_slot_free(bc, s);
		goto out_unlock;
	}
	pthread_mutex_unlock(&bc->lock);
	st = cbc_decode(cb, s, xres, resp, &err);
	pthread_mutex_lock(&bc->lock);
	bc_slot_free(bc, s);
out_unlock:
	pthread_mutex_unlock(&bc->lock);
	if (st != RPC_SUCCESS && err.re_status != st) {
		memset(&err, 0, sizeof(err));
		err.re_status = st;
		err.re_errno = e;
	}
	pthread_mutex_lock(&cb->lock);
	cb->error = err;
	pthread_mutex_unlock(&cb->lock);
	return st;
}

static void cbc_abort(CLIENT *cl)
{
	(void)cl;
}

static void cbc_geterr(CLIENT *cl, struct rpc_err *errp)
{
	struct cbc *cb = to_cbc(cl);

	pthread_mutex_lock(&cb->lock);
	*errp = cb->error;
	pthread_mutex_unlock(&cb->lock);
}

static bool_t cbc_freeres(CLIENT *cl, xdrproc_t xres, void *resp)
{
	(void)cl;
	xdr_free(xres, resp);
	return TRUE;
}

static bool_t cbc_control(CLIENT *cl, u_int req, void *info)
{
	struct cbc *cb = to_cbc(cl);
	struct conn_bc *bc = cb->bc;
	bool_t ok = TRUE;

	if (req == CLSET_FD_CLOSE || req == CLSET_FD_NCLOSE)
		return TRUE;
	if (!info)
		return FALSE;
	if (req == CLGET_RDMA_STATS) {
		pthread_mutex_lock(&bc->lock);
		if (bc->ep)
			*(struct rpcrdma_stats *)info = *rpcrdma_ep_stats(bc->ep);
		else
			ok = FALSE;
		pthread_mutex_unlock(&bc->lock);
		return ok;
	}
	pthread_mutex_lock(&cb->lock);
	switch (req) {
	case CLSET_TIMEOUT: {
		const struct timeval *tv = info;

		if (tv->tv_sec < 0 || tv->tv_usec < 0 ||
		    tv->tv_usec >= 1000000) {
			ok = FALSE;
			break;
		}
		cb->wait = *tv;
		cb->wait_set = true;
		break;
	}
	case CLGET_TIMEOUT:
		*(struct timeval *)info = cb->wait;
		break;
	case CLGET_XID:
		*(uint32_t *)info = cb->last_xid;
		break;
	case CLGET_PROG:
		*(uint32_t *)info = (uint32_t)cb->prog;
		break;
	case CLGET_VERS:
		*(uint32_t *)info = (uint32_t)cb->vers;
		break;
	default:
		ok = FALSE;
		break;
	}
	pthread_mutex_unlock(&cb->lock);
	return ok;
}

static void cbc_destroy(CLIENT *cl)
{
	struct cbc *cb = to_cbc(cl);

	/* cl_auth belongs to the caller (authnone's is a shared one). */
	bc_unref(cb->bc);
	pthread_mutex_destroy(&cb->lock);
	free(cl->cl_netid);
	free(cb);
}

static const struct clnt_ops cbc_ops = {
	.cl_call = cbc_call,
	.cl_abort = cbc_abort,
	.cl_geterr = cbc_geterr,
	.cl_freeres = cbc_freeres,
	.cl_destroy = cbc_destroy,
	.cl_control = cbc_control,
};

/*
 * libtirpc's xp_recv: moves the connection's calls on (finished reads,
 * finished replies, new messages) and hands over the next ready call.
 * Bounded: at most SVC_BURST messages per call, so that one busy or
 * hostile connection cannot hold svc_run (conn_stat brings it back).
 */
static bool_t conn_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_conn *c = to_conn(xprt);
	struct svc_call *k;
	struct rpcrdma_rx rx;
	unsigned int budget = SVC_BURST;
	int rc;

	bc_dispatching(c, false);
	conn_end_serving(c);
	conn_close_pending(c);
	rpcrdma_ep_unkick(c->ep);
	rpcrdma_ep_check_stall(c->ep);
	while (!c->dead) {
		conn_reap_xfers(c);
		while ((k = ready_pop(c))) {
			if (!call_parse(k, msg))
				continue;
			if (k->garbage) {
				conn_reply_garbage(c);
				continue;
			}
			svc_pool_call_begin();
			bc_dispatching(c, true);
			return TRUE;
		}
		if (c->dead || budget-- == 0)
			break;
		/* No context free: only Sends not yet reaped hold them;
		 * their completions bring us back. */
		if (!c->free) {
			conn_reap_xfers(c);
			if (!c->free)
				break;
		}
		rc = rpcrdma_ep_poll(c->ep, &rx, 0);
		if (rc < 0) {
			c->dead = true;
			bc_kill(c->bc);
			break;
		}
		if (rc == 0) {
			/* The poll may have reaped finished transfers. */
			if (c->ready || rpcrdma_ep_xfers_ready(c->ep))
				continue;
			break;
		}
		/* Before the first grant the provisioned credits bound
		 * the calls outstanding (conn_take_msg). */
		if (!conn_take_msg(c, &rx))
			break;
	}
	return FALSE;
}

static enum xprt_stat conn_stat(SVCXPRT *xprt)
{
	struct svc_conn *c = to_conn(xprt);

	bc_dispatching(c, false);
	if (svc_pool_after_dispatch()) {
		/* The dispatch poisoned this pool worker (svc.h): a clean
		 * one posts the reply, closes or destroys; this one goes. */
		STAT_INC(c, cred_changes);
		rpcrdma_ep_kick(c->ep);
		c->rounds = 0;
		return XPRT_IDLE;
	}
	conn_close_pending(c);
	if (c->dead || !rpcrdma_ep_connected(c->ep)) {
		bc_kill(c->bc);
		return XPRT_DIED;
	}
	if (c->ready || (c->free && rpcrdma_ep_rx_pending(c->ep)) ||
	    rpcrdma_ep_xfers_ready(c->ep)) {
		/* More right now; after a few rounds let the others in, and
		 * make our fd readable so that poll() comes back to us. */
		if (++c->rounds < SVC_ROUNDS)
			return XPRT_MOREREQS;
		rpcrdma_ep_kick(c->ep);
	}
	c->rounds = 0;
	return XPRT_IDLE;
}

static bool_t conn_getargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	struct svc_conn *c = to_conn(xprt);
	SVCAUTH *auth = &SVC_XP_AUTH(xprt);

	if (!c->serving)
		return FALSE;
	c->args.x_op = XDR_DECODE;
	if (auth->svc_ah_ops)
		return SVCAUTH_UNWRAP(auth, &c->args, xargs, argsp);
	return (*xargs)(&c->args, argsp);
}

static bool_t conn_freeargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	XDR x;

	(void)xprt;
	memset(&x, 0, sizeof(x));
	x.x_op = XDR_FREE;
	return (*xargs)(&x, argsp);
}

/* Encodes the reply as svc_vc does, letting the auth flavour wrap it. */
static bool call_encode_reply(struct svc_call *k, struct rpc_msg *msg)
{
	XDR *x = &k->reply;

	if (!k->reply_ok) {
		uint32_t max = k->c->max_msg;

		if (rpcrdma_xdrgrow_create(x, SVC_REPLY_INITIAL < max ?
					   SVC_REPLY_INITIAL : max, max))
			return false;
		k->reply_ok = true;
	}
	rpcrdma_xdrgrow_reset(x);
	/* Items are noted only when the call offered write chunks. */
	rpcrdma_xdrgrow_set_ddp(x, k->hdr.nwrites ? k->c->ddp_min : 0);
	msg->rm_xid = k->hdr.xid;
	return xprt_reply_encode(&k->c->xprt, x, msg);
}

bool xprt_reply_encode(SVCXPRT *xprt, XDR *x, struct rpc_msg *msg)
{
	SVCAUTH *auth = &SVC_XP_AUTH(xprt);

	if (auth->svc_ah_ops && msg->rm_reply.rp_stat == MSG_ACCEPTED &&
	    msg->acpted_rply.ar_stat == SUCCESS) {
		xdrproc_t proc = msg->acpted_rply.ar_results.proc;
		caddr_t where = msg->acpted_rply.ar_results.where;
		bool ok;

		msg->acpted_rply.ar_results.proc =
			(xdrproc_t)(void (*)(void))xdr_void;
		msg->acpted_rply.ar_results.where = NULL;
		ok = xdr_replymsg(x, msg) &&
		     SVCAUTH_WRAP(auth, x, proc, where);
		msg->acpted_rply.ar_results.proc = proc;
		msg->acpted_rply.ar_results.where = where;
		return ok;
	}
	return xdr_replymsg(x, msg);
}

/*
 * The write list of the reply (RFC 8166 section 3.4.6): every write chunk
 * the call offered goes back with its segment count kept; chunk i carries
 * used[i] bytes, filling its segments in order (the lengths say what was
 * written: exactly the item, no round-up), unused ones with length zero.
 */
static int add_writes(const struct rpcrdma_msg *call, struct rpcrdma_msg *m,
		      const uint64_t *used)
{
	uint32_t i, j;
	int idx, rc;

	for (i = 0; i < call->nwrites; i++) {
		const struct rpcrdma_chunk *w = &call->writes[i];
		uint64_t left = used[i];

		idx = rpcrdma_msg_add_write_chunk(m);
		if (idx < 0)
			return idx;
		for (j = 0; j < w->nsegs; j++) {
			struct rpcrdma_segment s = call->segs[w->first + j];

			s.length = left < s.length ? (uint32_t)left : s.length;
			left -= s.length;
			rc = rpcrdma_msg_add_write_seg(m, (uint32_t)idx, &s);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/*
 * The rkey a reply may invalidate (RFC 8797 section 4.1): only when both
 * sides set R, and, as the Linux server does, only when every segment of
 * the call names the same rkey, so no memory the requester still uses
 * for another purpose is revoked. 0: a plain Send.
 */
static uint32_t call_inv_rkey(const struct svc_call *k)
{
	const struct rpcrdma_msg *h = &k->hdr;
	uint32_t rkey = 0, i;
	bool seen = false;

	if (!rpcrdma_ep_inline(k->c->ep)->peer_remote_inv)
		return 0;
	for (i = 0; i < h->nreads + h->nsegs; i++) {
		uint32_t r = i < h->nreads ? h->reads[i].seg.handle
					   : h->segs[i - h->nreads].handle;

		if (seen && r != rkey)
			return 0;
		rkey = r;
		seen = true;
	}
	return rkey;
}

/*
 * Sends the reply as planned. Items in write chunks and, for a Long Reply
 * (RFC 8166 section 3.5.4), the rest of the message in the reply chunk go
 * by RDMA Write, each chunk's segments filled in order; the header (and
 * for RDMA_MSG the inline runs) follows in a Send chained behind them. A
 * Long Reply whose items moved has its remainder gathered behind the
 * message first, so the reply chunk is written from one run.
 */
static int call_send_reply(struct svc_call *k, uint32_t grant,
			   const struct rpcrdma_reply_plan *plan,
			   const struct rpcrdma_item *items, uint32_t nitems)
{
	uint64_t used[RPCRDMA_MAX_WRITE_CHUNKS] = { 0 };
	struct iovec runs[RPCRDMA_MAX_WRITE_CHUNKS + 1] = { { 0 } };
	struct rpcrdma_xfer *x = &k->xfer;
	bool nomsg = plan->kind == RPCRDMA_REPLY_LONG;
	size_t len, rem_off = 0;
	struct rpcrdma_msg m;
	uint32_t i, nruns = 0;
	uint8_t *body;
	int err;

	for (i = 0; i < nitems; i++) {
		struct rpcrdma_xfer_part *p;
		const struct rpcrdma_chunk *w;
		int32_t ch = plan->item_chunk[i];

		if (ch < 0)
			continue;
		w = &k->hdr.writes[ch];
		p = &x->parts[x->nparts++];
		p->off = items[i].offset;
		p->len = items[i].length;
		p->segs = &k->hdr.segs[w->first];
		p->nsegs = w->nsegs;
		used[ch] = items[i].length;
	}
	if (nomsg && x->nparts) {
		err = rpcrdma_xdrgrow_gather(&k->reply, plan->extents,
					     plan->nextents, &rem_off);
		if (err)
			return err;
	}
	body = rpcrdma_xdrgrow_buf(&k->reply, &len);
	rpcrdma_msg_init(&m, k->hdr.xid, grant,
			 nomsg ? RPCRDMA_NOMSG : RPCRDMA_MSG);
	err = add_writes(&k->hdr, &m, used);
	if (err)
		return err;
	x->local = body;
	x->len = x->nparts ? len : 0;
	if (nomsg) {
		const struct rpcrdma_chunk *rc = &k->hdr.reply;
		const struct rpcrdma_segment *segs = &k->hdr.segs[rc->first];
		struct rpcrdma_xfer_part *p = &x->parts[x->nparts++];
		uint64_t left = plan->remainder_len;

		/* Every segment goes back, unfilled ones with length zero
		 * (sections 4.2.1.3 and 3.6). */
		for (i = 0; i < rc->nsegs; i++) {
			struct rpcrdma_segment s = segs[i];

			s.length = left < s.length ? (uint32_t)left : s.length;
			left -= s.length;
			err = rpcrdma_msg_add_reply_seg(&m, &s);
			if (err)
				return err;
		}
		if (left)
			return -EMSGSIZE;
		p->off = rem_off;
		p->len = plan->remainder_len;
		p->segs = segs;
		p->nsegs = rc->nsegs;
		x->len = rem_off + plan->remainder_len;
	} else {
		for (i = 0; i < plan->nextents; i++) {
			runs[nruns].iov_base = body + plan->extents[i].offset;
			runs[nruns].iov_len = plan->extents[i].length;
			nruns++;
		}
	}
	x->inv_rkey = call_inv_rkey(k);
	err = call_send(k, &m, runs, nruns);
	if (err)
		return err;
	if (nomsg) {
		STAT_INC(k->c, sent_nomsg);
		STAT_INC(k->c, reply_chunks);
	} else {
		STAT_INC(k->c, sent_msg);
	}
	for (i = 0; i < k->hdr.nwrites; i++)
		if (used[i])
			STAT_INC(k->c, write_chunks);
	return 0;
}

static bool_t conn_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_conn *c = to_conn(xprt);
	struct svc_call *k = c->serving;
	struct rpcrdma_chunk_cap reply_cap = { 0, 0 };
	struct rpcrdma_chunk_cap writes[RPCRDMA_MAX_WRITE_CHUNKS];
	const struct rpcrdma_item *items = NULL;
	struct rpcrdma_reply_plan plan;
	uint32_t grant, send_max, nitems;
	size_t len;
	uint32_t i;
	int rc = -EINVAL;

	if (!k || k->state != CALL_SERVING || c->dead)
		return FALSE;
	grant = conn_grant(c, k->hdr.credits);
	if (!call_encode_reply(k, msg))
		goto out_err_chunk;	/* larger than max_msg */
	(void)rpcrdma_xdrgrow_buf(&k->reply, &len);
	nitems = rpcrdma_xdrgrow_items(&k->reply, &items);
	/* Items past the offered chunks stay where they are anyway. */
	if (nitems > k->hdr.nwrites)
		nitems = k->hdr.nwrites;
	if (k->hdr.has_reply) {
		reply_cap.nsegs = k->hdr.reply.nsegs;
		reply_cap.bytes = rpcrdma_chunk_length(&k->hdr, &k->hdr.reply);
	}
	for (i = 0; i < k->hdr.nwrites; i++) {
		writes[i].nsegs = k->hdr.writes[i].nsegs;
		writes[i].bytes = rpcrdma_chunk_length(&k->hdr,
						       &k->hdr.writes[i]);
	}
	send_max = rpcrdma_ep_inline(c->ep)->send_max;
	rc = rpcrdma_plan_reply((uint32_t)len, items, nitems, c->ddp_min,
				send_max, writes, k->hdr.nwrites, &reply_cap,
				&plan);
	if (rc == -EINVAL && nitems) {
		/* Items an XDR routine emitted oddly stay in the reply. */
		nitems = 0;
		rc = rpcrdma_plan_reply((uint32_t)len, NULL, 0, 0, send_max,
					writes, k->hdr.nwrites, &reply_cap,
					&plan);
	}
	if (rc)
		goto out_err_chunk;
	call_xfer_reset(k);
	rc = call_send_reply(k, grant, &plan, items, nitems);
	if (rc == 0 || c->dead || k->state == CALL_FREE)
		goto out;
out_err_chunk:
	/*
	 * RFC 8166 section 4.5.3: the reply fits nowhere (reply chunk
	 * missing or too small, header too large, offered chunks unusable):
	 * the requester gets ERR_CHUNK rather than silence.
	 */
	call_send_error(k, RPCRDMA_ERR_CHUNK);
	rc = -EMSGSIZE;
out:
	XDR_DESTROY(&c->args);
	c->serving = NULL;
	return rc == 0;
}

static void conn_destroy(SVCXPRT *xprt)
{
	struct svc_conn *c = to_conn(xprt);
	SVCAUTH *auth = &SVC_XP_AUTH(xprt);
	uint32_t i;

	svc_member_leave(&c->mem);
	if (c->serving)
		XDR_DESTROY(&c->args);
	if (auth->svc_ah_ops && auth->svc_ah_ops->svc_ah_destroy)
		SVCAUTH_DESTROY(auth);
	/* Callback calls fail; their CLIENTs keep bc, never the endpoint. */
	pthread_mutex_lock(&c->bc->lock);
	bc_kill_locked(c->bc);
	c->bc->c = NULL;
	c->bc->in_dispatch = false;
	while (c->bc->senders)
		pthread_cond_wait(&c->bc->cv, &c->bc->lock);
	c->bc->ep = NULL;
	pthread_mutex_unlock(&c->bc->lock);
	bc_unref(c->bc);
	/* The endpoint first: it drains the QP and releases the transfers,
	 * so no work request still points into the calls' buffers. */
	rpcrdma_ep_destroy(c->ep);
	for (i = 0; i < c->ncalls; i++)
		call_free_buffers(&c->calls[i]);
	free(c->calls);
	free(xprt->xp_netid);
	free(c);
}

static bool_t svc_rdma_control(SVCXPRT *xprt, const u_int rq, void *in)
{
	switch (rq) {
	case SVCGET_RDMA_LIMITS:
		return rpcrdma_svc_limits(xprt, in) == 0;
	default:
		return FALSE;
	}
}

bool_t svc_no_args(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	(void)xprt;
	(void)xargs;
	(void)argsp;
	return FALSE;
}

bool_t svc_no_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	(void)xprt;
	(void)msg;
	return FALSE;
}

static const struct xp_ops conn_ops = {
	.xp_recv = conn_recv,
	.xp_stat = conn_stat,
	.xp_getargs = conn_getargs,
	.xp_reply = conn_reply,
	.xp_freeargs = conn_freeargs,
	.xp_destroy = conn_destroy,
};

static const struct xp_ops2 svc_rdma_ops2 = {
	.xp_control = svc_rdma_control,
};

/* Wraps an established endpoint in a registered connection transport. */
static int conn_create(struct svc_lsn *lsn, struct rpcrdma_ep *ep)
{
	const struct sockaddr *peer = rpcrdma_ep_peer(ep);
	struct svc_conn *c;
	uint32_t i;
	int rc;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ep = ep;
	c->max_msg = lsn->opts.max_msg;
	c->max_credits = lsn->opts.credits;
	c->ddp_min = rpcrdma_ddp_min(lsn->opts.ddp_threshold);
	rpcrdma_limits_default(&c->lim);
	/* Calls in progress are bounded by the grant; as many again, and
	 * some, may be waiting only for their reply's Send to complete
	 * (a Send completion can lag the client's next call). */
	c->ncalls = 2 * rpcrdma_ep_credits(ep) + SVC_CALLS_EXTRA;
	c->calls = calloc(c->ncalls, sizeof(*c->calls));
	if (!c->calls) {
		rc = -ENOMEM;
		goto out_free;
	}
	c->bc = bc_create(rpcrdma_ep_inline(ep)->recv_max);
	if (!c->bc) {
		rc = -ENOMEM;
		goto out_calls;
	}
	c->bc->c = c;
	c->bc->ep = ep;
	for (i = c->ncalls; i-- > 0;) {
		c->calls[i].c = c;
		c->calls[i].next = c->free;
		c->free = &c->calls[i];
	}
	c->xprt.xp_netid = strdup(netid_of(peer ? peer :
				  (const struct sockaddr *)&lsn->laddr));
	if (!c->xprt.xp_netid) {
		rc = -ENOMEM;
		goto out_calls;
	}
	c->xprt.xp_ops = &conn_ops;
	c->xprt.xp_ops2 = &svc_rdma_ops2;
	c->xprt.xp_p1 = c;
	c->xprt.xp_p3 = &c->ext;
	xprt_set_addrs(&c->xprt, &c->laddr,
		       (const struct sockaddr *)&lsn->laddr, &c->raddr, peer);
	rc = svc_member_join(&c->mem, &c->xprt, rpcrdma_ep_fd(ep),
			     rpcrdma_ep_cm_fd(ep));
	if (rc)
		goto out_netid;
	return 0;

out_netid:
	free(c->xprt.xp_netid);
out_calls:
	if (c->bc)
		bc_unref(c->bc);
	free(c->calls);
out_free:
	free(c);
	return rc;
}

/* ---- rendezvous (listening) transport ---- */

/* Accepts what is pending; never a call of its own (like svc_vc). */
static bool_t lsn_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_lsn *lsn = to_lsn(xprt);
	struct rpcrdma_ep *ep;

	(void)msg;
	while (rpcrdma_listener_accept(lsn->l, &ep) == 1) {
		if (conn_create(lsn, ep))
			rpcrdma_ep_destroy(ep);
	}
	return FALSE;
}

enum xprt_stat svc_stat_idle(SVCXPRT *xprt)
{
	(void)xprt;
	return XPRT_IDLE;
}

static void lsn_destroy(SVCXPRT *xprt)
{
	struct svc_lsn *lsn = to_lsn(xprt);

	svc_member_leave(&lsn->mem);
	rpcrdma_listener_destroy(lsn->l);
	free(xprt->xp_netid);
	free(lsn);
}

static const struct xp_ops lsn_ops = {
	.xp_recv = lsn_recv,
	.xp_stat = svc_stat_idle,
	.xp_getargs = svc_no_args,
	.xp_reply = svc_no_reply,
	.xp_freeargs = svc_no_args,
	.xp_destroy = lsn_destroy,
};

/* addr: an IPv4 or IPv6 literal, or NULL for INADDR_ANY. */
static int parse_addr(const char *addr, uint16_t port,
		      struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (!addr || inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		if (!addr)
			sin->sin_addr.s_addr = htonl(INADDR_ANY);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return 0;
	}
	return -EINVAL;
}

SVCXPRT *svc_rdma_create(const char *addr, const struct rpcrdma_opts *opts)
{
	struct rpcrdma_ep_opts eo;
	struct sockaddr_storage ss;
	const struct sockaddr *bound;
	struct svc_lsn *lsn;
	int rc;

	lsn = calloc(1, sizeof(*lsn));
	if (!lsn) {
		xprt_createerr(RPC_SYSTEMERROR, ENOMEM);
		return NULL;
	}
	if (opts)
		lsn->opts = *opts;
	else
		rpcrdma_opts_from_env(&lsn->opts);
	lsn->opts.src_addr = NULL;	/* not ours to keep */
	if (lsn->opts.max_msg < RPCRDMA_HDR_MIN ||
	    rpcrdma_opts_to_ep(&lsn->opts, &eo)) {
		rc = -EINVAL;
		goto out_free;
	}
	/* RFC 8167 section 3.3.2: receives for backward replies. */
	eo.bc_credits = RPCRDMA_BC_CREDITS;
	eo.poll_us = 0;		/* a client's option: svc_run sleeps in poll */
	rc = parse_addr(addr, lsn->opts.port ? lsn->opts.port :
			(uint16_t)RPCRDMA_NFS_PORT, &ss);
	if (rc)
		goto out_free;
	rc = rpcrdma_listener_create((struct sockaddr *)&ss, &eo, &lsn->l);
	if (rc)
		goto out_free;
	bound = rpcrdma_listener_addr(lsn->l);
	if (!sa_len(bound))
		bound = (const struct sockaddr *)&ss;
	lsn->xprt.xp_netid = strdup(netid_of(bound));
	if (!lsn->xprt.xp_netid) {
		rc = -ENOMEM;
		goto out_destroy_listener;
	}
	lsn->xprt.xp_ops = &lsn_ops;
	lsn->xprt.xp_ops2 = &svc_rdma_ops2;
	lsn->xprt.xp_p1 = lsn;
	lsn->xprt.xp_p3 = &lsn->ext;
	xprt_set_addrs(&lsn->xprt, &lsn->laddr, bound, NULL, NULL);
	rc = svc_member_join(&lsn->mem, &lsn->xprt,
			     rpcrdma_listener_fd(lsn->l),
			     rpcrdma_listener_fd(lsn->l));
	if (rc)
		goto out_netid;
	return &lsn->xprt;

out_netid:
	free(lsn->xprt.xp_netid);
out_destroy_listener:
	rpcrdma_listener_destroy(lsn->l);
out_free:
	free(lsn);
	xprt_createerr(rc == -EINVAL ? RPC_UNKNOWNADDR : RPC_SYSTEMERROR, -rc);
	return NULL;
}

int rpcrdma_svc_stats(SVCXPRT *xprt, struct rpcrdma_stats *out)
{
	if (!xprt || !out)
		return -EINVAL;
	if (xprt->xp_ops != &conn_ops)
		return -ENOTCONN;
	*out = *rpcrdma_ep_stats(to_conn(xprt)->ep);
	return 0;
}

int rpcrdma_svc_limits(SVCXPRT *xprt, struct rpcrdma_svc_limits *out)
{
	const struct rpcrdma_opts *o;

	if (!xprt || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (xprt->xp_ops == &conn_ops) {
		struct svc_conn *c = to_conn(xprt);
		const struct rpcrdma_inline *in = rpcrdma_ep_inline(c->ep);
		uint32_t posted = rpcrdma_ep_credits(c->ep);

		out->max_call = out->max_reply = c->max_msg;
		out->inline_send = in->send_max;
		out->inline_recv = in->recv_max;
		/* The grant never exceeds the receives posted. */
		out->credits = c->max_credits < posted ? c->max_credits
						       : posted;
		out->ddp_threshold = c->ddp_min;
		out->remote_inv = in->peer_remote_inv;
		out->connected = true;
		return 0;
	}
	if (xprt->xp_ops != &lsn_ops)
		return -EINVAL;
	o = &to_lsn(xprt)->opts;
	out->max_call = out->max_reply = o->max_msg;
	/* What it advertises (RFC 8797): each connection's are at most. */
	out->inline_send = o->inline_send;
	out->inline_recv = o->inline_recv;
	out->credits = o->credits;
	out->ddp_threshold = rpcrdma_ddp_min(o->ddp_threshold);
	return 0;
}

bool rpcrdma_svc_reg(SVCXPRT *xprt, rpcprog_t prog, rpcvers_t vers,
		     void (*dispatch)(struct svc_req *, SVCXPRT *))
{
	if (!xprt || (xprt->xp_ops != &lsn_ops && xprt->xp_ops != &conn_ops))
		return false;
	if (!svc_reg(xprt, prog, vers, dispatch, NULL))
		return false;
	/* rpcbind may not run at all: then only an explicit port works. */
	(void)rpcrdma_rpcb_set(prog, vers, xprt->xp_netid,
			       (const struct sockaddr *)xprt->xp_ltaddr.buf);
	return true;
}

CLIENT *rpcrdma_svc_callback_create(SVCXPRT *xprt, rpcprog_t prog,
				    rpcvers_t vers)
{
	struct conn_bc *bc;
	struct cbc *cb;

	if (!xprt || xprt->xp_ops != &conn_ops) {
		xprt_createerr(RPC_UNKNOWNPROTO, EINVAL);
		return NULL;
	}
	bc = to_conn(xprt)->bc;
	cb = calloc(1, sizeof(*cb));
	if (!cb || pthread_mutex_init(&cb->lock, NULL)) {
		free(cb);
		xprt_createerr(RPC_SYSTEMERROR, ENOMEM);
		return NULL;
	}
	cb->clnt.cl_netid = strdup(xprt->xp_netid);
	cb->clnt.cl_auth = authnone_create();
	if (!cb->clnt.cl_netid || !cb->clnt.cl_auth) {
		free(cb->clnt.cl_netid);
		pthread_mutex_destroy(&cb->lock);
		free(cb);
		xprt_createerr(RPC_SYSTEMERROR, ENOMEM);
		return NULL;
	}
	pthread_mutex_lock(&bc->lock);
	bc->refs++;
	pthread_mutex_unlock(&bc->lock);
	cb->bc = bc;
	cb->prog = prog;
	cb->vers = vers;
	cb->wait.tv_sec = 25;	/* libtirpc's customary default */
	/* libtirpc's field is not const; nothing writes through it. */
	cb->clnt.cl_ops = (struct clnt_ops *)(uintptr_t)&cbc_ops;
	cb->clnt.cl_private = cb;
	return &cb->clnt;
}
