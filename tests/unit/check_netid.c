/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xprt_rdma/netid.c and rpcb.c on the host: the interposed libtirpc
 * creators give "rdma"/"rdma6" to librpcrdma and every other netid to
 * libtirpc, unchanged; rpcrdma_rpcb_* talk to a real rpcbind.
 *
 * Linked -lrpcrdma before -ltirpc, like a user program. The rpcbind cases
 * need root and /usr/sbin/rpcbind: main() then moves the whole test into
 * private network and mount namespaces (lo up, a tmpfs on /run) and starts
 * its own "rpcbind -f" there, so the host's rpcbind, if any, is never
 * touched. Without them those cases are skipped (and say so).
 */
#define _GNU_SOURCE
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netconfig.h>
#include <rpc/rpc.h>
#include <rpc/rpcb_clnt.h>
#include <rpcrdma/rpcrdma.h>
#include "../../xprt_rdma/xprt.h"

#define RPCBIND_BIN	"/usr/sbin/rpcbind"
#define TEST_VERS	1
#define ECHO_PROC	1

static pid_t rpcbind_pid = -1;

/*
 * Under LeakSanitizer: libtirpc 1.3.3 itself leaks the 16-byte netbuf of
 * its rpcbind address lookup (clnt_tp_create_timed, rpcb_getmaps). Not
 * ours to fix; only stacks through these two entry points are ignored.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:clnt_tp_create_timed\nleak:rpcb_getmaps\n";
}

/* libtirpc has no frame pointers: full unwinding, so the above match. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

/* ---- a libtirpc echo service ---- */

static void echo_dispatch(struct svc_req *rq, SVCXPRT *x)
{
	char *arg = NULL;

	switch (rq->rq_proc) {
	case NULLPROC:
		svc_sendreply(x, (xdrproc_t)(void (*)(void))xdr_void, NULL);
		return;
	case ECHO_PROC:
		if (!svc_getargs(x, (xdrproc_t)xdr_wrapstring, (caddr_t)&arg)) {
			svcerr_decode(x);
			return;
		}
		svc_sendreply(x, (xdrproc_t)xdr_wrapstring, (caddr_t)&arg);
		svc_freeargs(x, (xdrproc_t)xdr_wrapstring, (caddr_t)&arg);
		return;
	default:
		svcerr_noproc(x);
	}
}

static volatile int srv_stop;
static pthread_t srv_thread;

/* svc_run with a way out: poll libtirpc's own fd set. */
static void *srv_loop(void *arg)
{
	(void)arg;
	while (!srv_stop) {
		int n = poll(svc_pollfd, svc_max_pollfd, 50);

		if (n > 0)
			svc_getreq_poll(svc_pollfd, n);
	}
	return NULL;
}

static void srv_start(void)
{
	srv_stop = 0;
	ck_assert_int_eq(pthread_create(&srv_thread, NULL, srv_loop, NULL), 0);
}

static void srv_join(void)
{
	srv_stop = 1;
	pthread_join(srv_thread, NULL);
}

static const struct timeval tmo = { 5, 0 };

/* A null call and an echo through cl, checked exactly. */
static void call_echo(CLIENT *cl, const char *text)
{
	char *out = NULL;
	char *in = (char *)text;

	ck_assert_int_eq(clnt_call(cl, NULLPROC,
				   (xdrproc_t)(void (*)(void))xdr_void, NULL,
				   (xdrproc_t)(void (*)(void))xdr_void, NULL,
				   tmo), RPC_SUCCESS);
	ck_assert_int_eq(clnt_call(cl, ECHO_PROC, (xdrproc_t)xdr_wrapstring,
				   (caddr_t)&in, (xdrproc_t)xdr_wrapstring,
				   (caddr_t)&out, tmo), RPC_SUCCESS);
	ck_assert_ptr_nonnull(out);
	ck_assert_str_eq(out, text);
	clnt_freeres(cl, (xdrproc_t)xdr_wrapstring, (caddr_t)&out);
}

