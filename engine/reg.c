/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the peer may touch: a per-RPC memory registration for a chunk
 * (rpcrdma_ep_reg, rpcrdma_mr_*) and a buffer exposed through a type-2
 * memory window (rpcrdma_win_*, rpcrdma_ep_send_bind), with the choice
 * whether windows are used at all (rpcrdma_ep_windows).
 *
 * Memory exposed for one RPC through a type-2 memory window (engine.h,
 * struct rpcrdma_win).
 *
 * A window's buffer is registered once per connection with the right to
 * bind windows, never remote access of its own, and local write only
 * when its windows will be bound for remote write (rpcrdma_win_create's
 * access: verbs refuse to bind a remote-write window on an MR without
 * local write). A call binds the window over the part of the buffer its
 * chunk names, by a work request chained before the Send that carries
 * the chunk (rxe refuses ibv_bind_mw on type-2 windows), and the window
 * is revoked when the RPC ends: by the responder's Send With Invalidate
 * naming its rkey (RFC 8797 section 4.1), or by a local invalidation
 * whose completion is awaited.
 * Never both: rxe crashes on a second invalidation of one window
 * (docs/security.md). rxe leaves mw->rkey at the old key after a bind:
 * the engine stores the new one itself. One buffer per window, because
 * rxe does not enforce a window's bounds inside its MR.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "ep_int.h"

#define RXE_VENDOR_ID	0xffffffu	/* the kernel's rdma_rxe */

/*
 * Whether windows can carry this connection's chunks. rxe under Linux
 * 6.1 (Debian 12's kernel) stalls calls when many RPCs bind and
 * invalidate windows at once (t_clnt test_threads_credits, t_limits
 * test_grant_constant time out; signaling every bind does not cure it);
 * under 6.12 (bookworm-backports) the whole guest tier passes with them.
 * Kernels in between are untested and treated as 6.1. The endpoint's
 * opts.windows overrides the choice (the glue sets it from
 * RPCRDMA_WINDOWS=0 or 1).
 */
/*
 * Which windows, if any: WIN_NONE, WIN_TYPE2, or WIN_TYPE1 on rxe. rxe's
 * remote invalidation of a type-2 window that is not bound (invalidated
 * already, or never bound) dereferences the window's NULL QP and MR
 * (rxe_do_invalidate_mw; every version read, 6.1 to 2026), so any server
 * holding an old rkey of ours could crash our host's kernel with one Send
 * With Invalidate (security review 21c8dd5, finding 7). rxe refuses any
 * invalidation of a type-1 window (o10-37.2.26) before touching it, and
 * binds and unbinds type 1 by the same BIND_MW work request; its window
 * is scoped to our PD, which is this connection's alone. So on rxe the
 * windows are type 1, revoked by a zero-length bind, and the R bit is
 * never advertised (cm.c).
 */
enum { WIN_NONE = 0, WIN_TYPE2 = 1, WIN_TYPE1 = 2 };

static int8_t windows_work(struct ibv_context *ctx, enum rpcrdma_ep_windows o)
{
	struct ibv_device_attr attr;
	struct utsname u;
	unsigned int major = 0, minor = 0;
	bool rxe;

	if (o == RPCRDMA_EP_WINDOWS_OFF)
		return WIN_NONE;
	if (ibv_query_device(ctx, &attr))
		return WIN_NONE;
	rxe = attr.vendor_id == RXE_VENDOR_ID;
	if (o == RPCRDMA_EP_WINDOWS_TYPE2)
		return WIN_TYPE2;
	if (o == RPCRDMA_EP_WINDOWS_ON)
		return rxe ? WIN_TYPE1 : WIN_TYPE2;
	if (!(attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B))
		return WIN_NONE;	/* siw, for one, has none */
	if (!rxe)
		return WIN_TYPE2;
	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return WIN_NONE;
	return major > 6 || (major == 6 && minor >= 12) ? WIN_TYPE1 : WIN_NONE;
}

