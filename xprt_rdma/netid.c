/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The netids "rdma" and "rdma6" in libtirpc's own creators.
 *
 * Why interpose: libtirpc's creators (clnt_create[_timed],
 * clnt_tp_create[_timed], svc_create, svc_tp_create, svc_tli_create),
 * getnetconfigent, and svc_reg / rpcb_set (which need a universal address
 * from taddr2uaddr) know only the transports listed in /etc/netconfig and
 * the socket-based clnt_vc / clnt_dg / svc_vc / svc_dg behind them; there
 * is no hook for a new transport. A program linked
 * with -lrpcrdma before -ltirpc binds these names to the definitions
 * below, which serve the rdma netids themselves and hand every other
 * netid, unchanged, to the libtirpc function found with
 * dlsym(RTLD_NEXT, name). (libtirpc's own internal calls keep going to
 * libtirpc: they are bound to its TIRPC_0.3.0 symbol versions.)
 *
 * rpcrdma_svc_reg lives here too: it registers our transports with
 * libtirpc's svc_reg through the same resolver, so the library never
 * calls its own interposer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netconfig.h>
#include <rpc/rpc.h>
#include <rpc/rpcb_clnt.h>
#include "xprt.h"

typedef struct netconfig *(*getnetconfigent_fn)(const char *);
typedef void (*freenetconfigent_fn)(struct netconfig *);
typedef CLIENT *(*clnt_create_fn)(const char *, rpcprog_t, rpcvers_t,
				  const char *);
typedef CLIENT *(*clnt_create_timed_fn)(const char *, rpcprog_t, rpcvers_t,
					const char *, const struct timeval *);
typedef CLIENT *(*clnt_tp_create_fn)(const char *, rpcprog_t, rpcvers_t,
				     const struct netconfig *);
typedef CLIENT *(*clnt_tp_create_timed_fn)(const char *, rpcprog_t,
					   rpcvers_t,
					   const struct netconfig *,
					   const struct timeval *);
typedef void (*dispatch_fn)(struct svc_req *, SVCXPRT *);
typedef int (*svc_create_fn)(dispatch_fn, rpcprog_t, rpcvers_t,
			     const char *);
typedef SVCXPRT *(*svc_tp_create_fn)(dispatch_fn, rpcprog_t, rpcvers_t,
				     const struct netconfig *);
typedef SVCXPRT *(*svc_tli_create_fn)(int, const struct netconfig *,
				      const struct t_bind *, u_int, u_int);
typedef bool_t (*svc_reg_fn)(SVCXPRT *, rpcprog_t, rpcvers_t, dispatch_fn,
			     const struct netconfig *);
typedef bool_t (*rpcb_set_fn)(rpcprog_t, rpcvers_t, const struct netconfig *,
			      const struct netbuf *);
typedef char *(*clnt_sperror_fn)(CLIENT *, const char *);

static struct {
	getnetconfigent_fn getnetconfigent;
	freenetconfigent_fn freenetconfigent;
	clnt_create_fn clnt_create;
	clnt_create_timed_fn clnt_create_timed;
	clnt_tp_create_fn clnt_tp_create;
	clnt_tp_create_timed_fn clnt_tp_create_timed;
	svc_create_fn svc_create;
	svc_tp_create_fn svc_tp_create;
	svc_tli_create_fn svc_tli_create;
	svc_reg_fn svc_reg;
	rpcb_set_fn rpcb_set;
	clnt_sperror_fn clnt_sperror;
} real;

static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/*
 * The next definition after ours; when librpcrdma was loaded after
 * libtirpc (no interposition then, but our names may still be called
 * directly), libtirpc's own, looked up by its symbol version.
 */
