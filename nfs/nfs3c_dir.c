/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3c ls: READDIRPLUS (RFC 1813 section 3.3.17), or READDIR (3.3.16)
 * where the server answers NFS3ERR_NOTSUPP, from cookie 0 until eof,
 * each call with the cookie and verifier of the last. One name per line
 * ("." and ".." left out); -l: type, mode, size, name.
 *
 * A server's answers cannot make this loop forever: a reply without
 * entries and without eof, a cookie that does not move, or more than
 * LS_MAX_ENTRIES names end it with an error.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "nfs3c.h"

/* What one call asks for: READDIRPLUS maxcount (the whole READDIRPLUS3resok)
 * and dircount (its names and cookies), READDIR count. */
#define PLUS_MAXCOUNT	65536u
#define PLUS_DIRCOUNT	16384u
#define DIR_COUNT	32768u
/* The RPC reply header around the result: XID, reply status, verifier
 * (up to 400 bytes of body), accept status. */
#define RPC_REPLY_HDR	512u
#define LS_MAX_ENTRIES	(1ul << 24)

struct ls {
	struct nfs3c *c;
	const char *path;
	nfs_fh3 dir;
	bool longfmt;
	unsigned long n;	/* names seen */
};

static char type_char(ftype3 t)
{
	static const char tc[] = "?-dbcl sp";

	return (unsigned int)t < sizeof(tc) - 1 ? tc[t] : '?';
}

static void print_long(const char *nm, const fattr3 *at)
{
	printf("%c %04o %12llu %s\n", type_char(at->type), at->mode & 07777,
	       (unsigned long long)at->size, nm);
}

/* -l for a name whose attributes did not come with it: LOOKUP. */
static int print_looked_up(struct ls *l, const char *nm)
{
	LOOKUP3args a = { { l->dir, (char *)nm } };
	LOOKUP3res r;
	LOOKUP3resok *ok = &r.LOOKUP3res_u.resok;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	if (clnt_call(l->c->cl, NFSPROC3_LOOKUP, XP(xdr_LOOKUP3args),
		      (char *)&a, XP(xdr_LOOKUP3res), (char *)&r,
		      l->c->tmo) != RPC_SUCCESS)
		return nfs3c_fail_rpc(l->c, "LOOKUP", nm);
	if (r.status != NFS3_OK)
		rc = nfs3c_fail_nfs("LOOKUP", nm, r.status);
	else if (!ok->obj_attributes.attributes_follow)
		printf("? ???? %12s %s\n", "?", nm);
	else
		print_long(nm, &ok->obj_attributes.post_op_attr_u.attributes);
	xdr_free(XP(xdr_LOOKUP3res), (char *)&r);
	return rc;
}

static bool dot(const char *nm)
{
	return strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0;
}

/* One entry; -1 past LS_MAX_ENTRIES. */
static int entry(struct ls *l, const char *nm, const post_op_attr *pa)
{
	if (++l->n > LS_MAX_ENTRIES)
		return nfs3c_fail("READDIR", l->path, "too many entries");
	if (!nm || dot(nm))
		return 0;
	if (!l->longfmt)
		printf("%s\n", nm);
	else if (pa && pa->attributes_follow)
		print_long(nm, &pa->post_op_attr_u.attributes);
	else
		return print_looked_up(l, nm);
	return 0;
}

/* Over rdma, replies of up to count bytes come in a reply chunk (RFC
 * 8166 section 3.5.4): the procedure's bound, set before its first call. */
static void reply_bound(struct ls *l, rpcproc_t proc, uint32_t count)
{
	struct rpcrdma_proc_reply r = { proc, count + RPC_REPLY_HDR };

	if (l->c->rdma)
		clnt_control(l->c->cl, CLSET_RDMA_PROC_REPLY, (char *)&r);
}

/* The progress check shared by both: returns 1 at eof, 0 to go on from
 * *cookie, -1 on a reply that would not end. */
static int advance(struct ls *l, const char *op, bool any, bool eof,
		   cookie3 last, cookie3 *cookie)
{
	if (eof)
		return 1;
	if (!any)
		return nfs3c_fail(op, l->path, "no entries and no eof");
	if (last == *cookie)
		return nfs3c_fail(op, l->path, "the cookie did not advance");
	*cookie = last;
	return 0;
}

