/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA-CM establishment through librdmacm: the client's connect
 * (rpcrdma_ep_connect, with cm_open / cm_wait / cm_expect), the listener
 * and its accept (rpcrdma_listener_*, listener_*), and
 * rpcrdma_ep_destroy. The endpoint's resources are ep.c's; the CM events
 * of an established endpoint are handled beside its completions
 * (core.c); ep_int.h explains how an endpoint's fd reports both data and
 * disconnection.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "ep_int.h"
#include "export.h"

/* Transport retries, as the Linux kernel uses: 6. rxe (like rnr_retry)
 * reads 7 as "retry forever", so 7 would undo ep.c's ACK timeout. */
#define EP_RETRY_COUNT		6u
#define EP_DEFAULT_TIMEOUT_MS	5000

struct rpcrdma_listener {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct rpcrdma_ep_opts opts;
	struct sockaddr_storage addr;
	struct rpcrdma_ep *pending;	/* accepted, not yet established */
	struct ep_conn_count *count;	/* connections accepted and alive */
};

static int opts_timeout(const struct rpcrdma_ep_opts *o)
{
	return o->timeout_ms > 0 ? o->timeout_ms : EP_DEFAULT_TIMEOUT_MS;
}

static void ep_set_established(struct rpcrdma_ep *ep, int role)
{
	const struct sockaddr *pa = rdma_get_peer_addr(ep->id);

	memcpy(&ep->peer, pa, ep_sockaddr_len(pa));
	export_conn_label(ep->stats, role, pa);
	pthread_mutex_lock(&ep->lock);
	__atomic_store_n(&ep->connected, true, __ATOMIC_RELEASE);
	ep->was_connected = true;
	pthread_mutex_unlock(&ep->lock);
	RPCRDMA_STAT_ADD(ep, connects, 1);
}

/* A non-blocking CM event channel and an id on it, or neither. */
static int cm_open(struct rdma_event_channel **ch, struct rdma_cm_id **id,
		   void *ctx)
{
	int ret;

	*ch = rdma_create_event_channel();
	if (!*ch)
		return neg_errno(ENODEV);
	ret = set_nonblock((*ch)->fd);
	if (ret)
		goto out_destroy_ch;
	if (rdma_create_id(*ch, id, ctx, RDMA_PS_TCP)) {
		ret = neg_errno(ENOMEM);
		goto out_destroy_ch;
	}
	return 0;

out_destroy_ch:
	rdma_destroy_event_channel(*ch);
	*ch = NULL;
	return ret;
}

#define CONNECT_GRACE_MS	500

/* Milliseconds from now until end (monotonic), at least 1. */
static int ms_until(uint64_t end)
{
	uint64_t now = ep_now_ms();

	return end > now + 1 ? (int)(end - now) : 1;
}

