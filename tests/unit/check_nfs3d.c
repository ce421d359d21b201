/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3d's answers to bad and edge-case arguments (RFC 1813 section 3.3's
 * error lists), on the host: the server (./nfs/nfs3d, from the build
 * directory) serves a fresh directory over tcp on 127.0.0.1, and every
 * check is a call made with rpcgen's client stubs of nfs/nfs3_prot.x.
 * The same dispatch code serves rdma; the guest test t/66-nfs3d.sh has
 * the kernel client drive it there. Needs root (open_by_handle_at wants
 * CAP_DAC_READ_SEARCH), else skipped (77).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <rpc/rpc.h>
#include "nfs3_prot.h"

static char dir[] = "/tmp/check_nfs3d.XXXXXX";
static pid_t srv = -1;
static uint16_t nfs_port, mnt_port;
static CLIENT *nfs, *mnt;
static nfs_fh3 root;
static int srv_fds; /* the server's open files once both clients are in */

static int count_fds(pid_t pid)
{
	char path[64], cmd[96];
	int n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	snprintf(cmd, sizeof(cmd), "ls %s | wc -l", path);
	f = popen(cmd, "r");
	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		pclose(f);
	}
	return n;
}

#define XP(f) ((xdrproc_t)(void (*)(void))(f))

#ifdef __SANITIZE_ADDRESS__
/* The client side keeps its results (handles, lists) to the end of each
 * forked test: leaks of this process are not what is tested. The
 * server's memory errors still abort it, which fails the test. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}
#endif

static uint16_t free_port(void)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

static CLIENT *connect_to(uint16_t port, rpcprog_t prog)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons(port)};
	int fd = RPC_ANYSOCK;
	CLIENT *c = NULL;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* The server may still be starting: try for 5 s. */
	for (int i = 0; i < 100 && !c; i++) {
		fd = RPC_ANYSOCK;
		c = clnttcp_create(&sa, prog, 3, &fd, 2 << 20, 2 << 20);
		if (!c)
			usleep(50000);
	}
	ck_assert_ptr_nonnull(c);
	auth_destroy(c->cl_auth);
	c->cl_auth = authunix_create_default();
	return c;
}

static const char *export_opts = "rw"; /* nfs3d -o */

static void start_server(void)
{
	char np[8], mp[8];

	nfs_port = free_port();
	mnt_port = free_port();
	snprintf(np, sizeof(np), "%u", nfs_port);
	snprintf(mp, sizeof(mp), "%u", mnt_port);
	srv = fork();
	ck_assert_int_ge(srv, 0);
	if (srv == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		execl("./nfs/nfs3d", "nfs3d", "-n", "tcp", "-R", "-a",
		      "127.0.0.1", "-t", np, "-m", mp, "-o", export_opts, dir,
		      (char *)NULL);
		_exit(127);
	}
	mnt = connect_to(mnt_port, MOUNT_PROGRAM);
	nfs = connect_to(nfs_port, NFS_PROGRAM);
	/* The server has taken both connections once a call was answered. */
	ck_assert_int_eq(nfsproc3_null_3(NULL, NULL, nfs), RPC_SUCCESS);
	ck_assert_int_eq(mountproc3_null_3(NULL, NULL, mnt), RPC_SUCCESS);
	srv_fds = count_fds(srv);
	ck_assert_int_gt(srv_fds, 0);
}

