/* SPDX-License-Identifier: BSD-3-Clause */
/* What a guest test reads of a process in /proc, and in the kernel's RDMA
 * resource tracking: the resource counts that cleanup, scale and fault
 * tests compare before and after. */
#ifndef RPCRDMA_TESTS_VM_PROCSELF_H
#define RPCRDMA_TESTS_VM_PROCSELF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

int open_fds(void);	/* entries of /proc/self/fd (compare, do not count) */
long vmrss_kib(void);	/* VmRSS of /proc/self/status */
/* The same of another process (a server child): /proc/PID/... */
int pid_fds(pid_t pid);
long pid_vmrss_kib(pid_t pid);
/* Bytes malloc has handed out and not had back (every arena, mmapped
 * blocks too): unlike VmRSS, blind to what the allocator caches and to
 * thread stacks. */
size_t heap_in_use(void);

/* RDMA objects of a process by kind (`rdma resource show KIND`):
 * out[k] counts the objects of kind rdma_res_kinds[k] owned by pid, and
 * with orphans those of no live thread too (procself.c says when). */
#define RDMA_RES_KINDS	5
extern const char *const rdma_res_kinds[RDMA_RES_KINDS]; /* qp cq mr pd
							     cm_id */
void rdma_res(pid_t pid, bool orphans, int out[RDMA_RES_KINDS]);
/* "PREFIX: rdma resources of the WHO WHEN: qp N cq N ..." */
void rdma_res_print(const char *prefix, const char *who, const char *when,
		    const int r[RDMA_RES_KINDS]);

/* What the process holds, for "back to idle" checks: descriptors, RDMA
 * objects and malloc'ed bytes (after malloc_trim). proc_idle_check waits
 * up to wait_ms for the descriptors and QPs to come back, prints both
 * and asserts the same descriptors and RDMA objects and the heap within
 * 16 KiB (a connection's buffers alone are hundreds). */
struct proc_idle {
	int fds;
	int res[RDMA_RES_KINDS];
	size_t heap;
};
void proc_idle_take(struct proc_idle *i);
void proc_idle_check(const char *who, const struct proc_idle *a,
		     int wait_ms);

struct rpcrdma_stats;
/* Prints the nonzero counters of st on one line after who (a failing
 * test says what the transport saw). */
void stats_print(const char *who, const struct rpcrdma_stats *st);
/* Prints each thread of this process twice, a second apart: its name,
 * state, CPU ticks (user, kernel), system call, where it sleeps in the
 * kernel and its kernel stack; then the load and the kernel's log (a
 * hang says where, a spin shows as growing ticks). */
void threads_print(const char *who);
/* Only the threads, of another process (pid > 0; 0: this one). */
void pid_threads_print(const char *who, pid_t pid);

#endif
