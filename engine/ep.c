/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoint resources: allocating an endpoint (ep_alloc) and our RFC 8797
 * Private Data, the PD, completion channel, CQ, QP, buffers and fds
 * (ep_setup), settling the thresholds with the peer's (ep_negotiate), and
 * releasing all of it (ep_free), with the resync a removed device needs
 * (ep_device_gone). Establishing connections is cm.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#include "ep_int.h"
#include "ep_size.h"

/* Caps on what we ask of the device. */
#define EP_MAX_RD_ATOM		16u
/*
 * Local ACK timeout exponent (4.096 us << 18, about 1.07 s): with 6
 * retries a peer that stops answering (its RDMA Read responses, its
 * ACKs) fails our work requests after about 7.5 s, and the connection
 * closes. Without it rxe waits forever: the timeout RDMA-CM derives for
 * an accepted RoCE connection never fires.
 */
#define EP_ACK_TIMEOUT		18u

int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Our own RFC 8797 message, from the options. */
static void ep_local_pvtdata(struct rpcrdma_ep *ep)
{
	ep->local_pd.version = RPCRDMA_PVTDATA_VERSION;
	ep->local_pd.remote_inv = ep->opts.remote_inv;
	ep->local_pd.send_size = ep->opts.inline_send;
	ep->local_pd.recv_size = ep->opts.inline_recv;
}

/* RFC 8797 section 5: settle the thresholds from the peer's message, if
 * any. When we send none ourselves the peer applies the RFC 8166 defaults,
 * so we must too. */
void ep_negotiate(struct rpcrdma_ep *ep, const void *pdata, size_t len)
{
	struct rpcrdma_pvtdata peer;
	const struct rpcrdma_pvtdata *pp = NULL;

	if (ep->opts.send_pvtdata && pdata && len &&
	    rpcrdma_pvtdata_parse(pdata, len, &peer) == 0)
		pp = &peer;
	rpcrdma_pvtdata_negotiate(&ep->local_pd, pp, &ep->inl);
	/* Sending no Private Data, we never set R: nobody may revoke. */
	if (!ep->opts.send_pvtdata)
		ep->inl.remote_inv_in = false;
	/* Never beyond what our buffers hold. */
	if (ep->inl.send_max > ep->tx_size)
		ep->inl.send_max = ep->tx_size;
	if (ep->inl.recv_max > ep->rx_size)
		ep->inl.recv_max = ep->rx_size;
}

struct rpcrdma_ep *ep_alloc(const struct rpcrdma_ep_opts *o)
{
	struct rpcrdma_ep *ep = calloc(1, sizeof(*ep));
	pthread_condattr_t ca;

	if (!ep)
		return NULL;
	ep->opts = *o;
	stats_export_start();
	ep->stats = export_conn_take();
	if (!ep->stats)
		ep->stats = &ep->own_stats;
	ep->epfd = -1;
	ep->kickfd = -1;
	ep->stallfd = -1;
	ep->windows = -1;
	ep->comp_seen = ep->cm_seen = -1;	/* not polled yet: look */
	ep->kick_seen = ep->stall_seen = -1;
	ep->down_err = -ENOTCONN;
	if (pthread_condattr_init(&ca))
		goto out_free;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (pthread_cond_init(&ep->tx_cond, &ca)) {
		pthread_condattr_destroy(&ca);
		goto out_free;
	}
	pthread_condattr_destroy(&ca);
	if (pthread_mutex_init(&ep->lock, NULL)) {
		pthread_cond_destroy(&ep->tx_cond);
		goto out_free;
	}
	ep->lock_init = true;
	ep_local_pvtdata(ep);
	return ep;

out_free:
	export_conn_put(ep->stats);
	free(ep);
	return NULL;
}

#define EP_GONE_WAIT_MS		2000

/* librdmacm rereads the device list and closes its contexts of devices
 * gone that no cm_id of the process uses (ep_device_gone). */
void ep_devices_resync(void)
{
	struct ibv_context **cl = rdma_get_devices(NULL);

	if (cl)
		rdma_free_devices(cl);
}

/*
 * The endpoint's device was removed (RDMA_CM_EVENT_DEVICE_REMOVAL) and
 * its objects on it are destroyed. rxe, like every device that cannot
 * disassociate user contexts, makes the kernel's unregister (`rdma link
 * delete`) wait until each open context of the device is closed, and
 * librdmacm (rdma-core 44) keeps its context of a device open until it
 * resyncs its device list, which nothing makes it do by itself: seen in
 * the guest, the delete stayed blocked with every QP, CQ, MR, PD and
 * cm_id of ours gone, and returned once rdma_get_devices ran. So resync,
 * once libibverbs no longer lists the device (the kernel drops it there
 * just after delivering the event; bounded wait): librdmacm then closes
 * its context when no cm_id of the process uses the device. Its side
 * effect: rdma_get_devices opens a context of every other device, as it
 * does for any caller.
 */
