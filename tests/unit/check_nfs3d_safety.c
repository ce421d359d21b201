/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_nfs3d's safety tests (of the TCase "tcp"), one per finding of
 * security-21c8dd5.md on nfs3d: handles a client cannot forge (1), the
 * defaults and client list of exports(5) (2), the root group squashed
 * with root (3), nothing opened that is not a regular file (4); and
 * MKNOD, which made the FIFOs and devices of (4) reachable over NFS.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <rpc/rpc.h>
#include "nfs3_prot.h"
#include "nfs3d.h"
#include "nfs3d_util.h"

#define EXT4_MAGIC 0xEF53

/* Our handle's header (fh.c), then a kernel handle, then 16 bytes that
 * are not the MAC: what a client who read the layout could forge. */
static nfs_fh3 forge(char *buf, const struct file_handle *kh, ftype3 type)
{
	nfs_fh3 f;
	uint32_t v32;
	uint16_t v16;

	memcpy(buf, root.data.data_val, 12);
	buf[1] = (char)type;
	v16 = htons((uint16_t)kh->handle_bytes);
	memcpy(buf + 2, &v16, 2);
	v32 = htonl((uint32_t)kh->handle_type);
	memcpy(buf + 4, &v32, 4);
	memcpy(buf + 12, kh->f_handle, kh->handle_bytes);
	memset(buf + 12 + kh->handle_bytes, 0x5a, 16);
	f.data.data_val = buf;
	f.data.data_len = 12 + kh->handle_bytes + 16;
	return f;
}

/* Finding 1: a handle for a file outside the export, built from the
 * kernel's own handle of it (the test runs as root), is refused before
 * anything is opened; so is ext4's {inode, generation 0}, and a real
 * handle with its MAC altered or cut off (the layout before MACs). */
