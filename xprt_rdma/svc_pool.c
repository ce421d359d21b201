/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma_svc_run: the rdma transports of the process served by a pool of
 * threads, with the dispatch functions registered by svc_reg, through
 * libtirpc's own svc_getreq_common (svc.h says how members are kept away
 * from a concurrent svc_run).
 *
 * Each member's fd is in one epoll set with EPOLLONESHOT: one worker at a
 * time serves a transport (libtirpc dispatches one call at a time per
 * SVCXPRT and our transports keep their state unlocked), and re-arms it
 * when svc_getreq_common returns; different connections are served in
 * parallel. A listener accepts on whichever worker its events reach.
 *
 * Credentials. The kernel refuses write() on rdma_cm and uverbs files
 * (rxe's post-send doorbell among them) from a task whose cred is not the
 * very one that opened them, even after switching back to the same ids
 * (include/rdma/ib.h, ib_safe_file_access). A dispatch function that
 * switches its thread's credentials per request (setfsuid, or the raw
 * setresuid/setgroups system calls) therefore poisons its thread for
 * good. After each dispatch, and after the kernel refused a command, the
 * worker probes with a zero-length write to the transport's own rdma_cm
 * channel (the kernel checks the cred before the length: EACCES means
 * poisoned, EINVAL clean); a poisoned worker
 * leaves its reply queued for a clean thread, hands the transport back and
 * exits, and the thread that called rpcrdma_svc_run, which never
 * dispatches, starts a replacement that shares its original cred. glibc's
 * setresuid/seteuid/setgroups switch every thread of the process: nothing
 * is left that may command the devices, a replacement finds itself
 * poisoned at once, and rpcrdma_svc_run returns -EACCES.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <stddef.h>
#include <rpcrdma/rpcrdma.h>
#include "engine.h"
#include "svc.h"

struct pool_worker {
	pthread_t th;
	bool live;			/* started, not yet joined */
	bool poisoned;			/* exited for a cred change */
};

static struct {
	pthread_mutex_t lock;		/* all of it, the members too */
	pthread_cond_t cond;		/* to the thread in rpcrdma_svc_run */
	struct svc_member *members;
	bool running, stopping;
	int err;			/* why the pool stops, or 0 */
	int epfd;			/* members (one-shot) and stopfd */
	int stopfd;			/* readable: workers exit */
	struct pool_worker *w;
	int *spare;			/* dummies not in use, kept open */
	unsigned int nspare, spare_cap;
	unsigned int nthreads;
	unsigned int poisoned;		/* exited, to join and replace */
} pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.epfd = -1,
	.stopfd = -1,
};

static __thread bool in_worker;
static __thread struct svc_member *serving;	/* NULL once it left */
static __thread int dirty = -1;			/* -1: not probed */
static __thread int my_probe = -1;		/* serving's */

static bool cred_poisoned(int fd)
{
	return fd >= 0 && write(fd, "", 0) < 0 && errno == EACCES;
}

bool svc_pool_thread_dirty(void)
{
	if (!in_worker)
		return false;
	if (dirty < 0)
		dirty = cred_poisoned(my_probe);
	return dirty == 1;
}

/* Any member's devices refused to this thread (pool.lock held). */
static bool members_refuse(void)
{
	for (struct svc_member *m = pool.members; m; m = m->next)
		if (cred_poisoned(m->probe_fd))
			return true;
	return false;
}

static uint64_t refusals(void)
{
	return rpcrdma_stat_total(offsetof(struct rpcrdma_stats,
					   permission_errors));
}

void svc_pool_call_begin(void)
{
	dirty = -1;
}

/* ---- members (pool.lock held) ---- */

static void arm(struct svc_member *m, int op)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLONESHOT,
		.data.ptr = m,
	};

	(void)epoll_ctl(pool.epfd, op, m->fd, &ev);
}

/*
 * A dummy is never closed: a svc_run polling a stale copy of libtirpc's
 * fd set would get POLLNVAL for it and svc_getreq_poll would then unregister
 * __svc_xports[fd], NULL by then (an assertion in libtirpc). Spare ones
 * are reused, so the pool keeps as many as transports were pooled at once.
 */
static int dummy_get(void)
{
	if (pool.nspare)
		return pool.spare[--pool.nspare];
	return eventfd(0, EFD_CLOEXEC);
}

