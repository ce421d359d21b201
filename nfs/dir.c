/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * READDIR and READDIRPLUS (RFC 1813 sections 3.3.16 and 3.3.17).
 *
 * Cookies are the file system's own directory offsets (getdents64's
 * d_off, which lseek takes back): tmpfs has stable ones since Linux 6.6,
 * ext4 and xfs have hashes. The cookie verifier is always zero and not
 * checked, as the Linux server does: a cookie that the directory no
 * longer knows simply continues from where the file system puts it.
 * Replies are sized by their XDR encoding so that they never exceed the
 * client's count (READDIR), dircount and maxcount (READDIRPLUS); a first
 * entry that does not fit is NFS3ERR_TOOSMALL. Over RDMA a large reply
 * travels in the client's reply chunk (RFC 8166 section 3.5.4).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nfs3d.h"

#define XDR_RUP(n) (((n) + 3u) & ~3u)
/* status, post_op_attr with attributes, cookieverf, the list's end
 * marker and eof: READDIR3resok and READDIRPLUS3resok alike. */
#define DIR_FIXED (4u + 4u + 84u + 8u + 4u + 4u)
/* value_follows, fileid, name length, cookie: before the name's bytes */
#define ENTRY_FIXED (4u + 8u + 4u + 8u)
/* post_op_attr and post_op_fh3, at most */
#define ENTRY_PLUS (4u + 84u + 4u + 4u + NFS3_FHSIZE)

struct dir_scan {
	int fd;
	uint32_t max;	 /* bytes of the whole result */
	uint32_t dirmax; /* READDIRPLUS: bytes of fileid, name, cookie */
	bool plus;
	uint32_t used, dirused;
	bool eof;
	unsigned int n;
};

static bool is_dot(const char *s)
{
	return strcmp(s, ".") == 0 || strcmp(s, "..") == 0;
}

/* One READDIRPLUS entry's attributes and handle; absent when they cannot
 * be had (a name removed meanwhile) or for "." and "..". */
static void plus_extras(int dfd, entryplus3 *e)
{
	struct stat st;

	e->name_attributes.attributes_follow = FALSE;
	e->name_handle.handle_follows = FALSE;
	if (is_dot(e->name) ||
	    fstatat(dfd, e->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	nfs3d_post_attr_st(&st, &e->name_attributes);
	if (nfs3d_fh_make(dfd, e->name, &st,
			  &e->name_handle.post_op_fh3_u.handle) == NFS3_OK)
		e->name_handle.handle_follows = TRUE;
}

/*
 * Reads entries from cookie on, appending entry3s (or entryplus3s) to
 * *tail while they fit; sc->eof once the directory's end was reached.
 */
static nfsstat3 dir_scan(struct dir_scan *sc, cookie3 cookie, void **head)
{
	_Alignas(8) char buf[16384];
	void **tail = head;
	ssize_t n;

	if (cookie && lseek(sc->fd, (off_t)cookie, SEEK_SET) < 0)
		return NFS3ERR_BAD_COOKIE;
	for (;;) {
		n = getdents64(sc->fd, buf, sizeof(buf));
		if (n < 0)
			return nfs3d_errno(errno);
		if (n == 0) {
			sc->eof = true;
			return NFS3_OK;
		}
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d =
			    (struct dirent64 *)(void *)(buf + off);
			uint32_t len = (uint32_t)strlen(d->d_name);
			uint32_t esz = ENTRY_FIXED + XDR_RUP(len);
			uint32_t dsz = 8 + 4 + XDR_RUP(len) + 8;

			off += d->d_reclen;
			if (sc->plus)
				esz += ENTRY_PLUS;
			if (sc->used + esz > sc->max ||
			    (sc->plus && sc->dirused + dsz > sc->dirmax))
				return NFS3_OK; /* full: not at eof */
			if (sc->plus) {
				entryplus3 *e = calloc(1, sizeof(*e));

				if (!e || !(e->name = strdup(d->d_name))) {
					free(e);
					return NFS3ERR_JUKEBOX;
				}
				e->fileid = d->d_ino;
				e->cookie = (cookie3)d->d_off;
				plus_extras(sc->fd, e);
				*tail = e;
				tail = (void **)&e->nextentry;
			} else {
				entry3 *e = calloc(1, sizeof(*e));

				if (!e || !(e->name = strdup(d->d_name))) {
					free(e);
					return NFS3ERR_JUKEBOX;
				}
				e->fileid = d->d_ino;
				e->cookie = (cookie3)d->d_off;
				*tail = e;
				tail = (void **)&e->nextentry;
			}
			sc->used += esz;
			sc->dirused += dsz;
			sc->n++;
		}
	}
}

static nfsstat3 dir_run(const nfs_fh3 *fh, cookie3 cookie, struct dir_scan *sc,
			post_op_attr *attr, void **head, cookieverf3 verf)
{
	nfsstat3 s;

	s = nfs3d_fh_open(fh, FH_READDIR, &sc->fd);
	if (s != NFS3_OK) {
		attr->attributes_follow = FALSE;
		return s;
	}
	sc->used = DIR_FIXED;
	s = dir_scan(sc, cookie, head);
	if (s == NFS3_OK && sc->n == 0 && !sc->eof)
		s = NFS3ERR_TOOSMALL;
	nfs3d_post_attr(sc->fd, attr);
	memset(verf, 0, NFS3_COOKIEVERFSIZE);
	close(sc->fd);
	return s;
}

bool nfs3d_readdir(READDIR3args *a, READDIR3res *r, struct svc_req *rq)
{
	READDIR3resok *ok = &r->READDIR3res_u.resok;
	struct dir_scan sc = {.max = a->count};
	entry3 *head = NULL;

	(void)rq;
	if (sc.max > NFS3D_DIRMAX)
		sc.max = NFS3D_DIRMAX;
	r->status = dir_run(&a->dir, a->cookie, &sc, &ok->dir_attributes,
			    (void **)&head, ok->cookieverf);
	if (r->status != NFS3_OK) {
		/* The list is not sent: free it here (resfail shares the
		 * attributes' place, not the list's). */
		while (head) {
			entry3 *next = head->nextentry;

			free(head->name);
			free(head);
			head = next;
		}
		return true;
	}
	ok->reply.entries = head;
	ok->reply.eof = sc.eof;
	return true;
}

bool nfs3d_readdirplus(READDIRPLUS3args *a, READDIRPLUS3res *r,
		       struct svc_req *rq)
{
	READDIRPLUS3resok *ok = &r->READDIRPLUS3res_u.resok;
	struct dir_scan sc = {
	    .max = a->maxcount, .dirmax = a->dircount, .plus = true};
	entryplus3 *head = NULL;

	(void)rq;
	if (sc.max > NFS3D_DIRMAX)
		sc.max = NFS3D_DIRMAX;
	if (sc.dirmax == 0 || sc.dirmax > sc.max)
		sc.dirmax = sc.max;
	r->status = dir_run(&a->dir, a->cookie, &sc, &ok->dir_attributes,
			    (void **)&head, ok->cookieverf);
	if (r->status != NFS3_OK) {
		while (head) {
			entryplus3 *next = head->nextentry;

			head->nextentry = NULL; /* xdr_free follows it */
			xdr_free(NFS3D_XDR(xdr_entryplus3), (char *)head);
			free(head);
			head = next;
		}
		return true;
	}
	ok->reply.entries = head;
	ok->reply.eof = sc.eof;
	return true;
}