static void stop_server(void)
{
	int st;

	/* Every descriptor a call opened was closed again, error paths
	 * included. */
	if (srv > 0 && nfs)
		ck_assert_int_eq(count_fds(srv), srv_fds);
	if (nfs) {
		auth_destroy(nfs->cl_auth);
		clnt_destroy(nfs);
	}
	if (mnt) {
		auth_destroy(mnt->cl_auth);
		clnt_destroy(mnt);
	}
	nfs = mnt = NULL;
	if (srv > 0) {
		/* Still alive after everything it was sent. */
		ck_assert_int_eq(waitpid(srv, &st, WNOHANG), 0);
		kill(srv, SIGTERM);
		ck_assert_int_eq(waitpid(srv, &st, 0), srv);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	srv = -1;
}

#define CALL(proc, a, r)                                                       \
	do {                                                                   \
		memset((r), 0, sizeof(*(r)));                                  \
		ck_assert_int_eq(proc((a), (r), nfs), RPC_SUCCESS);            \
	} while (0)

static void setup(void)
{
	mountres3 mr;
	dirpath p = dir;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	start_server();
	memset(&mr, 0, sizeof(mr));
	ck_assert_int_eq(mountproc3_mnt_3(&p, &mr, mnt), RPC_SUCCESS);
	ck_assert_int_eq(mr.fhs_status, MNT3_OK);
	root.data.data_len = mr.mountres3_u.mountinfo.fhandle.fhandle3_len;
	root.data.data_val = mr.mountres3_u.mountinfo.fhandle.fhandle3_val;
}

static void teardown(void)
{
	char cmd[128];

	stop_server();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/check_nfs3d.XXXXXX");
}

static nfsstat3 create_st(nfs_fh3 d, const char *leaf, mode_t mode,
			  nfs_fh3 *fh);

/* CREATE dir/leaf (UNCHECKED, mode 0644): its handle. */
static nfs_fh3 create(nfs_fh3 d, const char *leaf)
{
	nfs_fh3 fh;

	ck_assert_int_eq(create_st(d, leaf, 0644, &fh), NFS3_OK);
	return fh;
}

static nfsstat3 getattr(nfs_fh3 fh)
{
	GETATTR3args a = {fh};
	GETATTR3res r;

	CALL(nfsproc3_getattr_3, &a, &r);
	return r.status;
}

START_TEST(test_mount)
{
	mountres3 mr;
	dirpath p = "/no/such/export";
	exports ex = NULL;

	memset(&mr, 0, sizeof(mr));
	ck_assert_int_eq(mountproc3_mnt_3(&p, &mr, mnt), RPC_SUCCESS);
	ck_assert_int_eq(mr.fhs_status, MNT3ERR_NOENT);
	ck_assert_int_eq(mountproc3_export_3(NULL, &ex, mnt), RPC_SUCCESS);
	ck_assert_ptr_nonnull(ex);
	ck_assert_str_eq(ex->ex_dir, dir);
	ck_assert_int_eq(mountproc3_null_3(NULL, NULL, mnt), RPC_SUCCESS);
	ck_assert_int_eq(nfsproc3_null_3(NULL, NULL, nfs), RPC_SUCCESS);
}
END_TEST

/* 2.3.3 / 3.3.1: malformed handles BADHANDLE, gone ones STALE. */
START_TEST(test_handles)
{
	nfs_fh3 fh = create(root, "f"), bad;
	char buf[NFS3_FHSIZE];
	REMOVE3args ra = {{root, "f"}};
	REMOVE3res rr;

	ck_assert_int_eq(getattr(root), NFS3_OK);
	ck_assert_int_eq(getattr(fh), NFS3_OK);
	/* Empty, short, wrong version, wrong length field. */
	bad.data.data_len = 0;
	bad.data.data_val = NULL;
	ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	memcpy(buf, fh.data.data_val, fh.data.data_len);
	bad.data.data_val = buf;
	bad.data.data_len = 8;
	ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	bad.data.data_len = fh.data.data_len;
	buf[0] = 9;
	ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	buf[0] = fh.data.data_val[0];
	buf[3] ^= 1;
	ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	buf[3] = fh.data.data_val[3];
	/* Another export's tag: stale. */
	buf[9] ^= 0x55;
	ck_assert_int_eq(getattr(bad), NFS3ERR_STALE);
	buf[9] = fh.data.data_val[9];
	/* A handle claiming the wrong type. */
	buf[1] = NF3DIR;
	ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	buf[1] = fh.data.data_val[1];
	/* The file system's part garbled: not a crash, an error. */
	for (u_int i = 12; i < fh.data.data_len; i++)
		buf[i] = (char)~buf[i];
	ck_assert_int_ne(getattr(bad), NFS3_OK);
	/* Removed: stale. */
	CALL(nfsproc3_remove_3, &ra, &rr);
	ck_assert_int_eq(rr.status, NFS3_OK);
	ck_assert_int_eq(getattr(fh), NFS3ERR_STALE);
}
END_TEST

/* 3.3.3 LOOKUP: names. */
START_TEST(test_names)
{
	nfs_fh3 f = create(root, "file");
	char longname[300];
	LOOKUP3args a;
	LOOKUP3res r;

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	a.what.dir = root;
	a.what.name = "missing";
	CALL(nfsproc3_lookup_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3ERR_NOENT);
	ck_assert(r.LOOKUP3res_u.resfail.dir_attributes.attributes_follow);
	a.what.name = longname;
	CALL(nfsproc3_lookup_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3ERR_NAMETOOLONG);
	a.what.name = "a/b";
	CALL(nfsproc3_lookup_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3ERR_INVAL);
	a.what.name = "";
	CALL(nfsproc3_lookup_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3ERR_NOENT);
	a.what.name = ".."; /* at the root: the root itself */
	CALL(nfsproc3_lookup_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3_OK);
	ck_assert_uint_eq(r.LOOKUP3res_u.resok.object.data.data_len,
			  root.data.data_len);
	ck_assert_mem_eq(r.LOOKUP3res_u.resok.object.data.data_val,
			 root.data.data_val, root.data.data_len);
	a.what.dir = f;
	a.what.name = "x";
	CALL(nfsproc3_lookup_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3ERR_NOTDIR);
}
END_TEST

/* A LOOKUP whose name's length word says 2^32 - 1 bytes: libtirpc's
 * xdr_string decodes it as a NULL string; the server must refuse it. */
static bool_t xdr_lookup_huge(XDR *x, nfs_fh3 *dirfh)
{
	u_int len = 0xffffffffu;

	return xdr_nfs_fh3(x, dirfh) && xdr_u_int(x, &len);
}

/* Arguments cut short. */
static bool_t xdr_write_cut(XDR *x, nfs_fh3 *fh)
{
	uint64_t off = 0;
	u_int count = 1000000, stable = 0, len = 1000000;

	return xdr_nfs_fh3(x, fh) && xdr_uint64_t(x, &off) &&
	       xdr_u_int(x, &count) && xdr_u_int(x, &stable) &&
	       xdr_u_int(x, &len);
}

START_TEST(test_garbage)
{
	struct timeval tv = {10, 0};
	LOOKUP3res r;
	WRITE3res w;
	enum clnt_stat st;

	memset(&r, 0, sizeof(r));
	st = clnt_call(nfs, NFSPROC3_LOOKUP, XP(xdr_lookup_huge), (char *)&root,
		       XP(xdr_LOOKUP3res), (char *)&r, tv);
	ck_assert(st == RPC_SUCCESS || st == RPC_CANTDECODEARGS);
	if (st == RPC_SUCCESS)
		ck_assert_int_ne(r.status, NFS3_OK);
	memset(&w, 0, sizeof(w));
	st = clnt_call(nfs, NFSPROC3_WRITE, XP(xdr_write_cut), (char *)&root,
		       XP(xdr_WRITE3res), (char *)&w, tv);
	ck_assert_int_eq(st, RPC_CANTDECODEARGS);
	/* Unknown procedure. */
	st = clnt_call(nfs, 22, XP(xdr_void), NULL, XP(xdr_void), NULL, tv);
	ck_assert_int_eq(st, RPC_PROCUNAVAIL);
	ck_assert_int_eq(nfsproc3_null_3(NULL, NULL, nfs), RPC_SUCCESS);
}
END_TEST

/* 3.3.6 READ and 3.3.7 WRITE: offsets, sizes, stability, verifier. */
START_TEST(test_read_write)
{
	nfs_fh3 f = create(root, "data");
	static char data[3 << 20];
	WRITE3args wa;
	WRITE3res wr;
	READ3args ra;
	READ3res rr;
	COMMIT3args ca = {f, 0, 0};
	COMMIT3res cr;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 13 + 5);
	memset(&wa, 0, sizeof(wa));
	wa.file = f;
	wa.count = 1 << 20;
	wa.stable = UNSTABLE;
	wa.data.data_len = 1 << 20;
	wa.data.data_val = data;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.status, NFS3_OK);
	ck_assert_uint_eq(wr.WRITE3res_u.resok.count, 1 << 20);
	ck_assert_int_eq(wr.WRITE3res_u.resok.committed, UNSTABLE);
	CALL(nfsproc3_commit_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3_OK);
	ck_assert_mem_eq(cr.COMMIT3res_u.resok.verf, wr.WRITE3res_u.resok.verf,
			 NFS3_WRITEVERFSIZE);
	/* FILE_SYNC and DATA_SYNC are answered as asked. */
	wa.stable = FILE_SYNC;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.WRITE3res_u.resok.committed, FILE_SYNC);
	wa.stable = DATA_SYNC;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.WRITE3res_u.resok.committed, DATA_SYNC);
	/* Bad stable_how, count above the data, offset overflow. */
	wa.stable = 7;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.status, NFS3ERR_INVAL);
	wa.stable = UNSTABLE;
	wa.count = wa.data.data_len + 1;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.status, NFS3ERR_INVAL);
	wa.count = 10;
	wa.offset = UINT64_MAX - 5;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.status, NFS3ERR_FBIG);
	wa.offset = 0;
	wa.file = root;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.status, NFS3ERR_ISDIR);
	/* A WRITE larger than wtmax is still written whole. */
	wa.file = f;
	wa.count = wa.data.data_len = sizeof(data);
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.status, NFS3_OK);
	ck_assert_uint_eq(wr.WRITE3res_u.resok.count, sizeof(data));

	/* READ: clamped to rtmax, eof, past the end, huge offset, a dir. */
	ra.file = f;
	ra.offset = 1;
	ra.count = 4 << 20;
	CALL(nfsproc3_read_3, &ra, &rr);
	ck_assert_int_eq(rr.status, NFS3_OK);
	ck_assert_uint_eq(rr.READ3res_u.resok.count, 1 << 20);
	ck_assert(!rr.READ3res_u.resok.eof);
	ck_assert_mem_eq(rr.READ3res_u.resok.data.data_val, data + 1, 1 << 20);
	xdr_free(XP(xdr_READ3res), (char *)&rr);
	ra.offset = sizeof(data) - 10;
	ra.count = 100;
	CALL(nfsproc3_read_3, &ra, &rr);
	ck_assert_uint_eq(rr.READ3res_u.resok.count, 10);
	ck_assert(rr.READ3res_u.resok.eof);
	xdr_free(XP(xdr_READ3res), (char *)&rr);
	ra.offset = sizeof(data) + 100;
	CALL(nfsproc3_read_3, &ra, &rr);
	ck_assert_int_eq(rr.status, NFS3_OK);
	ck_assert_uint_eq(rr.READ3res_u.resok.count, 0);
	ck_assert(rr.READ3res_u.resok.eof);
	ra.offset = UINT64_MAX;
	CALL(nfsproc3_read_3, &ra, &rr);
	ck_assert_int_eq(rr.status, NFS3_OK);
	ck_assert_uint_eq(rr.READ3res_u.resok.count, 0);
	ck_assert(rr.READ3res_u.resok.eof);
	ra.file = root;
	ra.offset = 0;
	CALL(nfsproc3_read_3, &ra, &rr);
	ck_assert_int_eq(rr.status, NFS3ERR_ISDIR);
	ck_assert(rr.READ3res_u.resfail.file_attributes.attributes_follow);
}
END_TEST

