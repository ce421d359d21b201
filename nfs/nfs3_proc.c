/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NFS version 3 procedures (RFC 1813 section 3.3), all but READDIR
 * and READDIRPLUS (dir.c). Each opens what its handles name (fh.c),
 * acts with the *at() calls relative to those descriptors and closes
 * them again: no state survives a call, so handles outlive restarts and
 * threads need no locks. Each call runs as its caller (cred.c), so the
 * kernel checks its rights; new objects are the caller's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/statvfs.h>
#include <rpcrdma/rpcrdma.h>
#include "nfs3d.h"

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* 3.3.0 NULL */
static bool nfs3_null(void *a, void *r, struct svc_req *rq)
{
	(void)a;
	(void)r;
	(void)rq;
	return true;
}

/* 3.3.1 GETATTR */
static bool nfs3_getattr(GETATTR3args *a, GETATTR3res *r, struct svc_req *rq)
{
	struct stat st;
	int fd;

	(void)rq;
	r->status = nfs3d_fh_open(&a->object, FH_PATH, &fd);
	if (r->status != NFS3_OK)
		return true;
	if (fstat(fd, &st) < 0)
		r->status = nfs3d_errno(errno);
	else
		nfs3d_fattr(&st, &r->GETATTR3res_u.resok.obj_attributes);
	close(fd);
	return true;
}

/* 3.3.2 SETATTR: the guard compares ctime (NFS3ERR_NOT_SYNC). */
static bool nfs3_setattr(SETATTR3args *a, SETATTR3res *r, struct svc_req *rq)
{
	wcc_data *w = &r->SETATTR3res_u.resok.obj_wcc;
	pre_op_attr pre;
	struct stat st;
	int fd;

	(void)rq;
	r->status = nfs3d_fh_open(&a->object, FH_PATH, &fd);
	if (r->status != NFS3_OK)
		return true;
	nfs3d_pre_attr(fd, &pre);
	if (a->guard.check) {
		const nfstime3 *g = &a->guard.sattrguard3_u.obj_ctime;

		if (fstat(fd, &st) < 0) {
			r->status = nfs3d_errno(errno);
		} else if ((nfs3_uint32)st.st_ctim.tv_sec != g->seconds ||
			   (nfs3_uint32)st.st_ctim.tv_nsec != g->nseconds) {
			r->status = NFS3ERR_NOT_SYNC;
		}
	}
	if (r->status == NFS3_OK)
		r->status = nfs3d_sattr_apply(fd, &a->new_attributes);
	/* resok and resfail have the same shape: one wcc_data. */
	nfs3d_wcc(&pre, fd, w);
	close(fd);
	return true;
}

/* 3.3.3 LOOKUP: "." is the directory, ".." its parent but at the root. */
static bool nfs3_lookup(LOOKUP3args *a, LOOKUP3res *r, struct svc_req *rq)
{
	LOOKUP3resok *ok = &r->LOOKUP3res_u.resok;
	const char *leaf = a->what.name;
	struct stat st, dst;
	int dfd, fd = -1;

	(void)rq;
	r->status = nfs3d_fh_open(&a->what.dir, FH_DIR, &dfd);
	if (r->status != NFS3_OK)
		return true;
	r->status = nfs3d_name_ok(leaf, true);
	if (r->status != NFS3_OK)
		goto out;
	if (strcmp(leaf, "..") == 0 && fstat(dfd, &dst) == 0 &&
	    dst.st_ino == nfs3d_exp.root_ino && dst.st_dev == nfs3d_exp.dev)
		leaf = ".";
	fd = openat(dfd, leaf, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r->status = nfs3d_errno(errno);
		goto out;
	}
	r->status = nfs3d_fh_make(fd, NULL, &st, &ok->object);
	if (r->status != NFS3_OK)
		goto out;
	nfs3d_post_attr_st(&st, &ok->obj_attributes);
	nfs3d_post_attr(dfd, &ok->dir_attributes);
	close(fd);
	close(dfd);
	return true;
out:
	close_fd(fd);
	nfs3d_post_attr(dfd, &r->LOOKUP3res_u.resfail.dir_attributes);
	close(dfd);
	return true;
}