/* Waits for the next CM event on ch until deadline (ms, monotonic). */
static int cm_wait(struct rdma_event_channel *ch, uint64_t deadline,
		   struct rdma_cm_event **evp)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

	for (;;) {
		uint64_t now;
		int n;

		if (rdma_get_cm_event(ch, evp) == 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return neg_errno(EIO);
		now = ep_now_ms();
		if (now >= deadline)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, (int)(deadline - now));
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

/* Waits for one event of kind want; anything else is a failure. */
static int cm_expect(struct rpcrdma_ep *ep, enum rdma_cm_event_type want,
		     uint64_t deadline)
{
	struct rdma_cm_event *ev;
	int ret = cm_wait(ep->cm_ch, deadline, &ev);

	if (ret)
		return ret;
	if (ev->event == want) {
		ret = 0;
	} else {
		switch (ev->event) {
		case RDMA_CM_EVENT_ADDR_ERROR:
		case RDMA_CM_EVENT_ROUTE_ERROR:
			ret = ev->status < 0 ? ev->status : -EHOSTUNREACH;
			break;
		case RDMA_CM_EVENT_REJECTED:
			ret = -ECONNREFUSED;
			break;
		case RDMA_CM_EVENT_UNREACHABLE:
			ret = -ETIMEDOUT;
			break;
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			ep->dev_removed = true;
			ret = -ENODEV;
			break;
		default:
			ret = -ECONNABORTED;
			break;
		}
	}
	rdma_ack_cm_event(ev);
	return ret;
}

int rpcrdma_ep_connect(const struct sockaddr *dst, const struct sockaddr *src,
		       const struct rpcrdma_ep_opts *o, struct rpcrdma_ep **out)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	uint8_t pd[RPCRDMA_PVTDATA_LEN];
	uint8_t peer_pd[256];
	size_t peer_len = 0;
	struct rpcrdma_ep *ep;
	struct ep_sigpipe g;
	uint64_t deadline, end;
	bool resolving = false;
	int tmo, ret;

	if (!dst || !o || !out)
		return -EINVAL;
	*out = NULL;
	ep = ep_alloc(o);
	if (!ep)
		return -ENOMEM;
	/* The requester bounds its waits itself (its calls' timeouts). */
	ep->opts.stall_ms = 0;
	ep->opts.idle_ms = 0;
	tmo = opts_timeout(o);
	if (o->send_pvtdata) {
		ret = rpcrdma_pvtdata_encode(&ep->local_pd, pd);
		if (ret)
			goto out_free;
	}

	ret = cm_open(&ep->cm_ch, &ep->id, ep);
	if (ret)
		goto out_free;

	/* One deadline for resolution and connection together, so a caller's
	 * timeout bounds the whole connect; the grace lets the kernel's own
	 * timeout event arrive before we give up on it. */
	end = ep_now_ms() + (uint64_t)tmo;
	deadline = end + CONNECT_GRACE_MS;
	resolving = true;
	if (rdma_resolve_addr(ep->id, (struct sockaddr *)src,
			      (struct sockaddr *)dst, ms_until(end))) {
		ret = neg_errno(EHOSTUNREACH);
		goto out_free;
	}
	ret = cm_expect(ep, RDMA_CM_EVENT_ADDR_RESOLVED, deadline);
	if (ret)
		goto out_free;
	resolving = false;

	if (rdma_resolve_route(ep->id, ms_until(end))) {
		ret = neg_errno(EHOSTUNREACH);
		goto out_free;
	}
	ret = cm_expect(ep, RDMA_CM_EVENT_ROUTE_RESOLVED, deadline);
	if (ret)
		goto out_free;

	ret = ep_setup(ep, ep->id);
	if (ret)
		goto out_free;

	/* RFC 8797 section 4.1: R promises that a Send With Invalidate of
	 * the rkey a call names is safe, true only of type-2 memory windows
	 * (type 1 cannot be invalidated remotely: rxe's, reg.c): the
	 * requester advertises it only where it uses them. */
	if (ep->local_pd.remote_inv && !rpcrdma_ep_windows_invalidable(ep)) {
		ep->local_pd.remote_inv = false;
		if (o->send_pvtdata) {
			ret = rpcrdma_pvtdata_encode(&ep->local_pd, pd);
			if (ret)
				goto out_free;
		}
	}
	memset(&cp, 0, sizeof(cp));
	if (o->send_pvtdata) {
		cp.private_data = pd;
		cp.private_data_len = sizeof(pd);
	}
	/* >= 1 each: the Linux server refuses responder_resources 0
	 * (a test may offer 0 to play a client that answers no Read). */
	cp.responder_resources = ep->opts.no_read_resources ? 0 :
				 ep->responder_resources;
	cp.initiator_depth = ep->initiator_depth;
	cp.retry_count = o->retry_count ? o->retry_count : EP_RETRY_COUNT;
	/* As the Linux client: an RNR NAK is fatal, never retried. Both sides
	 * keep a receive posted for everything the peer may send (credits,
	 * RFC 8166 section 3.3.1), so an RNR means a broken peer. */
	cp.rnr_retry_count = 0;

	ep_sigpipe_hold(ep->iwarp, &g);
	ret = rdma_connect(ep->id, &cp) ? neg_errno(ECONNREFUSED) : 0;
	ep_sigpipe_release(&g);
	if (ret)
		goto out_free;
	ret = cm_wait(ep->cm_ch, deadline, &ev);
	if (ret)
		goto out_free;
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		peer_len = ev->param.conn.private_data_len;
		if (peer_len > sizeof(peer_pd))
			peer_len = sizeof(peer_pd);
		if (!ev->param.conn.private_data)
			peer_len = 0;
		if (peer_len)
			memcpy(peer_pd, ev->param.conn.private_data, peer_len);
		if (ev->param.conn.responder_resources &&
		    ev->param.conn.responder_resources < ep->initiator_depth)
			ep->initiator_depth = ev->param.conn.responder_resources;
		ret = 0;
		break;
	case RDMA_CM_EVENT_REJECTED:
		ret = -ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		ret = -ETIMEDOUT;
		break;
	default:
		ret = -ECONNABORTED;
		break;
	}
	rdma_ack_cm_event(ev);
	if (ret)
		goto out_free;

	ep_negotiate(ep, peer_pd, peer_len);
	ep_set_established(ep, RPCRDMA_EXPORT_CLIENT);
	*out = ep;
	return 0;

