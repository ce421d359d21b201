/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The server side of RPC-over-RDMA as libtirpc SVCXPRTs.
 *
 * A listener is a "rendezvous" transport whose xp_fd is the RDMA-CM event
 * channel; its xp_recv accepts the pending connections and makes one
 * connection transport per endpoint, whose xp_fd is the endpoint's
 * completion channel. Both are xprt_register'ed, so svc_run() and
 * svc_getreq_poll() drive everything (docs/design.md): libtirpc's
 * svc_getreq_common() calls xp_recv, the dispatch routine (which calls
 * xp_getargs, xp_reply, xp_freeargs), then xp_stat, looping while it says
 * XPRT_MOREREQS and destroying the transport when it says XPRT_DIED.
 *
 * A connection holds at most one call at a time (libtirpc dispatches
 * serially per transport): the received buffer stays with us until the
 * reply is sent or the next xp_recv gives up on it.
 *
 * Flow control (RFC 8166 section 3.3.1): the grant is min(requested, our
 * maximum), bounded by the receives the engine provisioned; it does not
 * move with the calls queued. A client found with more calls outstanding
 * than it was ever granted is disconnected (and with rnr_retry_count 0 a
 * flood past the provisioned receives breaks its own connection). A reply
 * or RDMA_ERROR that cannot be sent closes the connection: the requester
 * would otherwise wait for it forever.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <rpc/rpc.h>
#include <rpc/svc_mt.h>
#include <rpcrdma/hdr.h>
#include <rpcrdma/credits.h>
#include <rpcrdma/plan.h>
#include <rpcrdma/splice.h>
#include "xprt.h"

/*
 * Bound on one RDMA Read or Write: 30 s plus 1 s per 128 KiB (Soft-RoCE
 * under emulation moves well under 1 MiB/s). The peer's adapter, not its
 * software, serves these, so a stuck one means a broken connection.
 */
static int io_timeout_ms(uint64_t len)
{
	uint64_t ms = 30000 + (len >> 17) * 1000;

	return ms > 600000 ? 600000 : (int)ms;
}

#define SVC_REPLY_INITIAL	4096u

struct svc_lsn {
	SVCXPRT xprt;
	SVCXPRT_EXT ext;
	struct rpcrdma_listener *l;
	struct rpcrdma_opts opts;
	struct sockaddr_storage laddr;
};

struct svc_conn {
	SVCXPRT xprt;
	SVCXPRT_EXT ext;
	struct rpcrdma_ep *ep;
	uint32_t max_msg;
	uint32_t max_credits;
	struct rpcrdma_limits lim;
	struct sockaddr_storage laddr, raddr;
	bool dead;
	uint32_t grant_max;		/* largest grant sent so far */

	/* The call being served, valid while have_call. */
	bool have_call;
	struct rpcrdma_rx rx;
	struct rpcrdma_msg hdr;		/* its transport header */
	uint32_t rpc_xid;
	XDR args;			/* memory stream over the call */

	/* Buffers reused from call to call. */
	uint8_t *rdbuf;			/* data pulled by RDMA Read */
	size_t rdcap;
	uint8_t *callbuf;		/* a call rebuilt by splicing */
	size_t callcap;
	XDR reply;			/* growable encode stream */
};

static const struct xp_ops lsn_ops;
static const struct xp_ops conn_ops;
static const struct xp_ops2 svc_rdma_ops2;

static struct svc_conn *to_conn(SVCXPRT *xprt)
{
	return (struct svc_conn *)((char *)xprt -
				   offsetof(struct svc_conn, xprt));
}

static struct svc_lsn *to_lsn(SVCXPRT *xprt)
{
	return (struct svc_lsn *)((char *)xprt -
				  offsetof(struct svc_lsn, xprt));
}

/* Counts on this connection and in the process totals (engine.h). */
#define STAT_INC(c, f)	RPCRDMA_STAT_ADD((c)->ep, f, 1)

