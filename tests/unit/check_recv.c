/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What each end does with one received message (lib/recv.c): the
 * responder's decision (recv_rsp.c: drop, RDMA_ERROR with ERR_VERS or
 * ERR_CHUNK, an RDMA_ERROR counted, inline, GARBAGE_ARGS, RDMA Reads
 * bounded by max_msg) and the requester's (recv_req.c: a runt, a bad
 * header, a backward call, a reply against its call's offer: inline up
 * to the room, long up to the reply chunk, RDMA_ERROR, a bad echo).
 * Every outcome and each boundary: exactly at a bound and one past it,
 * sums past 2^32, positions past the inline part, overlapping chunks,
 * empty chunks. Messages are exact heap copies: the sanitizers see a
 * read past their end.
 */
#include "recv_util.h"

static Suite *recv_suite(void)
{
	Suite *s = suite_create("recv");

	recv_add_rsp(s);
	recv_add_req(s);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(recv_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