/* 3.3.4 ACCESS: the mode bits for the caller as mapped (cred.c); root
 * may do all but execute files without an x bit; nothing that changes
 * the file system on a read-only export. No owner override here (as
 * Linux's nfsd): a client asks ACCESS before it opens a file, and an
 * owner's chmod a-w must keep its own opens from writing. */
static bool nfs3_access(ACCESS3args *a, ACCESS3res *r, struct svc_req *rq)
{
	uint32_t want = a->access, got = 0;
	const struct nfs3d_opts *o;
	struct nfs3d_cred c;
	unsigned int bits;
	struct stat st;
	int fd;

	r->status = nfs3d_fh_open(&a->object, FH_PATH, &fd);
	if (r->status != NFS3_OK)
		return true;
	if (fstat(fd, &st) < 0) {
		r->status = nfs3d_errno(errno);
		r->ACCESS3res_u.resfail.obj_attributes.attributes_follow =
		    FALSE;
		close(fd);
		return true;
	}
	o = nfs3d_access(rq);
	nfs3d_cred_of(rq, o, &c);
	if (c.uid == 0) {
		bits = 07;
		if (!S_ISDIR(st.st_mode) && !(st.st_mode & 0111))
			bits = 06;
	} else if (c.uid == st.st_uid) {
		bits = (st.st_mode >> 6) & 07;
	} else if (nfs3d_cred_in_group(&c, st.st_gid)) {
		bits = (st.st_mode >> 3) & 07;
	} else {
		bits = st.st_mode & 07;
	}
	if (!o || o->ro)
		bits &= ~02u;
	if (bits & 04)
		got |= ACCESS3_READ;
	if (bits & 02)
		got |= ACCESS3_MODIFY | ACCESS3_EXTEND |
		       (S_ISDIR(st.st_mode) ? ACCESS3_DELETE : 0);
	if (bits & 01)
		got |= S_ISDIR(st.st_mode) ? ACCESS3_LOOKUP : ACCESS3_EXECUTE;
	r->ACCESS3res_u.resok.access = want & got;
	nfs3d_post_attr_st(&st, &r->ACCESS3res_u.resok.obj_attributes);
	close(fd);
	return true;
}

/* 3.3.5 READLINK */
static bool nfs3_readlink(READLINK3args *a, READLINK3res *r, struct svc_req *rq)
{
	READLINK3resok *ok = &r->READLINK3res_u.resok;
	char *buf;
	ssize_t n;
	int fd;

	(void)rq;
	r->status = nfs3d_fh_open(&a->symlink, FH_PATH, &fd);
	if (r->status != NFS3_OK)
		return true;
	buf = malloc(PATH_MAX + 1);
	if (!buf) {
		r->status = NFS3ERR_JUKEBOX;
	} else {
		n = readlinkat(fd, "", buf, PATH_MAX);
		if (n < 0) {
			/* Not a symlink: ENOENT from readlinkat. */
			r->status = errno == ENOENT ? NFS3ERR_INVAL
						    : nfs3d_errno(errno);
			free(buf);
		} else {
			buf[n] = '\0';
			ok->data = buf;
		}
	}
	/* resok and resfail both start with the symlink's attributes. */
	nfs3d_post_attr(fd, &ok->symlink_attributes);
	close(fd);
	return true;
}