/* The names this program calls are librpcrdma's (it links it first). */
START_TEST(names_are_interposed)
{
	void *fns[] = {
		(void *)getnetconfigent, (void *)freenetconfigent,
		(void *)clnt_create, (void *)clnt_create_timed,
		(void *)clnt_tp_create, (void *)clnt_tp_create_timed,
		(void *)svc_create, (void *)svc_tp_create,
		(void *)svc_tli_create, (void *)svc_reg, (void *)rpcb_set,
		(void *)clnt_sperror, (void *)clnt_perror,
	};
	size_t i;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		Dl_info di;

		ck_assert_int_ne(dladdr(fns[i], &di), 0);
		ck_assert_msg(strstr(di.dli_fname, "librpcrdma") != NULL,
			      "%s from %s", di.dli_sname, di.dli_fname);
	}
	/* libtirpc's own are still there, under their version. */
	ck_assert_ptr_nonnull(dlvsym(RTLD_DEFAULT, "clnt_create",
				     "TIRPC_0.3.0"));
	ck_assert_ptr_ne(dlvsym(RTLD_DEFAULT, "clnt_create", "TIRPC_0.3.0"),
			 (void *)clnt_create);
}
END_TEST

/* clnt_sperror of a CLIENT that is not ours is libtirpc's text as it is
 * (ours adds the limit a failed rdma call met: t_clnt, t_svc). */
static void timed_out(CLIENT *c, struct rpc_err *e)
{
	(void)c;
	memset(e, 0, sizeof(*e));
	e->re_status = RPC_TIMEDOUT;
}

START_TEST(sperror_passes_through)
{
	static struct clnt_ops ops = { .cl_geterr = timed_out };
	CLIENT c = { .cl_ops = &ops };

	ck_assert_str_eq(clnt_sperror(&c, "other"), "other: RPC: Timed out");
}
END_TEST

/* ---- getnetconfigent / freenetconfigent ---- */

START_TEST(netconfig_rdma)
{
	struct netconfig *nc = getnetconfigent("rdma");
	struct netconfig *nc6 = getnetconfigent("rdma6");

	ck_assert_ptr_nonnull(nc);
	ck_assert_str_eq(nc->nc_netid, "rdma");
	ck_assert_uint_eq(nc->nc_semantics, NC_TPI_COTS_ORD);
	ck_assert_str_eq(nc->nc_protofmly, NC_INET);
	ck_assert_str_eq(nc->nc_proto, "rdma");
	ck_assert_ptr_nonnull(nc6);
	ck_assert_str_eq(nc6->nc_netid, "rdma6");
	ck_assert_uint_eq(nc6->nc_semantics, NC_TPI_COTS_ORD);
	ck_assert_str_eq(nc6->nc_protofmly, NC_INET6);
	ck_assert_str_eq(nc6->nc_proto, "rdma");
	/* Ours are static: freeing is a no-op, a second lookup still works. */
	freenetconfigent(nc);
	freenetconfigent(nc6);
	nc = getnetconfigent("rdma");
	ck_assert_str_eq(nc->nc_netid, "rdma");
	freenetconfigent(nc);
	freenetconfigent(NULL);
}
END_TEST

START_TEST(netconfig_real)
{
	struct netconfig *tcp = getnetconfigent("tcp");
	struct netconfig *udp = getnetconfigent("udp");

	/* These come from /etc/netconfig through libtirpc. */
	ck_assert_ptr_nonnull(tcp);
	ck_assert_str_eq(tcp->nc_netid, "tcp");
	ck_assert_str_eq(tcp->nc_proto, "tcp");
	ck_assert_str_eq(tcp->nc_protofmly, NC_INET);
	ck_assert_uint_eq(tcp->nc_semantics, NC_TPI_COTS_ORD);
	ck_assert_ptr_nonnull(udp);
	ck_assert_str_eq(udp->nc_netid, "udp");
	ck_assert_uint_eq(udp->nc_semantics, NC_TPI_CLTS);
	/* libtirpc's heap copies, freed by libtirpc (ASan watches). */
	freenetconfigent(tcp);
	freenetconfigent(udp);
	ck_assert_ptr_null(getnetconfigent("no-such-netid"));
	ck_assert_ptr_null(getnetconfigent(NULL));
}
END_TEST

