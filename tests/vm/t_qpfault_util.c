/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the tests of t_qpfault share (t_qpfault.h): the definitions of
 * rdma_create_qp, rdma_destroy_qp, ibv_reg_mr and ibv_reg_mr_iova2 that
 * record the library's QPs and watch the server's Read buffers, and the
 * helpers over them; the callers (worker threads and their records); the
 * verdict on their calls; the idle level (fds, RDMA objects, memory) and
 * the fault-free warm-up before it is taken. No test lives here.
 */
#define _GNU_SOURCE	/* dlvsym, RTLD_NEXT */
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "t_qpfault.h"

/* ---- the library's QPs, as it creates and destroys them ---- */

#define Q_MAX	256

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static struct qrec q_tab[Q_MAX];
static int q_n;

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
		   struct ibv_qp_init_attr *attr)
{
	static int (*real)(struct rdma_cm_id *, struct ibv_pd *,
			   struct ibv_qp_init_attr *);
	int ret;

	if (!real)
		real = (int (*)(struct rdma_cm_id *, struct ibv_pd *,
				struct ibv_qp_init_attr *))(void (*)(void))
			dlvsym(RTLD_NEXT, "rdma_create_qp", "RDMACM_1.0");
	if (!real)
		return -1;
	ret = real(id, pd, attr);
	if (ret == 0) {
		pthread_mutex_lock(&q_lock);
		if (q_n < Q_MAX) {
			q_tab[q_n] = (struct qrec){
				.id = id, .qp = id->qp, .pd = pd,
				.src = ntohs(rdma_get_src_port(id)),
				.dst = ntohs(rdma_get_dst_port(id)),
				.live = true,
			};
			q_n++;
		}
		pthread_mutex_unlock(&q_lock);
	}
	return ret;
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	static void (*real)(struct rdma_cm_id *);

	if (!real)
		real = (void (*)(struct rdma_cm_id *))(void (*)(void))dlvsym(
			RTLD_NEXT, "rdma_destroy_qp", "RDMACM_1.0");
	/* Forgotten first: the test never touches a QP being destroyed
	 * (q_force_error holds q_lock across its ibv_modify_qp). */
	pthread_mutex_lock(&q_lock);
	for (int i = 0; i < q_n; i++)
		if (q_tab[i].live && q_tab[i].id == id &&
		    q_tab[i].qp == id->qp)
			q_tab[i].live = false;
	pthread_mutex_unlock(&q_lock);
	if (real)
		real(id);
}

/*
 * The server's Read buffers, as xfer.c registers them (LOCAL_WRITE, and
 * REMOTE_WRITE on iWARP;
 * on the connection's PD): once r_watch_pd is set, the first registration
 * of at least r_watch_len bytes on it is noted (when, and the process's
 * RDMA Read bytes then), for the test to strike during that Read.
 */
struct ibv_pd *_Atomic r_watch_pd;
size_t r_watch_len;
atomic_bool r_seen;
_Atomic uint64_t r_bytes_at_reg;

/* Notes a registration that is the watched Read sink. */
static void r_note(struct ibv_mr *mr, struct ibv_pd *pd, size_t length,
		   unsigned int access)
{
	if (mr && pd == atomic_load(&r_watch_pd) &&
	    /* A Read sink: local write, and remote write on iWARP (ep_int.h,
	     * ep_sink_access); never remote read. */
	    (access & IBV_ACCESS_LOCAL_WRITE) &&
	    !(access & IBV_ACCESS_REMOTE_READ) && length >= r_watch_len &&
	    !atomic_load(&r_seen)) {
		struct rpcrdma_stats g;

		rpcrdma_stats_global(&g);
		atomic_store(&r_bytes_at_reg, g.rdma_read_bytes);
		atomic_store(&r_watch_pd, NULL);
		atomic_store(&r_seen, true);
	}
}

/* verbs.h's ibv_reg_mr macro calls ibv_reg_mr when the access flags are
 * a constant, ibv_reg_mr_iova2 otherwise (ep_sink_access): both are
 * watched. */
