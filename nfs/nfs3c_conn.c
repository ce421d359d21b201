/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3c: the export's root handle from MOUNT version 3 over TCP (RFC 1813
 * section 5.2.1), the NFS CLIENT over rdma (clnt_rdma_create) or tcp,
 * the transfer sizes from FSINFO (section 3.3.19) and, over rdma, the
 * reply bounds and direct data placement hints of each procedure.
 */
#define _GNU_SOURCE
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "nfs3c.h"

#define NFS_RDMA_PORT	20049
#define NFS_TCP_PORT	2049
/* Transfers larger than this are refused whatever FSINFO says: a hostile
 * rtmax must not make us allocate gigabytes per thread. */
#define XFER_MAX	(64u << 20)
/* Reply bounds (the RPC reply, header included) of the procedures whose
 * results are small: they fit the inline threshold, so their calls offer
 * no reply chunk (RFC 8166 section 3.5.4). The largest, LOOKUP or
 * CREATE, is a status, a handle of 64 bytes and three attribute sets,
 * under 400 bytes with the RPC header. */
#define SMALL_REPLY	1024u
/* READ and WRITE replies without their data: attributes, count, flags,
 * the verifier (sections 3.3.6, 3.3.7). */
#define RW_REPLY	512u

/* A TCP CLIENT for prog/vers at host:port (port 0: rpcbind). */
static CLIENT *tcp_clnt(const char *host, int port, rpcprog_t prog,
			rpcvers_t vers)
{
	struct addrinfo hints, *ai;
	struct netconfig *nc;
	struct netbuf nb;
	CLIENT *cl;

	if (port == 0)
		return clnt_create(host, prog, vers, "tcp");
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &ai) != 0) {
		rpc_createerr.cf_stat = RPC_UNKNOWNHOST;
		return NULL;
	}
	if (ai->ai_family == AF_INET6)
		((struct sockaddr_in6 *)ai->ai_addr)->sin6_port =
			htons((uint16_t)port);
	else
		((struct sockaddr_in *)ai->ai_addr)->sin_port =
			htons((uint16_t)port);
	nc = getnetconfigent(ai->ai_family == AF_INET6 ? "tcp6" : "tcp");
	if (!nc) {
		freeaddrinfo(ai);
		rpc_createerr.cf_stat = RPC_UNKNOWNPROTO;
		return NULL;
	}
	nb.buf = ai->ai_addr;
	nb.len = nb.maxlen = ai->ai_addrlen;
	cl = clnt_tli_create(RPC_ANYFD, nc, &nb, prog, vers, 0, 0);
	freenetconfigent(nc);
	freeaddrinfo(ai);
	return cl;
}

static CLIENT *mount_clnt(struct nfs3c *c)
{
	CLIENT *m = tcp_clnt(c->host, c->mount_port, MOUNT_PROGRAM, MOUNT_V3);

	if (!m) {
		nfs3c_fail("MOUNT", c->host, clnt_spcreateerror("tcp"));
		return NULL;
	}
	m->cl_auth = authunix_create_default();
	if (!m->cl_auth) {
		clnt_destroy(m);
		nfs3c_fail("MOUNT", c->host, "no AUTH_SYS credentials");
		return NULL;
	}
	return m;
}

static void mount_destroy(CLIENT *m)
{
	auth_destroy(m->cl_auth);
	clnt_destroy(m);
}

/* MOUNTPROC3_MNT (section 5.2.1): the root handle of the export. */
int nfs3c_mount(struct nfs3c *c)
{
	dirpath dp = (char *)c->export;
	mountres3 res;
	fhandle3 *h;
	CLIENT *m = mount_clnt(c);
	int rc = -1;

	if (!m)
		return -1;
	memset(&res, 0, sizeof(res));
	if (clnt_call(m, MOUNTPROC3_MNT, XP(xdr_dirpath), (char *)&dp,
		      XP(xdr_mountres3), (char *)&res, c->tmo) != RPC_SUCCESS) {
		nfs3c_fail("MOUNT", c->export, clnt_sperror(m, "MNT"));
		mount_destroy(m);
		return -1;
	}
	h = &res.mountres3_u.mountinfo.fhandle;
	if (res.fhs_status != MNT3_OK) {
		/* The MNT3ERR_* values are the NFS3ERR_* ones. */
		nfs3c_fail_nfs("MOUNT", c->export, (nfsstat3)res.fhs_status);
	} else if (h->fhandle3_len == 0) {
		nfs3c_fail("MOUNT", c->export, "empty root handle");
	} else {
		c->root.data.data_len = h->fhandle3_len;
		c->root.data.data_val = h->fhandle3_val;
		/* The handle is ours now. */
		h->fhandle3_val = NULL;
		h->fhandle3_len = 0;
		rc = 0;
	}
	xdr_free(XP(xdr_mountres3), (char *)&res);
	mount_destroy(m);
	return rc;
}