/* 3.3.8 CREATE modes, 3.3.11 MKNOD, 3.3.2 SETATTR's guard and size. */
START_TEST(test_create_setattr)
{
	CREATE3args ca;
	CREATE3res cr;
	MKNOD3args ma;
	MKNOD3res mr;
	SETATTR3args sa;
	SETATTR3res sr;
	fileid3 id;

	memset(&ca, 0, sizeof(ca));
	ca.where.dir = root;
	ca.where.name = "x";
	ca.how.mode = GUARDED;
	CALL(nfsproc3_create_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3_OK);
	CALL(nfsproc3_create_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3ERR_EXIST);
	ck_assert(cr.CREATE3res_u.resfail.dir_wcc.after.attributes_follow);
	ca.where.name = ".";
	CALL(nfsproc3_create_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3ERR_INVAL);
	/* EXCLUSIVE: a retransmission (same verifier) succeeds, another
	 * verifier meets NFS3ERR_EXIST. */
	ca.where.name = "excl";
	ca.how.mode = EXCLUSIVE;
	memcpy(ca.how.createhow3_u.verf, "verifier", 8);
	CALL(nfsproc3_create_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3_OK);
	id = cr.CREATE3res_u.resok.obj_attributes.post_op_attr_u.attributes
		 .fileid;
	CALL(nfsproc3_create_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3_OK);
	ck_assert_uint_eq(cr.CREATE3res_u.resok.obj_attributes.post_op_attr_u
			      .attributes.fileid,
			  id);
	memcpy(ca.how.createhow3_u.verf, "VERIFIER", 8);
	CALL(nfsproc3_create_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3ERR_EXIST);

	memset(&ma, 0, sizeof(ma));
	ma.where.dir = root;
	ma.where.name = "dev";
	ma.what.type = NF3CHR;
	CALL(nfsproc3_mknod_3, &ma, &mr);
	ck_assert_int_eq(mr.status, NFS3ERR_NOTSUPP);
	ma.what.type = NF3FIFO;
	CALL(nfsproc3_mknod_3, &ma, &mr);
	ck_assert_int_eq(mr.status, NFS3ERR_NOTSUPP);
	ma.what.type = NF3REG;
	CALL(nfsproc3_mknod_3, &ma, &mr);
	ck_assert_int_eq(mr.status, NFS3ERR_BADTYPE);

	memset(&sa, 0, sizeof(sa));
	sa.object = root;
	sa.new_attributes.size.set_it = TRUE;
	CALL(nfsproc3_setattr_3, &sa, &sr);
	ck_assert_int_eq(sr.status, NFS3ERR_ISDIR);
	sa.new_attributes.size.set_it = FALSE;
	sa.new_attributes.mode.set_it = TRUE;
	sa.new_attributes.mode.set_mode3_u.mode = 0700;
	sa.guard.check = TRUE; /* ctime 0: not the directory's */
	CALL(nfsproc3_setattr_3, &sa, &sr);
	ck_assert_int_eq(sr.status, NFS3ERR_NOT_SYNC);
	sa.guard.check = FALSE;
	CALL(nfsproc3_setattr_3, &sa, &sr);
	ck_assert_int_eq(sr.status, NFS3_OK);
	ck_assert_uint_eq(
	    sr.SETATTR3res_u.resok.obj_wcc.after.post_op_attr_u.attributes.mode,
	    0700);
}
END_TEST

