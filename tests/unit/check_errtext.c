/* SPDX-License-Identifier: BSD-3-Clause */
/* Every text clnt_sperror adds for a call that met a limit
 * (xprt_rdma/errtext.c): each states the limit met, on which side it
 * lies, and the knob that moves it, with the numbers the call had. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../xprt_rdma/clnt.h"

static char buf[1024];

static const char *text(const struct ct_limit *l)
{
	int n = ct_limit_text(l, buf, sizeof(buf));

	ck_assert_int_eq(n, (int)strlen(buf));
	return buf;
}

#define HAS(t, s) ck_assert_msg(strstr((t), (s)), "no \"%s\" in: %s", (s), (t))
#define HASNT(t, s) ck_assert_msg(!strstr((t), (s)), "\"%s\" in: %s", (s), (t))

START_TEST(test_none)
{
	struct ct_limit l = { .kind = CT_LIM_NONE };

	ck_assert_int_eq(ct_limit_text(&l, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(test_call_max)
{
	struct ct_limit l = { .kind = CT_LIM_CALL, .bytes = 1u << 30 };
	const char *t = text(&l);

	HAS(t, "RPCRDMA_CALL_MAX (1073741824 bytes)");
}
END_TEST

/* Issue 29: a procedure whose hint (512) fits inline read "0 bytes
 * offered". It says the bound, the threshold and the knob. */
START_TEST(test_err_chunk_hint_inline)
{
	struct ct_limit l = { .kind = CT_LIM_ERR_CHUNK, .bytes = 0,
			      .hint = 512, .call = 100, .inline_recv = 4096,
			      .max_msg = 16842752 };
	const char *t = text(&l);

	HAS(t, "ERR_CHUNK");
	HAS(t, "could not send the reply");
	HAS(t, "no reply chunk");
	HAS(t, "reply bound, 512 bytes");
	HAS(t, "4096-byte inline threshold");
	HAS(t, "CLSET_RDMA_PROC_REPLY");
	HASNT(t, "0 bytes");
	/* An inline call: nothing about the server's call limit. */
	HASNT(t, "read chunks");
}
END_TEST

START_TEST(test_err_chunk_no_room)
{
	struct ct_limit l = { .kind = CT_LIM_ERR_CHUNK, .bytes = 0,
			      .inline_recv = 4096 };
	const char *t = text(&l);

	HAS(t, "no room");
	HAS(t, "4096-byte inline threshold");
}
END_TEST

/* A hinted reply chunk: the bound, the knob, the client's ceiling, and
 * that the server's own maximum may be the cause. */
START_TEST(test_err_chunk_hint_chunk)
{
	struct ct_limit l = { .kind = CT_LIM_ERR_CHUNK, .bytes = 65536,
			      .hint = 65536, .call = 120, .inline_recv = 4096,
			      .max_msg = 1048576 };
	const char *t = text(&l);

	HAS(t, "offered 65536 bytes for its reply, the procedure's reply bound");
	HAS(t, "CLSET_RDMA_PROC_REPLY");
	HAS(t, "RPCRDMA_MAX_MSG, 1048576");
	HAS(t, "server's own RPCRDMA_MAX_MSG");
}
END_TEST

/* No hint: the chunk is this client's max_msg, said so. */
START_TEST(test_err_chunk_no_hint)
{
	struct ct_limit l = { .kind = CT_LIM_ERR_CHUNK, .bytes = 1048576,
			      .call = 120, .inline_recv = 4096,
			      .max_msg = 1048576 };
	const char *t = text(&l);

	HAS(t, "offered 1048576 bytes for its reply, this client's RPCRDMA_MAX_MSG");
	HAS(t, "no reply bound");
	HAS(t, "server's own RPCRDMA_MAX_MSG");
}
END_TEST

/* A call in read chunks: the server's maximum is named as the server's,
 * not as a setting of this client's. */
START_TEST(test_err_chunk_big_call)
{
	struct ct_limit l = { .kind = CT_LIM_ERR_CHUNK, .bytes = 32,
			      .hint = 32, .call = 2000040, .call_chunked = true,
			      .inline_recv = 4096, .max_msg = 1048576 };
	const char *t = text(&l);

	HAS(t, "The call, 2000040 bytes, went in read chunks");
	HAS(t, "the server's RPCRDMA_MAX_MSG");
}
END_TEST

START_TEST(test_err_vers)
{
	struct ct_limit l = { .kind = CT_LIM_ERR_VERS };

	HAS(text(&l), "version 1");
}
END_TEST

START_TEST(test_reply)
{
	struct ct_limit l = { .kind = CT_LIM_REPLY, .bytes = 8192,
			      .hint = 8192 };
	const char *t = text(&l);

	HAS(t, "8192 bytes for the reply");
	HAS(t, "CLSET_RDMA_PROC_REPLY");
	HAS(t, "CLSET_RDMA_PROC_DDP");
	l.hint = 0;
	HASNT(text(&l), "CLSET_RDMA_PROC_REPLY");
}
END_TEST

START_TEST(test_memlock)
{
	struct ct_limit l = { .kind = CT_LIM_MEMLOCK, .bytes = 8u << 20 };
	const char *t = text(&l);

	HAS(t, "RLIMIT_MEMLOCK, 8192 KiB");
	HAS(t, "ulimit -l");
	HAS(t, "RPCRDMA_MAX_MSG");
	HAS(t, "CLSET_RDMA_PROC_REPLY");
}
END_TEST

/* A short buffer: cut, terminated, the length says so. */
START_TEST(test_truncated)
{
	struct ct_limit l = { .kind = CT_LIM_ERR_CHUNK, .bytes = 1048576,
			      .call = 2000000, .call_chunked = true,
			      .inline_recv = 4096, .max_msg = 1048576 };
	char small[40];
	int n = ct_limit_text(&l, small, sizeof(small));

	ck_assert_int_eq(n, (int)sizeof(small) - 1);
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	ck_assert_int_eq(ct_limit_text(&l, small, 0), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("errtext");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_none);
	tcase_add_test(tc, test_call_max);
	tcase_add_test(tc, test_err_chunk_hint_inline);
	tcase_add_test(tc, test_err_chunk_no_room);
	tcase_add_test(tc, test_err_chunk_hint_chunk);
	tcase_add_test(tc, test_err_chunk_no_hint);
	tcase_add_test(tc, test_err_chunk_big_call);
	tcase_add_test(tc, test_err_vers);
	tcase_add_test(tc, test_reply);
	tcase_add_test(tc, test_memlock);
	tcase_add_test(tc, test_truncated);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
