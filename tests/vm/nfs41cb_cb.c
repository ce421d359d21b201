/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs41cb's backward service (RFC 8881 s20): CB_NULL and CB_COMPOUND
 * decoded and answered from the dispatch function (CB_SEQUENCE checked
 * as a replier must, CB_RECALL recorded), what it saw for the main
 * thread (cb, and the negative control break_reply, both defined here),
 * and cb_wait with which main waits for it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rpc/rpc.h>

#include "nfs41cb.h"

/* ---- the backward service: CB_NULL and CB_COMPOUND (RFC 8881 s20) ---- */

struct cb_call {
	char tag[64];
	u_int taglen;
	uint32_t minor, ident, nops;
	uint32_t codes[8];
	uint32_t ndecoded;	/* an operation we do not know stops it */
	struct {
		char id[16];
		uint32_t seq, slot, highest;
		bool_t cachethis;
	} seq;
	struct {
		struct stateid sid;
		bool_t truncate;
		struct fh fh;
	} recall;
};

struct cb_res_op {
	uint32_t code, status;
};

struct cb_reply {
	struct cb_call *call;
	uint32_t status, nres;
	struct cb_res_op res[8];
};

/* referring_call_list4<> (s20.9): read and dropped. */
static bool_t x_referring_skip(XDR *x)
{
	uint32_t n, m, seq, slot;
	char id[16];

	if (!x_u32(x, &n) || n > 16)
		return FALSE;
	while (n--) {
		if (!xdr_opaque(x, id, 16) || !x_u32(x, &m) || m > 64)
			return FALSE;
		while (m--)
			if (!x_u32(x, &seq) || !x_u32(x, &slot))
				return FALSE;
	}
	return TRUE;
}

static bool_t x_cb_args(XDR *x, struct cb_call *c)
{
	char *t = c->tag;

	/* Fixed buffers only: nothing to free (svc_freeargs). */
	if (x->x_op != XDR_DECODE)
		return TRUE;
	c->ndecoded = 0;
	if (!xdr_bytes(x, &t, &c->taglen, sizeof(c->tag)) ||
	    !x_u32(x, &c->minor) || !x_u32(x, &c->ident) ||
	    !x_u32(x, &c->nops) || c->nops > 8)
		return FALSE;
	for (uint32_t i = 0; i < c->nops; i++) {
		uint32_t *code = &c->codes[i];

		if (!x_u32(x, code))
			return FALSE;
		if (*code == OP_CB_SEQUENCE) {
			if (!xdr_opaque(x, c->seq.id, 16) ||
			    !x_u32(x, &c->seq.seq) || !x_u32(x, &c->seq.slot) ||
			    !x_u32(x, &c->seq.highest) ||
			    !xdr_bool(x, &c->seq.cachethis) ||
			    !x_referring_skip(x))
				return FALSE;
		} else if (*code == OP_CB_RECALL) {
			if (!x_stateid(x, &c->recall.sid) ||
			    !xdr_bool(x, &c->recall.truncate) ||
			    !x_fh(x, &c->recall.fh))
				return FALSE;
		} else {
			/* Its arguments cannot be skipped: answered
			 * NFS4ERR_NOTSUPP, the compound stops there. */
			c->ndecoded++;
			return TRUE;
		}
		c->ndecoded++;
	}
	return TRUE;
}

static bool_t x_cb_reply(XDR *x, struct cb_reply *r)
{
	struct cb_call *c = r->call;
	char *t = c->tag;

	if (!x_u32(x, &r->status) || !xdr_bytes(x, &t, &c->taglen, 64) ||
	    !x_u32(x, &r->nres))
		return FALSE;
	for (uint32_t i = 0; i < r->nres; i++) {
		struct cb_res_op *o = &r->res[i];
		uint32_t zero = 0;

		if (!x_u32(x, &o->code) || !x_u32(x, &o->status))
			return FALSE;
		/* CB_SEQUENCE4resok (s20.9.2): the call's sessionid,
		 * sequenceid and slot; our only slot is 0. */
		if (o->code == OP_CB_SEQUENCE && o->status == NFS4_OK &&
		    !(xdr_opaque(x, c->seq.id, 16) && x_u32(x, &c->seq.seq) &&
		      x_u32(x, &c->seq.slot) && x_u32(x, &zero) &&
		      x_u32(x, &zero)))
			return FALSE;
	}
	return TRUE;
}

struct cb_seen cb = { .lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER };

/* RPCRDMA_T_NFS41CB_BREAK: "session" answers CB_SEQUENCE with a wrong
 * sessionid, "unreg" registers no backward service: the test must fail. */
bool break_reply;

