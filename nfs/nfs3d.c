/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3d: a userspace NFSv3 server (RFC 1813) for one directory.
 *
 *   nfs3d [-a addr] [-p rdma_port] [-t tcp_port] [-m mount_port]
 *         [-T threads] [-n netids] [-o options] [-c client[(options)]]...
 *         [-k keyfile] [-M max_msg] [-R] [-v] DIR
 *
 * NFS version 3 is served over RPC-over-RDMA (netid "rdma", RFC 8166,
 * port 20049 by default, the port IANA assigned to NFS/RDMA) and over
 * TCP (port 2049), with the same dispatch code; MOUNT version 3 over TCP
 * (port 20048). Each is registered with rpcbind when it runs. The rdma
 * transports are served by a pool of threads (rpcrdma_svc_start), the
 * TCP ones by libtirpc's svc_run in the main thread; -T 0 serves both
 * with svc_run alone.
 *
 * Each call runs as its AUTH_SYS caller (cred.c), mapped by the export
 * options, as in exports(5) and with its defaults (access.c): -o gives
 * every client's (ro, rw, secure, insecure, root_squash, no_root_squash,
 * all_squash, anonuid=N, anongid=N; default ro, secure, root_squash,
 * 65534), -c names the clients (every host when absent), each with
 * options of its own on top. File handles carry a MAC keyed by the
 * export's key (mac.c; -k, default /var/lib/nfs3d/export-TAG.key).
 *
 * SIGUSR1 prints the counters (RPC-over-RDMA transport counters of the
 * process, NFS and MOUNT calls per procedure) on stdout; SIGTERM, SIGINT
 * and SIGHUP print them, unregister from rpcbind and exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "nfs3d.h"

static struct {
	const char *addr;
	uint16_t rdma_port, tcp_port, mount_port;
	unsigned int threads;
	uint32_t max_msg; /* -M, 0: the transport's default */
	bool rdma, tcp;
	bool no_rpcbind;
	bool pooled;
} cfg = {.rdma_port = 20049,
	 .tcp_port = 2049,
	 .mount_port = 20048,
	 .threads = 4,
	 .rdma = true,
	 .tcp = true};

static void usage(void)
{
	fprintf(stderr,
		"usage: nfs3d [-a addr] [-p rdma_port] [-t tcp_port] [-m "
		"mount_port]\n"
		"             [-T threads] [-n netids] [-o options]\n"
		"             [-c client[(options)]]... [-k keyfile] [-M max_msg]"
		" [-R] [-v] DIR\n"
		"  -a addr    listen on this address only (default: all)\n"
		"  -p port    NFS over rdma (default 20049)\n"
		"  -t port    NFS over tcp (default 2049)\n"
		"  -m port    MOUNT over tcp (default 20048)\n"
		"  -T n       threads serving rdma (default 4; 0: svc_run)\n"
		"  -n list    netids for NFS: rdma,tcp (default both)\n"
		"  -o opts    export options (exports(5)): ro, rw, secure,\n"
		"             insecure, root_squash, no_root_squash, all_squash,\n"
		"             anonuid=N, anongid=N (default ro, secure,\n"
		"             root_squash, 65534)\n"
		"  -c client  a client: *, an address, ADDR/PREFIX or a host\n"
		"             name, with (options) on top of -o's; repeat for\n"
		"             more, the first match counts (default: every\n"
		"             host)\n"
		"  -k file    the handles' key (default " NFS3D_KEYDIR
		"/export-TAG.key,\n"
		"             made at the first start)\n"
		"  -M bytes   largest RPC message over rdma (rtmax/wtmax follow)\n"
		"  -R         do not register with rpcbind\n"
		"  -v         log every call on stderr\n");
	exit(2);
}

static unsigned long id_arg(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v >= UINT32_MAX)
		usage();
	return v;
}

static uint16_t port_arg(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v == 0 || v > 65535)
		usage();
	return (uint16_t)v;
}

/* The transport counters, one "key=value" line per group (the guest
 * test reads them), then the calls per procedure. */