/* MOUNTPROC3_UMNT (section 5.2.3): mountd forgets us; errors ignored. */
void nfs3c_umount(struct nfs3c *c)
{
	dirpath dp = (char *)c->export;
	CLIENT *m = mount_clnt(c);

	if (!m)
		return;
	clnt_call(m, MOUNTPROC3_UMNT, XP(xdr_dirpath), (char *)&dp,
		  XP(xdr_void), NULL, c->tmo);
	mount_destroy(m);
}

int nfs3c_connect(struct nfs3c *c)
{
	int port = c->nfs_port;

	if (c->rdma) {
		struct rpcrdma_opts o;
		uint32_t small = SMALL_REPLY;
		const char *cr;

		rpcrdma_opts_default(&o);
		o.port = (uint16_t)(port < 0 ? NFS_RDMA_PORT : port);
		/* The guest's two ports on one host: the source address. */
		o.src_addr = getenv("RPCRDMA_SRCADDR");
		/* Our slots (the credits we ask for), as the library's
		 * RPCRDMA_CREDITS: tests ask for more than a server grants. */
		cr = getenv("RPCRDMA_CREDITS");
		if (cr && *cr) {
			char *end;
			unsigned long v = strtoul(cr, &end, 10);

			if (*end || v == 0 || v > 1024)
				return nfs3c_fail("connect", c->host,
						  "RPCRDMA_CREDITS: 1 to 1024");
			o.credits = (uint32_t)v;
		}
		c->cl = clnt_rdma_create(c->host, NFS_PROGRAM, NFS_V3, &o);
		if (c->cl && !clnt_control(c->cl, CLSET_RDMA_REPLY_MAX,
					   (char *)&small)) {
			clnt_destroy(c->cl);
			c->cl = NULL;
			return nfs3c_fail("connect", c->host,
					  "CLSET_RDMA_REPLY_MAX refused");
		}
	} else {
		c->cl = tcp_clnt(c->host, port < 0 ? NFS_TCP_PORT : port,
				 NFS_PROGRAM, NFS_V3);
	}
	if (!c->cl)
		return nfs3c_fail("connect", c->host,
				  clnt_spcreateerror(c->rdma ? "rdma" : "tcp"));
	c->cl->cl_auth = authunix_create_default();
	if (!c->cl->cl_auth) {
		clnt_destroy(c->cl);
		c->cl = NULL;
		return nfs3c_fail("connect", c->host, "no AUTH_SYS credentials");
	}
	return 0;
}

void nfs3c_disconnect(struct nfs3c *c)
{
	if (!c->cl)
		return;
	auth_destroy(c->cl->cl_auth);
	clnt_destroy(c->cl);
	c->cl = NULL;
}

/* requested, else preferred, capped by the maximum (and by ours). */
static uint32_t xfer_size(uint32_t want, uint32_t pref, uint32_t max,
			  uint32_t ours)
{
	uint32_t v = want ? want : pref;

	if (v == 0)
		v = max ? max : 32768;
	if (max && v > max)
		v = max;
	if (v > ours)
		v = ours;
	return v;
}

/* Over rdma: READ data in a write chunk of rsize (RFC 8267 section 4.1),
 * the rest of its reply inline; WRITE's reply inline (its data goes in a
 * read chunk by the DDP threshold); READDIR and READDIRPLUS bounds are
 * set per call (nfs3c_dir.c). */
static int rdma_hints(struct nfs3c *c)
{
	struct rpcrdma_proc_ddp d = { NFSPROC3_READ, 1, c->rsize };
	struct rpcrdma_proc_reply r = { NFSPROC3_READ, RW_REPLY };

	if (!clnt_control(c->cl, CLSET_RDMA_PROC_DDP, (char *)&d) ||
	    !clnt_control(c->cl, CLSET_RDMA_PROC_REPLY, (char *)&r))
		return nfs3c_fail("connect", c->host, "READ hints refused");
	r.proc = NFSPROC3_WRITE;
	if (!clnt_control(c->cl, CLSET_RDMA_PROC_REPLY, (char *)&r))
		return nfs3c_fail("connect", c->host, "WRITE hint refused");
	return 0;
}