out_free:
	ep_free(ep);
	/*
	 * No device for the addresses: one may have been removed while no
	 * cm_id of ours was on it to get RDMA_CM_EVENT_DEVICE_REMOVAL (on
	 * siw the connection can end before that event), and librdmacm would
	 * keep its context of it open, the kernel's unregister waiting on it
	 * (ep_device_gone). Failed resolutions resync, off the fast path.
	 */
	if (resolving)
		ep_devices_resync();
	return ret;
}

/* ---- listener ---- */

static bool listener_any_port(const struct sockaddr *addr)
{
	if (addr->sa_family == AF_INET6)
		return ((const struct sockaddr_in6 *)addr)->sin6_port == 0;
	return ((const struct sockaddr_in *)addr)->sin_port == 0;
}

/* l's CM id and channel made, bound to addr and listening: 0 or -errno
 * (then neither is left). */
static int listener_bind(struct rpcrdma_listener *l,
			 const struct sockaddr *addr)
{
	int ret = cm_open(&l->ch, &l->id, l);

	if (ret)
		return ret;
	if (rdma_bind_addr(l->id, (struct sockaddr *)addr))
		ret = neg_errno(EADDRNOTAVAIL);
	else if (rdma_listen(l->id, 128))
		ret = neg_errno(EADDRINUSE);
	if (ret) {
		rdma_destroy_id(l->id);
		rdma_destroy_event_channel(l->ch);
		l->id = NULL;
		l->ch = NULL;
	}
	return ret;
}

int rpcrdma_listener_create(const struct sockaddr *addr,
			    const struct rpcrdma_ep_opts *o,
			    struct rpcrdma_listener **out)
{
	struct rpcrdma_listener *l;
	const struct sockaddr *sa;
	int ret;

	if (!addr || !o || !out)
		return -EINVAL;
	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->opts = *o;
	l->count = conn_count_new();
	if (!l->count) {
		ret = -ENOMEM;
		goto out_free;
	}
	/* Any port (0): on iWARP the port the CM picked can be held by a
	 * TCP socket the CM does not see (siw's own connections, in
	 * TIME_WAIT), and rdma_listen then fails with EADDRINUSE; another
	 * pick is tried (seen once in some hundred listeners on siw). */
	for (int tries = listener_any_port(addr) ? 8 : 1; tries > 0; tries--) {
		ret = listener_bind(l, addr);
		if (ret != -EADDRINUSE)
			break;
	}
	if (ret)
		goto out_free;
	sa = rdma_get_local_addr(l->id);
	memcpy(&l->addr, sa, ep_sockaddr_len(sa));
	*out = l;
	return 0;

out_free:
	conn_count_put(l->count);
	free(l);
	return ret;
}