static void print_stats(FILE *f)
{
	struct rpcrdma_stats s;

	rpcrdma_stats_global(&s);
	fprintf(f,
		"nfs3d: rdma messages: recv_msg=%" PRIu64 " recv_nomsg=%" PRIu64
		" sent_msg=%" PRIu64 " sent_nomsg=%" PRIu64
		" sent_error=%" PRIu64 "\n",
		s.recv_msg, s.recv_nomsg, s.sent_msg, s.sent_nomsg,
		s.sent_error);
	fprintf(f,
		"nfs3d: rdma chunks: read_chunks=%" PRIu64
		" write_chunks=%" PRIu64 " reply_chunks=%" PRIu64
		" rdma_read_bytes=%" PRIu64 " rdma_write_bytes=%" PRIu64 "\n",
		s.read_chunks, s.write_chunks, s.reply_chunks,
		s.rdma_read_bytes, s.rdma_write_bytes);
	fprintf(f,
		"nfs3d: rdma other: remote_invalidations=%" PRIu64
		" credits_granted=%" PRIu64 " inflight_peak=%" PRIu64
		" connects=%" PRIu64 " disconnects=%" PRIu64
		" err_chunk_sent=%" PRIu64 " err_vers_sent=%" PRIu64
		" bad_headers=%" PRIu64 " garbage_args_sent=%" PRIu64
		" send_failures=%" PRIu64 " cred_changes=%" PRIu64
		" permission_errors=%" PRIu64 "\n",
		s.remote_invalidations, s.credits_granted, s.inflight_peak,
		s.connects, s.disconnects, s.err_chunk_sent, s.err_vers_sent,
		s.bad_headers, s.garbage_args_sent, s.send_failures,
		s.cred_changes, s.permission_errors);
	nfs3d_nfs_print(f);
	nfs3d_mount_print(f);
	nfs3d_files_print(f);
	fflush(f);
}

static void unregister(void)
{
	struct netconfig *nc;

	if (cfg.no_rpcbind)
		return;
	if ((nc = getnetconfigent("tcp"))) {
		rpcb_unset(NFS_PROGRAM, NFS_V3, nc);
		rpcb_unset(MOUNT_PROGRAM, MOUNT_V3, nc);
		freenetconfigent(nc);
	}
	if ((nc = getnetconfigent("rdma"))) {
		rpcb_unset(NFS_PROGRAM, NFS_V3, nc);
		freenetconfigent(nc);
	}
}

/* Signals are taken here, synchronously: every other thread blocks them. */
static void *signal_thread(void *arg)
{
	/* Half a second at most between sweeps of the open files: an idle
	 * server keeps none past their age (fcache.c). */
	const struct timespec half = {0, 500000000};
	sigset_t *set = arg;
	int sig;

	for (;;) {
		sig = sigtimedwait(set, NULL, &half);
		nfs3d_files_sweep();
		if (sig < 0)
			continue;
		print_stats(stdout);
		if (sig == SIGUSR1)
			continue;
		unregister();
		printf("nfs3d: stopped by signal %d\n", sig);
		fflush(stdout);
		/* The transports die with the process (the kernel reclaims
		 * queue pairs and registrations); no thread is waited for.
		 * Without rdma, exit() (LeakSanitizer runs then: the host
		 * test's check for leaks); with it, _exit: no library
		 * teardown behind the pool's running threads. */
		if (!cfg.rdma)
			exit(0);
		_exit(0);
	}
	return NULL;
}

/* A TCP listener on cfg.addr:port through libtirpc. */
static SVCXPRT *tcp_listener(struct netconfig *nc, uint16_t port)
{
	struct addrinfo hints, *ai;
	char service[8];
	struct t_bind tb;
	SVCXPRT *xprt;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	snprintf(service, sizeof(service), "%u", port);
	rc = getaddrinfo(cfg.addr, service, &hints, &ai);
	if (rc) {
		fprintf(stderr, "nfs3d: %s: %s\n", cfg.addr ? cfg.addr : "*",
			gai_strerror(rc));
		return NULL;
	}
	memset(&tb, 0, sizeof(tb));
	tb.addr.buf = ai->ai_addr;
	tb.addr.len = tb.addr.maxlen = ai->ai_addrlen;
	tb.qlen = 64;
	/* Buffers large enough for a 1 MiB READ or WRITE and its header. */
	xprt = svc_tli_create(RPC_ANYFD, nc, &tb, NFS3D_MAXIO + 4096,
			      NFS3D_MAXIO + 4096);
	freeaddrinfo(ai);
	return xprt;
}

