/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive side of a connection (libtirpc's xp_recv, xp_getargs,
 * xp_freeargs): each received message taken into a call context or
 * handed to svc_bc.c as the answer to a backward call, the client's
 * credit overrun, the RDMA Reads of read chunks and the call rebuilt
 * from them (lib/splice.c), the ready queue, the RPC header parsed for
 * libtirpc, and conn_pump, which moves a connection on for a dispatch
 * function of its own waiting for a backward reply.
 *
 * What a received message gets (dropped, RDMA_ERROR, dispatched inline,
 * GARBAGE_ARGS, its chunks read: RFC 8166 sections 3.5.3, 4.5 and 5) is
 * decided from its bytes alone by rpcrdma_rsp_recv (lib/recv.c), which
 * check proves outcome by outcome and tests/fuzz/fuzz_svcrecv.c drives
 * with any bytes; this file carries out the decision.
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
 * A client found with more calls outstanding than it was ever granted
 * (RFC 8166 section 3.3.1) is disconnected (and with rnr_retry_count 0
 * a flood past the provisioned receives breaks its own connection).
 *
 * The grant bounds how many calls a client has in progress, not their
 * bytes, and replies posted but not yet completed do not count against
 * it: their buffers do, against the connection's cap (opts.conn_mem_max,
 * c->mem_max; security review 21c8dd5, finding 5). A call with read
 * chunks that would pass it waits before its Reads (CALL_WAITING, its
 * receive only) until memory comes back, in order; a ready call whose
 * reply may grow waits before its dispatch while the connection is over
 * it and posted replies will give memory back. A call alone never
 * waits, none is refused and no connection closed for the cap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rpcrdma/splice.h>
#include "lib/chunks.h"
#include "lib/recv.h"
#include "svc_conn.h"

/* A buffer of c's made at least need bytes long, and counted. */
static int grow(struct svc_conn *c, uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *nb;

	if (need <= *cap)
		return 0;
	nb = realloc(*buf, need);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	conn_mem_grew(c, *cap, need);
	*cap = need;
	return 0;
}

/*
 * Posts the RDMA Reads of every read chunk of k (RFC 8166 section 3.5.3)
 * into k->rdbuf, k->rdtotal bytes in the order of the read list; the
 * call waits for them in CALL_READING while the connection serves
 * others. rpcrdma_rsp_recv (lib/recv.c) has checked the chunks, so a bad
 * call costs no transfer. 0, -EMSGSIZE (more than one transfer moves),
 * -EDQUOT (the sink would pass the locked-memory cap) or another -errno.
 */
static int call_start_reads(struct svc_call *k)
{
	const struct rpcrdma_msg *h = &k->hdr;
	uint32_t i;
	int rc;

	for (i = 0; i < h->nreads; i++)
		k->rdsegs[i] = h->reads[i].seg;
	rc = grow(k->c, &k->rdbuf, &k->rdcap, (size_t)k->rdtotal);
	if (rc)
		return rc;
	/* The rebuilt call's buffer now too, so that what the call will
	 * hold is counted before its Reads (conn_mem_admit). Should it not
	 * grow, call_finish_reads meets that again and answers ERR_CHUNK. */
	(void)grow(k->c, &k->callbuf, &k->callcap, k->splice_len);
	k->reads_on = true;
	k->xfer.read = true;
	k->xfer.local = k->rdbuf;
	k->xfer.len = k->rdtotal;
	k->xfer.segs = k->rdsegs;
	k->xfer.nsegs = h->nreads;
	k->state = CALL_READING;
	rc = rpcrdma_ep_xfer_start(k->c->ep, &k->xfer);
	if (rc == 0)
		STAT_INC(k->c, read_chunks);
	return rc;
}

/*
 * The reads of k are in: rebuild the RPC message
 * (rpcrdma_call_read_pieces, checked by call_start_reads). 0, or
 * -EMSGSIZE (the caller answers ERR_CHUNK).
 */
static int call_finish_reads(struct svc_call *k)
{
	struct rpcrdma_piece pieces[RPCRDMA_MAX_READ_SEGS];
	const uint8_t *inl;
	size_t inl_len, need;
	uint32_t npieces;

	if (rpcrdma_call_read_pieces(&k->hdr, k->rx.data + k->hlen,
				     k->rx.len - k->hlen, k->rdbuf, pieces,
				     &npieces, &inl, &inl_len))
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
	    grow(k->c, &k->callbuf, &k->callcap, need))
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

