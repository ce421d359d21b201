/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-stat: the live counters of every running process that uses
 * librpcrdma, read from the files the library exports (engine/export.h;
 * rpcrdma-stat(1)).
 *
 *   rpcrdma-stat [-d DIR] [-a] [-w SECONDS [-c COUNT]] [PID...]
 *   rpcrdma-stat -f [-a]
 *
 * Without PID: one line per process. With PIDs: each one's totals and
 * each live connection's counters. -w repeats every SECONDS and adds the
 * rate per second of every counter that moved; -a shows counters that
 * are zero too. -f prints the fabric's counters of retransmission and
 * loss instead (tools/fabric.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "engine/export.h"
#include "fabric.h"

/* Every counter by name; gauges (a level, a peak, a grant) get no rate. */
#define C(f, gauge) { #f, offsetof(struct rpcrdma_stats, f), gauge }
static const struct counter {
	const char *name;
	size_t off;
	bool gauge;
} counters[] = {
	C(sent_msg, 0), C(sent_nomsg, 0), C(sent_error, 0),
	C(recv_msg, 0), C(recv_nomsg, 0), C(recv_error, 0),
	C(calls_inline, 0), C(calls_read_chunks, 0), C(calls_long, 0),
	C(replies_inline, 0), C(replies_write_chunks, 0), C(replies_long, 0),
	C(read_chunks, 0), C(write_chunks, 0), C(reply_chunks, 0),
	C(rdma_read_bytes, 0), C(rdma_write_bytes, 0),
	C(err_vers_sent, 0), C(err_chunk_sent, 0), C(err_vers_recv, 0),
	C(err_chunk_recv, 0), C(bad_headers, 0),
	C(credits_granted, 1), C(inflight_peak, 1), C(credit_waits, 0),
	C(remote_invalidations, 0), C(local_invalidations, 0),
	C(connects, 0), C(disconnects, 0),
	C(credits_grant_min, 1), C(credits_grant_max, 1),
	C(credit_overruns, 0), C(connections_refused, 0), C(send_failures, 0),
	C(xid_mismatches, 0), C(xfers_deferred, 0), C(reads_inflight_peak, 1),
	C(transfer_stalls, 0), C(permission_errors, 0), C(cred_changes, 0),
	C(replies_unmatched, 0), C(zc_chunks, 0), C(dereg_failures, 0),
	C(garbage_args_sent, 0),
	C(bc_calls_sent, 0), C(bc_replies_recv, 0), C(bc_calls_recv, 0),
	C(bc_replies_sent, 0), C(bc_calls_dropped, 0), C(bc_inflight, 1),
	C(bc_inflight_peak, 1), C(bc_credits_granted, 1),
	C(bc_abandoned_closes, 0), C(bc_replies_too_big, 0),
	C(memlock_waits, 0), C(memlock_refusals, 0),
	C(server_closes, 0), C(closes_chunk_failed, 0), C(closes_internal, 0),
	C(closes_protocol, 0), C(closes_unreachable, 0),
	C(handshakes_expired, 0), C(closes_idle, 0), C(closes_evicted, 0),
	C(calls_waited_memory, 0), C(conn_mem_peak, 1),
	C(sq_doorbells, 0), C(sq_wrs, 0), C(cq_reaped, 0), C(rq_wrs, 0),
};
#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))
_Static_assert(NCOUNTERS == sizeof(struct rpcrdma_stats) / sizeof(uint64_t),
	       "every counter of struct rpcrdma_stats has a name here");

static struct {
	const char *dir;
	bool all;
	bool fabric;		/* -f */
	unsigned int every;	/* seconds, 0: once */
	unsigned long count;	/* rounds with -w, 0: until interrupted */
} opt = { .dir = RPCRDMA_EXPORT_DIR };

static uint64_t get(const struct rpcrdma_stats *s, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)s + off, sizeof(v));
	return v;
}

/* A process's file, mapped read-only; NULL when it is not one, or its
 * process is gone (a crash left it). */
static const struct rpcrdma_export_file *map_pid(pid_t pid)
{
	const struct rpcrdma_export_file *f;
	char path[PATH_MAX];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/" RPCRDMA_EXPORT_PREFIX "%d", opt.dir,
		 (int)pid);
	if (kill(pid, 0) && errno == ESRCH)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size < sizeof(*f)) {
		close(fd);
		return NULL;
	}
	f = mmap(NULL, sizeof(*f), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return NULL;
	if (memcmp(f->hdr.magic, RPCRDMA_EXPORT_MAGIC, 8) ||
	    __atomic_load_n(&f->hdr.version, __ATOMIC_ACQUIRE) !=
		RPCRDMA_EXPORT_VERSION ||
	    f->hdr.stats_size != sizeof(struct rpcrdma_stats) ||
	    f->hdr.conn_size != sizeof(struct rpcrdma_export_conn) ||
	    f->hdr.nconns != RPCRDMA_EXPORT_CONNS || f->hdr.pid != pid) {
		munmap((void *)f, sizeof(*f));
		return NULL;
	}
	return f;
}

