/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the parts of t_qpfault share (t_qpfault.c: the client's and the
 * server's QP in error, and main; t_qpfault_devremove.c: the devices
 * removed; t_qpfault_util.c: everything below): the record of the
 * library's QPs and the watch on the server's Read buffers, the callers
 * and the verdict on their calls, and the idle level the tests compare
 * the process with.
 */
#ifndef T_QPFAULT_H
#define T_QPFAULT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "harness.h"

/* ---- the library's QPs (t_qpfault_util.c) ---- */

struct qrec {
	struct rdma_cm_id *id;
	struct ibv_qp *qp;
	struct ibv_pd *pd;
	uint16_t src, dst;	/* host order */
	bool live;
};

/* The watch on the server's Read buffers (t_qpfault_util.c). */
extern struct ibv_pd *_Atomic r_watch_pd;
extern size_t r_watch_len;
extern atomic_bool r_seen;
extern _Atomic uint64_t r_bytes_at_reg;

int q_count(void);
int q_live_to(int from, uint16_t dst);
struct qrec q_get(int i);
bool q_force_error(int i);
double q_wait_dead(int i, double max_s);

/* ---- callers (t_qpfault_util.c) ---- */

#define W_MAX_RECS	20000
#define TMO_S		10	/* per call */
#define MARGIN_S	3.0	/* allowed beyond it */
#define BIG		(512u << 10)	/* its argument by RDMA Read */
#define SLEEP_MS	30u

enum kind { K_SLEEP, K_SMALL, K_CHUNK, K_BIG, K_NKINDS };

struct rec {
	double t0, t1;	/* ms, monotonic */
	enum clnt_stat st;
	enum kind k;
};

struct worker {
	CLIENT *cl;
	int id;
	bool small_only;	/* the bystander: small echos only */
	bool big;		/* this one makes the BIG echos */
	int n;
	int wrong;		/* successes with other bytes: never */
	pthread_t th;
	struct rec r[W_MAX_RECS];
};

enum clnt_stat do_call(CLIENT *cl, enum kind k, uint32_t seed, int *wrong);
void workers_start(struct worker *w, int n);
void workers_stop(struct worker *w, int n);
bool workers_recovered(struct worker *w, int n, double t, int want,
		       double max_s);

extern bool timeout_ok;
bool conn_error(enum clnt_stat st);

struct verdict {
	int calls, before_ok, inflight_ok, inflight_err, after_ok, after_err;
	double worst_ms;
	int hist[32];
};

void judge(const struct worker *w, const double *t_fault, int nf,
	   struct verdict *v);
void verdict_print(const char *who, const struct verdict *v);
CLIENT *clnt_mk(uint16_t port);
struct rpcrdma_stats stats_of(CLIENT *cl);
void q_pair(int from, uint16_t port, int *cq, int *sq);
void gone_before_fault(const char *who, int qi, CLIENT *cl,
		       struct worker *w, int n);

/* What the process holds while idle: taken after a warm-up connection
 * (librdmacm opens the devices once and keeps them), compared after. */
struct idle {
	int fds;
	long rss;
	size_t heap;
	int res[RDMA_RES_KINDS];
};

void idle_take(struct idle *i);
void idle_check(const char *who, const struct idle *a, uint16_t port);
void warm_up(const char *who, uint16_t port, int nthreads);

/* ---- the devices removed (t_qpfault_devremove.c) ---- */

/* The "devremove" case, its timeout and its tests, added to su. */
void t_qpfault_add_devremove(Suite *su);

#endif /* T_QPFAULT_H */
