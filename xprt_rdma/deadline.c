/* SPDX-License-Identifier: BSD-3-Clause */
/* Deadlines on CLOCK_MONOTONIC, for clnt_call timeouts in both
 * directions (clnt_rdma.c, svc_bc.c's callbacks). */
#include <limits.h>
#include <time.h>
#include "xprt.h"

void xprt_deadline_after(struct timespec *dl, const struct timeval *tv)
{
	clock_gettime(CLOCK_MONOTONIC, dl);
	dl->tv_sec += tv->tv_sec;
	dl->tv_nsec += (long)tv->tv_usec * 1000;
	if (dl->tv_nsec >= 1000000000L) {
		dl->tv_sec += dl->tv_nsec / 1000000000L;
		dl->tv_nsec %= 1000000000L;
	}
}

uint64_t xprt_now_us(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

int xprt_ms_left(const struct timespec *dl)
{
	struct timespec now;
	long long ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (long long)(dl->tv_sec - now.tv_sec) * 1000000000LL +
	     (dl->tv_nsec - now.tv_nsec);
	if (ns <= 0)
		return 0;
	ns = (ns + 999999) / 1000000;
	return ns > INT_MAX ? INT_MAX : (int)ns;
}
