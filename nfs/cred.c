/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-caller credentials. Each NFS call runs with its caller's AUTH_SYS
 * uid, gid and groups as this thread's file-system identity, mapped by
 * the export options first (exports(5)): root_squash maps uid 0,
 * all_squash every uid, to anonuid/anongid; a call of another flavor
 * (AUTH_NONE) is anonymous. The kernel then checks every access as it
 * would for that user (RFC 1813 section 4.4 leaves the checks to the
 * server; Linux's nfsd does the same).
 *
 * A call that switches runs on a companion of the serving thread, which
 * never touches an RDMA device: the kernel refuses the devices to a
 * thread whose credentials changed, even back to the same ids
 * (rpcrdma_svc_run(3) would replace each such thread, a thread exit and
 * start per call). The serving thread decodes, waits for the companion,
 * and replies. Only the companion switches: setfsuid and setfsgid are
 * per-thread system calls, setgroups and capset are called raw because
 * glibc's setgroups would switch every thread of the process. A caller
 * mapped to uid 0 runs as the server itself, on the serving thread.
 *
 * Handles are opened back as root (open_by_handle_at needs
 * CAP_DAC_READ_SEARCH, which a non-zero fsuid drops), then reopened under
 * the caller's identity (fh.c). A server not started as root acts as
 * itself for every caller.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include "nfs3d.h"

/* What this thread runs as now; switched false: the server itself. */
static __thread struct {
	bool switched;
	uid_t uid;
	gid_t gid;
	struct nfs3d_cred cr;	/* all of it, for nfs3d_cred_now */
} cur;

/* The server's own supplementary groups, given back after each call. */
static gid_t *own_groups;
static int own_ngroups;

static bool as_root(void)
{
	return geteuid() == 0;
}

int nfs3d_cred_init(void)
{
	int n = getgroups(0, NULL);

	if (n < 0)
		return -errno;
	own_groups = calloc((size_t)n + 1, sizeof(*own_groups));
	if (!own_groups)
		return -ENOMEM;
	n = getgroups(n, own_groups);
	if (n < 0)
		return -errno;
	own_ngroups = n;
	return 0;
}

/*
 * CAP_SYS_RESOURCE off while a caller's call runs (raised again after):
 * a client's user must not pass disk quotas or use the blocks a file
 * system keeps for root, which setfsuid leaves to it (it drops only the
 * file-system capabilities). Per thread, as capset acts on the caller.
 */
static int sys_resource(bool on)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	unsigned int w = CAP_SYS_RESOURCE / 32;
	uint32_t bit = 1u << (CAP_SYS_RESOURCE % 32);

	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	if (on)
		d[w].effective |= d[w].permitted & bit;
	else
		d[w].effective &= ~bit;
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	return 0;
}

void nfs3d_cred_of(const struct svc_req *rq, const struct nfs3d_opts *o,
		   struct nfs3d_cred *c)
{
	static const struct nfs3d_opts none = {.squash = NFS3D_SQUASH_ALL,
					       .anonuid = 65534,
					       .anongid = 65534};
	const struct authunix_parms *au = NULL;

	if (!o)
		o = &none; /* not a client of the export: nobody */
	memset(c, 0, sizeof(*c));
	if (rq->rq_cred.oa_flavor == AUTH_SYS && rq->rq_clntcred)
		au = (const struct authunix_parms *)rq->rq_clntcred;
	if (!au || o->squash == NFS3D_SQUASH_ALL ||
	    (au->aup_uid == 0 && o->squash == NFS3D_SQUASH_ROOT)) {
		c->uid = o->anonuid;
		c->gid = o->anongid;
		return;
	}
	c->uid = au->aup_uid;
	c->gid = au->aup_gid;
	/* xdr_authunix_parms bounds aup_len by NGRPS (16). */
	for (u_int i = 0; i < au->aup_len && au->aup_gids &&
			  c->ngroups < NFS3D_MAX_GROUPS;
	     i++)
		c->groups[c->ngroups++] = (gid_t)au->aup_gids[i];
	/* root_squash squashes the root group too, primary and
	 * supplementary, as Linux's nfsd_setuser does: else a client reads
	 * root-group files and makes setgid-root files. */
	if (o->squash == NFS3D_SQUASH_ROOT) {
		if (c->gid == 0)
			c->gid = o->anongid;
		for (unsigned int i = 0; i < c->ngroups; i++)
			if (c->groups[i] == 0)
				c->groups[i] = o->anongid;
	}
}