void ep_device_gone(struct ibv_device *dev)
{
	uint64_t deadline = ep_now_ms() + EP_GONE_WAIT_MS;

	for (;;) {
		struct ibv_device **l = ibv_get_device_list(NULL);
		bool listed = false;

		for (int i = 0; l && l[i]; i++)
			listed |= l[i] == dev;
		if (l)
			ibv_free_device_list(l);
		if (!listed) {
			ep_devices_resync();
			return;
		}
		if (ep_now_ms() >= deadline)
			return;
		poll(NULL, 0, 10);
	}
}

/* Releases whatever a (possibly partly built) endpoint holds, in reverse
 * order of acquisition. The QP must already be in the error state or
 * never connected. */
void ep_free(struct rpcrdma_ep *ep)
{
	/* Only compared, never used: libibverbs keeps the device while
	 * librdmacm's context of it is open. */
	struct ibv_device *gone = ep->dev_removed && ep->id && ep->id->verbs ?
					  ep->id->verbs->device :
					  NULL;
	struct ep_sigpipe g;

	if (ep->conn_count) {
		conn_count_unlink(ep);
		conn_count_put(ep->conn_count);
	}
	ep_xfer_release(ep);
	if (ep->epfd >= 0)
		close(ep->epfd);
	if (ep->kickfd >= 0)
		close(ep->kickfd);
	if (ep->stallfd >= 0)
		close(ep->stallfd);
	/* On iWARP, destroying the QP and the id may send (an MPA reject,
	 * a FIN) from this thread: under the guard of ep_int.h. */
	ep_sigpipe_hold(ep->iwarp, &g);
	if (ep->qp)
		rdma_destroy_qp(ep->id);
	if (ep->cq)
		ibv_destroy_cq(ep->cq);
	if (ep->comp_ch)
		ibv_destroy_comp_channel(ep->comp_ch);
	if (ep->tx_mr)
		ep_mr_dereg(ep, ep->tx_mr);
	if (ep->rb_mr)
		ep_mr_dereg(ep, ep->rb_mr);
	if (ep->rx_mr)
		ep_mr_dereg(ep, ep->rx_mr);
	if (ep->pd)
		ibv_dealloc_pd(ep->pd);
	if (ep->id)
		rdma_destroy_id(ep->id);
	if (ep->cm_ch)
		rdma_destroy_event_channel(ep->cm_ch);
	ep_sigpipe_release(&g);
	if (gone)
		ep_device_gone(gone);
	free(ep->tx_seq);
	free(ep->tx_mem);
	free(ep->rb_mem);
	free(ep->wrq);
	free(ep->rxq);
	free(ep->rx);
	free(ep->rx_mem);
	if (ep->lock_init) {
		pthread_mutex_destroy(&ep->lock);
		pthread_cond_destroy(&ep->tx_cond);
	}
	export_conn_put(ep->stats);
	free(ep);
}

static int ep_alloc_buffers(struct rpcrdma_ep *ep)
{
	size_t rx_bytes = (size_t)ep->nrx * ep->rx_size;
	size_t tx_bytes = (size_t)ep->ntx * ep->tx_size;
	int rc;

	ep->rx_mem = aligned_alloc(64, rx_bytes);
	ep->tx_mem = aligned_alloc(64, tx_bytes);
	ep->rx = calloc(ep->nrx, sizeof(*ep->rx));
	ep->rxq = calloc(ep->nrx, sizeof(*ep->rxq));
	ep->tx_seq = calloc(ep->ntx, sizeof(*ep->tx_seq));
	if (!ep->rx_mem || !ep->tx_mem || !ep->rx || !ep->rxq || !ep->tx_seq)
		return -ENOMEM;
	memset(ep->rx_mem, 0, rx_bytes);
	memset(ep->tx_mem, 0, tx_bytes);
	/* Never exposed to the peer: local access only. */
	ep->rx_mr = ep_mr_reg(ep, ep->rx_mem, rx_bytes,
			      IBV_ACCESS_LOCAL_WRITE, &rc);
	if (!ep->rx_mr)
		return rc;
	ep->tx_mr = ep_mr_reg(ep, ep->tx_mem, tx_bytes, 0, &rc);
	return rc;
}

/*
 * PD, completion channel, CQ, RC QP sized from the credits and the device,
 * send and receive buffers; receives posted, CQ armed (so that a message
 * arriving before the glue first polls still makes the fd readable).
 */