/* Starts k's Reads; a call they cannot start for is answered. */
static void call_read(struct svc_call *k)
{
	struct svc_conn *c = k->c;
	int rc = call_start_reads(k);

	if (rc == -EMSGSIZE) {
		/* More than the engine moves in one transfer. */
		call_send_error(k, RPCRDMA_ERR_CHUNK);
	} else if (rc == -EDQUOT) {
		/* Their sink would pass the locked-memory limit: this call
		 * cannot be read now; the connection and its others go on
		 * (RFC 8166 section 4.5.3, a responder resource). */
		STAT_INC(c, memlock_refusals);
		call_send_error(k, RPCRDMA_ERR_CHUNK);
	} else if (rc) {
		conn_fail(c, RPCRDMA_CLOSE_INTERNAL, rc);
		call_put(k);
	}
}

/* The bytes k's buffers must grow by for its Reads and rebuilt call. */
static size_t call_read_growth(const struct svc_call *k)
{
	size_t g = 0;

	if (k->rdtotal > k->rdcap)
		g += (size_t)k->rdtotal - k->rdcap;
	if (k->splice_len > k->callcap)
		g += k->splice_len - k->callcap;
	return g;
}

/*
 * Whether k may start its Reads under c's cap (mem_max set): what its
 * buffers grow by fits, once what no call uses is given back; or no
 * other call holds anything, so that the cap, at least max_msg, never
 * blocks the only holder. The grant (RFC 8166 section 3.3.1) bounds how
 * many calls a client has in progress, not their bytes; section 4.5.3
 * would let us answer ERR_CHUNK for chunks we lack the resources for,
 * but a call that fits once the others finish waits instead (conn_recv
 * starts it then), so a client is slowed, never failed.
 */
static bool conn_mem_admit(struct svc_conn *c, struct svc_call *k)
{
	size_t g = call_read_growth(k);

	if (c->mem_used + g <= c->mem_max)
		return true;
	conn_mem_trim(c, k);
	return c->mem_used + g <= c->mem_max || c->mem_used == call_mem(k);
}

/* Calls waiting for memory start their Reads, in their order, as far
 * as the memory given back goes. */
static void conn_mem_resume(struct svc_conn *c)
{
	struct svc_call *k;

	while ((k = c->mwait) && !c->dead && conn_mem_admit(c, k)) {
		c->mwait = k->next;
		if (!c->mwait)
			c->mwait_tail = NULL;
		k->next = NULL;
		k->state = CALL_READING;
		call_read(k);
	}
}

/*
 * Whether the ready queue's head waits before its dispatch, c being over
 * its cap or calls waiting for memory: only a call whose reply may grow
 * (it offered write or reply chunks: without them the reply goes inline,
 * its stream held to the inline threshold, svc_send.c), and only while
 * replies already posted hold memory, which their completions give back
 * (conn_stat then brings us back). With none, nothing but this call's
 * progress would free memory: it goes. Calls keep their order.
 */
static bool conn_mem_hold(struct svc_conn *c)
{
	struct svc_call *k = c->ready;

	if (!k->hdr.has_reply && !k->hdr.nwrites)
		return false;
	if (!conn_mem_trim(c, NULL) || (c->mem_used <= c->mem_max && !c->mwait))
		return false;
	call_count_mem_wait(k);
	return true;
}

/* The fast path's test: a compare or two unless over the cap. */
static bool conn_ready_held(struct svc_conn *c)
{
	c->mem_held = c->mem_max && (c->mem_used > c->mem_max || c->mwait) &&
		      conn_mem_hold(c);
	return c->mem_held;
}

/*
 * Takes one received message into k: answered with RDMA_ERROR or dropped
 * (k freed), ready for dispatch (inline, or answered GARBAGE_ARGS),
 * waiting for its RDMA Reads, or waiting for memory to start them. What
 * to do is rpcrdma_rsp_recv's decision on the bytes alone (lib/recv.c:
 * RFC 8166 sections 4.2, 4.5 and 5); here are its effects.
 */
static void call_take(struct svc_call *k)
{
	struct svc_conn *c = k->c;
	struct rpcrdma_rsp_verdict v;

	rpcrdma_rsp_recv(k->rx.data, k->rx.len, &c->lim, c->max_msg,
			 rpcrdma_ep_can_read(c->ep), &k->hdr, &v);
	k->hlen = v.hlen;
	if (v.herr != RPCRDMA_HDR_OK)
		STAT_INC(c, bad_headers);
	else if (k->hdr.proc == RPCRDMA_MSG)
		STAT_INC(c, recv_msg);
	else if (k->hdr.proc == RPCRDMA_NOMSG)
		STAT_INC(c, recv_nomsg);
	switch (v.action) {
	case RPCRDMA_RSP_DROP:
		call_put(k);
		return;
	case RPCRDMA_RSP_ERROR_IN:
		conn_count_error_recv(c, &k->hdr);
		call_put(k);
		return;
	case RPCRDMA_RSP_ANSWER:
		/* RFC 8166 section 4.5.3: chunks we cannot process. */
		call_send_error(k, v.err);
		return;
	case RPCRDMA_RSP_GARBAGE:
		/* Section 4.5.2: the inline part alone is parsed, for the
		 * RPC header the GARBAGE_ARGS reply needs. */
		k->garbage = true;
		/* fall through */
	case RPCRDMA_RSP_INLINE:
		k->msg = k->rx.data + v.off;
		k->msg_len = v.len;
		ready_push(c, k);
		return;
	case RPCRDMA_RSP_READ:
		break;
	}
	k->rdtotal = v.read_total;
	k->splice_len = v.splice_len;
	/* Behind calls already waiting, or over the cap: wait. */
	if (c->mem_max && (c->mwait || !conn_mem_admit(c, k))) {
		call_wait_mem(k);
		return;
	}
	call_read(k);
}

