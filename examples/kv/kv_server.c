/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kv_server: the key-value store of kv.x, served over any netid.
 *
 *   kv_server [-n netid] [-a addr] [-p port] [-m limit_bytes] [-q]
 *
 * The transport comes from libtirpc's own creators: svc_tp_create() with
 * getnetconfigent(netid). Linked with -lrpcrdma before -ltirpc, the netid
 * "rdma" (or "rdma6") is served by librpcrdma; every other netid ("tcp",
 * "udp", ...) by libtirpc. The program code is the same for all of them.
 * The dispatch function kvprog_1() is rpcgen's (kv_svc.c, rpcgen -m).
 *
 * With -a or -p the listener is bound explicitly: over "rdma" through
 * svc_rdma_create() (and RPCRDMA_PORT), otherwise svc_tli_create(); both
 * are then registered with svc_reg(), which tells rpcbind.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "kv.h"
#include "kv_util.h"

/* rpcgen -m emits the dispatch function without a prototype. */
void kvprog_1(struct svc_req *rqstp, SVCXPRT *transp);

#define KV_BUCKETS	1024u
#define KV_DEFAULT_LIMIT (1ull << 30)	/* 1 GiB of values */

struct kv_item {
	struct kv_item *next;
	char *key;
	char *val;
	u_int len;
};

static struct {
	struct kv_item *bucket[KV_BUCKETS];
	kv_statres st;
	bool quiet;
	bool rdma;
	/* Results live until the next call of the same procedure (rpcgen's
	 * non-MT convention: the dispatcher sends them, nobody frees them). */
	kv_entry *list_buf;
} kv;