int ep_setup(struct rpcrdma_ep *ep, struct rdma_cm_id *id)
{
	struct ibv_device_attr attr;
	struct ibv_port_attr pattr;
	struct ibv_qp_init_attr qa;
	struct epoll_event ev;
	struct ep_sizes sz;
	uint32_t i;
	int ret;

	if (!id->verbs)
		return -ENODEV;
	ep->iwarp = id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
	if (ibv_query_device(id->verbs, &attr))
		return neg_errno(EIO);
	if (ibv_query_port(id->verbs, id->port_num, &pattr) == 0 &&
	    pattr.max_msg_sz)
		ep->max_msg_sz = pattr.max_msg_sz;
	else
		ep->max_msg_sz = 1u << 20;
	if (ep->max_msg_sz > (1u << 30))
		ep->max_msg_sz = 1u << 30;

	/* RFC 8167 section 3.3: receives for the backward direction come on
	 * top of the forward credits, so neither direction starves the
	 * other. Fewer credits where the device's queues or CQ are too
	 * small for them (ep_size.h). */
	ret = ep_size(ep->opts.credits, ep->opts.bc_credits, attr.max_qp_wr,
		      attr.max_cqe, &sz);
	if (ret)
		return ret;
	ep->credits = sz.credits;
	ep->nrx = sz.nrx;
	ep->ntx = sz.ntx;
	ep->sq_depth = sz.sq_depth;
	/* Every run of signal_every WRs holds a signaled one, and both the
	 * SQ and the send ring hold at least two runs: a full ring or SQ
	 * always waits on a signaled WR. */
	ep->signal_every = min_u32(ep->ntx, ep->sq_depth) / 4;
	if (!ep->signal_every)
		ep->signal_every = 1;
	ep->rx_size = ep->opts.inline_recv > RPCRDMA_DEFAULT_INLINE ?
			      ep->opts.inline_recv : RPCRDMA_DEFAULT_INLINE;
	ep->tx_size = ep->opts.inline_send > RPCRDMA_DEFAULT_INLINE ?
			      ep->opts.inline_send : RPCRDMA_DEFAULT_INLINE;

	ep->initiator_depth = (uint8_t)min_u32(
		attr.max_qp_init_rd_atom > 0 ? attr.max_qp_init_rd_atom : 1,
		EP_MAX_RD_ATOM);
	ep->responder_resources = (uint8_t)min_u32(
		attr.max_qp_rd_atom > 0 ? attr.max_qp_rd_atom : 1,
		EP_MAX_RD_ATOM);

	ep->pd = ibv_alloc_pd(id->verbs);
	if (!ep->pd)
		return neg_errno(ENOMEM);
	ep->comp_ch = ibv_create_comp_channel(id->verbs);
	if (!ep->comp_ch)
		return neg_errno(ENOMEM);
	ret = set_nonblock(ep->comp_ch->fd);
	if (ret)
		return ret;
	ep->cq = ibv_create_cq(id->verbs, (int)sz.cqe, ep, ep->comp_ch, 0);
	if (!ep->cq)
		return neg_errno(ENOMEM);

	memset(&qa, 0, sizeof(qa));
	qa.qp_context = ep;
	qa.send_cq = ep->cq;
	qa.recv_cq = ep->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 0;
	qa.cap.max_send_wr = ep->sq_depth;
	qa.cap.max_recv_wr = ep->nrx;
	qa.cap.max_send_sge = 1;	/* sends are copied, chunks contiguous */
	qa.cap.max_recv_sge = 1;
	{
		uint8_t t = EP_ACK_TIMEOUT;

		/* Older kernels lack the option: their default stands. */
		(void)rdma_set_option(id, RDMA_OPTION_ID,
				      RDMA_OPTION_ID_ACK_TIMEOUT, &t,
				      sizeof(t));
	}
	if (rdma_create_qp(id, ep->pd, &qa))
		return neg_errno(ENOMEM);
	ep->qp = id->qp;
	if (qa.cap.max_send_wr < ep->sq_depth)
		ep->sq_depth = qa.cap.max_send_wr;

	ret = ep_alloc_buffers(ep);
	if (ret)
		return ret;
	/* Receives go up before the connection exists (the Linux client
	 * uses rnr_retry_count 0: a missing receive kills it). */
	for (i = 0; i < ep->nrx; i++) {
		ret = ep_post_recv(ep, i);
		if (ret)
			return ret;
	}
	ret = ibv_req_notify_cq(ep->cq, 0);
	if (ret) {
		ret = verbs_errno(ret);
		ep_count_errno(ep, ret);
		return ret ? -ret : -EIO;
	}

	ep->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ep->epfd < 0)
		return -errno;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = ep->comp_ch->fd;
	if (epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->comp_ch->fd, &ev))
		return -errno;
	ev.data.fd = ep->cm_ch->fd;
	if (epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->cm_ch->fd, &ev))
		return -errno;
	ep->kickfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ep->kickfd < 0)
		return -errno;
	ev.data.fd = ep->kickfd;
	if (epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->kickfd, &ev))
		return -errno;
	if (ep->opts.stall_ms || ep->opts.idle_ms) {
		ep->stallfd = timerfd_create(CLOCK_MONOTONIC,
					     TFD_NONBLOCK | TFD_CLOEXEC);
		if (ep->stallfd < 0)
			return -errno;
		ev.data.fd = ep->stallfd;
		if (epoll_ctl(ep->epfd, EPOLL_CTL_ADD, ep->stallfd, &ev))
			return -errno;
	}
	return 0;
}
