/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs41cb's forward direction on the wire: the XDR pieces (RFC 8881 s3),
 * the COMPOUND encoder and result decoder, compound() that calls it and
 * moves the session's slot sequence (sess lives here), and the argument
 * and result coders of the operations main uses (EXCHANGE_ID,
 * CREATE_SESSION, SEQUENCE, RECLAIM_COMPLETE, OPEN, PUTFH, DELEGRETURN,
 * CLOSE, DESTROY_SESSION, DESTROY_CLIENTID).
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include <rpc/rpc.h>

#include "nfs41cb.h"

static const struct timeval tmo = { 30, 0 };

/* ---- XDR pieces (RFC 8881 s3) ---- */

bool_t x_u32(XDR *x, uint32_t *v)
{
	return xdr_uint32_t(x, v);
}

static bool_t x_u64(XDR *x, uint64_t *v)
{
	return xdr_uint64_t(x, v);
}

bool_t x_stateid(XDR *x, struct stateid *s)
{
	return x_u32(x, &s->seqid) && xdr_opaque(x, s->other, 12);
}

bool_t x_fh(XDR *x, struct fh *f)
{
	char *p = f->data;

	return xdr_bytes(x, &p, &f->len, sizeof(f->data));
}

/* An opaque<> or string whose content we do not keep. */
static bool_t x_skip(XDR *x)
{
	char buf[1024], *p = buf;	/* NFS4_OPAQUE_LIMIT */
	u_int n;

	return xdr_bytes(x, &p, &n, sizeof(buf));
}

static bool_t x_str(XDR *x, const char *s)
{
	char *p = (char *)s;

	return xdr_string(x, &p, 1024);
}

static bool_t x_chan(XDR *x, struct chan *c)
{
	uint32_t nird = 0, ird;

	if (!x_u32(x, &c->pad) || !x_u32(x, &c->maxreq) ||
	    !x_u32(x, &c->maxresp) || !x_u32(x, &c->maxresp_cached) ||
	    !x_u32(x, &c->maxops) || !x_u32(x, &c->maxreqs) ||
	    !x_u32(x, &nird) || nird > 1)	/* ca_rdma_ird<1> */
		return FALSE;
	return nird == 0 || x_u32(x, &ird);
}

/* ---- COMPOUND (RFC 8881 s16.2) ---- */

struct compound {
	struct op *ops;
	uint32_t nops;
	uint32_t status;
	uint32_t nres;
};

static bool_t x_compound_args(XDR *x, struct compound *c)
{
	uint32_t minor = 1;

	if (!x_str(x, "nfs41cb") || !x_u32(x, &minor) || !x_u32(x, &c->nops))
		return FALSE;
	for (uint32_t i = 0; i < c->nops; i++) {
		struct op *o = &c->ops[i];

		if (!x_u32(x, &o->code) || (o->args && !o->args(x, o->a)))
			return FALSE;
	}
	return TRUE;
}

/* Results stop at the first that is not NFS4_OK (s16.2.3). */
static bool_t x_compound_res(XDR *x, struct compound *c)
{
	if (x->x_op != XDR_DECODE)
		return TRUE;
	if (!x_u32(x, &c->status) || !x_skip(x) || !x_u32(x, &c->nres) ||
	    c->nres > c->nops)
		return FALSE;
	for (uint32_t i = 0; i < c->nres; i++) {
		struct op *o = &c->ops[i];
		uint32_t code;

		if (!x_u32(x, &code) || code != o->code ||
		    !x_u32(x, &o->status))
			return FALSE;
		if (o->status != NFS4_OK)
			break;
		if (o->res && !o->res(x, o->r))
			return FALSE;
	}
	return TRUE;
}

struct session sess;

bool_t args_sequence(XDR *x, void *p)
{
	struct session *s = p;
	uint32_t slot = 0, highest = 0;
	bool_t cache = FALSE;

	return xdr_opaque(x, s->id, 16) && x_u32(x, &s->seq) &&
	       x_u32(x, &slot) && x_u32(x, &highest) && xdr_bool(x, &cache);
}

bool_t res_sequence(XDR *x, void *p)
{
	struct seq_res *r = p;

	return xdr_opaque(x, r->id, 16) && x_u32(x, &r->seq) &&
	       x_u32(x, &r->slot) && x_u32(x, &r->highest) &&
	       x_u32(x, &r->target) && x_u32(x, &r->flags);
}

/* COMPOUND of n operations: the compound's status; the RPC must work. */
uint32_t compound(CLIENT *cl, struct op *ops, uint32_t n,
			 const char *what)
{
	struct compound c = { ops, n, 0, 0 };
	enum clnt_stat st;

	for (uint32_t i = 0; i < n; i++)
		ops[i].status = ~0u;
	st = clnt_call(cl, COMPOUND, XP(x_compound_args), (caddr_t)&c,
		       XP(x_compound_res), (caddr_t)&c, tmo);
	if (st != RPC_SUCCESS)
		DIE("%s", clnt_sperror(cl, what));
	if (ops[0].code == OP_SEQUENCE && ops[0].status == NFS4_OK)
		sess.seq++;
	return c.status;
}

/* ---- the operations ---- */

