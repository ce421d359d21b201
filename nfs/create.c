/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NFS version 3 procedures that make objects (RFC 1813 sections
 * 3.3.8 to 3.3.11): CREATE, MKDIR, SYMLINK and MKNOD. Each runs as its
 * caller (cred.c): the kernel checks its rights, and a caller other than
 * root makes objects that are its own (root's are given to the caller's
 * ids: nfs3d_own_new). Nothing a client names is opened unless it is a
 * regular file: CREATE makes its file with O_EXCL first, and looks at an
 * existing name through O_PATH (security-21c8dd5.md finding 4: an open
 * of a FIFO blocks its thread for ever, a device's open acts).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "nfs3d.h"

/* The result of a successful creation of dfd/leaf (CREATE, MKDIR,
 * SYMLINK share this shape): its handle and attributes. */
static void new_object(int dfd, const char *leaf, post_op_fh3 *obj,
		       post_op_attr *attr)
{
	struct stat st;

	obj->handle_follows = FALSE;
	attr->attributes_follow = FALSE;
	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	nfs3d_post_attr_st(&st, attr);
	if (nfs3d_fh_make(dfd, leaf, &st, &obj->post_op_fh3_u.handle) ==
	    NFS3_OK)
		obj->handle_follows = TRUE;
}

/* A sattr3 without what was already applied at creation (mode). */
static sattr3 sattr_rest(const sattr3 *sa)
{
	sattr3 rest = *sa;

	rest.mode.set_it = FALSE;
	return rest;
}

/* A directory or node just made as dfd/leaf (MKDIR, MKNOD): the
 * caller's ownership, sa but its size (which means nothing to either:
 * ignored, as nfsd does) through O_PATH (a node itself is never opened;
 * mkdir and mknod applied the umask to the mode), then the result's
 * handle and attributes. When sa cannot be applied the object goes
 * again: the caller is told the call failed, and a retry must not find
 * it (NFS3ERR_EXIST). */
static nfsstat3 made_new(int dfd, const char *leaf, bool is_dir,
			 const sattr3 *sa, struct svc_req *rq,
			 post_op_fh3 *obj, post_op_attr *attr)
{
	sattr3 rest = *sa;
	nfsstat3 s;
	int fd;

	rest.size.set_it = FALSE;
	nfs3d_own_new(dfd, leaf, sa, rq);
	fd = openat(dfd, leaf, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return nfs3d_errno(errno);
	s = nfs3d_sattr_apply(fd, &rest);
	close(fd);
	if (s != NFS3_OK) {
		(void)unlinkat(dfd, leaf, is_dir ? AT_REMOVEDIR : 0);
		return s;
	}
	new_object(dfd, leaf, obj, attr);
	return NFS3_OK;
}

/* The exclusive-create verifier lives in atime and mtime, as the Linux
 * server keeps it (RFC 1813 section 3.3.8: stable storage for it). */
static void verf_times(const createverf3 v, struct timespec ts[2])
{
	uint32_t w[2];

	memcpy(w, v, sizeof(w));
	ts[0].tv_sec = w[0] & 0x7fffffff;
	ts[0].tv_nsec = 0;
	ts[1].tv_sec = w[1] & 0x7fffffff;
	ts[1].tv_nsec = 0;
}

/* 3.3.8 CREATE: UNCHECKED, GUARDED (NFS3ERR_EXIST), EXCLUSIVE. */
bool nfs3d_create(CREATE3args *a, CREATE3res *r, struct svc_req *rq)
{
	CREATE3resok *ok = &r->CREATE3res_u.resok;
	const char *leaf = a->where.name;
	const sattr3 *sa = NULL;
	struct timespec ts[2];
	pre_op_attr pre;
	struct stat st;
	mode_t mode = 0644;
	int dfd, fd = -1;
	bool made = true;
	nfsstat3 s;

	r->status = nfs3d_fh_open(&a->where.dir, FH_DIR, &dfd);
	if (r->status != NFS3_OK)
		return true;
	nfs3d_pre_attr(dfd, &pre);
	r->status = nfs3d_name_ok(leaf, false);
	if (r->status != NFS3_OK)
		goto out;
	switch (a->how.mode) {
	case UNCHECKED:
	case GUARDED:
		sa = &a->how.createhow3_u.obj_attributes;
		if (sa->mode.set_it)
			mode = sa->mode.set_mode3_u.mode & 07777;
		break;
	case EXCLUSIVE:
		mode = 0600;
		break;
	default:
		r->status = NFS3ERR_INVAL;
		goto out;
	}
	/* Made here, or else looked at: never an open() of what exists. */
	fd = openat(dfd, leaf,
		    O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0 && errno == EEXIST && a->how.mode == UNCHECKED) {
		/* UNCHECKED takes a regular file that exists (its size may
		 * be set below); anything else is EXIST, as with nfsd. */
		made = false;
		fd = openat(dfd, leaf, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
			close(fd);
			fd = -1;
			errno = EEXIST;
		}
	}
	if (fd < 0 && errno == EEXIST && a->how.mode == EXCLUSIVE) {
		/* A retransmission finds the file it created (same verifier).
		 */
		verf_times(a->how.createhow3_u.verf, ts);
		if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && st.st_atim.tv_sec == ts[0].tv_sec &&
		    st.st_mtim.tv_sec == ts[1].tv_sec) {
			new_object(dfd, leaf, &ok->obj, &ok->obj_attributes);
			goto out;
		}
		errno = EEXIST;
	}
	if (fd < 0) {
		r->status = nfs3d_errno(errno);
		goto out;
	}
	if (a->how.mode == EXCLUSIVE) {
		verf_times(a->how.createhow3_u.verf, ts);
		if (futimens(fd, ts) < 0)
			r->status = nfs3d_errno(errno);
		nfs3d_own_new(dfd, leaf, NULL, rq);
	} else {
		sattr3 rest = made ? sattr_rest(sa) : *sa;

		if (made)
			nfs3d_own_new(dfd, leaf, sa, rq);
		s = nfs3d_sattr_apply(fd, &rest);
		if (s != NFS3_OK)
			r->status = s;
	}
	/* A file this call made and then failed goes again (as made_new). */
	if (r->status != NFS3_OK && made)
		(void)unlinkat(dfd, leaf, 0);
	if (r->status == NFS3_OK)
		new_object(dfd, leaf, &ok->obj, &ok->obj_attributes);
out:
	if (fd >= 0)
		close(fd);
	if (r->status == NFS3_OK)
		nfs3d_wcc(&pre, dfd, &ok->dir_wcc);
	else
		nfs3d_wcc(&pre, dfd, &r->CREATE3res_u.resfail.dir_wcc);
	close(dfd);
	return true;
}

/* 3.3.9 MKDIR */
bool nfs3d_mkdir(MKDIR3args *a, MKDIR3res *r, struct svc_req *rq)
{
	MKDIR3resok *ok = &r->MKDIR3res_u.resok;
	const char *leaf = a->where.name;
	const sattr3 *sa = &a->attributes;
	mode_t mode =
	    sa->mode.set_it ? sa->mode.set_mode3_u.mode & 07777 : 0755;
	pre_op_attr pre;
	int dfd;

	r->status = nfs3d_fh_open(&a->where.dir, FH_DIR, &dfd);
	if (r->status != NFS3_OK)
		return true;
	nfs3d_pre_attr(dfd, &pre);
	r->status = nfs3d_name_ok(leaf, false);
	if (r->status == NFS3_OK && mkdirat(dfd, leaf, mode) < 0)
		r->status = nfs3d_errno(errno);
	if (r->status == NFS3_OK) {
		r->status = made_new(dfd, leaf, true, sa, rq, &ok->obj,
				     &ok->obj_attributes);
	}
	if (r->status == NFS3_OK)
		nfs3d_wcc(&pre, dfd, &ok->dir_wcc);
	else
		nfs3d_wcc(&pre, dfd, &r->MKDIR3res_u.resfail.dir_wcc);
	close(dfd);
	return true;
}

/* 3.3.10 SYMLINK */
bool nfs3d_symlink(SYMLINK3args *a, SYMLINK3res *r, struct svc_req *rq)
{
	SYMLINK3resok *ok = &r->SYMLINK3res_u.resok;
	const char *leaf = a->where.name, *target = a->symlink.symlink_data;
	pre_op_attr pre;
	int dfd;

	r->status = nfs3d_fh_open(&a->where.dir, FH_DIR, &dfd);
	if (r->status != NFS3_OK)
		return true;
	nfs3d_pre_attr(dfd, &pre);
	r->status = nfs3d_name_ok(leaf, false);
	if (r->status == NFS3_OK && (!target || !*target))
		r->status = NFS3ERR_INVAL;
	else if (r->status == NFS3_OK && strlen(target) >= PATH_MAX)
		r->status = NFS3ERR_NAMETOOLONG;
	if (r->status == NFS3_OK && symlinkat(target, dfd, leaf) < 0)
		r->status = nfs3d_errno(errno);
	if (r->status == NFS3_OK) {
		nfs3d_own_new(dfd, leaf, &a->symlink.symlink_attributes, rq);
		new_object(dfd, leaf, &ok->obj, &ok->obj_attributes);
		nfs3d_wcc(&pre, dfd, &ok->dir_wcc);
	} else {
		nfs3d_wcc(&pre, dfd, &r->SYMLINK3res_u.resfail.dir_wcc);
	}
	close(dfd);
	return true;
}

/* 3.3.11 MKNOD: FIFOs, sockets, character and block devices, with
 * the mode and ids of their sattr3. As the caller: one other than root
 * has no CAP_MKNOD (dropped with its file-system uid), so devices are
 * made only for a root caller that is not squashed, as with nfsd. */
bool nfs3d_mknod(MKNOD3args *a, MKNOD3res *r, struct svc_req *rq)
{
	MKNOD3resok *ok = &r->MKNOD3res_u.resok;
	const char *leaf = a->where.name;
	const sattr3 *sa = NULL;
	dev_t dev = 0;
	mode_t type;
	pre_op_attr pre;
	int dfd;

	r->status = nfs3d_fh_open(&a->where.dir, FH_DIR, &dfd);
	if (r->status != NFS3_OK)
		return true;
	nfs3d_pre_attr(dfd, &pre);
	r->status = nfs3d_name_ok(leaf, false);
	switch (a->what.type) {
	case NF3CHR:
	case NF3BLK:
		sa = &a->what.mknoddata3_u.device.dev_attributes;
		dev = makedev(a->what.mknoddata3_u.device.spec.specdata1,
			      a->what.mknoddata3_u.device.spec.specdata2);
		type = a->what.type == NF3CHR ? S_IFCHR : S_IFBLK;
		break;
	case NF3SOCK:
	case NF3FIFO:
		sa = &a->what.mknoddata3_u.pipe_attributes;
		type = a->what.type == NF3SOCK ? S_IFSOCK : S_IFIFO;
		break;
	default: /* regular files, directories, links have their own */
		type = 0;
		if (r->status == NFS3_OK)
			r->status = NFS3ERR_BADTYPE;
	}
	if (r->status == NFS3_OK &&
	    mknodat(dfd, leaf,
		    type | (sa->mode.set_it ? sa->mode.set_mode3_u.mode & 07777
					    : 0644),
		    dev) < 0)
		r->status = nfs3d_errno(errno);
	if (r->status == NFS3_OK) {
		r->status = made_new(dfd, leaf, false, sa, rq, &ok->obj,
				     &ok->obj_attributes);
	}
	if (r->status == NFS3_OK)
		nfs3d_wcc(&pre, dfd, &ok->dir_wcc);
	else
		nfs3d_wcc(&pre, dfd, &r->MKNOD3res_u.resfail.dir_wcc);
	close(dfd);
	return true;
}
