/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_nfs3d's credentials test (of the TCase "tcp"): each call runs as
 * its AUTH_SYS caller, with the export's squash and read-only options;
 * and the small call helpers only it uses (mkdir_fh, as_user, write_st,
 * read_st, access_of, link_st, commit_st, stat_of).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <rpc/rpc.h>
#include "nfs3_prot.h"
#include "nfs3d_util.h"

nfsstat3 mkdir_st(nfs_fh3 d, const char *leaf, const sattr3 *sa,
		  nfs_fh3 *fh)
{
	MKDIR3args a;
	MKDIR3res r;

	memset(&a, 0, sizeof(a));
	a.where.dir = d;
	a.where.name = (char *)leaf;
	a.attributes = *sa;
	CALL(nfsproc3_mkdir_3, &a, &r);
	if (r.status == NFS3_OK && fh) {
		ck_assert(r.MKDIR3res_u.resok.obj.handle_follows);
		*fh = r.MKDIR3res_u.resok.obj.post_op_fh3_u.handle;
	}
	return r.status;
}

/* MKDIR dir/leaf with mode: its handle. */
static nfs_fh3 mkdir_fh(nfs_fh3 d, const char *leaf, mode_t mode)
{
	sattr3 sa;
	nfs_fh3 fh;

	memset(&sa, 0, sizeof(sa));
	sa.mode.set_it = TRUE;
	sa.mode.set_mode3_u.mode = mode;
	ck_assert_int_eq(mkdir_st(d, leaf, &sa, &fh), NFS3_OK);
	return fh;
}

/* The NFS client's credentials: AUTH_SYS uid, gid and groups. */
void as_user(uid_t uid, gid_t gid, int ngids, gid_t *gids)
{
	auth_destroy(nfs->cl_auth);
	nfs->cl_auth = authunix_create((char *)"client", uid, gid, ngids, gids);
	ck_assert_ptr_nonnull(nfs->cl_auth);
}

static nfsstat3 write_st(nfs_fh3 f, const char *what)
{
	WRITE3args a;
	WRITE3res r;

	memset(&a, 0, sizeof(a));
	a.file = f;
	a.stable = FILE_SYNC;
	a.count = a.data.data_len = (u_int)strlen(what);
	a.data.data_val = (char *)what;
	CALL(nfsproc3_write_3, &a, &r);
	return r.status;
}

nfsstat3 read_st(nfs_fh3 f)
{
	READ3args a = {f, 0, 64};
	READ3res r;
	nfsstat3 st;

	CALL(nfsproc3_read_3, &a, &r);
	st = r.status;
	xdr_free(XP(xdr_READ3res), (char *)&r);
	return st;
}

static uint32_t access_of(nfs_fh3 f)
{
	ACCESS3args a = {f, ACCESS3_READ | ACCESS3_MODIFY | ACCESS3_EXTEND};
	ACCESS3res r;

	CALL(nfsproc3_access_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3_OK);
	return r.ACCESS3res_u.resok.access;
}

static nfsstat3 link_st(nfs_fh3 f, nfs_fh3 d, const char *leaf)
{
	LINK3args a;
	LINK3res r;

	a.file = f;
	a.link.dir = d;
	a.link.name = (char *)leaf;
	CALL(nfsproc3_link_3, &a, &r);
	return r.status;
}

static nfsstat3 commit_st(nfs_fh3 f)
{
	COMMIT3args a = {f, 0, 0};
	COMMIT3res r;

	CALL(nfsproc3_commit_3, &a, &r);
	return r.status;
}

struct stat stat_of(const char *leaf)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, leaf);
	ck_assert_int_eq(lstat(path, &st), 0);
	return st;
}

/*
 * Each call runs as its AUTH_SYS caller (nfs/cred.c): the kernel checks
 * modes and groups, new objects are the caller's, the owner may write
 * its read-only file (as with Linux's nfsd); the export options squash
 * root or everyone and make the export read-only (NFS3ERR_ROFS).
 */