static int serve_tcp(void)
{
	struct netconfig *nc = getnetconfigent("tcp");
	SVCXPRT *nfs = NULL, *mnt;

	if (!nc) {
		fprintf(stderr, "nfs3d: no tcp netid\n");
		return -1;
	}
	if (!cfg.no_rpcbind) {
		rpcb_unset(NFS_PROGRAM, NFS_V3, nc);
		rpcb_unset(MOUNT_PROGRAM, MOUNT_V3, nc);
	}
	if (cfg.tcp) {
		nfs = tcp_listener(nc, cfg.tcp_port);
		if (!nfs) {
			fprintf(stderr, "nfs3d: NFS over tcp port %u: %s\n",
				cfg.tcp_port, clnt_spcreateerror("listen"));
			return -1;
		}
		if (!svc_reg(nfs, NFS_PROGRAM, NFS_V3, nfs3d_nfs_program,
			     cfg.no_rpcbind ? NULL : nc)) {
			fprintf(stderr, "nfs3d: NFS over tcp not registered "
					"with rpcbind (is it running?)\n");
			if (!svc_reg(nfs, NFS_PROGRAM, NFS_V3,
				     nfs3d_nfs_program, NULL))
				return -1;
		}
	}
	mnt = tcp_listener(nc, cfg.mount_port);
	if (!mnt) {
		fprintf(stderr, "nfs3d: MOUNT over tcp port %u: %s\n",
			cfg.mount_port, clnt_spcreateerror("listen"));
		return -1;
	}
	if (!svc_reg(mnt, MOUNT_PROGRAM, MOUNT_V3, nfs3d_mount_program,
		     cfg.no_rpcbind ? NULL : nc)) {
		fprintf(stderr, "nfs3d: MOUNT not registered with rpcbind\n");
		if (!svc_reg(mnt, MOUNT_PROGRAM, MOUNT_V3, nfs3d_mount_program,
			     NULL))
			return -1;
	}
	freenetconfigent(nc);
	return 0;
}

static int serve_rdma(void)
{
	struct netconfig *nc = getnetconfigent("rdma");
	struct rpcrdma_opts o;
	SVCXPRT *xprt;

	if (nc) {
		if (!cfg.no_rpcbind)
			rpcb_unset(NFS_PROGRAM, NFS_V3, nc);
		freenetconfigent(nc);
	}
	rpcrdma_opts_default(&o);
	o.port = cfg.rdma_port;
	if (cfg.max_msg)
		o.max_msg = cfg.max_msg;
	xprt = svc_rdma_create(cfg.addr, &o);
	if (!xprt) {
		fprintf(stderr, "nfs3d: NFS over rdma port %u: %s\n",
			cfg.rdma_port, clnt_spcreateerror("svc_rdma_create"));
		return -1;
	}
	/* svc_reg, plus rpcbind's SET under "rdma" when rpcbind runs. */
	if (cfg.no_rpcbind
		? !svc_reg(xprt, NFS_PROGRAM, NFS_V3, nfs3d_nfs_program, NULL)
		: !rpcrdma_svc_reg(xprt, NFS_PROGRAM, NFS_V3,
				   nfs3d_nfs_program)) {
		fprintf(stderr, "nfs3d: NFS over rdma not registered\n");
		return -1;
	}
	return 0;
}

static void log_line(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "nfs3d: %s\n", line);
}