START_TEST(test_forged_handles)
{
	struct {
		struct file_handle h;
		unsigned char room[MAX_HANDLE_SZ];
	} k;
	char outside[64], buf[NFS3_FHSIZE];
	nfs_fh3 fh = create(root, "f"), bad;
	struct statfs sf;
	struct stat st;
	int fd, mnt_id;

	snprintf(outside, sizeof(outside), "%s.outside", dir);
	fd = open(outside, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	k.h.handle_bytes = MAX_HANDLE_SZ;
	ck_assert_int_eq(name_to_handle_at(AT_FDCWD, outside, &k.h, &mnt_id, 0),
			 0);
	if (k.h.handle_bytes <= NFS3_FHSIZE - 28) {
		bad = forge(buf, &k.h, NF3REG);
		ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	}
	/* The review's ext4 forgery: any inode, generation 0. */
	ck_assert_int_eq(statfs(dir, &sf), 0);
	ck_assert_int_eq(stat(outside, &st), 0);
	if (sf.f_type == EXT4_MAGIC) {
		uint32_t ino_gen[2] = {(uint32_t)st.st_ino, 0};

		k.h.handle_type = 1; /* FILEID_INO32_GEN */
		k.h.handle_bytes = 8;
		memcpy(k.h.f_handle, ino_gen, 8);
		bad = forge(buf, &k.h, NF3REG);
		ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	}
	unlink(outside);
	/* A real handle: its MAC altered, or cut off as version 1 had it. */
	memcpy(buf, fh.data.data_val, fh.data.data_len);
	bad.data.data_val = buf;
	bad.data.data_len = fh.data.data_len;
	ck_assert_int_eq(getattr(bad), NFS3_OK);
	buf[fh.data.data_len - 1] ^= 1;
	ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	buf[fh.data.data_len - 1] ^= 1;
	buf[0] = 1;
	bad.data.data_len = fh.data.data_len - 16;
	ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	/* A different key (another server's, or a new key file) makes
	 * every old handle refused, not reinterpreted. */
	stop_server();
	{
		char key[sizeof(outside)];

		snprintf(key, sizeof(key), "%s.key", dir);
		ck_assert_int_eq(unlink(key), 0);
	}
	start_server();
	ck_assert_int_eq(getattr(fh), NFS3ERR_BADHANDLE);
}
END_TEST

/* nfs/mac.c is SipHash-2-4 with the 128-bit output: the reference
 * vectors (key 00..0f, message 00..len-1) of its authors' code, for
 * lengths across its tail and block paths. */
START_TEST(test_mac_vectors)
{
	static const struct {
		size_t len;
		unsigned char mac[16];
	} v[] = {
	    {0, {0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25, 0xa8, 0xe6, 0x6d, 0xf6,
		 0x72, 0x14, 0xc7, 0x55, 0x02, 0x93}},
	    {1, {0xda, 0x87, 0xc1, 0xd8, 0x6b, 0x99, 0xaf, 0x44, 0x34, 0x76,
		 0x59, 0x11, 0x9b, 0x22, 0xfc, 0x45}},
	    {7, {0xa1, 0xf1, 0xeb, 0xbe, 0xd8, 0xdb, 0xc1, 0x53, 0xc0, 0xb8,
		 0x4a, 0xa6, 0x1f, 0xf0, 0x82, 0x39}},
	    {8, {0x3b, 0x62, 0xa9, 0xba, 0x62, 0x58, 0xf5, 0x61, 0x0f, 0x83,
		 0xe2, 0x64, 0xf3, 0x14, 0x97, 0xb4}},
	    {15, {0x54, 0x93, 0xe9, 0x99, 0x33, 0xb0, 0xa8, 0x11, 0x7e, 0x08,
		  0xec, 0x0f, 0x97, 0xcf, 0xc3, 0xd9}},
	    {63, {0x51, 0x50, 0xd1, 0x77, 0x2f, 0x50, 0x83, 0x4a, 0x50, 0x3e,
		  0x06, 0x9a, 0x97, 0x3f, 0xbd, 0x7c}},
	};
	unsigned char key[16], msg[64], out[16];

	for (int i = 0; i < 64; i++)
		msg[i] = (unsigned char)i;
	memcpy(key, msg, 16);
	for (unsigned int i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		nfs3d_mac(key, msg, v[i].len, out);
		ck_assert_mem_eq(out, v[i].mac, 16);
		ck_assert(nfs3d_mac_equal(out, v[i].mac));
		out[15] ^= 0x80;
		ck_assert(!nfs3d_mac_equal(out, v[i].mac));
	}
}
END_TEST

/* nfs3d on the export with the handles' key in keyfile must exit with
 * status 1 ("cannot export") at once: not 124, which would say it
 * served. */
static void start_refused(const char *keyfile)
{
	char cmd[256];
	int st;

	snprintf(cmd, sizeof(cmd),
		 "timeout 10 ./nfs/nfs3d -n tcp -R -a 127.0.0.1 -t 1 "
		 "-m 1 -k %s %s >/dev/null 2>&1",
		 keyfile, dir);
	st = system(cmd);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 1);
}

/* A key file others could read is refused: the server does not start. */
START_TEST(test_key_file_mode)
{
	char key[64];

	stop_server();
	snprintf(key, sizeof(key), "%s.key", dir);
	ck_assert_int_eq(chmod(key, 0640), 0);
	start_refused(key);
	ck_assert_int_eq(chmod(key, 0600), 0);
	/* A key inside the export: refused too (its clients could read
	 * it and forge handles), before it was made. */
	snprintf(key, sizeof(key), "%s/in.key", dir);
	start_refused(key);
	ck_assert_int_ne(access(key, F_OK), 0);
	/* A key in a directory others may write (not sticky): they could
	 * rename theirs over it. Refused, and not made. */
	snprintf(key, sizeof(key), "%s.open", dir);
	ck_assert_int_eq(mkdir(key, 0700), 0);
	ck_assert_int_eq(chmod(key, 0777), 0);
	snprintf(key, sizeof(key), "%s.open/k", dir);
	start_refused(key);
	ck_assert_int_ne(access(key, F_OK), 0);
	{
		unsigned char k[NFS3D_KEY_LEN];

		ck_assert_int_eq(nfs3d_key_load(key, k), -EPERM);
	}
	/* Sticky (as /tmp): only the key's owner may move it. Made. */
	snprintf(key, sizeof(key), "%s.open", dir);
	ck_assert_int_eq(chmod(key, 01777), 0);
	snprintf(key, sizeof(key), "%s.open/k", dir);
	{
		unsigned char k[NFS3D_KEY_LEN];

		ck_assert_int_eq(nfs3d_key_load(key, k), 0);
	}
	ck_assert_int_eq(unlink(key), 0);
	snprintf(key, sizeof(key), "%s.open", dir);
	ck_assert_int_eq(rmdir(key), 0);
	start_server();
}
END_TEST