static void dummy_put(int fd)
{
	if (pool.nspare == pool.spare_cap) {
		unsigned int cap = pool.spare_cap ? 2 * pool.spare_cap : 16;
		int *n = realloc(pool.spare, cap * sizeof(*n));

		if (!n)
			return;	/* one fd stays open, unused */
		pool.spare = n;
		pool.spare_cap = cap;
	}
	pool.spare[pool.nspare++] = fd;
}

/* From libtirpc's fd set into the pool's, under a never-readable xp_fd. */
static int pool_add(struct svc_member *m)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLONESHOT,
		.data.ptr = m,
	};
	int err;

	m->dummy = dummy_get();
	if (m->dummy < 0)
		return -errno;
	if (epoll_ctl(pool.epfd, EPOLL_CTL_ADD, m->fd, &ev)) {
		err = -errno;
		dummy_put(m->dummy);
		m->dummy = -1;
		return err;
	}
	m->xprt->xp_fd = m->dummy;
	xprt_register(m->xprt);
	return 0;
}

/* Out of the pool and of libtirpc's tables; xp_fd is the real fd again. */
static void pool_remove(struct svc_member *m)
{
	(void)epoll_ctl(pool.epfd, EPOLL_CTL_DEL, m->fd, NULL);
	xprt_unregister(m->xprt);
	dummy_put(m->dummy);
	m->dummy = -1;
	m->xprt->xp_fd = m->fd;
}

int svc_member_join(struct svc_member *m, SVCXPRT *xprt, int fd,
		    int probe_fd)
{
	int err = 0;

	m->xprt = xprt;
	m->fd = fd;
	m->probe_fd = probe_fd;
	m->dummy = -1;
	xprt->xp_fd = fd;
	pthread_mutex_lock(&pool.lock);
	if (pool.running)
		err = pool_add(m);
	else
		xprt_register(xprt);
	if (!err) {
		m->prev = NULL;
		m->next = pool.members;
		if (pool.members)
			pool.members->prev = m;
		pool.members = m;
	}
	pthread_mutex_unlock(&pool.lock);
	return err;
}

void svc_member_leave(struct svc_member *m)
{
	pthread_mutex_lock(&pool.lock);
	if (m->dummy >= 0)
		pool_remove(m);
	else
		xprt_unregister(m->xprt);
	if (m->prev)
		m->prev->next = m->next;
	else
		pool.members = m->next;
	if (m->next)
		m->next->prev = m->prev;
	m->prev = m->next = NULL;
	pthread_mutex_unlock(&pool.lock);
	/* Destroyed by the worker serving it: nothing to re-arm. */
	if (serving == m) {
		serving = NULL;
		my_probe = -1;
	}
}

/* ---- workers ---- */

static void *worker_main(void *arg)
{
	struct pool_worker *w = arg;
	struct epoll_event ev;
	uint64_t refused;
	bool poisoned;
	int n;

	in_worker = true;
	/* Started by the thread in rpcrdma_svc_run, it shares that thread's
	 * cred: poisoned already means every thread was switched. */
	pthread_mutex_lock(&pool.lock);
	poisoned = members_refuse();
	if (poisoned) {
		pool.err = -EACCES;
		pthread_cond_signal(&pool.cond);
	}
	pthread_mutex_unlock(&pool.lock);
	if (poisoned)
		return NULL;
	for (;;) {
		n = epoll_wait(pool.epfd, &ev, 1, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || !ev.data.ptr)
			break;		/* stopfd (level-triggered: all see it) */
		serving = ev.data.ptr;
		my_probe = serving->probe_fd;
		dirty = 0;	/* clean so far: only a dispatch poisons */
		refused = refusals();
		svc_getreq_common(serving->xprt->xp_fd);
		/* A command refused meanwhile (an accept, say): the
		 * credentials may have changed outside any dispatch. */
		if (dirty == 0 && refusals() != refused)
			dirty = -1;
		if (dirty < 0 && my_probe >= 0) {
			dirty = cred_poisoned(my_probe);
		} else if (dirty < 0) {
			/* It was destroyed: any member's fd tells. */
			pthread_mutex_lock(&pool.lock);
			dirty = members_refuse();
			pthread_mutex_unlock(&pool.lock);
		}
		if (serving)
			arm(serving, EPOLL_CTL_MOD);
		serving = NULL;
		my_probe = -1;
		if (dirty == 1) {
			pthread_mutex_lock(&pool.lock);
			w->poisoned = true;
			pool.poisoned++;
			pthread_cond_signal(&pool.cond);
			pthread_mutex_unlock(&pool.lock);
			break;
		}
	}
	return NULL;
}

