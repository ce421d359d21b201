/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * regcost: where does exposing a caller's buffer zero-copy (registering it
 * per call) become cheaper than copying it into an already-registered
 * buffer? Plain libibverbs plus librdmacm, no librpcrdma.
 *
 * For each size n (4 KiB to 16 MiB) it measures, per operation, the median
 * of many iterations (clock_gettime CLOCK_MONOTONIC, one warm-up first,
 * repetitions adapted to the size and bounded by a time budget):
 *
 *   copy    memcpy of n bytes from a malloc'd, touched caller buffer into
 *           a buffer registered once (MW_BIND, as a slot's
 *           call buffer is, engine/reg.c)
 *   reg     ibv_reg_mr(the caller's n bytes, REMOTE_READ)
 *           + ibv_dereg_mr: zero-copy exposing the MR's own rkey
 *   win     IBV_WR_BIND_MW of a type-2 window over n bytes of the
 *           pre-registered buffer + IBV_WR_LOCAL_INV, each awaited: what
 *           the copy path pays anyway to expose the slot buffer
 *   zc      ibv_reg_mr(the caller's n bytes, MW_BIND) + BIND_MW + LOCAL_INV
 *           + ibv_dereg_mr: zero-copy through a window, the full cost
 *   read    (context) one RDMA Read of n bytes by the peer from the
 *           pre-registered buffer
 *
 * and prints one line per size, the ratios reg/copy and zc/(copy+win),
 * then the crossovers: the smallest size from which on (at every larger
 * size too) reg <= copy, and the smallest from which on zc <= copy + win;
 * plus the first size at which reg <= copy, which differs when noise
 * makes the two curves touch below the crossover.
 *
 * The window and Read figures need a connected RC QP: the program
 * connects two of its own QPs with RDMA-CM, from CLIENT_ADDR (rxe0) to
 * SERVER_ADDR (rxe1), as tests/vm/cm_rw.c does, in one thread. Without
 * addresses, or when the connection fails, it says so and measures copy
 * and reg only, on the first device.
 *
 * Usage: regcost [-C] [-b MS] [-R MAXSIZE] [SERVER_ADDR [CLIENT_ADDR]]
 *   -C          copy only, no RDMA device needed (for comparing memcpy
 *               on the host, or under GLIBC_TUNABLES, with the guest's)
 *   -b MS       time budget per measurement and size (default 1500)
 *   -R MAXSIZE  RDMA Reads only up to MAXSIZE bytes (default 16 MiB,
 *               0: none). Reads go last; after one Read slower than 5 s
 *               the larger sizes are skipped (rxe on Linux 6.1 stalls on
 *               large Reads, docs/performance.md)
 *   addresses default to $RPCRDMA_ADDR_B and $RPCRDMA_ADDR_A (tests/vm/run)
 *
 * Errors are reported by main only: the helpers format them into errbuf.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define KiB		1024ul
#define MiB		(1024ul * KiB)
#define MAX_SIZE	(16 * MiB)
#define NSIZES		7
#define MAX_ITERS	2001
#define MIN_ITERS	7
#define STEP_MS		20000	/* a CM event or one completion, TCG is slow */
#define SLOW_READ_NS	5000000000ull

static const size_t sizes[NSIZES] = {
	4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB, 16 * MiB,
};

static char errbuf[512];

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	return -1;
}

struct side {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

struct bench {
	struct ibv_pd *pd;		/* the caller's side */
	struct ibv_context *ctx;	/* when no QP: the first device */
	struct ibv_pd *own_pd;
	struct side cli, srv;		/* cli: the caller, srv: the peer */
	bool connected;
	uint8_t *caller;		/* malloc'd caller memory */
	uint8_t *slot;			/* pre-registered "slot" buffer */
	struct ibv_mr *slot_mr;
	uint8_t *sink;			/* the peer's Read target */
	struct ibv_mr *sink_mr;
	struct ibv_mr *src_mr;		/* slot buffer, REMOTE_READ for Reads */
	struct ibv_mw *mw;
	uint64_t wr_seq;
	long budget_ms;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double median_us(uint64_t *t, size_t n)
{
	qsort(t, n, sizeof(*t), cmp_u64);
	if (n % 2)
		return t[n / 2] / 1000.0;
	return (t[n / 2 - 1] + t[n / 2]) / 2000.0;
}

/* Iterations for size n: many for small sizes, fewer for large ones. */
static size_t iters_for(size_t n)
{
	size_t it = (256 * MiB) / n;

	if (it > MAX_ITERS)
		it = MAX_ITERS;
	if (it < MIN_ITERS)
		it = MIN_ITERS;
	return it;
}

/* ---- completions and work requests ---- */

/* Busy-poll one completion on cq, which must succeed with opcode op. */
static int wait_wc(struct ibv_cq *cq, enum ibv_wc_opcode op)
{
	uint64_t deadline = now_ns() + STEP_MS * 1000000ull;
	struct ibv_wc wc;
	unsigned int spins = 0;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			return fail("ibv_poll_cq failed");
		if (n)
			break;
		if (++spins % 4096 == 0 && now_ns() > deadline)
			return fail("no completion (opcode %d) within %d ms",
				    op, STEP_MS);
	}
	if (wc.status != IBV_WC_SUCCESS)
		return fail("completion %s (opcode %d, expected %d)",
			    ibv_wc_status_str(wc.status), wc.opcode, op);
	if (wc.opcode != op)
		return fail("completion opcode %d, expected %d", wc.opcode, op);
	return 0;
}

/* Bind the window over [addr, addr + len) of mr for remote Read, await. */
static int bind_mw(struct bench *b, struct ibv_mr *mr, void *addr,
		   size_t len)
{
	struct ibv_send_wr wr, *bad;
	uint32_t rkey = ibv_inc_rkey(b->mw->rkey);
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = ++b->wr_seq;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = b->mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	err = ibv_post_send(b->cli.id->qp, &wr, &bad);
	if (err)
		return fail("post BIND_MW: %s", strerror(err));
	if (wait_wc(b->cli.cq, IBV_WC_BIND_MW))
		return -1;
	b->mw->rkey = rkey;	/* rxe leaves the old key (win.c) */
	return 0;
}

static int local_inv(struct bench *b)
{
	struct ibv_send_wr wr, *bad;
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = ++b->wr_seq;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = b->mw->rkey;
	err = ibv_post_send(b->cli.id->qp, &wr, &bad);
	if (err)
		return fail("post LOCAL_INV: %s", strerror(err));
	return wait_wc(b->cli.cq, IBV_WC_LOCAL_INV);
}

/* The peer Reads n bytes of the caller's src_mr into its sink. */
static int rdma_read(struct bench *b, size_t n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)b->sink,
		.length = (uint32_t)n,
		.lkey = b->sink_mr->lkey,
	};
	struct ibv_send_wr wr, *bad;
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = ++b->wr_seq;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)b->slot;
	wr.wr.rdma.rkey = b->src_mr->rkey;
	err = ibv_post_send(b->srv.id->qp, &wr, &bad);
	if (err)
		return fail("post RDMA_READ: %s", strerror(err));
	return wait_wc(b->srv.cq, IBV_WC_RDMA_READ);
}

