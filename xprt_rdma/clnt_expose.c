/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a call lets the server touch, and its revocation: the windows and
 * registrations over a slot's reply buffer, over its call and over the
 * caller's own memory (zero-copy read chunks), made when the call is sent
 * (ct_window, ct_zc_expose, for clnt_marshal.c), and taken back when its
 * reply is in (ct_revoke, ct_flush_invalidations, for the poller in
 * clnt_reply.c) or when its caller gives up (ct_abandon). One file, so
 * that the rule that nothing a call exposed stays reachable once
 * clnt_call returns reads in one place.
 *
 * A call that times out is abandoned: what it exposed is revoked before
 * clnt_call returns (ct_abandon: locally, or by a reset where the server
 * may invalidate remotely), its credit stays taken until the late reply
 * arrives and is dropped, or the connection is reset.
 */
#include <errno.h>
#include <string.h>
#include "clnt.h"

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

bool slot_bound(struct ct_slot *s)
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

/*
 * The reply to s is in: its window must be revoked before the call
 * returns or the slot is reused (ct->lock held). A Send With Invalidate
 * revoked the window it names, whichever slot's it is: a second
 * invalidation of a window crashes rxe. Otherwise the poller, the one
 * thread that reaps, posts a local invalidation; the slot completes once
 * it has (ct_flush_invalidations), so that replies arriving together
 * share one wait. False when posting failed: the connection is reset.
 */
bool ct_revoke(struct ct *ct, struct ct_slot *s,
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

/* Waits for the invalidations posted and completes their slots (ct->lock
 * held, dropped while waiting). */
void ct_flush_invalidations(struct ct *ct)
{
	for (uint32_t i = 0; i < ct->nslots && ct->inv_pending; i++) {
		struct ct_slot *s = &ct->slots[i];
		int rc;

		if (!s->inv_pending)
			continue;
		/* Read by an owner woken without the lock (ct_wait). */
		__atomic_store_n(&s->flushing, true, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&ct->lock);
		rc = slot_invalidate_wait(s);
		pthread_mutex_lock(&ct->lock);
		__atomic_store_n(&s->flushing, false, __ATOMIC_RELEASE);
		ct_cv_broadcast(ct);
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
void ct_abandon(struct ct *ct, struct ct_slot *s)
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
			ct_poller_leave(ct);
			continue;
		}
		/* The poller may sleep in rpcrdma_ep_poll until a message
		 * comes: have it flush now. */
		rpcrdma_ep_wake(ct->ep);
		if (ct_cv_wait(ct, &dl) ==
		    ETIMEDOUT) {
			ct_break(ct);
			break;
		}
	}
}

/*
 * A slot's window on ep over buf[0, len), made at its first use on this
 * connection over cap bytes, and made again when the buffer moved or
 * grew: 1 when it is free to bind, 0 when the chunk must be registered
 * for the call instead (no type-2 windows, or a window still bound after
 * a failure, which a reset will clear), -EDQUOT when making it would pass
 * the locked-memory limit (ct_pin_wait; windows stay in use). access: how
 * it will be bound (the reply's REMOTE_WRITE, the call's REMOTE_READ).
 */
int ct_window(struct ct *ct, struct rpcrdma_ep *ep, struct rpcrdma_win **wp,
	      void *buf, size_t len, size_t cap, enum rpcrdma_access access)
{
	bool off;
	int rc;

	pthread_mutex_lock(&ct->lock);
	off = ct->no_windows;
	pthread_mutex_unlock(&ct->lock);
	if (off)
		return 0;
	if (*wp && !rpcrdma_win_covers(*wp, buf, cap)) {
		/* The buffer moved or grew: a new registration, once (the
		 * old one pinned the old pages, which may be gone). */
		if (rpcrdma_win_bound(*wp))
			return 0;
		rpcrdma_win_destroy(*wp);
		*wp = NULL;
	}
	if (!*wp) {
		rc = rpcrdma_win_create(ep, buf, cap, access, wp);
		if (rc == -EDQUOT)
			return rc;
		if (rc) {
			pthread_mutex_lock(&ct->lock);
			ct->no_windows = true;
			pthread_mutex_unlock(&ct->lock);
			return 0;
		}
	}
	return !rpcrdma_win_bound(*wp);
}

/* Drops the windows of o (an idle slot, or the caller's own before its
 * call is sent) unless bound (ct->lock held); whether it dropped one. */