/* Section 3.3.16. */
static int ls_readdir(struct ls *l)
{
	READDIR3args a;
	cookie3 cookie = 0;
	int rc;

	memset(&a, 0, sizeof(a));
	a.dir = l->dir;
	a.count = DIR_COUNT;
	reply_bound(l, NFSPROC3_READDIR, DIR_COUNT);
	do {
		READDIR3res r;
		READDIR3resok *ok = &r.READDIR3res_u.resok;
		cookie3 last = cookie;
		bool any = false;

		a.cookie = cookie;
		memset(&r, 0, sizeof(r));
		if (clnt_call(l->c->cl, NFSPROC3_READDIR, XP(xdr_READDIR3args),
			      (char *)&a, XP(xdr_READDIR3res), (char *)&r,
			      l->c->tmo) != RPC_SUCCESS)
			return nfs3c_fail_rpc(l->c, "READDIR", l->path);
		if (r.status != NFS3_OK) {
			xdr_free(XP(xdr_READDIR3res), (char *)&r);
			return nfs3c_fail_nfs("READDIR", l->path, r.status);
		}
		rc = 0;
		for (entry3 *e = ok->reply.entries; e && rc == 0;
		     e = e->nextentry) {
			rc = entry(l, e->name, NULL);
			last = e->cookie;
			any = true;
		}
		memcpy(a.cookieverf, ok->cookieverf, sizeof(a.cookieverf));
		if (rc == 0)
			rc = advance(l, "READDIR", any, ok->reply.eof, last,
				     &cookie);
		xdr_free(XP(xdr_READDIR3res), (char *)&r);
	} while (rc == 0);
	return rc < 0 ? -1 : 0;
}

/* Section 3.3.17; 1 when the server does not support it. */
static int ls_readdirplus(struct ls *l)
{
	READDIRPLUS3args a;
	cookie3 cookie = 0;
	int rc;

	memset(&a, 0, sizeof(a));
	a.dir = l->dir;
	a.dircount = PLUS_DIRCOUNT;
	a.maxcount = PLUS_MAXCOUNT;
	reply_bound(l, NFSPROC3_READDIRPLUS, PLUS_MAXCOUNT);
	do {
		READDIRPLUS3res r;
		READDIRPLUS3resok *ok = &r.READDIRPLUS3res_u.resok;
		cookie3 last = cookie;
		bool any = false;

		a.cookie = cookie;
		memset(&r, 0, sizeof(r));
		if (clnt_call(l->c->cl, NFSPROC3_READDIRPLUS,
			      XP(xdr_READDIRPLUS3args), (char *)&a,
			      XP(xdr_READDIRPLUS3res), (char *)&r,
			      l->c->tmo) != RPC_SUCCESS)
			return nfs3c_fail_rpc(l->c, "READDIRPLUS", l->path);
		if (r.status != NFS3_OK) {
			xdr_free(XP(xdr_READDIRPLUS3res), (char *)&r);
			/* Only before anything was listed. */
			if (r.status == NFS3ERR_NOTSUPP && l->n == 0)
				return 1;
			return nfs3c_fail_nfs("READDIRPLUS", l->path, r.status);
		}
		rc = 0;
		for (entryplus3 *e = ok->reply.entries; e && rc == 0;
		     e = e->nextentry) {
			rc = entry(l, e->name, &e->name_attributes);
			last = e->cookie;
			any = true;
		}
		memcpy(a.cookieverf, ok->cookieverf, sizeof(a.cookieverf));
		if (rc == 0)
			rc = advance(l, "READDIRPLUS", any, ok->reply.eof, last,
				     &cookie);
		xdr_free(XP(xdr_READDIRPLUS3res), (char *)&r);
	} while (rc == 0);
	return rc < 0 ? -1 : 0;
}

int nfs3c_ls(struct nfs3c *c, const char *path, bool longfmt)
{
	struct ls l = { .c = c, .path = *path ? path : "/",
			.longfmt = longfmt };
	int rc;

	if (nfs3c_resolve(c, path, &l.dir, NULL) != 0)
		return -1;
	rc = ls_readdirplus(&l);
	if (rc == 1) {
		if (c->verbose)
			fprintf(stderr, "nfs3c: READDIRPLUS not supported, "
				"READDIR\n");
		rc = ls_readdir(&l);
	}
	nfs3c_fh_free(&l.dir);
	return rc;
}
