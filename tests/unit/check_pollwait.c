/* SPDX-License-Identifier: BSD-3-Clause */
/* The client's round-trip estimate and how long its poller polls before
 * it sleeps (xprt_rdma/deadline.c). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

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
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
