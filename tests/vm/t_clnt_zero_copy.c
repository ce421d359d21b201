/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * t_clnt: zero-copy read chunks from the caller's memory, copied after
 * all below the threshold or with DDP off (test_zero_copy), from a
 * read-only mapping of a file (test_zero_copy_mmap), and a Long Call
 * carrying DDP items in read chunks at their positions
 * (test_long_call_ddp).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "t_clnt.h"

/*
 * Zero-copy read chunks (opts.zc_threshold, 1 MiB by default): an
 * argument item that large goes to the server from the caller's memory,
 * registered for the call (a window over it where windows are used),
 * not copied: zc_chunks counts it and the server hashes exactly the
 * caller's bytes. Two such items and a small one in one call; an item in
 * read-only memory goes zero-copy too (registered REMOTE_READ only, no
 * local write), except through a window: the kernel pins an MR that
 * binds windows for writing (MW_BIND, ib_access_writable), which
 * read-only pages refuse, and the item is copied; below the threshold,
 * or with it 0, nothing is zero-copy; a Long Call (DDP off) copies the
 * message whole.
 */
static const char zc_rodata[(1u << 20) + 8] = "read-only";

START_TEST(test_zero_copy)
{
	enum { ZC = (1u << 20) + 4 };
	struct blob big = { ZC, mkdata(41, ZC) };
	struct blob ro = { sizeof(zc_rodata), (char *)zc_rodata };
	struct trio t;
	struct rpcrdma_stats a, b;
	u_int h = 0;
	struct rpcrdma_opts o;
	struct srv s;
	CLIENT *cl;

	srv_start(&s, 4, 8u << 20);
	cl = clnt_mk(s.port, 4, 8u << 20);
	a = stats_of(cl);
	hash_check(cl, &big);
	b = stats_of(cl);
	ck_assert_uint_eq(b.calls_read_chunks - a.calls_read_chunks, 1);
	ck_assert_uint_eq(b.zc_chunks - a.zc_chunks, 1);

	/* Three items, two of them zero-copy, hashed as sent. */
	t.b[0] = big;
	t.b[1] = (struct blob){ 3001, mkdata(42, 3001) };
	t.b[2] = (struct blob){ ZC + 7, mkdata(43, ZC + 7) };
	a = stats_of(cl);
	expect_ok(cl, clnt_call(cl, P_HASH3, XP(xdr_trio), &t, XP(xdr_u_int),
				&h, tmo), "hash3");
	b = stats_of(cl);
	ck_assert_uint_eq(h, trio_hash(&t));
	ck_assert_uint_eq(b.zc_chunks - a.zc_chunks, 2);
	ck_assert_uint_eq(b.read_chunks - a.read_chunks, 3);
	free(t.b[1].data);
	free(t.b[2].data);

	/* Read-only pages: registered without local write, zero-copy;
	 * through a window refused, the item copied. */
	a = stats_of(cl);
	hash_check(cl, &ro);
	b = stats_of(cl);
	ck_assert_uint_eq(b.calls_read_chunks - a.calls_read_chunks, 1);
	ck_assert_uint_eq(b.zc_chunks - a.zc_chunks,
			  windows_expected() ? 0 : 1);
	clnt_destroy(cl);

	/* Threshold 0: always copied; DDP off: a Long Call, copied. */
	for (int c = 0; c < 2; c++) {
		rpcrdma_opts_default(&o);
		if (c == 0)
			o.zc_threshold = 0;
		else
			o.ddp_threshold = 0;
		clnt_base = &o;
		cl = clnt_mk(s.port, 4, 8u << 20);
		clnt_base = NULL;
		a = stats_of(cl);
		hash_check(cl, &big);
		b = stats_of(cl);
		ck_assert_uint_eq(b.zc_chunks, a.zc_chunks);
		ck_assert_uint_eq(b.calls_long - a.calls_long, c);
		clnt_destroy(cl);
	}
	clnt_ddp = RPCRDMA_DDP_THRESHOLD;
	free(big.data);
	srv_stop(&s);
}
END_TEST

/*
 * n bytes of mkdata(seed) in a file (on /run, a tmpfs in the guest, whose
 * /tmp is 9p; else /dev/shm or /tmp), mapped PROT_READ, MAP_PRIVATE; the
 * file is gone once unmapped.
 */
static char *ro_file_map(size_t n, uint32_t seed)
{
	static const char *const dirs[] = { "/run", "/dev/shm", "/tmp" };
	char *data = mkdata(seed, n), path[64];
	size_t done = 0;
	void *m;
	int fd = -1;

	for (size_t i = 0; fd < 0 && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/t_clnt_zc.XXXXXX", dirs[i]);
		fd = mkstemp(path);
	}
	ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
	ck_assert_int_eq(unlink(path), 0);
	while (done < n) {
		ssize_t w = write(fd, data + done, n - done);

		ck_assert_msg(w > 0, "write: %s", strerror(errno));
		done += (size_t)w;
	}
	m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_msg(m != MAP_FAILED, "mmap: %s", strerror(errno));
	close(fd);
	ck_assert_mem_eq(m, data, n);
	free(data);
	return m;
}