#undef ibv_reg_mr
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  int access);
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  int access)
{
	static struct ibv_mr *(*real)(struct ibv_pd *, void *, size_t, int);
	struct ibv_mr *mr;

	if (!real)
		real = (struct ibv_mr * (*)(struct ibv_pd *, void *, size_t,
					    int))(void (*)(void))
			dlvsym(RTLD_NEXT, "ibv_reg_mr", "IBVERBS_1.1");
	if (!real)
		return NULL;
	mr = real(pd, addr, length, access);
	r_note(mr, pd, length, (unsigned int)access);
	return mr;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	static struct ibv_mr *(*real)(struct ibv_pd *, void *, size_t,
				      uint64_t, unsigned int);
	struct ibv_mr *mr;

	if (!real)
		real = (struct ibv_mr * (*)(struct ibv_pd *, void *, size_t,
					    uint64_t, unsigned int))
			(void (*)(void))dlvsym(RTLD_NEXT, "ibv_reg_mr_iova2",
					       "IBVERBS_1.8");
	if (!real)
		return NULL;
	mr = real(pd, addr, length, iova, access);
	r_note(mr, pd, length, access);
	return mr;
}

int q_count(void)
{
	int n;

	pthread_mutex_lock(&q_lock);
	n = q_n;
	pthread_mutex_unlock(&q_lock);
	return n;
}

/* The live QP created at index from or later whose ports match (0: any);
 * -1 when none. */
static int q_find(int from, uint16_t src, uint16_t dst)
{
	int found = -1;

	pthread_mutex_lock(&q_lock);
	for (int i = from; i < q_n; i++)
		if (q_tab[i].live && (!src || q_tab[i].src == src) &&
		    (!dst || q_tab[i].dst == dst))
			found = i;
	pthread_mutex_unlock(&q_lock);
	return found;
}

/* Live QPs created at index from or later, to dst. */
int q_live_to(int from, uint16_t dst)
{
	int n = 0;

	pthread_mutex_lock(&q_lock);
	for (int i = from; i < q_n; i++)
		n += q_tab[i].live && q_tab[i].dst == dst;
	pthread_mutex_unlock(&q_lock);
	return n;
}

struct qrec q_get(int i)
{
	struct qrec r;

	pthread_mutex_lock(&q_lock);
	r = q_tab[i];
	pthread_mutex_unlock(&q_lock);
	return r;
}

/* The fault: QP i to the error state, as the library left it. False
 * when the library had destroyed it already (the caller says why). */
bool q_force_error(int i)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	bool live;
	int rc = -1;

	pthread_mutex_lock(&q_lock);
	live = q_tab[i].live;
	if (live)
		rc = ibv_modify_qp(q_tab[i].qp, &a, IBV_QP_STATE);
	pthread_mutex_unlock(&q_lock);
	if (live)
		ck_assert_int_eq(rc, 0);
	return live;
}

/* Waits (bounded) until QP i is destroyed: the seconds it took, or -1. */
double q_wait_dead(int i, double max_s)
{
	double t0 = now_ms();

	while (q_get(i).live) {
		if (now_ms() - t0 > max_s * 1e3)
			return -1;
		usleep(2000);
	}
	return (now_ms() - t0) / 1e3;
}

/* Waits (bounded) until no QP of the server's (source port) is live. */
static bool q_wait_server_idle(uint16_t port, double max_s)
{
	double t0 = now_ms();

	while (q_find(0, port, 0) >= 0) {
		if (now_ms() - t0 > max_s * 1e3)
			return false;
		usleep(5000);
	}
	return true;
}

/* ---- callers ---- */

static const char *const kind_name[K_NKINDS] = { "sleep", "echo 1000",
						 "echo 64 KiB", "echo 512 KiB" };
static const size_t kind_len[K_NKINDS] = { 0, 1000, 65536, BIG };

static atomic_bool w_stop;