static void logf_req(struct svc_req *rq, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void logf_req(struct svc_req *rq, const char *fmt, ...)
{
	va_list ap;

	if (kv.quiet)
		return;
	printf("kv_server: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	(void)rq;
}

/*
 * Subscribers (KVPROC_SUBSCRIBE, rdma only): a callback CLIENT on each
 * subscribed connection. svc_run serves every connection from this one
 * thread, so the notifications go out from a thread of their own: a
 * callback waits for its reply, which svc_run receives.
 */
#define KV_MAX_SUBS	64
struct kv_note {
	struct kv_note *next;
	kv_change chg;
};
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	CLIENT *subs[KV_MAX_SUBS];
	unsigned int nsubs;
	struct kv_note *head, *tail;
	bool started;
} notes = { .lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static void *notifier_main(void *arg)
{
	struct timeval tmo = { 5, 0 };

	(void)arg;
	pthread_mutex_lock(&notes.lock);
	for (;;) {
		struct kv_note *n;

		while (!notes.head)
			pthread_cond_wait(&notes.cv, &notes.lock);
		n = notes.head;
		notes.head = n->next;
		if (!notes.head)
			notes.tail = NULL;
		for (unsigned int i = 0; i < notes.nsubs;) {
			CLIENT *cb = notes.subs[i];
			enum clnt_stat st;

			pthread_mutex_unlock(&notes.lock);
			st = clnt_call(cb, KVCBPROC_CHANGED,
				       (xdrproc_t)xdr_kv_change,
				       (caddr_t)&n->chg,
				       (xdrproc_t)(void (*)(void))xdr_void,
				       NULL, tmo);
			pthread_mutex_lock(&notes.lock);
			if (st == RPC_CANTSEND || st == RPC_CANTRECV) {
				/* Its connection is gone. */
				if (!kv.quiet)
					printf("kv_server: subscriber %u gone "
					       "(%s)\n", i, clnt_sperrno(st));
				clnt_destroy(cb);
				notes.subs[i] = notes.subs[--notes.nsubs];
				continue;
			}
			i++;
		}
		free(n->chg.key);
		free(n);
	}
	return NULL;
}

/* Queues a notification of key's change for the subscribers. */
static void kv_notify(const char *key, kv_op op, uint64_t size)
{
	struct kv_note *n;

	pthread_mutex_lock(&notes.lock);
	if (notes.nsubs && (n = calloc(1, sizeof(*n))) &&
	    (n->chg.key = strdup(key))) {
		n->chg.op = op;
		n->chg.size = size;
		if (notes.tail)
			notes.tail->next = n;
		else
			notes.head = n;
		notes.tail = n;
		pthread_cond_signal(&notes.cv);
	}
	pthread_mutex_unlock(&notes.lock);
}

static struct kv_item **kv_slot(const char *key)
{
	struct kv_item **pp;

	pp = &kv.bucket[kv_hash(key) % KV_BUCKETS];
	while (*pp && strcmp((*pp)->key, key) != 0)
		pp = &(*pp)->next;
	return pp;
}

void *kvproc_null_1_svc(void *arg, struct svc_req *rq)
{
	static char dummy;

	(void)arg;
	logf_req(rq, "NULL");
	return &dummy;
}

kv_status *kvproc_put_1_svc(kv_putargs *a, struct svc_req *rq)
{
	static kv_status res;
	struct kv_item **pp, *it;
	uint64_t old = 0;

	kv.st.puts++;
	if (!a->key || !a->key[0]) {
		res = KV_BADKEY;
		return &res;
	}
	pp = kv_slot(a->key);
	if (*pp)
		old = (*pp)->len;
	if (kv.st.bytes - old + a->value.kv_val_len > kv.st.limit) {
		logf_req(rq, "PUT %s: %u bytes refused (limit %" PRIu64 ")",
			 a->key, a->value.kv_val_len, (uint64_t)kv.st.limit);
		res = KV_NOSPACE;
		return &res;
	}
	it = *pp;
	if (!it) {
		it = calloc(1, sizeof(*it));
		if (!it) {
			res = KV_NOSPACE;
			return &res;
		}
		/* Take the decoded key; svc_freeargs skips a NULL pointer. */
		it->key = a->key;
		a->key = NULL;
		*pp = it;
		kv.st.keys++;
	} else {
		free(it->val);
	}
	/* The value buffer XDR allocated becomes the stored one: no copy. */
	it->val = a->value.kv_val_val;
	it->len = a->value.kv_val_len;
	a->value.kv_val_val = NULL;
	a->value.kv_val_len = 0;
	kv.st.bytes = kv.st.bytes - old + it->len;
	if (it->len > kv.st.largest)
		kv.st.largest = it->len;
	logf_req(rq, "PUT %s: %u bytes, crc32 %08x", it->key, it->len,
		 kv_crc32(it->val, it->len));
	kv_notify(it->key, KV_OP_PUT, it->len);
	res = KV_OK;
	return &res;
}

kv_getres *kvproc_get_1_svc(kv_key *key, struct svc_req *rq)
{
	static kv_getres res;
	struct kv_item *it;

	kv.st.gets++;
	memset(&res, 0, sizeof(res));
	it = *kv_slot(*key);
	if (!it) {
		logf_req(rq, "GET %s: not found", *key);
		res.status = KV_NOTFOUND;
		return &res;
	}
	/* The reply is encoded straight from the stored bytes. */
	res.status = KV_OK;
	res.kv_getres_u.value.kv_val_val = it->val;
	res.kv_getres_u.value.kv_val_len = it->len;
	logf_req(rq, "GET %s: %u bytes, crc32 %08x", *key, it->len,
		 kv_crc32(it->val, it->len));
	return &res;
}

kv_status *kvproc_del_1_svc(kv_key *key, struct svc_req *rq)
{
	static kv_status res;
	struct kv_item **pp = kv_slot(*key), *it = *pp;

	kv.st.dels++;
	if (!it) {
		logf_req(rq, "DEL %s: not found", *key);
		res = KV_NOTFOUND;
		return &res;
	}
	*pp = it->next;
	kv.st.keys--;
	kv.st.bytes -= it->len;
	logf_req(rq, "DEL %s: %u bytes freed", it->key, it->len);
	kv_notify(it->key, KV_OP_DEL, 0);
	free(it->key);
	free(it->val);
	free(it);
	res = KV_OK;
	return &res;
}

/* Changes come back to this client by callback on its connection. */
kv_status *kvproc_subscribe_1_svc(void *arg, struct svc_req *rq)
{
	static kv_status res;
	pthread_t th;
	CLIENT *cb;

	(void)arg;
	res = KV_NOTSUPP;
	cb = kv.rdma ? rpcrdma_svc_callback_create(rq->rq_xprt, KVCBPROG,
						    KVCBVERS) : NULL;
	if (!cb) {
		logf_req(rq, "SUBSCRIBE: refused (callbacks need rdma)");
		return &res;
	}
	pthread_mutex_lock(&notes.lock);
	if (!notes.started &&
	    pthread_create(&th, NULL, notifier_main, NULL) == 0) {
		pthread_detach(th);
		notes.started = true;
	}
	if (notes.started && notes.nsubs < KV_MAX_SUBS) {
		notes.subs[notes.nsubs++] = cb;
		cb = NULL;
		res = KV_OK;
	}
	pthread_mutex_unlock(&notes.lock);
	if (cb)
		clnt_destroy(cb);
	logf_req(rq, "SUBSCRIBE: %s", res == KV_OK ? "ok" : "refused");
	return &res;
}

static int entry_cmp(const void *a, const void *b)
{
	const kv_entry *x = a, *y = b;

	return strcmp(x->key, y->key);
}

kv_listres *kvproc_list_1_svc(void *arg, struct svc_req *rq)
{
	static kv_listres res;
	struct kv_item *it;
	size_t n = 0;
	unsigned int b;

	(void)arg;
	kv.st.lists++;
	free(kv.list_buf);
	kv.list_buf = NULL;
	memset(&res, 0, sizeof(res));
	res.status = KV_OK;
	if (kv.st.keys > UINT_MAX / sizeof(kv_entry) ||
	    (kv.st.keys &&
	     !(kv.list_buf = calloc(kv.st.keys, sizeof(kv_entry))))) {
		res.status = KV_NOSPACE;
		return &res;
	}
	for (b = 0; b < KV_BUCKETS; b++)
		for (it = kv.bucket[b]; it && n < kv.st.keys; it = it->next) {
			kv.list_buf[n].key = it->key;
			kv.list_buf[n].size = it->len;
			n++;
		}
	if (n)
		qsort(kv.list_buf, n, sizeof(kv_entry), entry_cmp);
	res.entries.entries_val = kv.list_buf;
	res.entries.entries_len = (u_int)n;
	logf_req(rq, "LIST: %zu key%s", n, n == 1 ? "" : "s");
	return &res;
}

kv_statres *kvproc_stat_1_svc(void *arg, struct svc_req *rq)
{
	struct rpcrdma_stats s;

	(void)arg;
	logf_req(rq, "STAT: %" PRIu64 " keys, %" PRIu64 " bytes",
		 (uint64_t)kv.st.keys, (uint64_t)kv.st.bytes);
	if (kv.rdma && !kv.quiet) {
		/* This connection's transport counters, as the server saw them. */
		memset(&s, 0, sizeof(s));
		if (rpcrdma_svc_stats(rq->rq_xprt, &s) == 0)
			kv_print_rdma_stats(stdout, "kv_server: connection", &s);
		rpcrdma_stats_global(&s);
		kv_print_rdma_stats(stdout, "kv_server: process", &s);
		fflush(stdout);
	}
	return &kv.st;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: kv_server [-n netid] [-a addr] [-p port] [-m limit] [-q]\n"
		"  -n netid  transport: rdma, rdma6, tcp, udp... (default rdma)\n"
		"  -a addr   listen on this local address only (default: all)\n"
		"  -p port   listen on this port (default: rdma 20049, others any)\n"
		"  -m limit  most value bytes stored (default 1 GiB)\n"
		"  -q        do not log each request\n");
	exit(2);
}

/* A listener bound to addr:port through libtirpc (netids other than rdma). */
static SVCXPRT *tli_listener(struct netconfig *nc, const char *addr,
			     const char *port)
{
	struct addrinfo hints, *ai;
	struct t_bind tb;
	SVCXPRT *xprt;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = strcmp(nc->nc_protofmly, "inet6") == 0 ? AF_INET6 :
								     AF_INET;
	hints.ai_socktype = nc->nc_semantics == NC_TPI_CLTS ? SOCK_DGRAM :
							      SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	rc = getaddrinfo(addr, port ? port : "0", &hints, &ai);
	if (rc) {
		fprintf(stderr, "kv_server: %s: %s\n", addr ? addr : "*",
			gai_strerror(rc));
		return NULL;
	}
	memset(&tb, 0, sizeof(tb));
	tb.addr.buf = ai->ai_addr;
	tb.addr.len = tb.addr.maxlen = ai->ai_addrlen;
	tb.qlen = 64;
	xprt = svc_tli_create(RPC_ANYFD, nc, &tb, 0, 0);
	freeaddrinfo(ai);
	return xprt;
}

/* The transport prints nothing: what it does on its own (a connection it
 * closes, and why) comes here (rpcrdma_set_log). */
static void log_line(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "kv_server: %s\n", line);
}

