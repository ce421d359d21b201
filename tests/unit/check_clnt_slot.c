/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client's slot floor on the host (xprt_rdma/clnt_slot.c), without a
 * device: a reply buffer that grows holds no old heap bytes (198abdf
 * review #16: a server claiming more reply-chunk bytes than it wrote made
 * the call decode what realloc left there), and a call never gets the
 * XID of a call still in flight or abandoned (review #20: CLSET_XID could
 * set one, and the late reply was then taken for the new call's, or the
 * new call's lost). The engine calls the floor makes are stubs here.
 */
#include <check.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../xprt_rdma/clnt.h"

/* ---- the engine, as far as clnt_slot.c reaches it ---- */

bool rpcrdma_win_bound(const struct rpcrdma_win *w)
{
	(void)w;
	return false;
}

void rpcrdma_win_destroy(struct rpcrdma_win *w)
{
	(void)w;
}

void rpcrdma_ep_close(struct rpcrdma_ep *ep, int err)
{
	(void)ep;
	(void)err;
}

void rpcrdma_mr_dereg(struct rpcrdma_mr *mr)
{
	(void)mr;
}

static struct ct *ct_new(uint32_t nslots)
{
	struct ct *ct = calloc(1, sizeof(*ct));

	ck_assert_ptr_nonnull(ct);
	rpcrdma_opts_default(&ct->opts);
	ct->slots = calloc(nslots, sizeof(*ct->slots));
	ck_assert_ptr_nonnull(ct->slots);
	ct->nslots = nslots;
	for (uint32_t i = 0; i < nslots; i++)
		ck_assert_int_eq(sem_init(&ct->slots[i].wake, 0, 0), 0);
	pthread_mutex_init(&ct->lock, NULL);
	pthread_cond_init(&ct->cv, NULL);
	rpcrdma_req_credits_init(&ct->credits, nslots);
	ct->credits.granted = nslots;
	return ct;
}

static void ct_del(struct ct *ct)
{
	for (uint32_t i = 0; i < ct->nslots; i++) {
		if (ct->slots[i].xdr_ok)
			rpcrdma_xdrgrow_destroy(&ct->slots[i].xdr);
		free(ct->slots[i].reply_buf);
		sem_destroy(&ct->slots[i].wake);
	}
	pthread_cond_destroy(&ct->cv);
	pthread_mutex_destroy(&ct->lock);
	free(ct->slots);
	free(ct);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * A slot's reply buffer, first made and then grown for a larger reply
 * bound, reads zero everywhere: neither the bytes an earlier reply left
 * nor the heap's (malloc and realloc fill new memory with 0x5a here,
 * M_PERTURB) can pass for what a server claimed to write. Sizes stay
 * under glibc's mmap threshold, where that is what the heap would give.
 */
START_TEST(test_reply_buf_zeroed)
{
	struct ct *ct = ct_new(1);
	struct ct_slot *s = &ct->slots[0];

	mallopt(M_PERTURB, 0xa5);
	ct->opts.max_msg = 64 << 10;
	ct->opts.inline_recv = 1024;
	s->reply_hint = 1024;
	ck_assert_int_eq(slot_prepare(ct, s), 0);
	ck_assert_uint_eq(s->reply_cap, 1024);
	ck_assert(all_zero(s->reply_buf, s->reply_cap));
	/* A reply was here; the next call's bound is larger. */
	memset(s->reply_buf, 0xee, s->reply_cap);
	s->reply_hint = 40000;
	ck_assert_int_eq(slot_prepare(ct, s), 0);
	ck_assert_uint_eq(s->reply_cap, 40000);
	ck_assert(all_zero(s->reply_buf, s->reply_cap));
	/* With write chunks behind it (a DDP hint): zero too. */
	memset(s->reply_buf, 0xee, s->reply_cap);
	s->ddp_items = 2;
	s->ddp_max = 8192;
	ck_assert_int_eq(slot_prepare(ct, s), 0);
	ck_assert_uint_eq(s->reply_cap, 40000 + 2 * 8192);
	ck_assert(all_zero(s->reply_buf, s->reply_cap));
	/* Not grown, the buffer stays: small calls pay nothing. */
	s->ddp_items = 0;
	s->reply_hint = 100;
	s->reply_buf[0] = 1;
	ck_assert_int_eq(slot_prepare(ct, s), 0);
	ck_assert_uint_eq(s->reply_buf[0], 1);
	mallopt(M_PERTURB, 0);
	ct_del(ct);
}
END_TEST

/* Slot i in state st with xid. */
static void slot_set(struct ct *ct, uint32_t i, enum slot_state st,
		     uint32_t xid)
{
	ct->slots[i].state = st;
	ct->slots[i].xid = xid;
	if (st != SLOT_FREE)
		ct->credits.inflight++;
}

/*
 * The next XID skips those of calls in flight (WAITING, or OWNED by
 * another caller) and abandoned ones (whose late reply may still come),
 * CLSET_XID's value included, across the 2^32 wrap; free slots' old
 * XIDs do not count.
 */
START_TEST(test_next_xid_skips_live)
{
	struct ct *ct = ct_new(4);
	struct ct_slot *me = &ct->slots[0];
	uint32_t x;

	/* Alone: the counter as it is. */
	slot_set(ct, 0, SLOT_OWNED, 0);
	atomic_store(&ct->next_xid, 100);
	ct->slots[1].xid = 100;		/* free: an old call's */
	ck_assert_uint_eq(ct_next_xid(ct, me), 100);

	/* CLSET_XID to an abandoned call's XID, the next one in flight. */
	slot_set(ct, 1, SLOT_ABANDONED, 200);
	slot_set(ct, 2, SLOT_WAITING, 201);
	slot_set(ct, 3, SLOT_OWNED, 202);
	/* A counter that neither was set nor went round: nothing looked
	 * at (no collision can exist yet). */
	atomic_store(&ct->next_xid, 200);
	ck_assert_uint_eq(ct_next_xid(ct, me), 200);
	/* Once it has issued 2^32, it may meet old ones. */
	ct->xids_issued = (1ull << 32) - 1;
	atomic_store(&ct->next_xid, 200);
	ck_assert_uint_eq(ct_next_xid(ct, me), 203);
	ct->xids_issued = 0;
	/* As CLSET_XID leaves it. */
	ct->xid_set = true;
	atomic_store(&ct->next_xid, 200);
	x = ct_next_xid(ct, me);
	ck_assert_uint_eq(x, 203);
	ck_assert_uint_eq(atomic_load(&ct->next_xid), 204);

	/* Out of order: still none of theirs. */
	ct->slots[1].xid = 302;
	ct->slots[2].xid = 300;
	ct->slots[3].xid = 301;
	atomic_store(&ct->next_xid, 300);
	ck_assert_uint_eq(ct_next_xid(ct, me), 303);

	/* Across the wrap. */
	ct->slots[1].xid = UINT32_MAX;
	ct->slots[2].xid = 0;
	ct->slots[3].xid = 5;
	atomic_store(&ct->next_xid, UINT32_MAX);
	ck_assert_uint_eq(ct_next_xid(ct, me), 1);

	/* Its own slot's old XID is no obstacle. */
	me->xid = 7;
	atomic_store(&ct->next_xid, 7);
	ck_assert_uint_eq(ct_next_xid(ct, me), 7);
	ct_del(ct);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("clnt_slot");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_reply_buf_zeroed);
	tcase_add_test(tc, test_next_xid_skips_live);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
