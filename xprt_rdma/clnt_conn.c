/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The connection's lifecycle: the first connection at creation (the
 * server's addresses and port, the source address), taking a new
 * endpoint into use and letting an old one go, the reconnect a call
 * makes once a broken connection is no longer used (ct_ensure_conn), and
 * what the next connection offers when this one broke a promise
 * (ct_unpromise). The engine sets an endpoint up (rpcrdma_ep_connect);
 * this file decides when, to where, and what the CLIENT's state becomes
 * around it.
 *
 * Port choice: opts->port if set, else RPCRDMA_PORT from the environment,
 * else the server's rpcbind (RPCBPROC_DUMP, netid "rdma"/"rdma6"); when
 * the program is not registered create fails with RPC_PROGNOTREGISTERED,
 * when rpcbind cannot be asked with RPC_PMAPFAILURE.
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "clnt.h"

/* --- connection --- */

/* Takes a new endpoint into use (ct->lock held, or at creation). */
static void ct_install(struct ct *ct, struct rpcrdma_ep *ep)
{
	ct_bc_purge(ct);
	ct->ep = ep;
	ct->gen++;
	ct->broken = false;
	ct->no_windows = false;
	/* RFC 8166 section 3.3.1: never more calls in flight than receives
	 * for their replies, which a small device may have made fewer than
	 * the slots (engine/ep_size.h). */
	rpcrdma_req_credits_init(&ct->credits,
				 rpcrdma_ep_credits(ep) < ct->nslots ?
					 rpcrdma_ep_credits(ep) : ct->nslots);
	ct_cv_broadcast(ct);
}

/* Connects within timeout_ms (never more than the CLIENT's own limit). */
static int ct_connect_ep(struct ct *ct, int timeout_ms,
			 struct rpcrdma_ep **out)
{
	struct rpcrdma_ep_opts eo = ct->eo;

	if (timeout_ms < eo.timeout_ms)
		eo.timeout_ms = timeout_ms;
	return rpcrdma_ep_connect(
	    (struct sockaddr *)&ct->addr,
	    ct->has_src ? (struct sockaddr *)&ct->src : NULL, &eo, out);
}

/* The first connection, at creation. */
static int ct_connect(struct ct *ct, int timeout_ms)
{
	struct rpcrdma_ep *ep;
	int rc = ct_connect_ep(ct, timeout_ms, &ep);

	if (!rc)
		ct_install(ct, ep);
	return rc;
}

/*
 * Lets go of the endpoint (ct->lock held): the slots' registrations and
 * windows first (windows die before their endpoint), its counters kept.
 * The reply buffers of free slots go too: what one server wrote there
 * must not be what a reply of the next connection's decodes, whose
 * server claimed more bytes than it wrote (slot_prepare makes them
 * again, zeroed). Returns the endpoint for rpcrdma_ep_destroy, which may
 * drain for a while: better without the lock.
 */
struct rpcrdma_ep *ct_detach(struct ct *ct)
{
	struct rpcrdma_ep *ep = ct->ep;

	for (uint32_t i = 0; i < ct->nslots; i++) {
		struct ct_slot *s = &ct->slots[i];

		slot_dereg(s);
		rpcrdma_win_destroy(s->win);
		s->win = NULL;
		rpcrdma_win_destroy(s->call_win);
		s->call_win = NULL;
		if (s->state == SLOT_FREE) {
			free(s->reply_buf);
			s->reply_buf = NULL;
			s->reply_cap = 0;
		}
	}
	if (ep)
		stats_add(&ct->base, rpcrdma_ep_stats(ep));
	ct->ep = NULL;
	return ep;
}

/*
 * Makes sure a live endpoint exists (ct->lock held): waits until the
 * calls on a broken one are gone, then reconnects. One caller connects,
 * without the lock (a connect can take its whole timeout): the others
 * wait on the condition variable within their own deadlines, and
 * clnt_control and other calls' completions go on meanwhile.
 */
