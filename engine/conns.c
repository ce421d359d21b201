/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A listener's count of the connections it accepted (struct
 * ep_conn_count, shared with the endpoints, which may outlive the
 * listener) and the limits it enforces on them (security review 21c8dd5,
 * finding 6): all connections at once (max_conns), those of one client
 * host (max_conns_per_source), and at max_conns the idle connection that
 * makes room for a new client. cm.c asks at each CONNECT_REQUEST; ep.c
 * unlinks an endpoint as it is freed; core.c's idle ticks say how long
 * each has been quiet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ep_int.h"

struct ep_conn_count *conn_count_new(void)
{
	struct ep_conn_count *cc = calloc(1, sizeof(*cc));

	if (!cc)
		return NULL;
	cc->refs = 1;
	pthread_mutex_init(&cc->lock, NULL);
	return cc;
}

/* Drops one reference to a listener's connection count. */
void conn_count_put(struct ep_conn_count *cc)
{
	if (cc && __atomic_sub_fetch(&cc->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		pthread_mutex_destroy(&cc->lock);
		free(cc);
	}
}

/* Puts an accepted endpoint on its listener's count. */
void conn_count_link(struct ep_conn_count *cc, struct rpcrdma_ep *ep,
		     const struct sockaddr *src)
{
	if (src)
		memcpy(&ep->src, src, ep_sockaddr_len(src));
	ep->conn_count = cc;
	__atomic_add_fetch(&cc->refs, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&cc->lock);
	ep->cc_prev = NULL;
	ep->cc_next = cc->eps;
	if (cc->eps)
		cc->eps->cc_prev = ep;
	cc->eps = ep;
	__atomic_add_fetch(&cc->live, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cc->lock);
}

/* Takes an accepted endpoint off its listener's list (any thread). */
void conn_count_unlink(struct rpcrdma_ep *ep)
{
	struct ep_conn_count *cc = ep->conn_count;

	pthread_mutex_lock(&cc->lock);
	if (ep->cc_prev)
		ep->cc_prev->cc_next = ep->cc_next;
	else if (cc->eps == ep)
		cc->eps = ep->cc_next;
	if (ep->cc_next)
		ep->cc_next->cc_prev = ep->cc_prev;
	ep->cc_next = ep->cc_prev = NULL;
	if (!ep->cc_evicted)	/* an evicted one was uncounted then */
		__atomic_sub_fetch(&cc->live, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cc->lock);
}

/* The same host: the port is the client's choice and says nothing. */
static bool same_host(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	switch (a->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	case AF_INET6:
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr,
			      sizeof(struct in6_addr)) == 0;
	default:
		return false;	/* AF_IB: not limited per source */
	}
}

/*
 * Whether the client's host already holds its share of the connections
 * (max_conns_per_source, 0: no limit): one host must not take every slot
 * of the listener. Accepted connections not yet freed count, established
 * or not; evicted ones no longer do.
 */
bool conn_count_source_full(struct ep_conn_count *cc, uint32_t max,
			    const struct sockaddr *src)
{
	struct rpcrdma_ep *ep;
	uint32_t n = 0;

	if (!max || !src)
		return false;
	pthread_mutex_lock(&cc->lock);
	for (ep = cc->eps; ep && n < max; ep = ep->cc_next)
		n += !ep->cc_evicted &&
		     same_host(src, (const struct sockaddr *)&ep->src);
	pthread_mutex_unlock(&cc->lock);
	return n >= max;
}

bool conn_count_full(struct ep_conn_count *cc, const struct rpcrdma_ep_opts *o,
		     const struct sockaddr *src)
{
	return (o->max_conns &&
		__atomic_load_n(&cc->live, __ATOMIC_ACQUIRE) >= o->max_conns) ||
	       conn_count_source_full(cc, o->max_conns_per_source, src);
}

/*
 * At max_conns, the established connection idle longest, for half the
 * idle time at least (a quiet tick of ep_idle_arm's timer, and nothing
 * since), makes room for a new client, as the Linux server closes its
 * oldest temporary transport (svc_check_conn_limits): idle connections
 * that one host left open do not keep every other client out until they
 * are reaped. A connection in use, or quiet for less, is never closed
 * for another; the request is then refused. Completions not yet reaped
 * are reaped first, so a call already in the queue counts as use. The
 * victim is closed from this thread (rdma_disconnect is safe beside its
 * owner's calls; the list's lock keeps its id alive, ep_free unlinks
 * first) and its owner sees it go as it would a client's disconnect. It
 * stops counting at once.
 */
bool conn_count_evict_idle(struct ep_conn_count *cc)
{
	struct rpcrdma_ep *ep, *victim = NULL;
	uint64_t best = 0;

	pthread_mutex_lock(&cc->lock);
	for (ep = cc->eps; ep; ep = ep->cc_next) {
		uint64_t since = 0;
		bool idle;

		if (ep->cc_evicted || ep->listener)	/* going, or pending */
			continue;
		pthread_mutex_lock(&ep->lock);
		/* Transfers in flight make it busy anyway; without them a
		 * reap only queues receives for the owner, whose channel
		 * event stays. */
		if (!ep->xf_count)
			ep_reap(ep);
		idle = ep_is_up(ep) && ep->idle_ticks &&
		       ep_quiet_since_tick(ep);
		since = ep->idle_since_ms;
		pthread_mutex_unlock(&ep->lock);
		/* The longest idle: the oldest tick that saw traffic. */
		if (idle && (!victim || since < best)) {
			victim = ep;
			best = since;
		}
	}
	if (victim) {
		victim->cc_evicted = true;
		__atomic_sub_fetch(&cc->live, 1, __ATOMIC_RELEASE);
		rpcrdma_ep_close_why(victim, -ECONNRESET,
				     RPCRDMA_CLOSE_EVICTED);
	}
	pthread_mutex_unlock(&cc->lock);
	return victim != NULL;
}
