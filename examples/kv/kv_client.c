/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kv_client: talks to kv_server through rpcgen's client stubs (kv_clnt.c).
 *
 *   kv_client [-n netid] [-p port] [-t seconds] [-q] host COMMAND
 *     null | put KEY FILE | get KEY [OUTFILE] | del KEY | list | stat |
 *     bench N SIZE | watch SECONDS
 *
 * The CLIENT comes from clnt_create(host, KVPROG, KVVERS, netid): with
 * -lrpcrdma linked before -ltirpc, "rdma" gives an RPC-over-RDMA client,
 * "tcp" libtirpc's. Over rdma the client's transport counters (from
 * clnt_control(CLGET_RDMA_STATS)) show which path each call took: inline
 * (RDMA_MSG), a value in a read chunk at its position or a Long Call
 * (RDMA_NOMSG with a position-zero read chunk), a GET's value written
 * into the write chunk its DDP hint offers, or a Long Reply (the reply
 * written into the reply chunk), RFC 8166 3.5.
 * In the guest, RPCRDMA_SRCADDR gives the client's source address.
 */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "kv.h"
#include "kv_util.h"

static struct {
	CLIENT *cl;
	const char *host;
	const char *netid;
	bool rdma;
	bool quiet;
	FILE *info;		/* stdout, or stderr while stdout has data */
	struct rpcrdma_stats before;
} c;

static void usage(void)
{
	fprintf(stderr,
		"usage: kv_client [-n netid] [-p port] [-t seconds] [-q] host COMMAND\n"
		"  null                 ping the server\n"
		"  put KEY FILE         store FILE's bytes (FILE - reads stdin)\n"
		"  get KEY [OUTFILE]    fetch a value (to stdout without OUTFILE)\n"
		"  del KEY              delete a key\n"
		"  list                 keys and value sizes\n"
		"  stat                 the server's counts\n"
		"  bench N SIZE         N puts then N gets of SIZE bytes (k, m ok)\n"
		"  watch SECONDS        print the changes the server calls back\n"
		"                       with for SECONDS (rdma only)\n"
		"  -n netid  rdma (default), rdma6, tcp, udp...\n"
		"  -p port   server port (rdma: RPCRDMA_PORT; default: rpcbind)\n"
		"  -t secs   call timeout (default 25)\n"
		"  -q        do not print the transport counters\n");
	exit(2);
}

static const char *status_str(kv_status s)
{
	switch (s) {
	case KV_OK:
		return "ok";
	case KV_NOTFOUND:
		return "not found";
	case KV_NOSPACE:
		return "no space";
	case KV_BADKEY:
		return "bad key";
	case KV_NOTSUPP:
		return "not supported";
	}
	return "unknown status";
}

static void stats_get(struct rpcrdma_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (c.rdma && !clnt_control(c.cl, CLGET_RDMA_STATS, (char *)s))
		fprintf(stderr, "kv_client: CLGET_RDMA_STATS failed\n");
}

static void op_begin(void)
{
	stats_get(&c.before);
}

/* Says which RFC 8166 path the calls since op_begin() took. */
static void op_end(const char *what)
{
	struct rpcrdma_stats a;
	uint64_t ci, cl, cr, ri, rl, rw;

	if (!c.rdma || c.quiet)
		return;
	stats_get(&a);
	ci = a.calls_inline - c.before.calls_inline;
	cl = a.calls_long - c.before.calls_long;
	cr = a.calls_read_chunks - c.before.calls_read_chunks;
	ri = a.replies_inline - c.before.replies_inline;
	rl = a.replies_long - c.before.replies_long;
	rw = a.replies_write_chunks - c.before.replies_write_chunks;
	fprintf(c.info, "kv_client: %s path:", what);
	if (ci)
		fprintf(c.info, " %" PRIu64 " inline call%s (RDMA_MSG)", ci,
			ci > 1 ? "s" : "");
	if (cr)
		fprintf(c.info, " %" PRIu64 " call%s with read chunks", cr,
			cr > 1 ? "s" : "");
	if (cl)
		fprintf(c.info, " %" PRIu64 " long call%s (RDMA_NOMSG + "
			"position-zero read chunk)", cl, cl > 1 ? "s" : "");
	fprintf(c.info, ";");
	if (ri)
		fprintf(c.info, " %" PRIu64 " inline repl%s (RDMA_MSG)", ri,
			ri > 1 ? "ies" : "y");
	if (rw)
		fprintf(c.info, " %" PRIu64 " repl%s with write chunks", rw,
			rw > 1 ? "ies" : "y");
	if (rl)
		fprintf(c.info, " %" PRIu64 " long repl%s (RDMA_NOMSG, "
			"reply chunk)", rl, rl > 1 ? "ies" : "y");
	fprintf(c.info, "\n");
}

