/* SPDX-License-Identifier: BSD-3-Clause */
/* What the process may pin (engine/pin.c) and the default max_msg that
 * follows from it (xprt_rdma/opts.c): each test runs in a child of its
 * own (check's fork mode), which drops CAP_IPC_LOCK, as an ordinary user
 * has none, and sets RLIMIT_MEMLOCK; the library's cap on what a server
 * pins for its clients (RPCRDMA_MAX_PINNED), read once per process; and
 * a server connection's cap on its calls' bytes (RPCRDMA_CONN_MEM_MAX),
 * in the same syntax. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "../../xprt_rdma/xprt.h"

#define KIB 1024u
#define MIB (1024u * 1024u)

static void drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {
	    .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	ck_assert_int_eq(syscall(SYS_capget, &h, d), 0);
	d[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	ck_assert_int_eq(syscall(SYS_capset, &h, d), 0);
}

/* Sets the limit (soft and hard: lowering needs no privilege, raising
 * needs CAP_SYS_RESOURCE, which a container may lack); false when the
 * hard limit is below v and cannot be raised. */
static bool set_memlock(rlim_t v)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	rl.rlim_cur = v;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < v)
		rl.rlim_max = v;
	return setrlimit(RLIMIT_MEMLOCK, &rl) == 0;
}

static uint32_t default_max_msg(void)
{
	struct rpcrdma_opts o;

	rpcrdma_opts_default(&o);
	return o.max_msg;
}

/* Debian's default for a user: 8 MiB locked. max_msg 1 MiB, an eighth. */
START_TEST(test_debian_user)
{
	drop_ipc_lock();
	if (!set_memlock(8 * MIB))
		return; /* a hard limit below 8 MiB we cannot raise */
	ck_assert_uint_eq(rpcrdma_pin_limit(), 8 * MIB);
	ck_assert_uint_eq(default_max_msg(), 1 * MIB);
}
END_TEST

/* Powers of two within an eighth, 64 KiB at least, the usual default at
 * most. Largest first: a limit once lowered may not go back up. */
START_TEST(test_scaling)
{
	static const struct {
		rlim_t lim;
		uint32_t max_msg;
	} t[] = {
	    {128 * MIB + 1, 16 * MIB + 64 * KIB},
	    {64 * MIB, 8 * MIB},
	    {12 * MIB, 1 * MIB},
	    {8 * MIB - 1, 512 * KIB},
	    {64 * KIB, 64 * KIB},
	    {0, 64 * KIB},
	};

	drop_ipc_lock();
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (!set_memlock(t[i].lim))
			continue; /* above a hard limit we cannot raise */
		ck_assert_uint_eq(rpcrdma_pin_limit(), t[i].lim);
		ck_assert_uint_eq(default_max_msg(), t[i].max_msg);
	}
}
END_TEST

/* Half the physical memory: the library's cap by default. */
static size_t half_ram(void)
{
	return (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE) /
	       2;
}

/* With CAP_IPC_LOCK (root) the limit does not apply: the usual default.
 * The cap on what a server pins for its clients is half the physical
 * memory. */
START_TEST(test_capability)
{
	if (geteuid() != 0 || !set_memlock(8 * MIB))
		return; /* no capability to hold, or a lower hard limit */
	unsetenv("RPCRDMA_MAX_PINNED");
	ck_assert_uint_eq(rpcrdma_pin_limit(), SIZE_MAX);
	ck_assert_uint_eq(rpcrdma_pin_cap(), half_ram());
	ck_assert_uint_eq(default_max_msg(), 16 * MIB + 64 * KIB);
}
END_TEST

/* RPCRDMA_MAX_PINNED sets the cap (K, M, G suffixes); it is not the
 * process's limit, which a client's calls and the defaults follow. */
START_TEST(test_cap_env)
{
	setenv("RPCRDMA_MAX_PINNED", "3M", 1);
	ck_assert_uint_eq(rpcrdma_pin_cap(), 3 * MIB);
	if (geteuid() == 0 && set_memlock(8 * MIB)) {
		ck_assert_uint_eq(rpcrdma_pin_limit(), SIZE_MAX);
		ck_assert_uint_eq(default_max_msg(), 16 * MIB + 64 * KIB);
	}
}
END_TEST

/* A value that is not a size is the default. */
START_TEST(test_cap_garbage)
{
	setenv("RPCRDMA_MAX_PINNED", "12Q", 1);
	ck_assert_uint_eq(rpcrdma_pin_cap(), half_ram());
	setenv("RPCRDMA_MAX_PINNED", "1", 1);	/* read once: unchanged */
	ck_assert_uint_eq(rpcrdma_pin_cap(), half_ram());
}
END_TEST