static int start_worker(struct pool_worker *w)
{
	int err;

	w->poisoned = false;
	err = pthread_create(&w->th, NULL, worker_main, w);
	w->live = err == 0;
	return -err;
}

/* Joins the workers that exited poisoned and starts their replacements.
 * pool.lock held. */
static void replace_poisoned(void)
{
	for (unsigned int i = 0; i < pool.nthreads && pool.poisoned; i++) {
		struct pool_worker *w = &pool.w[i];

		if (!w->live || !w->poisoned)
			continue;
		pthread_join(w->th, NULL);
		w->live = false;
		pool.poisoned--;
		if (start_worker(w) && !pool.err)
			pool.err = -EAGAIN;
	}
}

static void pool_teardown(void)
{
	struct svc_member *m;

	for (m = pool.members; m; m = m->next) {
		if (m->dummy >= 0) {
			pool_remove(m);
			xprt_register(m->xprt);
		}
	}
	if (pool.epfd >= 0)
		close(pool.epfd);
	if (pool.stopfd >= 0)
		close(pool.stopfd);
	free(pool.w);
	pool.epfd = pool.stopfd = -1;
	pool.w = NULL;
	pool.nthreads = 0;
	pool.poisoned = 0;
	pool.running = false;
}

static int pool_setup(unsigned int nthreads)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct svc_member *m;
	int err;

	pool.err = 0;
	pool.stopping = false;
	pool.running = true;
	pool.nthreads = nthreads;
	pool.w = calloc(nthreads, sizeof(*pool.w));
	pool.epfd = epoll_create1(EPOLL_CLOEXEC);
	pool.stopfd = eventfd(0, EFD_CLOEXEC);
	if (!pool.w || pool.epfd < 0 || pool.stopfd < 0)
		return errno ? -errno : -ENOMEM;
	if (epoll_ctl(pool.epfd, EPOLL_CTL_ADD, pool.stopfd, &ev))
		return -errno;
	for (m = pool.members; m; m = m->next) {
		xprt_unregister(m->xprt);
		err = pool_add(m);
		if (err) {
			xprt_register(m->xprt);
			return err;
		}
	}
	return 0;
}

int rpcrdma_svc_run(unsigned int nthreads)
{
	unsigned int i;
	int err;

	if (nthreads == 0 || nthreads > RPCRDMA_SVC_MAX_THREADS)
		return -EINVAL;
	pthread_mutex_lock(&pool.lock);
	if (pool.running) {
		pthread_mutex_unlock(&pool.lock);
		return -EBUSY;
	}
	err = pool_setup(nthreads);
	for (i = 0; !err && i < nthreads; i++)
		err = start_worker(&pool.w[i]);
	if (!err) {
		while (!pool.stopping && !pool.err) {
			pthread_cond_wait(&pool.cond, &pool.lock);
			replace_poisoned();
		}
		err = pool.err;
	}
	/* Every worker leaves at the stopfd (after the call it serves). */
	if (pool.stopfd >= 0 && eventfd_write(pool.stopfd, 1))
		err = err ? err : -errno;
	pthread_mutex_unlock(&pool.lock);
	for (i = 0; pool.w && i < nthreads; i++) {
		if (pool.w[i].live)
			pthread_join(pool.w[i].th, NULL);
	}
	pthread_mutex_lock(&pool.lock);
	for (i = 0; pool.w && i < nthreads; i++)
		pool.w[i].live = false;
	pool_teardown();
	pthread_mutex_unlock(&pool.lock);
	return err;
}

void rpcrdma_svc_exit(void)
{
	pthread_mutex_lock(&pool.lock);
	if (pool.running) {
		pool.stopping = true;
		pthread_cond_signal(&pool.cond);
	}
	pthread_mutex_unlock(&pool.lock);
}