/* Moves on the transfers that finished: reads make calls ready, sends
 * free their call. One batch, taken at once: a transfer that finishes
 * while it is handled (an ERR_CHUNK's Send, done when posted) waits for
 * the next call here, which conn_recv's loop, conn_pump and conn_state's
 * look at finished transfers bring. */
static void conn_reap_xfers(struct svc_conn *c)
{
	struct rpcrdma_xfer *x, *next;

	for (x = rpcrdma_ep_xfers_done(c->ep); x; x = next) {
		struct svc_call *k = x->owner;

		next = x->next;	/* x may go with k below */
		x->next = NULL;
		if (x->status) {
			/* The connection is gone or the peer's segments
			 * failed us (bad rkey): nothing on it completes. */
			conn_fail(c, RPCRDMA_CLOSE_CHUNKS, x->status);
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
		conn_fail(c, RPCRDMA_CLOSE_CREDITS, -EPROTO);
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

void conn_flush_held(struct svc_conn *c)
{
	if (!c->nheld)
		return;
	rpcrdma_ep_xfer_flush(c->ep);
	c->nheld = 0;
	/* A reply that is a Send alone, or whose Writes were bounced, is
	 * done once posted: its context comes back now, not at the next
	 * wake-up, which its unsignaled Send would not cause. */
	conn_reap_xfers(c);
}

/*
 * A dispatch function of c waits for a backward reply: nobody else
 * serves c meanwhile, so its own thread moves c on, as conn_recv would,
 * for up to ms (forward calls arriving meanwhile wait in the ready queue
 * for the dispatch to end). The replies held before it go first: the
 * client may wait for them to answer the backward call (NFSv4.1's
 * referring calls).
 */
void conn_pump(struct svc_conn *c, int ms)
{
	struct rpcrdma_rx rx;
	int rc;

	conn_flush_held(c);
	conn_reap_xfers(c);
	if (c->mwait)
		conn_mem_resume(c);
	if (c->dead) {
		bc_kill(c->bc);
		return;
	}
	if (!c->free) {
		/* Only replies whose Writes are not yet reaped hold the
		 * contexts. */
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

/*
 * libtirpc's xp_recv: moves the connection's calls on (finished reads,
 * finished replies, new messages) and hands over the next ready call.
 * Bounded: at most SVC_BURST messages per call, so that one busy or
 * hostile connection cannot hold svc_run (conn_stat brings it back).
 */
bool_t conn_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_conn *c = to_conn(xprt);
	struct svc_call *k;
	struct rpcrdma_rx rx;
	unsigned int budget = SVC_BURST;
	int rc;

	bc_dispatching(c, false);
	conn_end_serving(c);
	conn_close_pending(c);
	/* Held by svc_run's thread before a pool took the connection over
	 * (rpcrdma_svc_run started meanwhile): a worker posts them. */
	if (c->nheld && pool_in_worker())
		conn_flush_held(c);
	/* After a poll of the fd, what woke it. Called again at once
	 * because conn_stat said XPRT_MOREREQS (rounds), there is work
	 * queued already: the channels wait for the next poll, which a
	 * kick or the stall timer makes return at once. */
	if (c->rounds == 0) {
		rpcrdma_ep_look(c->ep);
		rpcrdma_ep_unkick(c->ep);
		rpcrdma_ep_check_stall(c->ep);
	}
	while (!c->dead) {
		conn_reap_xfers(c);
		/* Sends reaped gave memory back: calls waiting for it go
		 * first, in order. */
		if (c->mwait)
			conn_mem_resume(c);
		while (c->ready && !conn_ready_held(c)) {
			k = ready_pop(c);
			if (!call_parse(k, msg))
				continue;
			if (k->garbage) {
				conn_reply_garbage(c);
				continue;
			}
			pool_call_begin();
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
			if ((c->ready && !c->mem_held) ||
			    rpcrdma_ep_xfers_ready(c->ep))
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

bool_t conn_getargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
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

bool_t conn_freeargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	XDR x;

	(void)xprt;
	memset(&x, 0, sizeof(x));
	x.x_op = XDR_FREE;
	return (*xargs)(&x, argsp);
}