/* The pids with a file in the directory, ascending; their number. */
static size_t list_pids(pid_t **out)
{
	size_t n = 0, cap = 0;
	pid_t *v = NULL;
	struct dirent *d;
	DIR *dir = opendir(opt.dir);

	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		const char *p = d->d_name;
		char *end;
		long pid;

		if (strncmp(p, RPCRDMA_EXPORT_PREFIX,
			    strlen(RPCRDMA_EXPORT_PREFIX)))
			continue;
		pid = strtol(p + strlen(RPCRDMA_EXPORT_PREFIX), &end, 10);
		if (*end || pid <= 0)
			continue;
		if (n == cap) {
			pid_t *nv = realloc(v, (cap = cap ? 2 * cap : 16) *
						       sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		v[n++] = (pid_t)pid;
	}
	closedir(dir);
	for (size_t i = 1; i < n; i++)	/* few: insertion sort */
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			pid_t t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	*out = v;
	return n;
}

/* A snapshot of what a file shows, for rates between two rounds. */
struct snap {
	pid_t pid;
	struct rpcrdma_stats total;
	uint32_t live[RPCRDMA_EXPORT_CONNS];	/* in_use 1, and its since */
	uint64_t since[RPCRDMA_EXPORT_CONNS];
	struct rpcrdma_stats conn[RPCRDMA_EXPORT_CONNS];
};

static void take(const struct rpcrdma_export_file *f, struct snap *s)
{
	s->pid = f->hdr.pid;
	memcpy(&s->total, &f->total, sizeof(s->total));
	for (uint32_t i = 0; i < RPCRDMA_EXPORT_CONNS; i++) {
		s->live[i] = __atomic_load_n(&f->conn[i].in_use,
					     __ATOMIC_ACQUIRE) == 1;
		s->since[i] = f->conn[i].since;
		if (s->live[i])
			memcpy(&s->conn[i], &f->conn[i].stats,
			       sizeof(s->conn[i]));
	}
}

/* name value [(+rate/s)], the counters worth showing, a few per line. */
static void print_counters(const struct rpcrdma_stats *s,
			   const struct rpcrdma_stats *prev, double dt,
			   const char *indent)
{
	int col = 0;

	for (size_t i = 0; i < NCOUNTERS; i++) {
		const struct counter *c = &counters[i];
		uint64_t v = get(s, c->off);
		char item[96];
		int n;

		if (!v && !opt.all)
			continue;
		n = snprintf(item, sizeof(item), "%s %" PRIu64, c->name, v);
		if (prev && dt > 0 && !c->gauge && v >= get(prev, c->off) &&
		    v != get(prev, c->off))
			snprintf(item + n, sizeof(item) - (size_t)n,
				 " (%.0f/s)",
				 (double)(v - get(prev, c->off)) / dt);
		if (col && col + (int)strlen(item) + 2 > 78) {
			putchar('\n');
			col = 0;
		}
		col += printf("%s%s", col ? ", " : indent, item);
	}
	if (col)
		putchar('\n');
}

static uint32_t live_conns(const struct snap *s, uint32_t role,
			   const struct rpcrdma_export_file *f)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < RPCRDMA_EXPORT_CONNS; i++)
		n += s->live[i] && (!role || f->conn[i].role == role);
	return n;
}

/* One line per process. */
static void summary(const struct rpcrdma_export_file *f, const struct snap *s,
		    const struct snap *prev, double dt)
{
	const struct rpcrdma_stats *t = &s->total;
	uint64_t sent = t->sent_msg + t->sent_nomsg + t->sent_error;
	uint64_t recv = t->recv_msg + t->recv_nomsg + t->recv_error;

	printf("%7d %-16.16s %5u %5u %12" PRIu64 " %12" PRIu64 " %14" PRIu64
	       " %14" PRIu64,
	       (int)s->pid, f->hdr.comm,
	       live_conns(s, RPCRDMA_EXPORT_CLIENT, f),
	       live_conns(s, RPCRDMA_EXPORT_SERVER, f), sent, recv,
	       t->rdma_read_bytes, t->rdma_write_bytes);
	if (prev && dt > 0) {
		const struct rpcrdma_stats *p = &prev->total;
		uint64_t psent = p->sent_msg + p->sent_nomsg + p->sent_error;
		uint64_t precv = p->recv_msg + p->recv_nomsg + p->recv_error;

		printf("  %8.0f/s %8.0f/s", (double)(sent - psent) / dt,
		       (double)(recv - precv) / dt);
	}
	putchar('\n');
}