enum clnt_stat do_call(CLIENT *cl, enum kind k, uint32_t seed,
		       int *wrong)
{
	struct timeval tv = { TMO_S, 0 };
	enum clnt_stat st;

	if (k == K_SLEEP) {
		u_int ms = SLEEP_MS;

		return clnt_call(cl, P_SLEEP, XP(xdr_u_int), (caddr_t)&ms,
				 XVOID, NULL, tv);
	} else {
		size_t n = kind_len[k];
		struct blob a = { (u_int)n, mkdata(seed, n) };
		struct blob r = { 0, NULL };

		st = clnt_call(cl, P_ECHO, XP(xdr_blob), (caddr_t)&a,
			       XP(xdr_blob), (caddr_t)&r, tv);
		if (st == RPC_SUCCESS &&
		    (r.len != n || memcmp(r.data, a.data, n) != 0))
			(*wrong)++;
		clnt_freeres(cl, XP(xdr_blob), (caddr_t)&r);
		free(a.data);
		return st;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load(&w_stop) && w->n < W_MAX_RECS) {
		struct rec *r = &w->r[w->n];
		int i = w->id + w->n;

		if (w->small_only)
			r->k = i % 2 ? K_SMALL : K_CHUNK;
		else if (w->big)
			r->k = i % 3 ? K_BIG : K_SMALL;
		else
			r->k = (enum kind)(i % 3 == 2 ? K_CHUNK :
					   i % 3 == 1 ? K_SMALL : K_SLEEP);
		r->t0 = now_ms();
		r->st = do_call(w->cl, r->k, (uint32_t)(w->id * 100003 + w->n),
				&w->wrong);
		r->t1 = now_ms();
		w->n++;
	}
	return NULL;
}

void workers_start(struct worker *w, int n)
{
	atomic_store(&w_stop, false);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(pthread_create(&w[i].th, NULL, worker_main,
						&w[i]), 0);
}

void workers_stop(struct worker *w, int n)
{
	atomic_store(&w_stop, true);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(pthread_join(w[i].th, NULL), 0);
}

/* Successful calls of w that started after t (racy read: a count). */
static int ok_since(const struct worker *w, double t)
{
	int n = __atomic_load_n(&w->n, __ATOMIC_ACQUIRE), ok = 0;

	for (int i = 0; i < n; i++)
		if (w->r[i].t0 > t && w->r[i].st == RPC_SUCCESS)
			ok++;
	return ok;
}

/* Waits (bounded) until every worker had `want` successes started after
 * t; false when the bound passed. */
bool workers_recovered(struct worker *w, int n, double t, int want,
		       double max_s)
{
	double t0 = now_ms();

	for (;;) {
		int done = 0;

		for (int i = 0; i < n; i++)
			done += ok_since(&w[i], t) >= want;
		if (done == n)
			return true;
		if (now_ms() - t0 > max_s * 1e3)
			return false;
		usleep(10000);
	}
}

/* A peer that vanished without a word (its device removed) leaves the
 * calls waiting on it nothing but their timeout. */
bool timeout_ok;

bool conn_error(enum clnt_stat st)
{
	return st == RPC_CANTRECV || st == RPC_CANTSEND ||
	       (timeout_ok && st == RPC_TIMEDOUT);
}


/*
 * Every call of w against the faults at t_fault[0..nf): within the
 * timeout; before the first fault a success; in flight at a fault or
 * after it a success or a connection error; never bytes that differ.
 */
void judge(const struct worker *w, const double *t_fault, int nf,
	   struct verdict *v)
{
	ck_assert_int_eq(w->wrong, 0);
	for (int i = 0; i < w->n; i++) {
		const struct rec *r = &w->r[i];
		double d = r->t1 - r->t0;
		bool inflight = false;

		v->calls++;
		if (d > v->worst_ms)
			v->worst_ms = d;
		ck_assert_msg(d <= (TMO_S + MARGIN_S) * 1e3,
			      "worker %d call %d (%s) took %.0f ms: %s", w->id,
			      i, kind_name[r->k], d, clnt_sperrno(r->st));
		if (r->t1 < t_fault[0]) {
			ck_assert_msg(r->st == RPC_SUCCESS,
				      "worker %d call %d before the fault: %s",
				      w->id, i, clnt_sperrno(r->st));
			v->before_ok++;
			continue;
		}
		for (int f = 0; f < nf; f++)
			inflight |= r->t0 < t_fault[f] && r->t1 > t_fault[f];
		ck_assert_msg(r->st == RPC_SUCCESS || conn_error(r->st),
			      "worker %d call %d (%s, %s the fault): %s", w->id,
			      i, kind_name[r->k],
			      inflight ? "in flight at" : "after",
			      clnt_sperrno(r->st));
		if ((unsigned)r->st < 32)
			v->hist[r->st]++;
		if (inflight && r->st == RPC_SUCCESS)
			v->inflight_ok++;
		else if (inflight)
			v->inflight_err++;
		else if (r->st == RPC_SUCCESS)
			v->after_ok++;
		else
			v->after_err++;
	}
}