/* ---- the operations measured ---- */

enum op { OP_COPY, OP_REG, OP_WIN, OP_ZC, OP_READ, NOPS };

static const char *const op_name[NOPS] = {
	"copy", "reg", "win", "zc", "read",
};

static int run_op(struct bench *b, enum op op, size_t n)
{
	struct ibv_mr *mr;

	switch (op) {
	case OP_COPY:
		memcpy(b->slot, b->caller, n);
		__asm__ volatile("" ::: "memory");
		return 0;
	case OP_REG:
		/* As the library registers a zero-copy item: read by the
		 * peer only, no local write (engine/reg.c). */
		mr = ibv_reg_mr(b->pd, b->caller, n, IBV_ACCESS_REMOTE_READ);
		if (!mr)
			return fail("ibv_reg_mr(%zu): %s", n, strerror(errno));
		if (ibv_dereg_mr(mr))
			return fail("ibv_dereg_mr(%zu): %s", n,
				    strerror(errno));
		return 0;
	case OP_WIN:
		if (bind_mw(b, b->slot_mr, b->slot, n))
			return -1;
		return local_inv(b);
	case OP_ZC:
		mr = ibv_reg_mr(b->pd, b->caller, n, IBV_ACCESS_MW_BIND);
		if (!mr)
			return fail("ibv_reg_mr(%zu, MW_BIND): %s", n,
				    strerror(errno));
		if (bind_mw(b, mr, b->caller, n) || local_inv(b)) {
			ibv_dereg_mr(mr);
			return -1;
		}
		if (ibv_dereg_mr(mr))
			return fail("ibv_dereg_mr(%zu): %s", n,
				    strerror(errno));
		return 0;
	case OP_READ:
		return rdma_read(b, n);
	default:
		return fail("unknown operation %d", op);
	}
}

