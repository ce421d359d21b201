/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3d: a userspace NFSv3 server (RFC 1813) serving one directory over
 * RPC-over-RDMA (netid "rdma") and TCP with the same code. Declarations
 * shared by its files, one concern each:
 *   fh.c        file handles (name_to_handle_at / open_by_handle_at)
 *   mac.c       what makes them unforgeable: their MAC and its key
 *   access.c    who may call, with which export options (exports(5))
 *   attr.c      fattr3, wcc_data, sattr3
 *   err.c       errno -> nfsstat3, the only place
 *   cred.c      each call as its caller (AUTH_SYS, export options)
 *   fcache.c    open files kept for READ, WRITE and COMMIT
 *   nfs3_proc.c the NFS procedures but the directory readers and makers
 *   create.c    CREATE, MKDIR, SYMLINK, MKNOD
 *   dir.c       READDIR and READDIRPLUS
 *   mount3.c    the MOUNT version 3 procedures
 *   dispatch.c  the procedure tables' dispatcher and its counters
 *   nfs3d.c     main: transports, rpcbind, threads, signals
 */
#ifndef NFS3D_H
#define NFS3D_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <rpc/rpc.h>
#include "nfs3_prot.h"

/* FSINFO (RFC 1813 section 3.3.19): what the transport places by DDP. */
#define NFS3D_MAXIO  (1u << 20)	  /* rtmax, wtmax, rtpref, wtpref */
#define NFS3D_IO_HEADROOM (8u << 10) /* RPC and NFS headers around data */
#define NFS3D_DTPREF (64u << 10)  /* READDIR size we prefer */
#define NFS3D_DIRMAX (128u << 10) /* most a READDIR[PLUS] reply takes */

/* Export options (exports(5)), the same for every client or given per
 * client (-c). The default is Linux's: ro, root_squash, secure. */
enum nfs3d_squash { NFS3D_SQUASH_NONE, NFS3D_SQUASH_ROOT, NFS3D_SQUASH_ALL };
struct nfs3d_opts {
	bool ro;
	bool insecure; /* tcp callers from any port, not only below 1024 */
	enum nfs3d_squash squash;
	uid_t anonuid; /* 65534 */
	gid_t anongid;
};
#define NFS3D_OPTS_DEFAULT                                                     	{.ro = true, .squash = NFS3D_SQUASH_ROOT, .anonuid = 65534,            	 .anongid = 65534}

/* Who may use the export (-c): an address and prefix, or every host. */
#define NFS3D_MAX_CLIENTS 32
struct nfs3d_client {
	char spec[64]; /* as given, for the start-up line */
	bool any;
	int family;    /* AF_INET or AF_INET6 */
	unsigned char addr[16];
	unsigned int prefix;
	struct nfs3d_opts o;
};

#define NFS3D_KEY_LEN 16 /* the handle key (mac.c) */
#define NFS3D_MAC_LEN 16 /* the MAC ending every handle */

/* The one exported directory; read-only once nfs3d_export_init is done. */
struct nfs3d_export {
	int root_fd; /* O_RDONLY | O_DIRECTORY, the mount fd */
	dev_t dev;   /* its file system: handles stay inside */
	ino_t root_ino;
	uint32_t tag;	 /* in every handle: this export */
	char path[4096]; /* as MNT names it: the real path */
	writeverf3 verf; /* per server boot (WRITE, COMMIT) */
	bool verbose;
	/* -o: every client's options, or those -c starts from. */
	struct nfs3d_opts opts;
	/* -c, in the order given (the first match counts); none: every
	 * host, with opts. */
	struct nfs3d_client clients[NFS3D_MAX_CLIENTS];
	unsigned int nclients;
	/* The key of every handle's MAC, from keyfile (-k; default
	 * NFS3D_KEYDIR/export-TAG.key, made at the first start). */
	const char *keyfile;
	unsigned char key[NFS3D_KEY_LEN];
};
extern struct nfs3d_export nfs3d_exp;
#define NFS3D_KEYDIR "/var/lib/nfs3d"

int nfs3d_export_init(const char *dir);

/* ---- fh.c ---- */
/* How a handle is opened (the kinds fh_open checks against its type). */
enum nfs3d_open {
	FH_PATH,    /* O_PATH: any object, symlinks not followed */
	FH_DIR,	    /* O_PATH | O_DIRECTORY: a directory, for *at() */
	FH_READDIR, /* O_RDONLY | O_DIRECTORY: to read its entries */
	FH_READ,    /* O_RDONLY: a regular file */
	FH_WRITE,   /* O_WRONLY: a regular file */
};
nfsstat3 nfs3d_fh_open(const nfs_fh3 *fh, enum nfs3d_open how, int *fdp);
/* The handle of dirfd/leaf (leaf NULL: of dirfd itself), whose stat is st;
 * out->data.data_val is malloc'ed (xdr_free frees it with the result). */