void verdict_print(const char *who, const struct verdict *v)
{
	printf("%s: %d calls: %d ok before the fault; in flight at a fault "
	       "%d ok, %d failed; started after %d ok, %d failed; longest "
	       "%.0f ms (limit %d s + %.0f s)\n",
	       who, v->calls, v->before_ok, v->inflight_ok, v->inflight_err,
	       v->after_ok, v->after_err, v->worst_ms, TMO_S, MARGIN_S);
	for (int s = 0; s < 32; s++)
		if (v->hist[s] && s != RPC_SUCCESS)
			printf("%s:   %3d x %s\n", who, v->hist[s],
			       clnt_sperrno((enum clnt_stat)s));
}

CLIENT *clnt_mk(uint16_t port)
{
	struct rpcrdma_opts o;
	CLIENT *cl;

	rpcrdma_opts_default(&o);
	o.port = port;
	o.src_addr = addr_a;
	o.credits = 8;
	o.max_msg = 1u << 20;	/* a BIG reply fits its reply chunk */
	o.timeout_ms = 5000;
	cl = clnt_rdma_create(addr_b, T_PROG, T_VERS, &o);
	ck_assert_msg(cl != NULL, "clnt_rdma_create: %s",
		      clnt_spcreateerror("clnt"));
	return cl;
}

struct rpcrdma_stats stats_of(CLIENT *cl)
{
	struct rpcrdma_stats st;

	ck_assert(clnt_control(cl, CLGET_RDMA_STATS, (char *)&st));
	return st;
}

/* This client's QP (created at index from or later), and the server's
 * end of its connection. */
void q_pair(int from, uint16_t port, int *cq, int *sq)
{
	*cq = q_find(from, 0, port);
	ck_assert_int_ge(*cq, 0);
	ck_assert_uint_ne(q_get(*cq).src, port);
	*sq = q_find(0, port, q_get(*cq).src);
	ck_assert_int_ge(*sq, 0);
}

/*
 * The connection was reset with no fault injected: what the transport saw
 * (the CLIENT's counters and the process's, both sides) and every call
 * that had failed by then, before the test fails.
 */
void gone_before_fault(const char *who, int qi, CLIENT *cl,
		       struct worker *w, int n)
{
	struct rpcrdma_stats cs = stats_of(cl), gs;

	rpcrdma_stats_global(&gs);
	printf("%s: QP %d destroyed with no fault injected\n", who, qi);
	stats_print(who, &cs);
	stats_print("process", &gs);
	for (int i = 0; i < n; i++) {
		int m = __atomic_load_n(&w[i].n, __ATOMIC_ACQUIRE);

		for (int j = 0; j < m; j++)
			if (w[i].r[j].st != RPC_SUCCESS)
				printf("%s: worker %d call %d (%s) at %.0f ms "
				       "took %.0f ms: %s\n", who, i, j,
				       kind_name[w[i].r[j].k], w[i].r[j].t0,
				       w[i].r[j].t1 - w[i].r[j].t0,
				       clnt_sperrno(w[i].r[j].st));
	}
	threads_print(who);
	ck_abort_msg("%s: QP %d was destroyed before the fault", who, qi);
}


void idle_take(struct idle *i)
{
	i->fds = open_fds();
	/* Free memory the allocator keeps goes back first: what stays is
	 * in use. */
	malloc_trim(0);
	i->rss = vmrss_kib();
	i->heap = heap_in_use();
	rdma_res(getpid(), false, i->res);
}

/* What the faults may leave: malloc'ed memory, exactly (a connection's
 * buffers alone are hundreds of KiB), and VmRSS loosely (the allocator's
 * arenas and cached thread stacks vary by MiBs with the callers' timing:
 * flat over 30 faults in a row, seen in the guest). */
#define HEAP_SLACK	(16u << 10)
#define RSS_SLACK_KIB	8192

/* Everything back to idle (the server's side is freed when it sees the
 * disconnect, shortly after clnt_destroy). */
