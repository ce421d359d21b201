/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who may use the export and with which options, as exports(5) says:
 * a list of clients (-c, "*" when none is given, with a warning), each
 * with its options on top of -o's, the first that matches in the order
 * given (not exportfs's most specific first: put hosts before their
 * networks); the defaults are Linux's (ro,
 * root_squash, secure). "secure" wants a tcp caller's source port below
 * 1024 (IPPORT_RESERVED): only root on the client can bind one, so an
 * ordinary user there cannot claim uid 0. RDMA connections carry no
 * such port (RDMA-CM's are not privileged), as for Linux's nfsd: over
 * rdma any user of a client's RDMA device may claim any uid but 0
 * (root is squashed by default).
 * Checked on every call but NULL (dispatch.c), MNT included.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "nfs3d.h"

static int id_of(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return !*s || *end || errno || *v >= UINT32_MAX ? -EINVAL : 0;
}

int nfs3d_opts_parse(const char *arg, struct nfs3d_opts *o)
{
	char *list = strdup(arg), *tok, *save;
	unsigned long v;
	int rc = 0;

	if (!list)
		return -ENOMEM;
	for (tok = strtok_r(list, ",", &save); tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "ro") == 0)
			o->ro = true;
		else if (strcmp(tok, "rw") == 0)
			o->ro = false;
		else if (strcmp(tok, "secure") == 0)
			o->insecure = false;
		else if (strcmp(tok, "insecure") == 0)
			o->insecure = true;
		else if (strcmp(tok, "root_squash") == 0)
			o->squash = NFS3D_SQUASH_ROOT;
		else if (strcmp(tok, "no_root_squash") == 0)
			o->squash = NFS3D_SQUASH_NONE;
		else if (strcmp(tok, "all_squash") == 0)
			o->squash = NFS3D_SQUASH_ALL;
		else if (strcmp(tok, "no_all_squash") == 0)
			o->squash = o->squash == NFS3D_SQUASH_ALL
					? NFS3D_SQUASH_ROOT
					: o->squash;
		else if (strncmp(tok, "anonuid=", 8) == 0 &&
			 id_of(tok + 8, &v) == 0)
			o->anonuid = (uid_t)v;
		else if (strncmp(tok, "anongid=", 8) == 0 &&
			 id_of(tok + 8, &v) == 0)
			o->anongid = (gid_t)v;
		else
			rc = -EINVAL;
	}
	free(list);
	return rc;
}

static struct nfs3d_client *client_new(const char *spec,
				       const struct nfs3d_opts *o)
{
	struct nfs3d_client *c;

	if (nfs3d_exp.nclients >= NFS3D_MAX_CLIENTS)
		return NULL;
	c = &nfs3d_exp.clients[nfs3d_exp.nclients++];
	memset(c, 0, sizeof(*c));
	snprintf(c->spec, sizeof(c->spec), "%s", spec);
	c->o = *o;
	return c;
}

/* ADDR or ADDR/PREFIX: 1 parsed, 0 not an address, -EINVAL bad prefix. */
static int parse_net(char *host, struct nfs3d_client *c)
{
	char *slash = strchr(host, '/'), *end;
	unsigned long p;

	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, host, c->addr) == 1)
		c->family = AF_INET, c->prefix = 32;
	else if (inet_pton(AF_INET6, host, c->addr) == 1)
		c->family = AF_INET6, c->prefix = 128;
	else
		return slash ? -EINVAL : 0;
	if (slash) {
		p = strtoul(slash + 1, &end, 10);
		if (!slash[1] || *end || p > c->prefix)
			return -EINVAL;
		c->prefix = (unsigned int)p;
	}
	/* ::ffff:a.b.c.d: matched as a.b.c.d, as callers are (access). */
	if (c->family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)(void *)c->addr)) {
		if (c->prefix < 96)
			return -EINVAL;
		memmove(c->addr, c->addr + 12, 4);
		memset(c->addr + 4, 0, 12);
		c->family = AF_INET;
		c->prefix -= 96;
	}
	return 1;
}

