/* SPDX-License-Identifier: BSD-3-Clause */
/* Credit accounting (RFC 8166 section 3.3.1): requester and responder. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include <rpcrdma/credits.h>

static void expect_state(const struct rpcrdma_req_credits *c, uint32_t granted,
			 uint32_t inflight, uint32_t peak)
{
	ck_assert_uint_eq(c->granted, granted);
	ck_assert_uint_eq(c->inflight, inflight);
	ck_assert_uint_eq(c->peak, peak);
	ck_assert_uint_le(c->granted, c->max);
	ck_assert_uint_ge(c->granted, 1);
}

/* Section 3.3.3: one credit until the first reply. */
START_TEST(test_init_one_credit)
{
	struct rpcrdma_req_credits c;

	rpcrdma_req_credits_init(&c, 32);
	ck_assert_uint_eq(c.max, 32);
	expect_state(&c, 1, 0, 0);
	ck_assert_uint_eq(c.zero_grants, 0);
	ck_assert_uint_eq(c.clamped_grants, 0);

	ck_assert(rpcrdma_req_credits_get(&c));
	expect_state(&c, 1, 1, 1);
	ck_assert(!rpcrdma_req_credits_get(&c));
	expect_state(&c, 1, 1, 1);

	/* The reply grants 8: seven more may go out. */
	rpcrdma_req_credits_update(&c, 8);
	rpcrdma_req_credits_put(&c);
	expect_state(&c, 8, 0, 1);
}
END_TEST

/* init clears whatever was there (reconnection reuses the struct). */
START_TEST(test_init_resets)
{
	struct rpcrdma_req_credits c;

	rpcrdma_req_credits_init(&c, 4);
	rpcrdma_req_credits_update(&c, 0);
	rpcrdma_req_credits_update(&c, 9);
	ck_assert(rpcrdma_req_credits_get(&c));
	rpcrdma_req_credits_init(&c, 16);
	ck_assert_uint_eq(c.max, 16);
	expect_state(&c, 1, 0, 0);
	ck_assert_uint_eq(c.zero_grants, 0);
	ck_assert_uint_eq(c.clamped_grants, 0);
}
END_TEST

/* max 0 would allow nothing at all; it is taken as 1. */
START_TEST(test_init_max_zero)
{
	struct rpcrdma_req_credits c;

	rpcrdma_req_credits_init(&c, 0);
	ck_assert_uint_eq(c.max, 1);
	expect_state(&c, 1, 0, 0);
	rpcrdma_req_credits_update(&c, 5);
	expect_state(&c, 1, 0, 0);
	ck_assert_uint_eq(c.clamped_grants, 1);
	ck_assert(rpcrdma_req_credits_get(&c));
	ck_assert(!rpcrdma_req_credits_get(&c));
}
END_TEST

/* A zero grant MUST NOT be sent; received anyway it counts as 1. */
START_TEST(test_zero_grant)
{
	struct rpcrdma_req_credits c;

	rpcrdma_req_credits_init(&c, 8);
	rpcrdma_req_credits_update(&c, 4);
	expect_state(&c, 4, 0, 0);
	rpcrdma_req_credits_update(&c, 0);
	expect_state(&c, 1, 0, 0);
	ck_assert_uint_eq(c.zero_grants, 1);
	ck_assert_uint_eq(c.clamped_grants, 0);
	/* Still able to make progress: one call at a time. */
	ck_assert(rpcrdma_req_credits_get(&c));
	ck_assert(!rpcrdma_req_credits_get(&c));
	rpcrdma_req_credits_update(&c, 0);
	rpcrdma_req_credits_update(&c, 0);
	ck_assert_uint_eq(c.zero_grants, 3);
	expect_state(&c, 1, 1, 1);
}
END_TEST