/* An unknown nettype reaches libtirpc, which refuses it its own way. */
START_TEST(forward_unknown_nettype)
{
	CLIENT *cl;

	rpc_createerr.cf_stat = RPC_SUCCESS;
	cl = clnt_create("127.0.0.1", 0x20000a01, TEST_VERS, "no-such");
	ck_assert_ptr_null(cl);
	ck_assert_int_eq(rpc_createerr.cf_stat, RPC_UNKNOWNPROTO);
	ck_assert_int_eq(svc_create(echo_dispatch, 0x20000a01, TEST_VERS,
				    "no-such"), 0);
}
END_TEST

/* ---- with a private rpcbind ---- */

/* svc_create and clnt_create with "tcp", both interposed, both libtirpc. */
START_TEST(tcp_svc_create_clnt_create)
{
	const rpcprog_t prog = 0x20000a02;
	CLIENT *cl;

	/* The nettype "tcp" selects both tcp and tcp6 in /etc/netconfig. */
	ck_assert_int_eq(svc_create(echo_dispatch, prog, TEST_VERS, "tcp"), 2);
	srv_start();
	cl = clnt_create("127.0.0.1", prog, TEST_VERS, "tcp");
	ck_assert_msg(cl != NULL, "%s", clnt_spcreateerror("clnt_create"));
	ck_assert_str_eq(cl->cl_netid, "tcp");
	call_echo(cl, "hello over tcp");
	clnt_destroy(cl);
	srv_join();
	svc_unreg(prog, TEST_VERS);
}
END_TEST

START_TEST(tcp_tp_create_and_timed)
{
	const rpcprog_t prog = 0x20000a03;
	struct netconfig *nc = getnetconfigent("tcp");
	struct timeval tv = { 3, 0 };
	SVCXPRT *x;
	CLIENT *cl;

	ck_assert_ptr_nonnull(nc);
	x = svc_tp_create(echo_dispatch, prog, TEST_VERS, nc);
	ck_assert_ptr_nonnull(x);
	ck_assert_str_eq(x->xp_netid, "tcp");
	srv_start();
	cl = clnt_tp_create("127.0.0.1", prog, TEST_VERS, nc);
	ck_assert_msg(cl != NULL, "%s", clnt_spcreateerror("clnt_tp_create"));
	call_echo(cl, "tp");
	clnt_destroy(cl);
	cl = clnt_create_timed("127.0.0.1", prog, TEST_VERS, "tcp", &tv);
	ck_assert_msg(cl != NULL, "%s", clnt_spcreateerror("timed"));
	call_echo(cl, "");
	clnt_destroy(cl);
	cl = clnt_tp_create_timed("127.0.0.1", prog, TEST_VERS, nc, &tv);
	ck_assert_ptr_nonnull(cl);
	call_echo(cl, "tp timed, a little longer than the others");
	clnt_destroy(cl);
	srv_join();
	svc_unreg(prog, TEST_VERS);
	freenetconfigent(nc);
}
END_TEST

/*
 * What an "rpcgen -n tcp" main does: svc_tli_create, rpcb_unset, svc_reg
 * with the netconfig (svc_tli_create, svc_reg and rpcb_set interposed,
 * all forwarded for tcp), then a client with clnt_tp_create.
 */
START_TEST(tcp_tli_create_svc_reg)
{
	const rpcprog_t prog = 0x20000a05;
	struct netconfig *nc = getnetconfigent("tcp");
	SVCXPRT *x;
	CLIENT *cl;

	ck_assert_ptr_nonnull(nc);
	x = svc_tli_create(RPC_ANYFD, nc, NULL, 0, 0);
	ck_assert_ptr_nonnull(x);
	ck_assert_str_eq(x->xp_netid, "tcp");
	rpcb_unset(prog, TEST_VERS, nc);
	ck_assert(svc_reg(x, prog, TEST_VERS, echo_dispatch, nc));
	/* rpcb_set for tcp reaches libtirpc's (it converts the address). */
	ck_assert(rpcb_set(prog, TEST_VERS, nc, &x->xp_ltaddr));
	srv_start();
	cl = clnt_tp_create("127.0.0.1", prog, TEST_VERS, nc);
	ck_assert_msg(cl != NULL, "%s", clnt_spcreateerror("clnt_tp_create"));
	call_echo(cl, "rpcgen -n tcp");
	clnt_destroy(cl);
	srv_join();
	svc_unreg(prog, TEST_VERS);
	svc_destroy(x);
	freenetconfigent(nc);
}
END_TEST