/* 3.3.12-15: REMOVE, RMDIR, RENAME, LINK, READLINK errors. */
START_TEST(test_namespace)
{
	nfs_fh3 f = create(root, "file");
	MKDIR3args ma;
	MKDIR3res mr;
	REMOVE3args ra = {{root, "nothing"}};
	REMOVE3res rr;
	RMDIR3args da = {{root, "d"}};
	RMDIR3res dr;
	RENAME3args na = {{root, "nothing"}, {root, "other"}};
	RENAME3res nr;
	LINK3args la;
	LINK3res lr;
	READLINK3args rla = {f};
	READLINK3res rlr;
	nfs_fh3 d;

	memset(&ma, 0, sizeof(ma));
	ma.where.dir = root;
	ma.where.name = "d";
	CALL(nfsproc3_mkdir_3, &ma, &mr);
	ck_assert_int_eq(mr.status, NFS3_OK);
	d = mr.MKDIR3res_u.resok.obj.post_op_fh3_u.handle;
	CALL(nfsproc3_mkdir_3, &ma, &mr);
	ck_assert_int_eq(mr.status, NFS3ERR_EXIST);
	create(d, "inside");
	CALL(nfsproc3_remove_3, &ra, &rr);
	ck_assert_int_eq(rr.status, NFS3ERR_NOENT);
	CALL(nfsproc3_rmdir_3, &da, &dr);
	ck_assert_int_eq(dr.status, NFS3ERR_NOTEMPTY);
	da.object.name = "file";
	CALL(nfsproc3_rmdir_3, &da, &dr);
	ck_assert_int_eq(dr.status, NFS3ERR_NOTDIR);
	da.object.name = ".";
	CALL(nfsproc3_rmdir_3, &da, &dr);
	ck_assert_int_eq(dr.status, NFS3ERR_INVAL);
	CALL(nfsproc3_rename_3, &na, &nr);
	ck_assert_int_eq(nr.status, NFS3ERR_NOENT);
	na.from.name = "file";
	na.to.dir = f;
	CALL(nfsproc3_rename_3, &na, &nr);
	ck_assert_int_eq(nr.status, NFS3ERR_NOTDIR);
	la.file = d;
	la.link.dir = root;
	la.link.name = "dlink";
	CALL(nfsproc3_link_3, &la, &lr);
	ck_assert_int_ne(lr.status, NFS3_OK);
	la.file = f;
	la.link.name = "file";
	CALL(nfsproc3_link_3, &la, &lr);
	ck_assert_int_eq(lr.status, NFS3ERR_EXIST);
	CALL(nfsproc3_readlink_3, &rla, &rlr);
	ck_assert_int_eq(rlr.status, NFS3ERR_INVAL);
}
END_TEST