/*
 * Zero-copy from a read-only mapping of a file (security review 21c8dd5,
 * finding 9): a 1 MiB argument item in a PROT_READ mapping goes to the
 * server from there, not copied: zc_chunks counts it and the server
 * hashes exactly the file's bytes. The item is registered REMOTE_READ
 * only. With LOCAL_WRITE as well, as before the fix, the kernel pins the
 * pages for writing, which a read-only mapping refuses: the item was
 * copied and this test fails. MAP_PRIVATE, not MAP_SHARED: before Linux
 * 6.2 the kernel pins even a read-only registration by a forced write
 * (FOLL_FORCE), which a private mapping takes by copy on write and a
 * shared read-only one refuses. Where windows are used (rxe from 6.12)
 * the window's MR is pinned for writing whatever its access (MW_BIND,
 * ib_access_writable): there the item is copied, and a second client with
 * RPCRDMA_WINDOWS=0 checks the registration.
 */
START_TEST(test_zero_copy_mmap)
{
	enum { N = 1u << 20 };
	const char *env = getenv("RPCRDMA_WINDOWS");
	char *saved = env ? strdup(env) : NULL;
	bool win = windows_expected();
	struct rpcrdma_stats a, b;
	struct blob ro = { N, NULL };
	struct srv s;
	CLIENT *cl;

	ck_assert(!env || saved);
	ro.data = ro_file_map(N, 61);
	srv_start(&s, 4, 8u << 20);
	for (int c = 0; c < (win ? 2 : 1); c++) {
		if (c == 1)
			ck_assert_int_eq(setenv("RPCRDMA_WINDOWS", "0", 1), 0);
		cl = clnt_mk(s.port, 4, 8u << 20);	/* reads it here */
		if (c == 1)
			ck_assert_int_eq(saved ? setenv("RPCRDMA_WINDOWS",
							saved, 1)
					       : unsetenv("RPCRDMA_WINDOWS"),
					 0);
		if (win && c == 0)
			printf("test_zero_copy_mmap: windows: the item is "
			       "copied; then RPCRDMA_WINDOWS=0\n");
		a = stats_of(cl);
		hash_check(cl, &ro);
		b = stats_of(cl);
		ck_assert_uint_eq(b.calls_read_chunks - a.calls_read_chunks, 1);
		ck_assert_uint_eq(b.zc_chunks - a.zc_chunks,
				  win && c == 0 ? 0 : 1);
		clnt_destroy(cl);
	}
	ck_assert_int_eq(munmap(ro.data, N), 0);
	free(saved);
	srv_stop(&s);
}
END_TEST

/*
 * A Long Call with DDP items (RFC 8166 sections 3.5.3 and 3.4.5): with a
 * 1024-byte inline threshold, a 1000-byte blob (below the DDP threshold)
 * keeps the rest of the call from fitting inline, so the rest goes in a
 * position-zero read chunk and the two large blobs in read chunks at
 * their positions (one of them zero-copy), which the server splices into
 * the call: RDMA_NOMSG, three read chunks, the hash of exactly what was
 * sent. With DDP off the same call is one plain Long Call.
 */
START_TEST(test_long_call_ddp)
{
	struct rpcrdma_stats a, b;
	struct rpcrdma_opts o;
	struct trio t;
	struct srv s;
	CLIENT *cl;
	u_int h = 0;

	t.b[0] = (struct blob){ 65537, mkdata(51, 65537) };
	t.b[1] = (struct blob){ 1000, mkdata(52, 1000) };
	t.b[2] = (struct blob){ (1u << 20) + 3, mkdata(53, (1u << 20) + 3) };
	srv_start(&s, 4, 4u << 20);
	for (int c = 0; c < 2; c++) {
		rpcrdma_opts_default(&o);
		o.inline_send = o.inline_recv = 1024;
		if (c == 1)
			o.ddp_threshold = 0;
		clnt_base = &o;
		cl = clnt_mk(s.port, 4, 4u << 20);
		clnt_base = NULL;
		a = stats_of(cl);
		expect_ok(cl, clnt_call(cl, P_HASH3, XP(xdr_trio), &t,
					XP(xdr_u_int), &h, tmo), "hash3");
		b = stats_of(cl);
		ck_assert_uint_eq(h, trio_hash(&t));
		ck_assert_uint_eq(b.calls_long - a.calls_long, 1);
		ck_assert_uint_eq(b.sent_nomsg - a.sent_nomsg, 1);
		ck_assert_uint_eq(b.read_chunks - a.read_chunks, c ? 1 : 3);
		ck_assert_uint_eq(b.zc_chunks - a.zc_chunks, c ? 0 : 1);
		clnt_destroy(cl);
	}
	clnt_ddp = RPCRDMA_DDP_THRESHOLD;
	for (int i = 0; i < 3; i++)
		free(t.b[i].data);
	srv_stop(&s);
}
END_TEST

void t_clnt_add_zero_copy(TCase *tc)
{
	tcase_add_test(tc, test_zero_copy);
	tcase_add_test(tc, test_zero_copy_mmap);
	tcase_add_test(tc, test_long_call_ddp);
}
