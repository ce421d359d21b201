/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the check_nfs3d sources (check_nfs3d.c, check_nfs3d_ops.c,
 * check_nfs3d_cred.c): the server and client state the tests use, the
 * fixture, the server's start and stop, and the CREATE / GETATTR helpers,
 * all defined once in check_nfs3d_util.c. (Not named check_nfs3d.h:
 * .gitignore ignores tests/unit/check_* but for .c files.)
 */
#ifndef NFS3D_UTIL_H
#define NFS3D_UTIL_H

#include <check.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <rpc/rpc.h>
#include "nfs3_prot.h"

extern char dir[];
extern CLIENT *nfs, *mnt;
extern nfs_fh3 root;
extern const char *export_opts;	      /* nfs3d -o */
extern const char *export_clients[4]; /* nfs3d -c each, NULL-ended */

#define XP(f) ((xdrproc_t)(void (*)(void))(f))

#define CALL(proc, a, r)                                                       \
	do {                                                                   \
		memset((r), 0, sizeof(*(r)));                                  \
		ck_assert_int_eq(proc((a), (r), nfs), RPC_SUCCESS);            \
	} while (0)

void start_server(void);
/* A client of prog (NFS_PROGRAM or MOUNT_PROGRAM) from a port >= 1024. */
CLIENT *connect_unprivileged(rpcprog_t prog);
void stop_server(void);
/* The server's descriptors of removed files. */
int server_deleted_fds(void);
void setup(void);
void teardown(void);

nfsstat3 create_st(nfs_fh3 d, const char *leaf, mode_t mode,
			  nfs_fh3 *fh);

/* CREATE dir/leaf (UNCHECKED, mode 0644): its handle. */
nfs_fh3 create(nfs_fh3 d, const char *leaf);
nfsstat3 getattr(nfs_fh3 fh);
/* check_nfs3d_cred.c's: the NFS client's AUTH_SYS ids, a READ's status,
 * the lstat of dir/leaf on the server's disk. */
void as_user(uid_t uid, gid_t gid, int ngids, gid_t *gids);
/* MKDIR d/leaf with sa: its status, its handle in *fh (may be NULL). */
nfsstat3 mkdir_st(nfs_fh3 d, const char *leaf, const sattr3 *sa,
		  nfs_fh3 *fh);
nfsstat3 read_st(nfs_fh3 f);
struct stat stat_of(const char *leaf);

/* The tests of check_nfs3d_ops.c and check_nfs3d_cred.c, added to the
 * one TCase "tcp" at their places in its order. */
void nfs3d_add_ops(TCase *tc);
void nfs3d_add_credentials(TCase *tc);
void nfs3d_add_safety(TCase *tc);

#endif /* NFS3D_UTIL_H */
