/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building and sending a call: its encoding into its slot (ct_encode),
 * the per-procedure hints that size its reply chunk and write chunks
 * (CLSET_RDMA_PROC_REPLY, CLSET_RDMA_PROC_DDP), the choice of how it
 * travels (ct_plan), and the steps of sending it (ct_plan_call to
 * ct_post, sequenced by ct_call_send in clnt_call.c), which size the
 * chunks, have clnt_expose.c make them reachable, build the transport
 * header and post the Send.
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
#include "lib/chunks.h"

/* The call header, the procedure and libtirpc's AUTH_NONE credential and
 * verifier (flavour 0, no bytes, twice: RFC 5531 sections 8.1 and 9),
 * written in place: what XDR_PUTBYTES, XDR_PUTINT32 and authnone_marshal
 * (which takes a lock of libtirpc's) wrote, in a fifth of the
 * instructions. false when cl_auth is another or the stream gives no
 * direct access. */
static bool ct_encode_plain(const struct ct *ct, const AUTH *auth,
			    struct ct_slot *s,
			    const uint8_t hdr[CT_CALLHDR_LEN], int32_t proc)
{
	int32_t *p;

	if (auth->ah_ops != ct->none_ops)
		return false;
	p = XDR_INLINE(&s->xdr, CT_CALLHDR_LEN + 5 * BYTES_PER_XDR_UNIT);
	if (!p)
		return false;
	memcpy(p, hdr, CT_CALLHDR_LEN);
	p += CT_CALLHDR_LEN / BYTES_PER_XDR_UNIT;
	p[0] = (int32_t)htonl((uint32_t)proc);
	p[1] = p[2] = p[3] = p[4] = 0;	/* AUTH_NONE, 0; AUTH_NONE, 0 */
	return true;
}

/* Encodes the call into the slot: header (hdr, its XID set: copied
 * under ct->lock with the slot, since CLSET_PROG/VERS may change it),
 * procedure, credentials, args. */
