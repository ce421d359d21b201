/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reply side of a connection (libtirpc's xp_reply): the reply
 * encoded (tirpc.c's xprt_reply_encode into a growable stream), planned
 * into inline runs, write chunks and a reply chunk (lib/plan.c), and
 * started as one transfer, its RDMA Writes with the Send of its header
 * chained behind them, never waited on; RDMA_ERROR; GARBAGE_ARGS for a
 * call refused for its chunks; the credit grant of every reply.
 *
 * Flow control (RFC 8166 section 3.3.1): the grant is min(requested, our
 * maximum), bounded by the receives the engine provisioned; it does not
 * move with the calls queued. A client found with more calls outstanding
 * move with the calls queued (svc_recv.c disconnects a client found
 * with more calls outstanding than it was ever granted). A reply or
 * RDMA_ERROR that cannot be sent closes the connection: the requester
 * would otherwise wait for it forever.
 */
#include <errno.h>
#include <string.h>
#include <rpcrdma/plan.h>
#include "lib/chunks.h"
#include "svc_conn.h"

/* A reply or RDMA_ERROR that could not go out ends the connection. */
static void conn_send_failed(struct svc_conn *c, int err)
{
	if (err != -ENOTCONN && !c->dead)
		STAT_INC(c, send_failures);
	conn_fail(c, RPCRDMA_CLOSE_SEND, err);
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
		conn_fail(c, RPCRDMA_CLOSE_INTERNAL, rc);
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
	k->xfer.defer = pool_thread_dirty();
	/* svc_run's thread with more calls of this connection ready: the
	 * reply waits for theirs, and they all go with one doorbell (a
	 * system call on rxe and siw) when the connection's turn ends
	 * (conn_stat), or SVC_HOLD_MAX of them are held, or a dispatch
	 * waits for a backward reply (conn_pump). Never when nothing else
	 * is ready and none is held, so a lone call's reply goes at once;
	 * the last of a batch is held too, to go with the others. */
	k->xfer.hold = !k->xfer.defer && !pool_in_worker() &&
		       (c->nheld || c->ready || rpcrdma_ep_rx_pending(c->ep));
	rc = rpcrdma_ep_xfer_start(c->ep, &k->xfer);
	if (!rc && k->xfer.hold && ++c->nheld >= SVC_HOLD_MAX) {
		/* Posted now; reaped (their contexts back) by the next
		 * xp_recv, which conn_stat's look at finished transfers
		 * brings. */
		rpcrdma_ep_xfer_flush(c->ep);
		c->nheld = 0;
	}
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
void call_send_error(struct svc_call *k, enum rpcrdma_errcode err)
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

/*
 * Encodes the reply as svc_vc does, letting the auth flavour wrap it.
 * What its stream grew by is counted against the connection's cap
 * (svc_recv.c held the dispatch while it was over).
 */
static bool call_encode_reply(struct svc_call *k, struct rpc_msg *msg)
{
	struct svc_conn *c = k->c;
	XDR *x = &k->reply;
	bool ok;

	if (!k->reply_ok) {
		uint32_t max = c->max_msg;

		if (rpcrdma_xdrgrow_create(x, SVC_REPLY_INITIAL < max ?
					   SVC_REPLY_INITIAL : max, max))
			return false;
		k->reply_ok = true;
	}
	rpcrdma_xdrgrow_reset(x);
	/* Items are noted only when the call offered write chunks. */
	rpcrdma_xdrgrow_set_ddp(x, k->hdr.nwrites ? c->ddp_min : 0);
	/* Without write or reply chunks the reply must go inline (RFC 8166
	 * section 3.5.4; else ERR_CHUNK): its stream need never grow past
	 * the inline threshold, and svc_recv.c never holds such a call's
	 * dispatch for memory of its own. */
	rpcrdma_xdrgrow_set_max(x, k->hdr.nwrites || k->hdr.has_reply ?
				c->max_msg :
				rpcrdma_ep_inline(c->ep)->send_max);
	msg->rm_xid = k->hdr.xid;
	ok = xprt_reply_encode(&c->xprt, x, msg);
	call_mem_reply(k);
	return ok;
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
		call_mem_reply(k);
		if (err)
			return err;
	}
	body = rpcrdma_xdrgrow_buf(&k->reply, &len);
	rpcrdma_msg_init(&m, k->hdr.xid, grant,
			 nomsg ? RPCRDMA_NOMSG : RPCRDMA_MSG);
	err = rpcrdma_reply_add_writes(&k->hdr, &m, used);
	if (err)
		return err;
	x->local = body;
	x->len = x->nparts ? len : 0;
	if (nomsg) {
		const struct rpcrdma_chunk *rc = &k->hdr.reply;
		const struct rpcrdma_segment *segs = &k->hdr.segs[rc->first];
		struct rpcrdma_xfer_part *p = &x->parts[x->nparts++];

		err = rpcrdma_reply_add_reply_chunk(&k->hdr, &m,
						    plan->remainder_len);
		if (err)
			return err;
		p->off = rem_off;
		p->len = plan->remainder_len;
		p->segs = segs;
		p->nsegs = rc->nsegs;
		x->len = rem_off + plan->remainder_len;
	} else {
		/* An offered reply chunk goes back unused, length 0
		 * (rpcrdma_plan_reply counted it in the header). */
		if (k->hdr.has_reply) {
			err = rpcrdma_reply_add_reply_chunk(&k->hdr, &m, 0);
			if (err)
				return err;
		}
		for (i = 0; i < plan->nextents; i++) {
			runs[nruns].iov_base = body + plan->extents[i].offset;
			runs[nruns].iov_len = plan->extents[i].length;
			nruns++;
		}
	}
	x->inv_rkey = rpcrdma_reply_inv_rkey(
		&k->hdr, rpcrdma_ep_inline(k->c->ep)->peer_remote_inv);
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

bool_t conn_reply(SVCXPRT *xprt, struct rpc_msg *msg)
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
	if (rc == -EDQUOT) /* its Writes' source: the locked-memory limit */
		STAT_INC(c, memlock_refusals);
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

/* Answers the call being parsed, refused for its chunks, with
 * GARBAGE_ARGS (RFC 5531: MSG_ACCEPTED, a null verifier) through the
 * reply path, so the offered chunks are echoed as for any reply. */
void conn_reply_garbage(struct svc_conn *c)
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