static socklen_t sa_len(const struct sockaddr *sa)
{
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (sa->sa_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return 0;
}

static uint16_t sa_port(const struct sockaddr *sa)
{
	if (sa && sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa && sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

/* Fills the address fields libtirpc and its callers read. */
static void xprt_set_addrs(SVCXPRT *x, struct sockaddr_storage *lss,
			   const struct sockaddr *local,
			   struct sockaddr_storage *rss,
			   const struct sockaddr *remote)
{
	socklen_t ll = sa_len(local), rl = sa_len(remote);

	if (ll) {
		memcpy(lss, local, ll);
		x->xp_ltaddr.buf = (char *)lss;
		x->xp_ltaddr.len = ll;
		x->xp_ltaddr.maxlen = sizeof(*lss);
		x->xp_port = sa_port(local);
	}
	if (rl && rss) {
		memcpy(rss, remote, rl);
		x->xp_rtaddr.buf = (char *)rss;
		x->xp_rtaddr.len = rl;
		x->xp_rtaddr.maxlen = sizeof(*rss);
		/* svc_getcaller() reads xp_raddr (a sockaddr_in6). */
		memcpy(&x->xp_raddr, remote, rl);
		x->xp_addrlen = (int)rl;
	}
}

static const char *netid_of(const struct sockaddr *sa)
{
	return sa && sa->sa_family == AF_INET6 ? "rdma6" : "rdma";
}

/* ---- connection transport ---- */

/* Gives the received buffer back; the call is over. */
static void conn_release_call(struct svc_conn *c)
{
	if (!c->have_call)
		return;
	XDR_DESTROY(&c->args);
	rpcrdma_ep_rx_done(c->ep, &c->rx);
	c->have_call = false;
}

/* Our fatal error on this connection: close it (RFC 8166 section 4.5:
 * the requester must not wait for a reply that will never come). */
static void conn_fail(struct svc_conn *c, int err)
{
	if (c->dead)
		return;
	c->dead = true;
	rpcrdma_ep_close(c->ep, err);
}

/* A reply or RDMA_ERROR that could not go out ends the connection. */
static void conn_send_failed(struct svc_conn *c, int err)
{
	if (err != -ENOTCONN && !c->dead)
		STAT_INC(c, send_failures);
	conn_fail(c, err);
}

/* RFC 8166 section 3.3.1: min(requested, our maximum), never beyond the
 * provisioned receives, whatever is in flight. */
static uint32_t conn_grant(struct svc_conn *c, uint32_t requested)
{
	uint32_t g = rpcrdma_rsp_credits_grant(requested, c->max_credits,
					       rpcrdma_ep_credits(c->ep));

	if (g > c->grant_max)
		c->grant_max = g;
	RPCRDMA_STAT_SET(c->ep, credits_granted, g);
	RPCRDMA_STAT_MIN(c->ep, credits_grant_min, g);
	RPCRDMA_STAT_MAX(c->ep, credits_grant_max, g);
	return g;
}

static int conn_send_hdr(struct svc_conn *c, const struct rpcrdma_msg *m,
			 const void *body, size_t body_len)
{
	uint8_t hbuf[RPCRDMA_HDR_FIXED + 4 + 4 + 4 + 8 +
		     4 * (RPCRDMA_MAX_SEGS + RPCRDMA_MAX_WRITE_CHUNKS) +
		     RPCRDMA_SEGMENT_WIRE * RPCRDMA_MAX_SEGS];
	struct iovec iov[2];
	size_t used;
	int rc;

	rc = rpcrdma_hdr_encode(m, hbuf, sizeof(hbuf), &used);
	if (rc)
		return rc;
	iov[0].iov_base = hbuf;
	iov[0].iov_len = used;
	iov[1].iov_base = (void *)body;
	iov[1].iov_len = body_len;
	rc = rpcrdma_ep_send(c->ep, iov, body_len ? 2 : 1, 0);
	if (rc)
		conn_send_failed(c, rc);
	return rc;
}

/*
 * RDMA_ERROR (RFC 8166 section 4.2.4 / 5): ERR_VERS carries the range of
 * versions we support (1..1), ERR_CHUNK nothing more.
 */
static void conn_send_error(struct svc_conn *c, uint32_t xid,
			    uint32_t requested, enum rpcrdma_errcode err)
{
	struct rpcrdma_msg m;

	rpcrdma_msg_init_error(&m, xid, conn_grant(c, requested), err);
	m.vers_low = RPCRDMA_VERSION;
	m.vers_high = RPCRDMA_VERSION;
	if (conn_send_hdr(c, &m, NULL, 0))
		return;
	STAT_INC(c, sent_error);
	if (err == RPCRDMA_ERR_VERS)
		STAT_INC(c, err_vers_sent);
	else
		STAT_INC(c, err_chunk_sent);
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *nb;

	if (need <= *cap)
		return 0;
	nb = realloc(*buf, need);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = need;
	return 0;
}

/*
 * Pulls every read chunk of the call (RFC 8166 section 3.5.3) and
 * rebuilds the RPC message: for RDMA_NOMSG the position-zero chunk is the
 * message, for RDMA_MSG the inline part; chunks at nonzero positions are
 * spliced in at their XDR positions. 0 with *msg / *len, -EMSGSIZE when
 * the call is larger than max_msg or malformed (the caller answers
 * ERR_CHUNK), or another -errno.
 */
static int conn_gather_call(struct svc_conn *c, const uint8_t *inl,
			    size_t inl_len, const uint8_t **msg, size_t *len)
{
	const struct rpcrdma_msg *h = &c->hdr;
	struct rpcrdma_segment segs[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_piece pieces[RPCRDMA_MAX_READ_SEGS];
	uint32_t npieces = 0, i, j, n;
	uint64_t total = 0, off = 0;
	bool nomsg = h->proc == RPCRDMA_NOMSG;
	int rc;

	/* RDMA_NOMSG without a position-zero chunk carries no call. */
	if (nomsg && (h->nreads == 0 || h->reads[0].position != 0))
		return -EMSGSIZE;
	for (i = 0; i < h->nreads; i++)
		total += h->reads[i].seg.length;
	if (total > c->max_msg)
		return -EMSGSIZE;
	rc = grow(&c->rdbuf, &c->rdcap, total ? (size_t)total : 1);
	if (rc)
		return rc;

	/* One chunk = consecutive read segments sharing a position. */
	for (i = 0; i < h->nreads; i = j) {
		uint32_t pos = h->reads[i].position;
		uint64_t clen = 0;

		for (j = i, n = 0; j < h->nreads &&
		     h->reads[j].position == pos; j++, n++) {
			segs[n] = h->reads[j].seg;
			clen += segs[n].length;
		}
		rc = rpcrdma_ep_read(c->ep, c->rdbuf + off, clen, segs, n,
				     io_timeout_ms(clen));
		if (rc) {
			/* The peer's segments failed us (bad rkey, timeout,
			 * lost connection): nothing on this connection can
			 * be trusted to complete. */
			conn_fail(c, rc);
			return rc;
		}
		STAT_INC(c, read_chunks);
		if (pos == 0 && nomsg && i == 0) {
			inl = c->rdbuf + off;
			inl_len = (size_t)clen;
		} else {
			if (clen > UINT32_MAX)
				return -EMSGSIZE;
			pieces[npieces].position = pos;
			pieces[npieces].data = c->rdbuf + off;
			pieces[npieces].length = (uint32_t)clen;
			npieces++;
		}
		off += clen;
	}

	if (npieces == 0) {
		if (inl_len > c->max_msg)
			return -EMSGSIZE;
		*msg = inl;
		*len = inl_len;
		return 0;
	}
	rc = grow(&c->callbuf, &c->callcap, c->max_msg);
	if (rc)
		return rc;
	rc = rpcrdma_splice(inl, inl_len, pieces, npieces, c->callbuf,
			    c->max_msg, len);
	if (rc)
		return -EMSGSIZE;
	*msg = c->callbuf;
	return 0;
}

/* Counts an RDMA_ERROR the client sent us; it is then dropped. */
static void conn_count_error_recv(struct svc_conn *c)
{
	STAT_INC(c, recv_error);
	if (c->hdr.err == RPCRDMA_ERR_VERS)
		STAT_INC(c, err_vers_recv);
	else
		STAT_INC(c, err_chunk_recv);
}

/*
 * Takes one received message. Returns 1 with a call ready for dispatch,
 * 0 when the message was consumed (answered with RDMA_ERROR or dropped).
 */
static int conn_take(struct svc_conn *c, struct rpc_msg *msg)
{
	enum rpcrdma_hdr_err herr;
	const uint8_t *call;
	size_t hlen, call_len;
	int rc;

	herr = rpcrdma_hdr_decode(c->rx.data, c->rx.len, &c->lim, &c->hdr,
				  &hlen);
	if (herr != RPCRDMA_HDR_OK) {
		STAT_INC(c, bad_headers);
		/*
		 * Without the four fixed words there is no XID to answer.
		 * Never answer an RDMA_ERROR with another (a malformed one
		 * included), or two peers could ping-pong forever.
		 */
		if (c->rx.len >= RPCRDMA_HDR_FIXED &&
		    (herr == RPCRDMA_HDR_EVERS ||
		     c->hdr.proc != RPCRDMA_ERROR))
			conn_send_error(c, c->hdr.xid, c->hdr.credits,
					rpcrdma_hdr_err_to_wire(herr));
		return 0;
	}

	switch (c->hdr.proc) {
	case RPCRDMA_MSG:
		STAT_INC(c, recv_msg);
		break;
	case RPCRDMA_NOMSG:
		STAT_INC(c, recv_nomsg);
		break;
	case RPCRDMA_ERROR:
		conn_count_error_recv(c);
		return 0;
	default:
		return 0;
	}

	rc = conn_gather_call(c, c->rx.data + hlen, c->rx.len - hlen,
			      &call, &call_len);
	if (rc) {
		/* RFC 8166 section 4.5.3: chunks we cannot process. */
		if (rc == -EMSGSIZE && !c->dead)
			conn_send_error(c, c->hdr.xid, c->hdr.credits,
					RPCRDMA_ERR_CHUNK);
		return 0;
	}

	/* An RPC message we cannot parse is dropped, as svc_vc does. */
	xdrmem_create(&c->args, (char *)call, (u_int)call_len, XDR_DECODE);
	if (!xdr_callmsg(&c->args, msg)) {
		XDR_DESTROY(&c->args);
		return 0;
	}
	/* RFC 8166 section 4.2.1: rdma_xid repeats the RPC message's XID;
	 * the reply would otherwise be matched to the wrong call. */
	if (msg->rm_xid != c->hdr.xid) {
		XDR_DESTROY(&c->args);
		STAT_INC(c, xid_mismatches);
		conn_send_error(c, c->hdr.xid, c->hdr.credits,
				RPCRDMA_ERR_CHUNK);
		return 0;
	}
	c->rpc_xid = msg->rm_xid;
	return 1;
}

static bool_t conn_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_conn *c = to_conn(xprt);
	int rc;

	/* A call the dispatcher never answered is abandoned here. */
	conn_release_call(c);
	if (c->dead)
		return FALSE;
	for (;;) {
		rc = rpcrdma_ep_poll(c->ep, &c->rx, 0);
		if (rc < 0) {
			c->dead = true;
			return FALSE;
		}
		if (rc == 0)
			return FALSE;
		/*
		 * Every message queued behind this one was sent before our
		 * reply to it, so together they are calls outstanding at
		 * once: more than ever granted breaks RFC 8166 section
		 * 3.3.1. Before the first grant the provisioned credits
		 * bound it.
		 */
		if (1 + rpcrdma_ep_rx_queued(c->ep) >
		    (c->grant_max ? c->grant_max : rpcrdma_ep_credits(c->ep))) {
			STAT_INC(c, credit_overruns);
			rpcrdma_ep_rx_done(c->ep, &c->rx);
			conn_fail(c, -EPROTO);
			return FALSE;
		}
		if (conn_take(c, msg) == 1) {
			c->have_call = true;
			return TRUE;
		}
		rpcrdma_ep_rx_done(c->ep, &c->rx);
		if (c->dead)
			return FALSE;
	}
}

static enum xprt_stat conn_stat(SVCXPRT *xprt)
{
	struct svc_conn *c = to_conn(xprt);

	if (c->dead || !rpcrdma_ep_connected(c->ep))
		return XPRT_DIED;
	if (rpcrdma_ep_rx_pending(c->ep))
		return XPRT_MOREREQS;
	return XPRT_IDLE;
}

static bool_t conn_getargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	struct svc_conn *c = to_conn(xprt);
	SVCAUTH *auth = &SVC_XP_AUTH(xprt);

	if (!c->have_call)
		return FALSE;
	c->args.x_op = XDR_DECODE;
	if (auth->svc_ah_ops)
		return SVCAUTH_UNWRAP(auth, &c->args, xargs, argsp);
	return (*xargs)(&c->args, argsp);
}

static bool_t conn_freeargs(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	XDR x;

	(void)xprt;
	memset(&x, 0, sizeof(x));
	x.x_op = XDR_FREE;
	return (*xargs)(&x, argsp);
}

/* Encodes the reply as svc_vc does, letting the auth flavour wrap it. */
static bool conn_encode_reply(struct svc_conn *c, struct rpc_msg *msg)
{
	SVCAUTH *auth = &SVC_XP_AUTH(&c->xprt);
	XDR *x = &c->reply;

	rpcrdma_xdrgrow_reset(x);
	msg->rm_xid = c->rpc_xid;
	if (auth->svc_ah_ops && msg->rm_reply.rp_stat == MSG_ACCEPTED &&
	    msg->acpted_rply.ar_stat == SUCCESS) {
		xdrproc_t proc = msg->acpted_rply.ar_results.proc;
		caddr_t where = msg->acpted_rply.ar_results.where;
		bool ok;

		msg->acpted_rply.ar_results.proc =
			(xdrproc_t)(void (*)(void))xdr_void;
		msg->acpted_rply.ar_results.where = NULL;
		ok = xdr_replymsg(x, msg) &&
		     SVCAUTH_WRAP(auth, x, proc, where);
		msg->acpted_rply.ar_results.proc = proc;
		msg->acpted_rply.ar_results.where = where;
		return ok;
	}
	return xdr_replymsg(x, msg);
}

/*
 * No DDP yet: every write chunk the call offered goes back unused, with
 * its segment count kept and every length zero (RFC 8166 section
 * 3.4.6).
 */
static int add_unused_writes(const struct rpcrdma_msg *call,
			     struct rpcrdma_msg *m)
{
	uint32_t i, j;
	int idx, rc;

	for (i = 0; i < call->nwrites; i++) {
		const struct rpcrdma_chunk *w = &call->writes[i];

		idx = rpcrdma_msg_add_write_chunk(m);
		if (idx < 0)
			return idx;
		for (j = 0; j < w->nsegs; j++) {
			struct rpcrdma_segment s = call->segs[w->first + j];

			s.length = 0;
			rc = rpcrdma_msg_add_write_seg(m, (uint32_t)idx, &s);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/*
 * Long Reply (RFC 8166 section 3.5.4): the reply goes into the reply
 * chunk by RDMA Write, then RDMA_NOMSG carries the chunk back with the
 * lengths actually written (section 4.2.1.3 / 3.6).
 */
static int conn_send_long(struct svc_conn *c, uint32_t grant,
			  const void *body, size_t len)
{
	const struct rpcrdma_chunk *rc = &c->hdr.reply;
	const struct rpcrdma_segment *segs = &c->hdr.segs[rc->first];
	uint32_t written[RPCRDMA_MAX_SEGS];
	struct rpcrdma_msg m;
	uint32_t i;
	int err;

	memset(written, 0, sizeof(written));
	err = rpcrdma_ep_write(c->ep, body, len, segs, rc->nsegs, written,
			       io_timeout_ms(len));
	if (err) {
		/* -EMSGSIZE: the chunk is too small (ERR_CHUNK); anything
		 * else is the connection's end. */
		if (err != -EMSGSIZE)
			conn_send_failed(c, err);
		return err;
	}
	rpcrdma_msg_init(&m, c->hdr.xid, grant, RPCRDMA_NOMSG);
	err = add_unused_writes(&c->hdr, &m);
	if (err)
		return err;
	/* Every segment goes back, unfilled ones with length zero. */
	for (i = 0; i < rc->nsegs; i++) {
		struct rpcrdma_segment s = segs[i];

		s.length = written[i];
		err = rpcrdma_msg_add_reply_seg(&m, &s);
		if (err)
			return err;
	}
	err = conn_send_hdr(c, &m, NULL, 0);
	if (err)
		return err;
	STAT_INC(c, sent_nomsg);
	STAT_INC(c, reply_chunks);
	return 0;
}

static bool_t conn_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_conn *c = to_conn(xprt);
	struct rpcrdma_chunk_cap reply_cap = { 0, 0 };
	struct rpcrdma_chunk_cap writes[RPCRDMA_MAX_WRITE_CHUNKS];
	struct rpcrdma_reply_plan plan;
	struct rpcrdma_msg m;
	uint32_t grant, send_max;
	size_t len;
	void *body;
	uint32_t i;
	int rc = -EINVAL;

	if (!c->have_call || c->dead)
		return FALSE;
	grant = conn_grant(c, c->hdr.credits);
	if (!conn_encode_reply(c, msg))
		goto out_err_chunk;	/* larger than max_msg */
	body = rpcrdma_xdrgrow_buf(&c->reply, &len);
	if (c->hdr.has_reply) {
		reply_cap.nsegs = c->hdr.reply.nsegs;
		reply_cap.bytes = rpcrdma_chunk_length(&c->hdr, &c->hdr.reply);
	}
	for (i = 0; i < c->hdr.nwrites; i++) {
		writes[i].nsegs = c->hdr.writes[i].nsegs;
		writes[i].bytes = rpcrdma_chunk_length(&c->hdr,
						       &c->hdr.writes[i]);
	}
	send_max = rpcrdma_ep_inline(c->ep)->send_max;
	/* No DDP yet (no items): offered write chunks go back unused. */
	rc = rpcrdma_plan_reply((uint32_t)len, NULL, 0, 0, send_max, writes,
				c->hdr.nwrites, &reply_cap, &plan);
	if (rc)
		goto out_err_chunk;
	if (plan.kind == RPCRDMA_REPLY_LONG) {
		rc = conn_send_long(c, grant, body, len);
	} else {
		rpcrdma_msg_init(&m, c->hdr.xid, grant, RPCRDMA_MSG);
		rc = add_unused_writes(&c->hdr, &m);
		if (!rc)
			rc = conn_send_hdr(c, &m, body, len);
		if (!rc)
			STAT_INC(c, sent_msg);
	}
	if (rc == 0 || c->dead)
		goto out;
out_err_chunk:
	/*
	 * RFC 8166 section 4.5.3: the reply fits nowhere (reply chunk
	 * missing or too small, header too large, offered chunks unusable):
	 * the requester gets ERR_CHUNK rather than silence.
	 */
	conn_send_error(c, c->hdr.xid, c->hdr.credits, RPCRDMA_ERR_CHUNK);
	rc = -EMSGSIZE;
out:
	conn_release_call(c);
	return rc == 0;
}

static void conn_destroy(SVCXPRT *xprt)
{
	struct svc_conn *c = to_conn(xprt);
	SVCAUTH *auth = &SVC_XP_AUTH(xprt);

	xprt_unregister(xprt);
	conn_release_call(c);
	if (auth->svc_ah_ops && auth->svc_ah_ops->svc_ah_destroy)
		SVCAUTH_DESTROY(auth);
	rpcrdma_ep_destroy(c->ep);
	rpcrdma_xdrgrow_destroy(&c->reply);
	free(c->rdbuf);
	free(c->callbuf);
	free(xprt->xp_netid);
	free(c);
}

static bool_t svc_rdma_control(SVCXPRT *xprt, const u_int rq, void *in)
{
	(void)xprt;
	(void)rq;
	(void)in;
	return FALSE;
}

static bool_t no_args(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	(void)xprt;
	(void)xargs;
	(void)argsp;
	return FALSE;
}

static bool_t no_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	(void)xprt;
	(void)msg;
	return FALSE;
}

static const struct xp_ops conn_ops = {
	.xp_recv = conn_recv,
	.xp_stat = conn_stat,
	.xp_getargs = conn_getargs,
	.xp_reply = conn_reply,
	.xp_freeargs = conn_freeargs,
	.xp_destroy = conn_destroy,
};

static const struct xp_ops2 svc_rdma_ops2 = {
	.xp_control = svc_rdma_control,
};

/* Wraps an established endpoint in a registered connection transport. */
static int conn_create(struct svc_lsn *lsn, struct rpcrdma_ep *ep)
{
	const struct sockaddr *peer = rpcrdma_ep_peer(ep);
	struct svc_conn *c;
	int rc;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ep = ep;
	c->max_msg = lsn->opts.max_msg;
	c->max_credits = lsn->opts.credits;
	rpcrdma_limits_default(&c->lim);
	rc = rpcrdma_xdrgrow_create(&c->reply, SVC_REPLY_INITIAL < c->max_msg ?
				    SVC_REPLY_INITIAL : c->max_msg,
				    c->max_msg);
	if (rc)
		goto out_free;
	c->xprt.xp_netid = strdup(netid_of(peer ? peer :
				  (const struct sockaddr *)&lsn->laddr));
	if (!c->xprt.xp_netid) {
		rc = -ENOMEM;
		goto out_xdr;
	}
	c->xprt.xp_fd = rpcrdma_ep_fd(ep);
	c->xprt.xp_ops = &conn_ops;
	c->xprt.xp_ops2 = &svc_rdma_ops2;
	c->xprt.xp_p1 = c;
	c->xprt.xp_p3 = &c->ext;
	xprt_set_addrs(&c->xprt, &c->laddr,
		       (const struct sockaddr *)&lsn->laddr, &c->raddr, peer);
	xprt_register(&c->xprt);
	return 0;

out_xdr:
	rpcrdma_xdrgrow_destroy(&c->reply);
out_free:
	free(c);
	return rc;
}

/* ---- rendezvous (listening) transport ---- */

/* Accepts what is pending; never a call of its own (like svc_vc). */
static bool_t lsn_recv(SVCXPRT *xprt, struct rpc_msg *msg)
{
	struct svc_lsn *lsn = to_lsn(xprt);
	struct rpcrdma_ep *ep;

	(void)msg;
	while (rpcrdma_listener_accept(lsn->l, &ep) == 1) {
		if (conn_create(lsn, ep))
			rpcrdma_ep_destroy(ep);
	}
	return FALSE;
}

static enum xprt_stat lsn_stat(SVCXPRT *xprt)
{
	(void)xprt;
	return XPRT_IDLE;
}

static void lsn_destroy(SVCXPRT *xprt)
{
	struct svc_lsn *lsn = to_lsn(xprt);

	xprt_unregister(xprt);
	rpcrdma_listener_destroy(lsn->l);
	free(xprt->xp_netid);
	free(lsn);
}

static const struct xp_ops lsn_ops = {
	.xp_recv = lsn_recv,
	.xp_stat = lsn_stat,
	.xp_getargs = no_args,
	.xp_reply = no_reply,
	.xp_freeargs = no_args,
	.xp_destroy = lsn_destroy,
};

/* addr: an IPv4 or IPv6 literal, or NULL for INADDR_ANY. */
static int parse_addr(const char *addr, uint16_t port,
		      struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (!addr || inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		if (!addr)
			sin->sin_addr.s_addr = htonl(INADDR_ANY);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return 0;
	}
	return -EINVAL;
}

SVCXPRT *svc_rdma_create(const char *addr, const struct rpcrdma_opts *opts)
{
	struct rpcrdma_ep_opts eo;
	struct sockaddr_storage ss;
	const struct sockaddr *bound;
	struct svc_lsn *lsn;
	int rc;

	lsn = calloc(1, sizeof(*lsn));
	if (!lsn) {
		xprt_createerr(RPC_SYSTEMERROR, ENOMEM);
		return NULL;
	}
	if (opts)
		lsn->opts = *opts;
	else
		rpcrdma_opts_from_env(&lsn->opts);
	lsn->opts.src_addr = NULL;	/* not ours to keep */
	if (lsn->opts.max_msg < RPCRDMA_HDR_MIN ||
	    rpcrdma_opts_to_ep(&lsn->opts, &eo)) {
		rc = -EINVAL;
		goto out_free;
	}
	rc = parse_addr(addr, lsn->opts.port ? lsn->opts.port :
			(uint16_t)RPCRDMA_NFS_PORT, &ss);
	if (rc)
		goto out_free;
	rc = rpcrdma_listener_create((struct sockaddr *)&ss, &eo, &lsn->l);
	if (rc)
		goto out_free;
	bound = rpcrdma_listener_addr(lsn->l);
	if (!sa_len(bound))
		bound = (const struct sockaddr *)&ss;
	lsn->xprt.xp_netid = strdup(netid_of(bound));
	if (!lsn->xprt.xp_netid) {
		rc = -ENOMEM;
		goto out_destroy_listener;
	}
	lsn->xprt.xp_fd = rpcrdma_listener_fd(lsn->l);
	lsn->xprt.xp_ops = &lsn_ops;
	lsn->xprt.xp_ops2 = &svc_rdma_ops2;
	lsn->xprt.xp_p1 = lsn;
	lsn->xprt.xp_p3 = &lsn->ext;
	xprt_set_addrs(&lsn->xprt, &lsn->laddr, bound, NULL, NULL);
	xprt_register(&lsn->xprt);
	return &lsn->xprt;

out_destroy_listener:
	rpcrdma_listener_destroy(lsn->l);
out_free:
	free(lsn);
	xprt_createerr(rc == -EINVAL ? RPC_UNKNOWNADDR : RPC_SYSTEMERROR, -rc);
	return NULL;
}

int rpcrdma_svc_stats(SVCXPRT *xprt, struct rpcrdma_stats *out)
{
	if (!xprt || !out)
		return -EINVAL;
	if (xprt->xp_ops != &conn_ops)
		return -ENOTCONN;
	*out = *rpcrdma_ep_stats(to_conn(xprt)->ep);
	return 0;
}

bool rpcrdma_svc_reg(SVCXPRT *xprt, rpcprog_t prog, rpcvers_t vers,
		     void (*dispatch)(struct svc_req *, SVCXPRT *))
{
	if (!xprt || (xprt->xp_ops != &lsn_ops && xprt->xp_ops != &conn_ops))
		return false;
	if (!svc_reg(xprt, prog, vers, dispatch, NULL))
		return false;
	/* rpcbind may not run at all: then only an explicit port works. */
	(void)rpcrdma_rpcb_set(prog, vers, xprt->xp_netid,
			       (const struct sockaddr *)xprt->xp_ltaddr.buf);
	return true;
}