/* A key made at the first start: 16 bytes, mode 0600, the server's. */
START_TEST(test_key_file_made)
{
	char key[64];
	struct stat st;

	snprintf(key, sizeof(key), "%s.key", dir);
	ck_assert_int_eq(stat(key, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_uint_eq(st.st_uid, geteuid());
	ck_assert_int_eq(st.st_size, 16);
}
END_TEST

/* Finding 2: with no option the export is Linux's default: read-only,
 * root squashed, and tcp callers from ports >= 1024 refused (NULL
 * excepted), MNT included; "insecure" lets them in. */
START_TEST(test_defaults)
{
	char path[96];
	nfs_fh3 secret = create(root, "secret");
	CLIENT *un, *unm;
	GETATTR3args ga = {root};
	GETATTR3res gr;
	mountres3 mr;
	dirpath p = dir;

	snprintf(path, sizeof(path), "%s/secret", dir);
	ck_assert_int_eq(chmod(path, 0600), 0);
	stop_server();
	export_opts = "";
	start_server();
	/* root, from a privileged port: squashed, and nothing changes. */
	ck_assert_int_eq(create_st(root, "x", 0644, NULL), NFS3ERR_ROFS);
	ck_assert_int_eq(read_st(secret), NFS3ERR_ACCES);
	ck_assert_int_eq(getattr(root), NFS3_OK);
	/* Anyone, from any port: refused. */
	un = connect_unprivileged(NFS_PROGRAM);
	unm = connect_unprivileged(MOUNT_PROGRAM);
	ck_assert_int_eq(nfsproc3_null_3(NULL, NULL, un), RPC_SUCCESS);
	memset(&gr, 0, sizeof(gr));
	ck_assert_int_eq(nfsproc3_getattr_3(&ga, &gr, un), RPC_SUCCESS);
	ck_assert_int_eq(gr.status, NFS3ERR_ACCES);
	memset(&mr, 0, sizeof(mr));
	ck_assert_int_eq(mountproc3_mnt_3(&p, &mr, unm), RPC_SUCCESS);
	ck_assert_int_eq(mr.fhs_status, MNT3ERR_ACCES);
	clnt_destroy(un);
	clnt_destroy(unm);
	stop_server();
	export_opts = "insecure";
	start_server();
	un = connect_unprivileged(NFS_PROGRAM);
	memset(&gr, 0, sizeof(gr));
	ck_assert_int_eq(nfsproc3_getattr_3(&ga, &gr, un), RPC_SUCCESS);
	ck_assert_int_eq(gr.status, NFS3_OK);
	clnt_destroy(un);
	export_opts = "rw,no_root_squash";
}
END_TEST

/* Finding 2: the client list, checked on MNT and on every call, each
 * client with its own options on top of -o's; the first match counts. */
START_TEST(test_clients)
{
	mountres3 mr;
	dirpath p = dir;

	stop_server();
	export_opts = "ro";
	export_clients[0] = "192.0.2.1(rw,no_root_squash)";
	start_server();
	memset(&mr, 0, sizeof(mr));
	ck_assert_int_eq(mountproc3_mnt_3(&p, &mr, mnt), RPC_SUCCESS);
	ck_assert_int_eq(mr.fhs_status, MNT3ERR_ACCES);
	ck_assert_int_eq(getattr(root), NFS3ERR_ACCES);
	/* A /20 that does not hold 127.0.0.1, then one that does, and
	 * the v4-mapped form of our address. */
	stop_server();
	export_clients[1] = "127.0.16.0/20";
	start_server();
	ck_assert_int_eq(getattr(root), NFS3ERR_ACCES);
	stop_server();
	export_clients[1] = "::ffff:127.0.0.1";
	start_server();
	ck_assert_int_eq(getattr(root), NFS3_OK);
	stop_server();
	export_clients[1] = "127.0.0.0/20";
	start_server();
	ck_assert_int_eq(getattr(root), NFS3_OK);
	ck_assert_int_eq(create_st(root, "x", 0644, NULL), NFS3ERR_ROFS);
	stop_server();
	export_clients[0] = "127.0.0.1(rw,no_root_squash)";
	start_server();
	ck_assert_int_eq(create_st(root, "x", 0644, NULL), NFS3_OK);
	stop_server();
	export_clients[0] = "::1/128";
	export_clients[1] = "localhost(rw,no_root_squash)";
	start_server();
	ck_assert_int_eq(create_st(root, "y", 0644, NULL), NFS3_OK);
	export_clients[0] = export_clients[1] = NULL;
	export_opts = "rw,no_root_squash";
}
END_TEST

/* Finding 3: root_squash maps gid 0 and group 0 too. */
START_TEST(test_root_squash_gid0)
{
	char path[96];
	gid_t g0 = 0;
	LOOKUP3args la = {{root, "rootgrp"}};
	LOOKUP3res lr;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/rootgrp", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0640);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(chown(path, 0, 0), 0);
	ck_assert_int_eq(chmod(dir, 0777), 0);
	stop_server();
	export_opts = "rw,root_squash";
	start_server();
	CALL(nfsproc3_lookup_3, &la, &lr);
	ck_assert_int_eq(lr.status, NFS3_OK);
	as_user(1000, 0, 1, &g0);
	ck_assert_int_eq(read_st(lr.LOOKUP3res_u.resok.object), NFS3ERR_ACCES);
	/* A file made as gid 0 is the anonymous group's. */
	ck_assert_int_eq(create_st(root, "sg", 02755, NULL), NFS3_OK);
	st = stat_of("sg");
	ck_assert_uint_eq(st.st_uid, 1000);
	ck_assert_uint_eq(st.st_gid, 65534);
	as_user(0, 0, 0, NULL);
	export_opts = "rw,no_root_squash";
}
END_TEST

/* Finding 4: CREATE UNCHECKED over a FIFO or a device node answers
 * EXIST at once, opening neither (a FIFO's open would block the thread
 * for ever); READ and WRITE of them are INVAL. */
START_TEST(test_create_over_special)
{
	struct timeval tv = {5, 0};
	const char *names[] = {"fifo", "null"};
	CREATE3args a;
	CREATE3res r;
	LOOKUP3args la;
	LOOKUP3res lr;
	char path[96];

	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0666), 0);
	snprintf(path, sizeof(path), "%s/null", dir);
	ck_assert_int_eq(mknod(path, S_IFCHR | 0666, makedev(1, 3)), 0);
	for (int i = 0; i < 2; i++) {
		memset(&a, 0, sizeof(a));
		a.where.dir = root;
		a.where.name = (char *)names[i];
		a.how.mode = UNCHECKED;
		memset(&r, 0, sizeof(r));
		ck_assert_int_eq(clnt_call(nfs, NFSPROC3_CREATE,
					   XP(xdr_CREATE3args), (char *)&a,
					   XP(xdr_CREATE3res), (char *)&r, tv),
				 RPC_SUCCESS);
		ck_assert_int_eq(r.status, NFS3ERR_EXIST);
		la.what.dir = root;
		la.what.name = (char *)names[i];
		CALL(nfsproc3_lookup_3, &la, &lr);
		ck_assert_int_eq(lr.status, NFS3_OK);
		ck_assert_int_eq(read_st(lr.LOOKUP3res_u.resok.object),
				 NFS3ERR_INVAL);
	}
	/* The server still answers, and a regular file is still taken. */
	ck_assert_int_eq(create_st(root, "reg", 0644, NULL), NFS3_OK);
	ck_assert_int_eq(create_st(root, "reg", 0644, NULL), NFS3_OK);
}
END_TEST

