/* SPDX-License-Identifier: BSD-3-Clause */
/* nfs3c, a userspace NFSv3 client tool: what its files share. */
#ifndef NFS3C_H
#define NFS3C_H

#include <stdbool.h>
#include <stdint.h>
#include <rpc/rpc.h>
#include "nfs3_prot.h"

#define XP(f)	((xdrproc_t)(void (*)(void))(f))

struct nfs3c {
	/* From the command line. */
	const char *host, *export;
	bool rdma;		/* netid rdma, else tcp */
	int nfs_port;		/* -1: the netid's default; 0: rpcbind */
	int mount_port;		/* 0: rpcbind */
	uint32_t rsize, wsize;	/* 0: from FSINFO */
	unsigned int jobs;	/* READs / WRITEs in flight from threads */
	bool verbose;
	/* Once connected. */
	CLIENT *cl;
	nfs_fh3 root;
	FSINFO3resok fsinfo;
	struct timeval tmo;
};

/* nfs3c_conn.c: MOUNT (RFC 1813 section 5) and the NFS CLIENT. */
int nfs3c_mount(struct nfs3c *c);
void nfs3c_umount(struct nfs3c *c);
int nfs3c_connect(struct nfs3c *c);
/* FSINFO (section 3.3.19); settles rsize and wsize. */
int nfs3c_fsinfo(struct nfs3c *c);
void nfs3c_print_transport(struct nfs3c *c, const char *when);
void nfs3c_disconnect(struct nfs3c *c);

/* nfs3c_common.c: what the commands share. */
const char *nfs3c_strerr(nfsstat3 st);
/* "nfs3c: OP PATH: WHAT" on stderr; returns -1. */
int nfs3c_fail(const char *op, const char *path, const char *what);
int nfs3c_fail_rpc(struct nfs3c *c, const char *op, const char *path);
int nfs3c_fail_nfs(const char *op, const char *path, nfsstat3 st);
/* The handle of path (relative to the export; "" or "/" is its root),
 * LOOKUP by LOOKUP; its attributes in *at when not NULL. Free with
 * nfs3c_fh_free. */
int nfs3c_resolve(struct nfs3c *c, const char *path, nfs_fh3 *fh,
		  fattr3 *at);
int nfs3c_fh_copy(nfs_fh3 *dst, const nfs_fh3 *src);
void nfs3c_fh_free(nfs_fh3 *fh);
/* GETATTR of a handle; path names it in errors. */
int getattr_fh(struct nfs3c *c, const nfs_fh3 *fh, const char *path,
	       fattr3 *at);

/* nfs3c_dir.c: ls (READDIRPLUS / READDIR, sections 3.3.16-17). */
int nfs3c_ls(struct nfs3c *c, const char *path, bool longfmt);

/* nfs3c_io.c: read and write (READ, WRITE, COMMIT, CREATE). */
int nfs3c_read(struct nfs3c *c, const char *path, const char *local);
int nfs3c_write(struct nfs3c *c, const char *local, const char *path);

#endif /* NFS3C_H */
