/* SPDX-License-Identifier: BSD-3-Clause */
/* What a guest test reads of a process in /proc: the resource counts
 * that cleanup and scale tests compare before and after. */
#ifndef RPCRDMA_TESTS_VM_PROCSELF_H
#define RPCRDMA_TESTS_VM_PROCSELF_H

#include <sys/types.h>

int open_fds(void);	/* entries of /proc/self/fd (compare, do not count) */
long vmrss_kib(void);	/* VmRSS of /proc/self/status */
/* The same of another process (a server child): /proc/PID/... */
int pid_fds(pid_t pid);
long pid_vmrss_kib(pid_t pid);

#endif