int nfs3d_client_add(const char *spec)
{
	struct nfs3d_opts o = nfs3d_exp.opts;
	struct addrinfo hints, *ai, *a;
	char host[256], net[256], *paren;
	struct nfs3d_client tmp, *c;
	int rc, n = 0;

	if (strlen(spec) >= sizeof(host))
		return -ENAMETOOLONG;
	strcpy(host, spec);
	paren = strchr(host, '(');
	if (paren) {
		size_t l = strlen(paren);

		if (l < 2 || paren[l - 1] != ')')
			return -EINVAL;
		paren[l - 1] = '\0';
		*paren = '\0';
		rc = nfs3d_opts_parse(paren + 1, &o);
		if (rc < 0)
			return rc;
	}
	if (!host[0])
		return -EINVAL;
	if (strcmp(host, "*") == 0) {
		c = client_new(host, &o);
		if (!c)
			return -ENOSPC;
		c->any = true;
		return 0;
	}
	memset(&tmp, 0, sizeof(tmp));
	strcpy(net, host); /* parse_net cuts at '/' */
	rc = parse_net(net, &tmp);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		c = client_new(host, &o);
		if (!c)
			return -ENOSPC;
		c->family = tmp.family;
		c->prefix = tmp.prefix;
		memcpy(c->addr, tmp.addr, sizeof(c->addr));
		return 0;
	}
	/* A host name: each of its addresses, resolved now. */
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &ai) != 0)
		return -EHOSTUNREACH;
	for (a = ai; a; a = a->ai_next) {
		c = client_new(host, &o);
		if (!c) {
			freeaddrinfo(ai);
			return -ENOSPC;
		}
		if (a->ai_family == AF_INET) {
			c->family = AF_INET, c->prefix = 32;
			memcpy(c->addr,
			       &((struct sockaddr_in *)a->ai_addr)->sin_addr, 4);
		} else if (a->ai_family == AF_INET6) {
			c->family = AF_INET6, c->prefix = 128;
			memcpy(c->addr,
			       &((struct sockaddr_in6 *)a->ai_addr)->sin6_addr,
			       16);
		} else {
			nfs3d_exp.nclients--;
			continue;
		}
		n++;
	}
	freeaddrinfo(ai);
	return n ? 0 : -EHOSTUNREACH;
}

static bool prefix_match(const unsigned char *a, const unsigned char *b,
			 unsigned int bits)
{
	unsigned int whole = bits / 8, rest = bits % 8;

	if (memcmp(a, b, whole) != 0)
		return false;
	if (!rest)
		return true;
	return ((a[whole] ^ b[whole]) & (0xff << (8 - rest))) == 0;
}

const struct nfs3d_opts *nfs3d_access(const struct svc_req *rq)
{
	const struct netbuf *nb = svc_getrpccaller(rq->rq_xprt);
	const struct sockaddr *sa = nb ? (const struct sockaddr *)nb->buf : NULL;
	const struct nfs3d_client *c = NULL;
	const struct nfs3d_opts *o;
	const unsigned char *addr = NULL;
	const char *netid = rq->rq_xprt->xp_netid;
	int family = AF_UNSPEC;
	unsigned int port = 0;

	if (sa && nb->len >= sizeof(struct sockaddr_in) &&
	    sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		family = AF_INET;
		addr = (const unsigned char *)&s4->sin_addr;
		port = ntohs(s4->sin_port);
	} else if (sa && nb->len >= sizeof(struct sockaddr_in6) &&
		   sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		family = AF_INET6;
		addr = s6->sin6_addr.s6_addr;
		port = ntohs(s6->sin6_port);
		/* A v4 caller on a v6 socket: matched as v4. */
		if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
			family = AF_INET, addr += 12;
	}
	if (nfs3d_exp.nclients == 0) {
		o = &nfs3d_exp.opts;
	} else {
		for (unsigned int i = 0; i < nfs3d_exp.nclients && !c; i++) {
			const struct nfs3d_client *k = &nfs3d_exp.clients[i];

			if (k->any || (addr && k->family == family &&
				       prefix_match(k->addr, addr, k->prefix)))
				c = k;
		}
		if (!c)
			return NULL;
		o = &c->o;
	}
	/* "secure": tcp (and udp) callers only; rdma has no such port. */
	if (!o->insecure && !(netid && strncmp(netid, "rdma", 4) == 0) &&
	    (!addr || port >= IPPORT_RESERVED))
		return NULL;
	return o;
}

static void opts_print(FILE *f, const struct nfs3d_opts *o)
{
	fprintf(f, "(%s,%s,%s,anonuid=%u,anongid=%u)", o->ro ? "ro" : "rw",
		o->insecure ? "insecure" : "secure",
		o->squash == NFS3D_SQUASH_ALL	 ? "all_squash"
		: o->squash == NFS3D_SQUASH_ROOT ? "root_squash"
						 : "no_root_squash",
		(unsigned int)o->anonuid, (unsigned int)o->anongid);
}

void nfs3d_access_print(FILE *f)
{
	bool noroot = false;

	if (nfs3d_exp.nclients == 0) {
		fprintf(f, "nfs3d: exporting %s to every host ", nfs3d_exp.path);
		opts_print(f, &nfs3d_exp.opts);
		fprintf(f, "; no -c given: name the clients to limit it\n");
		noroot = nfs3d_exp.opts.squash == NFS3D_SQUASH_NONE;
	}
	for (unsigned int i = 0; i < nfs3d_exp.nclients; i++) {
		const struct nfs3d_client *c = &nfs3d_exp.clients[i];

		/* A host name's addresses: one line for the name. */
		if (i && strcmp(c->spec, nfs3d_exp.clients[i - 1].spec) == 0)
			continue;
		fprintf(f, "nfs3d: exporting %s to %s ", nfs3d_exp.path, c->spec);
		opts_print(f, &c->o);
		fputc('\n', f);
		noroot |= c->o.squash == NFS3D_SQUASH_NONE;
	}
	if (noroot)
		fprintf(f, "nfs3d: warning: no_root_squash: a client's root is "
			   "root on the export\n");
}