static nfsstat3 mknod_st(const char *leaf, ftype3 type, mode_t mode,
			 uint32_t major_, uint32_t minor_, nfs_fh3 *fh)
{
	MKNOD3args a;
	MKNOD3res r;
	sattr3 *sa;

	memset(&a, 0, sizeof(a));
	a.where.dir = root;
	a.where.name = (char *)leaf;
	a.what.type = type;
	if (type == NF3CHR || type == NF3BLK) {
		sa = &a.what.mknoddata3_u.device.dev_attributes;
		a.what.mknoddata3_u.device.spec.specdata1 = major_;
		a.what.mknoddata3_u.device.spec.specdata2 = minor_;
	} else {
		sa = &a.what.mknoddata3_u.pipe_attributes;
	}
	sa->mode.set_it = TRUE;
	sa->mode.set_mode3_u.mode = mode;
	CALL(nfsproc3_mknod_3, &a, &r);
	if (r.status == NFS3_OK && fh) {
		ck_assert(r.MKNOD3res_u.resok.obj.handle_follows);
		*fh = r.MKNOD3res_u.resok.obj.post_op_fh3_u.handle;
	}
	return r.status;
}

/* MKNOD (RFC 1813 section 3.3.11): every type it defines, each reported
 * back by GETATTR with its type, mode and device numbers; devices only
 * for root not squashed; the other types BADTYPE. */