bool nfs3d_cred_in_group(const struct nfs3d_cred *c, gid_t gid)
{
	if (c->gid == gid)
		return true;
	for (unsigned int i = 0; i < c->ngroups; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

/* setfsuid/setfsgid return the previous id, never an error: read back. */
static int fs_ids(uid_t uid, gid_t gid)
{
	setfsgid(gid);
	setfsuid(uid);
	if ((uid_t)setfsuid((uid_t)-1) != uid ||
	    (gid_t)setfsgid((gid_t)-1) != gid)
		return -EPERM;
	return 0;
}

/* Back to the server's own identity. */
static void restore(void)
{
	/* fsuid 0 gives the file-system capabilities back. */
	(void)fs_ids(0, 0);
	(void)sys_resource(true);
	(void)syscall(SYS_setgroups, (size_t)own_ngroups, own_groups);
	cur.switched = false;
}

/* This thread's file-system identity to c (uid 0: unchanged); 0 or
 * -errno (then the thread is the server again). */
static int nfs3d_cred_enter(const struct nfs3d_cred *c)
{
	if (c->uid == 0 || !as_root())
		return 0;
	if (syscall(SYS_setgroups, (size_t)c->ngroups, c->groups) < 0)
		return -errno;
	if (fs_ids(c->uid, c->gid) < 0 || sys_resource(false) < 0) {
		restore();
		return -EPERM;
	}
	cur.switched = true;
	cur.uid = c->uid;
	cur.gid = c->gid;
	cur.cr = *c;
	return 0;
}

static void nfs3d_cred_leave(void)
{
	/* Unchanged threads stay so: the pool keeps them (see above). */
	if (cur.switched)
		restore();
}

bool nfs3d_cred_root_begin(void)
{
	if (!cur.switched)
		return false;
	(void)fs_ids(0, 0);
	return true;
}

void nfs3d_cred_root_end(bool was)
{
	if (was)
		(void)fs_ids(cur.uid, cur.gid);
}

bool nfs3d_cred_now(struct nfs3d_cred *c)
{
	if (!cur.switched)
		return false;
	*c = cur.cr;
	return true;
}

bool nfs3d_cred_is(uid_t uid)
{
	return cur.switched && cur.uid == uid;
}

/* ---- companions: one per serving thread, made at its first switch ---- */

struct companion {
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool busy, quit;	/* a call handed over; the server left */
	const struct nfs3d_cred *cr;
	nfs3d_fn fn;
	void *args, *res;
	struct svc_req *rq;
	bool reply;
	int err;
};

static pthread_key_t companion_key;
static pthread_once_t companion_once = PTHREAD_ONCE_INIT;

static void *companion_main(void *arg)
{
	struct companion *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->busy && !w->quit)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!w->busy)
			break;
		pthread_mutex_unlock(&w->lock);
		w->err = nfs3d_cred_enter(w->cr);
		if (!w->err) {
			w->reply = w->fn(w->args, w->res, w->rq);
			nfs3d_cred_leave();
		}
		pthread_mutex_lock(&w->lock);
		w->busy = false;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w);
	return NULL;
}

/* The serving thread ends (a pool stopping): its companion too. */
static void companion_release(void *arg)
{
	struct companion *w = arg;

	pthread_mutex_lock(&w->lock);
	w->quit = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static void companion_key_make(void)
{
	(void)pthread_key_create(&companion_key, companion_release);
}

static struct companion *companion_get(void)
{
	struct companion *w;

	if (pthread_once(&companion_once, companion_key_make) != 0)
		return NULL;
	w = pthread_getspecific(companion_key);
	if (w)
		return w;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	if (pthread_create(&w->th, NULL, companion_main, w) != 0) {
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cond);
		free(w);
		return NULL;
	}
	pthread_detach(w->th);
	if (pthread_setspecific(companion_key, w) != 0) {
		companion_release(w);
		return NULL;
	}
	return w;
}

int nfs3d_cred_call(const struct nfs3d_cred *c, nfs3d_fn fn, void *args,
		    void *res, struct svc_req *rq, bool *reply)
{
	struct companion *w;

	if (c->uid == 0 || !as_root()) {
		*reply = fn(args, res, rq);
		return 0;
	}
	w = companion_get();
	if (!w)
		return -ENOMEM;
	pthread_mutex_lock(&w->lock);
	w->cr = c;
	w->fn = fn;
	w->args = args;
	w->res = res;
	w->rq = rq;
	w->busy = true;
	pthread_cond_broadcast(&w->cond);
	while (w->busy)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
	*reply = w->reply;
	return w->err;
}
