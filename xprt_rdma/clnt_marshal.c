/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building and sending a call: its encoding into its slot (ct_encode),
 * the per-procedure hints that size its reply chunk and write chunks
 * (CLSET_RDMA_PROC_REPLY, CLSET_RDMA_PROC_DDP), the choice of how it
 * travels (ct_plan), and ct_send, which sizes the chunks, has
 * clnt_expose.c make them reachable, builds the transport header and
 * posts the Send.
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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "clnt.h"

/* Encodes the call into the slot: header, procedure, credentials, args. */
bool ct_encode(struct ct *ct, struct ct_slot *s, uint32_t xid,
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
bool ct_set_hint(struct ct *ct, const struct rpcrdma_proc_reply *r)
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
bool ct_set_ddp(struct ct *ct, const struct rpcrdma_proc_ddp *r)
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
 * Exposes what the peer needs, builds the transport header and sends:
 * read chunks (DDP items or the whole Long Call) readable through a
 * registration of the call; write chunks and the reply chunk writable
 * through the slot's window over its reply buffer (or a registration of
 * it). 0 or -errno; the failure's clnt_stat is in *stat.
 */
int ct_send(struct ct *ct, struct rpcrdma_ep *ep, struct ct_slot *s,
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