/*
 * The median time of op on n bytes in microseconds: one warm-up, then up
 * to iters_for(n) timed runs, at least MIN_ITERS, stopping early once the
 * budget is spent. *count gets the number of timed runs.
 */
static int measure(struct bench *b, enum op op, size_t n, long budget_ms,
		   double *us, size_t *count)
{
	static uint64_t t[MAX_ITERS];
	size_t i, max = iters_for(n);
	uint64_t start, t0, stop = 0;

	if (run_op(b, op, n))
		return -1;
	start = now_ns();
	for (i = 0; i < max; i++) {
		t0 = now_ns();
		if (run_op(b, op, n))
			return -1;
		stop = now_ns();
		t[i] = stop - t0;
		if (i + 1 >= MIN_ITERS &&
		    stop - start > (uint64_t)budget_ms * 1000000ull)
			break;
	}
	*count = i < max ? i + 1 : max;
	*us = median_us(t, *count);
	return 0;
}

/* ---- connection ---- */

static int get_addr(const char *host, uint16_t port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		return fail("bad IPv4 address '%s'", host);
	return 0;
}

static int wait_event(struct side *s, enum rdma_cm_event_type expected,
		      struct rdma_cm_event **out)
{
	struct pollfd pfd = { .fd = s->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, STEP_MS) <= 0)
		return fail("no %s within %d ms", rdma_event_str(expected),
			    STEP_MS);
	if (rdma_get_cm_event(s->ch, &ev))
		return fail("rdma_get_cm_event: %s", strerror(errno));
	if (ev->event != expected) {
		fail("got %s (status %d), expected %s",
		     rdma_event_str(ev->event), ev->status,
		     rdma_event_str(expected));
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (out)
		*out = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
}

static int setup_qp(struct side *s)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};

	s->pd = ibv_alloc_pd(s->id->verbs);
	if (!s->pd)
		return fail("ibv_alloc_pd: %s", strerror(errno));
	s->cq = ibv_create_cq(s->id->verbs, 64, NULL, NULL, 0);
	if (!s->cq)
		return fail("ibv_create_cq: %s", strerror(errno));
	qa.send_cq = s->cq;
	qa.recv_cq = s->cq;
	if (rdma_create_qp(s->id, s->pd, &qa))
		return fail("rdma_create_qp: %s", strerror(errno));
	return 0;
}

/*
 * Connect cli (from client_addr) to srv (listening on server_addr), in
 * this one thread: the CM's events are asynchronous.
 */
static int connect_pair(struct bench *b, const char *server_addr,
			const char *client_addr)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1,	/* RDMA Read both ways */
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct sockaddr_in src, dst;
	struct rdma_cm_event *ev;
	uint16_t port;

	if (get_addr(server_addr, 0, &dst) || get_addr(client_addr, 0, &src))
		return -1;
	b->srv.ch = rdma_create_event_channel();
	b->cli.ch = rdma_create_event_channel();
	if (!b->srv.ch || !b->cli.ch)
		return fail("rdma_create_event_channel: %s", strerror(errno));
	if (rdma_create_id(b->srv.ch, &b->srv.listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_create_id(b->cli.ch, &b->cli.id, NULL, RDMA_PS_TCP))
		return fail("rdma_create_id: %s", strerror(errno));
	if (rdma_bind_addr(b->srv.listen_id, (struct sockaddr *)&dst))
		return fail("rdma_bind_addr(%s): %s", server_addr,
			    strerror(errno));
	if (rdma_listen(b->srv.listen_id, 1))
		return fail("rdma_listen: %s", strerror(errno));
	port = ntohs(rdma_get_src_port(b->srv.listen_id));
	dst.sin_port = htons(port);
	if (rdma_resolve_addr(b->cli.id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst, STEP_MS / 2))
		return fail("rdma_resolve_addr: %s", strerror(errno));
	if (wait_event(&b->cli, RDMA_CM_EVENT_ADDR_RESOLVED, NULL))
		return -1;
	if (rdma_resolve_route(b->cli.id, STEP_MS / 2))
		return fail("rdma_resolve_route: %s", strerror(errno));
	if (wait_event(&b->cli, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL))
		return -1;
	if (setup_qp(&b->cli))
		return -1;
	if (rdma_connect(b->cli.id, &cp))
		return fail("rdma_connect: %s", strerror(errno));
	if (wait_event(&b->srv, RDMA_CM_EVENT_CONNECT_REQUEST, &ev))
		return -1;
	b->srv.id = ev->id;
	rdma_ack_cm_event(ev);
	if (setup_qp(&b->srv))
		return -1;
	if (rdma_accept(b->srv.id, &cp))
		return fail("rdma_accept: %s", strerror(errno));
	if (wait_event(&b->cli, RDMA_CM_EVENT_ESTABLISHED, NULL) ||
	    wait_event(&b->srv, RDMA_CM_EVENT_ESTABLISHED, NULL))
		return -1;
	b->connected = true;
	return 0;
}