int rpcrdma_listener_fd(const struct rpcrdma_listener *l)
{
	return l->ch->fd;
}

const struct sockaddr *rpcrdma_listener_addr(const struct rpcrdma_listener *l)
{
	return (const struct sockaddr *)&l->addr;
}

static void pending_remove(struct rpcrdma_listener *l, struct rpcrdma_ep *ep)
{
	struct rpcrdma_ep **pp;

	for (pp = &l->pending; *pp; pp = &(*pp)->next_pending) {
		if (*pp == ep) {
			*pp = ep->next_pending;
			break;
		}
	}
	ep->next_pending = NULL;
	ep->listener = NULL;
}

static bool pending_has(struct rpcrdma_listener *l, struct rpcrdma_ep *ep)
{
	struct rpcrdma_ep *p;

	for (p = l->pending; p; p = p->next_pending)
		if (p == ep)
			return true;
	return false;
}

/* rdma_reject under the SIGPIPE guard of ep_int.h (the id may have no
 * endpoint yet). */
static void id_reject(struct rdma_cm_id *id)
{
	struct ep_sigpipe g;

	ep_sigpipe_hold(id->verbs && id->verbs->device->transport_type ==
				     IBV_TRANSPORT_IWARP, &g);
	(void)rdma_reject(id, NULL, 0);
	ep_sigpipe_release(&g);
}

/*
 * Accepted connections whose handshake (the client's RTU) has not come
 * within the listener's timeout are dropped when a new request finds no
 * slot: a client that never completes one, or a forged REQ, would hold
 * its slot for as long as the REQ's own CM timeouts say, and those are
 * the sender's choice (security review 21c8dd5, finding 6). Destroying
 * the id makes the kernel reject the handshake. Only then: a burst of
 * requests handled one by one may take longer than the timeout while
 * ESTABLISHED events wait behind them, and below the limits nothing is
 * gained by dropping those.
 */
static void pending_expire(struct rpcrdma_listener *l)
{
	uint64_t now = ep_now_ms(), limit = (uint64_t)opts_timeout(&l->opts);
	struct rpcrdma_ep **pp = &l->pending;

	while (*pp) {
		struct rpcrdma_ep *ep = *pp;

		if (now - ep->accepted_ms < limit) {
			pp = &ep->next_pending;
			continue;
		}
		*pp = ep->next_pending;
		ep->next_pending = NULL;
		RPCRDMA_STAT_ADD(NULL, handshakes_expired, 1);
		ep_disconnect(ep);
		ep_free(ep);
	}
}

/*
 * CONNECT_REQUEST: build the endpoint on the new id (with the listener's
 * options), settle the thresholds from the client's Private Data and
 * accept with ours. The event has been acked; the id is ours to destroy.
 */