static void detail(const struct rpcrdma_export_file *f, const struct snap *s,
		   const struct snap *prev, double dt)
{
	uint64_t now = (uint64_t)time(NULL);

	printf("process %d (%s), up %" PRIu64 " s: %u connection(s)\n",
	       (int)s->pid, f->hdr.comm,
	       now > f->hdr.started ? now - f->hdr.started : 0,
	       live_conns(s, 0, f));
	printf("  totals:\n");
	print_counters(&s->total, prev && prev->pid == s->pid ? &prev->total
								: NULL,
		       dt, "    ");
	for (uint32_t i = 0; i < RPCRDMA_EXPORT_CONNS; i++) {
		bool same;

		if (!s->live[i])
			continue;
		/* The same connection as last round, not a new one in its
		 * slot. */
		same = prev && prev->pid == s->pid && prev->live[i] &&
		       prev->since[i] == s->since[i];
		printf("  connection %u: %s %s, up %" PRIu64 " s\n", i,
		       f->conn[i].role == RPCRDMA_EXPORT_SERVER ? "from"
								 : "to",
		       f->conn[i].peer,
		       now > s->since[i] ? now - s->since[i] : 0);
		print_counters(&s->conn[i], same ? &prev->conn[i] : NULL, dt,
			       "    ");
	}
}

static int usage(void)
{
	fprintf(stderr,
		"usage: rpcrdma-stat [-d DIR] [-a] [-w SECONDS [-c COUNT]] "
		"[PID...]\n"
		"  the live counters of the processes using librpcrdma\n"
		"  (files DIR/" RPCRDMA_EXPORT_PREFIX "PID, DIR "
		RPCRDMA_EXPORT_DIR " or RPCRDMA_STATS_DIR)\n"
		"  PID       that process in full: totals, each connection\n"
		"  -a        counters that are zero too\n"
		"  -w SECS   again every SECS seconds, with rates per second\n"
		"  -c COUNT  that many rounds (-w), then exit\n"
		"  -f        the fabric's counters of retransmission and loss\n"
		"            (every RDMA port's, TCP's for iWARP) instead\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct snap *cur = NULL, *prev = NULL;
	size_t nprev = 0, ncur;
	const char *env = getenv("RPCRDMA_STATS_DIR");
	struct timespec t0, t1;
	unsigned long round = 0;
	double dt = 0;
	bool missing = false;
	int c;

	if (env && *env)
		opt.dir = env;
	while ((c = getopt(argc, argv, "d:aw:c:fh")) != -1) {
		switch (c) {
		case 'd':
			opt.dir = optarg;
			break;
		case 'a':
			opt.all = true;
			break;
		case 'w':
			opt.every = (unsigned int)strtoul(optarg, NULL, 10);
			if (!opt.every)
				return usage();
			break;
		case 'c':
			opt.count = strtoul(optarg, NULL, 10);
			break;
		case 'f':
			opt.fabric = true;
			break;
		default:
			return usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (opt.fabric)
		return fabric_print(opt.all);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t *pids = NULL;
		size_t n = 0, shown = 0;

		if (optind < argc) {
			n = (size_t)(argc - optind);
			pids = calloc(n, sizeof(*pids));
			if (!pids)
				return 1;
			for (size_t i = 0; i < n; i++)
				pids[i] = (pid_t)strtol(argv[optind + i],
							NULL, 10);
		} else {
			n = list_pids(&pids);
		}
		cur = calloc(n ? n : 1, sizeof(*cur));
		if (!cur)
			return 1;
		if (optind >= argc)
			printf("%7s %-16s %5s %5s %12s %12s %14s %14s%s\n",
			       "PID", "COMMAND", "CLNT", "SRV", "MSGS_SENT",
			       "MSGS_RECV", "RDMA_READ_B", "RDMA_WRITE_B",
			       round ? "     SENT/s     RECV/s" : "");
		ncur = 0;
		for (size_t i = 0; i < n; i++) {
			const struct rpcrdma_export_file *f = map_pid(pids[i]);
			const struct snap *p = NULL;

			if (!f) {
				missing = missing || optind < argc;
				if (optind < argc)
					printf("process %d: no counters "
					       "(not running, not using "
					       "librpcrdma, RPCRDMA_STATS=0, "
					       "or another RPCRDMA_STATS_DIR)"
					       "\n",
					       (int)pids[i]);
				continue;
			}
			take(f, &cur[ncur]);
			for (size_t j = 0; j < nprev; j++)
				if (prev[j].pid == pids[i])
					p = &prev[j];
			if (optind < argc)
				detail(f, &cur[ncur], p, dt);
			else
				summary(f, &cur[ncur], p, dt);
			munmap((void *)f, sizeof(*f));
			ncur++;
			shown++;
		}
		free(pids);
		if (!shown && optind >= argc)
			printf("(no process with counters in %s)\n", opt.dir);
		free(prev);
		prev = cur;
		nprev = ncur;
		round++;
		if (!opt.every || (opt.count && round >= opt.count))
			break;
		sleep(opt.every);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		dt = (double)(t1.tv_sec - t0.tv_sec) +
		     (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		t0 = t1;
		putchar('\n');
	}
	free(prev);
	return missing ? 1 : 0;
}
