/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters: every update goes to the endpoint's own struct (ep->stats,
 * read through ep_int.h) and to the process totals, both with atomic
 * operations (senders run on any thread). Near the bottom of the engine:
 * it calls only export.c, which may hold both in a file others read; the
 * others reach it by RPCRDMA_STAT_*.
 */
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "ep_int.h"

_Static_assert(sizeof(struct rpcrdma_stats) % sizeof(uint64_t) == 0,
	       "struct rpcrdma_stats must hold only uint64_t counters");

#define NSTATS (sizeof(struct rpcrdma_stats) / sizeof(uint64_t))

/* The process totals: here until the first endpoint, then in the
 * exported file when there is one (export.c). */
static uint64_t static_stats[NSTATS];
static uint64_t *global_stats = static_stats;
static pthread_once_t export_once = PTHREAD_ONCE_INIT;

static void stats_export_once(void)
{
	uint64_t *p = export_open();

	if (!p)
		return;
	/* Counts made meanwhile by another thread may be lost: only the
	 * glue's few global-only counts can run before the first endpoint
	 * exists. */
	memcpy(p, static_stats, sizeof(static_stats));
	__atomic_store_n(&global_stats, p, __ATOMIC_RELEASE);
}

void stats_export_start(void)
{
	pthread_once(&export_once, stats_export_once);
}

static uint64_t *field(struct rpcrdma_stats *s, size_t off)
{
	return (uint64_t *)((char *)s + off);
}

static bool off_ok(size_t off)
{
	return off % sizeof(uint64_t) == 0 &&
	       off < sizeof(struct rpcrdma_stats);
}

void rpcrdma_stat_add(struct rpcrdma_ep *ep, size_t off, uint64_t n)
{
	if (!off_ok(off))
		return;
	__atomic_add_fetch(&global_stats[off / sizeof(uint64_t)], n,
			   __ATOMIC_RELAXED);
	if (ep)
		__atomic_add_fetch(field(ep->stats, off), n,
				   __ATOMIC_RELAXED);
}

uint64_t rpcrdma_stat_total(size_t off)
{
	if (!off_ok(off))
		return 0;
	return __atomic_load_n(&global_stats[off / sizeof(uint64_t)],
			       __ATOMIC_RELAXED);
}

void rpcrdma_stat_set(struct rpcrdma_ep *ep, size_t off, uint64_t v)
{
	if (!off_ok(off))
		return;
	__atomic_store_n(&global_stats[off / sizeof(uint64_t)], v,
			 __ATOMIC_RELAXED);
	if (ep)
		__atomic_store_n(field(ep->stats, off), v,
				 __ATOMIC_RELAXED);
}

static void atomic_max(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (cur < v && !__atomic_compare_exchange_n(p, &cur, v, true,
						       __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

void rpcrdma_stat_max(struct rpcrdma_ep *ep, size_t off, uint64_t v)
{
	if (!off_ok(off))
		return;
	atomic_max(&global_stats[off / sizeof(uint64_t)], v);
	if (ep)
		atomic_max(field(ep->stats, off), v);
}

static void atomic_min_set(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while ((cur == 0 || cur > v) &&
	       !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

void rpcrdma_stat_min(struct rpcrdma_ep *ep, size_t off, uint64_t v)
{
	if (!off_ok(off) || v == 0)
		return;
	atomic_min_set(&global_stats[off / sizeof(uint64_t)], v);
	if (ep)
		atomic_min_set(field(ep->stats, off), v);
}

void rpcrdma_stats_global(struct rpcrdma_stats *out)
{
	uint64_t v[NSTATS];
	size_t i;

	if (!out)
		return;
	for (i = 0; i < NSTATS; i++)
		v[i] = __atomic_load_n(&global_stats[i], __ATOMIC_RELAXED);
	memcpy(out, v, sizeof(*out));
}