static void teardown(struct bench *b)
{
	struct side *s[2] = { &b->cli, &b->srv };
	int i;

	if (b->mw)
		ibv_dealloc_mw(b->mw);
	if (b->sink_mr)
		ibv_dereg_mr(b->sink_mr);
	if (b->src_mr)
		ibv_dereg_mr(b->src_mr);
	if (b->slot_mr)
		ibv_dereg_mr(b->slot_mr);
	for (i = 0; i < 2; i++) {
		if (s[i]->id && s[i]->id->qp)
			rdma_destroy_qp(s[i]->id);
		if (s[i]->cq)
			ibv_destroy_cq(s[i]->cq);
		if (s[i]->pd)
			ibv_dealloc_pd(s[i]->pd);
		if (s[i]->id)
			rdma_destroy_id(s[i]->id);
		if (s[i]->listen_id)
			rdma_destroy_id(s[i]->listen_id);
		if (s[i]->ch)
			rdma_destroy_event_channel(s[i]->ch);
	}
	if (b->own_pd)
		ibv_dealloc_pd(b->own_pd);
	if (b->ctx)
		ibv_close_device(b->ctx);
	free(b->caller);
	free(b->slot);
	free(b->sink);
}

/* Without a connection: a PD on the first device, for copy and reg. */
static int open_first_device(struct bench *b)
{
	struct ibv_device **list;
	int n;

	list = ibv_get_device_list(&n);
	if (!list || n < 1) {
		if (list)
			ibv_free_device_list(list);
		return fail("no RDMA device");
	}
	b->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!b->ctx)
		return fail("ibv_open_device: %s", strerror(errno));
	b->own_pd = ibv_alloc_pd(b->ctx);
	if (!b->own_pd)
		return fail("ibv_alloc_pd: %s", strerror(errno));
	b->pd = b->own_pd;
	return 0;
}

