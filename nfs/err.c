/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * errno -> nfsstat3 (RFC 1813 section 2.6), the only place it is done.
 * Where errno has no NFS3 counterpart, the mapping follows the Linux
 * server's (fs/nfsd/nfsproc.c, nfserrno): NFS3ERR_IO by default.
 */
#include <errno.h>
#include "nfs3d.h"

nfsstat3 nfs3d_errno(int err)
{
	switch (err) {
	case 0:
		return NFS3_OK;
	case EPERM:
		return NFS3ERR_PERM;
	case ENOENT:
		return NFS3ERR_NOENT;
	case EIO:
		return NFS3ERR_IO;
	case ENXIO:
		return NFS3ERR_NXIO;
	case EACCES:
	case ETXTBSY:
	case EBUSY:
		return NFS3ERR_ACCES;
	case EEXIST:
		return NFS3ERR_EXIST;
	case EXDEV:
		return NFS3ERR_XDEV;
	case ENODEV:
		return NFS3ERR_NODEV;
	case ENOTDIR:
		return NFS3ERR_NOTDIR;
	case EISDIR:
		return NFS3ERR_ISDIR;
	case EINVAL:
	case ELOOP: /* O_NOFOLLOW met a symlink: not a valid target */
		return NFS3ERR_INVAL;
	case EFBIG:
	case EOVERFLOW:
		return NFS3ERR_FBIG;
	case ENOSPC:
		return NFS3ERR_NOSPC;
	case EROFS:
		return NFS3ERR_ROFS;
	case EMLINK:
		return NFS3ERR_MLINK;
	case ENAMETOOLONG:
		return NFS3ERR_NAMETOOLONG;
	case ENOTEMPTY:
		return NFS3ERR_NOTEMPTY;
	case EDQUOT:
		return NFS3ERR_DQUOT;
	case ESTALE:
		return NFS3ERR_STALE;
	case EOPNOTSUPP:
		return NFS3ERR_NOTSUPP;
	case ENOMEM:
	case EAGAIN:
		return NFS3ERR_JUKEBOX; /* try again later */
	case EBADF:
	case EFAULT:
		return NFS3ERR_SERVERFAULT; /* our bug, not the client's */
	default:
		return NFS3ERR_IO;
	}
}

const char *nfs3d_strstat(nfsstat3 st)
{
	switch (st) {
	case NFS3_OK:
		return "OK";
	case NFS3ERR_PERM:
		return "PERM";
	case NFS3ERR_NOENT:
		return "NOENT";
	case NFS3ERR_IO:
		return "IO";
	case NFS3ERR_NXIO:
		return "NXIO";
	case NFS3ERR_ACCES:
		return "ACCES";
	case NFS3ERR_EXIST:
		return "EXIST";
	case NFS3ERR_XDEV:
		return "XDEV";
	case NFS3ERR_NODEV:
		return "NODEV";
	case NFS3ERR_NOTDIR:
		return "NOTDIR";
	case NFS3ERR_ISDIR:
		return "ISDIR";
	case NFS3ERR_INVAL:
		return "INVAL";
	case NFS3ERR_FBIG:
		return "FBIG";
	case NFS3ERR_NOSPC:
		return "NOSPC";
	case NFS3ERR_ROFS:
		return "ROFS";
	case NFS3ERR_MLINK:
		return "MLINK";
	case NFS3ERR_NAMETOOLONG:
		return "NAMETOOLONG";
	case NFS3ERR_NOTEMPTY:
		return "NOTEMPTY";
	case NFS3ERR_DQUOT:
		return "DQUOT";
	case NFS3ERR_STALE:
		return "STALE";
	case NFS3ERR_REMOTE:
		return "REMOTE";
	case NFS3ERR_BADHANDLE:
		return "BADHANDLE";
	case NFS3ERR_NOT_SYNC:
		return "NOT_SYNC";
	case NFS3ERR_BAD_COOKIE:
		return "BAD_COOKIE";
	case NFS3ERR_NOTSUPP:
		return "NOTSUPP";
	case NFS3ERR_TOOSMALL:
		return "TOOSMALL";
	case NFS3ERR_SERVERFAULT:
		return "SERVERFAULT";
	case NFS3ERR_BADTYPE:
		return "BADTYPE";
	case NFS3ERR_JUKEBOX:
		return "JUKEBOX";
	}
	return "?";
}