static void print_totals(void)
{
	struct rpcrdma_stats s;

	if (!c.rdma || c.quiet)
		return;
	stats_get(&s);
	kv_print_rdma_stats(c.info, "kv_client: rdma counters", &s);
}

static int call_failed(const char *what)
{
	fprintf(stderr, "kv_client: %s: %s\n", what,
		clnt_sperror(c.cl, c.host));
	return 1;
}

/* Reads a whole file (or stdin for "-") into a malloc'd buffer. */
static int read_file(const char *path, char **buf, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 65536, n = 0, r;
	char *b, *nb;

	if (!f)
		return -errno;
	b = malloc(cap);
	if (!b)
		goto out_nomem;
	while ((r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			if (cap > (size_t)UINT32_MAX / 2)
				goto out_big;
			nb = realloc(b, cap * 2);
			if (!nb)
				goto out_nomem;
			b = nb;
			cap *= 2;
		}
	}
	if (ferror(f)) {
		free(b);
		if (f != stdin)
			fclose(f);
		return -EIO;
	}
	if (f != stdin)
		fclose(f);
	*buf = b;
	*len = n;
	return 0;
out_big:
	free(b);
	if (f != stdin)
		fclose(f);
	return -EFBIG;
out_nomem:
	free(b);
	if (f != stdin)
		fclose(f);
	return -ENOMEM;
}

static int cmd_null(void)
{
	op_begin();
	if (!kvproc_null_1(NULL, c.cl))
		return call_failed("null");
	fprintf(c.info, "kv_client: null: the server answered\n");
	op_end("null");
	return 0;
}

static int do_put(char *key, char *val, size_t len, bool verbose)
{
	kv_putargs a;
	kv_status *st;

	a.key = key;
	a.value.kv_val_val = val;
	a.value.kv_val_len = (u_int)len;
	st = kvproc_put_1(&a, c.cl);
	if (!st)
		return call_failed("put");
	if (*st != KV_OK) {
		fprintf(stderr, "kv_client: put %s: %s\n", key,
			status_str(*st));
		return 1;
	}
	if (verbose)
		fprintf(c.info, "kv_client: put %s: %zu bytes, crc32 %08x: ok\n",
			key, len, kv_crc32(val, len));
	return 0;
}

static int cmd_put(char *key, const char *file)
{
	size_t len = 0;
	char *val = NULL;
	int rc;

	rc = read_file(file, &val, &len);
	if (rc) {
		fprintf(stderr, "kv_client: %s: %s\n", file, strerror(-rc));
		return 1;
	}
	op_begin();
	rc = do_put(key, val, len, true);
	if (!rc)
		op_end("put");
	free(val);
	return rc;
}