START_TEST(test_mknod)
{
	static const struct {
		const char *leaf;
		ftype3 type;
		mode_t fmt;
	} k[] = {{"p", NF3FIFO, S_IFIFO},
		 {"s", NF3SOCK, S_IFSOCK},
		 {"c", NF3CHR, S_IFCHR},
		 {"b", NF3BLK, S_IFBLK}};
	GETATTR3args ga;
	GETATTR3res gr;
	struct stat st;
	nfs_fh3 fh;

	for (unsigned int i = 0; i < 4; i++) {
		ck_assert_int_eq(mknod_st(k[i].leaf, k[i].type, 0640, 7, 9, &fh),
				 NFS3_OK);
		st = stat_of(k[i].leaf);
		ck_assert_uint_eq(st.st_mode, k[i].fmt | 0640);
		ga.object = fh;
		CALL(nfsproc3_getattr_3, &ga, &gr);
		ck_assert_int_eq(gr.status, NFS3_OK);
		ck_assert_int_eq(gr.GETATTR3res_u.resok.obj_attributes.type,
				 k[i].type);
		ck_assert_uint_eq(gr.GETATTR3res_u.resok.obj_attributes.mode,
				  0640);
		if (k[i].type == NF3CHR || k[i].type == NF3BLK) {
			ck_assert_uint_eq(major(st.st_rdev), 7);
			ck_assert_uint_eq(minor(st.st_rdev), 9);
			ck_assert_uint_eq(gr.GETATTR3res_u.resok.obj_attributes
					      .rdev.specdata1,
					  7);
			ck_assert_uint_eq(gr.GETATTR3res_u.resok.obj_attributes
					      .rdev.specdata2,
					  9);
		}
	}
	ck_assert_int_eq(mknod_st("p", NF3FIFO, 0640, 0, 0, NULL),
			 NFS3ERR_EXIST);
	ck_assert_int_eq(mknod_st("r", NF3REG, 0640, 0, 0, NULL),
			 NFS3ERR_BADTYPE);
	ck_assert_int_eq(mknod_st("d", NF3DIR, 0640, 0, 0, NULL),
			 NFS3ERR_BADTYPE);
	/* Another user makes FIFOs, its own, but no device. */
	ck_assert_int_eq(chmod(dir, 0777), 0);
	as_user(1000, 1000, 0, NULL);
	ck_assert_int_eq(mknod_st("p2", NF3FIFO, 0600, 0, 0, NULL), NFS3_OK);
	st = stat_of("p2");
	ck_assert_uint_eq(st.st_uid, 1000);
	ck_assert_int_ne(mknod_st("c2", NF3CHR, 0600, 1, 3, NULL), NFS3_OK);
	as_user(0, 0, 0, NULL);
}
END_TEST

