/* SPDX-License-Identifier: BSD-3-Clause */
/* The client's round-trip estimate, how long its poller polls before
 * it sleeps, and its deadlines (xprt_rdma/deadline.c). */
#include <check.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../../xprt_rdma/xprt.h"

START_TEST(test_srtt_first_sample)
{
	ck_assert_uint_eq(xprt_srtt_update(0, 250), 250);
	/* A zero sample still counts as known. */
	ck_assert_uint_eq(xprt_srtt_update(0, 0), 1);
	/* A sample past 32 bits is capped, not wrapped. */
	ck_assert_uint_eq(xprt_srtt_update(0, (uint64_t)1 << 40), UINT32_MAX);
}
END_TEST

/* RFC 6298's weights: 7/8 the old estimate, 1/8 the new sample. */
START_TEST(test_srtt_smoothing)
{
	uint32_t s = 800;

	ck_assert_uint_eq(xprt_srtt_update(s, 0), 700);
	ck_assert_uint_eq(xprt_srtt_update(s, 1600), 900);
	/* Converges on a steady round trip. */
	for (int i = 0; i < 100; i++)
		s = xprt_srtt_update(s, 100);
	ck_assert_uint_le(s, 107);
	ck_assert_uint_ge(s, 100);
	/* One slow call moves it by an eighth, not to itself. */
	ck_assert_uint_lt(xprt_srtt_update(100, 100000), 12600);
	/* No overflow at the top. */
	ck_assert_uint_eq(xprt_srtt_update(UINT32_MAX, UINT32_MAX),
			  UINT32_MAX);
}
END_TEST

START_TEST(test_budget_set)
{
	/* A fixed poll_us is that, whatever was observed; 0 never polls. */
	ck_assert_uint_eq(xprt_poll_budget(0, 100, 1000, 1000), 0);
	ck_assert_uint_eq(xprt_poll_budget(300, 0, 1000, 1000), 300);
	ck_assert_uint_eq(xprt_poll_budget(300, 5000, 1000, 9000), 300);
	/* Set in the opts struct past the bound: the bound. */
	ck_assert_uint_eq(xprt_poll_budget(5000000, 0, 0, 0), XPRT_POLL_MAX_US);
}
END_TEST

START_TEST(test_budget_auto)
{
	const uint32_t A = RPCRDMA_POLL_AUTO;

	/* Nothing observed yet: sleep at once. */
	ck_assert_uint_eq(xprt_poll_budget(A, 0, 1000, 1000), 0);
	/* Until two round trips after the call went. */
	ck_assert_uint_eq(xprt_poll_budget(A, 250, 1000, 1000), 500);
	ck_assert_uint_eq(xprt_poll_budget(A, 250, 1000, 1400), 100);
	ck_assert_uint_eq(xprt_poll_budget(A, 250, 1000, 1500), 0);
	ck_assert_uint_eq(xprt_poll_budget(A, 250, 1000, 99999), 0);
	/* Up to the largest round trip worth polling for, not past it. */
	ck_assert_uint_eq(xprt_poll_budget(A, RPCRDMA_POLL_AUTO_MAX_US, 0, 0),
			  2 * RPCRDMA_POLL_AUTO_MAX_US);
	ck_assert_uint_eq(
	    xprt_poll_budget(A, RPCRDMA_POLL_AUTO_MAX_US + 1, 0, 0), 0);
	/* A clock read before the send is no wrap, nor a longer poll. */
	ck_assert_uint_eq(xprt_poll_budget(A, 10, 5000, 4000), 20);
}
END_TEST

/* opts.poll_us as rpcrdma_opts_from_env reads RPCRDMA_POLL_US=v. */
static uint32_t poll_us_from_env(const char *v)
{
	struct rpcrdma_opts o;

	setenv("RPCRDMA_POLL_US", v, 1);
	rpcrdma_opts_from_env(&o);
	unsetenv("RPCRDMA_POLL_US");
	return o.poll_us;
}

