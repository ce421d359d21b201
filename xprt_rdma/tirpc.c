/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What both directions need from libtirpc: the reply encoding that lets
 * the auth flavour wrap the results (the server's replies, svc_send.c,
 * and those of the client's backward service, clnt_bc.c), the clnt_stat
 * of a call failed by RDMA_ERROR (the forward CLIENT, clnt_rdma.c, and
 * the server's callback CLIENT, svc_bc.c), what both CLIENTs do alike
 * (the timeout check, abort, freeres, the reply's verifier; the callback
 * CLIENT's whole reply decoding), and the null
 * xp_ops members of transports that carry no calls (the listener, the
 * pool's waker, the client's backward SVCXPRT). It calls nothing else of
 * the library.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <rpc/rpc.h>
#include <rpcrdma/wire.h>
#include "svc.h"
#include "xprt.h"

/*
 * The header of an accepted, successful reply with an AUTH_NONE verifier
 * of no bytes (nearly every reply; RFC 5531 section 9): six words written
 * in place, where xdr_replymsg's tree of XDR routines cost about 590
 * instructions of a NULL call's 6,400 on the server. false when the
 * reply is another or the stream gives no direct access.
 */
static bool reply_plain_encode(XDR *x, const struct rpc_msg *msg)
{
	const struct opaque_auth *v = &msg->acpted_rply.ar_verf;
	int32_t *p;

	if (msg->rm_direction != REPLY ||
	    msg->rm_reply.rp_stat != MSG_ACCEPTED ||
	    msg->acpted_rply.ar_stat != SUCCESS || v->oa_flavor != AUTH_NONE ||
	    v->oa_length != 0)
		return false;
	p = XDR_INLINE(x, 6 * BYTES_PER_XDR_UNIT);
	if (!p)
		return false;
	p[0] = (int32_t)htonl(msg->rm_xid);
	p[1] = (int32_t)htonl(REPLY);
	p[2] = (int32_t)htonl(MSG_ACCEPTED);
	p[3] = (int32_t)htonl(AUTH_NONE);
	p[4] = 0;
	p[5] = (int32_t)htonl(SUCCESS);
	return true;
}

/*
 * Only an accepted reply has a verifier: in a denial the union's other
 * arm (rejected_reply) overlays it, and RPC_MISMATCH's high version lies
 * where oa_base is (a peer's number freed as a pointer). Both CLIENTs
 * decode their replies with xdr_replymsg: the forward one
 * (clnt_decode.c) and the server's callback one (xprt_reply_decode,
 * below, for svc_bc.c).
 */
void xprt_reply_verf_free(XDR *x, struct rpc_msg *msg)
{
	if (msg->rm_reply.rp_stat != MSG_ACCEPTED ||
	    !msg->acpted_rply.ar_verf.oa_base)
		return;
	x->x_op = XDR_FREE;
	(void)xdr_opaque_auth(x, &msg->acpted_rply.ar_verf);
}

enum clnt_stat xprt_reply_decode(AUTH *auth, const uint8_t *buf,
				 uint32_t len, uint32_t xid, xdrproc_t xres,
				 void *resp, struct rpc_err *err)
{
	struct rpc_msg reply;
	XDR x;

	memset(&reply, 0, sizeof(reply));
	reply.acpted_rply.ar_verf = _null_auth;
	reply.acpted_rply.ar_results.where = resp;
	reply.acpted_rply.ar_results.proc = xres;
	xdrmem_create(&x, (char *)buf, len, XDR_DECODE);
	if (!xdr_replymsg(&x, &reply) || reply.rm_xid != xid) {
		err->re_status = RPC_CANTDECODERES;
	} else {
		_seterr_reply(&reply, err);
		if (err->re_status == RPC_SUCCESS &&
		    !AUTH_VALIDATE(auth, &reply.acpted_rply.ar_verf)) {
			err->re_status = RPC_AUTHERROR;
			err->re_why = AUTH_INVALIDRESP;
		}
	}
	xprt_reply_verf_free(&x, &reply);
	XDR_DESTROY(&x);
	return err->re_status;
}

bool xprt_reply_encode(SVCXPRT *xprt, XDR *x, struct rpc_msg *msg)
{
	SVCAUTH *auth = &SVC_XP_AUTH(xprt);

	if (auth->svc_ah_ops && msg->rm_reply.rp_stat == MSG_ACCEPTED &&
	    msg->acpted_rply.ar_stat == SUCCESS) {
		xdrproc_t proc = msg->acpted_rply.ar_results.proc;
		caddr_t where = msg->acpted_rply.ar_results.where;
		bool ok;

		if (reply_plain_encode(x, msg))
			return SVCAUTH_WRAP(auth, x, proc, where);
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
 * RFC 8166 section 4.5: RDMA_ERROR reports a permanent error, so a call it
 * fails gets a status callers do not take for a transport hiccup to
 * retry; *eno gets the call's re_errno. ERR_VERS: RPC_SYSTEMERROR,
 * EPROTONOSUPPORT; ERR_CHUNK (and any other code): RPC_CANTDECODEARGS,
 * EBADMSG.
 */
enum clnt_stat xprt_rdma_err_stat(uint32_t rdma_err, int *eno)
{
	if (rdma_err == RPCRDMA_ERR_VERS) {
		*eno = EPROTONOSUPPORT;
		return RPC_SYSTEMERROR;
	}
	*eno = EBADMSG;
	return RPC_CANTDECODEARGS;
}

bool_t xprt_no_args(SVCXPRT *xprt, xdrproc_t xargs, void *argsp)
{
	(void)xprt;
	(void)xargs;
	(void)argsp;
	return FALSE;
}

bool_t xprt_no_reply(SVCXPRT *xprt, struct rpc_msg *msg)
{
	(void)xprt;
	(void)msg;
	return FALSE;
}

enum xprt_stat xprt_stat_idle(SVCXPRT *xprt)
{
	(void)xprt;
	return XPRT_IDLE;
}

/* A timeout libtirpc would take: CLSET_TIMEOUT and a call's own. */
bool xprt_timeval_ok(const struct timeval *tv)
{
	return tv->tv_sec >= 0 && tv->tv_usec >= 0 && tv->tv_usec < 1000000;
}

/* cl_abort: nothing to abort (as libtirpc's own transports). */
void xprt_clnt_abort(CLIENT *cl)
{
	(void)cl;
}

/* cl_freeres: the results are the caller's XDR to free. */
bool_t xprt_clnt_freeres(CLIENT *cl, xdrproc_t xres, void *resp)
{
	(void)cl;
	xdr_free(xres, resp);
	return TRUE;
}
