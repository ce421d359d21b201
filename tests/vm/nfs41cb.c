/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Our client's backward direction (RFC 8167) against the Linux kernel's
 * NFSv4.1 server (tests/vm/t/68-nfs41cb.sh starts nfsd on rdma port
 * 20049 and exports a tmpfs as the NFSv4 root, fsid=0).
 *
 * One rdma CLIENT to NFS version 4 with AUTH_SYS, a backward service for
 * the callback program registered on it before the session exists, then
 * (RFC 8881): EXCHANGE_ID (SP4_NONE), CREATE_SESSION with
 * CONN_BACK_CHAN so that nfsd calls back over this very connection,
 * RECLAIM_COMPLETE, OPEN for READ of a file that nobody else has open
 * (nfsd grants a read delegation once the callback path is up and its
 * grace period is over), then an open for write of that file in the
 * guest's own file system: the kernel breaks nfsd's lease and nfsd sends
 * CB_COMPOUND { CB_SEQUENCE, CB_RECALL } backward. We answer it from the
 * dispatch function (sessionid, slot and sequence checked as a replier
 * must, RFC 8881 s20.9.3), return the delegation (DELEGRETURN), check
 * that nfsd saw no backchannel fault (SEQUENCE status flags, and the
 * "callback state:" of /proc/fs/nfsd/clients/N/info where the kernel has
 * it) and that our backward counters moved; CLOSE, DESTROY_SESSION,
 * DESTROY_CLIENTID.
 *
 * CB_NULL is answered if it comes, but nfsd sends none for minor version
 * 1 and later (fs/nfsd/nfs4callback.c nfsd4_run_cb_work: "Don't send
 * probe messages for 4.1 or later"): the CB_RECALL is the backchannel
 * traffic this test requires.
 *
 * Environment: RPCRDMA_ADDR_A / RPCRDMA_ADDR_B (client source, server),
 * RPCRDMA_T_NFS41CB_DIR the exported directory (the NFSv4 root);
 * RPCRDMA_T_NFS41CB_BREAK a negative control that must fail ("session":
 * our CB_SEQUENCE reply names another session, nfsd marks the callback
 * path FAULT; "unreg": no backward service, no CB_RECALL reaches us).
 * Exit 0 passed, 1 failed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>

#define XP(f)		((xdrproc_t)(void (*)(void))(f))

#define NFS4_PROGRAM	100003
#define NFS_V4		4
#define NFS_RDMA_PORT	20049
#define COMPOUND	1
/* RFC 8881 s18.36 (NFS4_CALLBACK): any number the client chooses;
 * this is the one the Linux client uses. */
#define CB_PROGRAM	0x40000000
#define CB_VERS		1
#define CB_NULL		0
#define CB_COMPOUND	1

/* Operations (RFC 8881 s16.2.1, s20) */
enum {
	OP_CLOSE = 4, OP_DELEGRETURN = 8, OP_GETFH = 10, OP_OPEN = 18,
	OP_PUTFH = 22, OP_PUTROOTFH = 24, OP_EXCHANGE_ID = 42,
	OP_CREATE_SESSION = 43, OP_DESTROY_SESSION = 44, OP_SEQUENCE = 53,
	OP_DESTROY_CLIENTID = 57, OP_RECLAIM_COMPLETE = 58,
	OP_CB_RECALL = 4, OP_CB_SEQUENCE = 11,
};
/* Status codes (RFC 8881 s15.1) */
enum {
	NFS4_OK = 0, NFS4ERR_NOTSUPP = 10004, NFS4ERR_GRACE = 10013,
	NFS4ERR_MINOR_VERS_MISMATCH = 10021, NFS4ERR_BADXDR = 10036,
	NFS4ERR_BADSESSION = 10052, NFS4ERR_BADSLOT = 10053,
	NFS4ERR_SEQ_MISORDERED = 10063, NFS4ERR_SEQUENCE_POS = 10064,
	NFS4ERR_OP_NOT_IN_SESSION = 10070,
};
#define CREATE_SESSION4_FLAG_CONN_BACK_CHAN	0x2
#define OPEN4_SHARE_ACCESS_READ			1
#define OPEN_DELEGATE_READ			1
/* SEQUENCE status flags that say the backchannel failed (s18.46.3) */
#define SEQ4_STATUS_CB_PATH_DOWN		0x1
#define SEQ4_STATUS_RECALLABLE_STATE_REVOKED	0x40
#define SEQ4_STATUS_CB_PATH_DOWN_SESSION	0x200
#define SEQ4_STATUS_BACKCHANNEL_FAULT		0x400
#define SEQ4_CB_BAD (SEQ4_STATUS_CB_PATH_DOWN |				\
		     SEQ4_STATUS_RECALLABLE_STATE_REVOKED |		\
		     SEQ4_STATUS_CB_PATH_DOWN_SESSION |			\
		     SEQ4_STATUS_BACKCHANNEL_FAULT)