int main(int argc, char **argv)
{
	static sigset_t sigs;
	pthread_t sigthr;
	const char *clients[NFS3D_MAX_CLIENTS];
	unsigned int nclients = 0;
	char *list, *tok, *save;
	int c, rc;

	while ((c = getopt(argc, argv, "a:p:t:m:T:n:o:c:k:M:Rvh")) != -1) {
		switch (c) {
		case 'a':
			cfg.addr = optarg;
			break;
		case 'p':
			cfg.rdma_port = port_arg(optarg);
			break;
		case 't':
			cfg.tcp_port = port_arg(optarg);
			break;
		case 'm':
			cfg.mount_port = port_arg(optarg);
			break;
		case 'T':
			cfg.threads = (unsigned int)strtoul(optarg, &tok, 10);
			if (*tok || !*optarg ||
			    cfg.threads > RPCRDMA_SVC_MAX_THREADS)
				usage();
			break;
		case 'n':
			cfg.rdma = cfg.tcp = false;
			list = strdup(optarg);
			for (tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (strcmp(tok, "rdma") == 0)
					cfg.rdma = true;
				else if (strcmp(tok, "tcp") == 0)
					cfg.tcp = true;
				else
					usage();
			}
			free(list);
			break;
		case 'o':
			if (nfs3d_opts_parse(optarg, &nfs3d_exp.opts) < 0)
				usage();
			break;
		case 'c':
			/* After every -o: a client's options start from them. */
			if (nclients == NFS3D_MAX_CLIENTS)
				usage();
			clients[nclients++] = optarg;
			break;
		case 'k':
			nfs3d_exp.keyfile = optarg;
			break;
		case 'M':
			cfg.max_msg = (uint32_t)id_arg(optarg);
			break;
		case 'R':
			cfg.no_rpcbind = true;
			break;
		case 'v':
			nfs3d_exp.verbose = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	for (unsigned int i = 0; i < nclients; i++) {
		rc = nfs3d_client_add(clients[i]);
		if (rc < 0) {
			fprintf(stderr, "nfs3d: -c %s: %s\n", clients[i],
				rc == -EHOSTUNREACH ? "no such host"
				: rc == -EINVAL	    ? "not a client or options"
						    : strerror(-rc));
			return 2;
		}
	}

	/* Modes and sizes come from the clients' sattr3, not our umask. */
	umask(0);
	signal(SIGPIPE, SIG_IGN);
	rc = nfs3d_cred_init();
	if (rc < 0) {
		fprintf(stderr, "nfs3d: groups: %s\n", strerror(-rc));
		return 1;
	}
	rc = nfs3d_export_init(argv[optind]);
	if (rc < 0) {
		fprintf(stderr, "nfs3d: cannot export %s: %s\n", argv[optind],
			rc == -EXDEV ? "the handles' key (-k) is in the export"
			: rc == -EPERM ? "the handles' key (-k) or its directory"
					 " may be read or replaced by others"
			: strerror(-rc));
		return 1;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	/* Before any thread starts, so that all of them inherit the mask. */
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	if (pthread_create(&sigthr, NULL, signal_thread, &sigs) != 0) {
		fprintf(stderr, "nfs3d: no signal thread\n");
		return 1;
	}
	/* What the transport does on its own (a connection it closes, and
	 * why) goes to stderr, with the server's other messages. */
	rpcrdma_set_log(log_line, NULL);
	if (serve_tcp() < 0 || (cfg.rdma && serve_rdma() < 0)) {
		unregister();
		return 1;
	}
	if (cfg.rdma && cfg.threads) {
		/* The serving threads never switch credentials: a call that
		 * runs as its caller runs on a companion (cred.c). */
		(void)rpcrdma_svc_cred_check(false);
		rc = rpcrdma_svc_start(cfg.threads);
		if (rc < 0) {
			fprintf(stderr, "nfs3d: thread pool: %s\n",
				strerror(-rc));
			unregister();
			return 1;
		}
		cfg.pooled = true;
	}
	printf("nfs3d: serving %s: NFSv3", nfs3d_exp.path);
	if (cfg.rdma)
		printf(" over rdma port %u (%s, %u threads)", cfg.rdma_port,
		       cfg.pooled ? "rpcrdma_svc_run" : "svc_run",
		       cfg.pooled ? cfg.threads : 1);
	if (cfg.tcp)
		printf(" over tcp port %u (svc_run)", cfg.tcp_port);
	printf(", MOUNT v3 over tcp port %u\n", cfg.mount_port);
	nfs3d_access_print(stdout);
	fflush(stdout);
	svc_run();
	fprintf(stderr, "nfs3d: svc_run returned\n");
	unregister();
	return 1;
}
