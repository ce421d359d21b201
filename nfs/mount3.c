/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MOUNT version 3 (RFC 1813 section 5), over TCP: the kernel's NFSv3
 * mount asks it for the root handle. One export, the served directory,
 * to every host; no mount list is kept (DUMP answers an empty one, as
 * section 5.2.2 allows: the list is advisory).
 */
#include <stdlib.h>
#include <string.h>
#include "nfs3d.h"

/* The exported path, or "/" for it (what clients often mount). */
static bool export_match(const char *path)
{
	size_t len;

	if (!path)
		return false;
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len == 1 && path[0] == '/')
		return true;
	return len == strlen(nfs3d_exp.path) &&
	       strncmp(path, nfs3d_exp.path, len) == 0;
}

static bool mnt_null(void *a, void *r, struct svc_req *rq)
{
	(void)a;
	(void)r;
	(void)rq;
	return true;
}

/* 5.2.1 MNT: the root handle and the flavors it takes (AUTH_SYS). */
static bool mnt_mnt(dirpath *a, mountres3 *r, struct svc_req *rq)
{
	mountres3_ok *ok = &r->mountres3_u.mountinfo;
	nfs_fh3 fh;
	int *flavors;

	(void)rq;
	if (!export_match(*a)) {
		r->fhs_status = MNT3ERR_NOENT;
		return true;
	}
	flavors = malloc(2 * sizeof(*flavors));
	if (!flavors || nfs3d_fh_root(&fh) != NFS3_OK) {
		free(flavors);
		r->fhs_status = MNT3ERR_SERVERFAULT;
		return true;
	}
	flavors[0] = AUTH_SYS;
	flavors[1] = AUTH_NONE;
	ok->fhandle.fhandle3_len = fh.data.data_len;
	ok->fhandle.fhandle3_val = fh.data.data_val;
	ok->auth_flavors.auth_flavors_len = 2;
	ok->auth_flavors.auth_flavors_val = flavors;
	r->fhs_status = MNT3_OK;
	return true;
}

/* 5.2.2 DUMP: no list kept. */
static bool mnt_dump(void *a, mountlist *r, struct svc_req *rq)
{
	(void)a;
	(void)rq;
	*r = NULL;
	return true;
}

/* 5.2.3 UMNT and 5.2.4 UMNTALL: nothing to forget. */
static bool mnt_umnt(dirpath *a, void *r, struct svc_req *rq)
{
	(void)a;
	(void)r;
	(void)rq;
	return true;
}

/* 5.2.5 EXPORT: the one directory, no group restriction. */
static bool mnt_export(void *a, exports *r, struct svc_req *rq)
{
	struct exportnode *e;

	(void)a;
	(void)rq;
	*r = NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return true;
	e->ex_dir = strdup(nfs3d_exp.path);
	if (!e->ex_dir) {
		free(e);
		return true;
	}
	*r = e;
	return true;
}

#define VOIDP(lbl, f, rt)                                                      \
	{                                                                      \
		.label = lbl, .xargs = NFS3D_XDR(xdr_void),                    \
		.xres = NFS3D_XDR(xdr_##rt), .ressz = sizeof(rt),              \
		.fn = NFS3D_FN(f)                                              \
	}

static const struct nfs3d_proc mnt_procs[] = {
    [MOUNTPROC3_NULL] = {.label = "NULL",
			 .xargs = NFS3D_XDR(xdr_void),
			 .xres = NFS3D_XDR(xdr_void),
			 .fn = mnt_null},
    [MOUNTPROC3_MNT] = NFS3D_PROC("MNT", mnt_mnt, dirpath, mountres3, true),
    [MOUNTPROC3_DUMP] = VOIDP("DUMP", mnt_dump, mountlist),
    [MOUNTPROC3_UMNT] = {.label = "UMNT",
			 .xargs = NFS3D_XDR(xdr_dirpath),
			 .argsz = sizeof(dirpath),
			 .xres = NFS3D_XDR(xdr_void),
			 .fn = NFS3D_FN(mnt_umnt)},
    [MOUNTPROC3_UMNTALL] = {.label = "UMNTALL",
			    .xargs = NFS3D_XDR(xdr_void),
			    .xres = NFS3D_XDR(xdr_void),
			    .fn = mnt_null},
    [MOUNTPROC3_EXPORT] = VOIDP("EXPORT", mnt_export, exports),
};
#define MNT_NPROCS (sizeof(mnt_procs) / sizeof(mnt_procs[0]))

static struct nfs3d_counters mnt_counters[MNT_NPROCS];

void nfs3d_mount_program(struct svc_req *rq, SVCXPRT *xprt)
{
	nfs3d_dispatch(mnt_procs, MNT_NPROCS, mnt_counters, rq, xprt);
}

void nfs3d_mount_print(FILE *f)
{
	nfs3d_print_counters(f, "mount", mnt_procs, MNT_NPROCS, mnt_counters);
}