static void *next_sym(const char *name)
{
	void *h, *p = dlsym(RTLD_NEXT, name);

	if (p)
		return p;
	h = dlopen("libtirpc.so.3", RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	p = dlvsym(h, name, "TIRPC_0.3.0");
	dlclose(h);
	return p;
}

static void resolve_real(void)
{
	real.getnetconfigent =
		(getnetconfigent_fn)next_sym("getnetconfigent");
	real.freenetconfigent =
		(freenetconfigent_fn)next_sym("freenetconfigent");
	real.clnt_create = (clnt_create_fn)next_sym("clnt_create");
	real.clnt_create_timed =
		(clnt_create_timed_fn)next_sym("clnt_create_timed");
	real.clnt_tp_create = (clnt_tp_create_fn)next_sym("clnt_tp_create");
	real.clnt_tp_create_timed =
		(clnt_tp_create_timed_fn)next_sym("clnt_tp_create_timed");
	real.svc_create = (svc_create_fn)next_sym("svc_create");
	real.svc_tp_create = (svc_tp_create_fn)next_sym("svc_tp_create");
	real.svc_tli_create = (svc_tli_create_fn)next_sym("svc_tli_create");
	real.svc_reg = (svc_reg_fn)next_sym("svc_reg");
	real.rpcb_set = (rpcb_set_fn)next_sym("rpcb_set");
	real.clnt_sperror = (clnt_sperror_fn)next_sym("clnt_sperror");
}

static void need_real(void)
{
	pthread_once(&real_once, resolve_real);
}

static void no_real(void)
{
	rpc_createerr.cf_stat = RPC_SYSTEMERROR;
	rpc_createerr.cf_error.re_errno = ENOSYS;
}

/* ---- our two netconfig entries ---- */

static char nc_rdma_id[] = "rdma", nc_rdma6_id[] = "rdma6";
static char nc_inet[] = NC_INET, nc_inet6[] = NC_INET6;
static char nc_proto_rdma[] = "rdma", nc_dev[] = "-";

/* Static: getnetconfigent hands these out, freenetconfigent ignores them. */
static struct netconfig nc_rdma = {
	.nc_netid = nc_rdma_id,
	.nc_semantics = NC_TPI_COTS_ORD,
	.nc_flag = NC_VISIBLE,
	.nc_protofmly = nc_inet,
	.nc_proto = nc_proto_rdma,
	.nc_device = nc_dev,
};
static struct netconfig nc_rdma6 = {
	.nc_netid = nc_rdma6_id,
	.nc_semantics = NC_TPI_COTS_ORD,
	.nc_flag = NC_VISIBLE,
	.nc_protofmly = nc_inet6,
	.nc_proto = nc_proto_rdma,
	.nc_device = nc_dev,
};

static struct netconfig *rdma_nconf(const char *netid)
{
	if (!netid)
		return NULL;
	if (strcmp(netid, "rdma") == 0)
		return &nc_rdma;
	if (strcmp(netid, "rdma6") == 0)
		return &nc_rdma6;
	return NULL;
}

static bool is_rdma_nconf(const struct netconfig *nc)
{
	return nc && (nc == &nc_rdma || nc == &nc_rdma6 ||
		      rdma_nconf(nc->nc_netid));
}

struct netconfig *getnetconfigent(const char *netid)
{
	struct netconfig *nc = rdma_nconf(netid);

	if (nc)
		return nc;
	need_real();
	if (!real.getnetconfigent)
		return NULL;
	return real.getnetconfigent(netid);
}

void freenetconfigent(struct netconfig *nc)
{
	if (!nc || nc == &nc_rdma || nc == &nc_rdma6)
		return;
	need_real();
	if (real.freenetconfigent)
		real.freenetconfigent(nc);
}

/* ---- clients ---- */

static CLIENT *rdma_clnt(const char *host, rpcprog_t prog, rpcvers_t vers,
			 const struct timeval *tp)
{
	struct rpcrdma_opts o;

	rpcrdma_opts_from_env(&o);
	if (tp && (tp->tv_sec > 0 || tp->tv_usec > 0)) {
		long ms = tp->tv_sec > 86400 ? 86400000L :
			  (long)tp->tv_sec * 1000 + tp->tv_usec / 1000;

		o.timeout_ms = ms > 0 ? (int)ms : 1;
	}
	return clnt_rdma_create(host, prog, vers, &o);
}

CLIENT *clnt_create(const char *host, rpcprog_t prog, rpcvers_t vers,
		    const char *nettype)
{
	if (rdma_nconf(nettype))
		return rdma_clnt(host, prog, vers, NULL);
	need_real();
	if (!real.clnt_create) {
		no_real();
		return NULL;
	}
	return real.clnt_create(host, prog, vers, nettype);
}

CLIENT *clnt_create_timed(const char *host, rpcprog_t prog, rpcvers_t vers,
			  const char *nettype, const struct timeval *tp)
{
	if (rdma_nconf(nettype))
		return rdma_clnt(host, prog, vers, tp);
	need_real();
	if (!real.clnt_create_timed) {
		no_real();
		return NULL;
	}
	return real.clnt_create_timed(host, prog, vers, nettype, tp);
}

CLIENT *clnt_tp_create(const char *host, rpcprog_t prog, rpcvers_t vers,
		       const struct netconfig *nc)
{
	if (is_rdma_nconf(nc))
		return rdma_clnt(host, prog, vers, NULL);
	need_real();
	if (!real.clnt_tp_create) {
		no_real();
		return NULL;
	}
	return real.clnt_tp_create(host, prog, vers, nc);
}

CLIENT *clnt_tp_create_timed(const char *host, rpcprog_t prog,
			     rpcvers_t vers, const struct netconfig *nc,
			     const struct timeval *tp)
{
	if (is_rdma_nconf(nc))
		return rdma_clnt(host, prog, vers, tp);
	need_real();
	if (!real.clnt_tp_create_timed) {
		no_real();
		return NULL;
	}
	return real.clnt_tp_create_timed(host, prog, vers, nc, tp);
}

/* ---- servers ---- */

static SVCXPRT *rdma_listener(const char *netid)
{
	struct rpcrdma_opts o;

	rpcrdma_opts_from_env(&o);
	return svc_rdma_create(strcmp(netid, "rdma6") == 0 ? "::" : NULL, &o);
}

/*
 * Registers a transport of ours (svc_rdma_owns) with libtirpc's svc_reg,
 * called with no netconfig as the interposed svc_reg below does for nc ==
 * NULL, then with rpcbind.
 */
bool rpcrdma_svc_reg(SVCXPRT *xprt, rpcprog_t prog, rpcvers_t vers,
		     void (*dispatch)(struct svc_req *, SVCXPRT *))
{
	if (!xprt || !svc_rdma_owns(xprt))
		return false;
	need_real();
	if (!real.svc_reg || !real.svc_reg(xprt, prog, vers, dispatch, NULL))
		return false;
	/* rpcbind may not run at all: then only an explicit port works. */
	(void)rpcrdma_rpcb_set(prog, vers, xprt->xp_netid,
			       (const struct sockaddr *)xprt->xp_ltaddr.buf);
	return true;
}

/*
 * svc_reg with an rdma netconfig (what "rpcgen -n rdma" mains do after
 * svc_tli_create): libtirpc's would fail in rpcb_set, which cannot make
 * a universal address for a netid outside /etc/netconfig.
 */
bool_t svc_reg(SVCXPRT *xprt, const rpcprog_t prog, const rpcvers_t vers,
	       dispatch_fn dispatch, const struct netconfig *nc)
{
	need_real();
	if (!real.svc_reg)
		return FALSE;
	if (is_rdma_nconf(nc) && rpcrdma_svc_reg(xprt, prog, vers, dispatch))
		return TRUE;
	return real.svc_reg(xprt, prog, vers, dispatch,
			    is_rdma_nconf(nc) ? NULL : nc);
}

bool_t rpcb_set(const rpcprog_t prog, const rpcvers_t vers,
		const struct netconfig *nc, const struct netbuf *addr)
{
	if (is_rdma_nconf(nc))
		return addr && addr->buf &&
		       rpcrdma_rpcb_set(prog, vers, nc->nc_netid,
					(const struct sockaddr *)addr->buf) ==
			       0;
	need_real();
	if (!real.rpcb_set)
		return FALSE;
	return real.rpcb_set(prog, vers, nc, addr);
}

/* The listener on the address and port of bindaddr, when given. */
SVCXPRT *svc_tli_create(const int fd, const struct netconfig *nc,
			const struct t_bind *bindaddr, const u_int sendsz,
			const u_int recvsz)
{
	char host[INET6_ADDRSTRLEN];
	const char *addr = NULL;
	struct rpcrdma_opts o;

	if (!is_rdma_nconf(nc)) {
		need_real();
		if (!real.svc_tli_create)
			return NULL;
		return real.svc_tli_create(fd, nc, bindaddr, sendsz, recvsz);
	}
	rpcrdma_opts_from_env(&o);
	if (strcmp(nc->nc_netid, "rdma6") == 0)
		addr = "::";
	if (fd != RPC_ANYFD) {
		/* An RDMA listener is not a socket one could pass in. */
		rpc_createerr.cf_stat = RPC_UNKNOWNPROTO;
		return NULL;
	}
	if (bindaddr && bindaddr->addr.buf &&
	    bindaddr->addr.len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr *sa = bindaddr->addr.buf;

		if (sa->sa_family == AF_INET) {
			const struct sockaddr_in *sin = bindaddr->addr.buf;

			if (sin->sin_port)
				o.port = ntohs(sin->sin_port);
			if (sin->sin_addr.s_addr != htonl(INADDR_ANY))
				addr = inet_ntop(AF_INET, &sin->sin_addr, host,
						 sizeof(host));
		} else if (sa->sa_family == AF_INET6 &&
			   bindaddr->addr.len >= sizeof(struct sockaddr_in6)) {
			const struct sockaddr_in6 *s6 = bindaddr->addr.buf;

			if (s6->sin6_port)
				o.port = ntohs(s6->sin6_port);
			addr = inet_ntop(AF_INET6, &s6->sin6_addr, host,
					 sizeof(host));
		}
	}
	return svc_rdma_create(addr, &o);
}

/*
 * Like libtirpc's svc_create, one listener per netid serves every program
 * created through it. Unlike libtirpc's list, which keeps a handle after
 * svc_destroy and registers the next program on freed memory (198abdf
 * review #19), the listener tells svc_made_forget when it is destroyed:
 * the next svc_create makes a new one.
 */
static pthread_mutex_t svc_lock = PTHREAD_MUTEX_INITIALIZER;
static SVCXPRT *svc_made[2];

/* From lsn_destroy, in whichever thread destroys the listener. */
static void svc_made_forget(SVCXPRT *xprt)
{
	pthread_mutex_lock(&svc_lock);
	for (size_t i = 0; i < sizeof(svc_made) / sizeof(svc_made[0]); i++)
		if (svc_made[i] == xprt)
			svc_made[i] = NULL;
	pthread_mutex_unlock(&svc_lock);
}

SVCXPRT *rpcrdma_svc_made(const char *netid)
{
	struct netconfig *nc = rdma_nconf(netid);
	SVCXPRT *xprt;

	if (!nc)
		return NULL;
	pthread_mutex_lock(&svc_lock);
	xprt = svc_made[nc == &nc_rdma6];
	pthread_mutex_unlock(&svc_lock);
	return xprt;
}

int svc_create(dispatch_fn dispatch, rpcprog_t prog, rpcvers_t vers,
	       const char *nettype)
{
	struct netconfig *nc = rdma_nconf(nettype);
	SVCXPRT **slot, *xprt, *made = NULL;
	int n = 0;

	if (!nc) {
		need_real();
		if (!real.svc_create)
			return 0;
		return real.svc_create(dispatch, prog, vers, nettype);
	}
	slot = &svc_made[nc == &nc_rdma6];
	pthread_mutex_lock(&svc_lock);
	xprt = *slot;
	if (!xprt)
		xprt = made = rdma_listener(nc->nc_netid);
	if (xprt && rpcrdma_svc_reg(xprt, prog, vers, dispatch)) {
		if (made) {
			svc_rdma_on_destroy(made, svc_made_forget);
			*slot = made;
			made = NULL;
		}
		n = 1;
	}
	pthread_mutex_unlock(&svc_lock);
	/* Never kept: destroyed without svc_lock (its destruction would
	 * take it to forget it). */
	if (made)
		svc_destroy(made);
	return n;
}

SVCXPRT *svc_tp_create(dispatch_fn dispatch, rpcprog_t prog, rpcvers_t vers,
		       const struct netconfig *nc)
{
	SVCXPRT *xprt;

	if (!is_rdma_nconf(nc)) {
		need_real();
		if (!real.svc_tp_create)
			return NULL;
		return real.svc_tp_create(dispatch, prog, vers, nc);
	}
	xprt = rdma_listener(nc->nc_netid);
	if (!xprt)
		return NULL;
	if (!rpcrdma_svc_reg(xprt, prog, vers, dispatch)) {
		svc_destroy(xprt);
		return NULL;
	}
	return xprt;
}

/* ---- error text ---- */

/*
 * libtirpc's text, and for a CLIENT of ours whose call met a limit (a
 * call over max_msg, a reply over what was offered, RDMA_ERROR) what the
 * limit was and the knob that moves it. clnt_perror is libtirpc's
 * clnt_sperror printed: it is interposed too, since libtirpc's own call
 * would not reach ours.
 */
char *clnt_sperror(CLIENT *cl, const char *s)
{
	static _Thread_local char buf[1536];
	char extra[1024];
	char *t;

	need_real();
	if (!real.clnt_sperror)
		return (char *)"RPC: clnt_sperror unavailable";
	t = real.clnt_sperror(cl, s);
	if (!t || !rpcrdma_clnt_errtext(cl, extra, sizeof(extra)))
		return t;
	snprintf(buf, sizeof(buf), "%s; %s", t, extra);
	return buf;
}

void clnt_perror(CLIENT *cl, const char *s)
{
	if (!cl || !s)
		return;	/* as libtirpc's */
	fprintf(stderr, "%s\n", clnt_sperror(cl, s));
}
