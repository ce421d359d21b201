/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The counters, readable from outside the process (rpcrdma-stat(1)): a
 * file per process (export.h) that holds the process totals and one slot
 * per live connection, mapped shared, so that the counters are updated in
 * place at no extra cost. On by default; RPCRDMA_STATS=0 turns it off,
 * RPCRDMA_STATS_DIR moves it from /dev/shm. A process that cannot make the
 * file (a read-only directory, a name taken) counts in private memory as
 * before. The file goes at exit (a destructor); a crashed process leaves
 * it behind, and rpcrdma-stat skips the files of processes that are gone.
 * A forked child keeps its parent's connections' pointers but writes into
 * a private copy from then on, and never removes the parent's file.
 */
#define _GNU_SOURCE	/* secure_getenv */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "ep_int.h"
#include "export.h"

static struct rpcrdma_export_file *xf;	/* NULL: not exported */
static pid_t xf_owner;
static char xf_path[PATH_MAX];

/* After fork, in the child: the mapping becomes private (the same
 * address, so every pointer into it stays good), the file its parent's. */
static void export_child(void)
{
	size_t len = sizeof(*xf);
	void *copy;

	if (!xf)
		return;
	copy = malloc(len);
	if (copy)
		memcpy(copy, xf, len);
	if (mmap(xf, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
		free(copy);
		return;
	}
	if (copy) {
		memcpy(xf, copy, len);
		free(copy);
	}
}

__attribute__((destructor)) static void export_remove(void)
{
	if (xf && xf_owner == getpid())
		unlink(xf_path);
}

static void comm_of(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/comm", "re");

	buf[0] = 0;
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* A file of ours left by a crash under our pid goes; anything else with
 * the name stays (O_EXCL then fails and nothing is exported). */
static int export_create(const char *path)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		  0600);
	if (fd >= 0 || errno != EEXIST)
		return fd;
	if (lstat(path, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return -1;
	unlink(path);
	return open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		    0600);
}

uint64_t *export_open(void)
{
	const char *on = secure_getenv("RPCRDMA_STATS");
	const char *dir = secure_getenv("RPCRDMA_STATS_DIR");
	struct rpcrdma_export_file *f;
	int fd, n;

	if (on && strcmp(on, "0") == 0)
		return NULL;
	if (!dir || !*dir)
		dir = RPCRDMA_EXPORT_DIR;
	n = snprintf(xf_path, sizeof(xf_path), "%s/" RPCRDMA_EXPORT_PREFIX "%d",
		     dir, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(xf_path))
		return NULL;
	fd = export_create(xf_path);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, (off_t)sizeof(*f))) {
		unlink(xf_path);
		close(fd);
		return NULL;
	}
	f = mmap(NULL, sizeof(*f), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (f == MAP_FAILED) {
		unlink(xf_path);
		return NULL;
	}
	memcpy(f->hdr.magic, RPCRDMA_EXPORT_MAGIC, sizeof(f->hdr.magic));
	f->hdr.stats_size = sizeof(struct rpcrdma_stats);
	f->hdr.conn_size = sizeof(struct rpcrdma_export_conn);
	f->hdr.nconns = RPCRDMA_EXPORT_CONNS;
	f->hdr.pid = (int32_t)getpid();
	f->hdr.started = (uint64_t)time(NULL);
	comm_of(f->hdr.comm, sizeof(f->hdr.comm));
	/* Last: a reader takes a file whose version is set as complete. */
	__atomic_store_n(&f->hdr.version, RPCRDMA_EXPORT_VERSION,
			 __ATOMIC_RELEASE);
	xf_owner = getpid();
	xf = f;
	pthread_atfork(NULL, NULL, export_child);
	return (uint64_t *)&f->total;
}

struct rpcrdma_stats *export_conn_take(void)
{
	if (!xf)
		return NULL;
	for (uint32_t i = 0; i < RPCRDMA_EXPORT_CONNS; i++) {
		struct rpcrdma_export_conn *c = &xf->conn[i];
		uint32_t free_ = 0;

		/* 2: taken, not labelled yet (rpcrdma-stat shows 1 only). */
		if (__atomic_compare_exchange_n(&c->in_use, &free_, 2, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			memset(&c->stats, 0, sizeof(c->stats));
			c->role = 0;
			c->peer[0] = 0;
			return &c->stats;
		}
	}
	return NULL;	/* more connections than slots: counted privately */
}

static struct rpcrdma_export_conn *conn_of(struct rpcrdma_stats *s)
{
	uintptr_t p = (uintptr_t)s, lo, hi;

	if (!xf || !s)
		return NULL;
	lo = (uintptr_t)&xf->conn[0];
	hi = (uintptr_t)&xf->conn[RPCRDMA_EXPORT_CONNS];
	if (p < lo || p >= hi)
		return NULL;
	return (struct rpcrdma_export_conn *)
		((char *)s - offsetof(struct rpcrdma_export_conn, stats));
}

void rpcrdma_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
		port = ntohs(in->sin_port);
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
		port = ntohs(in6->sin6_port);
	}
	snprintf(buf, len,
		 sa && sa->sa_family == AF_INET6 ? "[%s]:%u" : "%s:%u", a,
		 port);
}

void export_conn_label(struct rpcrdma_stats *s, int role,
		       const struct sockaddr *peer)
{
	struct rpcrdma_export_conn *c = conn_of(s);

	if (!c)
		return;
	rpcrdma_addr_str(peer, c->peer, sizeof(c->peer));
	c->role = (uint32_t)role;
	c->since = (uint64_t)time(NULL);
	__atomic_store_n(&c->in_use, 1, __ATOMIC_RELEASE);
}

void export_conn_put(struct rpcrdma_stats *s)
{
	struct rpcrdma_export_conn *c = conn_of(s);

	if (c)
		__atomic_store_n(&c->in_use, 0, __ATOMIC_RELEASE);
}