/* RPCRDMA_MAX_MSG still overrides the default (it is the knob the error
 * text names). */
START_TEST(test_env_overrides)
{
	struct rpcrdma_opts o;

	drop_ipc_lock();
	if (!set_memlock(8 * MIB))
		return;
	setenv("RPCRDMA_MAX_MSG", "4194304", 1);
	rpcrdma_opts_from_env(&o);
	ck_assert_uint_eq(o.max_msg, 4 * MIB);
	unsetenv("RPCRDMA_MAX_MSG");
	rpcrdma_opts_from_env(&o);
	ck_assert_uint_eq(o.max_msg, 1 * MIB);
}
END_TEST

/* strtoull reads "-2" as 2^64 - 2: not a size, the default. */
START_TEST(test_cap_negative)
{
	setenv("RPCRDMA_MAX_PINNED", "-2", 1);
	ck_assert_uint_eq(rpcrdma_pin_cap(), half_ram());
}
END_TEST

/* The per-connection cap of a server (opts.conn_mem_max): by default
 * RPCRDMA_CONN_MEM_AUTO, four times max_msg when the server takes it;
 * RPCRDMA_CONN_MEM_MAX in RPCRDMA_MAX_PINNED's syntax (K, M, G), below
 * 4 GiB, 0 for none; anything else leaves the default. A cap below
 * max_msg counts as max_msg: a call alone is never held. */
START_TEST(test_conn_mem_env)
{
	static const struct {
		const char *env;
		uint32_t want;
	} t[] = {
	    {"8M", 8 * MIB},
	    {"512k", 512 * KIB},
	    {"3G", 3u << 30},
	    {"1048576", MIB},
	    {"0", 0},
	    {"4G", RPCRDMA_CONN_MEM_AUTO},	/* not below 4 GiB */
	    {"-2", RPCRDMA_CONN_MEM_AUTO},
	    {"12Q", RPCRDMA_CONN_MEM_AUTO},
	    {"", RPCRDMA_CONN_MEM_AUTO},
	    {"M", RPCRDMA_CONN_MEM_AUTO},
	    {"99999999999999999999", RPCRDMA_CONN_MEM_AUTO},
	};
	struct rpcrdma_opts o;
	uint64_t v;

	rpcrdma_opts_default(&o);
	ck_assert_uint_eq(o.conn_mem_max, RPCRDMA_CONN_MEM_AUTO);
	o.max_msg = 4 * MIB;
	ck_assert_uint_eq(rpcrdma_conn_mem_max(&o), 16 * MIB);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		setenv("RPCRDMA_CONN_MEM_MAX", t[i].env, 1);
		rpcrdma_opts_from_env(&o);
		ck_assert_msg(o.conn_mem_max == t[i].want,
			      "RPCRDMA_CONN_MEM_MAX=%s: %u", t[i].env,
			      o.conn_mem_max);
	}
	unsetenv("RPCRDMA_CONN_MEM_MAX");
	rpcrdma_opts_default(&o);
	o.max_msg = 4 * MIB;
	o.conn_mem_max = 8 * MIB;
	ck_assert_uint_eq(rpcrdma_conn_mem_max(&o), 8 * MIB);
	o.conn_mem_max = MIB;		/* below max_msg */
	ck_assert_uint_eq(rpcrdma_conn_mem_max(&o), 4 * MIB);
	o.conn_mem_max = 0;
	ck_assert_uint_eq(rpcrdma_conn_mem_max(&o), 0);
	/* max_msg's largest (1 GiB): four of it do not fit 32 bits. */
	o.max_msg = 1u << 30;
	o.conn_mem_max = RPCRDMA_CONN_MEM_AUTO;
	ck_assert_uint_eq(rpcrdma_conn_mem_max(&o), (size_t)4 << 30);
	/* The parser both variables share (engine/pin.c). */
	ck_assert(rpcrdma_size_parse("2G", &v));
	ck_assert_uint_eq(v, (uint64_t)2 << 30);
	ck_assert(rpcrdma_size_parse("16777216G", &v));
	ck_assert_uint_eq(v, (uint64_t)1 << 54);
	ck_assert(!rpcrdma_size_parse("17179869184G", &v)); /* 2^64 */
	ck_assert(!rpcrdma_size_parse("1T", &v));
	ck_assert(!rpcrdma_size_parse(" 1", &v));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("memlock");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_debian_user);
	tcase_add_test(tc, test_scaling);
	tcase_add_test(tc, test_capability);
	tcase_add_test(tc, test_cap_env);
	tcase_add_test(tc, test_cap_garbage);
	tcase_add_test(tc, test_cap_negative);
	tcase_add_test(tc, test_env_overrides);
	tcase_add_test(tc, test_conn_mem_env);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