/* The library's default is AUTO; the environment can set either. */
START_TEST(test_default_and_env)
{
	struct rpcrdma_opts o;

	rpcrdma_opts_default(&o);
	ck_assert_uint_eq(o.poll_us, RPCRDMA_POLL_AUTO);
	ck_assert_uint_eq(poll_us_from_env("0"), 0);
	ck_assert_uint_eq(poll_us_from_env("auto"), RPCRDMA_POLL_AUTO);
	ck_assert_uint_eq(poll_us_from_env("250"), 250);
	/* Past the bound: the default, as every variable does. */
	ck_assert_uint_eq(poll_us_from_env("100001"), RPCRDMA_POLL_AUTO);
	ck_assert_uint_eq(poll_us_from_env("-1"), RPCRDMA_POLL_AUTO);
}
END_TEST

/*
 * A deadline from a huge timeout (CLSET_TIMEOUT with any tv_sec libtirpc
 * takes) lies far ahead, not in the past: now + TIME_T_MAX overflowed
 * and the call timed out at once (198abdf review #20).
 */
START_TEST(test_deadline_huge)
{
	const time_t tmax = (time_t)((~(unsigned long long)0) >>
				     (65 - 8 * sizeof(time_t)));
	const struct timeval tvs[] = {
		{ tmax, 999999 }, { tmax - 1, 0 }, { tmax / 2, 0 },
		{ INT_MAX, 0 }, { XPRT_TIMEOUT_MAX_S, 0 },
	};
	struct timespec dl, now;

	for (size_t i = 0; i < sizeof(tvs) / sizeof(tvs[0]); i++) {
		xprt_deadline_after(&dl, &tvs[i]);
		ck_assert_int_eq(xprt_ms_left(&dl), INT_MAX);
		/* Clamped to XPRT_TIMEOUT_MAX_S, to the second. */
		clock_gettime(CLOCK_MONOTONIC, &now);
		ck_assert_int_le(dl.tv_sec - now.tv_sec, XPRT_TIMEOUT_MAX_S);
		ck_assert_int_ge(dl.tv_sec - now.tv_sec,
				 XPRT_TIMEOUT_MAX_S - 1);
	}
	/* Ordinary timeouts are what they say. */
	xprt_deadline_after(&dl, &(struct timeval){ 2, 500000 });
	ck_assert_int_gt(xprt_ms_left(&dl), 2400);
	ck_assert_int_le(xprt_ms_left(&dl), 2500);
	xprt_deadline_after(&dl, &(struct timeval){ 0, 0 });
	ck_assert_int_eq(xprt_ms_left(&dl), 0);
	/* A tv_usec past a second carries over (callers refuse it). */
	xprt_deadline_after(&dl, &(struct timeval){ 0, 3000000 });
	ck_assert_int_gt(xprt_ms_left(&dl), 2900);
	ck_assert_int_le(xprt_ms_left(&dl), 3000);
	/* The same from a clock read already made (ct_post's): rounded up
	 * to the millisecond, 0 once past, INT_MAX for the longest. */
	dl.tv_sec = 100;
	dl.tv_nsec = 1500000;
	ck_assert_int_eq(xprt_ms_left_at(&dl, 98000000u), 2002);
	ck_assert_int_eq(xprt_ms_left_at(&dl, 100001499u), 1);
	ck_assert_int_eq(xprt_ms_left_at(&dl, 100001500u), 0);
	ck_assert_int_eq(xprt_ms_left_at(&dl, 200000000u), 0);
	xprt_deadline_after(&dl, &(struct timeval){ XPRT_TIMEOUT_MAX_S, 0 });
	ck_assert_int_eq(xprt_ms_left_at(&dl, xprt_now_us()), INT_MAX);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pollwait");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_srtt_first_sample);
	tcase_add_test(tc, test_srtt_smoothing);
	tcase_add_test(tc, test_budget_set);
	tcase_add_test(tc, test_budget_auto);
	tcase_add_test(tc, test_default_and_env);
	tcase_add_test(tc, test_deadline_huge);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