static int listener_conn_req(struct rpcrdma_listener *l, struct rdma_cm_id *id,
			     const uint8_t *pdata, size_t plen,
			     uint8_t ev_initiator_depth,
			     uint8_t ev_responder_res)
{
	const struct sockaddr *src = rdma_get_peer_addr(id);
	struct rdma_conn_param cp;
	uint8_t pd[RPCRDMA_PVTDATA_LEN];
	struct rpcrdma_pvtdata peer;
	struct rpcrdma_ep *ep;
	struct ep_sigpipe g;
	bool peer_sent;
	int ret;

	/* The connection limits count accepted connections until they are
	 * freed; one over either is rejected before anything is allocated,
	 * unless handshakes that never completed held the places. */
	if (conn_count_full(l->count, &l->opts, src)) {
		pending_expire(l);
		/* engine/conns.c: at max_conns an idle one may make room. */
		if (l->opts.idle_ms &&
		    conn_count_full(l->count, &l->opts, src) &&
		    !conn_count_source_full(l->count,
					    l->opts.max_conns_per_source, src))
			conn_count_evict_idle(l->count);
		if (conn_count_full(l->count, &l->opts, src)) {
			RPCRDMA_STAT_ADD(NULL, connections_refused, 1);
			id_reject(id);
			rdma_destroy_id(id);
			return -EMFILE;
		}
	}
	ep = ep_alloc(&l->opts);
	if (!ep) {
		id_reject(id);
		rdma_destroy_id(id);
		return -ENOMEM;
	}
	ep->id = id;
	id->context = ep;
	conn_count_link(l->count, ep, src);
	ep->cm_ch = rdma_create_event_channel();
	if (!ep->cm_ch) {
		ret = neg_errno(ENOMEM);
		goto out_reject;
	}
	ret = set_nonblock(ep->cm_ch->fd);
	if (ret)
		goto out_reject;
	ret = ep_setup(ep, id);
	if (ret)
		goto out_reject;

	peer_sent = pdata && plen && rpcrdma_pvtdata_parse(pdata, plen,
							  &peer) == 0;
	ep_negotiate(ep, pdata, plen);

	/*
	 * Reads we issue are bounded by what the client will answer, and
	 * the other way round. The CONNECT_REQUEST event gives both from
	 * our point of view (ib_cm swaps the REQ's fields): its
	 * initiator_depth is how many RDMA Reads the client will answer at
	 * once (its responder resources), its responder_resources how many
	 * it may issue. A client answering no Read gets none issued (our
	 * depth 0: rdma_accept(3) wants it within its resources); our
	 * responder resources stay at least 1.
	 */
	if (ev_initiator_depth < ep->initiator_depth)
		ep->initiator_depth = ev_initiator_depth;
	if (ev_responder_res && ev_responder_res < ep->responder_resources)
		ep->responder_resources = ev_responder_res;

	memset(&cp, 0, sizeof(cp));
	/* RFC 8797 section 5: answer with ours when the client sent one. */
	if (ep->opts.send_pvtdata && peer_sent &&
	    rpcrdma_pvtdata_encode(&ep->local_pd, pd) == 0) {
		cp.private_data = pd;
		cp.private_data_len = sizeof(pd);
	}
	cp.responder_resources = ep->responder_resources;
	cp.initiator_depth = ep->initiator_depth;
	cp.retry_count = EP_RETRY_COUNT;
	/* A client sending more calls than granted gets an RNR NAK and loses
	 * its connection rather than stalling the send queue (RFC 8166
	 * section 3.3.1; the Linux client uses 0 too). */
	cp.rnr_retry_count = ep->opts.rnr_retry_count;
	ep_sigpipe_hold(ep->iwarp, &g);
	ret = rdma_accept(id, &cp) ? neg_errno(ECONNABORTED) : 0;
	ep_sigpipe_release(&g);
	if (ret)
		goto out_reject;
	ep->listener = l;
	ep->accepted_ms = ep_now_ms();
	ep->next_pending = l->pending;
	l->pending = ep;
	return 0;

out_reject:
	id_reject(id);
	ep_free(ep);
	return ret;
}

/* ESTABLISHED on the listener's channel: move the id to the endpoint's own
 * channel (its event was acked, so nothing is outstanding; later events
 * of the id follow it) and hand it out. */
static int listener_established(struct rpcrdma_listener *l,
				struct rpcrdma_ep *ep)
{
	pending_remove(l, ep);
	if (rdma_migrate_id(ep->id, ep->cm_ch)) {
		int ret = neg_errno(EIO);

		ep_qp_to_error(ep->qp);
		ep_free(ep);
		return ret;
	}
	ep_set_established(ep, RPCRDMA_EXPORT_SERVER);
	pthread_mutex_lock(&ep->lock);
	ep->idle_since_ms = ep_now_ms();
	ep_idle_arm(ep);
	pthread_mutex_unlock(&ep->lock);
	return 0;
}

/*
 * The device the listener is bound to was removed: its cm_id (and the
 * connections not yet established, on the same device) go now, or the
 * device could never go (ep_device_gone). The listener accepts nothing
 * more; its fd stays valid until rpcrdma_listener_destroy (libtirpc
 * holds it). A listener on the wildcard address has no device.
 */
