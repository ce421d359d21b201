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
 * What a server pins for its clients (the buffers of the connections it
 * accepted, their calls' RDMA Read sinks and reply sources) is also
 * capped by the library itself, whatever RLIMIT_MEMLOCK says (a server
 * runs as root, CAP_IPC_LOCK, where it is no bound): RPCRDMA_MAX_PINNED
 * bytes (K, M or G suffix), by default half the physical memory. Peers
 * decide how much a server registers (their chunks, their replies'
 * sizes); without a cap many of them could pin the machine's memory
 * (security review 21c8dd5, finding 5; the Linux server's 2026
 * MR-exhaustion fix). Over the cap a server answers ERR_CHUNK and keeps
 * the connection, or refuses a new connection. What a client pins is its
 * own program's choice, bounded by RLIMIT_MEMLOCK alone.
 */
#define _GNU_SOURCE	/* secure_getenv */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "ep_int.h"

static size_t pin_used;		/* bytes, page-rounded; atomic */
static size_t pin_used_peer;	/* of them, for accepted connections */
static size_t pin_limit;	/* 0: not read yet; SIZE_MAX: none */
static size_t pin_cap;		/* 0: not read yet */

bool rpcrdma_size_parse(const char *s, uint64_t *v)
{
	unsigned long long n;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return false;	/* strtoull takes "-2" as 2^64 - 2 */
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	switch (*end) {
	case 'G': case 'g': shift = 30; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'K': case 'k': shift = 10; end++; break;
	default: break;
	}
	if (*end || n > (UINT64_MAX >> shift))
		return false;
	*v = (uint64_t)n << shift;
	return true;
}

/* RPCRDMA_MAX_PINNED's bytes; 0 when it is not a size (or is 0). */
static size_t parse_size(const char *s)
{
	uint64_t v;

	if (!rpcrdma_size_parse(s, &v) || v >= SIZE_MAX)
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
static size_t pin_rlimit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    !has_ipc_lock())
		return rl.rlim_cur < SIZE_MAX ? (size_t)rl.rlim_cur : SIZE_MAX - 1;
	return SIZE_MAX;
}

static size_t pin_limit_read(void)
{
	size_t v = pin_rlimit();

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

/* Adds n to *used unless that passes lim (SIZE_MAX: none); -EDQUOT then.
 * With reread, the limit is read again before refusing: it may have been
 * raised meanwhile. */
static int pin_add(size_t *used, size_t n, size_t lim, bool reread)
{
	size_t cur = __atomic_load_n(used, __ATOMIC_RELAXED);

	for (;;) {
		if (lim != SIZE_MAX && (cur > lim || n > lim - cur)) {
			size_t again = reread ? pin_limit_read() : lim;

			if (again == lim)
				return -EDQUOT;
			lim = again;
			continue;
		}
		if (__atomic_compare_exchange_n(used, &cur, cur + n, false,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return 0;
	}
}

/* Charges n bytes to the process, and to what it pins for peers when
 * peer; -EDQUOT when a limit would be passed. */
static int pin_charge(size_t n, bool peer)
{
	int rc = pin_add(&pin_used, n, pin_limit_cached(), true);

	if (rc || !peer)
		return rc;
	rc = pin_add(&pin_used_peer, n, rpcrdma_pin_cap(), false);
	if (rc)
		__atomic_sub_fetch(&pin_used, n, __ATOMIC_RELAXED);
	return rc;
}

static void pin_uncharge(size_t n, bool peer)
{
	__atomic_sub_fetch(&pin_used, n, __ATOMIC_RELAXED);
	if (peer)
		__atomic_sub_fetch(&pin_used_peer, n, __ATOMIC_RELAXED);
}

/* An endpoint a listener accepted pins for its peer (the cap applies). */
static bool ep_for_peer(const struct rpcrdma_ep *ep)
{
	return ep->conn_count != NULL;
}

struct ibv_mr *ep_mr_reg(struct rpcrdma_ep *ep, void *addr, size_t len,
			 int access, int *err)
{
	size_t n = pin_span(addr, len);
	bool peer = ep_for_peer(ep);
	struct ibv_mr *mr;
	int rc = pin_charge(n, peer);

	if (rc) {
		*err = rc;
		return NULL;
	}
	mr = ibv_reg_mr(ep->pd, addr, len, access);
	if (!mr) {
		rc = errno > 0 ? errno : ENOMEM;
		pin_uncharge(n, peer);
		/* The kernel's own count met the limit (pages pinned
		 * outside the library, or a limit lowered meanwhile). */
		if (rc == ENOMEM && pin_rlimit() != SIZE_MAX)
			rc = EDQUOT;
		*err = -rc;
		return NULL;
	}
	*err = 0;
	return mr;
}

int ep_mr_dereg(struct rpcrdma_ep *ep, struct ibv_mr *mr)
{
	size_t n = pin_span(mr->addr, mr->length);
	int rc = ibv_dereg_mr(mr);

	/* A registration the provider kept still pins its pages. */
	if (rc == 0)
		pin_uncharge(n, ep_for_peer(ep));
	return rc;
}