START_TEST(test_credentials)
{
	nfs_fh3 pub, secret, shared, grp, mine, ro;
	gid_t g2000 = 2000;
	char path[256];
	struct stat st;

	/* As root (not squashed): the fixtures. */
	ck_assert_int_eq(chmod(dir, 0755), 0);
	pub = mkdir_fh(root, "pub", 0777);
	ck_assert_int_eq(create_st(root, "secret", 0600, &secret), NFS3_OK);
	ck_assert_int_eq(create_st(root, "shared", 0644, &shared), NFS3_OK);
	ck_assert_int_eq(create_st(root, "grp", 0640, &grp), NFS3_OK);
	snprintf(path, sizeof(path), "%s/grp", dir);
	ck_assert_int_eq(chown(path, 0, 2000), 0);
	ck_assert_uint_eq(stat_of("secret").st_uid, 0);

	as_user(1000, 1000, 0, NULL);
	ck_assert_int_eq(read_st(secret), NFS3ERR_ACCES);
	ck_assert_int_eq(read_st(shared), NFS3_OK);
	ck_assert_int_eq(write_st(shared, "no"), NFS3ERR_ACCES);
	ck_assert_int_eq(create_st(root, "nope", 0644, NULL), NFS3ERR_ACCES);
	ck_assert_int_eq(read_st(grp), NFS3ERR_ACCES);
	ck_assert_uint_eq(access_of(secret), 0);
	ck_assert_uint_eq(access_of(shared), ACCESS3_READ);
	/* A new object is the caller's, even one it may not write: its
	 * owner still may. */
	ck_assert_int_eq(create_st(pub, "mine", 0444, &mine), NFS3_OK);
	st = stat_of("pub/mine");
	ck_assert_uint_eq(st.st_uid, 1000);
	ck_assert_uint_eq(st.st_gid, 1000);
	ck_assert_uint_eq(st.st_mode & 07777, 0444);
	ck_assert_int_eq(write_st(mine, "mine"), NFS3_OK);
	/* ACCESS has no such override: the client asks it before opening. */
	ck_assert_uint_eq(access_of(mine), ACCESS3_READ);
	/* A hard link by its owner (no CAP_DAC_READ_SEARCH needed). */
	ck_assert_int_eq(link_st(mine, pub, "mine2"), NFS3_OK);
	ck_assert_uint_eq(stat_of("pub/mine2").st_ino, stat_of("pub/mine").st_ino);
	/* The groups of the credential count, and only for that call. */
	as_user(1000, 1000, 1, &g2000);
	ck_assert_int_eq(read_st(grp), NFS3_OK);
	ck_assert_uint_eq(access_of(grp), ACCESS3_READ);
	as_user(1000, 1000, 0, NULL);
	ck_assert_int_eq(read_st(grp), NFS3ERR_ACCES);
	/* Who may execute a file may READ it (the client pages it in). */
	ck_assert_int_eq(chmod(path, 0711), 0);
	ck_assert_int_eq(read_st(grp), NFS3_OK);
	ck_assert_int_eq(chmod(path, 0640), 0);
	/* A group that may write but not read commits what it wrote. */
	ck_assert_int_eq(chmod(path, 0620), 0);
	as_user(1001, 1001, 1, &g2000);
	ck_assert_int_eq(read_st(grp), NFS3ERR_ACCES);
	ck_assert_int_eq(write_st(grp, "w"), NFS3_OK);
	ck_assert_int_eq(commit_st(grp), NFS3_OK);
	/* Another user may not write it. */
	as_user(1001, 1001, 0, NULL);
	ck_assert_int_eq(write_st(mine, "theirs"), NFS3ERR_ACCES);
	ck_assert_int_eq(commit_st(grp), NFS3ERR_ACCES);
	ck_assert_uint_eq(access_of(mine), ACCESS3_READ);
	/* Root again, after those calls switched the serving thread. */
	as_user(0, 0, 0, NULL);
	ck_assert_int_eq(write_st(secret, "root"), NFS3_OK);

	/* root_squash and read-only: root is nobody, nothing changes. */
	stop_server();
	export_opts = "ro,root_squash";
	start_server();
	ck_assert_int_eq(read_st(secret), NFS3ERR_ACCES);
	ck_assert_int_eq(read_st(shared), NFS3_OK);
	ck_assert_int_eq(write_st(shared, "ro"), NFS3ERR_ROFS);
	ck_assert_int_eq(create_st(pub, "ro", 0644, &ro), NFS3ERR_ROFS);
	ck_assert_int_eq(commit_st(shared), NFS3ERR_ROFS);
	ck_assert_int_eq(link_st(shared, pub, "l"), NFS3ERR_ROFS);
	ck_assert_uint_eq(access_of(shared), ACCESS3_READ);
	ck_assert_uint_eq(access_of(pub) & ACCESS3_MODIFY, 0);

	/* all_squash with an anonymous id of its own. */
	stop_server();
	export_opts = "rw,all_squash,anonuid=1234,anongid=4321";
	start_server();
	as_user(1000, 1000, 0, NULL);
	ck_assert_int_eq(create_st(pub, "anon", 0644, NULL), NFS3_OK);
	st = stat_of("pub/anon");
	ck_assert_uint_eq(st.st_uid, 1234);
	ck_assert_uint_eq(st.st_gid, 4321);
	ck_assert_int_eq(write_st(mine, "x"), NFS3ERR_ACCES);
	export_opts = "rw,no_root_squash";
}
END_TEST

