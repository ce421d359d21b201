/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The floor of the client: what a slot holds for its next call
 * (slot_prepare), the reset that fails or drops every call on a broken
 * connection (ct_break), the poller role's hand-over (ct_poller_leave)
 * and the counters kept across connections (stats_add). It calls no other client file; the smallest slot helpers,
 * which every step uses on every call, are static inline in clnt.h.
 *
 * Many threads may call on one CLIENT at once. Each call holds a credit
 * (RFC 8166 section 3.3.1) and a slot (its encoder, its reply buffer, its
 * memory registrations). A reset closes the connection at once, so that
 * no window stays reachable.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "clnt.h"

void stats_add(struct rpcrdma_stats *acc, const struct rpcrdma_stats *s)
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

/*
 * The connection is gone: every call waiting fails with ENOTCONN, the
 * abandoned ones are dropped, and the next call reconnects once nobody
 * uses the endpoint any more.
 */
void ct_break(struct ct *ct)
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
	ct_cv_broadcast(ct);
}

/*
 * Gives the poller role up (ct->lock held): one caller asleep on a reply
 * that has not come takes it over, woken alone; whoever waits on ct->cv
 * (a credit, the connection, the backward service) is told too, which
 * costs nothing when nobody does.
 */
void ct_poller_leave(struct ct *ct)
{
	ct->polling = false;
	for (uint32_t i = 0; ct->nsleeping && i < ct->nslots; i++) {
		struct ct_slot *s = &ct->slots[i];

		if (s->sleeping && s->state == SLOT_WAITING) {
			slot_wake_mark(ct, s);
			sem_post(&s->wake);
			break;
		}
	}
	ct_cv_broadcast(ct);
}

/*
 * The XID of s's next call (ct->lock held, s taken): the next counter
 * value that no other slot's call holds. RFC 5531 section 9: an XID
 * names one call, and replies are matched by it alone (slot_by_xid). A
 * call reusing the XID of one in flight, or of one abandoned whose late
 * reply may still come, would take that reply as its own or lose its
 * own to it, and a server's duplicate request cache could answer it
 * with the other's results: CLSET_XID can set such a value, and the
 * counter meets old ones after 2^32 calls (198abdf review #20). At most
 * nslots values are skipped; with no other call out, or before either
 * can have happened, none is looked at (the fast path pays a compare).
 */
uint32_t ct_next_xid(struct ct *ct, const struct ct_slot *s)
{
	uint32_t xid = atomic_fetch_add(&ct->next_xid, 1);
	uint32_t i = 0;

	if (ct->credits.inflight <= 1 ||
	    (!ct->xid_set && ++ct->xids_issued < (1ull << 32)))
		return xid;
	while (i < ct->nslots) {
		const struct ct_slot *o = &ct->slots[i];

		if (o != s && o->state != SLOT_FREE && o->xid == xid) {
			xid = atomic_fetch_add(&ct->next_xid, 1);
			i = 0;
			continue;
		}
		i++;
	}
	return xid;
}

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
int slot_prepare(struct ct *ct, struct ct_slot *s)
{
	size_t cap = ct->opts.max_msg, need;

	/* A wake-up meant for the slot's last call (clnt.h). */
	while (sem_trywait(&s->wake) == 0)
		;

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
		/*
		 * Zeroed, not realloc'ed: a server that claims more bytes
		 * in the reply or a write chunk than its RDMA Writes put
		 * there (which the client cannot see, RFC 8166 section
		 * 3.4.6) makes the call decode what the buffer held, which
		 * must never be uninitialised heap (198abdf review #16).
		 * What it holds otherwise came from this connection's
		 * server (ct_detach lets the buffers go). The old bytes are
		 * not needed; calloc gets large buffers as zero pages,
		 * without a memset, and small calls never come here.
		 */
		uint8_t *nb = calloc(1, need);

		if (!nb)
			return -ENOMEM;
		free(s->reply_buf);
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