static void cb_error(const char *fmt, ...)
{
	va_list ap;

	if (cb.err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(cb.err, sizeof(cb.err), fmt, ap);
	va_end(ap);
}

/* One CB_COMPOUND (s20.2): CB_SEQUENCE first, then the rest in order,
 * stopping at the first error. Called with cb.lock held. */
static void cb_compound(struct cb_call *c, struct cb_reply *r)
{
	bool in_session = false;

	r->status = NFS4_OK;
	r->nres = 0;
	if (c->minor != 1) {
		r->status = NFS4ERR_MINOR_VERS_MISMATCH;
		cb_error("CB_COMPOUND of minor version %u", c->minor);
		return;
	}
	for (uint32_t i = 0; i < c->ndecoded; i++) {
		struct cb_res_op *o = &r->res[r->nres++];

		o->code = c->codes[i];
		o->status = NFS4_OK;
		switch (o->code) {
		case OP_CB_SEQUENCE:
			if (i != 0)
				o->status = NFS4ERR_SEQUENCE_POS;
			else if (memcmp(c->seq.id, sess.id, 16) != 0)
				o->status = NFS4ERR_BADSESSION;
			else if (c->seq.slot != 0)
				o->status = NFS4ERR_BADSLOT;
			else if (c->seq.seq != cb.last_seq + 1)
				/* No reply cache: a retry is misordered
				 * here too (s2.10.6.1). */
				o->status = NFS4ERR_SEQ_MISORDERED;
			if (o->status == NFS4_OK) {
				cb.last_seq = c->seq.seq;
				in_session = true;
				/* The negative control: a reply nfsd must
				 * reject (another session). */
				if (break_reply)
					c->seq.id[0] ^= 0x5a;
			} else {
				cb_error("CB_SEQUENCE seq %u slot %u: status "
					 "%u", c->seq.seq, c->seq.slot,
					 o->status);
			}
			break;
		case OP_CB_RECALL:
			if (!in_session) {
				o->status = NFS4ERR_OP_NOT_IN_SESSION;
				cb_error("CB_RECALL without CB_SEQUENCE");
				break;
			}
			cb.recalls++;
			cb.recall_sid = c->recall.sid;
			cb.recall_fh = c->recall.fh;
			say("CB_RECALL (callback_ident %u, CB_SEQUENCE seq %u "
			    "slot %u highest %u): stateid seqid %u, truncate "
			    "%d, fh of %u bytes", c->ident, c->seq.seq,
			    c->seq.slot, c->seq.highest, c->recall.sid.seqid,
			    c->recall.truncate, c->recall.fh.len);
			break;
		default:
			o->status = NFS4ERR_NOTSUPP;
			say("CB_COMPOUND: operation %u answered NOTSUPP",
			    o->code);
			break;
		}
		if (o->status != NFS4_OK) {
			r->status = o->status;
			break;
		}
	}
}

void cb_dispatch(struct svc_req *rq, SVCXPRT *x)
{
	static struct cb_call c;
	struct cb_reply r = { .call = &c };
	bool ok = false;

	pthread_mutex_lock(&cb.lock);
	switch (rq->rq_proc) {
	case CB_NULL:
		cb.nulls++;
		say("CB_NULL received");
		ok = svc_sendreply(x, XP(xdr_void), NULL);
		break;
	case CB_COMPOUND:
		cb.compounds++;
		if (!svc_getargs(x, XP(x_cb_args), (caddr_t)&c)) {
			cb_error("CB_COMPOUND arguments did not decode");
			svcerr_decode(x);
			break;
		}
		cb_compound(&c, &r);
		ok = svc_sendreply(x, XP(x_cb_reply), (caddr_t)&r);
		svc_freeargs(x, XP(x_cb_args), (caddr_t)&c);
		break;
	default:
		cb_error("callback procedure %u", (unsigned)rq->rq_proc);
		svcerr_noproc(x);
		break;
	}
	if (!ok)
		cb_error("callback procedure %u: no reply sent",
			 (unsigned)rq->rq_proc);
	cb.dispatched++;
	pthread_cond_broadcast(&cb.cond);
	pthread_mutex_unlock(&cb.lock);
}

/* Waits up to secs for *counter to exceed was; true if it did. */
bool cb_wait(unsigned *counter, unsigned was, int secs)
{
	struct timespec until;
	bool moved;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += secs;
	pthread_mutex_lock(&cb.lock);
	while (*counter == was &&
	       pthread_cond_timedwait(&cb.cond, &cb.lock, &until) == 0)
		;
	moved = *counter != was;
	pthread_mutex_unlock(&cb.lock);
	return moved;
}
