/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the t_limits sources (t_limits.c, t_limits_credits.c,
 * t_limits_stall.c): the latency probe defined once in t_limits_util.c,
 * and the functions that add the other files' tests to the one TCase
 * "limits" at their places in its order.
 */
#ifndef T_LIMITS_H
#define T_LIMITS_H

#include <check.h>
#include <rpc/rpc.h>

/* The slowest of NULL calls made on cl for ms milliseconds. */
double slowest_null_calls(CLIENT *cl, int ms, int *ncalls);

/* The tests of t_limits_credits.c, t_limits_stall.c, t_limits_idle.c,
 * t_limits_mem.c. */
void t_limits_add_credits(TCase *tc);
void t_limits_add_stalls(TCase *tc);
void t_limits_add_idle(TCase *tc);
void t_limits_add_mem(TCase *tc);

#endif /* T_LIMITS_H */