/* MKDIR (RFC 1813 section 3.3.9), MKNOD and CREATE whose attributes cannot be
 * applied (a user giving its new object to root: EPERM) fail, and
 * nothing is left behind: the same call as the caller itself then
 * succeeds, not NFS3ERR_EXIST. A size is ignored (nfsd's way). */
static nfsstat3 mkdir_as(const char *leaf, int uid, int size)
{
	sattr3 sa;

	memset(&sa, 0, sizeof(sa));
	sa.mode.set_it = TRUE;
	sa.mode.set_mode3_u.mode = 0755;
	if (uid >= 0) {
		sa.uid.set_it = TRUE;
		sa.uid.set_uid3_u.uid = (uint32_t)uid;
	}
	if (size >= 0) {
		sa.size.set_it = TRUE;
		sa.size.set_size3_u.size = (uint64_t)size;
	}
	return mkdir_st(root, leaf, &sa, NULL);
}

START_TEST(test_made_then_refused)
{
	char path[96];
	MKNOD3args a;
	MKNOD3res r;

	ck_assert_int_eq(chmod(dir, 0777), 0);
	as_user(1000, 1000, 0, NULL);
	ck_assert_int_eq(mkdir_as("d", 0, -1), NFS3ERR_PERM);
	snprintf(path, sizeof(path), "%s/d", dir);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_int_eq(mkdir_as("d", 1000, -1), NFS3_OK);
	ck_assert_uint_eq(stat_of("d").st_uid, 1000);
	memset(&a, 0, sizeof(a));
	a.where.dir = root;
	a.where.name = (char *)"p";
	a.what.type = NF3FIFO;
	a.what.mknoddata3_u.pipe_attributes.uid.set_it = TRUE;
	a.what.mknoddata3_u.pipe_attributes.uid.set_uid3_u.uid = 0;
	CALL(nfsproc3_mknod_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3ERR_PERM);
	snprintf(path, sizeof(path), "%s/p", dir);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_int_eq(mknod_st("p", NF3FIFO, 0600, 0, 0, NULL), NFS3_OK);
	{
		CREATE3args ca;
		CREATE3res cr;
		sattr3 *sa = &ca.how.createhow3_u.obj_attributes;

		memset(&ca, 0, sizeof(ca));
		ca.where.dir = root;
		ca.where.name = (char *)"f";
		ca.how.mode = GUARDED;
		sa->uid.set_it = TRUE;
		sa->uid.set_uid3_u.uid = 0;
		CALL(nfsproc3_create_3, &ca, &cr);
		ck_assert_int_eq(cr.status, NFS3ERR_PERM);
		snprintf(path, sizeof(path), "%s/f", dir);
		ck_assert_int_ne(access(path, F_OK), 0);
	}
	ck_assert_int_eq(create_st(root, "f", 0644, NULL), NFS3_OK);
	as_user(0, 0, 0, NULL);
	ck_assert_int_eq(mkdir_as("sized", -1, 4096), NFS3_OK);
	ck_assert(S_ISDIR(stat_of("sized").st_mode));
}
END_TEST

void nfs3d_add_safety(TCase *tc)
{
	tcase_add_test(tc, test_mac_vectors);
	tcase_add_test(tc, test_forged_handles);
	tcase_add_test(tc, test_key_file_mode);
	tcase_add_test(tc, test_key_file_made);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_clients);
	tcase_add_test(tc, test_root_squash_gid0);
	tcase_add_test(tc, test_create_over_special);
	tcase_add_test(tc, test_mknod);
	tcase_add_test(tc, test_made_then_refused);
}
