/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A slot's reply, decoded into the caller's results (ct_decode): the RPC
 * reply header (RFC 5531 section 9), the verifier checked by the
 * CLIENT's AUTH, the results through the AUTH's unwrap, and the bytes of
 * the call's write chunks handed to the XDR routine where its items are
 * (xdr_ddp.c). The common header (accepted, AUTH_NONE verifier,
 * SUCCESS) is read in place. Only the slot's bytes and the AUTH: no
 * lock but the AUTH's, no engine; tests/unit/check_rpchdr.c proves it
 * against libtirpc's own decoding.
 */
#include <string.h>
#include <arpa/inet.h>
#include "clnt.h"

/* Decodes no results: xdr_replymsg's placeholder for them. */
static bool_t ct_xdr_void(XDR *xdrs, ...)
{
	(void)xdrs;
	return TRUE;
}

/* Whether the reply starts as nearly every reply does (RFC 5531 section
 * 9): this call's XID, REPLY, MSG_ACCEPTED, an AUTH_NONE verifier of no
 * bytes, SUCCESS. Those six words are then read in place, not through
 * xdr_replymsg's tree of XDR routines (about 400 instructions of a NULL
 * call's 5,900). The RPC header is never moved by DDP: it is inline. */
static bool ct_reply_plain(const struct ct_slot *s)
{
	uint32_t w[CT_REPLY_PLAIN_LEN / 4];

	if (s->reply_len < CT_REPLY_PLAIN_LEN)
		return false;
	memcpy(w, s->reply_buf, sizeof(w));
	return ntohl(w[0]) == s->xid && ntohl(w[1]) == REPLY &&
	       ntohl(w[2]) == MSG_ACCEPTED && ntohl(w[3]) == AUTH_NONE &&
	       w[4] == 0 && ntohl(w[5]) == SUCCESS;
}

/* Decodes the reply in the slot (RPC message in s->reply_buf). */
enum clnt_stat ct_decode(struct ct *ct, struct ct_slot *s,
				xdrproc_t xres, void *resp, struct rpc_err *err,
				bool *refresh)
{
	AUTH *auth = ct->clnt.cl_auth;
	struct rpcrdma_xdrddp dd;
	struct rpc_msg reply;
	bool ddp = false;
	XDR x;

	memset(&reply, 0, sizeof(reply));
	reply.acpted_rply.ar_verf = _null_auth;
	reply.acpted_rply.ar_results.where = NULL;
	reply.acpted_rply.ar_results.proc = ct_xdr_void;
	for (uint32_t i = 0; i < s->nwrites; i++) {
		dd.chunks[i].data = slot_write_area(s, i);
		dd.chunks[i].len = s->wlen[i];
		ddp |= s->wlen[i] != 0;
	}
	dd.n = s->nwrites;
	if (ddp &&
	    rpcrdma_xdrddp_create(&x, &dd, s->reply_buf, s->reply_len,
				  ct->opts.ddp_threshold)) {
		err->re_status = RPC_CANTDECODERES;
		return err->re_status;
	} else if (!ddp)
		xdrmem_create(&x, (char *)s->reply_buf, s->reply_len,
			      XDR_DECODE);
	if (ct_reply_plain(s)) {
		/* As xdr_replymsg and _seterr_reply would have left it. */
		(void)XDR_SETPOS(&x, CT_REPLY_PLAIN_LEN);
		err->re_status = RPC_SUCCESS;
	} else if (!xdr_replymsg(&x, &reply) || reply.rm_xid != s->xid) {
		/* Its verifier may be decoded already (a reply cut short
		 * after it): freed below, or each such reply leaks it. */
		err->re_status = RPC_CANTDECODERES;
		goto out_verf;
	} else {
		_seterr_reply(&reply, err);
	}
	if (err->re_status == RPC_SUCCESS) {
		bool stateless = ct_auth_stateless(auth);
		bool locked = ct_auth_locked(ct, auth);

		if (locked)
			pthread_mutex_lock(&ct->auth_lock);
		if (!AUTH_VALIDATE(auth, &reply.acpted_rply.ar_verf)) {
			err->re_status = RPC_AUTHERROR;
			err->re_why = AUTH_INVALIDRESP;
		}
		if (stateless && locked)
			pthread_mutex_unlock(&ct->auth_lock);
		if (err->re_status == RPC_SUCCESS &&
		    !AUTH_UNWRAP(auth, &x, xres, resp))
			err->re_status = RPC_CANTDECODERES;
		if (err->re_status == RPC_SUCCESS && ddp &&
		    !rpcrdma_xdrddp_done(&dd)) {
			/* Returned bytes the results did not take: not the
			 * reply to this call's XDR. What was decoded goes
			 * (libtirpc callers free nothing after a failure). */
			xdr_free(xres, resp);
			err->re_status = RPC_CANTDECODERES;
		}
		if (!stateless && locked)
			pthread_mutex_unlock(&ct->auth_lock);
	} else if (err->re_status == RPC_AUTHERROR) {
		pthread_mutex_lock(&ct->auth_lock);
		*refresh = AUTH_REFRESH(auth, &reply);
		pthread_mutex_unlock(&ct->auth_lock);
	}
out_verf:
	xprt_reply_verf_free(&x, &reply);
	XDR_DESTROY(&x);
	return err->re_status;
}