/* 3.3.6 READ: at most rtmax bytes; data is the DDP item (write chunk). */
static bool nfs3_read(READ3args *a, READ3res *r, struct svc_req *rq)
{
	READ3resok *ok = &r->READ3res_u.resok;
	uint32_t count = a->count;
	struct stat st;
	size_t done = 0;
	char *buf;
	struct nfs3d_file f;
	ssize_t n;
	int fd;

	(void)rq;
	r->status = nfs3d_file_get(&a->file, FH_READ, &f);
	fd = f.fd;
	if (r->status != NFS3_OK) {
		if (r->status == NFS3ERR_INVAL || r->status == NFS3ERR_ISDIR) {
			/* Not a regular file: say what it is. */
			int pfd;

			if (nfs3d_fh_open(&a->file, FH_PATH, &pfd) == NFS3_OK) {
				nfs3d_post_attr(
				    pfd,
				    &r->READ3res_u.resfail.file_attributes);
				close(pfd);
			}
		}
		return true;
	}
	if (count > nfs3d_iomax(rq))
		count = nfs3d_iomax(rq);
	if (a->offset > INT64_MAX)
		count = 0; /* past any file's end */
	buf = malloc(count ? count : 1);
	if (!buf) {
		r->status = NFS3ERR_JUKEBOX;
		nfs3d_post_attr(fd, &r->READ3res_u.resfail.file_attributes);
		nfs3d_file_put(&f);
		return true;
	}
	while (done < count) {
		n = pread(fd, buf + done, count - done,
			  (off_t)(a->offset + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r->status = nfs3d_errno(errno);
			free(buf);
			nfs3d_post_attr(fd,
					&r->READ3res_u.resfail.file_attributes);
			nfs3d_file_put(&f);
			return true;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	ok->data.data_val = buf;
	ok->data.data_len = (u_int)done;
	ok->count = (count3)done;
	if (fstat(fd, &st) == 0) {
		nfs3d_post_attr_st(&st, &ok->file_attributes);
		ok->eof = a->offset > INT64_MAX ||
			  a->offset + done >= (uint64_t)st.st_size;
	} else {
		ok->file_attributes.attributes_follow = FALSE;
		ok->eof = done < count;
	}
	nfs3d_file_put(&f);
	return true;
}

/* 3.3.7 WRITE: count bytes of data (the DDP item: a read chunk), made as
 * stable as asked; the verifier changes with every server boot. */
static bool nfs3_write(WRITE3args *a, WRITE3res *r, struct svc_req *rq)
{
	WRITE3resok *ok = &r->WRITE3res_u.resok;
	pre_op_attr pre;
	size_t done = 0;
	struct nfs3d_file f;
	ssize_t n;
	int fd;

	(void)rq;
	r->status = nfs3d_file_get(&a->file, FH_WRITE, &f);
	fd = f.fd;
	if (r->status != NFS3_OK)
		return true;
	nfs3d_pre_attr(fd, &pre);
	if (a->count > a->data.data_len ||
	    (a->stable != UNSTABLE && a->stable != DATA_SYNC &&
	     a->stable != FILE_SYNC)) {
		r->status = NFS3ERR_INVAL;
		goto out;
	}
	if (a->offset > INT64_MAX || a->count > INT64_MAX - a->offset) {
		r->status = NFS3ERR_FBIG;
		goto out;
	}
	while (done < a->count) {
		n = pwrite(fd, a->data.data_val + done, a->count - done,
			   (off_t)(a->offset + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (done)
				break; /* a short write is still a write */
			r->status = nfs3d_errno(errno);
			goto out;
		}
		done += (size_t)n;
	}
	if ((a->stable == FILE_SYNC && fsync(fd) < 0) ||
	    (a->stable == DATA_SYNC && fdatasync(fd) < 0)) {
		r->status = nfs3d_errno(errno);
		goto out;
	}
	ok->count = (count3)done;
	ok->committed = a->stable;
	memcpy(ok->verf, nfs3d_exp.verf, sizeof(ok->verf));
out:
	nfs3d_wcc(&pre, fd, &ok->file_wcc); /* resfail: the same wcc_data */
	nfs3d_file_put(&f);
	return true;
}

/* REMOVE and RMDIR (3.3.12, 3.3.13): one wcc_data either way. */
static nfsstat3 remove_common(diropargs3 *d, int flags, wcc_data *w)
{
	pre_op_attr pre;
	nfsstat3 s;
	int dfd;

	w->before.attributes_follow = FALSE;
	w->after.attributes_follow = FALSE;
	s = nfs3d_fh_open(&d->dir, FH_DIR, &dfd);
	if (s != NFS3_OK)
		return s;
	nfs3d_pre_attr(dfd, &pre);
	s = nfs3d_name_ok(d->name, false);
	if (s == NFS3_OK && unlinkat(dfd, d->name, flags) < 0)
		s = nfs3d_errno(errno);
	nfs3d_wcc(&pre, dfd, w);
	close(dfd);
	return s;
}

static bool nfs3_remove(REMOVE3args *a, REMOVE3res *r, struct svc_req *rq)
{
	(void)rq;
	r->status =
	    remove_common(&a->object, 0, &r->REMOVE3res_u.resok.dir_wcc);
	return true;
}

static bool nfs3_rmdir(RMDIR3args *a, RMDIR3res *r, struct svc_req *rq)
{
	(void)rq;
	r->status = remove_common(&a->object, AT_REMOVEDIR,
				  &r->RMDIR3res_u.resok.dir_wcc);
	return true;
}

/* 3.3.14 RENAME */
static bool nfs3_rename(RENAME3args *a, RENAME3res *r, struct svc_req *rq)
{
	RENAME3resok *ok = &r->RENAME3res_u.resok;
	pre_op_attr pfrom, pto;
	int ffd, tfd = -1;

	(void)rq;
	r->status = nfs3d_fh_open(&a->from.dir, FH_DIR, &ffd);
	if (r->status != NFS3_OK)
		return true;
	nfs3d_pre_attr(ffd, &pfrom);
	r->status = nfs3d_fh_open(&a->to.dir, FH_DIR, &tfd);
	if (r->status == NFS3_OK) {
		nfs3d_pre_attr(tfd, &pto);
		r->status = nfs3d_name_ok(a->from.name, false);
	} else {
		pto.attributes_follow = FALSE;
	}
	if (r->status == NFS3_OK)
		r->status = nfs3d_name_ok(a->to.name, false);
	if (r->status == NFS3_OK &&
	    renameat(ffd, a->from.name, tfd, a->to.name) < 0)
		r->status = nfs3d_errno(errno);
	/* resok and resfail: the same two wcc_data. */
	nfs3d_wcc(&pfrom, ffd, &ok->fromdir_wcc);
	nfs3d_wcc(&pto, tfd, &ok->todir_wcc);
	close_fd(tfd);
	close(ffd);
	return true;
}

/* 3.3.15 LINK */
static bool nfs3_link(LINK3args *a, LINK3res *r, struct svc_req *rq)
{
	LINK3resok *ok = &r->LINK3res_u.resok;
	pre_op_attr pre;
	int fd, dfd = -1;

	(void)rq;
	pre.attributes_follow = FALSE;
	r->status = nfs3d_fh_open(&a->file, FH_PATH, &fd);
	if (r->status != NFS3_OK)
		return true;
	r->status = nfs3d_fh_open(&a->link.dir, FH_DIR, &dfd);
	if (r->status == NFS3_OK) {
		nfs3d_pre_attr(dfd, &pre);
		r->status = nfs3d_name_ok(a->link.name, false);
	}
	/* Through /proc, not AT_EMPTY_PATH: that one needs
	 * CAP_DAC_READ_SEARCH, which a caller's identity does not have (the
	 * descriptor was opened as root); the magic link names the object
	 * itself, a symlink too, and keeps the protected_hardlinks checks. */
	if (r->status == NFS3_OK) {
		char proc[40];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (linkat(AT_FDCWD, proc, dfd, a->link.name,
			   AT_SYMLINK_FOLLOW) < 0)
			r->status = errno == EPERM ? NFS3ERR_ISDIR
						   : nfs3d_errno(errno);
	}
	if (r->status == NFS3ERR_ISDIR) {
		struct stat st;

		/* EPERM is also a hard link refused for other reasons. */
		if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
			r->status = NFS3ERR_PERM;
	}
	nfs3d_post_attr(fd, &ok->file_attributes);
	nfs3d_wcc(&pre, dfd, &ok->linkdir_wcc);
	close_fd(dfd);
	close(fd);
	return true;
}

/* 3.3.18 FSSTAT */
static bool nfs3_fsstat(FSSTAT3args *a, FSSTAT3res *r, struct svc_req *rq)
{
	FSSTAT3resok *ok = &r->FSSTAT3res_u.resok;
	struct statvfs sv;
	int fd;

	r->status = nfs3d_fh_open(&a->fsroot, FH_PATH, &fd);
	if (r->status != NFS3_OK)
		return true;
	if (fstatvfs(fd, &sv) < 0) {
		r->status = nfs3d_errno(errno);
	} else {
		ok->tbytes = (size3)sv.f_blocks * sv.f_frsize;
		ok->fbytes = (size3)sv.f_bfree * sv.f_frsize;
		ok->abytes = (size3)sv.f_bavail * sv.f_frsize;
		ok->tfiles = sv.f_files;
		ok->ffiles = sv.f_ffree;
		ok->afiles = sv.f_favail;
		ok->invarsec = 0;
	}
	nfs3d_post_attr(fd, &ok->obj_attributes);
	close(fd);
	return true;
}

uint32_t nfs3d_iomax(const struct svc_req *rq)
{
	struct rpcrdma_svc_limits l;
	uint32_t max = NFS3D_MAXIO, lim;

	/* Over tcp the record buffers are sized for NFS3D_MAXIO (nfs3d.c);
	 * over rdma the data moves in chunks within the transport's largest
	 * call and reply, its headers around it. */
	if (rpcrdma_svc_limits(rq->rq_xprt, &l) == 0 && l.connected) {
		lim = l.max_call < l.max_reply ? l.max_call : l.max_reply;
		/* A transport too small for the headroom: half of it. */
		lim -= lim / 2 < NFS3D_IO_HEADROOM ? lim / 2 : NFS3D_IO_HEADROOM;
		lim &= lim >= 4096 ? ~(uint32_t)4095 : ~(uint32_t)511;
		if (lim < max)
			max = lim;
	}
	return max;
}

/* 3.3.19 FSINFO: rtmax and wtmax are what a READ's write chunk and a
 * WRITE's read chunk carry over this transport (nfs3d_iomax). */
static bool nfs3_fsinfo(FSINFO3args *a, FSINFO3res *r, struct svc_req *rq)
{
	FSINFO3resok *ok = &r->FSINFO3res_u.resok;
	int fd;

	r->status = nfs3d_fh_open(&a->fsroot, FH_PATH, &fd);
	if (r->status != NFS3_OK)
		return true;
	nfs3d_post_attr(fd, &ok->obj_attributes);
	close(fd);
	ok->rtmax = ok->rtpref = nfs3d_iomax(rq);
	ok->wtmax = ok->wtpref = ok->rtmax;
	ok->rtmult = ok->wtmult = 4096;
	ok->dtpref = NFS3D_DTPREF;
	ok->maxfilesize = INT64_MAX;
	ok->time_delta.seconds = 0;
	ok->time_delta.nseconds = 1;
	ok->properties =
	    FSF3_LINK | FSF3_SYMLINK | FSF3_HOMOGENEOUS | FSF3_CANSETTIME;
	return true;
}

/* 3.3.20 PATHCONF */
static bool nfs3_pathconf(PATHCONF3args *a, PATHCONF3res *r, struct svc_req *rq)
{
	PATHCONF3resok *ok = &r->PATHCONF3res_u.resok;
	long v;
	int fd;

	(void)rq;
	r->status = nfs3d_fh_open(&a->object, FH_PATH, &fd);
	if (r->status != NFS3_OK)
		return true;
	v = fpathconf(fd, _PC_LINK_MAX);
	ok->linkmax = v > 0 && v < UINT32_MAX ? (nfs3_uint32)v : 32000;
	v = fpathconf(fd, _PC_NAME_MAX);
	ok->name_max = v > 0 && v <= NAME_MAX ? (nfs3_uint32)v : NAME_MAX;
	ok->no_trunc = TRUE;
	ok->chown_restricted = TRUE;
	ok->case_insensitive = FALSE;
	ok->case_preserving = TRUE;
	nfs3d_post_attr(fd, &ok->obj_attributes);
	close(fd);
	return true;
}

/* 3.3.21 COMMIT: the whole file is synced, whatever the range. */
static bool nfs3_commit(COMMIT3args *a, COMMIT3res *r, struct svc_req *rq)
{
	COMMIT3resok *ok = &r->COMMIT3res_u.resok;
	struct nfs3d_file f;
	pre_op_attr pre;
	int fd;

	(void)rq;
	/* Who wrote may commit, whether or not it may read (a group that
	 * may only write); a reader may too (the data is the same). */
	r->status = nfs3d_file_get(&a->file, FH_WRITE, &f);
	if (r->status == NFS3ERR_ACCES)
		r->status = nfs3d_file_get(&a->file, FH_READ, &f);
	if (r->status != NFS3_OK)
		return true;
	fd = f.fd;
	nfs3d_pre_attr(fd, &pre);
	if (a->offset > INT64_MAX || a->count > INT64_MAX - a->offset)
		r->status = NFS3ERR_INVAL;
	else if (fsync(fd) < 0)
		r->status = nfs3d_errno(errno);
	memcpy(ok->verf, nfs3d_exp.verf, sizeof(ok->verf));
	nfs3d_wcc(&pre, fd, &ok->file_wcc);
	nfs3d_file_put(&f);
	return true;
}

static const struct nfs3d_proc nfs3_procs[] = {
    [NFSPROC3_NULL] = {.label = "NULL",
		       .xargs = NFS3D_XDR(xdr_void),
		       .xres = NFS3D_XDR(xdr_void),
		       .fn = nfs3_null},
    [NFSPROC3_GETATTR] =
	NFS3D_PROC("GETATTR", nfs3_getattr, GETATTR3args, GETATTR3res, true),
    [NFSPROC3_SETATTR] =
	NFS3D_PROC_W("SETATTR", nfs3_setattr, SETATTR3args, SETATTR3res),
    [NFSPROC3_LOOKUP] =
	NFS3D_PROC("LOOKUP", nfs3_lookup, LOOKUP3args, LOOKUP3res, true),
    [NFSPROC3_ACCESS] =
	NFS3D_PROC("ACCESS", nfs3_access, ACCESS3args, ACCESS3res, true),
    [NFSPROC3_READLINK] = NFS3D_PROC("READLINK", nfs3_readlink, READLINK3args,
				     READLINK3res, true),
    [NFSPROC3_READ] = NFS3D_PROC("READ", nfs3_read, READ3args, READ3res, true),
    [NFSPROC3_WRITE] =
	NFS3D_PROC_D("WRITE", nfs3_write, WRITE3args, WRITE3res),
    [NFSPROC3_CREATE] =
	NFS3D_PROC_W("CREATE", nfs3d_create, CREATE3args, CREATE3res),
    [NFSPROC3_MKDIR] =
	NFS3D_PROC_W("MKDIR", nfs3d_mkdir, MKDIR3args, MKDIR3res),
    [NFSPROC3_SYMLINK] =
	NFS3D_PROC_W("SYMLINK", nfs3d_symlink, SYMLINK3args, SYMLINK3res),
    [NFSPROC3_MKNOD] =
	NFS3D_PROC_W("MKNOD", nfs3d_mknod, MKNOD3args, MKNOD3res),
    [NFSPROC3_REMOVE] =
	NFS3D_PROC_W("REMOVE", nfs3_remove, REMOVE3args, REMOVE3res),
    [NFSPROC3_RMDIR] =
	NFS3D_PROC_W("RMDIR", nfs3_rmdir, RMDIR3args, RMDIR3res),
    [NFSPROC3_RENAME] =
	NFS3D_PROC_W("RENAME", nfs3_rename, RENAME3args, RENAME3res),
    [NFSPROC3_LINK] = NFS3D_PROC_W("LINK", nfs3_link, LINK3args, LINK3res),
    [NFSPROC3_READDIR] =
	NFS3D_PROC("READDIR", nfs3d_readdir, READDIR3args, READDIR3res, true),
    [NFSPROC3_READDIRPLUS] =
	NFS3D_PROC("READDIRPLUS", nfs3d_readdirplus, READDIRPLUS3args,
		   READDIRPLUS3res, true),
    [NFSPROC3_FSSTAT] =
	NFS3D_PROC("FSSTAT", nfs3_fsstat, FSSTAT3args, FSSTAT3res, true),
    [NFSPROC3_FSINFO] =
	NFS3D_PROC("FSINFO", nfs3_fsinfo, FSINFO3args, FSINFO3res, true),
    [NFSPROC3_PATHCONF] = NFS3D_PROC("PATHCONF", nfs3_pathconf, PATHCONF3args,
				     PATHCONF3res, true),
    [NFSPROC3_COMMIT] =
	NFS3D_PROC_D("COMMIT", nfs3_commit, COMMIT3args, COMMIT3res),
};
#define NFS3_NPROCS (sizeof(nfs3_procs) / sizeof(nfs3_procs[0]))

static struct nfs3d_counters nfs3_counters[NFS3_NPROCS];

void nfs3d_nfs_program(struct svc_req *rq, SVCXPRT *xprt)
{
	nfs3d_dispatch(nfs3_procs, NFS3_NPROCS, nfs3_counters, rq, xprt);
}

void nfs3d_nfs_print(FILE *f)
{
	nfs3d_print_counters(f, "nfs", nfs3_procs, NFS3_NPROCS, nfs3_counters);
}
