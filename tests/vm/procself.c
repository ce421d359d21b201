/* SPDX-License-Identifier: BSD-3-Clause */
#include <check.h>
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpcrdma/rpcrdma.h>
#include "procself.h"

static int fds_in(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;

	ck_assert_msg(d != NULL, "%s cannot be read", dir);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static long vmrss_in(const char *status)
{
	FILE *f = fopen(status, "r");
	char line[256];
	long kib = -1;

	ck_assert_msg(f != NULL, "%s cannot be read", status);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	ck_assert_int_ge(kib, 0);
	return kib;
}

int open_fds(void)
{
	return fds_in("/proc/self/fd");
}

long vmrss_kib(void)
{
	return vmrss_in("/proc/self/status");
}

int pid_fds(pid_t pid)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%d/fd", (int)pid);
	return fds_in(p);
}

long pid_vmrss_kib(pid_t pid)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	return vmrss_in(p);
}

size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/*
 * The kernel's resource tracking lists one line per object with "pid N"
 * for user objects, each kind's lines told apart by their first key
 * (iproute2 rdma/res-*.c; a cm_id line also shows lqpn, QP and MR lines
 * pdn, hence the order in which keys are tried). One rdma process for all
 * five (batch mode): each exec costs seconds under TCG.
 *
 * The "pid" is that of the thread that made the object (restrack keeps
 * its task), shown only while that thread lives: a QP that a caller's
 * thread made when it reconnected shows no pid once that thread ended
 * (seen on 6.12), nor does a kernel object, which shows "comm [name]".
 * orphans: count those user objects without a pid too, for a process
 * whose other threads made objects and are gone (this one, once no other
 * process of the guest has such objects).
 */
const char *const rdma_res_kinds[RDMA_RES_KINDS] = { "qp", "cq", "mr", "pd",
						     "cm_id" };
static const char *const res_keys[RDMA_RES_KINDS] = { " lqpn ", " cqn ",
						       " mrn ", " pdn ",
						       " cm-idn " };
static const int res_order[RDMA_RES_KINDS] = { 4, 2, 1, 0, 3 };

void rdma_res(pid_t pid, bool orphans, int out[RDMA_RES_KINDS])
{
	char line[512], pat[32];
	FILE *f;

	snprintf(pat, sizeof(pat), " pid %d ", (int)pid);
	f = popen("printf 'resource show qp\\nresource show cq\\n"
		  "resource show mr\\nresource show pd\\n"
		  "resource show cm_id\\n' | rdma -b - 2>&1", "r");
	ck_assert_ptr_nonnull(f);
	memset(out, 0, RDMA_RES_KINDS * sizeof(out[0]));
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, pat) &&
		    (!orphans || strstr(line, " pid ") ||
		     strstr(line, " comm [")))
			continue;
		for (size_t i = 0; i < RDMA_RES_KINDS; i++) {
			if (strstr(line, res_keys[res_order[i]])) {
				out[res_order[i]]++;
				break;
			}
		}
	}
	ck_assert_int_eq(pclose(f), 0);
}

void rdma_res_print(const char *prefix, const char *who, const char *when,
		    const int r[RDMA_RES_KINDS])
{
	printf("%s: rdma resources of the %s %s:", prefix, who, when);
	for (size_t k = 0; k < RDMA_RES_KINDS; k++)
		printf(" %s %d", rdma_res_kinds[k], r[k]);
	printf("\n");
}

#define STATS_FIELDS(X) \
	X(sent_msg) X(sent_nomsg) X(sent_error) X(recv_msg) X(recv_nomsg) \
	X(recv_error) X(calls_inline) X(calls_read_chunks) X(calls_long) \
	X(replies_inline) X(replies_write_chunks) X(replies_long) \
	X(read_chunks) X(write_chunks) X(reply_chunks) X(rdma_read_bytes) \
	X(rdma_write_bytes) X(err_vers_sent) X(err_chunk_sent) \
	X(err_vers_recv) X(err_chunk_recv) X(bad_headers) X(credits_granted) \
	X(inflight_peak) X(credit_waits) X(remote_invalidations) \
	X(local_invalidations) X(connects) X(disconnects) X(credits_grant_min) \
	X(credits_grant_max) X(credit_overruns) X(connections_refused) \
	X(send_failures) X(xid_mismatches) X(xfers_deferred) \
	X(reads_inflight_peak) X(transfer_stalls) X(permission_errors) \
	X(cred_changes) X(replies_unmatched) X(zc_chunks) X(dereg_failures) \
	X(garbage_args_sent) X(bc_calls_sent) X(bc_replies_recv) \
	X(bc_calls_recv) X(bc_replies_sent) X(bc_calls_dropped) X(bc_inflight) \
	X(bc_inflight_peak) X(bc_credits_granted) X(bc_abandoned_closes) \
	X(bc_replies_too_big)