static void listener_device_gone(struct rpcrdma_listener *l)
{
	struct ibv_device *dev = l->id->verbs ? l->id->verbs->device : NULL;
	struct ep_sigpipe g;

	while (l->pending) {
		struct rpcrdma_ep *ep = l->pending;

		pending_remove(l, ep);
		ep_qp_to_error(ep->qp);
		ep_free(ep);
	}
	ep_sigpipe_hold(true, &g);	/* as in rpcrdma_listener_destroy */
	rdma_destroy_id(l->id);
	ep_sigpipe_release(&g);
	l->id = NULL;
	if (dev)
		ep_device_gone(dev);
}

int rpcrdma_listener_accept(struct rpcrdma_listener *l,
			    struct rpcrdma_ep **out)
{
	struct rdma_cm_event *ev;

	if (!l || !out)
		return -EINVAL;
	*out = NULL;
	for (;;) {
		enum rdma_cm_event_type type;
		struct rdma_cm_id *id;
		struct rpcrdma_ep *ep;
		uint8_t pdata[256];
		size_t plen = 0;
		uint8_t ini = 0, resp = 0;

		if (rdma_get_cm_event(l->ch, &ev)) {
			int err = errno;

			if (err == EAGAIN || err == EWOULDBLOCK ||
			    err == EINTR)
				return 0;
			ep_count_errno(NULL, err);
			return neg_errno(err);
		}
		type = ev->event;
		id = ev->id;
		if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			plen = ev->param.conn.private_data_len;
			if (!ev->param.conn.private_data)
				plen = 0;
			if (plen > sizeof(pdata))
				plen = sizeof(pdata);
			if (plen)
				memcpy(pdata, ev->param.conn.private_data,
				       plen);
			ini = ev->param.conn.initiator_depth;
			resp = ev->param.conn.responder_resources;
		}
		rdma_ack_cm_event(ev);

		if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			/* A failed request only costs that client. */
			listener_conn_req(l, id, pdata, plen, ini, resp);
			continue;
		}
		if (id == l->id) {
			if (type == RDMA_CM_EVENT_DEVICE_REMOVAL) {
				listener_device_gone(l);
				return -ENODEV;
			}
			continue;
		}
		ep = id->context;
		if (!ep || !pending_has(l, ep))
			continue;
		switch (type) {
		case RDMA_CM_EVENT_ESTABLISHED:
			if (listener_established(l, ep) == 0) {
				*out = ep;
				return 1;
			}
			break;
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			pending_remove(l, ep);
			ep->dev_removed = type == RDMA_CM_EVENT_DEVICE_REMOVAL;
			ep_qp_to_error(ep->qp);
			ep_free(ep);
			break;
		default:
			break;
		}
	}
}

void rpcrdma_listener_destroy(struct rpcrdma_listener *l)
{
	struct ep_sigpipe g;

	if (!l)
		return;
	while (l->pending) {
		struct rpcrdma_ep *ep = l->pending;

		pending_remove(l, ep);
		ep_disconnect(ep);
		ep_free(ep);
	}
	/* Requests not yet taken are rejected by the kernel from this
	 * thread when the id and its channel go (an MPA reject on iWARP);
	 * the listener may be on any device: always guarded. */
	ep_sigpipe_hold(true, &g);
	if (l->id)	/* NULL: its device was removed */
		rdma_destroy_id(l->id);
	rdma_destroy_event_channel(l->ch);
	ep_sigpipe_release(&g);
	conn_count_put(l->count);
	free(l);
}

void rpcrdma_ep_destroy(struct rpcrdma_ep *ep)
{
	if (!ep)
		return;
	if (ep->qp) {
		/* Disconnect (DREQ to the peer) and flush everything. */
		rpcrdma_ep_close(ep, -ENOTCONN);
		ep_qp_to_error(ep->qp);
		ep_drain(ep, EP_DRAIN_MAX_MS);
	}
	ep_free(ep);
}
