/* SPDX-License-Identifier: BSD-3-Clause */
/* What a guest test reads of its own process in /proc/self: the
 * resource counts that cleanup and scale tests compare before and after. */
#ifndef RPCRDMA_TESTS_VM_PROCSELF_H
#define RPCRDMA_TESTS_VM_PROCSELF_H

int open_fds(void);	/* entries of /proc/self/fd (compare, do not count) */
long vmrss_kib(void);	/* VmRSS of /proc/self/status */

#endif