bool ct_encode(struct ct *ct, struct ct_slot *s,
	       const uint8_t hdr[CT_CALLHDR_LEN], rpcproc_t proc,
	       xdrproc_t xargs, void *argsp)
{
	AUTH *auth = ct->clnt.cl_auth;
	int32_t p = (int32_t)proc;
	bool locked = ct_auth_locked(ct, auth);
	bool ok;

	if (locked)
		pthread_mutex_lock(&ct->auth_lock);
	rpcrdma_xdrgrow_set_ddp(&s->xdr, 0);
	rpcrdma_xdrgrow_set_zc(&s->xdr, 0);
	ok = ct_encode_plain(ct, auth, s, hdr, p) ||
	     (XDR_PUTBYTES(&s->xdr, (char *)hdr, CT_CALLHDR_LEN) &&
	      XDR_PUTINT32(&s->xdr, &p) && AUTH_MARSHALL(auth, &s->xdr));
	/* Items are the arguments' only: the header and credentials are
	 * not DDP-eligible (RFC 8166 section 3.4.2). */
	rpcrdma_xdrgrow_set_ddp(&s->xdr, ct->opts.ddp_threshold);
	if (ct_auth_stateless(auth)) {
		/* Their WRAP encodes the arguments themselves, from the
		 * caller's memory: large items may stay there. Other
		 * flavours wrap from buffers of their own. */
		rpcrdma_xdrgrow_set_zc(&s->xdr, ct->opts.zc_threshold);
		if (locked)
			pthread_mutex_unlock(&ct->auth_lock);
		return ok && AUTH_WRAP(auth, &s->xdr, xargs, argsp);
	}
	/* A flavour with state (RPCSEC_GSS: the sequence number MARSHALL
	 * took) wraps the arguments with that state: no other call's
	 * MARSHALL in between. */
	ok = ok && AUTH_WRAP(auth, &s->xdr, xargs, argsp);
	if (locked)
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
 * The call's marshalling, in the steps the kernel's rpcrdma_marshal_req
 * takes, each 0 or -errno, called in this order by ct_call_send
 * (clnt_call.c), which notes where each failed for ct_call_stat:
 * ct_plan_call and ct_plan_reply decide sizes, ct_expose_items,
 * ct_expose_windows and ct_expose_regs make the chunks reachable (read
 * chunks, DDP items or the whole Long Call, readable through the call's
 * window or a registration of it; write chunks and the reply chunk
 * writable through the slot's window over its reply buffer or a
 * registration of it), ct_encode_hdr builds the transport header and
 * ct_post binds the windows and sends.
 */

/* Plan: write chunks, the inline room and how the call travels. */
int ct_plan_call(struct ct *ct, struct rpcrdma_ep *ep, struct ct_slot *s,
		 struct ct_marshal *mm)
{
	const struct rpcrdma_inline *inl = rpcrdma_ep_inline(ep);
	uint32_t wsegs[RPCRDMA_MAX_WRITE_CHUNKS], i;
	size_t lists;

	/* Write chunks (section 3.4.6), one segment each; none when the
	 * reply's bound with its items in fits inline anyway. */
	s->nwrites = s->ddp_items;
	if (s->nwrites && s->reply_hint &&
	    s->reply_hint + (uint64_t)s->nwrites *
				    rpcrdma_xdr_roundup(s->ddp_max) <=
		    inl->recv_max - RPCRDMA_HDR_MIN)
		s->nwrites = 0;
	mm->wbytes = (uint64_t)s->nwrites * rpcrdma_xdr_roundup(s->ddp_max);
	s->reply_area = (uint32_t)(s->reply_cap - mm->wbytes);
	for (i = 0; i < s->nwrites; i++)
		wsegs[i] = 1;
	/* What an inline reply leaves for the RPC message: the responder's
	 * header echoes the write list (section 3.3.2). */
	mm->inline_room =
	    inl->recv_max - rpcrdma_hdr_size_for(0, s->nwrites, wsegs, 0);
	/* Read list terminator excluded: the plan adds the read list. */
	lists = rpcrdma_hdr_size_for(0, s->nwrites, wsegs, 1) -
		RPCRDMA_HDR_FIXED - 4;
	return ct_plan(ct, s, inl->send_max, lists, &mm->plan);
}

/* Expose: the zero-copy items; a Long Call's rest gathered behind it. */
int ct_expose_items(struct ct *ct, struct rpcrdma_ep *ep, struct ct_slot *s,
		    struct ct_marshal *mm)
{
	struct rpcrdma_call_plan *plan = &mm->plan;
	size_t rpc_len, goff;
	int rc;

	mm->rpc = rpcrdma_xdrgrow_buf(&s->xdr, &rpc_len);
	ct_zc_expose(ct, ep, s, plan, mm->zc);
	mm->call_len = rpc_len;
	if (plan->kind != RPCRDMA_CALL_LONG_READ)
		return 0;
	/* The rest of the call, gathered behind it into the run that the
	 * position-zero chunk carries (the buffer may move). */
	rc = rpcrdma_xdrgrow_gather(&s->xdr, plan->extents, plan->nextents,
				    &goff);
	if (rc)
		return rc;
	mm->rpc = rpcrdma_xdrgrow_buf(&s->xdr, &rpc_len);
	plan->chunks[0].offset = (uint32_t)goff;
	mm->call_len = goff + plan->inline_len;
	plan->nextents = 0;
	return 0;
}

/* Plan: the reply chunk, and where the write chunks sit. */
int ct_plan_reply(struct ct *ct, struct rpcrdma_ep *ep, struct ct_slot *s,
		  struct ct_marshal *mm)
{
	const struct rpcrdma_inline *inl = rpcrdma_ep_inline(ep);
	uint64_t room, read_bytes = 0;
	uint32_t i;

	mm->ncopied = 0;
	for (i = 0; i < mm->plan.nchunks; i++) {
		read_bytes += mm->plan.chunks[i].length;
		mm->ncopied += !mm->zc[i];
	}
	/*
	 * The responder bounds the sum of all chunk lengths in a header
	 * (max_chunk_bytes of rpcrdma_limits, the same default on both sides
	 * of this library): the reply chunk gets what the others leave.
	 */
	room = ct->limits.max_chunk_bytes;
	/* A call larger than that goes all the same: only the server knows
	 * what it takes (ERR_CHUNK beyond it); no reply chunk rides along. */
	room =
	    read_bytes + mm->wbytes < room ? room - read_bytes - mm->wbytes : 0;
	if (room > s->reply_area)
		room = s->reply_area;
	/* The reply chunk offered (RFC 8166 section 3.5.4): lib/plan.c. */
	s->reply_chunk = rpcrdma_call_reply_chunk(s->reply_hint,
						  mm->inline_room, room,
						  ct->opts.max_msg);
	if (s->reply_hint > mm->inline_room && s->reply_chunk < s->reply_hint)
		/* What the other chunks leave cannot hold the hinted reply:
		 * fail now rather than after the server ran the call. */
		return -EMSGSIZE;
	/* The write chunks sit behind the inline reply and the reply
	 * chunk (reply_area >= inline_recv leaves room for both). */
	s->wbase = rpcrdma_xdr_roundup(s->reply_chunk > inl->recv_max ?
					       s->reply_chunk : inl->recv_max);
	mm->expose = s->nwrites ? s->wbase + mm->wbytes : s->reply_chunk;
	return 0;
}

/*
 * Expose: the windows over the reply buffer and the call. -EAGAIN when
 * this connection cannot carry the call: once we set R the responder may
 * invalidate the rkey when a call names only one (the Linux server does
 * even when its own R is clear), so what the call exposes must be
 * windows, never a registration (an MR cannot be invalidated remotely;
 * the QP would fail). -EDQUOT: the locked-memory limit (ct_pin_wait).
 */
int ct_expose_windows(struct ct *ct, struct rpcrdma_ep *ep, struct ct_slot *s,
		      struct ct_marshal *mm)
{
	int rc;

	mm->use_win = false;
	mm->use_cwin = false;
	if (mm->expose) {
		rc = ct_window(ct, ep, &s->win, s->reply_buf, s->reply_cap,
			       s->reply_cap, RPCRDMA_ACCESS_REMOTE_WRITE);
		if (rc < 0)
			return rc;
		mm->use_win = rc;
	}
	if (mm->ncopied) {
		rc = ct_window(ct, ep, &s->call_win, mm->rpc, mm->call_len,
			       rpcrdma_xdrgrow_cap(&s->xdr),
			       RPCRDMA_ACCESS_REMOTE_READ);
		if (rc < 0)
			return rc;
		mm->use_cwin = rc;
	}
	if (!rpcrdma_ep_inline(ep)->remote_inv_in)
		return 0;
	return (mm->expose && !mm->use_win) || (mm->ncopied && !mm->use_cwin)
		   ? -EAGAIN
		   : 0;
}

/* Expose: registrations where there is no window; the reply's rkey. */
int ct_expose_regs(struct rpcrdma_ep *ep, struct ct_slot *s,
		   struct ct_marshal *mm)
{
	int rc;

	/* Made once per call: a second try after -EDQUOT keeps the first
	 * one's. */
	if (mm->expose && !mm->use_win && !s->reply_mr) {
		rc = rpcrdma_ep_reg(ep, s->reply_buf, (size_t)mm->expose,
				    RPCRDMA_ACCESS_REMOTE_WRITE, &s->reply_mr);
		if (rc)
			return rc;
	}
	mm->rkey = 0;
	if (mm->expose)
		mm->rkey = mm->use_win ? rpcrdma_win_next_rkey(s->win)
				       : rpcrdma_mr_rkey(s->reply_mr);
	if (mm->ncopied && !mm->use_cwin && !s->call_mr)
		return rpcrdma_ep_reg(ep, mm->rpc, mm->call_len,
				      RPCRDMA_ACCESS_REMOTE_READ, &s->call_mr);
	return 0;
}

/* Encode: the read list, DDP items and the Long Call's run. */
static int ct_encode_reads(struct ct_slot *s, struct ct_marshal *mm,
			   struct rpcrdma_msg *m)
{
	const struct rpcrdma_call_plan *plan = &mm->plan;
	struct rpcrdma_segment seg;
	int rc;

	for (uint32_t i = 0; i < plan->nchunks; i++) {
		uint32_t k = mm->zc[i] - 1u;

		seg.length = plan->chunks[i].length;
		if (mm->zc[i]) {
			seg.handle = s->zc_win[k] ?
				rpcrdma_win_next_rkey(s->zc_win[k]) :
				rpcrdma_mr_rkey(s->zc_mr[k]);
			seg.offset = (uint64_t)(uintptr_t)s->zc_addr[k];
		} else {
			seg.handle = mm->use_cwin
					 ? rpcrdma_win_next_rkey(s->call_win)
					 : rpcrdma_mr_rkey(s->call_mr);
			seg.offset =
			    (uint64_t)(uintptr_t)(mm->rpc +
						  plan->chunks[i].offset);
		}
		rc = rpcrdma_msg_add_read(m, plan->chunks[i].position, &seg);
		if (rc)
			return rc;
	}
	return 0;
}

/* Encode: the transport header (lib/hdr.c's builders) into mm->hbuf. */
int ct_encode_hdr(struct ct *ct, struct ct_slot *s, struct ct_marshal *mm)
{
	enum rpcrdma_call_kind kind = mm->plan.kind;
	bool nomsg =
	    kind == RPCRDMA_CALL_LONG || kind == RPCRDMA_CALL_LONG_READ;
	struct rpcrdma_segment seg;
	struct rpcrdma_msg m;
	int rc;

	rpcrdma_msg_init(&m, s->xid, ct->opts.credits,
			 nomsg ? RPCRDMA_NOMSG : RPCRDMA_MSG);
	rc = ct_encode_reads(s, mm, &m);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < s->nwrites; i++) {
		int idx = rpcrdma_msg_add_write_chunk(&m);

		s->wsegs[i].handle = mm->rkey;
		s->wsegs[i].length = s->ddp_max;
		s->wsegs[i].offset = (uint64_t)(uintptr_t)slot_write_area(s, i);
		rc = idx < 0 ? idx : rpcrdma_msg_add_write_seg(&m, (uint32_t)idx,
							       &s->wsegs[i]);
		if (rc)
			return rc;
	}
	if (s->reply_chunk) {
		seg.handle = mm->rkey;
		seg.length = s->reply_chunk;
		seg.offset = (uint64_t)(uintptr_t)s->reply_buf;
		s->reply_seg = seg;
		rc = rpcrdma_msg_add_reply_seg(&m, &seg);
		if (rc)
			return rc;
	}
	return rpcrdma_hdr_encode(&m, mm->hbuf, sizeof(mm->hbuf), &mm->hlen);
}