/* Our backward limits: the kernel's inline threshold is 4096 both ways
 * (shared/docs/linux-interop.md) and the RPC message follows a 28-byte
 * RPC-over-RDMA header with empty chunk lists (RFC 8167 s4: backward
 * messages are inline only). */
#define BC_MAX_MSG	(4096 - 28)

static const struct timeval tmo = { 30, 0 };
static const char *addr_a, *addr_b, *export_dir;
static int failures;

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("nfs41cb: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
}

/* A failed check: said, counted, the test goes on where it can. */
#define CHECK(c, ...)							\
	do {								\
		if (!(c)) {						\
			say("FAIL: " __VA_ARGS__);			\
			failures++;					\
		}							\
	} while (0)

/* A failure after which nothing else can run. */
#define DIE(...)							\
	do {								\
		say("FAIL: " __VA_ARGS__);				\
		exit(1);						\
	} while (0)

/* ---- XDR pieces (RFC 8881 s3) ---- */

struct stateid {
	uint32_t seqid;
	char other[12];
};

struct fh {
	u_int len;
	char data[128];		/* NFS4_FHSIZE */
};

struct chan {			/* channel_attrs4 */
	uint32_t pad, maxreq, maxresp, maxresp_cached, maxops, maxreqs;
};

static bool_t x_u32(XDR *x, uint32_t *v)
{
	return xdr_uint32_t(x, v);
}

static bool_t x_u64(XDR *x, uint64_t *v)
{
	return xdr_uint64_t(x, v);
}

static bool_t x_stateid(XDR *x, struct stateid *s)
{
	return x_u32(x, &s->seqid) && xdr_opaque(x, s->other, 12);
}

static bool_t x_fh(XDR *x, struct fh *f)
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

/* One operation: its arguments' encoder, and the decoder of the rest of
 * its result when the status is NFS4_OK (NULL: nothing follows). */
struct op {
	uint32_t code;
	bool_t (*args)(XDR *, void *);
	void *a;
	bool_t (*res)(XDR *, void *);
	void *r;
	uint32_t status;
};

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

/* The session's fore channel slot 0 (s2.10.6): its sequence ID moves on
 * with every SEQUENCE that succeeds. */
struct session {
	char id[16];
	uint32_t seq;
};

static struct session sess;

struct seq_res {
	char id[16];
	uint32_t seq, slot, highest, target, flags;
};

static bool_t args_sequence(XDR *x, void *p)
{
	struct session *s = p;
	uint32_t slot = 0, highest = 0;
	bool_t cache = FALSE;

	return xdr_opaque(x, s->id, 16) && x_u32(x, &s->seq) &&
	       x_u32(x, &slot) && x_u32(x, &highest) && xdr_bool(x, &cache);
}

