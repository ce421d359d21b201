/* SPDX-License-Identifier: BSD-3-Clause */
/* Deadlines on CLOCK_MONOTONIC, for clnt_call timeouts in both
 * directions (clnt_rdma.c, svc_bc.c's callbacks), and the client's
 * round-trip estimate and how long its poller polls (clnt_reply.c). */
#include <limits.h>
#include <time.h>
#include "xprt.h"

/*
 * A timeout past XPRT_TIMEOUT_MAX_S waits that long: a deadline of now +
 * any time_t could overflow tv_sec (undefined; in practice a deadline in
 * the past, so a call with a huge CLSET_TIMEOUT timed out at once: 198abdf
 * review #20), and xprt_ms_left's nanoseconds must not overflow either.
 * Negative parts (xprt_timeval_ok refuses them) count as none.
 */
uint64_t xprt_deadline_after(struct timespec *dl, const struct timeval *tv)
{
	uint64_t now;

	time_t sec = tv->tv_sec > 0 ? tv->tv_sec : 0;
	long usec = tv->tv_usec > 0 ? (long)tv->tv_usec : 0;

	/* A tv_usec of a second or more carries over. */
	if (sec < XPRT_TIMEOUT_MAX_S)
		sec += usec / 1000000;
	usec %= 1000000;
	if (sec >= XPRT_TIMEOUT_MAX_S) {
		sec = XPRT_TIMEOUT_MAX_S;
		usec = 0;
	}
	clock_gettime(CLOCK_MONOTONIC, dl);
	now = (uint64_t)dl->tv_sec * 1000000u + (uint64_t)dl->tv_nsec / 1000u;
	dl->tv_sec += sec;
	dl->tv_nsec += usec * 1000;
	if (dl->tv_nsec >= 1000000000L) {
		dl->tv_sec += dl->tv_nsec / 1000000000L;
		dl->tv_nsec %= 1000000000L;
	}
	return now;
}

uint64_t xprt_now_us(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
}

int xprt_ms_left_at(const struct timespec *dl, uint64_t now_us)
{
	long long us = ((long long)dl->tv_sec * 1000000LL +
			dl->tv_nsec / 1000) - (long long)now_us;

	if (us <= 0)
		return 0;
	us = (us + 999) / 1000;
	return us > INT_MAX ? INT_MAX : (int)us;
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

uint32_t xprt_srtt_update(uint32_t srtt_us, uint64_t sample_us)
{
	if (sample_us > UINT32_MAX)
		sample_us = UINT32_MAX;
	if (!srtt_us)
		return sample_us ? (uint32_t)sample_us : 1;
	/* TCP's smoothing (RFC 6298 section 2): 7/8 old, 1/8 new. */
	return (uint32_t)(((uint64_t)srtt_us * 7 + sample_us) / 8);
}

uint32_t xprt_poll_budget(uint32_t poll_us, uint32_t srtt_us,
			  uint64_t sent_us, uint64_t now_us)
{
	uint64_t end;

	if (poll_us != RPCRDMA_POLL_AUTO)
		return poll_us < XPRT_POLL_MAX_US ? poll_us : XPRT_POLL_MAX_US;
	if (!srtt_us || srtt_us > RPCRDMA_POLL_AUTO_MAX_US)
		return 0;
	if (now_us < sent_us)
		now_us = sent_us;
	end = sent_us + 2 * (uint64_t)srtt_us;
	return end > now_us ? (uint32_t)(end - now_us) : 0;
}