/*
 * Post: the slot waits for its reply from now on; counted. Without
 * ct->lock (one acquisition fewer per call, at 32 in flight one futex
 * wait in four): the owner alone leaves SLOT_OWNED, and whoever looks at
 * the slot under the lock meanwhile (ct_break, a poller's dispatch or
 * revocation scan) takes an owned slot and a waiting one whose Send is
 * not out yet alike: neither has a reply to take, and a reset seen by
 * neither is seen by the owner's wait (ct->broken). ep: the call's
 * endpoint (ct->ep, which cannot change while the slot is owned).
 */
static void ct_post_count(struct rpcrdma_ep *ep, struct ct_slot *s,
			  const struct ct_marshal *mm)
{
	s->state = SLOT_WAITING;
	switch (mm->plan.kind) {
	case RPCRDMA_CALL_LONG:
	case RPCRDMA_CALL_LONG_READ:
		RPCRDMA_STAT_ADD(ep, calls_long, 1);
		RPCRDMA_STAT_ADD(ep, sent_nomsg, 1);
		break;
	case RPCRDMA_CALL_READ:
		RPCRDMA_STAT_ADD(ep, calls_read_chunks, 1);
		RPCRDMA_STAT_ADD(ep, sent_msg, 1);
		break;
	default:
		RPCRDMA_STAT_ADD(ep, calls_inline, 1);
		RPCRDMA_STAT_ADD(ep, sent_msg, 1);
		break;
	}
	RPCRDMA_STAT_ADD(ep, read_chunks, mm->plan.nchunks);
	RPCRDMA_STAT_ADD(ep, zc_chunks, s->nzc);
	RPCRDMA_STAT_ADD(ep, write_chunks, s->nwrites);
	if (s->reply_chunk)
		RPCRDMA_STAT_ADD(ep, reply_chunks, 1);
}