static bool_t res_sequence(XDR *x, void *p)
{
	struct seq_res *r = p;

	return xdr_opaque(x, r->id, 16) && x_u32(x, &r->seq) &&
	       x_u32(x, &r->slot) && x_u32(x, &r->highest) &&
	       x_u32(x, &r->target) && x_u32(x, &r->flags);
}

/* COMPOUND of n operations: the compound's status; the RPC must work. */
static uint32_t compound(CLIENT *cl, struct op *ops, uint32_t n,
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

struct exid_args {
	char verifier[8];
	const char *owner;
};

struct exid_res {
	uint64_t clientid;
	uint32_t seq, flags;
};

static bool_t args_exchange_id(XDR *x, void *p)
{
	struct exid_args *a = p;
	uint32_t flags = 0, how = 0 /* SP4_NONE */, nimpl = 0;

	return xdr_opaque(x, a->verifier, 8) && x_str(x, a->owner) &&
	       x_u32(x, &flags) && x_u32(x, &how) && x_u32(x, &nimpl);
}

static bool_t res_exchange_id(XDR *x, void *p)
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

struct cs_args {
	uint64_t clientid;
	uint32_t seq, flags;
	struct chan fore, back;
};

struct cs_res {
	char id[16];
	uint32_t seq, flags;
	struct chan fore, back;
};

static bool_t args_create_session(XDR *x, void *p)
{
	struct cs_args *a = p;
	uint32_t prog = CB_PROGRAM, nsec = 1, flavor = AUTH_NONE;

	return x_u64(x, &a->clientid) && x_u32(x, &a->seq) &&
	       x_u32(x, &a->flags) && x_chan(x, &a->fore) &&
	       x_chan(x, &a->back) && x_u32(x, &prog) && x_u32(x, &nsec) &&
	       x_u32(x, &flavor);
}

static bool_t res_create_session(XDR *x, void *p)
{
	struct cs_res *r = p;

	return xdr_opaque(x, r->id, 16) && x_u32(x, &r->seq) &&
	       x_u32(x, &r->flags) && x_chan(x, &r->fore) &&
	       x_chan(x, &r->back);
}

static bool_t args_bool_false(XDR *x, void *p)
{
	bool_t f = FALSE;

	(void)p;
	return xdr_bool(x, &f);		/* RECLAIM_COMPLETE rca_one_fs */
}

struct open_args {
	uint64_t clientid;
	const char *owner, *name;
};

struct open_res {
	struct stateid sid, deleg;
	uint32_t rflags, dtype;
	bool_t recall;
};

static bool_t args_open(XDR *x, void *p)
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

static bool_t res_open(XDR *x, void *p)
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

static bool_t args_fh(XDR *x, void *p)
{
	return x_fh(x, p);
}

static bool_t args_stateid(XDR *x, void *p)
{
	return x_stateid(x, p);
}

static bool_t args_close(XDR *x, void *p)
{
	uint32_t seqid = 0;

	return x_u32(x, &seqid) && x_stateid(x, p);
}

static bool_t args_sessionid(XDR *x, void *p)
{
	return xdr_opaque(x, p, 16);
}

static bool_t args_u64(XDR *x, void *p)
{
	return x_u64(x, p);
}

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

/* What the service saw, for the main thread. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned nulls, compounds, dispatched, recalls;
	uint32_t last_seq;	/* back channel slot 0; nfsd starts at 1 */
	struct stateid recall_sid;
	struct fh recall_fh;
	char err[256];		/* the first thing nfsd did wrong */
} cb = { .lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER };

/* RPCRDMA_T_NFS41CB_BREAK: "session" answers CB_SEQUENCE with a wrong
 * sessionid, "unreg" registers no backward service: the test must fail. */
static bool break_reply;

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

static void cb_dispatch(struct svc_req *rq, SVCXPRT *x)
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
static bool cb_wait(unsigned *counter, unsigned was, int secs)
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

/* ---- /proc/fs/nfsd/clients/N/info: the kernel's view of our client ---- */

