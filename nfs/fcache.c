/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Open files kept for READ, WRITE and COMMIT, as Linux's nfsd keeps them
 * (its file cache): a 4 KiB READ otherwise costs open_by_handle_at, an
 * fstat, the reopen under the caller's identity and two closes (fh.c),
 * five of its ten system calls.
 *
 * An entry is the descriptor nfs3d_fh_open gave one identity (what the
 * thread acts as: the server itself, or a caller's uid, gid and groups,
 * cred.c) for one handle and one way of opening it. The kernel checked
 * that identity's rights when it opened the file; the entry serves only
 * the same identity, and only while
 *   - no procedure that can change rights or names ran since it was
 *     opened (SETATTR, CREATE, REMOVE, RMDIR, RENAME, LINK: they call
 *     nfs3d_files_changed, and every entry older than that is dropped),
 *   - and it is younger than FC_TTL_MS: what changes on the server's own
 *     disk (a local chmod, a file removed there) is seen within that,
 *     as a local process with the file open sees it at its next open.
 * The signal thread closes entries past their age (nfs3d_files_sweep),
 * so an idle server holds none for long; a change closes what it made
 * stale at once (no user left: at that user's put), so that a removed
 * file is not kept alive by us. Descriptors are closed outside the lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "nfs3d.h"

#define FC_SETS	   16
#define FC_WAYS	   4
#define FC_TTL_MS  1000

struct fc_ent {
	int fd;			/* -1: empty */
	uint32_t refs;		/* calls using fd now */
	uint64_t gen;		/* nfs3d_files_changed count before its open */
	uint64_t born_ms;
	enum nfs3d_open how;
	bool self;		/* the server's own identity */
	struct nfs3d_cred cr;	/* else the caller's */
	u_int fhlen;
	unsigned char fh[NFS3_FHSIZE];
};

static struct {
	pthread_mutex_t lock;
	struct fc_ent e[FC_SETS * FC_WAYS];
	bool ready;
	uint64_t hits, misses;
} fc = {.lock = PTHREAD_MUTEX_INITIALIZER};

static _Atomic uint64_t fc_gen;

static uint64_t now_ms(void)
{
	struct timespec ts;

	/* The coarse clock is read without a system call (vDSO). */
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static unsigned int fc_set(const nfs_fh3 *fh, enum nfs3d_open how)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (u_int i = 0; i < fh->data.data_len; i++)
		h = (h ^ (unsigned char)fh->data.data_val[i]) * 16777619u;
	h = (h ^ (uint32_t)how) * 16777619u;
	return (h >> 8) % FC_SETS;
}

static bool same_cred(const struct nfs3d_cred *a, const struct nfs3d_cred *b)
{
	return a->uid == b->uid && a->gid == b->gid &&
	       a->ngroups == b->ngroups &&
	       !memcmp(a->groups, b->groups, a->ngroups * sizeof(a->groups[0]));
}

static bool fc_match(const struct fc_ent *e, const nfs_fh3 *fh,
		     enum nfs3d_open how, bool self,
		     const struct nfs3d_cred *cr)
{
	return e->fd >= 0 && e->how == how && e->self == self &&
	       e->fhlen == fh->data.data_len &&
	       !memcmp(e->fh, fh->data.data_val, e->fhlen) &&
	       (self || same_cred(&e->cr, cr));
}

static bool fc_stale(const struct fc_ent *e, uint64_t gen, uint64_t now)
{
	/* now may be older than an entry another thread just made. */
	return e->gen != gen ||
	       (now > e->born_ms && now - e->born_ms >= FC_TTL_MS);
}

/* Descriptors to close once fc.lock is dropped: the last close of a
 * removed file frees its blocks, which must not hold every READ. */
struct fc_closing {
	unsigned int n;
	int fd[FC_SETS * FC_WAYS + 1];
};

/* Empties e (fc.lock held) if no call uses it; its fd goes to c. */
static void fc_drop(struct fc_ent *e, struct fc_closing *c)
{
	if (e->fd >= 0 && e->refs == 0) {
		c->fd[c->n++] = e->fd;
		e->fd = -1;
	}
}

static void fc_close(const struct fc_closing *c)
{
	for (unsigned int i = 0; i < c->n; i++)
		close(c->fd[i]);
}

/* Empties every stale entry no call uses (fc.lock held). */
static void fc_sweep_locked(struct fc_closing *c)
{
	uint64_t gen = atomic_load(&fc_gen), now = now_ms();

	for (unsigned int i = 0; fc.ready && i < FC_SETS * FC_WAYS; i++)
		if (fc.e[i].fd >= 0 && fc_stale(&fc.e[i], gen, now))
			fc_drop(&fc.e[i], c);
}

static void fc_init_locked(void)
{
	if (fc.ready)
		return;
	for (unsigned int i = 0; i < FC_SETS * FC_WAYS; i++)
		fc.e[i].fd = -1;
	fc.ready = true;
}

nfsstat3 nfs3d_file_get(const nfs_fh3 *fh, enum nfs3d_open how,
			struct nfs3d_file *f)
{
	struct nfs3d_cred cr;
	bool self = !nfs3d_cred_now(&cr);
	unsigned int set = fc_set(fh, how) * FC_WAYS;
	uint64_t gen, now = now_ms();
	struct fc_ent *e, *victim = NULL;
	struct fc_closing c = {0};
	nfsstat3 s;
	int fd;

	f->fd = -1;
	f->slot = -1;
	if (fh->data.data_len > NFS3_FHSIZE)
		return NFS3ERR_BADHANDLE;
	pthread_mutex_lock(&fc.lock);
	fc_init_locked();
	gen = atomic_load(&fc_gen);
	for (unsigned int i = set; i < set + FC_WAYS; i++) {
		e = &fc.e[i];
		if (e->fd >= 0 && fc_stale(e, gen, now)) {
			fc_drop(e, &c);	/* or its user's put does */
			continue;
		}
		if (fc_match(e, fh, how, self, &cr)) {
			e->refs++;
			fc.hits++;
			f->fd = e->fd;
			f->slot = (int)i;
			pthread_mutex_unlock(&fc.lock);
			fc_close(&c);
			return NFS3_OK;
		}
	}
	fc.misses++;
	pthread_mutex_unlock(&fc.lock);
	fc_close(&c);
	c.n = 0;

	/* gen was read before the open: a change made meanwhile leaves
	 * this entry older than it, and the next lookup drops it. */
	s = nfs3d_fh_open(fh, how, &fd);
	if (s != NFS3_OK)
		return s;
	f->fd = fd;
	pthread_mutex_lock(&fc.lock);
	for (unsigned int i = set; i < set + FC_WAYS; i++) {
		e = &fc.e[i];
		if (e->refs)
			continue;
		if (e->fd < 0) {
			victim = e;
			break;
		}
		if (!victim || e->born_ms < victim->born_ms)
			victim = e;
	}
	if (victim) {
		fc_drop(victim, &c);
		victim->fd = fd;
		victim->refs = 1;
		victim->gen = gen;
		victim->born_ms = now;
		victim->how = how;
		victim->self = self;
		victim->cr = cr;
		victim->fhlen = fh->data.data_len;
		memcpy(victim->fh, fh->data.data_val, victim->fhlen);
		f->slot = (int)(victim - fc.e);
	}
	/* Else every way is in use: this call's descriptor is its own. */
	pthread_mutex_unlock(&fc.lock);
	fc_close(&c);
	return NFS3_OK;
}

void nfs3d_file_put(struct nfs3d_file *f)
{
	struct fc_closing c = {0};
	struct fc_ent *e;

	if (f->fd < 0)
		return;
	if (f->slot < 0) {
		c.fd[c.n++] = f->fd;
	} else {
		pthread_mutex_lock(&fc.lock);
		e = &fc.e[f->slot];
		e->refs--;
		if (fc_stale(e, atomic_load(&fc_gen), now_ms()))
			fc_drop(e, &c);
		pthread_mutex_unlock(&fc.lock);
	}
	fc_close(&c);
	f->fd = -1;
	f->slot = -1;
}

void nfs3d_files_sweep(void)
{
	struct fc_closing c = {0};

	pthread_mutex_lock(&fc.lock);
	fc_sweep_locked(&c);
	pthread_mutex_unlock(&fc.lock);
	fc_close(&c);
}

/* Before the change's reply: what was kept of a removed or renamed-over
 * file goes now (its blocks freed), as nfsd closes its files of an
 * unlinked inode; a file in use goes at its put. */
void nfs3d_files_changed(void)
{
	atomic_fetch_add(&fc_gen, 1);
	nfs3d_files_sweep();
}

void nfs3d_files_print(FILE *out)
{
	unsigned int open = 0;
	uint64_t hits, misses;

	pthread_mutex_lock(&fc.lock);
	for (unsigned int i = 0; fc.ready && i < FC_SETS * FC_WAYS; i++)
		open += fc.e[i].fd >= 0;
	hits = fc.hits;
	misses = fc.misses;
	pthread_mutex_unlock(&fc.lock);
	fprintf(out,
		"nfs3d: open files: hits=%llu misses=%llu open=%u (of %u, "
		"kept %u ms)\n",
		(unsigned long long)hits, (unsigned long long)misses, open,
		FC_SETS * FC_WAYS, FC_TTL_MS);
}