static int8_t ep_windows_kind(struct rpcrdma_ep *ep)
{
	int8_t v = __atomic_load_n(&ep->windows, __ATOMIC_RELAXED);

	/* Racing first callers compute the same answer. */
	if (v < 0) {
		v = windows_work(ep->pd->context, ep->opts.windows);
		__atomic_store_n(&ep->windows, v, __ATOMIC_RELAXED);
	}
	return v;
}

bool rpcrdma_ep_windows(struct rpcrdma_ep *ep)
{
	return ep_windows_kind(ep) != WIN_NONE;
}

bool rpcrdma_ep_windows_invalidable(struct rpcrdma_ep *ep)
{
	return ep_windows_kind(ep) == WIN_TYPE2;
}

struct rpcrdma_win {
	struct rpcrdma_ep *ep;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	uint8_t *buf;
	size_t len;
	enum rpcrdma_access access;	/* the most a bind may grant */
	bool type1;			/* unbound by a zero-length bind */
	bool bound;
	uint64_t inv_seq;	/* its LOCAL_INV's WR, once posted */
};

int rpcrdma_win_create(struct rpcrdma_ep *ep, void *buf, size_t len,
		       enum rpcrdma_access access, struct rpcrdma_win **out)
{
	struct rpcrdma_win *w;
	int flags = IBV_ACCESS_MW_BIND, err;

	if (!ep || !buf || !len || !out ||
	    (access != RPCRDMA_ACCESS_REMOTE_READ &&
	     access != RPCRDMA_ACCESS_REMOTE_WRITE))
		return -EINVAL;
	/* Local write only under windows the peer writes through (verbs:
	 * binding remote write needs an MR with local write, remote read
	 * needs none). The kernel still pins an MR with MW_BIND for
	 * writing (ib_access_writable): read-only pages cannot go through
	 * a window, and the caller copies them. */
	if (access == RPCRDMA_ACCESS_REMOTE_WRITE)
		flags |= IBV_ACCESS_LOCAL_WRITE;
	*out = NULL;
	if (!rpcrdma_ep_windows(ep))
		return -EOPNOTSUPP;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->type1 = ep_windows_kind(ep) == WIN_TYPE1;
	w->mw = ibv_alloc_mw(ep->pd, w->type1 ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2);
	if (!w->mw) {
		err = errno > 0 ? errno : EOPNOTSUPP;
		goto out_free;
	}
	w->mr = ep_mr_reg(ep, buf, len, flags, &err);
	if (!w->mr) {
		err = -err;
		ibv_dealloc_mw(w->mw);
		goto out_free;
	}
	w->ep = ep;
	w->buf = buf;
	w->len = len;
	w->access = access;
	__atomic_add_fetch(&ep->mr_count, 1, __ATOMIC_RELAXED);
	*out = w;
	return 0;

out_free:
	ep_count_errno(ep, err);
	free(w);
	return -err;
}

void rpcrdma_win_destroy(struct rpcrdma_win *w)
{
	if (!w)
		return;
	ibv_dealloc_mw(w->mw);
	if (ep_mr_dereg(w->ep, w->mr))
		rpcrdma_ep_dereg_failed(w->ep);
	else
		__atomic_sub_fetch(&w->ep->mr_count, 1, __ATOMIC_RELAXED);
	free(w);
}

uint32_t rpcrdma_win_next_rkey(const struct rpcrdma_win *w)
{
	return ibv_inc_rkey(w->mw->rkey);
}

bool rpcrdma_win_bound(const struct rpcrdma_win *w)
{
	return w && w->bound;
}

bool rpcrdma_win_owns(const struct rpcrdma_win *w, uint32_t rkey)
{
	return w && w->bound && w->mw->rkey == rkey;
}

void rpcrdma_win_invalidated(struct rpcrdma_win *w)
{
	if (w) {
		w->bound = false;
		w->inv_seq = 0;
	}
}