/* 3.3.16 / 3.3.17: every entry once, in replies within count. */
START_TEST(test_readdir)
{
	MKDIR3args ma;
	MKDIR3res mr;
	nfs_fh3 d;
	char leaf[32];
	unsigned int seen[2] = {0, 0};

	memset(&ma, 0, sizeof(ma));
	ma.where.dir = root;
	ma.where.name = "many";
	CALL(nfsproc3_mkdir_3, &ma, &mr);
	ck_assert_int_eq(mr.status, NFS3_OK);
	d = mr.MKDIR3res_u.resok.obj.post_op_fh3_u.handle;
	for (int i = 0; i < 500; i++) {
		snprintf(leaf, sizeof(leaf), "entry-%d", i);
		create(d, leaf);
	}
	for (int plus = 0; plus < 2; plus++) {
		cookie3 cookie = 0;
		bool_t eof = FALSE;

		while (!eof) {
			if (plus) {
				READDIRPLUS3args a = {
				    d, cookie, {0}, 2048, 8192};
				READDIRPLUS3res r;

				CALL(nfsproc3_readdirplus_3, &a, &r);
				ck_assert_int_eq(r.status, NFS3_OK);
				for (entryplus3 *e = r.READDIRPLUS3res_u.resok
							 .reply.entries;
				     e; e = e->nextentry) {
					cookie = e->cookie;
					if (strncmp(e->name, "entry-", 6))
						continue;
					seen[1]++;
					ck_assert(
					    e->name_handle.handle_follows);
					ck_assert(e->name_attributes
						      .attributes_follow);
				}
				eof = r.READDIRPLUS3res_u.resok.reply.eof;
			} else {
				READDIR3args a = {d, cookie, {0}, 1024};
				READDIR3res r;

				CALL(nfsproc3_readdir_3, &a, &r);
				ck_assert_int_eq(r.status, NFS3_OK);
				for (entry3 *e =
					 r.READDIR3res_u.resok.reply.entries;
				     e; e = e->nextentry) {
					cookie = e->cookie;
					if (strncmp(e->name, "entry-", 6) == 0)
						seen[0]++;
				}
				eof = r.READDIR3res_u.resok.reply.eof;
			}
		}
	}
	ck_assert_uint_eq(seen[0], 500);
	ck_assert_uint_eq(seen[1], 500);
	{
		READDIR3args a = {d, 0, {0}, 40};
		READDIR3res r;

		CALL(nfsproc3_readdir_3, &a, &r);
		ck_assert_int_eq(r.status, NFS3ERR_TOOSMALL);
		a.dir = create(root, "plain");
		a.count = 4096;
		CALL(nfsproc3_readdir_3, &a, &r);
		ck_assert_int_eq(r.status, NFS3ERR_NOTDIR);
	}
}
END_TEST

