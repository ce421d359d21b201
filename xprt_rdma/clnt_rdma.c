/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The libtirpc CLIENT for RPC-over-RDMA version 1 (RFC 8166): the
 * requester side of one connection. This file is the CLIENT itself: its
 * ops, creation and destruction, clnt_control, the public entry points
 * that first check that a CLIENT is ours (stats, errtext, the backward
 * service's registration); one call's orchestration is clnt_call.c's
 * ct_call_once. Each protocol step is a file of its own below this one,
 * which calls down into them and never the other way (clnt.h gives the
 * order).
 *
 * Errors: a lost connection fails every call in flight with RPC_CANTRECV
 * (re_errno ENOTCONN); the next call reconnects (a new endpoint, a fresh
 * RFC 8797 Private Data exchange). A reconnect that fails gives
 * RPC_CANTSEND with its errno. RDMA_ERROR, a permanent error (RFC 8166
 * section 4.5), fails only its call, with the status xprt_rdma_err_stat
 * (tirpc.c) gives the server's callback CLIENT too: ERR_VERS with
 * RPC_SYSTEMERROR, re_errno EPROTONOSUPPORT, ERR_CHUNK with
 * RPC_CANTDECODEARGS, re_errno EBADMSG; a reply whose header the decoder
 * rejects fails its call with RPC_CANTDECODERES. clnt_sperror adds, for a
 * call that met a limit, which knob moves it. When every credit is held
 * by abandoned calls and a caller has waited a whole timeout for one, the
 * connection is reset by the next call.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/random.h>
#include <rpc/rpc.h>
#include <rpc/svc_auth.h>
#include "clnt.h"

static const struct clnt_ops clnt_rdma_ops;

/* --- time --- */

static enum clnt_stat clnt_rdma_call(CLIENT *cl, rpcproc_t proc,
				     xdrproc_t xargs, void *argsp,
				     xdrproc_t xres, void *resp,
				     struct timeval timeout)
{
	struct ct *ct = to_ct(cl);
	struct ct_when w = {.timeout = timeout};
	int refreshes = CT_REFRESHES;
	struct rpc_err err;
	struct ct_limit lim;
	enum clnt_stat st;
	bool refresh, gss;

	/* RPCSEC_GSS checks a reply against the AUTH's current sequence
	 * number, the last one MARSHALL took: its calls go one at a time,
	 * as over libtirpc's own transports. */
	gss = cl->cl_auth->ah_cred.oa_flavor == RPCSEC_GSS;
	if (gss) {
		/* The deadline runs from here, the wait for the others'
		 * calls included. */
		pthread_mutex_lock(&ct->lock);
		ct_when_take(ct, &w);
		pthread_mutex_unlock(&ct->lock);
		pthread_mutex_lock(&ct->gss_lock);
	}
	do {
		refresh = false;
		memset(&lim, 0, sizeof(lim));
		st = ct_call_once(ct, proc, xargs, argsp, xres, resp, &w, &err,
				  &lim, &refresh);
	} while (st == RPC_AUTHERROR && refresh && refreshes-- > 0);
	if (gss)
		pthread_mutex_unlock(&ct->gss_lock);
	return st;
}

int rpcrdma_clnt_errtext(CLIENT *cl, char *buf, size_t len)
{
	struct ct_limit lim;
	struct ct *ct;

	if (!cl || cl->cl_ops != &clnt_rdma_ops || !len)
		return 0;
	ct = to_ct(cl);
	pthread_mutex_lock(&ct->lock);
	lim = ct->limit;
	pthread_mutex_unlock(&ct->lock);
	return ct_limit_text(&lim, buf, len);
}

static void clnt_rdma_geterr(CLIENT *cl, struct rpc_err *errp)
{
	struct ct *ct = to_ct(cl);

	pthread_mutex_lock(&ct->lock);
	*errp = ct->error;
	pthread_mutex_unlock(&ct->lock);
}

/* Words of the prebuilt call header (RFC 5531 section 9). */
#define CALLHDR_PROG 3
#define CALLHDR_VERS 4

static uint32_t callhdr_get(const struct ct *ct, int word)
{
	uint32_t v;

	memcpy(&v, ct->callhdr + 4 * word, sizeof(v));
	return ntohl(v);
}

static void callhdr_set(struct ct *ct, int word, uint32_t v)
{
	v = htonl(v);
	memcpy(ct->callhdr + 4 * word, &v, sizeof(v));
}

static bool_t clnt_rdma_control(CLIENT *cl, u_int req, void *info)
{
	struct ct *ct = to_ct(cl);
	bool_t ok = TRUE;

	switch (req) {
	case CLSET_FD_CLOSE:
	case CLSET_FD_NCLOSE:
		return TRUE;
	}
	if (!info)
		return FALSE;
	pthread_mutex_lock(&ct->lock);
	switch (req) {
	case CLSET_TIMEOUT:
		if (!xprt_timeval_ok(info)) {
			ok = FALSE;
			break;
		}
		ct->wait = *(struct timeval *)info;
		ct->wait_set = true;
		break;
	case CLGET_TIMEOUT:
		*(struct timeval *)info = ct->wait;
		break;
	case CLGET_SERVER_ADDR:
		memcpy(info, &ct->addr, ct->addrlen);
		break;
	case CLGET_SVC_ADDR:
		*(struct netbuf *)info = ct->nb;
		break;
	case CLGET_FD:
		if (ct->ep)
			*(int *)info = rpcrdma_ep_fd(ct->ep);
		else
			ok = FALSE;
		break;
	case CLGET_XID:
		*(uint32_t *)info = ct->last_xid;
		break;
	case CLSET_XID:
		/* The xid of the next call; from now on each is checked
		 * against the calls out (ct_next_xid). */
		atomic_store(&ct->next_xid, *(uint32_t *)info);
		ct->xid_set = true;
		break;
	case CLGET_VERS:
		*(uint32_t *)info = callhdr_get(ct, CALLHDR_VERS);
		break;
	case CLSET_VERS:
		callhdr_set(ct, CALLHDR_VERS, *(uint32_t *)info);
		break;
	case CLGET_PROG:
		*(uint32_t *)info = callhdr_get(ct, CALLHDR_PROG);
		break;
	case CLSET_PROG:
		callhdr_set(ct, CALLHDR_PROG, *(uint32_t *)info);
		break;
	case CLGET_RDMA_STATS:
		*(struct rpcrdma_stats *)info = ct->base;
		if (ct->ep)
			stats_add(info, rpcrdma_ep_stats(ct->ep));
		break;
	case CLGET_RDMA_INLINE:
		if (ct->ep)
			*(struct rpcrdma_inline *)info =
			    *rpcrdma_ep_inline(ct->ep);
		else
			ok = FALSE;
		break;
	case CLSET_RDMA_REPLY_MAX:
		ct->reply_max = *(uint32_t *)info;
		break;
	case CLGET_RDMA_REPLY_MAX:
		*(uint32_t *)info = ct->reply_max;
		break;
	case CLSET_RDMA_PROC_REPLY:
		ok = ct_set_hint(ct, info);
		break;
	case CLGET_RDMA_PROC_REPLY: {
		struct rpcrdma_proc_reply *h = info;
		uint32_t i = ct_hint_index(ct, h->proc);

		h->reply_max = i < ct->nhints ? ct->hints[i].reply_max : 0;
		break;
	}
	case CLSET_RDMA_PROC_DDP:
		ok = ct_set_ddp(ct, info);
		break;
	case CLGET_RDMA_MAX_MSG:
		*(uint32_t *)info = ct->opts.max_msg;
		break;
	case CLGET_RDMA_PROC_DDP: {
		struct rpcrdma_proc_ddp *h = info;
		uint32_t i = ct_hint_index(ct, h->proc);

		h->items = i < ct->nhints ? ct->hints[i].ddp_items : 0;
		h->item_max = i < ct->nhints ? ct->hints[i].ddp_max : 0;
		break;
	}
	default:
		ok = FALSE;
		break;
	}
	pthread_mutex_unlock(&ct->lock);
	return ok;
}

bool rpcrdma_clnt_svc_reg(CLIENT *cl, rpcprog_t prog, rpcvers_t vers,
			  void (*dispatch)(struct svc_req *, SVCXPRT *))
{
	struct ct_bsvc *n;
	struct ct_bc *bc;
	struct ct *ct;
	bool ok = false;
	uint32_t i;

	if (!cl || cl->cl_ops != &clnt_rdma_ops || !dispatch)
		return false;
	ct = to_ct(cl);
	pthread_mutex_lock(&ct->lock);
	bc = ct->bc;
	if (!bc) {
		bc = calloc(1, sizeof(*bc));
		if (!bc)
			goto out;
		bc->ct = ct;
		bc->xprt.xp_fd = -1;
		bc->xprt.xp_ops = &ct_bc_ops;
		bc->xprt.xp_p3 = &bc->ext;
		bc->xprt.xp_netid = strdup(ct->clnt.cl_netid);
		bc->xprt.xp_rtaddr.buf = &ct->addr;
		bc->xprt.xp_rtaddr.len = ct->addrlen;
		bc->xprt.xp_rtaddr.maxlen = sizeof(ct->addr);
		if (!bc->xprt.xp_netid ||
		    pthread_create(&bc->th, NULL, ct_bc_thread, bc)) {
			free(bc->xprt.xp_netid);
			free(bc);
			goto out;
		}
		ct->bc = bc;
	}
	for (i = 0; i < bc->nsvcs; i++)
		if (bc->svcs[i].prog == prog && bc->svcs[i].vers == vers)
			break;
	if (i == bc->nsvcs) {
		n = realloc(bc->svcs, (bc->nsvcs + 1) * sizeof(*n));
		if (!n)
			goto out;
		bc->svcs = n;
		bc->nsvcs++;
	}
	bc->svcs[i].prog = prog;
	bc->svcs[i].vers = vers;
	bc->svcs[i].dispatch = dispatch;
	ok = true;
out:
	pthread_mutex_unlock(&ct->lock);
	return ok;
}

static void ct_free(struct ct *ct)
{
	ct_bc_free(ct);
	rpcrdma_ep_destroy(ct_detach(ct));
	for (uint32_t i = 0; i < ct->nslots; i++) {
		if (ct->slots[i].xdr_ok)
			rpcrdma_xdrgrow_destroy(&ct->slots[i].xdr);
		free(ct->slots[i].reply_buf);
		sem_destroy(&ct->slots[i].wake);
	}
	free(ct->slots);
	free(ct->hints);
	free(ct->src_str);
	free(ct->clnt.cl_netid);
	free(ct->clnt.cl_tp);
	pthread_cond_destroy(&ct->cv);
	pthread_mutex_destroy(&ct->gss_lock);
	pthread_mutex_destroy(&ct->auth_lock);
	pthread_mutex_destroy(&ct->lock);
	free(ct);
}

static void clnt_rdma_destroy(CLIENT *cl)
{
	struct ct *ct = to_ct(cl);

	/* cl_auth belongs to the caller (authnone's is a shared one). */
	ct_free(ct);
}

static const struct clnt_ops clnt_rdma_ops = {
	.cl_call = clnt_rdma_call,
	.cl_abort = xprt_clnt_abort,
	.cl_geterr = clnt_rdma_geterr,
	.cl_freeres = xprt_clnt_freeres,
	.cl_destroy = clnt_rdma_destroy,
	.cl_control = clnt_rdma_control,
};

int rpcrdma_clnt_stats(CLIENT *cl, struct rpcrdma_stats *out)
{
	if (!cl || !out || cl->cl_ops != &clnt_rdma_ops)
		return -EINVAL;
	return clnt_rdma_control(cl, CLGET_RDMA_STATS, out) ? 0 : -EINVAL;
}

/* --- creation --- */

static void ct_callhdr(struct ct *ct, rpcprog_t prog, rpcvers_t vers)
{
	struct rpc_msg call;
	XDR x;

	memset(&call, 0, sizeof(call));
	call.rm_xid = 0;
	call.rm_direction = CALL;
	call.rm_call.cb_rpcvers = RPC_MSG_VERSION;
	call.rm_call.cb_prog = prog;
	call.rm_call.cb_vers = vers;
	xdrmem_create(&x, (char *)ct->callhdr, sizeof(ct->callhdr), XDR_ENCODE);
	(void)xdr_callhdr(&x, &call); /* exactly 20 bytes */
	XDR_DESTROY(&x);
}

static int ct_init_locks(struct ct *ct)
{
	pthread_condattr_t ca;
	int rc;

	rc = pthread_mutex_init(&ct->lock, NULL);
	if (rc)
		return -rc;
	rc = pthread_mutex_init(&ct->auth_lock, NULL);
	if (rc)
		goto out_lock;
	rc = pthread_mutex_init(&ct->gss_lock, NULL);
	if (rc)
		goto out_auth;
	rc = pthread_condattr_init(&ca);
	if (rc)
		goto out_gss;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&ct->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (rc)
		goto out_gss;
	return 0;
out_gss:
	pthread_mutex_destroy(&ct->gss_lock);
out_auth:
	pthread_mutex_destroy(&ct->auth_lock);
out_lock:
	pthread_mutex_destroy(&ct->lock);
	return -rc;
}

/* The slots, one per credit, each with the semaphore its caller sleeps
 * on. */
static int ct_slots_alloc(struct ct *ct)
{
	ct->slots = calloc(ct->opts.credits, sizeof(*ct->slots));
	if (!ct->slots)
		return -ENOMEM;
	for (; ct->nslots < ct->opts.credits; ct->nslots++) {
		if (sem_init(&ct->slots[ct->nslots].wake, 0, 0))
			return -errno;
	}
	return 0;
}

CLIENT *clnt_rdma_create(const char *host, rpcprog_t prog, rpcvers_t vers,
			 const struct rpcrdma_opts *opts)
{
	enum clnt_stat st = RPC_SYSTEMERROR;
	uint32_t xid0;
	struct ct *ct;
	int rc;

	if (!host) {
		xprt_createerr(RPC_UNKNOWNHOST, EINVAL);
		return NULL;
	}
	ct = calloc(1, sizeof(*ct));
	if (!ct) {
		xprt_createerr(RPC_SYSTEMERROR, ENOMEM);
		return NULL;
	}
	if (opts)
		ct->opts = *opts;
	else
		rpcrdma_opts_from_env(&ct->opts);
	ct->opts.ddp_threshold = rpcrdma_ddp_min(ct->opts.ddp_threshold);
	rc = rpcrdma_opts_to_ep(&ct->opts, &ct->eo);
	/* RFC 8167 section 3.3.1: receives for the backward calls we
	 * grant, whether or not a service is registered yet. */
	ct->eo.bc_credits = RPCRDMA_BC_CREDITS;
	if (rc || ct->opts.max_msg < RPCRDMA_XDR_UNIT) {
		free(ct);
		xprt_createerr(RPC_SYSTEMERROR, EINVAL);
		return NULL;
	}
	rc = ct_init_locks(ct);
	if (rc) {
		free(ct);
		xprt_createerr(RPC_SYSTEMERROR, rc);
		return NULL;
	}
	rc = ct_slots_alloc(ct);
	if (ct->opts.src_addr)
		ct->src_str = strdup(ct->opts.src_addr);
	ct->clnt.cl_netid = strdup("rdma");
	if (rc || !ct->clnt.cl_netid ||
	    (ct->opts.src_addr && !ct->src_str)) {
		rc = -ENOMEM;
		goto out_free;
	}
	ct->opts.src_addr = ct->src_str;
	rpcrdma_limits_default(&ct->limits);
	ct->wait.tv_sec = 25; /* libtirpc's customary default */
	/* libtirpc's field is not const; nothing writes through it. */
	ct->clnt.cl_ops = (struct clnt_ops *)(uintptr_t)&clnt_rdma_ops;
	ct->clnt.cl_private = ct;
	ct_callhdr(ct, prog, vers);
	if (getrandom(&xid0, sizeof(xid0), GRND_NONBLOCK) != sizeof(xid0))
		xid0 = (uint32_t)time(NULL) ^ ((uint32_t)getpid() << 16);
	atomic_init(&ct->next_xid, xid0);
	ct->last_xid = xid0;

	rc = ct_first_connect(ct, host, prog, vers, &st);
	if (rc)
		goto out_free;
	if (ct->addr.ss_family == AF_INET6) {
		free(ct->clnt.cl_netid);
		ct->clnt.cl_netid = strdup("rdma6");
		if (!ct->clnt.cl_netid) {
			rc = -ENOMEM;
			st = RPC_SYSTEMERROR;
			goto out_free;
		}
	}
	ct->nb.buf = &ct->addr;
	ct->nb.len = ct->addrlen;
	ct->nb.maxlen = sizeof(ct->addr);
	ct->clnt.cl_auth = authnone_create();
	if (!ct->clnt.cl_auth) {
		rc = -ENOMEM;
		st = RPC_SYSTEMERROR;
		goto out_free;
	}
	ct->none_ops = ct->clnt.cl_auth->ah_ops;
	return &ct->clnt;
out_free:
	ct_free(ct);
	xprt_createerr(st, rc);
	return NULL;
}