static bool slot_unpin(struct ct_slot *o)
{
	bool dropped = false;

	if (o->win && !rpcrdma_win_bound(o->win)) {
		rpcrdma_win_destroy(o->win);
		o->win = NULL;
		dropped = true;
	}
	if (o->call_win && !rpcrdma_win_bound(o->call_win)) {
		rpcrdma_win_destroy(o->call_win);
		o->call_win = NULL;
		dropped = true;
	}
	return dropped;
}

/*
 * Whether o, another thread's call, will end and free its slot without
 * waiting for memory itself (its end wakes ct->cv: slot_free). Told by
 * its state alone, which ct->lock guards: what it has registered is its
 * owner's to write without the lock.
 */
static bool slot_busy(const struct ct_slot *o)
{
	return o->state != SLOT_FREE && !o->pin_waiting;
}

/* o may give its windows back now: free, or abandoned with its windows
 * revoked (a timed-out call waits for its late reply holding them, and
 * nobody may poll for that reply while this caller waits). */
static bool slot_idle(const struct ct_slot *o)
{
	return o->state == SLOT_FREE ||
	       (o->state == SLOT_ABANDONED && !o->inv_pending && !o->flushing);
}

/*
 * A registration for s's call would pass the locked-memory limit
 * (RLIMIT_MEMLOCK, engine/pin.c): what the idle slots of this CLIENT pin
 * is given back, or else the caller waits for another call to end, whose
 * memory is then free to take (back-pressure, not a failure: a CLIENT
 * whose calls each fit the limit serves any number of threads). A caller
 * that waits first gives back what its reply and call buffers had made
 * (not yet sent, nothing of it is exposed), so that no two callers each
 * hold part of what the other waits for; its zero-copy registrations
 * stay (the plan names them), and a waiter counts as holding nothing: two
 * such calls may fail where one at a time would fit. 0: try again;
 * -EDQUOT: no call of ours will end and give anything back (other
 * CLIENTs or a server hold it, or the limit is below one call);
 * -ETIMEDOUT at the deadline.
 */
int ct_pin_wait(struct ct *ct, struct ct_slot *s, const struct timespec *dl)
{
	bool freed = false, busy = false, own;
	int rc = 0;

	own = s->reply_mr || s->call_mr;
	slot_dereg_call(s);
	pthread_mutex_lock(&ct->lock);
	for (uint32_t i = 0; i < ct->nslots; i++) {
		struct ct_slot *o = &ct->slots[i];

		if (o == s)
			continue;
		if (slot_idle(o))
			freed = slot_unpin(o) || freed;
		else
			busy = busy || slot_busy(o);
	}
	if (!freed) {
		if (!busy) {
			rc = -EDQUOT;
		} else {
			own = slot_unpin(s) || own;
			s->pin_waiting = true;
			if (own) /* other waiters may fit now */
				ct_cv_broadcast(ct);
			if (ct_cv_wait(ct, dl) ==
			    ETIMEDOUT)
				rc = -ETIMEDOUT;
			s->pin_waiting = false;
		}
	} else {
		ct_cv_broadcast(ct);
	}
	pthread_mutex_unlock(&ct->lock);
	return rc;
}

/*
 * Zero-copy read chunks (docs/performance.md, "copy or register"): an
 * item the encoder left in the caller's memory is exposed from there for
 * this call, through a window over a registration of it where windows
 * are used (the responder may revoke a window remotely), else through
 * the registration itself, REMOTE_READ only: neither asks local write,
 * so read-only pages register without a window (an MR that binds windows
 * is still pinned for writing by the kernel). What cannot go so (a Long
 * Call, an item the plan keeps inline, a third one, a registration
 * refused: read-only pages under windows, say) is copied in after all.
 * zc[c] for plan chunk c: 1 + its index in s->zc_*, or 0 (the call's
 * buffer).
 */
void ct_zc_expose(struct ct *ct, struct rpcrdma_ep *ep,
			 struct ct_slot *s,
			 const struct rpcrdma_call_plan *plan, uint8_t *zc)
{
	const struct rpcrdma_item *items;
	uint32_t n = rpcrdma_xdrgrow_items(&s->xdr, &items), i, c;
	bool chunked = plan->kind == RPCRDMA_CALL_READ ||
		       plan->kind == RPCRDMA_CALL_LONG_READ;
	int wins = -1; /* read under ct->lock at the first chunk only */

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
			if (wins < 0) {
				pthread_mutex_lock(&ct->lock);
				wins = !ct->no_windows &&
				       rpcrdma_ep_windows(ep);
				pthread_mutex_unlock(&ct->lock);
			}
			if (wins)
				rc = rpcrdma_win_create(
				    ep, ext, len, RPCRDMA_ACCESS_REMOTE_READ,
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
