/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_nfs3d's shared helpers, no tests: the server's directory, process,
 * ports and descriptor count, the two clients and the root handle; the
 * server's start and stop (with its descriptor and exit checks), the
 * checked fixture setup / teardown, and the CREATE and GETATTR helpers.
 */
#define _GNU_SOURCE
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <rpc/rpc.h>
#include "nfs3_prot.h"
#include "nfs3d_util.h"

char dir[] = "/tmp/check_nfs3d.XXXXXX";
static pid_t srv = -1;
static uint16_t nfs_port, mnt_port;
CLIENT *nfs, *mnt;
nfs_fh3 root;
static int srv_fds; /* the server's open files once both clients are in */

/* The number a shell command prints, -1 if none. */
static int popen_int(const char *cmd)
{
	int n = -1;
	FILE *f = popen(cmd, "r");

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		pclose(f);
	}
	return n;
}

static int count_fds(pid_t pid)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "ls /proc/%d/fd | wc -l", (int)pid);
	return popen_int(cmd);
}

int server_deleted_fds(void)
{
	char cmd[512];

	/* Of the export only: the server inherits check's own temporary
	 * file, removed already. */
	snprintf(cmd, sizeof(cmd),
		 "ls -l /proc/%d/fd | grep -c -- '-> %s/.* (deleted)$'",
		 (int)srv, dir);
	return popen_int(cmd);
}

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

/* A client of PROG from a port at or above 1024, which libtirpc's
 * clnttcp_create would not give root (bindresvport). */
CLIENT *connect_unprivileged(rpcprog_t prog)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	CLIENT *c;

	ck_assert_int_ge(fd, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	sa.sin_port = htons(prog == MOUNT_PROGRAM ? mnt_port : nfs_port);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	c = clnttcp_create(&sa, prog, 3, &fd, 2 << 20, 2 << 20);
	ck_assert_ptr_nonnull(c);
	clnt_control(c, CLSET_FD_CLOSE, NULL); /* clnt_destroy closes it */
	auth_destroy(c->cl_auth);
	c->cl_auth = authunix_create_default();
	return c;
}

const char *export_opts = "rw,no_root_squash"; /* nfs3d -o */
const char *export_clients[4];			 /* nfs3d -c, each */

/* The handles' key, beside the export (not in it: clients must not read
 * it), so that each test has its own and leaves nothing behind. */
static char keyfile[sizeof(dir) + 8];

void start_server(void)
{
	const char *argv[32];
	char np[8], mp[8];
	int n = 0;

	nfs_port = free_port();
	mnt_port = free_port();
	snprintf(np, sizeof(np), "%u", nfs_port);
	snprintf(mp, sizeof(mp), "%u", mnt_port);
	snprintf(keyfile, sizeof(keyfile), "%s.key", dir);
	srv = fork();
	ck_assert_int_ge(srv, 0);
	if (srv == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		argv[n++] = "nfs3d";
		argv[n++] = "-n";
		argv[n++] = "tcp";
		argv[n++] = "-R";
		argv[n++] = "-a";
		argv[n++] = "127.0.0.1";
		argv[n++] = "-t";
		argv[n++] = np;
		argv[n++] = "-m";
		argv[n++] = mp;
		argv[n++] = "-o";
		argv[n++] = export_opts;
		argv[n++] = "-k";
		argv[n++] = keyfile;
		for (int i = 0; i < 4 && export_clients[i]; i++) {
			argv[n++] = "-c";
			argv[n++] = export_clients[i];
		}
		argv[n++] = dir;
		argv[n] = NULL;
		execv("./nfs/nfs3d", (char *const *)argv);
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

/* clnt_destroy with the socket reset, not left in TIME_WAIT: each test
 * restarts the server and connects from reserved ports (bindresvport, as
 * root), and the "secure" default refuses a caller whose reserved port
 * could not be had; back-to-back runs used them all up. */
static void close_now(CLIENT *c)
{
	struct linger l = {1, 0};
	int fd;

	if (clnt_control(c, CLGET_FD, (char *)&fd))
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	clnt_destroy(c);
}

void stop_server(void)
{
	int st;

	/* Every descriptor a call opened was closed again, error paths
	 * included. */
	if (srv > 0 && nfs) {
		/* A connection a test closed is closed by svc_run when it
		 * gets to it: up to 2 s; a file kept open for READ or WRITE
		 * is closed within 1.5 s of its open (nfs/fcache.c). */
		for (int i = 0; i < 60 && count_fds(srv) != srv_fds; i++)
			usleep(50000);
		ck_assert_int_eq(count_fds(srv), srv_fds);
	}
	if (nfs) {
		auth_destroy(nfs->cl_auth);
		close_now(nfs);
	}
	if (mnt) {
		auth_destroy(mnt->cl_auth);
		close_now(mnt);
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

void setup(void)
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

void teardown(void)
{
	char cmd[128];

	stop_server();
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s.key", dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/check_nfs3d.XXXXXX");
}

/* CREATE dir/leaf (UNCHECKED, mode 0644): its handle. */
nfs_fh3 create(nfs_fh3 d, const char *leaf)
{
	nfs_fh3 fh;

	ck_assert_int_eq(create_st(d, leaf, 0644, &fh), NFS3_OK);
	return fh;
}

nfsstat3 getattr(nfs_fh3 fh)
{
	GETATTR3args a = {fh};
	GETATTR3res r;

	CALL(nfsproc3_getattr_3, &a, &r);
	return r.status;
}

nfsstat3 create_st(nfs_fh3 d, const char *leaf, mode_t mode,
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