START_TEST(test_clamp_above_max)
{
	struct rpcrdma_req_credits c;

	rpcrdma_req_credits_init(&c, 8);
	rpcrdma_req_credits_update(&c, 8);	/* == max: not clamped */
	expect_state(&c, 8, 0, 0);
	ck_assert_uint_eq(c.clamped_grants, 0);
	rpcrdma_req_credits_update(&c, 9);
	expect_state(&c, 8, 0, 0);
	ck_assert_uint_eq(c.clamped_grants, 1);
	rpcrdma_req_credits_update(&c, UINT32_MAX);
	expect_state(&c, 8, 0, 0);
	ck_assert_uint_eq(c.clamped_grants, 2);
	ck_assert_uint_eq(c.zero_grants, 0);
	rpcrdma_req_credits_update(&c, 1);
	expect_state(&c, 1, 0, 0);
	ck_assert_uint_eq(c.clamped_grants, 2);
}
END_TEST

/* get() stops exactly at the grant; put() makes room again. */
START_TEST(test_get_put_limit)
{
	struct rpcrdma_req_credits c;
	uint32_t k;

	rpcrdma_req_credits_init(&c, 8);
	rpcrdma_req_credits_update(&c, 4);
	for (k = 1; k <= 4; k++) {
		ck_assert(rpcrdma_req_credits_get(&c));
		expect_state(&c, 4, k, k);
	}
	ck_assert(!rpcrdma_req_credits_get(&c));
	expect_state(&c, 4, 4, 4);
	rpcrdma_req_credits_put(&c);
	expect_state(&c, 4, 3, 4);
	ck_assert(rpcrdma_req_credits_get(&c));
	expect_state(&c, 4, 4, 4);
	ck_assert(!rpcrdma_req_credits_get(&c));
}
END_TEST

/*
 * The responder lowers its grant from 4 to 2 while 4 calls are out: the
 * calls stay out, no new one may start until inflight < 2.
 */
START_TEST(test_shrink_below_inflight)
{
	struct rpcrdma_req_credits c;
	uint32_t k;

	rpcrdma_req_credits_init(&c, 8);
	rpcrdma_req_credits_update(&c, 4);
	for (k = 0; k < 4; k++)
		ck_assert(rpcrdma_req_credits_get(&c));
	rpcrdma_req_credits_update(&c, 2);
	expect_state(&c, 2, 4, 4);
	ck_assert(!rpcrdma_req_credits_get(&c));
	rpcrdma_req_credits_put(&c);		/* 3 out */
	ck_assert(!rpcrdma_req_credits_get(&c));
	rpcrdma_req_credits_put(&c);		/* 2 out == grant */
	ck_assert(!rpcrdma_req_credits_get(&c));
	expect_state(&c, 2, 2, 4);
	rpcrdma_req_credits_put(&c);		/* 1 out */
	ck_assert(rpcrdma_req_credits_get(&c));	/* 2 out */
	ck_assert(!rpcrdma_req_credits_get(&c));
	expect_state(&c, 2, 2, 4);

	/* The grant grows again: up to 8 (max). */
	rpcrdma_req_credits_update(&c, 100);
	for (k = 3; k <= 8; k++)
		ck_assert(rpcrdma_req_credits_get(&c));
	ck_assert(!rpcrdma_req_credits_get(&c));
	expect_state(&c, 8, 8, 8);
}
END_TEST

/* peak is the highest inflight ever, not the current one. */
START_TEST(test_peak)
{
	struct rpcrdma_req_credits c;

	rpcrdma_req_credits_init(&c, 16);
	rpcrdma_req_credits_update(&c, 16);
	ck_assert(rpcrdma_req_credits_get(&c));
	ck_assert(rpcrdma_req_credits_get(&c));
	ck_assert(rpcrdma_req_credits_get(&c));
	rpcrdma_req_credits_put(&c);
	rpcrdma_req_credits_put(&c);
	rpcrdma_req_credits_put(&c);
	expect_state(&c, 16, 0, 3);
	ck_assert(rpcrdma_req_credits_get(&c));
	ck_assert(rpcrdma_req_credits_get(&c));
	expect_state(&c, 16, 2, 3);
	ck_assert(rpcrdma_req_credits_get(&c));
	ck_assert(rpcrdma_req_credits_get(&c));
	expect_state(&c, 16, 4, 4);
	/* A refused get() does not move peak. */
	rpcrdma_req_credits_update(&c, 1);
	ck_assert(!rpcrdma_req_credits_get(&c));
	expect_state(&c, 1, 4, 4);
}
END_TEST