void idle_check(const char *who, const struct idle *a, uint16_t port)
{
	struct idle b;

	ck_assert_msg(q_wait_server_idle(port, 10),
		      "the server still holds a connection's QP");
	/* The QP goes first: the connection's channels are closed just
	 * after it (ep_destroy), by the thread that serves it. */
	for (int i = 0; i < 200 && open_fds() != a->fds; i++)
		usleep(50000);
	idle_take(&b);
	printf("%s: open fds %d idle, %d after\n", who, a->fds, b.fds);
	rdma_res_print(who, "process", "idle", a->res);
	rdma_res_print(who, "process", "after", b.res);
	printf("%s: malloc'ed %zu bytes idle, %zu after (%+ld); VmRSS %ld "
	       "KiB idle, %ld KiB after (%+ld KiB)\n", who, a->heap, b.heap,
	       (long)b.heap - (long)a->heap, a->rss, b.rss, b.rss - a->rss);
	ck_assert_int_eq(b.fds, a->fds);
	for (int k = 0; k < RDMA_RES_KINDS; k++)
		ck_assert_msg(b.res[k] == a->res[k], "%s: %d idle, %d after",
			      rdma_res_kinds[k], a->res[k], b.res[k]);
	ck_assert_msg(b.heap <= a->heap + HEAP_SLACK,
		      "malloc'ed memory grew by %zu bytes", b.heap - a->heap);
	ck_assert_msg(b.rss - a->rss < RSS_SLACK_KIB,
		      "VmRSS grew by %ld KiB", b.rss - a->rss);
}

/*
 * The workload of a test, without the fault, on a connection that then
 * goes: the devices are open, and the allocator's arenas and the thread
 * stacks glibc caches are those of nthreads callers, as they will be.
 */
/*
 * One call of each kind. No fault is injected yet; a call that fails says
 * what the transport saw (this CLIENT's counters, then the process's:
 * both sides, the server being a thread of this process) before the test
 * fails, so that a failure in CI can be diagnosed from its log.
 */
static void warm_up_calls(CLIENT *cl, int *wrong)
{
	for (int k = 0; k < K_NKINDS; k++) {
		double t0 = now_ms();
		enum clnt_stat st = do_call(cl, (enum kind)k, 1, wrong);

		if (st != RPC_SUCCESS) {
			struct rpcrdma_stats cs = stats_of(cl), gs;

			rpcrdma_stats_global(&gs);
			printf("warm-up %s, no fault injected, after %.0f ms: "
			       "%s\n", kind_name[k], now_ms() - t0,
			       clnt_sperror(cl, "call"));
			stats_print("warm-up client", &cs);
			stats_print("warm-up process", &gs);
			threads_print("warm-up");
			/* A reply that is late, not lost, shows here. */
			sleep(5);
			rpcrdma_stats_global(&gs);
			stats_print("warm-up process 5 s later", &gs);
		}
		ck_assert_msg(st == RPC_SUCCESS, "warm-up %s: %s", kind_name[k],
			      clnt_sperrno(st));
	}
}

static void warm_up_once(uint16_t port, int nthreads)
{
	static struct worker w[8];
	CLIENT *cl = clnt_mk(port);
	int wrong = 0;

	ck_assert_int_le(nthreads, 8);
	warm_up_calls(cl, &wrong);
	ck_assert_int_eq(wrong, 0);
	memset(w, 0, sizeof(w));
	for (int i = 0; i < nthreads; i++) {
		w[i].cl = cl;
		w[i].id = i;
		w[i].big = i == 0 || i == 3;
	}
	workers_start(w, nthreads);
	ck_assert(workers_recovered(w, nthreads, 0, 3, 60));
	workers_stop(w, nthreads);
	for (int i = 0; i < nthreads; i++)
		ck_assert_int_eq(w[i].wrong, 0);
	clnt_destroy(cl);
	ck_assert(q_wait_server_idle(port, 10));
}

/*
 * Fault-free cycles until malloc'ed memory settles: the first few leave
 * some KiB behind each (about 7 KiB, tapering to nothing after about six,
 * seen in the guest with no fault at all), which is not what the faults
 * are judged by.
 */
void warm_up(const char *who, uint16_t port, int nthreads)
{
	size_t prev = 0, h;
	int i, calm = 0;

	for (i = 0; i < 12 && calm < 2; i++) {
		warm_up_once(port, nthreads);
		malloc_trim(0);
		h = heap_in_use();
		calm = i && h <= prev + 1024 ? calm + 1 : 0;
		prev = h;
	}
	printf("%s: %d warm-up cycles, malloc'ed %zu bytes after\n", who, i,
	       prev);
}