nfsstat3 nfs3d_fh_make(int dirfd, const char *leaf, const struct stat *st,
		       nfs_fh3 *out);
nfsstat3 nfs3d_fh_root(nfs_fh3 *out);

/* ---- mac.c ---- */
void nfs3d_mac(const unsigned char key[NFS3D_KEY_LEN], const void *msg,
	       size_t len, unsigned char out[NFS3D_MAC_LEN]);
bool nfs3d_mac_equal(const unsigned char *a, const unsigned char *b);
/* The key in path, made (16 random bytes, mode 0600) if absent; -EPERM
 * when others could read or replace it. 0 or -errno. */
int nfs3d_key_load(const char *path, unsigned char key[NFS3D_KEY_LEN]);

/* ---- access.c ---- */
/* Parses exports(5) options ("ro,root_squash,...") into o: 0 or -EINVAL. */
int nfs3d_opts_parse(const char *s, struct nfs3d_opts *o);
/* Adds a client: "*", an address, ADDR/PREFIX or a host name (each of
 * its addresses), then "(options)" on top of nfs3d_exp.opts. 0 or -errno. */
int nfs3d_client_add(const char *spec);
/* The options this call is served with, or NULL: its caller is not a
 * client of the export, or calls over tcp from a port at or above 1024
 * under "secure". */
const struct nfs3d_opts *nfs3d_access(const struct svc_req *rq);
/* One line per client: what is exported to whom. */
void nfs3d_access_print(FILE *f);

/* ---- attr.c ---- */
void nfs3d_fattr(const struct stat *st, fattr3 *a);
void nfs3d_post_attr(int fd, post_op_attr *p);
void nfs3d_post_attr_st(const struct stat *st, post_op_attr *p);
void nfs3d_pre_attr(int fd, pre_op_attr *p);
/* A wcc_data with pre as "before" (may be absent) and fd's current
 * attributes as "after" (fd < 0: absent). */
void nfs3d_wcc(const pre_op_attr *pre, int fd, wcc_data *w);
/* Applies a sattr3 to the object open (O_PATH or otherwise) as fd. */
nfsstat3 nfs3d_sattr_apply(int fd, const sattr3 *sa);
/* Gives a new object (dirfd/leaf) the caller's AUTH_SYS uid and gid,
 * unless sa sets them itself. */
void nfs3d_own_new(int dirfd, const char *leaf, const sattr3 *sa,
		   const struct svc_req *rq);
/* Checks a component name: NFS3ERR_NOENT / INVAL / NAMETOOLONG or OK;
 * dots: "." and ".." allowed (LOOKUP) or refused (creation, removal). */
nfsstat3 nfs3d_name_ok(const char *leaf, bool dots);

/* ---- cred.c ---- */
#define NFS3D_MAX_GROUPS 16 /* AUTH_SYS carries at most 16 (RFC 5531) */
struct nfs3d_cred {
	uid_t uid;
	gid_t gid;
	gid_t groups[NFS3D_MAX_GROUPS];
	unsigned int ngroups;
};
/* Once, before threads: the server's own groups. 0 or -errno. */
int nfs3d_cred_init(void);
/* The identity a call runs as: its AUTH_SYS ids after the squashing of o. */
void nfs3d_cred_of(const struct svc_req *rq, const struct nfs3d_opts *o,
		   struct nfs3d_cred *c);
bool nfs3d_cred_in_group(const struct nfs3d_cred *c, gid_t gid);
/* Root for a moment (opening a handle); returns whether it switched. */
bool nfs3d_cred_root_begin(void);
void nfs3d_cred_root_end(bool was);
/* This thread runs as uid, switched (the owner override of fh.c). */
bool nfs3d_cred_is(uid_t uid);
/* Whom this thread acts as: true and *c when switched to a caller, false
 * when it acts as the server itself (fcache.c's keys). */
bool nfs3d_cred_now(struct nfs3d_cred *c);

/* ---- fcache.c: open files kept for READ, WRITE and COMMIT ---- */
struct nfs3d_file {
	int fd;		/* -1: none */
	int slot;	/* the cache's entry, -1: fd is this call's own */
};
/* nfs3d_fh_open(fh, how) through the cache (how FH_READ or FH_WRITE);
 * NFS3_OK and f->fd, or the status of the open. */
nfsstat3 nfs3d_file_get(const nfs_fh3 *fh, enum nfs3d_open how,
			struct nfs3d_file *f);
void nfs3d_file_put(struct nfs3d_file *f);
/* A procedure that can change rights or names ran: nothing opened before
 * it is used again. */
void nfs3d_files_changed(void);
/* Closes the entries past their age (the signal thread, twice a second). */
void nfs3d_files_sweep(void);
void nfs3d_files_print(FILE *out);