static int cmd_get(char *key, const char *out)
{
	kv_getres *r;
	FILE *f = NULL;
	u_int len;
	int rc = 0;

	if (!out)
		c.info = stderr;	/* stdout carries the value */
	op_begin();
	r = kvproc_get_1(&key, c.cl);
	if (!r)
		return call_failed("get");
	if (r->status != KV_OK) {
		fprintf(stderr, "kv_client: get %s: %s\n", key,
			status_str(r->status));
		clnt_freeres(c.cl, (xdrproc_t)xdr_kv_getres, (caddr_t)r);
		return 1;
	}
	len = r->kv_getres_u.value.kv_val_len;
	if (out) {
		f = fopen(out, "wb");
		if (!f) {
			fprintf(stderr, "kv_client: %s: %s\n", out,
				strerror(errno));
			rc = 1;
		}
	}
	if (!rc && len &&
	    fwrite(r->kv_getres_u.value.kv_val_val, 1, len, f ? f : stdout) !=
		    len)
		rc = 1;
	if (f && fclose(f))
		rc = 1;
	if (rc == 0) {
		fprintf(c.info, "kv_client: get %s: %u bytes, crc32 %08x%s%s\n",
			key, len, kv_crc32(r->kv_getres_u.value.kv_val_val, len),
			out ? ", written to " : "", out ? out : "");
		op_end("get");
	} else {
		fprintf(stderr, "kv_client: get %s: writing the value failed\n",
			key);
	}
	clnt_freeres(c.cl, (xdrproc_t)xdr_kv_getres, (caddr_t)r);
	return rc;
}

static int cmd_del(char *key)
{
	kv_status *st;

	op_begin();
	st = kvproc_del_1(&key, c.cl);
	if (!st)
		return call_failed("del");
	if (*st != KV_OK) {
		fprintf(stderr, "kv_client: del %s: %s\n", key,
			status_str(*st));
		return 1;
	}
	fprintf(c.info, "kv_client: del %s: ok\n", key);
	op_end("del");
	return 0;
}

static int cmd_list(void)
{
	kv_listres *r;
	u_int i;

	op_begin();
	r = kvproc_list_1(NULL, c.cl);
	if (!r)
		return call_failed("list");
	fprintf(c.info, "kv_client: list: %u key%s\n", r->entries.entries_len,
		r->entries.entries_len == 1 ? "" : "s");
	for (i = 0; i < r->entries.entries_len; i++)
		fprintf(c.info, "  %-32s %10" PRIu64 " bytes\n",
			r->entries.entries_val[i].key,
			(uint64_t)r->entries.entries_val[i].size);
	op_end("list");
	clnt_freeres(c.cl, (xdrproc_t)xdr_kv_listres, (caddr_t)r);
	return 0;
}

static int cmd_stat(void)
{
	kv_statres *r;

	op_begin();
	r = kvproc_stat_1(NULL, c.cl);
	if (!r)
		return call_failed("stat");
	fprintf(c.info, "kv_client: stat: %" PRIu64 " keys, %" PRIu64
		" bytes (limit %" PRIu64 "), largest %" PRIu64 "; served %"
		PRIu64 " puts, %" PRIu64 " gets, %" PRIu64 " dels, %" PRIu64
		" lists\n", (uint64_t)r->keys, (uint64_t)r->bytes,
		(uint64_t)r->limit, (uint64_t)r->largest, (uint64_t)r->puts,
		(uint64_t)r->gets, (uint64_t)r->dels, (uint64_t)r->lists);
	op_end("stat");
	return 0;
}

/*
 * KVCBPROC_CHANGED, called back by the server over this client's own
 * connection (RFC 8167): librpcrdma's service thread runs it.
 */
static void kvcb_dispatch(struct svc_req *rq, SVCXPRT *x)
{
	kv_change chg;

	switch (rq->rq_proc) {
	case NULLPROC:
		svc_sendreply(x, (xdrproc_t)(void (*)(void))xdr_void, NULL);
		return;
	case KVCBPROC_CHANGED:
		memset(&chg, 0, sizeof(chg));
		if (!svc_getargs(x, (xdrproc_t)xdr_kv_change, (caddr_t)&chg)) {
			svcerr_decode(x);
			return;
		}
		printf("kv_client: changed %s: %s, %" PRIu64 " bytes\n",
		       chg.key, chg.op == KV_OP_PUT ? "put" : "del",
		       (uint64_t)chg.size);
		fflush(stdout);
		svc_sendreply(x, (xdrproc_t)(void (*)(void))xdr_void, NULL);
		svc_freeargs(x, (xdrproc_t)xdr_kv_change, (caddr_t)&chg);
		return;
	default:
		svcerr_noproc(x);
	}
}