/* put() on zero inflight stays at zero (no wrap to 2^32-1). */
START_TEST(test_put_underflow)
{
	struct rpcrdma_req_credits c;

	rpcrdma_req_credits_init(&c, 4);
	rpcrdma_req_credits_put(&c);
	expect_state(&c, 1, 0, 0);
	ck_assert(rpcrdma_req_credits_get(&c));
	rpcrdma_req_credits_put(&c);
	rpcrdma_req_credits_put(&c);
	rpcrdma_req_credits_put(&c);
	expect_state(&c, 1, 0, 1);
	/* And the accounting still works afterwards. */
	ck_assert(rpcrdma_req_credits_get(&c));
	ck_assert(!rpcrdma_req_credits_get(&c));
}
END_TEST

/* NULL handles are ignored / refused, never dereferenced. */
START_TEST(test_null)
{
	rpcrdma_req_credits_init(NULL, 4);
	ck_assert(!rpcrdma_req_credits_get(NULL));
	rpcrdma_req_credits_put(NULL);
	rpcrdma_req_credits_update(NULL, 3);
}
END_TEST

/* ---- responder ---- */

struct grant_vec {
	uint32_t requested, max, posted, grant;
};

/*
 * grant = max(1, min(requested or 1, max, posted)): never 0 (section
 * 3.3.1), never beyond our limit or the receives actually posted, and no
 * more than asked for.
 */
static const struct grant_vec grant_vecs[] = {
	{ 0, 32, 32, 1 },		/* request 0 read as 1 */
	{ 1, 32, 32, 1 },
	{ 8, 32, 32, 8 },		/* less than max: honoured */
	{ 32, 32, 32, 32 },		/* exactly max */
	{ 64, 32, 32, 32 },		/* more than max */
	{ 64, 32, 16, 16 },		/* more than receives posted */
	{ 16, 32, 8, 8 },		/* below max, above posted */
	{ 8, 32, 1, 1 },
	{ 8, 32, 0, 1 },		/* nothing posted: still 1 */
	{ 0, 32, 0, 1 },
	{ 5, 0, 10, 1 },		/* max 0: still 1 */
	{ 0, 0, 0, 1 },
	{ 128, 128, 256, 128 },		/* more posted than max */
	{ UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX },
	{ UINT32_MAX, 64, UINT32_MAX, 64 },
};

START_TEST(test_rsp_grant_table)
{
	const struct grant_vec *v = &grant_vecs[_i];

	ck_assert_uint_eq(rpcrdma_rsp_credits_grant(v->requested, v->max,
						    v->posted),
			  v->grant);
}
END_TEST

/* A requester fed by our responder never exceeds what was posted. */
START_TEST(test_rsp_to_req)
{
	struct rpcrdma_req_credits c;
	uint32_t posted = 6, n = 0;

	rpcrdma_req_credits_init(&c, 16);
	rpcrdma_req_credits_update(&c,
				   rpcrdma_rsp_credits_grant(16, 32, posted));
	while (rpcrdma_req_credits_get(&c))
		n++;
	ck_assert_uint_eq(n, posted);
	ck_assert_uint_eq(c.zero_grants, 0);
	ck_assert_uint_eq(c.clamped_grants, 0);
}
END_TEST

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static Suite *credits_suite(void)
{
	Suite *s = suite_create("credits");
	TCase *tc;

	tc = tcase_create("requester");
	tcase_add_test(tc, test_init_one_credit);
	tcase_add_test(tc, test_init_resets);
	tcase_add_test(tc, test_init_max_zero);
	tcase_add_test(tc, test_zero_grant);
	tcase_add_test(tc, test_clamp_above_max);
	tcase_add_test(tc, test_get_put_limit);
	tcase_add_test(tc, test_shrink_below_inflight);
	tcase_add_test(tc, test_peak);
	tcase_add_test(tc, test_put_underflow);
	tcase_add_test(tc, test_null);
	suite_add_tcase(s, tc);

	tc = tcase_create("responder");
	tcase_add_loop_test(tc, test_rsp_grant_table, 0, NELEM(grant_vecs));
	tcase_add_test(tc, test_rsp_to_req);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(credits_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
