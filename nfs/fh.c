/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * File handles (RFC 1813 section 2.3.3: opaque to the client, at most
 * NFS3_FHSIZE bytes, valid across server restarts). Linux's
 * name_to_handle_at / open_by_handle_at give handles that survive a
 * restart of this server (the guest runs it as root: open_by_handle_at
 * needs CAP_DAC_READ_SEARCH). Layout, 12 bytes, the kernel's handle,
 * then a MAC of all that (mac.c):
 *
 *   0: version (2)   1: ftype3   2-3: handle_bytes   4-7: handle_type
 *   8-11: export tag (the exported directory's device and inode)
 *   12..12+n: the kernel's handle   then 16 bytes: SipHash-2-4-128
 *
 * Everything in a handle is the client's to forge, and the kernel's part
 * could name any inode of the exported file system (ext4 takes
 * {inode, generation 0} for any generation; security-21c8dd5.md
 * finding 1). So a handle is opened only when its MAC, keyed by the
 * export's secret, is right: the client can only give back a handle
 * this server made, and it makes them only for objects it reached under
 * the export (LOOKUP stops at its root). A malformed or altered handle
 * is NFS3ERR_BADHANDLE, one of another export or of a removed file
 * NFS3ERR_STALE, before anything is opened; an object is opened for I/O
 * only once an O_PATH open showed it is a regular file (never a
 * device's open()). What is left, as with Linux's nfsd and its default
 * no_subtree_check: an object moved out of the export on the server
 * stays reachable through a handle made before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "nfs3d.h"

#define FH_VERSION 2 /* 1: the same without the MAC */
#define FH_HDR	   12
#define FH_MAXKERN (NFS3_FHSIZE - FH_HDR - NFS3D_MAC_LEN)

struct nfs3d_export nfs3d_exp = {.root_fd = -1, .opts = NFS3D_OPTS_DEFAULT};

static ftype3 ftype_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:
		return NF3REG;
	case S_IFDIR:
		return NF3DIR;
	case S_IFBLK:
		return NF3BLK;
	case S_IFCHR:
		return NF3CHR;
	case S_IFLNK:
		return NF3LNK;
	case S_IFSOCK:
		return NF3SOCK;
	default:
		return NF3FIFO;
	}
}

static nfsstat3 fh_from_fd(int fd, const struct stat *st, nfs_fh3 *out)
{
	struct {
		struct file_handle h;
		unsigned char room[MAX_HANDLE_SZ];
	} k;
	uint32_t v32;
	uint16_t v16;
	unsigned char *p;
	int mnt;

	out->data.data_len = 0;
	out->data.data_val = NULL;
	if (st->st_dev != nfs3d_exp.dev)
		return NFS3ERR_ACCES; /* another file system: not exported */
	k.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &k.h, &mnt, AT_EMPTY_PATH) < 0)
		return nfs3d_errno(errno);
	if (k.h.handle_bytes > FH_MAXKERN)
		return NFS3ERR_SERVERFAULT;
	p = malloc(FH_HDR + k.h.handle_bytes + NFS3D_MAC_LEN);
	if (!p)
		return NFS3ERR_JUKEBOX;
	p[0] = FH_VERSION;
	p[1] = (unsigned char)ftype_of(st->st_mode);
	v16 = htons((uint16_t)k.h.handle_bytes);
	memcpy(p + 2, &v16, 2);
	v32 = htonl((uint32_t)k.h.handle_type);
	memcpy(p + 4, &v32, 4);
	v32 = htonl(nfs3d_exp.tag);
	memcpy(p + 8, &v32, 4);
	memcpy(p + FH_HDR, k.h.f_handle, k.h.handle_bytes);
	nfs3d_mac(nfs3d_exp.key, p, FH_HDR + k.h.handle_bytes,
		  p + FH_HDR + k.h.handle_bytes);
	out->data.data_val = (char *)p;
	out->data.data_len = FH_HDR + k.h.handle_bytes + NFS3D_MAC_LEN;
	return NFS3_OK;
}