/* Finds prog/vers/netid in libtirpc's own DUMP and copies its r_addr. */
static bool dump_find(rpcprog_t prog, rpcvers_t vers, const char *netid,
		      char *addr, size_t len)
{
	struct netconfig *nc = getnetconfigent("tcp");
	rpcblist *l, *p;
	bool found = false;

	l = rpcb_getmaps(nc, "127.0.0.1");
	for (p = l; p; p = p->rpcb_next) {
		if (p->rpcb_map.r_prog == prog && p->rpcb_map.r_vers == vers &&
		    strcmp(p->rpcb_map.r_netid, netid) == 0) {
			snprintf(addr, len, "%s", p->rpcb_map.r_addr);
			found = true;
		}
	}
	xdr_free((xdrproc_t)xdr_rpcblist_ptr, (char *)&l);
	freenetconfigent(nc);
	return found;
}

START_TEST(rpcb_set_lookup_unset)
{
	const rpcprog_t prog = 0x20000a04;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	char ua[64];
	uint16_t port = 0;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(20049);
	inet_pton(AF_INET, "10.99.0.2", &sin.sin_addr);
	ck_assert_int_eq(rpcrdma_rpcb_set(prog, TEST_VERS, "rdma",
					  (struct sockaddr *)&sin), 0);
	/* 20049 = 0x4e51: p1 = 0x4e = 78, p2 = 0x51 = 81 (RFC 5665). */
	ck_assert(dump_find(prog, TEST_VERS, "rdma", ua, sizeof(ua)));
	ck_assert_str_eq(ua, "10.99.0.2.78.81");
	ck_assert_int_eq(rpcrdma_rpcb_lookup("127.0.0.1", prog, TEST_VERS,
					     "rdma", &port), 0);
	ck_assert_uint_eq(port, 20049);
	/* A second SET replaces the first (UNSET is done before it). */
	sin.sin_port = htons(0x0102);
	ck_assert_int_eq(rpcrdma_rpcb_set(prog, TEST_VERS, "rdma",
					  (struct sockaddr *)&sin), 0);
	ck_assert(dump_find(prog, TEST_VERS, "rdma", ua, sizeof(ua)));
	ck_assert_str_eq(ua, "10.99.0.2.1.2");
	ck_assert_int_eq(rpcrdma_rpcb_lookup("localhost", prog, TEST_VERS,
					     "rdma", &port), 0);
	ck_assert_uint_eq(port, 0x0102);
	/* Filters: other version, other netid. */
	ck_assert_int_eq(rpcrdma_rpcb_lookup("127.0.0.1", prog, TEST_VERS + 1,
					     "rdma", &port), -ENOENT);
	ck_assert_int_eq(rpcrdma_rpcb_lookup("127.0.0.1", prog, TEST_VERS,
					     "rdma6", &port), -ENOENT);
	/* rdma6: "fe80::1" + ".18.52" for port 0x1234. */
	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons(0x1234);
	inet_pton(AF_INET6, "fe80::1", &sin6.sin6_addr);
	ck_assert_int_eq(rpcrdma_rpcb_set(prog, TEST_VERS, "rdma6",
					  (struct sockaddr *)&sin6), 0);
	ck_assert(dump_find(prog, TEST_VERS, "rdma6", ua, sizeof(ua)));
	ck_assert_str_eq(ua, "fe80::1.18.52");
	ck_assert_int_eq(rpcrdma_rpcb_lookup("127.0.0.1", prog, TEST_VERS,
					     "rdma6", &port), 0);
	ck_assert_uint_eq(port, 0x1234);

	/* libtirpc's rpcb_set name with our netconfig: ours. */
	{
		struct netconfig *nc = getnetconfigent("rdma");
		struct netbuf nb = { sizeof(sin), sizeof(sin), &sin };

		sin.sin_port = htons(0x0a0b);
		ck_assert(rpcb_set(prog, TEST_VERS + 1, nc, &nb));
		ck_assert(dump_find(prog, TEST_VERS + 1, "rdma", ua,
				    sizeof(ua)));
		ck_assert_str_eq(ua, "10.99.0.2.10.11");
		ck_assert(!rpcb_set(prog, TEST_VERS + 1, nc, NULL));
		ck_assert(rpcb_unset(prog, TEST_VERS + 1, nc));
		ck_assert(!dump_find(prog, TEST_VERS + 1, "rdma", ua,
				     sizeof(ua)));
	}
	ck_assert_int_eq(rpcrdma_rpcb_unset(prog, TEST_VERS, "rdma"), 0);
	ck_assert_int_eq(rpcrdma_rpcb_lookup("127.0.0.1", prog, TEST_VERS,
					     "rdma", &port), -ENOENT);
	ck_assert_int_eq(rpcrdma_rpcb_lookup("127.0.0.1", prog, TEST_VERS,
					     "rdma6", &port), 0);
	ck_assert_int_eq(rpcrdma_rpcb_unset(prog, TEST_VERS, "rdma6"), 0);
	ck_assert(!dump_find(prog, TEST_VERS, "rdma6", ua, sizeof(ua)));
	/* Nothing left to unset: rpcbind 1.2.6 still answers TRUE. */
	ck_assert_int_eq(rpcrdma_rpcb_unset(prog, TEST_VERS, "rdma6"), 0);
}
END_TEST

