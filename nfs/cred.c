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
 * Only this thread switches: setfsuid and setfsgid are per-thread system
 * calls, and setgroups is called raw because glibc's would switch every
 * thread of the process, after which the kernel refuses the RDMA device
 * to all of them (rpcrdma_svc_run(3) replaces a thread whose credentials
 * changed). A caller mapped to uid 0 runs as the server itself: no
 * switch, so root's calls keep their thread.
 *
 * Handles are opened back as root (open_by_handle_at needs
 * CAP_DAC_READ_SEARCH, which a non-zero fsuid drops), then reopened under
 * the caller's identity (fh.c). A server not started as root acts as
 * itself for every caller.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
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

void nfs3d_cred_of(const struct svc_req *rq, struct nfs3d_cred *c)
{
	const struct authunix_parms *au = NULL;

	memset(c, 0, sizeof(*c));
	if (rq->rq_cred.oa_flavor == AUTH_SYS && rq->rq_clntcred)
		au = (const struct authunix_parms *)rq->rq_clntcred;
	if (!au || nfs3d_exp.squash == NFS3D_SQUASH_ALL ||
	    (au->aup_uid == 0 && nfs3d_exp.squash == NFS3D_SQUASH_ROOT)) {
		c->uid = nfs3d_exp.anonuid;
		c->gid = nfs3d_exp.anongid;
		return;
	}
	c->uid = au->aup_uid;
	c->gid = au->aup_gid;
	/* xdr_authunix_parms bounds aup_len by NGRPS (16). */
	for (u_int i = 0; i < au->aup_len && au->aup_gids &&
			  c->ngroups < NFS3D_MAX_GROUPS;
	     i++)
		c->groups[c->ngroups++] = (gid_t)au->aup_gids[i];
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

int nfs3d_cred_enter(const struct nfs3d_cred *c)
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
	return 0;
}

void nfs3d_cred_leave(void)
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

bool nfs3d_cred_is(uid_t uid)
{
	return cur.switched && cur.uid == uid;
}