/* The value of our client's "callback state:" line into out; 1 found,
 * 0 the kernel has no such line, -1 no info file names our owner. */
static int cb_state(const char *owner, char *out, size_t len)
{
	const char *top = "/proc/fs/nfsd/clients";
	DIR *d = opendir(top);
	struct dirent *e;
	int found = -1;

	if (!d)
		return -1;
	while (found < 0 && (e = readdir(d)) != NULL) {
		char path[300], line[512];
		bool ours = false;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/info", top, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		out[0] = '\0';
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, "name:", 5) == 0 &&
			    strstr(line, owner))
				ours = true;
			if (strncmp(line, "callback state: ", 16) == 0) {
				size_t n = strcspn(line + 16, "\n");

				n = n < len ? n : len - 1;
				memcpy(out, line + 16, n);
				out[n] = '\0';
			}
		}
		fclose(f);
		if (ours)
			found = out[0] ? 1 : 0;
	}
	closedir(d);
	return found;
}

/* ---- the test ---- */

static struct rpcrdma_stats stats_of(CLIENT *cl)
{
	struct rpcrdma_stats st;

	if (rpcrdma_clnt_stats(cl, &st) != 0)
		DIE("rpcrdma_clnt_stats failed");
	return st;
}

static CLIENT *nfs4_clnt(void)
{
	struct rpcrdma_opts o;
	CLIENT *cl;

	rpcrdma_opts_default(&o);
	o.port = NFS_RDMA_PORT;
	o.src_addr = addr_a;
	cl = clnt_rdma_create(addr_b, NFS4_PROGRAM, NFS_V4, &o);
	if (!cl)
		DIE("clnt_rdma_create: %s", clnt_spcreateerror(addr_b));
	/* AUTH_SYS as root: the export has no_root_squash. */
	cl->cl_auth = authunix_create_default();
	if (!cl->cl_auth)
		DIE("authunix_create_default failed");
	return cl;
}