/* ---- err.c ---- */
nfsstat3 nfs3d_errno(int err);
const char *nfs3d_strstat(nfsstat3 st);

/* ---- dispatch.c ---- */
typedef bool (*nfs3d_fn)(void *args, void *res, struct svc_req *rq);
struct nfs3d_proc {
	const char *label;
	xdrproc_t xargs, xres;
	size_t argsz, ressz;
	nfs3d_fn fn;
	bool has_status; /* the result starts with an nfsstat3 */
	bool modifies;	 /* NFS3ERR_ROFS on a read-only export */
	bool keeps_files; /* not a change of rights or names (fcache.c) */
};
/* A function pointer cast through void (*)(void), which GCC's
 * -Wcast-function-type accepts (rpcgen's routines take a typed pointer). */
#define NFS3D_XDR(f) ((xdrproc_t)(void (*)(void))(f))
#define NFS3D_FN(f)  ((nfs3d_fn)(void (*)(void))(f))
#define NFS3D_PROC(lbl, fun, at, rt, st)                                       \
	{                                                                      \
		.label = lbl, .xargs = NFS3D_XDR(xdr_##at),                    \
		.xres = NFS3D_XDR(xdr_##rt), .argsz = sizeof(at),              \
		.ressz = sizeof(rt), .fn = NFS3D_FN(fun), .has_status = st     \
	}
/* A procedure that changes the file system. */
#define NFS3D_PROC_W(lbl, fun, at, rt)                                         \
	{                                                                      \
		.label = lbl, .xargs = NFS3D_XDR(xdr_##at),                    \
		.xres = NFS3D_XDR(xdr_##rt), .argsz = sizeof(at),              \
		.ressz = sizeof(rt), .fn = NFS3D_FN(fun), .has_status = true,  \
		.modifies = true                                               \
	}
/* One that changes data only: the open files stay (WRITE, COMMIT). */
#define NFS3D_PROC_D(lbl, fun, at, rt)                                         \
	{                                                                      \
		.label = lbl, .xargs = NFS3D_XDR(xdr_##at),                    \
		.xres = NFS3D_XDR(xdr_##rt), .argsz = sizeof(at),              \
		.ressz = sizeof(rt), .fn = NFS3D_FN(fun), .has_status = true,  \
		.modifies = true, .keeps_files = true                          \
	}
/* fn(args, res, rq) as the caller c (cred.c): on this thread for root,
 * else on this thread's companion, which switches; *reply is what fn
 * returned. 0, or -errno when the call could not run. */
int nfs3d_cred_call(const struct nfs3d_cred *c, nfs3d_fn fn, void *args,
		    void *res, struct svc_req *rq, bool *reply);
/* Large enough for every program's arguments and results. */
#define NFS3D_ARGBUF 512
/* Per procedure, per kind of transport (the calls each netid carried). */
enum { NFS3D_RDMA, NFS3D_TCP, NFS3D_NXPRT };
struct nfs3d_counters {
	_Atomic uint64_t calls[NFS3D_NXPRT];
	_Atomic uint64_t errors[NFS3D_NXPRT]; /* a status but NFS3_OK */
};
void nfs3d_dispatch(const struct nfs3d_proc *tab, unsigned int n,
		    struct nfs3d_counters *cnt, struct svc_req *rq,
		    SVCXPRT *xprt);
void nfs3d_print_counters(FILE *f, const char *prog,
			  const struct nfs3d_proc *tab, unsigned int n,
			  const struct nfs3d_counters *cnt);

/* The most data a READ returns or a WRITE takes over this call's
 * transport (FSINFO rtmax/wtmax): NFS3D_MAXIO, or less when the rdma
 * transport's limits (rpcrdma_svc_limits) are smaller. */
uint32_t nfs3d_iomax(const struct svc_req *rq);

/* ---- nfs3_proc.c, dir.c, mount3.c: the programs ---- */
void nfs3d_nfs_program(struct svc_req *rq, SVCXPRT *xprt);
void nfs3d_mount_program(struct svc_req *rq, SVCXPRT *xprt);
void nfs3d_nfs_print(FILE *f);
void nfs3d_mount_print(FILE *f);
bool nfs3d_readdir(READDIR3args *a, READDIR3res *r, struct svc_req *rq);
bool nfs3d_create(CREATE3args *a, CREATE3res *r, struct svc_req *rq);
bool nfs3d_mkdir(MKDIR3args *a, MKDIR3res *r, struct svc_req *rq);
bool nfs3d_symlink(SYMLINK3args *a, SYMLINK3res *r, struct svc_req *rq);
bool nfs3d_mknod(MKNOD3args *a, MKNOD3res *r, struct svc_req *rq);
bool nfs3d_readdirplus(READDIRPLUS3args *a, READDIRPLUS3res *r,
		       struct svc_req *rq);

#endif /* NFS3D_H */