/* 3.3.18-20 */
START_TEST(test_fs)
{
	FSINFO3args ia = {root};
	FSINFO3res ir;
	FSSTAT3args sa = {root};
	FSSTAT3res sr;
	PATHCONF3args pa = {root};
	PATHCONF3res pr;

	CALL(nfsproc3_fsinfo_3, &ia, &ir);
	ck_assert_int_eq(ir.status, NFS3_OK);
	ck_assert_uint_eq(ir.FSINFO3res_u.resok.rtmax, 1 << 20);
	ck_assert_uint_eq(ir.FSINFO3res_u.resok.wtmax, 1 << 20);
	CALL(nfsproc3_fsstat_3, &sa, &sr);
	ck_assert_int_eq(sr.status, NFS3_OK);
	ck_assert_uint_gt(sr.FSSTAT3res_u.resok.tbytes, 0);
	CALL(nfsproc3_pathconf_3, &pa, &pr);
	ck_assert_int_eq(pr.status, NFS3_OK);
	ck_assert_uint_eq(pr.PATHCONF3res_u.resok.name_max, 255);
}
END_TEST

/* MKDIR dir/leaf with mode: its handle. */
static nfs_fh3 mkdir_fh(nfs_fh3 d, const char *leaf, mode_t mode)
{
	MKDIR3args a;
	MKDIR3res r;

	memset(&a, 0, sizeof(a));
	a.where.dir = d;
	a.where.name = (char *)leaf;
	a.attributes.mode.set_it = TRUE;
	a.attributes.mode.set_mode3_u.mode = mode;
	CALL(nfsproc3_mkdir_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3_OK);
	ck_assert(r.MKDIR3res_u.resok.obj.handle_follows);
	return r.MKDIR3res_u.resok.obj.post_op_fh3_u.handle;
}

