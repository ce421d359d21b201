/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcbind for the "rdma" / "rdma6" netids, spoken directly over a TCP
 * CLIENT (RFC 1833, RPCBPROG version 3): libtirpc's rpcb_set,
 * rpcb_getaddr and taddr2uaddr only know the netids of /etc/netconfig,
 * which has no rdma line. SET and UNSET go to the local rpcbind; lookups
 * read RPCBPROC_DUMP, because GETADDR answers an empty address for a
 * netid rpcbind has no netconfig entry for (docs/design.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <rpc/rpc.h>
#include <rpc/rpcb_prot.h>
#include "xprt.h"

#define RPCB_PORT		111
#define RPCB_TIMEOUT_MS		5000
/* "ffff:...:ffff" + ".255.255" */
#define UADDR_MAX		(INET6_ADDRSTRLEN + 8)

/* Universal address (RFC 5665 section 5.2.3): host, then ".p1.p2". */
static int make_uaddr(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];
	const void *a;
	uint16_t port;
	int n;

	if (!sa)
		return -EINVAL;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)sa;

		a = &s->sin_addr;
		port = ntohs(s->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)sa;

		a = &s->sin6_addr;
		port = ntohs(s->sin6_port);
	} else {
		return -EAFNOSUPPORT;
	}
	if (!inet_ntop(sa->sa_family, a, host, sizeof(host)))
		return -EINVAL;
	n = snprintf(buf, len, "%s.%u.%u", host, port >> 8, port & 0xff);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	return 0;
}

/* One decimal octet "0".."255" in s[0..n); -1 when malformed. */
static int parse_octet(const char *s, size_t n)
{
	int v = 0;
	size_t i;

	if (n == 0 || n > 3)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= 255 ? v : -1;
}

/* The port of a universal address: its last two dot-separated octets. */
static int uaddr_port(const char *ua, uint16_t *port)
{
	const char *p2, *p1;
	int hi, lo;

	if (!ua)
		return -EINVAL;
	p2 = strrchr(ua, '.');
	if (!p2 || p2 == ua)
		return -EINVAL;
	for (p1 = p2 - 1; p1 > ua && *p1 != '.'; p1--)
		;
	if (*p1 != '.' || p1 == ua)
		return -EINVAL;
	hi = parse_octet(p1 + 1, (size_t)(p2 - p1 - 1));
	lo = parse_octet(p2 + 1, strlen(p2 + 1));
	if (hi < 0 || lo < 0 || (hi | lo) == 0)
		return -EINVAL;
	*port = (uint16_t)(hi << 8 | lo);
	return 0;
}

/* A TCP connection to rpcbind at sa with a bounded connect time. */
static int rpcb_connect(const struct sockaddr *sa, socklen_t salen)
{
	struct pollfd pfd;
	socklen_t el = sizeof(int);
	int fd, fl, err = 0;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		goto out_errno;
	if (connect(fd, sa, salen) < 0) {
		if (errno != EINPROGRESS)
			goto out_errno;
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, RPCB_TIMEOUT_MS) <= 0) {
			err = -ETIMEDOUT;
			goto out_close;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
			goto out_errno;
		if (err) {
			err = -err;
			goto out_close;
		}
	}
	if (fcntl(fd, F_SETFL, fl) < 0)
		goto out_errno;
	return fd;

out_errno:
	err = -errno;
out_close:
	close(fd);
	return err;
}

/* A CLIENT to rpcbind at sa (port 111 is set here); owns its socket. */
static int rpcb_clnt(const struct sockaddr *sa, socklen_t salen,
		     CLIENT **out)
{
	struct sockaddr_storage ss;
	struct netbuf nb;
	CLIENT *cl;
	int fd;

	memcpy(&ss, sa, salen);
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons(RPCB_PORT);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(RPCB_PORT);
	fd = rpcb_connect((struct sockaddr *)&ss, salen);
	if (fd < 0)
		return fd;
	nb.buf = &ss;
	nb.len = salen;
	nb.maxlen = sizeof(ss);
	cl = clnt_vc_create(fd, &nb, RPCBPROG, RPCBVERS, 0, 0);
	if (!cl) {
		close(fd);
		return -ECONNREFUSED;
	}
	clnt_control(cl, CLSET_FD_CLOSE, NULL);
	*out = cl;
	return 0;
}