static int setup_buffers(struct bench *b)
{
	b->caller = malloc(MAX_SIZE);
	b->slot = malloc(MAX_SIZE);
	if (!b->caller || !b->slot)
		return fail("malloc(%lu): out of memory", MAX_SIZE);
	memset(b->caller, 0x5a, MAX_SIZE);	/* touched, as caller data is */
	memset(b->slot, 0, MAX_SIZE);
	b->slot_mr = ibv_reg_mr(b->pd, b->slot, MAX_SIZE, IBV_ACCESS_MW_BIND);
	if (!b->slot_mr)
		return fail("ibv_reg_mr(slot): %s", strerror(errno));
	if (!b->connected)
		return 0;
	b->mw = ibv_alloc_mw(b->pd, IBV_MW_TYPE_2);
	if (!b->mw)
		return fail("ibv_alloc_mw(type 2): %s", strerror(errno));
	/* A second MR over the slot buffer, for the context Reads only. */
	b->src_mr = ibv_reg_mr(b->pd, b->slot, MAX_SIZE,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	b->sink = malloc(MAX_SIZE);
	if (!b->src_mr || !b->sink)
		return fail("Read buffers: %s", strerror(errno));
	memset(b->sink, 0, MAX_SIZE);
	b->sink_mr = ibv_reg_mr(b->srv.pd, b->sink, MAX_SIZE,
				IBV_ACCESS_LOCAL_WRITE);
	if (!b->sink_mr)
		return fail("ibv_reg_mr(sink): %s", strerror(errno));
	return 0;
}

static void print_env(const struct bench *b)
{
	struct utsname u;
	char thp[128] = "?";
	FILE *f;

	if (uname(&u))
		strcpy(u.release, "?");
	f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (f) {
		if (!fgets(thp, sizeof(thp), f))
			strcpy(thp, "?");
		thp[strcspn(thp, "\n")] = '\0';
		fclose(f);
	}
	printf("regcost: kernel %s, device %s, THP %s, budget %ld ms per measurement\n",
	       u.release, ibv_get_device_name(b->pd->context->device), thp,
	       b->budget_ms);
}

static const char *size_str(size_t n, char *buf, size_t len)
{
	if (n >= MiB)
		snprintf(buf, len, "%zu MiB", n / MiB);
	else
		snprintf(buf, len, "%zu KiB", n / KiB);
	return buf;
}

/* -C: memcpy only, into a plain (unregistered) buffer. */
static int copy_table(long budget_ms)
{
	static struct bench b;
	struct utsname u;
	size_t count;
	double us;
	char sz[32];
	int i;

	b.caller = malloc(MAX_SIZE);
	b.slot = malloc(MAX_SIZE);
	if (!b.caller || !b.slot) {
		fprintf(stderr, "regcost: out of memory\n");
		free(b.caller);
		free(b.slot);
		return 1;
	}
	memset(b.caller, 0x5a, MAX_SIZE);
	memset(b.slot, 0, MAX_SIZE);
	if (uname(&u))
		strcpy(u.release, "?");
	printf("regcost: copy only, kernel %s, GLIBC_TUNABLES=%s\n",
	       u.release, getenv("GLIBC_TUNABLES") ?
	       getenv("GLIBC_TUNABLES") : "");
	printf("%-7s %10s %9s %10s\n", "size", "copy_us", "MB/s", "iterations");
	for (i = 0; i < NSIZES; i++) {
		/* Cannot fail: OP_COPY touches no verbs. */
		measure(&b, OP_COPY, sizes[i], budget_ms, &us, &count);
		printf("%-7s %10.2f %9.0f %10zu\n",
		       size_str(sizes[i], sz, sizeof(sz)), us,
		       sizes[i] / us, count);
	}
	free(b.caller);
	free(b.slot);
	return 0;
}

int main(int argc, char **argv)
{
	static struct bench b;
	static double us[NSIZES][NOPS];
	static size_t cnt[NSIZES][NOPS];
	const char *server_addr, *client_addr;
	size_t read_max = MAX_SIZE;
	int opt, i, x_reg = -1, x_zc = -1;
	bool reads_stopped = false, copy_only = false;
	char sz[32];
	enum op op;

	setvbuf(stdout, NULL, _IOLBF, 0);
	b.budget_ms = 1500;
	while ((opt = getopt(argc, argv, "Cb:R:")) != -1) {
		switch (opt) {
		case 'C':
			copy_only = true;
			break;
		case 'b':
			b.budget_ms = strtol(optarg, NULL, 0);
			break;
		case 'R':
			read_max = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr,
				"usage: regcost [-C] [-b MS] [-R MAXSIZE] [SERVER_ADDR [CLIENT_ADDR]]\n");
			return 2;
		}
	}
	if (b.budget_ms < 1) {
		fprintf(stderr, "regcost: -b wants a positive number of ms\n");
		return 2;
	}
	server_addr = optind < argc ? argv[optind] : getenv("RPCRDMA_ADDR_B");
	client_addr = optind + 1 < argc ? argv[optind + 1] :
					  getenv("RPCRDMA_ADDR_A");
	if (copy_only)
		return copy_table(b.budget_ms);
	if (server_addr && client_addr) {
		if (connect_pair(&b, server_addr, client_addr)) {
			fprintf(stderr,
				"regcost: no connection (%s): measuring copy and reg only\n",
				errbuf);
			teardown(&b);
			memset(&b.cli, 0, sizeof(b.cli));
			memset(&b.srv, 0, sizeof(b.srv));
			b.connected = false;
		} else {
			b.pd = b.cli.pd;
		}
	} else {
		fprintf(stderr,
			"regcost: no addresses (RPCRDMA_ADDR_B, RPCRDMA_ADDR_A): measuring copy and reg only\n");
	}
	if (!b.connected && open_first_device(&b)) {
		fprintf(stderr, "regcost: %s\n", errbuf);
		teardown(&b);
		return 1;
	}
	if (setup_buffers(&b)) {
		fprintf(stderr, "regcost: %s\n", errbuf);
		teardown(&b);
		return 1;
	}
	print_env(&b);

	for (i = 0; i < NSIZES; i++) {
		for (op = OP_COPY; op < OP_READ; op++) {
			us[i][op] = -1;
			if ((op == OP_WIN || op == OP_ZC) && !b.connected)
				continue;
			if (measure(&b, op, sizes[i], b.budget_ms, &us[i][op],
				    &cnt[i][op])) {
				fprintf(stderr, "regcost: %s of %zu bytes: %s\n",
					op_name[op], sizes[i], errbuf);
				teardown(&b);
				return 1;
			}
		}
	}
	/* Reads last: on Linux 6.1 a large one may stall or kill the QP. */
	for (i = 0; i < NSIZES; i++) {
		us[i][OP_READ] = -1;
		if (!b.connected || reads_stopped || sizes[i] > read_max)
			continue;
		if (measure(&b, OP_READ, sizes[i], b.budget_ms,
			    &us[i][OP_READ], &cnt[i][OP_READ])) {
			fprintf(stderr,
				"regcost: RDMA Read of %zu bytes: %s (no more Reads)\n",
				sizes[i], errbuf);
			us[i][OP_READ] = -1;
			reads_stopped = true;
			continue;
		}
		if (us[i][OP_READ] * 1000.0 > SLOW_READ_NS) {
			fprintf(stderr,
				"regcost: RDMA Read of %zu bytes took %.0f us: no larger Reads\n",
				sizes[i], us[i][OP_READ]);
			reads_stopped = true;
		}
	}

	printf("%-7s %10s %10s %10s %10s %10s %9s %14s  %s\n", "size",
	       "copy_us", "reg_us", "win_us", "zc_us", "read_us", "reg/copy",
	       "zc/(copy+win)", "iterations c/r/w/z/R");
	for (i = 0; i < NSIZES; i++) {
		double *u = us[i];
		char w[16] = "n/a", z[16] = "n/a", r[16] = "n/a";
		char q[16] = "n/a";

		if (u[OP_WIN] >= 0)
			snprintf(w, sizeof(w), "%.1f", u[OP_WIN]);
		if (u[OP_ZC] >= 0) {
			snprintf(z, sizeof(z), "%.1f", u[OP_ZC]);
			snprintf(q, sizeof(q), "%.2f",
				 u[OP_ZC] / (u[OP_COPY] + u[OP_WIN]));
		}
		if (u[OP_READ] >= 0)
			snprintf(r, sizeof(r), "%.1f", u[OP_READ]);
		printf("%-7s %10.1f %10.1f %10s %10s %10s %9.2f %14s  %zu/%zu/%zu/%zu/%zu\n",
		       size_str(sizes[i], sz, sizeof(sz)), u[OP_COPY],
		       u[OP_REG], w, z, r, u[OP_REG] / u[OP_COPY], q,
		       cnt[i][OP_COPY], cnt[i][OP_REG], cnt[i][OP_WIN],
		       cnt[i][OP_ZC], cnt[i][OP_READ]);
	}
	/* The crossover: the smallest size from which on zero-copy wins. */
	for (i = NSIZES - 1; i >= 0; i--) {
		if (us[i][OP_REG] > us[i][OP_COPY])
			break;
		x_reg = i;
	}
	for (i = NSIZES - 1; b.connected && i >= 0; i--) {
		if (us[i][OP_ZC] > us[i][OP_COPY] + us[i][OP_WIN])
			break;
		x_zc = i;
	}
	for (i = 0; i < NSIZES && us[i][OP_REG] > us[i][OP_COPY]; i++)
		;
	printf("first size with reg <= copy: %s\n", i == NSIZES ?
	       "none up to 16 MiB" : size_str(sizes[i], sz, sizeof(sz)));
	printf("crossover reg <= copy: %s\n", x_reg < 0 ? "none up to 16 MiB" :
	       size_str(sizes[x_reg], sz, sizeof(sz)));
	if (b.connected)
		printf("crossover zc <= copy+win: %s\n",
		       x_zc < 0 ? "none up to 16 MiB" :
		       size_str(sizes[x_zc], sz, sizeof(sz)));
	teardown(&b);
	return 0;
}
