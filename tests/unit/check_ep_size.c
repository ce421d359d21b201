/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An endpoint's queue sizes from its credits and the device's limits
 * (engine/ep_size.h): every queue and the CQ within what the device
 * takes, the credits lowered with them (198abdf review #24: the CQ was
 * clamped to max_cqe alone, and could overrun), and a device too small
 * for one credit refused.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "engine/ep_size.h"

/* Every queue within the device, the CQ holding both queues. */
static void check_fits(const struct ep_sizes *s, uint32_t bc, int max_wr,
		       int max_cqe)
{
	ck_assert_uint_ge(s->credits, 1);
	ck_assert_uint_eq(s->nrx, s->credits + bc + EP_RX_EXTRA);
	ck_assert_uint_eq(s->ntx, s->credits + bc + EP_TX_EXTRA);
	ck_assert_uint_ge(s->sq_depth, s->credits * (1 + EP_RDMA_PER_RPC));
	ck_assert_uint_ge(s->cqe, s->nrx + s->sq_depth + 1);
	if (max_wr > 0) {
		ck_assert_uint_le(s->nrx, (uint32_t)max_wr);
		ck_assert_uint_le(s->sq_depth, (uint32_t)max_wr);
	}
	if (max_cqe > 0)
		ck_assert_uint_le(s->cqe, (uint32_t)max_cqe);
}

/* A device with room: what was asked for. */
START_TEST(test_roomy_device)
{
	struct ep_sizes s;

	ck_assert_int_eq(ep_size(32, 8, 16384, 65536, &s), 0);
	check_fits(&s, 8, 16384, 65536);
	ck_assert_uint_eq(s.credits, 32);
	ck_assert_uint_eq(s.nrx, 48);
	ck_assert_uint_eq(s.sq_depth, 32 * 3 + EP_SQ_SLACK);
	ck_assert_uint_eq(s.cqe, 48 + 112 + 1);
	/* 0 asks for one; nothing reported: 64 work requests. */
	ck_assert_int_eq(ep_size(0, 0, 0, 0, &s), 0);
	ck_assert_uint_eq(s.credits, 1);
	ck_assert_int_eq(ep_size(1000, 0, -1, -1, &s), 0);
	check_fits(&s, 0, EP_DEFAULT_MAX_WR, 0);
	ck_assert_uint_eq(s.credits, EP_DEFAULT_MAX_WR / 4);
}
END_TEST

/*
 * A CQ smaller than the queues: the credits, receives and send queue
 * shrink together until the CQ holds them (before, nrx and sq_depth
 * stayed and only the CQ was clamped).
 */
START_TEST(test_small_cq)
{
	struct ep_sizes s;

	ck_assert_int_eq(ep_size(128, 8, 16384, 256, &s), 0);
	check_fits(&s, 8, 16384, 256);
	ck_assert_uint_lt(s.credits, 128);
	/* The largest that fits: one more credit would not. */
	ck_assert_uint_gt(s.cqe + 2 + EP_RDMA_PER_RPC, 256);
	ck_assert_int_eq(ep_size(32, 8, 16384, 64, &s), 0);
	check_fits(&s, 8, 16384, 64);
	ck_assert_uint_eq(s.credits, (64 - 8 - EP_RX_EXTRA - EP_SQ_SLACK - 1) /
					     (2 + EP_RDMA_PER_RPC));
	/* Every size of CQ from the smallest that works. */
	for (int cqe = 1; cqe < 600; cqe++) {
		int rc = ep_size(64, 8, 16384, cqe, &s);

		if ((uint32_t)cqe < 8 + EP_RX_EXTRA + EP_SQ_SLACK + 1 +
					    2 + EP_RDMA_PER_RPC) {
			ck_assert_int_eq(rc, -ENOSPC);
			continue;
		}
		ck_assert_int_eq(rc, 0);
		check_fits(&s, 8, 16384, cqe);
	}
}
END_TEST

/* Queues shorter than the credits and the backward receives need. */
START_TEST(test_small_queues)
{
	struct ep_sizes s;

	for (int wr = 1; wr < 300; wr++) {
		int rc = ep_size(64, 8, wr, 100000, &s);

		if (rc) {
			ck_assert_int_eq(rc, -ENOSPC);
			/* Only when one credit would not fit. */
			ck_assert(wr < 4 ||
				  1 + 8 + EP_RX_EXTRA > (uint32_t)wr ||
				  1 + EP_RDMA_PER_RPC + EP_SQ_SLACK >
					  (uint32_t)wr);
			continue;
		}
		check_fits(&s, 8, wr, 100000);
	}
	/* Backward credits alone fill the receive queue: refused. */
	ck_assert_int_eq(ep_size(32, 1000, 1000, 100000, &s), -ENOSPC);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("ep_size");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_roomy_device);
	tcase_add_test(tc, test_small_cq);
	tcase_add_test(tc, test_small_queues);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