int main(void)
{
	char owner[128], path[512], state[64];
	const char *brk;
	struct exid_args xa;
	struct exid_res xr = { 0 };
	struct cs_args ca = { 0 };
	struct cs_res cr = { 0 };
	struct open_args oa;
	struct open_res orr = { 0 };
	struct seq_res sr = { 0 };
	struct rpcrdma_stats s0, s1;
	struct fh fh = { 0 };
	unsigned recalls, dispatched;
	uint32_t st;
	CLIENT *cl;
	int fd, r, grace;

	addr_a = getenv("RPCRDMA_ADDR_A");
	addr_b = getenv("RPCRDMA_ADDR_B");
	export_dir = getenv("RPCRDMA_T_NFS41CB_DIR");
	if (!addr_a || !addr_b || !export_dir)
		DIE("RPCRDMA_ADDR_A, RPCRDMA_ADDR_B, RPCRDMA_T_NFS41CB_DIR "
		    "must be set");
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(owner, sizeof(owner), "librpcrdma-nfs41cb-%ld-%ld",
		 (long)getpid(), (long)time(NULL));

	brk = getenv("RPCRDMA_T_NFS41CB_BREAK");
	brk = brk ? brk : "";
	break_reply = strcmp(brk, "session") == 0;
	if (*brk)
		say("negative control: %s", brk);

	cl = nfs4_clnt();
	/* The backward service exists before nfsd may call back. */
	if (strcmp(brk, "unreg") != 0 &&
	    !rpcrdma_clnt_svc_reg(cl, CB_PROGRAM, CB_VERS, cb_dispatch))
		DIE("rpcrdma_clnt_svc_reg failed");
	s0 = stats_of(cl);

	/* EXCHANGE_ID (s18.35), SP4_NONE */
	memcpy(xa.verifier, owner + strlen(owner) - 8, 8);
	xa.owner = owner;
	{
		struct op ops[] = {
			{ OP_EXCHANGE_ID, args_exchange_id, &xa,
			  res_exchange_id, &xr, 0 },
		};

		st = compound(cl, ops, 1, "EXCHANGE_ID");
		if (st != NFS4_OK)
			DIE("EXCHANGE_ID: status %u", st);
	}
	say("EXCHANGE_ID: clientid %#llx sequenceid %u flags %#x (owner %s)",
	    (unsigned long long)xr.clientid, xr.seq, xr.flags, owner);

	/* CREATE_SESSION (s18.36) binding this connection as the back
	 * channel too. Fore channel: what our CLIENT takes (nfsd clamps);
	 * back channel: one slot, CB_SEQUENCE + CB_RECALL, messages within
	 * the inline threshold (RFC 8167 s4). */
	ca.clientid = xr.clientid;
	ca.seq = xr.seq;
	ca.flags = CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
	ca.fore = (struct chan){ 0, 1u << 20, 1u << 20, 4096, 8, 16 };
	ca.back = (struct chan){ 0, BC_MAX_MSG, BC_MAX_MSG, 0, 2, 1 };
	{
		struct op ops[] = {
			{ OP_CREATE_SESSION, args_create_session, &ca,
			  res_create_session, &cr, 0 },
		};

		st = compound(cl, ops, 1, "CREATE_SESSION");
		if (st != NFS4_OK)
			DIE("CREATE_SESSION: status %u", st);
	}
	memcpy(sess.id, cr.id, 16);
	sess.seq = 1;
	say("CREATE_SESSION: csr_flags %#x; fore maxreq %u maxresp %u "
	    "maxops %u maxreqs %u; back maxreq %u maxresp %u maxops %u "
	    "maxreqs %u", cr.flags, cr.fore.maxreq, cr.fore.maxresp,
	    cr.fore.maxops, cr.fore.maxreqs, cr.back.maxreq, cr.back.maxresp,
	    cr.back.maxops, cr.back.maxreqs);
	if (!(cr.flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN))
		DIE("nfsd did not take this connection as the back channel "
		    "(csr_flags %#x)", cr.flags);
	CHECK(cr.back.maxreqs >= 1 && cr.back.maxops >= 2 &&
	      cr.back.maxreq <= BC_MAX_MSG && cr.back.maxresp <= BC_MAX_MSG,
	      "back channel attributes beyond what we offered");

	/* CB_NULL: for 4.1 nfsd marks the path up without one (see the
	 * top); answered and counted if a kernel sends it. */
	if (cb_wait(&cb.nulls, 0, 3))
		say("CB_NULL answered");
	else
		say("no CB_NULL within 3 s (nfsd sends none for 4.1)");
	r = cb_state(owner, state, sizeof(state));
	if (r > 0)
		say("after CREATE_SESSION nfsd says callback state: %s", state);

	/* RECLAIM_COMPLETE (s18.51): nfsd refuses ordinary OPENs of a
	 * client that has not sent it. */
	{
		struct op ops[] = {
			{ OP_SEQUENCE, args_sequence, &sess, res_sequence,
			  &sr, 0 },
			{ OP_RECLAIM_COMPLETE, args_bool_false, NULL, NULL,
			  NULL, 0 },
		};

		st = compound(cl, ops, 2, "SEQUENCE, RECLAIM_COMPLETE");
		if (st != NFS4_OK)
			DIE("SEQUENCE, RECLAIM_COMPLETE: status %u", st);
	}

	/* A file nobody has open: a read delegation is possible. */
	snprintf(path, sizeof(path), "%s/deleg", export_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "nfs41cb\n", 8) != 8 || close(fd) != 0)
		DIE("%s: %s", path, strerror(errno));

	/* OPEN for READ (s18.16); nfsd answers NFS4ERR_GRACE until its
	 * grace period ends (the script shortens it to 10 s). */
	oa.clientid = xr.clientid;
	oa.owner = "nfs41cb-open-owner";
	oa.name = "deleg";
	for (grace = 0;; grace++) {
		struct op ops[] = {
			{ OP_SEQUENCE, args_sequence, &sess, res_sequence,
			  &sr, 0 },
			{ OP_PUTROOTFH, NULL, NULL, NULL, NULL, 0 },
			{ OP_OPEN, args_open, &oa, res_open, &orr, 0 },
			{ OP_GETFH, NULL, NULL, args_fh, &fh, 0 },
		};

		st = compound(cl, ops, 4, "OPEN");
		if (st == NFS4_OK)
			break;
		if (st != NFS4ERR_GRACE || grace >= 40)
			DIE("SEQUENCE, PUTROOTFH, OPEN, GETFH: status %u (ops: "
			    "%u %u %u %u)", st, ops[0].status, ops[1].status,
			    ops[2].status, ops[3].status);
		sleep(1);
	}
	say("OPEN deleg for READ (after %d NFS4ERR_GRACE): delegation type "
	    "%u (1 = read), rflags %#x, fh of %u bytes", grace, orr.dtype,
	    orr.rflags, fh.len);
	if (orr.dtype != OPEN_DELEGATE_READ)
		DIE("nfsd gave no read delegation (type %u): no recall to "
		    "trigger", orr.dtype);

	/* The conflict: an open for write on the server's own file system
	 * breaks nfsd's lease; O_NONBLOCK starts the break without waiting
	 * for it (EWOULDBLOCK), and nfsd sends CB_RECALL. */
	pthread_mutex_lock(&cb.lock);
	recalls = cb.recalls;
	dispatched = cb.dispatched;
	pthread_mutex_unlock(&cb.lock);
	fd = open(path, O_WRONLY | O_NONBLOCK);
	if (fd >= 0)
		DIE("an open for write of %s went through the delegation's "
		    "lease", path);
	CHECK(errno == EWOULDBLOCK, "open for write: %s (EWOULDBLOCK "
	      "expected)", strerror(errno));
	if (!cb_wait(&cb.recalls, recalls, 15))
		DIE("no CB_RECALL within 15 s (callbacks dispatched: %u; %s)",
		    cb.dispatched - dispatched,
		    cb.err[0] ? cb.err : "no callback error seen");
	pthread_mutex_lock(&cb.lock);
	CHECK(memcmp(cb.recall_sid.other, orr.deleg.other, 12) == 0,
	      "CB_RECALL names another stateid");
	CHECK(cb.recall_fh.len == fh.len &&
	      memcmp(cb.recall_fh.data, fh.data, fh.len) == 0,
	      "CB_RECALL names another file handle");
	pthread_mutex_unlock(&cb.lock);

	/* DELEGRETURN (s18.6): the lease goes, the local open works. */
	{
		struct op ops[] = {
			{ OP_SEQUENCE, args_sequence, &sess, res_sequence,
			  &sr, 0 },
			{ OP_PUTFH, args_fh, &fh, NULL, NULL, 0 },
			{ OP_DELEGRETURN, args_stateid, &orr.deleg, NULL, NULL,
			  0 },
		};

		st = compound(cl, ops, 3, "DELEGRETURN");
		CHECK(st == NFS4_OK, "SEQUENCE, PUTFH, DELEGRETURN: status %u",
		      st);
	}
	say("DELEGRETURN done; SEQUENCE status flags %#x", sr.flags);
	CHECK(!(sr.flags & SEQ4_CB_BAD), "nfsd reports a backchannel "
	      "problem: SEQUENCE status flags %#x", sr.flags);
	fd = open(path, O_WRONLY | O_NONBLOCK);
	CHECK(fd >= 0, "open for write after DELEGRETURN: %s",
	      strerror(errno));
	if (fd >= 0)
		close(fd);

	pthread_mutex_lock(&cb.lock);
	CHECK(cb.err[0] == '\0', "backchannel: %s", cb.err);
	say("callbacks: %u CB_NULL, %u CB_COMPOUND (%u CB_RECALL), last "
	    "CB_SEQUENCE seq %u", cb.nulls, cb.compounds, cb.recalls,
	    cb.last_seq);
	dispatched = cb.dispatched;
	pthread_mutex_unlock(&cb.lock);
	s1 = stats_of(cl);
	say("counters: bc_calls_recv %llu bc_replies_sent %llu "
	    "bc_calls_dropped %llu bc_replies_too_big %llu "
	    "bc_credits_granted %llu bc_inflight_peak %llu",
	    (unsigned long long)(s1.bc_calls_recv - s0.bc_calls_recv),
	    (unsigned long long)(s1.bc_replies_sent - s0.bc_replies_sent),
	    (unsigned long long)(s1.bc_calls_dropped - s0.bc_calls_dropped),
	    (unsigned long long)(s1.bc_replies_too_big -
				 s0.bc_replies_too_big),
	    (unsigned long long)s1.bc_credits_granted,
	    (unsigned long long)s1.bc_inflight_peak);
	CHECK(s1.bc_calls_recv - s0.bc_calls_recv == dispatched &&
	      s1.bc_replies_sent - s0.bc_replies_sent == dispatched,
	      "backward counters do not match the %u callbacks dispatched",
	      dispatched);
	CHECK(s1.bc_calls_dropped == s0.bc_calls_dropped &&
	      s1.bc_replies_too_big == s0.bc_replies_too_big,
	      "backward calls dropped or replies too big");

	/* The kernel's own verdict on our replies: a CB_SEQUENCE reply it
	 * did not accept marks the path FAULT or DOWN. */
	r = -1;
	for (int i = 0; i < 50; i++) {
		r = cb_state(owner, state, sizeof(state));
		if (r != 1 || strcmp(state, "UP") == 0)
			break;
		usleep(100000);
	}
	if (r == 1)
		CHECK(strcmp(state, "UP") == 0, "nfsd says callback state: %s",
		      state);
	if (r == 1)
		say("nfsd says callback state: %s", state);
	else if (r == 0)
		say("this kernel's /proc/fs/nfsd/clients/*/info has no "
		    "\"callback state:\" line: not checked");
	else
		say("no /proc/fs/nfsd/clients/*/info names our client: "
		    "callback state not checked");

	/* CLOSE, then the session and the client ID (s18.37, s18.50). */
	{
		struct stateid closed;
		struct op ops[] = {
			{ OP_SEQUENCE, args_sequence, &sess, res_sequence,
			  &sr, 0 },
			{ OP_PUTFH, args_fh, &fh, NULL, NULL, 0 },
			{ OP_CLOSE, args_close, &orr.sid, args_stateid,
			  &closed, 0 },
		};

		st = compound(cl, ops, 3, "CLOSE");
		CHECK(st == NFS4_OK, "SEQUENCE, PUTFH, CLOSE: status %u", st);
	}
	{
		struct op ops[] = {
			{ OP_DESTROY_SESSION, args_sessionid, sess.id, NULL,
			  NULL, 0 },
		};

		st = compound(cl, ops, 1, "DESTROY_SESSION");
		CHECK(st == NFS4_OK, "DESTROY_SESSION: status %u", st);
	}
	{
		struct op ops[] = {
			{ OP_DESTROY_CLIENTID, args_u64, &xr.clientid, NULL,
			  NULL, 0 },
		};

		st = compound(cl, ops, 1, "DESTROY_CLIENTID");
		CHECK(st == NFS4_OK, "DESTROY_CLIENTID: status %u", st);
	}
	auth_destroy(cl->cl_auth);
	clnt_destroy(cl);
	unlink(path);
	if (failures)
		DIE("%d check(s) failed", failures);
	say("passed");
	return 0;
}