int ct_ensure_conn(struct ct *ct, const struct timespec *dl,
		   uint64_t now_us)
{
	for (;;) {
		if (ct->ep && !ct->broken) {
			/* The clock as the call's deadline read it: no
			 * second read per call (other callers may have read
			 * it later: never a quiet second then). */
			uint64_t now = now_us;
			bool quiet = now > ct->last_call_us + CT_QUIET_US &&
				     !ct->polling;

			/* A server closes a connection that carried
			 * nothing for a while (the Linux server after 6
			 * minutes, ours after idle_ms); nobody read its CM
			 * channel meanwhile, and a call sent on it would
			 * fail. After a quiet second the channel is read
			 * first: one system call then, none per call. */
			if (rpcrdma_ep_connected(ct->ep) &&
			    (!quiet || rpcrdma_ep_check_cm(ct->ep))) {
				if (now > ct->last_call_us)
					ct->last_call_us = now;
				return 0;
			}
			ct_break(ct);
		}
		if (ct->ep_users == 0 && !ct->polling && !ct->connecting) {
			/* A reconnect spends the call's time, not more. */
			struct rpcrdma_ep *old, *ep = NULL;
			int ms, rc;

			if (xprt_ms_left(dl) <= 0)
				return -ETIMEDOUT;
			ct_break(ct); /* drops abandoned slots */
			old = ct_detach(ct);
			ct->connecting = true;
			pthread_mutex_unlock(&ct->lock);
			rpcrdma_ep_destroy(old);
			ms = xprt_ms_left(dl);
			rc = ms > 0 ? ct_connect_ep(ct, ms, &ep) : -ETIMEDOUT;
			pthread_mutex_lock(&ct->lock);
			ct->connecting = false;
			if (!rc)
				ct_install(ct, ep);
			ct_cv_broadcast(ct);
			return rc;
		}
		if (ct_cv_wait(ct, dl) == ETIMEDOUT)
			return -ETIMEDOUT;
	}
}

/*
 * A call found this connection unable to carry it: R promised (RFC 8797
 * section 4.1) that what a call exposes is windows, and the call got a
 * registration. The connection is reset; the next one does not promise
 * when this one could make no windows at all. ct->eo is read only by a
 * reconnect, which waits until no slot is in use: the caller's is.
 */
void ct_unpromise(struct ct *ct)
{
	pthread_mutex_lock(&ct->lock);
	if (ct->no_windows)
		ct->eo.remote_inv = false;
	ct_break(ct);
	pthread_mutex_unlock(&ct->lock);
}

/* explicit port > RPCRDMA_PORT > the server's rpcbind. */
static int ct_port(const char *host, rpcprog_t prog, rpcvers_t vers,
		   const struct rpcrdma_opts *o, int family, uint16_t *port)
{
	const char *env = rpcrdma_getenv("RPCRDMA_PORT");
	unsigned long v;
	char *end;

	if (o->port) {
		*port = o->port;
		return 0;
	}
	if (env && *env) {
		errno = 0;
		v = strtoul(env, &end, 10);
		if (!errno && !*end && v > 0 && v <= 65535) {
			*port = (uint16_t)v;
			return 0;
		}
	}
	return rpcrdma_rpcb_lookup(host, prog, vers,
				   family == AF_INET6 ? "rdma6" : "rdma", port);
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

static int ct_resolve_src(struct ct *ct, int family)
{
	struct addrinfo hints, *res;
	int rc;

	if (!ct->opts.src_addr)
		return 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(ct->opts.src_addr, NULL, &hints, &res);
	if (rc)
		return -EADDRNOTAVAIL;
	memcpy(&ct->src, res->ai_addr, res->ai_addrlen);
	ct->has_src = true;
	freeaddrinfo(res);
	return 0;
}

/* Tries each address of host in turn; 0 or the clnt_stat in *st. */
int ct_first_connect(struct ct *ct, const char *host, rpcprog_t prog,
			    rpcvers_t vers, enum clnt_stat *st)
{
	struct addrinfo hints, *res, *ai;
	uint16_t port;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &res)) {
		*st = RPC_UNKNOWNHOST;
		return -EHOSTUNREACH;
	}
	rc = -EAFNOSUPPORT;
	*st = RPC_UNKNOWNHOST;
	for (ai = res; ai; ai = ai->ai_next) {
		if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
		    ai->ai_addrlen > sizeof(ct->addr))
			continue;
		rc = ct_port(host, prog, vers, &ct->opts, ai->ai_family, &port);
		if (rc) {
			*st = rc == -ENOENT ? RPC_PROGNOTREGISTERED
					    : RPC_PMAPFAILURE;
			continue;
		}
		memset(&ct->addr, 0, sizeof(ct->addr));
		memcpy(&ct->addr, ai->ai_addr, ai->ai_addrlen);
		ct->addrlen = ai->ai_addrlen;
		set_port(&ct->addr, port);
		ct->has_src = false;
		rc = ct_resolve_src(ct, ai->ai_family);
		if (!rc)
			rc = ct_connect(ct, ct->eo.timeout_ms);
		if (!rc)
			break;
		*st = RPC_SYSTEMERROR;
	}
	freeaddrinfo(res);
	return rc;
}
