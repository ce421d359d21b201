/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rb_server: the server of the benchmark program (rb.x), over any netid.
 *
 *   rb_server [-n netid] [-t threads] [-w warmup -x count]
 *
 * Registered with rpcbind through svc_tp_create(), the usual rpcgen way;
 * "rdma" is served by librpcrdma, every other netid by libtirpc. READ
 * results point into one pattern buffer (no copy); WRITE arguments are
 * compared with the pattern byte for byte.
 *
 * With -w and -x the server measures its own CPU cost under callgrind
 * (valgrind --tool=callgrind): the counts are zeroed at the warmup-th
 * NULL call, dumped as "rb_server measured" after 'count' more NULL calls
 * were answered, and the server exits. Outside valgrind these client
 * requests do nothing.
 *
 * With -t the rdma transports are served by rpcrdma_svc_run(threads)
 * instead of svc_run (libtirpc's own netids have no pool).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rpc/rpc.h>
#include <valgrind/callgrind.h>
#include <rpcrdma/rpcrdma.h>
#include "rb.h"
#include "rb_util.h"

/* rpcgen -m emits the dispatch function without a prototype. */
void rbprog_1(struct svc_req *rqstp, SVCXPRT *transp);

static struct {
	uint8_t *pattern;
	unsigned long nulls, warmup, count;
	bool null_sent;		/* the reply being freed is a NULL's */
} rb;

bool_t rbproc_null_1_svc(void *arg, void *res, struct svc_req *rq)
{
	(void)arg;
	(void)res;
	(void)rq;
	if (!rb.count)
		return TRUE;	/* not measuring (and perhaps threaded) */
	rb.nulls++;
	rb.null_sent = true;
	if (rb.count && rb.nulls == rb.warmup)
		CALLGRIND_ZERO_STATS;
	return TRUE;
}

bool_t rbproc_read_1_svc(u_int *size, rb_data *res, struct svc_req *rq)
{
	(void)rq;
	if (*size > RB_MAXDATA) {
		svcerr_decode(rq->rq_xprt);
		return FALSE;
	}
	res->rb_data_len = *size;
	res->rb_data_val = (char *)rb.pattern;
	return TRUE;
}

bool_t rbproc_write_1_svc(rb_data *arg, u_int *res, struct svc_req *rq)
{
	(void)rq;
	*res = memcmp(arg->rb_data_val, rb.pattern, arg->rb_data_len) ?
		0xffffffffu : arg->rb_data_len;
	return TRUE;
}

/* Called after each reply was sent. READ results are the static pattern:
 * nothing to free. */
int rbprog_1_freeresult(SVCXPRT *transp, xdrproc_t xdr_result, caddr_t res)
{
	(void)transp;
	(void)xdr_result;
	(void)res;
	if (rb.null_sent && rb.count && rb.nulls == rb.warmup + rb.count) {
		CALLGRIND_DUMP_STATS_AT("rb_server measured");
		exit(0);
	}
	rb.null_sent = false;
	return 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: rb_server [-n netid] [-t threads] "
		"[-w warmup -x count]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *netid = "rdma";
	struct netconfig *nc;
	unsigned long threads = 0;
	SVCXPRT *xprt;
	int c, rc;

	while ((c = getopt(argc, argv, "n:t:w:x:h")) != -1) {
		switch (c) {
		case 'n':
			netid = optarg;
			break;
		case 'w':
			rb.warmup = strtoul(optarg, NULL, 10);
			break;
		case 'x':
			rb.count = strtoul(optarg, NULL, 10);
			break;
		case 't':
			threads = strtoul(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (rb.count && !rb.warmup) ||
	    (threads && (rb.count || strcmp(netid, "rdma"))))
		usage();
	rb.pattern = rb_pattern(RB_MAXDATA);
	nc = getnetconfigent(netid);
	if (!rb.pattern || !nc) {
		fprintf(stderr, "rb_server: %s\n",
			nc ? "out of memory" : "unknown netid");
		return 1;
	}
	rpcb_unset(RBPROG, RBVERS, nc);
	xprt = svc_tp_create(rbprog_1, RBPROG, RBVERS, nc);
	if (!xprt) {
		fprintf(stderr, "rb_server: cannot serve over %s: %s\n", netid,
			clnt_spcreateerror("svc_tp_create"));
		return 1;
	}
	printf("rb_server: serving over %s%s\n", netid,
	       threads ? " with a pool" : "");
	fflush(stdout);
	if (threads) {
		rc = rpcrdma_svc_run((unsigned int)threads);
		fprintf(stderr, "rb_server: rpcrdma_svc_run: %d\n", rc);
		return 1;
	}
	svc_run();
	fprintf(stderr, "rb_server: svc_run returned\n");
	return 1;
}
