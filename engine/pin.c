/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the process has pinned through the engine, against what it may pin.
 *
 * Every registration pins its pages, and the kernel counts them against
 * RLIMIT_MEMLOCK (ib_umem_get: the process's pinned pages, each
 * registration of a page counted again) unless the process holds
 * CAP_IPC_LOCK. Debian gives an ordinary user 8 MiB. Every ibv_reg_mr of
 * the library goes through ep_mr_reg, which charges the pages first, so
 * that a registration the limit would refuse fails here with -EDQUOT, a
 * cause the glue can name (clnt_sperror, the server's counters), rather
 * than the kernel's ENOMEM, which also means "out of memory". The count is
 * the library's own: other users of verbs in the process pin outside it,
 * so the kernel may still refuse first; that ENOMEM is read the same way
 * where a limit applies.
 *
 * Where RLIMIT_MEMLOCK is no bound (a server run as root, CAP_IPC_LOCK),
 * the library caps what it pins itself: RPCRDMA_MAX_PINNED bytes (K, M or
 * G suffix), by default half the physical memory. Peers decide how much
 * a server registers (their chunks, their replies' sizes); without a cap
 * many of them could pin the machine's memory (security review 21c8dd5,
 * finding 5; the Linux server's 2026 MR-exhaustion fix). Over the cap a
 * server answers ERR_CHUNK and keeps the connection, a client's call
 * waits for pinned memory or fails, as under RLIMIT_MEMLOCK.
 */
#define _GNU_SOURCE	/* secure_getenv */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "ep_int.h"

static size_t pin_used;		/* bytes, page-rounded; atomic */
static size_t pin_limit;	/* 0: not read yet; SIZE_MAX: none */
static size_t pin_cap;		/* 0: not read yet */

/* "123", "64K", "512M", "2G": bytes; 0 when it is not one. */
static size_t parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return 0;
	switch (*end) {
	case 'G': case 'g': v = v > (ULLONG_MAX >> 30) ? 0 : v << 30; end++; break;
	case 'M': case 'm': v = v > (ULLONG_MAX >> 20) ? 0 : v << 20; end++; break;
	case 'K': case 'k': v = v > (ULLONG_MAX >> 10) ? 0 : v << 10; end++; break;
	default: break;
	}
	if (*end || v >= SIZE_MAX)
		return 0;
	return (size_t)v;
}

size_t rpcrdma_pin_cap(void)
{
	size_t v = __atomic_load_n(&pin_cap, __ATOMIC_RELAXED);
	const char *s;
	long pages, pg;

	if (v)
		return v;
	s = secure_getenv("RPCRDMA_MAX_PINNED");
	v = s ? parse_size(s) : 0;
	if (!v) {
		pages = sysconf(_SC_PHYS_PAGES);
		pg = sysconf(_SC_PAGESIZE);
		v = pages > 0 && pg > 0 &&
				    (size_t)pages <= SIZE_MAX / 2 / (size_t)pg ?
			    (size_t)pages * (size_t)pg / 2 :
			    SIZE_MAX - 1;
	}
	__atomic_store_n(&pin_cap, v, __ATOMIC_RELAXED);
	return v;
}

static bool has_ipc_lock(void)
{
	struct __user_cap_header_struct h = {
	    .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d))
		return false;
	return (d[CAP_IPC_LOCK / 32].effective >> (CAP_IPC_LOCK % 32)) & 1u;
}

/* RLIMIT_MEMLOCK as it is now (setrlimit may move it while we run);
 * SIZE_MAX when it does not apply. */
size_t rpcrdma_pin_rlimit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    !has_ipc_lock())
		return rl.rlim_cur < SIZE_MAX ? (size_t)rl.rlim_cur : SIZE_MAX - 1;
	return SIZE_MAX;
}

/* The limit as it is now: the lower of the two. */
static size_t pin_limit_read(void)
{
	size_t v = rpcrdma_pin_rlimit(), cap = rpcrdma_pin_cap();

	if (cap < v)
		v = cap;
	__atomic_store_n(&pin_limit, v, __ATOMIC_RELAXED);
	return v;
}

size_t rpcrdma_pin_limit(void)
{
	return pin_limit_read();
}

/* The limit as last read: a registration's charge costs no system call. */
static size_t pin_limit_cached(void)
{
	size_t v = __atomic_load_n(&pin_limit, __ATOMIC_RELAXED);

	return v ? v : pin_limit_read();
}

/* The bytes of the pages [addr, addr + len) spans: what the kernel counts. */
static size_t pin_span(const void *addr, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)addr, lo = a & ~(uintptr_t)(pg - 1);
	uintptr_t hi = (a + len + pg - 1) & ~(uintptr_t)(pg - 1);

	return (size_t)(hi - lo);
}

/* Charges n bytes; -EDQUOT when the limit would be passed. The limit is
 * read again before refusing: it may have been raised meanwhile. */
static int pin_charge(size_t n)
{
	size_t lim = pin_limit_cached(), cur;

	cur = __atomic_load_n(&pin_used, __ATOMIC_RELAXED);
	for (;;) {
		if (lim != SIZE_MAX && (cur > lim || n > lim - cur)) {
			size_t again = pin_limit_read();

			if (again == lim)
				return -EDQUOT;
			lim = again;
			continue;
		}
		if (__atomic_compare_exchange_n(&pin_used, &cur, cur + n, false,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return 0;
	}
}

static void pin_uncharge(size_t n)
{
	__atomic_sub_fetch(&pin_used, n, __ATOMIC_RELAXED);
}

struct ibv_mr *ep_mr_reg(struct ibv_pd *pd, void *addr, size_t len,
			 int access, int *err)
{
	size_t n = pin_span(addr, len);
	struct ibv_mr *mr;
	int rc = pin_charge(n);

	if (rc) {
		*err = rc;
		return NULL;
	}
	mr = ibv_reg_mr(pd, addr, len, access);
	if (!mr) {
		rc = errno > 0 ? errno : ENOMEM;
		pin_uncharge(n);
		/* The kernel's own count met the limit (pages pinned
		 * outside the library, or a limit lowered meanwhile). */
		if (rc == ENOMEM && rpcrdma_pin_rlimit() != SIZE_MAX)
			rc = EDQUOT;
		*err = -rc;
		return NULL;
	}
	*err = 0;
	return mr;
}

int ep_mr_dereg(struct ibv_mr *mr)
{
	size_t n = pin_span(mr->addr, mr->length);
	int rc = ibv_dereg_mr(mr);

	/* A registration the provider kept still pins its pages. */
	if (rc == 0)
		pin_uncharge(n);
	return rc;
}