/* Post: the windows to bind with the Send; returns their count. */
static uint32_t ct_post_binds(const struct ct_slot *s,
			      const struct ct_marshal *mm,
			      struct rpcrdma_bind *binds)
{
	uint32_t nb = 0;

	if (mm->use_cwin) {
		binds[nb].w = s->call_win;
		binds[nb].len = mm->call_len;
		binds[nb++].access = RPCRDMA_ACCESS_REMOTE_READ;
	}
	if (mm->use_win) {
		binds[nb].w = s->win;
		binds[nb].len = (size_t)mm->expose;
		binds[nb++].access = RPCRDMA_ACCESS_REMOTE_WRITE;
	}
	for (uint32_t i = 0; i < s->nzc; i++) {
		if (!s->zc_win[i])
			continue;
		binds[nb].w = s->zc_win[i];
		binds[nb].len = s->zc_len[i];
		binds[nb++].access = RPCRDMA_ACCESS_REMOTE_READ;
	}
	return nb;
}

/* Post: binds the windows and sends the header and the inline extents,
 * waiting for send queue room no later than the call's deadline dl. */
int ct_post(struct ct *ct, struct rpcrdma_ep *ep, struct ct_slot *s,
	    struct ct_marshal *mm, const struct timespec *dl)
{
	struct iovec iov[RPCRDMA_PLAN_MAX_ITEMS + 2];
	struct rpcrdma_bind binds[RPCRDMA_MAX_BINDS];
	uint32_t i, nb, niov = 1;
	int rc, ms;

	iov[0].iov_base = mm->hbuf;
	iov[0].iov_len = mm->hlen;
	for (i = 0; i < mm->plan.nextents; i++) {
		iov[niov].iov_base = mm->rpc + mm->plan.extents[i].offset;
		iov[niov].iov_len = mm->plan.extents[i].length;
		niov++;
	}
	nb = ct_post_binds(s, mm, binds);
	s->sent_us = xprt_now_us();
	ct_post_count(ep, s, mm);
	ms = xprt_ms_left_at(dl, s->sent_us);	/* no second clock read */
	if (nb)
		rc = rpcrdma_ep_send_bind(ep, iov, (int)niov, binds, nb, ms);
	else
		rc = rpcrdma_ep_send_within(ep, iov, (int)niov, 0, ms);
	if (rc) {
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
}