void stats_print(const char *who, const struct rpcrdma_stats *st)
{
	printf("%s:", who);
#define X(f)                                                  \
	if (st->f)                                            \
		printf(" %s=%llu", #f, (unsigned long long)st->f);
	STATS_FIELDS(X)
#undef X
	printf("\n");
	fflush(stdout);
}

/* The first line of /proc/PROC/task/TID/NAME, or "" (no newline). */
static void task_line(const char *proc, const char *tid, const char *name,
		      char *buf, size_t n)
{
	char path[320];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%s/task/%s/%s", proc, tid, name);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, (int)n, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* One look at every thread: state, CPU ticks in user and kernel mode,
 * the system call it is in, its kernel stack. */
static void threads_look(const char *who, const char *proc, int round)
{
	char dir[64];
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "/proc/%s/task", proc);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char comm[64], wchan[96], stat[512], sc[160], path[320];
		char line[160], state = '?';
		unsigned long ut = 0, st = 0;
		const char *p;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		task_line(proc, e->d_name, "comm", comm, sizeof(comm));
		task_line(proc, e->d_name, "wchan", wchan, sizeof(wchan));
		task_line(proc, e->d_name, "stat", stat, sizeof(stat));
		task_line(proc, e->d_name, "syscall", sc, sizeof(sc));
		p = strrchr(stat, ')');
		/* After the name: state, then fields 4..13, utime, stime. */
		if (p && sscanf(p + 2, "%c %*s %*s %*s %*s %*s %*s %*s %*s "
				"%*s %*s %lu %lu", &state, &ut, &st) != 3)
			state = '?';
		printf("%s: [%d] thread %s (%s) state %c utime %lu stime %lu "
		       "wchan %s syscall %.40s\n", who, round, e->d_name, comm,
		       state, ut, st, wchan, sc);
		if (round)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/stack", proc,
			 e->d_name);
		f = fopen(path, "r");
		for (int i = 0; f && i < 12 && fgets(line, sizeof(line), f);
		     i++)
			printf("%s:   %s", who, line);
		if (f)
			fclose(f);
	}
	closedir(d);
	fflush(stdout);
}

void pid_threads_print(const char *who, pid_t pid)
{
	char proc[24] = "self";

	if (pid > 0)
		snprintf(proc, sizeof(proc), "%d", (int)pid);
	/* Two looks a second apart: a thread whose ticks grow spins, in
	 * user space (utime) or in the kernel (stime). No debugger: gdb
	 * attaching to such a thread once left a guest CPU soft-locked. */
	threads_look(who, proc, 0);
	sleep(1);
	threads_look(who, proc, 1);
}

void threads_print(const char *who)
{
	char cmd[600];

	pid_threads_print(who, 0);
	/* The TCP sockets (iWARP's, siw's kernel sockets among them) with
	 * their queues: bytes a side never read show in Recv-Q. */
	snprintf(cmd, sizeof(cmd), "cat /proc/loadavg | sed 's/^/%s: "
		 "loadavg /'; ps -eLo pid,tid,stat,pcpu,time,comm "
		 "--sort=-pcpu | head -n 12 | sed 's/^/%s: ps /'; "
		 "ss -tan | grep -v TIME-WAIT | head -n 20 | sed 's/^/%s: tcp /'; "
		 "dmesg | tail -n 15 | sed 's/^/%s: dmesg /'",
		 who, who, who, who);
	if (system(cmd) != 0)
		printf("%s: no loadavg or dmesg\n", who);
	fflush(stdout);
}

void proc_idle_take(struct proc_idle *i)
{
	i->fds = open_fds();
	malloc_trim(0);
	i->heap = heap_in_use();
	rdma_res(getpid(), false, i->res);
}

void proc_idle_check(const char *who, const struct proc_idle *a,
		     int wait_ms)
{
	struct proc_idle b;

	for (int t = 0;; t += 50) {
		proc_idle_take(&b);
		if ((b.fds == a->fds && b.res[0] == a->res[0]) ||
		    t >= wait_ms)
			break;
		usleep(50000);
	}
	printf("%s: fds %d idle, %d after; malloc'ed %zu idle, %zu after\n",
	       who, a->fds, b.fds, a->heap, b.heap);
	rdma_res_print(who, "process", "idle", a->res);
	rdma_res_print(who, "process", "after", b.res);
	ck_assert_int_eq(b.fds, a->fds);
	for (int k = 0; k < RDMA_RES_KINDS; k++)
		ck_assert_msg(b.res[k] == a->res[k], "%s: %d idle, %d after",
			      rdma_res_kinds[k], a->res[k], b.res[k]);
	ck_assert_msg(b.heap <= a->heap + (16u << 10),
		      "malloc'ed memory grew by %zu bytes", b.heap - a->heap);
}
