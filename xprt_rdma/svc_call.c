/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Call contexts of a connection (struct svc_call), from a message's
 * receive until its reply is posted (a reply without chunks) or its
 * Writes and Send completed: taken and given back
 * (call_get / call_put; an idle connection gives its large buffers
 * back), the end of the call being dispatched (conn_end_serving), the
 * RDMA_ERRORs a client sends us counted, and the connection's fatal
 * error (conn_fail, conn_close_pending), which every step may need. The
 * floor of the server files (svc_conn.h): it calls none of them.
 */
#include <errno.h>
#include <stdlib.h>
#include "svc_conn.h"

void call_free_buffers(struct svc_call *k)
{
	if (k->reply_ok)
		rpcrdma_xdrgrow_destroy(&k->reply);
	k->reply_ok = false;
	free(k->rdbuf);
	free(k->callbuf);
	k->rdbuf = k->callbuf = NULL;
	k->rdcap = k->callcap = 0;
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
