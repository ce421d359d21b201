/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive ring: posting receive buffers, handing out what the reaper
 * (core.c) queued on rxq (rpcrdma_ep_poll, with its short spin before
 * sleeping), giving buffers back and re-posting them (rpcrdma_ep_rx_done),
 * and the questions about what is queued.
 */
#include <errno.h>

#include "ep_int.h"

int ep_post_recv(struct rpcrdma_ep *ep, uint32_t idx)
{
	struct ibv_sge sge = {
		.addr = (uint64_t)(uintptr_t)(ep->rx_mem +
					      (size_t)idx * ep->rx_size),
		.length = ep->rx_size,
		.lkey = ep->rx_mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = EP_WR_RECV | idx,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad;
	int ret;

	ep->rx[idx].posted = true;
	__atomic_add_fetch(&ep->rx_posted, 1, __ATOMIC_RELAXED);
	ret = ibv_post_recv(ep->qp, &wr, &bad);
	if (ret) {
		ep->rx[idx].posted = false;
		__atomic_sub_fetch(&ep->rx_posted, 1, __ATOMIC_RELAXED);
		return -ret;
	}
	RPCRDMA_STAT_ADD(ep, rq_wrs, 1);
	return 0;
}

uint32_t rpcrdma_ep_rx_queued(const struct rpcrdma_ep *ep)
{
	return __atomic_load_n(&ep->rxq_count, __ATOMIC_ACQUIRE);
}

uint32_t rpcrdma_ep_rx_queued_count(struct rpcrdma_ep *ep,
				    bool (*pred)(const uint8_t *data,
						 uint32_t len))
{
	uint32_t n = 0;

	pthread_mutex_lock(&ep->lock);
	for (uint32_t i = 0; i < ep->rxq_count; i++) {
		uint32_t idx = ep->rxq[(ep->rxq_head + i) % ep->nrx];

		n += pred(ep->rx_mem + (size_t)idx * ep->rx_size,
			  ep->rx[idx].len);
	}
	pthread_mutex_unlock(&ep->lock);
	return n;
}

bool rpcrdma_ep_rx_pending(const struct rpcrdma_ep *ep)
{
	return __atomic_load_n(&ep->rxq_count, __ATOMIC_ACQUIRE) > 0;
}

/* ---- receives ---- */

static void rx_pop(struct rpcrdma_ep *ep, struct rpcrdma_rx *rx)
{
	uint32_t idx = ep->rxq[ep->rxq_head];
	struct ep_rx_slot *s = &ep->rx[idx];

	ep->rxq_head = (ep->rxq_head + 1) % ep->nrx;
	__atomic_sub_fetch(&ep->rxq_count, 1, __ATOMIC_RELEASE);
	rx->data = ep->rx_mem + (size_t)idx * ep->rx_size;
	rx->len = s->len;
	rx->invalidated = s->invalidated;
	rx->inv_rkey = s->inv_rkey;
	rx->priv = s;
}

/* A pause between looks at the CQ: no system call (a sched_yield per
 * look cost one each, hundreds per call), and a hint to the core. */
static inline void ep_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

#define EP_SPIN_PAUSES	64	/* between looks: about a microsecond */

/*
 * Polls the CQ for up to spin_us (never past deadline) before the caller
 * sleeps on the completion channel: a reply that comes meanwhile costs
 * no interrupt, wake-up or task switch, which is most of a small call's
 * latency (docs/performance.md); ib_send_lat polls all along. The lock is
 * dropped between looks so that senders go on; reaping the CQ of rxe,
 * siw and hardware is a read of shared memory, no system call. Lock
 * held; true when something arrived or the connection went.
 */
static bool ep_spin(struct rpcrdma_ep *ep, uint64_t deadline,
		    uint32_t spin_us)
{
	uint64_t end = ep_now_us() + spin_us;

	if (deadline != UINT64_MAX && deadline * 1000u < end)
		end = deadline * 1000u;
	do {
		pthread_mutex_unlock(&ep->lock);
		for (int i = 0; i < EP_SPIN_PAUSES; i++)
			ep_cpu_relax();
		pthread_mutex_lock(&ep->lock);
		if (ep->rxq_count || ep_reap(ep) || !ep_is_up(ep))
			return true;
	} while (ep_now_us() < end);
	return false;
}

int rpcrdma_ep_poll_spin(struct rpcrdma_ep *ep, struct rpcrdma_rx *rx,
			 int timeout_ms, uint32_t spin_us)
{
	uint64_t deadline = ep_deadline_of(timeout_ms);
	bool woken = false, spun = false;
	int ret;

	pthread_mutex_lock(&ep->lock);
	for (;;) {
		if (ep->rxq_count) {
			rx_pop(ep, rx);
			ret = 1;
			break;
		}
		if (ep_reap(ep))
			continue;
		if (!ep_is_up(ep)) {
			ret = -ENOTCONN;
			break;
		}
		/* A zero timeout asks only what is there (svc_run's
		 * xp_recv): no polling. */
		if (!spun && timeout_ms != 0 && spin_us) {
			spun = true;
			if (ep_spin(ep, deadline, spin_us))
				continue;
		}
		if (ep_arm(ep))
			continue;
		if (!ep_is_up(ep)) {
			ret = -ENOTCONN;
			break;
		}
		if (!ep_block_wake(ep, deadline, &woken) || woken) {
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&ep->lock);
	return ret;
}

int rpcrdma_ep_poll(struct rpcrdma_ep *ep, struct rpcrdma_rx *rx,
		    int timeout_ms)
{
	return rpcrdma_ep_poll_spin(ep, rx, timeout_ms, ep->opts.poll_us);
}

void rpcrdma_ep_rx_done(struct rpcrdma_ep *ep, struct rpcrdma_rx *rx)
{
	struct ep_rx_slot *s = rx ? rx->priv : NULL;

	if (!s || s < ep->rx || s >= ep->rx + ep->nrx || s->posted)
		return;
	rx->priv = NULL;
	/* A receive posted to a QP in error would only flush. A receive that
	 * cannot be posted breaks the credits promised to the peer: the
	 * connection ends rather than meet an RNR later. */
	if (ep_is_up(ep)) {
		int ret = ep_post_recv(ep, (uint32_t)(s - ep->rx));

		if (ret) {
			ep_count_errno(ep, -ret);
			rpcrdma_ep_close_why(ep, ret, RPCRDMA_CLOSE_INTERNAL);
		}
	}
}
