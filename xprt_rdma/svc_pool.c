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
#include "engine/engine.h"
#include "svc.h"

struct pool_worker {
	pthread_t th;
	bool live;			/* started, not yet joined */
	bool poisoned;			/* exited for a cred change */
};

static struct {
	pthread_mutex_t lock;		/* all of it, the members too */
	pthread_cond_t cond;		/* to the thread in rpcrdma_svc_run */
	pthread_cond_t up;		/* serving, or failed to start */
	bool serving;			/* every worker started */
	int start_err;
	pthread_t runner;		/* rpcrdma_svc_start's thread */
	bool has_runner;
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
	.up = PTHREAD_COND_INITIALIZER,
	.epfd = -1,
	.stopfd = -1,
};

static __thread bool in_worker;
static __thread struct svc_member *serving;	/* NULL once it left */
static __thread int dirty = -1;			/* -1: not probed */
static __thread bool dispatched;		/* since the last probe */
static __thread int my_probe = -1;		/* serving's */

static bool cred_poisoned(int fd)
{
	return fd >= 0 && write(fd, "", 0) < 0 && errno == EACCES;
}

/* Whether each dispatch is followed by a probe (rpcrdma_svc_cred_check:
 * set while no pool runs, read by workers started after). */
static bool cred_check = true;

/* Poisoned by a dispatch: probed, or taken as clean on the application's
 * word; a command the kernel refused is probed either way (the turn's
 * end in worker_main). */
static int after_dispatch_probe(int fd)
{
	return cred_check ? cred_poisoned(fd) : 0;
}

int rpcrdma_svc_cred_check(bool on)
{
	int rc = 0;

	pthread_mutex_lock(&pool.lock);
	if (pool.running)
		rc = -EBUSY;
	else
		cred_check = on;
	pthread_mutex_unlock(&pool.lock);
	return rc;
}

bool pool_in_worker(void)
{
	return in_worker;
}

bool pool_thread_dirty(void)
{
	if (!in_worker)
		return false;
	if (dirty < 0)
		dirty = after_dispatch_probe(my_probe);
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

void pool_call_begin(void)
{
	dirty = -1;
	dispatched = true;
}

bool pool_after_dispatch(void)
{
	if (!in_worker)
		return false;
	if (dispatched) {
		dispatched = false;
		dirty = after_dispatch_probe(my_probe);
	}
	return dirty == 1;
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

int pool_member_join(struct svc_member *m, SVCXPRT *xprt, int fd,
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

void pool_member_leave(struct svc_member *m)
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

/*
 * The waker: a libtirpc transport of our own on an eventfd, registered
 * when a pool first starts. svc_run sleeps in poll() on a copy of its fd
 * set, so when the pool hands the transports back it would not see their
 * fds until something else woke it: the waker does, and drains itself.
 */
static struct {
	SVCXPRT xprt;
	SVCXPRT_EXT ext;
	int fd;
} waker = { .fd = -1 };

static bool_t waker_recv(SVCXPRT *x, struct rpc_msg *msg)
{
	eventfd_t v;

	(void)x;
	(void)msg;
	(void)eventfd_read(waker.fd, &v);
	return FALSE;
}

static void waker_destroy(SVCXPRT *x)
{
	(void)x;		/* lives as long as the process */
}

static const struct xp_ops waker_ops = {
	.xp_recv = waker_recv,
	.xp_stat = xprt_stat_idle,
	.xp_getargs = xprt_no_args,
	.xp_reply = xprt_no_reply,
	.xp_freeargs = xprt_no_args,
	.xp_destroy = waker_destroy,
};

static int waker_setup(void)
{
	if (waker.fd >= 0)
		return 0;
	waker.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (waker.fd < 0)
		return -errno;
	waker.xprt.xp_fd = waker.fd;
	waker.xprt.xp_ops = &waker_ops;
	waker.xprt.xp_p3 = &waker.ext;
	xprt_register(&waker.xprt);
	return 0;
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
		if (n < 0) {
			pthread_mutex_lock(&pool.lock);
			pool.err = -errno;
			pthread_cond_signal(&pool.cond);
			pthread_mutex_unlock(&pool.lock);
			break;
		}
		if (!ev.data.ptr)
			break;		/* stopfd (level-triggered: all see it) */
		serving = ev.data.ptr;
		my_probe = serving->probe_fd;
		dirty = 0;	/* clean so far: only a dispatch poisons */
		dispatched = false;
		refused = refusals();
		svc_getreq_common(serving->xprt->xp_fd);
		/* A command refused meanwhile (an accept, say): the
		 * credentials may have changed outside any dispatch. */
		if ((dispatched && cred_check) ||
		    (dirty == 0 && refusals() != refused))
			dirty = -1;
		dispatched = false;
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
	if (waker.fd >= 0)
		(void)eventfd_write(waker.fd, 1);
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
	err = waker_setup();
	if (err)
		return err;
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
	pool.serving = !err;
	pool.start_err = err;
	pthread_cond_broadcast(&pool.up);
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
	pool.serving = false;
	pthread_mutex_unlock(&pool.lock);
	return err;
}

struct runner_arg {
	unsigned int nthreads;
	int rc;
};

static void *runner_main(void *arg)
{
	struct runner_arg *a = arg;

	a->rc = rpcrdma_svc_run(a->nthreads);
	if (a->rc) {
		/* Failed before serving: wake rpcrdma_svc_start. */
		pthread_mutex_lock(&pool.lock);
		if (!pool.start_err)
			pool.start_err = a->rc;
		pthread_cond_broadcast(&pool.up);
		pthread_mutex_unlock(&pool.lock);
	}
	return a;
}

int rpcrdma_svc_start(unsigned int nthreads)
{
	struct runner_arg *a;
	int err;

	if (nthreads == 0 || nthreads > RPCRDMA_SVC_MAX_THREADS)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->nthreads = nthreads;
	pthread_mutex_lock(&pool.lock);
	if (pool.running || pool.has_runner) {
		pthread_mutex_unlock(&pool.lock);
		free(a);
		return -EBUSY;
	}
	pool.start_err = 0;
	err = -pthread_create(&pool.runner, NULL, runner_main, a);
	if (err) {
		pthread_mutex_unlock(&pool.lock);
		free(a);
		return err;
	}
	pool.has_runner = true;
	while (!pool.serving && !pool.start_err)
		pthread_cond_wait(&pool.up, &pool.lock);
	err = pool.serving ? 0 : pool.start_err;
	pthread_mutex_unlock(&pool.lock);
	if (err)
		(void)rpcrdma_svc_stop();
	return err;
}

int rpcrdma_svc_stop(void)
{
	rpcrdma_svc_exit();
	return rpcrdma_svc_wait();
}

int rpcrdma_svc_wait(void)
{
	struct runner_arg *a;
	void *ret = NULL;
	int rc;

	pthread_mutex_lock(&pool.lock);
	if (!pool.has_runner) {
		pthread_mutex_unlock(&pool.lock);
		return -ESRCH;
	}
	pthread_mutex_unlock(&pool.lock);
	pthread_join(pool.runner, &ret);
	a = ret;
	rc = a ? a->rc : -EIO;
	free(a);
	pthread_mutex_lock(&pool.lock);
	pool.has_runner = false;
	pthread_mutex_unlock(&pool.lock);
	return rc;
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
