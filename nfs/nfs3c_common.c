/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What nfs3c's commands share (nfs3c.c's main and the command files
 * nfs3c_conn.c, nfs3c_dir.c, nfs3c_io.c): the error lines, file handles,
 * and a path's handle by LOOKUP. Below every other nfs3c file, calling
 * none of them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rpc/rpc.h>
#include "nfs3c.h"

const char *nfs3c_strerr(nfsstat3 st)
{
	static const struct {
		nfsstat3 st;
		const char *name;
	} names[] = {
#define N(x) { x, #x }
		N(NFS3_OK), N(NFS3ERR_PERM), N(NFS3ERR_NOENT), N(NFS3ERR_IO),
		N(NFS3ERR_NXIO), N(NFS3ERR_ACCES), N(NFS3ERR_EXIST),
		N(NFS3ERR_XDEV), N(NFS3ERR_NODEV), N(NFS3ERR_NOTDIR),
		N(NFS3ERR_ISDIR), N(NFS3ERR_INVAL), N(NFS3ERR_FBIG),
		N(NFS3ERR_NOSPC), N(NFS3ERR_ROFS), N(NFS3ERR_MLINK),
		N(NFS3ERR_NAMETOOLONG), N(NFS3ERR_NOTEMPTY), N(NFS3ERR_DQUOT),
		N(NFS3ERR_STALE), N(NFS3ERR_REMOTE), N(NFS3ERR_BADHANDLE),
		N(NFS3ERR_NOT_SYNC), N(NFS3ERR_BAD_COOKIE), N(NFS3ERR_NOTSUPP),
		N(NFS3ERR_TOOSMALL), N(NFS3ERR_SERVERFAULT),
		N(NFS3ERR_BADTYPE), N(NFS3ERR_JUKEBOX),
#undef N
	};
	static __thread char buf[32];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].st == st)
			return names[i].name;
	snprintf(buf, sizeof(buf), "NFS3ERR %d", (int)st);
	return buf;
}

int nfs3c_fail(const char *op, const char *path, const char *what)
{
	fprintf(stderr, "nfs3c: %s %s: %s\n", op, path, what);
	return -1;
}

int nfs3c_fail_rpc(struct nfs3c *c, const char *op, const char *path)
{
	/* clnt_sperror's text ends in a newline. */
	char *s = clnt_sperror(c->cl, op), *nl = strrchr(s, '\n');

	if (nl && nl[1] == '\0')
		*nl = '\0';
	fprintf(stderr, "nfs3c: %s %s: %s\n", op, path,
		strncmp(s, op, strlen(op)) == 0 && s[strlen(op)] == ':' ?
		s + strlen(op) + 2 : s);
	return -1;
}

int nfs3c_fail_nfs(const char *op, const char *path, nfsstat3 st)
{
	return nfs3c_fail(op, path, nfs3c_strerr(st));
}

int nfs3c_fh_copy(nfs_fh3 *dst, const nfs_fh3 *src)
{
	dst->data.data_len = src->data.data_len;
	dst->data.data_val = malloc(src->data.data_len ? src->data.data_len : 1);
	if (!dst->data.data_val)
		return nfs3c_fail("malloc", "", "out of memory");
	memcpy(dst->data.data_val, src->data.data_val, src->data.data_len);
	return 0;
}

void nfs3c_fh_free(nfs_fh3 *fh)
{
	free(fh->data.data_val);
	fh->data.data_val = NULL;
	fh->data.data_len = 0;
}

int getattr_fh(struct nfs3c *c, const nfs_fh3 *fh, const char *path,
	       fattr3 *at)
{
	GETATTR3args a = { *fh };
	GETATTR3res r;

	memset(&r, 0, sizeof(r));
	if (clnt_call(c->cl, NFSPROC3_GETATTR, XP(xdr_GETATTR3args),
		      (char *)&a, XP(xdr_GETATTR3res), (char *)&r,
		      c->tmo) != RPC_SUCCESS)
		return nfs3c_fail_rpc(c, "GETATTR", path);
	if (r.status != NFS3_OK)
		return nfs3c_fail_nfs("GETATTR", path, r.status);
	*at = r.GETATTR3res_u.resok.obj_attributes;
	return 0;
}

/* Section 3.3.3: one LOOKUP per component, from the export's root. */
int nfs3c_resolve(struct nfs3c *c, const char *path, nfs_fh3 *fh, fattr3 *at)
{
	char *p = strdup(path), *save = NULL, *comp;
	bool have_attr = false;
	fattr3 attr;

	if (!p || nfs3c_fh_copy(fh, &c->root) != 0) {
		free(p);
		return nfs3c_fail("LOOKUP", path, "out of memory");
	}
	for (comp = strtok_r(p, "/", &save); comp;
	     comp = strtok_r(NULL, "/", &save)) {
		LOOKUP3args a = { { *fh, comp } };
		LOOKUP3res r;
		LOOKUP3resok *ok = &r.LOOKUP3res_u.resok;

		memset(&r, 0, sizeof(r));
		if (clnt_call(c->cl, NFSPROC3_LOOKUP, XP(xdr_LOOKUP3args),
			      (char *)&a, XP(xdr_LOOKUP3res), (char *)&r,
			      c->tmo) != RPC_SUCCESS) {
			nfs3c_fail_rpc(c, "LOOKUP", path);
			goto fail;
		}
		if (r.status != NFS3_OK) {
			nfs3c_fail_nfs("LOOKUP", path, r.status);
			xdr_free(XP(xdr_LOOKUP3res), (char *)&r);
			goto fail;
		}
		if (ok->object.data.data_len == 0) {
			nfs3c_fail("LOOKUP", path, "empty handle");
			xdr_free(XP(xdr_LOOKUP3res), (char *)&r);
			goto fail;
		}
		nfs3c_fh_free(fh);
		*fh = ok->object;
		ok->object.data.data_val = NULL;
		ok->object.data.data_len = 0;
		have_attr = ok->obj_attributes.attributes_follow;
		if (have_attr)
			attr = ok->obj_attributes.post_op_attr_u.attributes;
		xdr_free(XP(xdr_LOOKUP3res), (char *)&r);
	}
	free(p);
	if (at) {
		if (have_attr)
			*at = attr;
		else if (getattr_fh(c, fh, path, at) != 0) {
			nfs3c_fh_free(fh);
			return -1;
		}
	}
	return 0;
fail:
	free(p);
	nfs3c_fh_free(fh);
	return -1;
}