nfsstat3 nfs3d_fh_make(int dirfd, const char *leaf, const struct stat *st,
		       nfs_fh3 *out)
{
	struct stat st2;
	nfsstat3 s;
	int fd;

	if (!leaf)
		return fh_from_fd(dirfd, st, out);
	/* Handle and attributes of one object, even if leaf is renamed. */
	fd = openat(dirfd, leaf, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return nfs3d_errno(errno);
	if (fstat(fd, &st2) < 0)
		s = nfs3d_errno(errno);
	else if (st && (st2.st_ino != st->st_ino || st2.st_dev != st->st_dev))
		s = NFS3ERR_JUKEBOX; /* replaced meanwhile: ask again */
	else
		s = fh_from_fd(fd, &st2, out);
	close(fd);
	return s;
}

nfsstat3 nfs3d_fh_root(nfs_fh3 *out)
{
	struct stat st;

	if (fstat(nfs3d_exp.root_fd, &st) < 0)
		return nfs3d_errno(errno);
	return fh_from_fd(nfs3d_exp.root_fd, &st, out);
}

/* The O_PATH open of a handle, with its checks; *type is its ftype3. */
static nfsstat3 fh_open_path(const nfs_fh3 *fh, int flags, ftype3 *type,
			     int *fdp)
{
	struct {
		struct file_handle h;
		unsigned char room[FH_MAXKERN];
	} k;
	const unsigned char *p = (const unsigned char *)fh->data.data_val;
	u_int len = fh->data.data_len;
	unsigned char mac[NFS3D_MAC_LEN];
	struct stat st;
	uint32_t v32;
	uint16_t v16;
	bool root;
	int fd, err;

	if (!p || len < FH_HDR + NFS3D_MAC_LEN || len > NFS3_FHSIZE ||
	    p[0] != FH_VERSION || p[1] < NF3REG || p[1] > NF3FIFO)
		return NFS3ERR_BADHANDLE;
	len -= NFS3D_MAC_LEN;
	memcpy(&v16, p + 2, 2);
	if (ntohs(v16) != len - FH_HDR)
		return NFS3ERR_BADHANDLE;
	/* Made by this server for this export, unaltered: else nothing of
	 * it is believed (not even its tag). */
	nfs3d_mac(nfs3d_exp.key, p, len, mac);
	if (!nfs3d_mac_equal(mac, p + len))
		return NFS3ERR_BADHANDLE;
	memcpy(&v32, p + 8, 4);
	if (ntohl(v32) != nfs3d_exp.tag)
		return NFS3ERR_STALE; /* another export, or its old self */
	*type = (ftype3)p[1];
	memcpy(&v32, p + 4, 4);
	k.h.handle_type = (int)ntohl(v32);
	k.h.handle_bytes = len - FH_HDR;
	memcpy(k.h.f_handle, p + FH_HDR, len - FH_HDR);
	/* As root: the handle names an object, the caller's rights on it
	 * are checked when it is used (cred.c). */
	root = nfs3d_cred_root_begin();
	fd = open_by_handle_at(nfs3d_exp.root_fd, &k.h, flags | O_CLOEXEC);
	err = errno;
	nfs3d_cred_root_end(root);
	errno = err;
	if (fd < 0) {
		/* The file system could not decode it: forged or corrupt. */
		if (errno == EINVAL || errno == EBADF)
			return NFS3ERR_BADHANDLE;
		return nfs3d_errno(errno);
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NFS3ERR_STALE;
	}
	if (st.st_dev != nfs3d_exp.dev) {
		close(fd);
		return NFS3ERR_STALE;
	}
	if (ftype_of(st.st_mode) != *type) {
		close(fd);
		return NFS3ERR_BADHANDLE;
	}
	*fdp = fd;
	return NFS3_OK;
}

nfsstat3 nfs3d_fh_open(const nfs_fh3 *fh, enum nfs3d_open how, int *fdp)
{
	char proc[40];
	struct stat st;
	ftype3 type;
	nfsstat3 s;
	int fd = -1, rfd, flags, err;

	*fdp = -1;
	s = fh_open_path(fh, how == FH_DIR ? O_PATH | O_DIRECTORY : O_PATH,
			 &type, &fd);
	if (s != NFS3_OK)
		return s;
	switch (how) {
	case FH_PATH:
		*fdp = fd;
		return NFS3_OK;
	case FH_DIR:
	case FH_READDIR:
		if (type != NF3DIR) {
			close(fd);
			return NFS3ERR_NOTDIR;
		}
		if (how == FH_DIR) {
			*fdp = fd;
			return NFS3_OK;
		}
		break;
	case FH_READ:
	case FH_WRITE:
		if (type != NF3REG) {
			close(fd);
			return type == NF3DIR ? NFS3ERR_ISDIR : NFS3ERR_INVAL;
		}
		break;
	}
	/* Reopen the object the O_PATH descriptor holds, now that its type
	 * is known to be safe to open. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	flags = (how == FH_WRITE     ? O_WRONLY
		 : how == FH_READDIR ? O_RDONLY | O_DIRECTORY
				     : O_RDONLY) |
		O_CLOEXEC;
	rfd = open(proc, flags);
	/* As with Linux's nfsd: the owner of a file may read and write it
	 * whatever its mode (a file created read-only is still written
	 * through the descriptor that created it, which NFS cannot hold),
	 * and who may execute a file may READ it (the client pages it in). */
	if (rfd < 0 && errno == EACCES && how != FH_READDIR &&
	    fstat(fd, &st) == 0 &&
	    (nfs3d_cred_is(st.st_uid) ||
	     (how == FH_READ &&
	      faccessat(fd, "", X_OK, AT_EACCESS | AT_EMPTY_PATH) == 0))) {
		bool root = nfs3d_cred_root_begin();

		rfd = open(proc, flags);
		err = errno;
		nfs3d_cred_root_end(root);
		errno = err;
	}
	s = rfd < 0 ? nfs3d_errno(errno) : NFS3_OK;
	close(fd);
	*fdp = rfd;
	return s;
}

/* 0, or -EXDEV when keyfile's directory is the export or under it (by
 * real path: links resolved); -errno when that directory is missing. */
static int key_outside_export(const char *keyfile)
{
	char d[4096], *slash, *rp;
	size_t n = strlen(nfs3d_exp.path);
	int rc;

	if (strlen(keyfile) >= sizeof(d))
		return -ENAMETOOLONG;
	strcpy(d, keyfile);
	slash = strrchr(d, '/');
	if (slash == d)
		d[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(d, ".");
	rp = realpath(d, NULL);
	if (!rp)
		return errno == ENOENT ? 0 : -errno; /* made by key_load */
	rc = strncmp(rp, nfs3d_exp.path, n) == 0 &&
			     (n == 1 || rp[n] == '\0' || rp[n] == '/')
		 ? -EXDEV
		 : 0;
	free(rp);
	return rc;
}

int nfs3d_export_init(const char *dir)
{
	static char keyfile[sizeof(NFS3D_KEYDIR) + 32];
	struct timespec now;
	int rc;
	struct stat st;
	nfs_fh3 probe;
	uint32_t v;
	nfsstat3 s;
	char *rp;

	rp = realpath(dir, NULL);
	if (!rp)
		return -errno;
	if (strlen(rp) >= sizeof(nfs3d_exp.path)) {
		free(rp);
		return -ENAMETOOLONG;
	}
	strcpy(nfs3d_exp.path, rp);
	free(rp);
	nfs3d_exp.root_fd =
	    open(nfs3d_exp.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (nfs3d_exp.root_fd < 0)
		return -errno;
	if (fstat(nfs3d_exp.root_fd, &st) < 0)
		return -errno;
	nfs3d_exp.dev = st.st_dev;
	nfs3d_exp.root_ino = st.st_ino;
	/* FNV-1a of device and inode: the same export after a restart. */
	v = 2166136261u;
	for (uint64_t x = ((uint64_t)st.st_dev << 32) ^ st.st_ino, i = 0; i < 8;
	     i++, x >>= 8)
		v = (v ^ (uint32_t)(x & 0xff)) * 16777619u;
	nfs3d_exp.tag = v;
	/* The key of the handles' MAC: the export's own, kept on disk. */
	if (!nfs3d_exp.keyfile) {
		snprintf(keyfile, sizeof(keyfile), NFS3D_KEYDIR "/export-%08x.key",
			 (unsigned int)v);
		nfs3d_exp.keyfile = keyfile;
	}
	/* A key the export holds is a key its clients can read: refused
	 * before it is made there. */
	rc = key_outside_export(nfs3d_exp.keyfile);
	if (rc < 0)
		return rc;
	rc = nfs3d_key_load(nfs3d_exp.keyfile, nfs3d_exp.key);
	if (rc < 0)
		return rc;
	/* The write verifier changes with every boot of the server (RFC 1813
	 * section 3.3.7): seconds and nanoseconds of its start. */
	clock_gettime(CLOCK_REALTIME, &now);
	v = htonl((uint32_t)now.tv_sec);
	memcpy(nfs3d_exp.verf, &v, 4);
	v = htonl((uint32_t)now.tv_nsec ^ (uint32_t)getpid());
	memcpy(nfs3d_exp.verf + 4, &v, 4);
	/* The file system must give handles (not every one does). */
	s = nfs3d_fh_root(&probe);
	if (s != NFS3_OK)
		return s == NFS3ERR_NOTSUPP ? -EOPNOTSUPP : -EIO;
	free(probe.data.data_val);
	return 0;
}