static int cmd_watch(unsigned long secs)
{
	kv_status *r;

	if (!c.rdma ||
	    !rpcrdma_clnt_svc_reg(c.cl, KVCBPROG, KVCBVERS, kvcb_dispatch)) {
		fprintf(stderr, "kv_client: watch: callbacks need rdma\n");
		return 1;
	}
	r = kvproc_subscribe_1(NULL, c.cl);
	if (!r)
		return call_failed("subscribe");
	if (*r != KV_OK) {
		fprintf(stderr, "kv_client: subscribe: %s\n", status_str(*r));
		return 1;
	}
	printf("kv_client: watching for %lu s\n", secs);
	fflush(stdout);
	sleep((unsigned int)secs);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void rate(const char *what, unsigned long n, size_t size, double t)
{
	if (t <= 0)
		t = 1e-9;
	fprintf(c.info, "kv_client: bench %s: %lu x %zu bytes in %.3f s: "
		"%.0f ops/s, %.2f MB/s\n", what, n, size, t, (double)n / t,
		(double)n * (double)size / t / 1e6);
}

/* N puts of SIZE bytes to keys bench.0..bench.15, then N gets, each value
 * checked byte for byte, then the keys are deleted. */
static int cmd_bench(unsigned long n, size_t size)
{
	char key[32], *val;
	kv_getres *r;
	unsigned long i;
	double t;
	size_t j;
	int rc = 0;

	val = malloc(size ? size : 1);
	if (!val)
		return 1;
	op_begin();
	t = now();
	for (i = 0; i < n && !rc; i++) {
		snprintf(key, sizeof(key), "bench.%lu", i % 16);
		for (j = 0; j < size; j++)
			val[j] = (char)(i * 31 + j);
		rc = do_put(key, val, size, false);
	}
	if (rc)
		goto out;
	rate("put", n, size, now() - t);
	t = now();
	for (i = 0; i < n && !rc; i++) {
		char *k = key;

		/* The value of key i % 16 was last written by put n - 16.. */
		snprintf(key, sizeof(key), "bench.%lu", i % 16);
		r = kvproc_get_1(&k, c.cl);
		if (!r) {
			rc = call_failed("get");
			break;
		}
		if (r->status != KV_OK ||
		    r->kv_getres_u.value.kv_val_len != size) {
			fprintf(stderr, "kv_client: bench get %s: %s, %u bytes\n",
				key, status_str(r->status),
				r->kv_getres_u.value.kv_val_len);
			rc = 3;
		} else {
			unsigned long w = i % 16 + (n - 1 - (n - 1) % 16);

			if (w >= n)
				w -= 16;
			for (j = 0; j < size; j++)
				val[j] = (char)(w * 31 + j);
			if (memcmp(val, r->kv_getres_u.value.kv_val_val, size)) {
				fprintf(stderr, "kv_client: bench get %s: "
					"content differs\n", key);
				rc = 3;
			}
		}
		clnt_freeres(c.cl, (xdrproc_t)xdr_kv_getres, (caddr_t)r);
	}
	if (rc)
		goto out;
	rate("get", n, size, now() - t);
	for (i = 0; i < n && i < 16 && !rc; i++) {
		char *k = key;
		kv_status *st;

		snprintf(key, sizeof(key), "bench.%lu", i);
		st = kvproc_del_1(&k, c.cl);
		if (!st)
			rc = call_failed("del");
	}
	if (!rc) {
		fprintf(c.info, "kv_client: bench: %lu values checked byte for "
			"byte\n", n);
		op_end("bench");
	}
out:
	free(val);
	return rc;
}

static int parse_size(const char *s, size_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	if (*end == 'k' || *end == 'K') {
		v *= 1024;
		end++;
	} else if (*end == 'm' || *end == 'M') {
		v *= 1024 * 1024;
		end++;
	}
	if (*end || v > UINT32_MAX)
		return -1;
	*out = (size_t)v;
	return 0;
}

/* A CLIENT for host:port without rpcbind (netids other than rdma). */
static CLIENT *create_at_port(const char *port)
{
	struct netconfig *nc = getnetconfigent(c.netid);
	struct addrinfo hints, *ai;
	struct netbuf nb;
	CLIENT *cl;

	if (!nc)
		return NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = strcmp(nc->nc_protofmly, "inet6") == 0 ? AF_INET6 :
								     AF_INET;
	hints.ai_socktype = nc->nc_semantics == NC_TPI_CLTS ? SOCK_DGRAM :
							      SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (getaddrinfo(c.host, port, &hints, &ai)) {
		freenetconfigent(nc);
		return NULL;
	}
	nb.buf = ai->ai_addr;
	nb.len = nb.maxlen = ai->ai_addrlen;
	cl = clnt_tli_create(RPC_ANYFD, nc, &nb, KVPROG, KVVERS, 0, 0);
	freeaddrinfo(ai);
	freenetconfigent(nc);
	return cl;
}

int main(int argc, char **argv)
{
	const char *port = NULL, *cmd;
	struct timeval tv = { 25, 0 };
	unsigned long n;
	size_t size;
	char *end;
	int opt, rc;

	c.netid = "rdma";
	c.info = stdout;
	while ((opt = getopt(argc, argv, "+n:p:t:qh")) != -1) {
		switch (opt) {
		case 'n':
			c.netid = optarg;
			break;
		case 'p':
			port = optarg;
			break;
		case 't':
			tv.tv_sec = strtol(optarg, &end, 10);
			if (*end || tv.tv_sec <= 0)
				usage();
			break;
		case 'q':
			c.quiet = true;
			break;
		default:
			usage();
		}
	}
	if (argc - optind < 2)
		usage();
	c.host = argv[optind++];
	cmd = argv[optind++];
	argc -= optind;
	argv += optind;
	c.rdma = strncmp(c.netid, "rdma", 4) == 0;

	if (port && c.rdma)
		setenv("RPCRDMA_PORT", port, 1);
	if (port && !c.rdma)
		c.cl = create_at_port(port);
	else
		c.cl = clnt_create(c.host, KVPROG, KVVERS, c.netid);
	if (!c.cl) {
		clnt_pcreateerror("kv_client");
		return 1;
	}
	clnt_control(c.cl, CLSET_TIMEOUT, (char *)&tv);
	if (c.rdma) {
		/* A GET's value goes straight into a write chunk (direct
		 * data placement) rather than with the reply. */
		struct rpcrdma_proc_ddp d = { KVPROC_GET, 1, 0 };

		if (clnt_control(c.cl, CLGET_RDMA_MAX_MSG,
				 (char *)&d.item_max))
			clnt_control(c.cl, CLSET_RDMA_PROC_DDP, (char *)&d);
	}
	/* Without OUTFILE, get's stdout is the value alone. */
	if (!c.quiet && (strcmp(cmd, "get") != 0 || argc == 2))
		fprintf(c.info, "kv_client: connected to %s over %s\n", c.host,
			c.netid);

	if (!strcmp(cmd, "null") && argc == 0) {
		rc = cmd_null();
	} else if (!strcmp(cmd, "put") && argc == 2) {
		rc = cmd_put(argv[0], argv[1]);
	} else if (!strcmp(cmd, "get") && (argc == 1 || argc == 2)) {
		rc = cmd_get(argv[0], argc == 2 ? argv[1] : NULL);
	} else if (!strcmp(cmd, "del") && argc == 1) {
		rc = cmd_del(argv[0]);
	} else if (!strcmp(cmd, "list") && argc == 0) {
		rc = cmd_list();
	} else if (!strcmp(cmd, "stat") && argc == 0) {
		rc = cmd_stat();
	} else if (!strcmp(cmd, "watch") && argc == 1) {
		n = strtoul(argv[0], &end, 10);
		if (*end || !*argv[0])
			usage();
		rc = cmd_watch(n);
	} else if (!strcmp(cmd, "bench") && argc == 2) {
		n = strtoul(argv[0], &end, 10);
		if (*end || !n || parse_size(argv[1], &size))
			usage();
		rc = cmd_bench(n, size);
	} else {
		usage();
	}
	print_totals();
	clnt_destroy(c.cl);
	return rc;
}
