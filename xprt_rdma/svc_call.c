/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Call contexts of a connection (struct svc_call), from a message's
 * receive until its reply is posted (a reply without chunks) or its
 * Writes and Send completed: taken and given back
 * (call_get / call_put; an idle connection gives its large buffers
 * back), the bytes their buffers hold counted against the connection's
 * cap and given back over it (conn_mem_trim; svc_recv.c decides who
 * waits), the end of the call being dispatched (conn_end_serving), the
 * RDMA_ERRORs a client sends us counted, and the connection's fatal
 * error (conn_fail, conn_close_pending), which every step may need. The
 * floor of the server files (svc_conn.h): it calls none of them.
 */
#include <errno.h>
#include <stdlib.h>
#include "svc_conn.h"

/* k's read buffer and rebuilt call go back (its call does not use
 * them, or is over). */
static void call_free_reads(struct svc_call *k)
{
	k->c->mem_used -= k->rdcap + k->callcap;
	free(k->rdbuf);
	free(k->callbuf);
	k->rdbuf = k->callbuf = NULL;
	k->rdcap = k->callcap = 0;
}

/* Its reply stream too: made again at its next reply. */
static void call_free_reply(struct svc_call *k)
{
	if (k->reply_ok)
		rpcrdma_xdrgrow_destroy(&k->reply);
	k->reply_ok = false;
	k->c->mem_used -= k->replycap;
	k->replycap = 0;
}

void call_free_buffers(struct svc_call *k)
{
	call_free_reply(k);
	call_free_reads(k);
}

/* The reply stream grows inside libtirpc's encoders (and in a Long
 * Reply's gather): its capacity is counted after them, a compare when
 * it did not grow. */
void call_mem_reply(struct svc_call *k)
{
	size_t cap = k->reply_ok ? rpcrdma_xdrgrow_cap(&k->reply) : 0;

	if (cap != k->replycap) {
		conn_mem_grew(k->c, k->replycap, cap);
		k->replycap = cap;
	}
}

/* k keeps nothing between calls any more. */
static void call_unkeep(struct svc_call *k)
{
	if (k->big) {
		k->big = false;
		k->c->nbig--;
	}
}

/*
 * Over its cap (c->mem_max, svc_recv.c), c gives back what its contexts
 * hold but their calls do not use: every buffer of a free (or waiting)
 * context, the read buffers of a call that was not read into them, the
 * reply stream of a call not yet dispatched (skip's aside: the call
 * asking).
 * Returns the bytes that calls whose replies are posted (CALL_SENDING)
 * hold: those come back on their own, as their transfers complete. A
 * walk of the contexts: only over the cap, never on the fast path.
 */
size_t conn_mem_trim(struct svc_conn *c, const struct svc_call *skip)
{
	size_t sending = 0;

	for (uint32_t i = 0; i < c->ncalls; i++) {
		struct svc_call *f = &c->calls[i];

		if (f == skip)
			continue;
		switch (f->state) {
		case CALL_FREE:
		case CALL_WAITING:
			call_free_buffers(f);
			call_unkeep(f);
			break;
		case CALL_READING:
		case CALL_READY:
			if (!f->reads_on)
				call_free_reads(f);
			call_free_reply(f);
			call_unkeep(f);
			break;
		case CALL_SERVING:
			break;
		case CALL_SENDING:
			sending += call_mem(f);
			break;
		}
	}
	return sending;
}

/* A call that waited for memory, counted once whatever it waited for. */
void call_count_mem_wait(struct svc_call *k)
{
	if (!k->mem_waited) {
		k->mem_waited = true;
		STAT_INC(k->c, calls_waited_memory);
	}
}

/* k waits for memory holding only its receive (svc_recv.c). */
void call_wait_mem(struct svc_call *k)
{
	struct svc_conn *c = k->c;

	call_free_buffers(k);
	call_unkeep(k);
	k->state = CALL_WAITING;
	k->next = NULL;
	if (c->mwait_tail)
		c->mwait_tail->next = k;
	else
		c->mwait = k;
	c->mwait_tail = k;
	call_count_mem_wait(k);
}

/* A context for a new message, or NULL when all are in use. */
struct svc_call *call_get(struct svc_conn *c)
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
	k->reads_on = false;
	k->mem_waited = false;
	call_xfer_reset(k);
	c->inuse++;
	return k;
}

void call_put(struct svc_call *k)
{
	struct svc_conn *c = k->c;

	call_drop_rx(k);
	if (k->state != CALL_SENDING && c->active)
		c->active--;
	k->state = CALL_FREE;
	k->next = c->free;
	c->free = k;
	/*
	 * Buffers larger than SVC_KEEP_BYTES stay for the next call in at
	 * most SVC_KEEP_BIG contexts (a stream of large calls reuses them);
	 * any other context gives them back as its call ends, so that what
	 * a busy connection holds between calls is bounded by that, not by
	 * its contexts (2 x credits + 16) times max_msg (security review
	 * 21c8dd5, finding 5).
	 */
	if (!k->big && (k->rdcap > SVC_KEEP_BYTES ||
			k->callcap > SVC_KEEP_BYTES ||
			(k->reply_ok &&
			 rpcrdma_xdrgrow_cap(&k->reply) > SVC_KEEP_BYTES))) {
		if (c->nbig < SVC_KEEP_BIG) {
			k->big = true;
			c->nbig++;
		} else {
			call_free_buffers(k);
		}
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
 * the requester must not wait for a reply that will never come), saying
 * why (counted and logged when the connection goes, svc_rdma.c). */
void conn_fail(struct svc_conn *c, enum rpcrdma_close_why why, int err)
{
	if (c->dead)
		return;
	c->dead = true;
	/* A pool worker poisoned by its dispatch (svc.h) cannot disconnect;
	 * the next clean one does (conn_close_pending). */
	if (pool_thread_dirty()) {
		c->close_err = err < 0 ? err : -ENOTCONN;
		c->close_why = why;
		return;
	}
	rpcrdma_ep_close_why(c->ep, err, why);
}

void conn_close_pending(struct svc_conn *c)
{
	int err = c->close_err;

	/* Every backward credit is held by abandoned callbacks
	 * (bc_abandoned): a load, no lock, per round. */
	if (!c->dead &&
	    __atomic_load_n(&c->bc->close_wanted, __ATOMIC_ACQUIRE)) {
		conn_fail(c, RPCRDMA_CLOSE_BC, -ETIMEDOUT);
		return;
	}
	if (err) {
		c->close_err = 0;
		rpcrdma_ep_close_why(c->ep, err, c->close_why);
	}
}

/* Counts an RDMA_ERROR the client sent us; it is then dropped. */
void conn_count_error_recv(struct svc_conn *c,
			   const struct rpcrdma_msg *h)
{
	STAT_INC(c, recv_error);
	if (h->err == RPCRDMA_ERR_VERS)
		STAT_INC(c, err_vers_recv);
	else
		STAT_INC(c, err_chunk_recv);
}

/* The call being dispatched is over (replied, or abandoned by a
 * dispatcher that never replied). */
void conn_end_serving(struct svc_conn *c)
{
	struct svc_call *k = c->serving;

	if (!k)
		return;
	XDR_DESTROY(&c->args);
	c->serving = NULL;
	if (k->state == CALL_SERVING)
		call_put(k);
}
