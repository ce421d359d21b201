/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dispatcher of nfs3d's programs: a table per program (rpcgen's -m
 * dispatch exits the process on a failing svc_freeargs and keeps no
 * counters). One call is decoded, run, answered and freed here, with
 * its arguments and results on this thread's stack: nothing is shared
 * between calls, so rpcrdma_svc_run's threads and svc_run may dispatch
 * at once.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "nfs3d.h"

_Static_assert((int)MNT3ERR_ACCES == (int)NFS3ERR_ACCES,
	       "one ACCES status for both programs");

void nfs3d_dispatch(const struct nfs3d_proc *tab, unsigned int n,
		    struct nfs3d_counters *cnt, struct svc_req *rq,
		    SVCXPRT *xprt)
{
	_Alignas(16) char args[NFS3D_ARGBUF];
	_Alignas(16) char res[NFS3D_ARGBUF];
	const struct nfs3d_opts *o;
	const struct nfs3d_proc *p;
	unsigned int k;
	bool reply;
	int rc;

	if (rq->rq_proc >= n || !tab[rq->rq_proc].fn) {
		svcerr_noproc(xprt);
		return;
	}
	p = &tab[rq->rq_proc];
	if (p->argsz > sizeof(args) || p->ressz > sizeof(res)) {
		svcerr_systemerr(xprt);
		return;
	}
	k = xprt->xp_netid && strncmp(xprt->xp_netid, "rdma", 4) == 0
		? NFS3D_RDMA
		: NFS3D_TCP;
	atomic_fetch_add_explicit(&cnt[rq->rq_proc].calls[k], 1,
				  memory_order_relaxed);
	memset(args, 0, p->argsz);
	memset(res, 0, p->ressz);
	if (!svc_getargs(xprt, p->xargs, args)) {
		svcerr_decode(xprt);
		/* What was decoded before the failure is freed all the same. */
		svc_freeargs(xprt, p->xargs, args);
		return;
	}
	/* Who calls, and with which export options (access.c): every
	 * procedure but NULL. A refused caller gets ACCES where the result
	 * has a status (MNT3ERR_ACCES and NFS3ERR_ACCES are both 13), an
	 * authentication error elsewhere. */
	o = rq->rq_proc == 0 ? &nfs3d_exp.opts : nfs3d_access(rq);
	if (!o && !p->has_status) {
		svcerr_weakauth(xprt);
		svc_freeargs(xprt, p->xargs, args);
		return;
	}
	if (!o || (p->modifies && o->ro)) {
		/* A zeroed failure arm: its wcc_data says nothing. */
		*(nfsstat3 *)(void *)res = o ? NFS3ERR_ROFS : NFS3ERR_ACCES;
		reply = true;
	} else {
		struct nfs3d_cred cr;

		nfs3d_cred_of(rq, o, &cr);
		rc = nfs3d_cred_call(&cr, p->fn, args, res, rq, &reply);
		/* After the change and before its reply: a call that comes
		 * after it opens its file afresh (fcache.c). */
		if (p->modifies && !p->keeps_files)
			nfs3d_files_changed();
		if (rc < 0) {
			svcerr_systemerr(xprt);
			svc_freeargs(xprt, p->xargs, args);
			return;
		}
	}
	if (p->has_status && *(const nfsstat3 *)(const void *)res != NFS3_OK)
		atomic_fetch_add_explicit(&cnt[rq->rq_proc].errors[k], 1,
					  memory_order_relaxed);
	if (nfs3d_exp.verbose)
		fprintf(stderr, "nfs3d: %s %s%s%s\n",
			k == NFS3D_RDMA ? "rdma" : "tcp", p->label,
			p->has_status ? " -> " : "",
			p->has_status ? nfs3d_strstat(*(
					    const nfsstat3 *)(const void *)res)
				      : "");
	if (reply && !svc_sendreply(xprt, p->xres, res))
		fprintf(stderr, "nfs3d: %s: the reply could not be sent\n",
			p->label);
	if (!svc_freeargs(xprt, p->xargs, args))
		fprintf(stderr, "nfs3d: %s: arguments not freed\n", p->label);
	xdr_free(p->xres, res);
}

void nfs3d_print_counters(FILE *f, const char *prog,
			  const struct nfs3d_proc *tab, unsigned int n,
			  const struct nfs3d_counters *cnt)
{
	static const char *const kind[NFS3D_NXPRT] = {"rdma", "tcp"};

	for (unsigned int k = 0; k < NFS3D_NXPRT; k++)
		for (unsigned int i = 0; i < n; i++) {
			uint64_t c = atomic_load(&cnt[i].calls[k]);
			uint64_t e = atomic_load(&cnt[i].errors[k]);

			if (c)
				fprintf(f,
					"nfs3d: %s/%s %s calls=%" PRIu64
					" errors=%" PRIu64 "\n",
					prog, kind[k], tab[i].label, c, e);
		}
}
