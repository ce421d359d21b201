/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Attributes (RFC 1813 section 2.5: fattr3, post_op_attr, wcc_data,
 * sattr3) and component names (section 2.5, filename3).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>
#include "nfs3d.h"

void nfs3d_fattr(const struct stat *st, fattr3 *a)
{
	memset(a, 0, sizeof(*a));
	switch (st->st_mode & S_IFMT) {
	case S_IFREG:
		a->type = NF3REG;
		break;
	case S_IFDIR:
		a->type = NF3DIR;
		break;
	case S_IFBLK:
		a->type = NF3BLK;
		break;
	case S_IFCHR:
		a->type = NF3CHR;
		break;
	case S_IFLNK:
		a->type = NF3LNK;
		break;
	case S_IFSOCK:
		a->type = NF3SOCK;
		break;
	default:
		a->type = NF3FIFO;
		break;
	}
	a->mode = st->st_mode & 07777;
	a->nlink = (nfs3_uint32)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->size = (size3)st->st_size;
	a->used = (size3)st->st_blocks * 512;
	a->rdev.specdata1 = major(st->st_rdev);
	a->rdev.specdata2 = minor(st->st_rdev);
	a->fsid = (nfs3_uint64)st->st_dev;
	a->fileid = (fileid3)st->st_ino;
	a->atime.seconds = (nfs3_uint32)st->st_atim.tv_sec;
	a->atime.nseconds = (nfs3_uint32)st->st_atim.tv_nsec;
	a->mtime.seconds = (nfs3_uint32)st->st_mtim.tv_sec;
	a->mtime.nseconds = (nfs3_uint32)st->st_mtim.tv_nsec;
	a->ctime.seconds = (nfs3_uint32)st->st_ctim.tv_sec;
	a->ctime.nseconds = (nfs3_uint32)st->st_ctim.tv_nsec;
}

void nfs3d_post_attr_st(const struct stat *st, post_op_attr *p)
{
	p->attributes_follow = TRUE;
	nfs3d_fattr(st, &p->post_op_attr_u.attributes);
}

void nfs3d_post_attr(int fd, post_op_attr *p)
{
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0)
		nfs3d_post_attr_st(&st, p);
	else
		p->attributes_follow = FALSE;
}

void nfs3d_pre_attr(int fd, pre_op_attr *p)
{
	wcc_attr *w = &p->pre_op_attr_u.attributes;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		p->attributes_follow = FALSE;
		return;
	}
	p->attributes_follow = TRUE;
	w->size = (size3)st.st_size;
	w->mtime.seconds = (nfs3_uint32)st.st_mtim.tv_sec;
	w->mtime.nseconds = (nfs3_uint32)st.st_mtim.tv_nsec;
	w->ctime.seconds = (nfs3_uint32)st.st_ctim.tv_sec;
	w->ctime.nseconds = (nfs3_uint32)st.st_ctim.tv_nsec;
}

void nfs3d_wcc(const pre_op_attr *pre, int fd, wcc_data *w)
{
	if (pre)
		w->before = *pre;
	else
		w->before.attributes_follow = FALSE;
	nfs3d_post_attr(fd, &w->after);
}

/* A client's time; nseconds above 999999999 (which would also alias
 * UTIME_NOW / UTIME_OMIT) is clamped, never passed through. */
static struct timespec nfs_ts(const nfstime3 *t)
{
	struct timespec ts = {.tv_sec = t->seconds,
			      .tv_nsec = t->nseconds < 1000000000
					     ? (long)t->nseconds
					     : 999999999};

	return ts;
}

/*
 * RFC 1813 section 3.3.2: mode, owner, size, times, in that order; the
 * first failure ends it (the wcc_data tells the client what changed).
 * fd may be O_PATH: the calls used act through it without opening the
 * object (a symlink's mode is left alone: Linux has none to set).
 */
nfsstat3 nfs3d_sattr_apply(int fd, const sattr3 *sa)
{
	struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT},
				 {.tv_nsec = UTIME_OMIT}};
	char proc[40];
	struct stat st;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;

	if (fstat(fd, &st) < 0)
		return nfs3d_errno(errno);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (sa->mode.set_it && !S_ISLNK(st.st_mode) &&
	    chmod(proc, sa->mode.set_mode3_u.mode & 07777) < 0)
		return nfs3d_errno(errno);
	if (sa->uid.set_it)
		uid = sa->uid.set_uid3_u.uid;
	if (sa->gid.set_it)
		gid = sa->gid.set_gid3_u.gid;
	if ((sa->uid.set_it || sa->gid.set_it) &&
	    fchownat(fd, "", uid, gid, AT_EMPTY_PATH) < 0)
		return nfs3d_errno(errno);
	if (sa->size.set_it) {
		size3 size = sa->size.set_size3_u.size;

		if (S_ISDIR(st.st_mode))
			return NFS3ERR_ISDIR;
		if (!S_ISREG(st.st_mode))
			return NFS3ERR_INVAL;
		if (size > INT64_MAX)
			return NFS3ERR_FBIG;
		if (truncate(proc, (off_t)size) < 0)
			return nfs3d_errno(errno);
	}
	if (sa->atime.set_it == SET_TO_SERVER_TIME)
		ts[0].tv_nsec = UTIME_NOW;
	else if (sa->atime.set_it == SET_TO_CLIENT_TIME)
		ts[0] = nfs_ts(&sa->atime.set_atime_u.atime);
	if (sa->mtime.set_it == SET_TO_SERVER_TIME)
		ts[1].tv_nsec = UTIME_NOW;
	else if (sa->mtime.set_it == SET_TO_CLIENT_TIME)
		ts[1] = nfs_ts(&sa->mtime.set_mtime_u.mtime);
	if (ts[0].tv_nsec != UTIME_OMIT || ts[1].tv_nsec != UTIME_OMIT) {
		if (utimensat(fd, "", ts, AT_EMPTY_PATH) < 0)
			return nfs3d_errno(errno);
	}
	return NFS3_OK;
}

void nfs3d_own_new(int dirfd, const char *leaf, const sattr3 *sa,
		   const struct svc_req *rq)
{
	struct nfs3d_cred c;

	nfs3d_cred_of(rq, nfs3d_access(rq), &c);
	/* A caller other than root created it as itself (cred.c); a server
	 * not run as root cannot give objects away. */
	if (c.uid != 0 || geteuid() != 0)
		return;
	if (fchownat(dirfd, leaf, sa && sa->uid.set_it ? (uid_t)-1 : c.uid,
		     sa && sa->gid.set_it ? (gid_t)-1 : c.gid,
		     AT_SYMLINK_NOFOLLOW) < 0 &&
	    nfs3d_exp.verbose)
		fprintf(stderr, "nfs3d: chown %s: %s\n", leaf, strerror(errno));
}

nfsstat3 nfs3d_name_ok(const char *leaf, bool dots)
{
	size_t len;

	if (!leaf)
		return NFS3ERR_INVAL;
	len = strlen(leaf);
	if (len == 0)
		return NFS3ERR_NOENT;
	if (len > NAME_MAX)
		return NFS3ERR_NAMETOOLONG;
	if (strchr(leaf, '/'))
		return NFS3ERR_INVAL;
	if (!dots && (strcmp(leaf, ".") == 0 || strcmp(leaf, "..") == 0))
		return NFS3ERR_INVAL;
	return NFS3_OK;
}