bool rpcrdma_win_covers(const struct rpcrdma_win *w, const void *buf,
			size_t len)
{
	return w && w->buf == buf && w->len == len;
}

int rpcrdma_ep_send_bind(struct rpcrdma_ep *ep, const struct iovec *iov,
			 int iovcnt, const struct rpcrdma_bind *b,
			 uint32_t nb, int timeout_ms)
{
	struct ibv_send_wr wr[RPCRDMA_MAX_BINDS];
	uint32_t rkey[RPCRDMA_MAX_BINDS], j, posted = 0;
	size_t total = 0;
	int i, ret;

	if (!nb || nb > RPCRDMA_MAX_BINDS)
		return -EINVAL;
	for (j = 0; j < nb; j++) {
		const struct rpcrdma_win *w = b[j].w;

		if (!w || w->ep != ep || w->bound || !b[j].len ||
		    b[j].len > w->len ||
		    (b[j].access != RPCRDMA_ACCESS_REMOTE_READ &&
		     b[j].access != w->access) ||
		    (j && w == b[0].w))
			return -EINVAL;
	}
	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (total > ep->inl.send_max)
		return -EMSGSIZE;
	for (j = 0; j < nb; j++) {
		const struct rpcrdma_win *w = b[j].w;

		rkey[j] = rpcrdma_win_next_rkey(w);
		memset(&wr[j], 0, sizeof(wr[j]));
		wr[j].opcode = IBV_WR_BIND_MW;
		wr[j].bind_mw.mw = w->mw;
		wr[j].bind_mw.rkey = rkey[j];
		wr[j].bind_mw.bind_info.mr = w->mr;
		wr[j].bind_mw.bind_info.addr = (uint64_t)(uintptr_t)w->buf;
		wr[j].bind_mw.bind_info.length = b[j].len;
		wr[j].bind_mw.bind_info.mw_access_flags =
			b[j].access == RPCRDMA_ACCESS_REMOTE_READ ?
				IBV_ACCESS_REMOTE_READ :
				IBV_ACCESS_REMOTE_WRITE;
	}

	pthread_mutex_lock(&ep->lock);
	ep_post_quiesce(ep);
	ret = ep_sq_room_within(ep, nb + 1, true, timeout_ms);
	if (!ret) {
		/* The binds chained before the Send: one doorbell. */
		ret = ep_tx_post_after(ep, wr, nb, 0, iov, iovcnt, 0, false,
				       &posted);
		/* A window is bound once its bind is on the queue: a Send
		 * that failed leaves it for the local invalidation. A
		 * failure that names no WR may leave them all there (rxe
		 * queues them, then its doorbell is refused): bound too, so
		 * that the caller gives up the connection. */
		if (ret && !posted)
			posted = nb;
		for (j = 0; j < posted; j++) {
			b[j].w->mw->rkey = rkey[j];
			b[j].w->bound = true;
		}
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

int rpcrdma_win_invalidate_post(struct rpcrdma_win *w)
{
	struct rpcrdma_ep *ep;
	struct ibv_send_wr wr;
	int ret;

	if (!w || !w->bound || w->inv_seq)
		return 0;
	ep = w->ep;
	memset(&wr, 0, sizeof(wr));
	if (w->type1) {
		/* A type-1 window cannot be invalidated: a bind of length
		 * zero under a new key unbinds it (rxe_do_bind_mw). The MR
		 * is named but not used. */
		wr.opcode = IBV_WR_BIND_MW;
		wr.bind_mw.mw = w->mw;
		wr.bind_mw.rkey = rpcrdma_win_next_rkey(w);
		wr.bind_mw.bind_info.mr = w->mr;
		wr.bind_mw.bind_info.addr = (uint64_t)(uintptr_t)w->buf;
	} else {
		wr.opcode = IBV_WR_LOCAL_INV;
		wr.invalidate_rkey = w->mw->rkey;
	}
	pthread_mutex_lock(&ep->lock);
	if (w->type1)
		ep_post_quiesce(ep);
	ret = ep_sq_room_now(ep, 1, false);
	if (!ret)
		ret = rpcrdma_ep_sq_post(ep, &wr, true);
	if (!ret) {
		w->inv_seq = ep->sq_seq;
		if (w->type1)
			w->mw->rkey = wr.bind_mw.rkey;
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

int rpcrdma_win_invalidate_wait(struct rpcrdma_win *w, int timeout_ms)
{
	struct rpcrdma_ep *ep;
	int ret;

	if (!w || !w->bound) {
		if (w)
			w->inv_seq = 0;
		return 0;
	}
	if (!w->inv_seq)
		return -EINVAL;
	ep = w->ep;
	pthread_mutex_lock(&ep->lock);
	ret = rpcrdma_ep_sq_wait(ep, w->inv_seq, ep_deadline_of(timeout_ms));
	w->inv_seq = 0;
	if (!ret) {
		w->bound = false;
		RPCRDMA_STAT_ADD(ep, local_invalidations, 1);
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

/* ---- per-RPC registrations ---- */

/*
 * Per-RPC memory registration for chunks: each region gets its own MR with
 * exactly the remote access the chunk needs (RFC 8166 section 3.4.5: read
 * chunks are read by the responder, write and reply chunks written), and
 * is deregistered when the RPC ends. Deregister before rpcrdma_ep_destroy:
 * an MR keeps the endpoint's protection domain alive.
 */
int rpcrdma_ep_reg(struct rpcrdma_ep *ep, void *addr, size_t len,
		   enum rpcrdma_access access, struct rpcrdma_mr **out)
{
	struct rpcrdma_mr *m;
	int flags, ret;

	if (!ep || !out || !addr || !len)
		return -EINVAL;
	*out = NULL;
	switch (access) {
	case RPCRDMA_ACCESS_LOCAL:
		/* Memory the adapter writes into (a receive, an RDMA Read
		 * sink). */
		flags = IBV_ACCESS_LOCAL_WRITE;
		break;
	case RPCRDMA_ACCESS_REMOTE_READ:
		/* Read by the peer, never written: verbs want local write
		 * only with remote write or atomics. Without it the kernel
		 * does not pin the pages for writing, so read-only memory
		 * (a PROT_READ mapping of a file) can be registered. */
		flags = IBV_ACCESS_REMOTE_READ;
		break;
	case RPCRDMA_ACCESS_REMOTE_WRITE:
		/* Remote write requires local write (verbs rule). */
		flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
		break;
	default:
		return -EINVAL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->mr = ep_mr_reg(ep, addr, len, flags, &ret);
	if (!m->mr) {
		free(m);
		return ret;
	}
	m->ep = ep;
	__atomic_add_fetch(&ep->mr_count, 1, __ATOMIC_RELAXED);
	*out = m;
	return 0;
}

uint32_t rpcrdma_mr_rkey(const struct rpcrdma_mr *mr)
{
	return mr->mr->rkey;
}

/*
 * A registration the provider would not drop may still answer its rkey
 * while its memory goes back to its owner for reuse (docs/security.md):
 * the connection closes at once, its QP to error, so that no peer
 * reaches the memory through it; the registration is leaked with its
 * protection domain (dereg_failures counts it).
 */
void rpcrdma_ep_dereg_failed(struct rpcrdma_ep *ep)
{
	RPCRDMA_STAT_ADD(ep, dereg_failures, 1);
	rpcrdma_ep_close_why(ep, -EIO, RPCRDMA_CLOSE_DEREG);
}

void rpcrdma_mr_dereg(struct rpcrdma_mr *mr)
{
	if (!mr)
		return;
	if (ep_mr_dereg(mr->ep, mr->mr))
		rpcrdma_ep_dereg_failed(mr->ep);
	else
		__atomic_sub_fetch(&mr->ep->mr_count, 1, __ATOMIC_RELAXED);
	free(mr);
}
