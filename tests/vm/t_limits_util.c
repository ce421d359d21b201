/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_limits's shared helper, no tests: slowest_null_calls, the latency
 * other clients see, used by the stall tests (t_limits_stall.c) and the
 * junk flood (t_limits.c).
 */
#define _GNU_SOURCE
#include <rpc/rpc.h>
#include "harness.h"
#include "t_limits.h"

/* The slowest of NULL calls made on cl for ms milliseconds. */
double slowest_null_calls(CLIENT *cl, int ms, int *ncalls)
{
	double end = now_ms() + ms, worst = 0;

	*ncalls = 0;
	while (now_ms() < end) {
		double t0 = now_ms(), dt;

		null_call(cl);
		dt = now_ms() - t0;
		if (dt > worst)
			worst = dt;
		(*ncalls)++;
	}
	return worst;
}