int main(int argc, char **argv)
{
	const char *netid = "rdma", *addr = NULL, *port = NULL;
	struct rpcrdma_opts o;
	struct netconfig *nc;
	SVCXPRT *xprt;
	char *end;
	int c;

	kv.st.limit = KV_DEFAULT_LIMIT;
	rpcrdma_set_log(log_line, NULL);
	while ((c = getopt(argc, argv, "n:a:p:m:qh")) != -1) {
		switch (c) {
		case 'n':
			netid = optarg;
			break;
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = optarg;
			if (strtoul(port, &end, 10) > 65535 || *end || !*port)
				usage();
			break;
		case 'm':
			kv.st.limit = strtoull(optarg, &end, 0);
			if (*end || !*optarg)
				usage();
			break;
		case 'q':
			kv.quiet = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	kv.rdma = strncmp(netid, "rdma", 4) == 0;
	/* The rdma netid's listener reads its port from the environment. */
	if (kv.rdma && port)
		setenv("RPCRDMA_PORT", port, 1);

	nc = getnetconfigent(netid);
	if (!nc) {
		fprintf(stderr, "kv_server: unknown netid %s\n", netid);
		return 1;
	}
	/* A leftover registration of an earlier run would mislead clients. */
	rpcb_unset(KVPROG, KVVERS, nc);
	if (!addr && !(port && !kv.rdma)) {
		/* The usual rpcgen way: any address, registered with rpcbind. */
		xprt = svc_tp_create(kvprog_1, KVPROG, KVVERS, nc);
		if (!xprt) {
			fprintf(stderr, "kv_server: cannot serve over %s: %s\n",
				netid, clnt_spcreateerror("svc_tp_create"));
			return 1;
		}
	} else {
		if (kv.rdma) {
			rpcrdma_opts_default(&o);
			if (port)
				o.port = (uint16_t)strtoul(port, NULL, 10);
			xprt = svc_rdma_create(addr, &o);
		} else {
			xprt = tli_listener(nc, addr, port);
		}
		if (!xprt) {
			fprintf(stderr, "kv_server: cannot listen on %s over %s: %s\n",
				addr ? addr : "*", netid,
				clnt_spcreateerror("create"));
			return 1;
		}
		if (!svc_reg(xprt, KVPROG, KVVERS, kvprog_1, nc)) {
			/* Serve anyway; clients then need -p. */
			fprintf(stderr, "kv_server: could not register with "
				"rpcbind over %s (is rpcbind running?)\n",
				netid);
			if (!svc_reg(xprt, KVPROG, KVVERS, kvprog_1, NULL))
				return 1;
		}
	}
	printf("kv_server: serving program %#x version %d over %s%s%s%s%s\n",
	       (unsigned int)KVPROG, KVVERS, netid, addr ? " on " : "",
	       addr ? addr : "", port ? " port " : "", port ? port : "");
	fflush(stdout);
	svc_run();
	fprintf(stderr, "kv_server: svc_run returned\n");
	return 1;
}