/* The NFS client's credentials: AUTH_SYS uid, gid and groups. */
static void as_user(uid_t uid, gid_t gid, int ngids, gid_t *gids)
{
	auth_destroy(nfs->cl_auth);
	nfs->cl_auth = authunix_create((char *)"client", uid, gid, ngids, gids);
	ck_assert_ptr_nonnull(nfs->cl_auth);
}

static nfsstat3 create_st(nfs_fh3 d, const char *leaf, mode_t mode,
			  nfs_fh3 *fh)
{
	CREATE3args a;
	CREATE3res r;

	memset(&a, 0, sizeof(a));
	a.where.dir = d;
	a.where.name = (char *)leaf;
	a.how.mode = UNCHECKED;
	a.how.createhow3_u.obj_attributes.mode.set_it = TRUE;
	a.how.createhow3_u.obj_attributes.mode.set_mode3_u.mode = mode;
	CALL(nfsproc3_create_3, &a, &r);
	if (r.status == NFS3_OK && fh) {
		ck_assert(r.CREATE3res_u.resok.obj.handle_follows);
		*fh = r.CREATE3res_u.resok.obj.post_op_fh3_u.handle;
	}
	return r.status;
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

static nfsstat3 read_st(nfs_fh3 f)
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

static struct stat stat_of(const char *leaf)
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
	export_opts = "all_squash,anonuid=1234,anongid=4321";
	start_server();
	as_user(1000, 1000, 0, NULL);
	ck_assert_int_eq(create_st(pub, "anon", 0644, NULL), NFS3_OK);
	st = stat_of("pub/anon");
	ck_assert_uint_eq(st.st_uid, 1234);
	ck_assert_uint_eq(st.st_gid, 4321);
	ck_assert_int_eq(write_st(mine, "x"), NFS3ERR_ACCES);
	export_opts = "rw";
}
END_TEST

/* Handles survive a restart of the server (RFC 1813 section 2.3.3). */
START_TEST(test_restart)
{
	nfs_fh3 f = create(root, "kept");
	nfs_fh3 keep;

	keep.data.data_len = f.data.data_len;
	keep.data.data_val = malloc(f.data.data_len);
	ck_assert_ptr_nonnull(keep.data.data_val);
	memcpy(keep.data.data_val, f.data.data_val, f.data.data_len);
	stop_server();
	start_server();
	ck_assert_int_eq(getattr(keep), NFS3_OK);
	ck_assert_int_eq(getattr(root), NFS3_OK);
	free(keep.data.data_val);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nfs3d");
	TCase *tc = tcase_create("tcp");
	SRunner *sr;
	int failed;

	if (geteuid() != 0) {
		fprintf(stderr,
			"check_nfs3d: needs root (open_by_handle_at)\n");
		return 77;
	}
	if (access("./nfs/nfs3d", X_OK) != 0) {
		fprintf(stderr, "check_nfs3d: ./nfs/nfs3d not built\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_mount);
	tcase_add_test(tc, test_handles);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_garbage);
	tcase_add_test(tc, test_read_write);
	tcase_add_test(tc, test_create_setattr);
	tcase_add_test(tc, test_namespace);
	tcase_add_test(tc, test_readdir);
	tcase_add_test(tc, test_fs);
	tcase_add_test(tc, test_restart);
	tcase_add_test(tc, test_credentials);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
