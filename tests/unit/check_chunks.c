/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire rules the glue calls on a decoded header or on raw message
 * bytes (lib/chunks.h). The server's: the peek for an answer to a
 * backward call (lib/hdr.c), the responder's echo of the write list and
 * of the reply chunk and the rkey a reply may invalidate (lib/chunks.c),
 * and read chunks by position (lib/splice.c). The client's: the peek for
 * a backward call (lib/hdr.c), the check of a reply against its call's
 * offer (lib/chunks.c) and the size of the reply chunk offered
 * (lib/plan.c). Normal paths byte for byte where
 * they encode, and what a hostile peer can send: bad counts, lengths and
 * positions, overlapping pieces, empty chunks, lists that do not match.
 */
#include "chunks_util.h"

/* One suite, its cases in four files (chunks_util.h). */
static Suite *chunks_suite(void)
{
	Suite *s = suite_create("chunks");

	chunks_add_peek(s);
	chunks_add_reply(s);
	chunks_add_pieces(s);
	chunks_add_call(s);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(chunks_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