static int rpcb_local_clnt(CLIENT **out)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return rpcb_clnt((struct sockaddr *)&sin, sizeof(sin), out);
}

static const struct timeval rpcb_tv = {
	.tv_sec = RPCB_TIMEOUT_MS / 1000,
	.tv_usec = 0,
};

/* RPCBPROC_SET / UNSET: 0 when rpcbind said TRUE, -EACCES when FALSE. */
static int rpcb_setunset(CLIENT *cl, rpcproc_t proc, struct rpcb *map)
{
	bool_t res = FALSE;

	if (clnt_call(cl, proc, (xdrproc_t)xdr_rpcb, (caddr_t)map,
		      (xdrproc_t)xdr_bool, (caddr_t)&res, rpcb_tv) !=
	    RPC_SUCCESS)
		return -EIO;
	return res ? 0 : -EACCES;
}

/*
 * SET (after an UNSET of any stale entry: SET refuses an existing
 * prog, vers, netid) when uaddr is given, else UNSET alone; the owner is
 * our uid, as libtirpc's rpcb_set writes it.
 */
static int rpcb_change(rpcprog_t prog, rpcvers_t vers, const char *netid,
		       char *uaddr)
{
	char owner[16], empty[1] = "";
	struct rpcb map;
	CLIENT *cl;
	int rc;

	if (!netid)
		return -EINVAL;
	rc = rpcb_local_clnt(&cl);
	if (rc)
		return rc;
	snprintf(owner, sizeof(owner), "%u", (unsigned)geteuid());
	map.r_prog = prog;
	map.r_vers = vers;
	map.r_netid = (char *)netid;
	map.r_addr = uaddr ? uaddr : empty;
	map.r_owner = owner;
	rc = rpcb_setunset(cl, RPCBPROC_UNSET, &map);
	if (uaddr)
		rc = rpcb_setunset(cl, RPCBPROC_SET, &map);
	clnt_destroy(cl);
	return rc;
}

int rpcrdma_rpcb_set(rpcprog_t prog, rpcvers_t vers, const char *netid,
		     const struct sockaddr *addr)
{
	char uaddr[UADDR_MAX];
	int rc;

	if (!netid)
		return -EINVAL;
	rc = make_uaddr(addr, uaddr, sizeof(uaddr));
	if (rc)
		return rc;
	return rpcb_change(prog, vers, netid, uaddr);
}

int rpcrdma_rpcb_unset(rpcprog_t prog, rpcvers_t vers, const char *netid)
{
	return rpcb_change(prog, vers, netid, NULL);
}

int rpcrdma_rpcb_lookup(const char *host, rpcprog_t prog, rpcvers_t vers,
			const char *netid, uint16_t *port)
{
	struct addrinfo hints, *res, *ai;
	rpcblist_ptr list = NULL, p;
	CLIENT *cl = NULL;
	int rc = -EHOSTUNREACH;

	if (!host || !netid || !port)
		return -EINVAL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &res))
		return -EHOSTUNREACH;
	for (ai = res; ai && !cl; ai = ai->ai_next) {
		if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
			continue;
		rc = rpcb_clnt(ai->ai_addr, ai->ai_addrlen, &cl);
	}
	freeaddrinfo(res);
	if (!cl)
		return rc;

	if (clnt_call(cl, RPCBPROC_DUMP, (xdrproc_t)(void (*)(void))xdr_void,
		      NULL,
		      (xdrproc_t)xdr_rpcblist_ptr, (caddr_t)&list, rpcb_tv) !=
	    RPC_SUCCESS) {
		clnt_destroy(cl);
		return -EIO;
	}
	rc = -ENOENT;
	for (p = list; p; p = p->rpcb_next) {
		const struct rpcb *m = &p->rpcb_map;

		if (m->r_prog != prog || m->r_vers != vers || !m->r_netid ||
		    strcmp(m->r_netid, netid) != 0)
			continue;
		if (uaddr_port(m->r_addr, port) == 0) {
			rc = 0;
			break;
		}
	}
	clnt_freeres(cl, (xdrproc_t)xdr_rpcblist_ptr, (caddr_t)&list);
	clnt_destroy(cl);
	return rc;
}