bool_t args_exchange_id(XDR *x, void *p)
{
	struct exid_args *a = p;
	uint32_t flags = 0, how = 0 /* SP4_NONE */, nimpl = 0;

	return xdr_opaque(x, a->verifier, 8) && x_str(x, a->owner) &&
	       x_u32(x, &flags) && x_u32(x, &how) && x_u32(x, &nimpl);
}

bool_t res_exchange_id(XDR *x, void *p)
{
	struct exid_res *r = p;
	uint32_t how, nimpl, ns;
	uint64_t minor_id, secs;

	if (!x_u64(x, &r->clientid) || !x_u32(x, &r->seq) ||
	    !x_u32(x, &r->flags) || !x_u32(x, &how) ||
	    how != 0 /* SP4_NONE, as asked (s18.35.3) */ ||
	    !x_u64(x, &minor_id) || !x_skip(x) /* so_major_id */ ||
	    !x_skip(x) /* eir_server_scope */ || !x_u32(x, &nimpl) ||
	    nimpl > 1)
		return FALSE;
	return nimpl == 0 || (x_skip(x) && x_skip(x) && x_u64(x, &secs) &&
			      x_u32(x, &ns));
}

bool_t args_create_session(XDR *x, void *p)
{
	struct cs_args *a = p;
	uint32_t prog = CB_PROGRAM, nsec = 1, flavor = AUTH_NONE;

	return x_u64(x, &a->clientid) && x_u32(x, &a->seq) &&
	       x_u32(x, &a->flags) && x_chan(x, &a->fore) &&
	       x_chan(x, &a->back) && x_u32(x, &prog) && x_u32(x, &nsec) &&
	       x_u32(x, &flavor);
}

bool_t res_create_session(XDR *x, void *p)
{
	struct cs_res *r = p;

	return xdr_opaque(x, r->id, 16) && x_u32(x, &r->seq) &&
	       x_u32(x, &r->flags) && x_chan(x, &r->fore) &&
	       x_chan(x, &r->back);
}

bool_t args_bool_false(XDR *x, void *p)
{
	bool_t f = FALSE;

	(void)p;
	return xdr_bool(x, &f);		/* RECLAIM_COMPLETE rca_one_fs */
}

bool_t args_open(XDR *x, void *p)
{
	struct open_args *a = p;
	uint32_t seqid = 0, access = OPEN4_SHARE_ACCESS_READ, deny = 0;
	uint32_t how = 0 /* OPEN4_NOCREATE */, claim = 0 /* CLAIM_NULL */;

	return x_u32(x, &seqid) && x_u32(x, &access) && x_u32(x, &deny) &&
	       x_u64(x, &a->clientid) && x_str(x, a->owner) &&
	       x_u32(x, &how) && x_u32(x, &claim) && x_str(x, a->name);
}

/* nfsace4 (s6.2.1) */
static bool_t x_ace_skip(XDR *x)
{
	uint32_t type, flag, mask;

	return x_u32(x, &type) && x_u32(x, &flag) && x_u32(x, &mask) &&
	       x_skip(x);
}

bool_t res_open(XDR *x, void *p)
{
	struct open_res *r = p;
	uint32_t n, w, u;
	uint64_t before, after, lim;
	bool_t atomic, b;

	if (!x_stateid(x, &r->sid) || !xdr_bool(x, &atomic) ||
	    !x_u64(x, &before) || !x_u64(x, &after) ||
	    !x_u32(x, &r->rflags) || !x_u32(x, &n) || n > 8)
		return FALSE;
	while (n--)
		if (!x_u32(x, &w))	/* attrset */
			return FALSE;
	if (!x_u32(x, &r->dtype))
		return FALSE;
	switch (r->dtype) {
	case 0:			/* OPEN_DELEGATE_NONE */
		return TRUE;
	case 1:			/* OPEN_DELEGATE_READ */
		return x_stateid(x, &r->deleg) && xdr_bool(x, &r->recall) &&
		       x_ace_skip(x);
	case 2:			/* OPEN_DELEGATE_WRITE: nfs_space_limit4 */
		if (!x_stateid(x, &r->deleg) || !xdr_bool(x, &r->recall) ||
		    !x_u32(x, &w))
			return FALSE;
		if (!(w == 1 ? x_u64(x, &lim) : x_u32(x, &n) && x_u32(x, &u)))
			return FALSE;
		return x_ace_skip(x);
	case 3:			/* OPEN_DELEGATE_NONE_EXT (s18.16.3) */
		if (!x_u32(x, &w))
			return FALSE;
		return (w != 1 && w != 2) || xdr_bool(x, &b);
	default:
		return FALSE;
	}
}

bool_t args_fh(XDR *x, void *p)
{
	return x_fh(x, p);
}

bool_t args_stateid(XDR *x, void *p)
{
	return x_stateid(x, p);
}

bool_t args_close(XDR *x, void *p)
{
	uint32_t seqid = 0;

	return x_u32(x, &seqid) && x_stateid(x, p);
}

bool_t args_sessionid(XDR *x, void *p)
{
	return xdr_opaque(x, p, 16);
}

bool_t args_u64(XDR *x, void *p)
{
	return x_u64(x, p);
}