int nfs3c_fsinfo(struct nfs3c *c)
{
	FSINFO3args a = { c->root };
	FSINFO3res r;
	uint32_t ours = XFER_MAX;

	memset(&r, 0, sizeof(r));
	if (clnt_call(c->cl, NFSPROC3_FSINFO, XP(xdr_FSINFO3args), (char *)&a,
		      XP(xdr_FSINFO3res), (char *)&r, c->tmo) != RPC_SUCCESS)
		return nfs3c_fail_rpc(c, "FSINFO", "/");
	if (r.status != NFS3_OK) {
		xdr_free(XP(xdr_FSINFO3res), (char *)&r);
		return nfs3c_fail_nfs("FSINFO", "/", r.status);
	}
	c->fsinfo = r.FSINFO3res_u.resok;
	xdr_free(XP(xdr_FSINFO3res), (char *)&r);
	if (c->rdma) {
		uint32_t mm;

		/* A write chunk is at most max_msg bytes. */
		if (clnt_control(c->cl, CLGET_RDMA_MAX_MSG, (char *)&mm) &&
		    mm < ours)
			ours = mm;
	}
	c->rsize = xfer_size(c->rsize, c->fsinfo.rtpref, c->fsinfo.rtmax, ours);
	c->wsize = xfer_size(c->wsize, c->fsinfo.wtpref, c->fsinfo.wtmax, ours);
	if (c->verbose)
		fprintf(stderr, "nfs3c: %s: rsize %u wsize %u (FSINFO rtmax %u "
			"rtpref %u wtmax %u wtpref %u dtpref %u)\n",
			c->rdma ? "rdma" : "tcp", c->rsize, c->wsize,
			c->fsinfo.rtmax, c->fsinfo.rtpref, c->fsinfo.wtmax,
			c->fsinfo.wtpref, c->fsinfo.dtpref);
	return c->rdma ? rdma_hints(c) : 0;
}

/* What the transport agreed with the server (RFC 8797 Private Data) and
 * how it used the credit grant (RFC 8166 section 3.3), one "key=value"
 * line each; tests read them. */
void nfs3c_print_transport(struct nfs3c *c, const char *when)
{
	struct rpcrdma_inline in;
	struct rpcrdma_stats s;

	if (!c->verbose || !c->rdma || !c->cl)
		return;
	if (clnt_control(c->cl, CLGET_RDMA_INLINE, (char *)&in))
		fprintf(stderr, "nfs3c: rdma inline (%s): send_max=%u "
			"recv_max=%u peer_sent_pvtdata=%d peer_remote_inv=%d "
			"remote_inv_in=%d\n", when, in.send_max, in.recv_max,
			in.peer_sent_pvtdata, in.peer_remote_inv,
			in.remote_inv_in);
	if (rpcrdma_clnt_stats(c->cl, &s) != 0)
		return;
	fprintf(stderr, "nfs3c: rdma credits (%s): credits_granted=%llu "
		"inflight_peak=%llu credit_waits=%llu connects=%llu\n", when,
		(unsigned long long)s.credits_granted,
		(unsigned long long)s.inflight_peak,
		(unsigned long long)s.credit_waits,
		(unsigned long long)s.connects);
	fprintf(stderr, "nfs3c: rdma chunks (%s): calls_inline=%llu "
		"calls_read_chunks=%llu calls_long=%llu replies_inline=%llu "
		"replies_write_chunks=%llu replies_long=%llu read_chunks=%llu "
		"write_chunks=%llu reply_chunks=%llu zc_chunks=%llu "
		"remote_invalidations=%llu rdma_read_bytes=%llu "
		"rdma_write_bytes=%llu\n", when,
		(unsigned long long)s.calls_inline,
		(unsigned long long)s.calls_read_chunks,
		(unsigned long long)s.calls_long,
		(unsigned long long)s.replies_inline,
		(unsigned long long)s.replies_write_chunks,
		(unsigned long long)s.replies_long,
		(unsigned long long)s.read_chunks,
		(unsigned long long)s.write_chunks,
		(unsigned long long)s.reply_chunks,
		(unsigned long long)s.zc_chunks,
		(unsigned long long)s.remote_invalidations,
		(unsigned long long)s.rdma_read_bytes,
		(unsigned long long)s.rdma_write_bytes);
}