START_TEST(rpcb_errors)
{
	uint16_t port;
	struct sockaddr sa = { .sa_family = AF_UNIX };

	ck_assert_int_eq(rpcrdma_rpcb_set(1, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(rpcrdma_rpcb_set(1, 1, "rdma", NULL), -EINVAL);
	ck_assert_int_eq(rpcrdma_rpcb_set(1, 1, "rdma", &sa), -EAFNOSUPPORT);
	ck_assert_int_eq(rpcrdma_rpcb_unset(1, 1, NULL), -EINVAL);
	ck_assert_int_eq(rpcrdma_rpcb_lookup(NULL, 1, 1, "rdma", &port),
			 -EINVAL);
	ck_assert_int_eq(rpcrdma_rpcb_lookup("no-such-host.invalid", 1, 1,
					     "rdma", &port), -EHOSTUNREACH);
	/* Nobody listens on 111 there: refused, quickly. */
	if (rpcbind_pid < 0)
		ck_assert_int_lt(rpcrdma_rpcb_lookup("127.0.0.1", 1, 1, "rdma",
						     &port), 0);
}
END_TEST

/* ---- the private namespace and its rpcbind ---- */

static int lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), rc = -1;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return rc;
}

static bool rpcbind_answers(void)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(111);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

static const char *private_rpcbind(void)
{
	int i;

	if (geteuid() != 0)
		return "not root";
	if (access(RPCBIND_BIN, X_OK) != 0)
		return RPCBIND_BIN " not installed";
	if (unshare(CLONE_NEWNET | CLONE_NEWNS) != 0)
		return "unshare failed";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") != 0)
		return "private /run failed";
	if (lo_up() != 0)
		return "lo up failed";
	rpcbind_pid = fork();
	if (rpcbind_pid < 0)
		return "fork failed";
	if (rpcbind_pid == 0) {
		execl(RPCBIND_BIN, "rpcbind", "-f", (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 100; i++) {
		if (rpcbind_answers())
			return NULL;
		usleep(50000);
	}
	return "rpcbind did not start";
}

int main(void)
{
	const char *why = private_rpcbind();
	Suite *s = suite_create("netid");
	TCase *tc = tcase_create("netid");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, names_are_interposed);
	tcase_add_test(tc, sperror_passes_through);
	tcase_add_test(tc, netconfig_rdma);
	tcase_add_test(tc, netconfig_real);
	tcase_add_test(tc, forward_unknown_nettype);
	tcase_add_test(tc, rpcb_errors);
	suite_add_tcase(s, tc);
	if (!why) {
		tc = tcase_create("rpcbind");
		tcase_set_timeout(tc, 30);
		tcase_add_test(tc, tcp_svc_create_clnt_create);
		tcase_add_test(tc, tcp_tp_create_and_timed);
		tcase_add_test(tc, tcp_tli_create_svc_reg);
		tcase_add_test(tc, rpcb_set_lookup_unset);
		suite_add_tcase(s, tc);
	} else {
		printf("check_netid: SKIP the rpcbind cases: %s\n", why);
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (rpcbind_pid > 0) {
		kill(rpcbind_pid, SIGTERM);
		waitpid(rpcbind_pid, NULL, 0);
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