static nfsstat3 chmod_st(nfs_fh3 f, mode_t mode)
{
	SETATTR3args a;
	SETATTR3res r;

	memset(&a, 0, sizeof(a));
	a.object = f;
	a.new_attributes.mode.set_it = TRUE;
	a.new_attributes.mode.set_mode3_u.mode = mode;
	CALL(nfsproc3_setattr_3, &a, &r);
	return r.status;
}

static nfsstat3 remove_st(nfs_fh3 d, const char *leaf)
{
	REMOVE3args a = {{d, (char *)leaf}};
	REMOVE3res r;

	CALL(nfsproc3_remove_3, &a, &r);
	return r.status;
}

/*
 * The open files nfs3d keeps for READ and WRITE (nfs/fcache.c) serve only
 * the identity that opened them, and never past a change of rights or
 * names made over NFS: a SETATTR that takes a right away is seen by the
 * very next call. A change made on the server's disk is seen
 * within the files' age (1 s).
 */
START_TEST(test_open_files)
{
	gid_t g2000 = 2000;
	nfs_fh3 f, g;
	char path[256];

	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(create_st(root, "f", 0640, &f), NFS3_OK);
	ck_assert_int_eq(create_st(root, "g", 0644, &g), NFS3_OK);
	snprintf(path, sizeof(path), "%s/f", dir);
	ck_assert_int_eq(chown(path, 1001, 2000), 0);

	/* Read twice by a member of the group: the second from the kept
	 * file. Its owner takes the group's right away over NFS. */
	as_user(1000, 1000, 1, &g2000);
	ck_assert_int_eq(read_st(f), NFS3_OK);
	ck_assert_int_eq(read_st(f), NFS3_OK);
	ck_assert_int_eq(write_st(f, "no"), NFS3ERR_ACCES);
	as_user(1000, 1000, 0, NULL);	/* the same uid, not the group */
	ck_assert_int_eq(read_st(f), NFS3ERR_ACCES);
	as_user(1001, 1001, 0, NULL);
	ck_assert_int_eq(write_st(f, "owner"), NFS3_OK);
	ck_assert_int_eq(chmod_st(f, 0600), NFS3_OK);
	as_user(1000, 1000, 1, &g2000);
	ck_assert_int_eq(read_st(f), NFS3ERR_ACCES);
	/* The owner's kept writer went with the change too, harmlessly. */
	as_user(1001, 1001, 0, NULL);
	ck_assert_int_eq(write_st(f, "again"), NFS3_OK);

	/* Removed over NFS by root, who had it open: by the REMOVE's
	 * reply nothing kept holds the removed file. */
	as_user(0, 0, 0, NULL);
	ck_assert_int_eq(read_st(f), NFS3_OK);
	ck_assert_int_eq(server_deleted_fds(), 0);
	ck_assert_int_eq(remove_st(root, "f"), NFS3_OK);
	ck_assert_int_eq(server_deleted_fds(), 0);

	/* Changed on the server's disk: refused once the kept file aged. */
	as_user(1000, 1000, 0, NULL);
	ck_assert_int_eq(read_st(g), NFS3_OK);
	snprintf(path, sizeof(path), "%s/g", dir);
	ck_assert_int_eq(chmod(path, 0600), 0);
	usleep(1100000);
	ck_assert_int_eq(read_st(g), NFS3ERR_ACCES);
	as_user(0, 0, 0, NULL);
	/* stop_server checks that every kept file was closed again. */
}
END_TEST

void nfs3d_add_credentials(TCase *tc)
{
	tcase_add_test(tc, test_credentials);
	tcase_add_test(tc, test_open_files);
}
