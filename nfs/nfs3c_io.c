/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3c read and write: READ (RFC 1813 section 3.3.6) of rsize pieces,
 * CREATE (3.3.8, UNCHECKED with size 0: created or truncated), WRITE
 * (3.3.7) UNSTABLE of wsize pieces, then COMMIT (3.3.21); when the write
 * verifier changes between the WRITEs or by the COMMIT (the server
 * restarted and may have lost unstable data), everything is sent again.
 *
 * -j threads share the CLIENT, each with a piece in flight (over rdma the
 * transport holds them to the server's credit grant). Over rdma a READ's
 * data lands in a write chunk and a WRITE's goes in a read chunk
 * (nfs3c_conn.c sets the hints).
 *
 * READ results are decoded into memory XDR allocates, not into a buffer
 * of ours: xdr_bytes does not bound a caller's buffer by its size, and a
 * server might send more than asked. A READ that returns more than asked,
 * or 0 bytes without eof, is an error, as is a WRITE that takes 0 bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <rpc/rpc.h>
#include "nfs3c.h"

#define WRITE_PASSES	3	/* sends of the whole file, verifier changes */

struct xfer {
	struct nfs3c *c;
	const char *path;	/* remote, for messages */
	const char *local;
	nfs_fh3 fh;
	int fd;			/* local file */
	bool seq;		/* fd is not seekable: in order, by write() */
	uint64_t size;		/* remote size (read), local size (write) */
	uint32_t piece;		/* rsize or wsize */
	pthread_mutex_t mu;
	uint64_t next;		/* the next piece's offset */
	uint64_t eof_at;	/* read: where a READ said eof */
	bool failed;
	unsigned long calls;
	/* write: the verifier of this pass's WRITEs (section 3.3.7). */
	bool have_verf, verf_changed;
	writeverf3 verf;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set_failed(struct xfer *x)
{
	pthread_mutex_lock(&x->mu);
	x->failed = true;
	pthread_mutex_unlock(&x->mu);
}

/* The next piece's offset, or false when none is left. */
static bool take(struct xfer *x, uint64_t *off)
{
	bool ok;

	pthread_mutex_lock(&x->mu);
	ok = !x->failed && x->next < x->size && x->next < x->eof_at;
	if (ok) {
		*off = x->next;
		x->next += x->piece;
	}
	pthread_mutex_unlock(&x->mu);
	return ok;
}

static int put_local(struct xfer *x, const char *b, size_t n, uint64_t off)
{
	while (n > 0) {
		ssize_t w = x->seq ? write(x->fd, b, n) :
				     pwrite(x->fd, b, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return nfs3c_fail("write", x->local ? x->local :
					  "(stdout)", strerror(errno));
		b += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/* One READ of up to n bytes at off, written out; *got and *eof what it
 * returned. */
static int read_one(struct xfer *x, uint64_t off, uint32_t n, uint32_t *got,
		    bool *eof)
{
	READ3args a = { x->fh, off, n };
	READ3res r;
	READ3resok *ok = &r.READ3res_u.resok;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	if (clnt_call(x->c->cl, NFSPROC3_READ, XP(xdr_READ3args), (char *)&a,
		      XP(xdr_READ3res), (char *)&r, x->c->tmo) != RPC_SUCCESS)
		return nfs3c_fail_rpc(x->c, "READ", x->path);
	__atomic_add_fetch(&x->calls, 1, __ATOMIC_RELAXED);
	if (r.status != NFS3_OK)
		rc = nfs3c_fail_nfs("READ", x->path, r.status);
	else if (ok->count > n || ok->data.data_len != ok->count)
		rc = nfs3c_fail("READ", x->path, "more data than asked for, "
				"or a count that is not the data's");
	else if (ok->count == 0 && !ok->eof)
		rc = nfs3c_fail("READ", x->path, "0 bytes without eof");
	else
		rc = put_local(x, ok->data.data_val, ok->count, off);
	*got = ok->count;
	*eof = ok->eof;
	xdr_free(XP(xdr_READ3res), (char *)&r);
	return rc;
}

/* Reads [off, off + len) or to eof. */
static int read_range(struct xfer *x, uint64_t off, uint64_t len)
{
	uint64_t end = off + len;

	while (off < end) {
		uint64_t left = end - off;
		uint32_t got;
		bool eof;

		if (read_one(x, off, left < x->piece ? (uint32_t)left : x->piece,
			     &got, &eof) != 0)
			return -1;
		off += got;
		if (eof) {
			pthread_mutex_lock(&x->mu);
			if (off < x->eof_at)
				x->eof_at = off;
			pthread_mutex_unlock(&x->mu);
			break;
		}
	}
	return 0;
}

static void *read_worker(void *arg)
{
	struct xfer *x = arg;
	uint64_t off;

	while (take(x, &off)) {
		uint64_t len = x->size - off < x->piece ? x->size - off : x->piece;

		if (read_range(x, off, len) != 0) {
			set_failed(x);
			break;
		}
	}
	return NULL;
}

/* Runs fn in jobs threads (the calling one among them). */
static int run_workers(struct xfer *x, unsigned int jobs,
		       void *(*fn)(void *))
{
	pthread_t th[256];
	unsigned int n = 0;

	for (; n + 1 < jobs; n++)
		if (pthread_create(&th[n], NULL, fn, x) != 0)
			break;
	fn(x);
	for (unsigned int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return x->failed ? -1 : 0;
}

static void xfer_init(struct xfer *x, struct nfs3c *c, const char *path,
		      const char *local, uint32_t piece)
{
	memset(x, 0, sizeof(*x));
	x->c = c;
	x->path = path;
	x->local = local;
	x->piece = piece;
	x->eof_at = UINT64_MAX;
	x->fd = -1;
	pthread_mutex_init(&x->mu, NULL);
}

static void report(struct xfer *x, const char *what, uint64_t bytes,
		   double t0)
{
	double dt = now() - t0;

	if (x->c->verbose)
		fprintf(stderr, "nfs3c: %s %s: %llu bytes, %lu calls of up to "
			"%u, %.3f s, %.1f MB/s\n", what, x->path,
			(unsigned long long)bytes, x->calls, x->piece, dt,
			dt > 0 ? (double)bytes / dt / 1e6 : 0.0);
}

int nfs3c_read(struct nfs3c *c, const char *path, const char *local)
{
	struct xfer x;
	fattr3 at;
	uint64_t end;
	double t0 = now();
	int rc;

	xfer_init(&x, c, path, local, c->rsize);
	if (nfs3c_resolve(c, path, &x.fh, &at) != 0)
		return -1;
	if (at.type == NF3DIR) {
		nfs3c_fh_free(&x.fh);
		return nfs3c_fail_nfs("READ", path, NFS3ERR_ISDIR);
	}
	x.size = at.size;
	if (local) {
		x.fd = open(local, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (x.fd < 0) {
			nfs3c_fh_free(&x.fh);
			return nfs3c_fail("open", local, strerror(errno));
		}
	} else {
		x.fd = STDOUT_FILENO;
		x.seq = true;
	}
	/* The size GETATTR gave, in pieces by the threads; then on from
	 * there, in order, until a READ says eof (the file may have grown). */
	rc = run_workers(&x, x.seq ? 1 : c->jobs, read_worker);
	end = x.eof_at;
	if (rc == 0 && end == UINT64_MAX) {
		uint64_t off = x.size;

		for (;;) {
			uint32_t got;
			bool eof;

			if (read_one(&x, off, x.piece, &got, &eof) != 0) {
				rc = -1;
				break;
			}
			off += got;
			if (eof)
				break;
		}
		end = off;
	}
	if (rc == 0)
		report(&x, "read", end, t0);
	if (local) {
		/* A file that shrank while we read it ends where eof was. */
		if (rc == 0 && ftruncate(x.fd, (off_t)end) != 0)
			rc = nfs3c_fail("truncate", local, strerror(errno));
		if (close(x.fd) != 0 && rc == 0)
			rc = nfs3c_fail("close", local, strerror(errno));
	}
	nfs3c_fh_free(&x.fh);
	pthread_mutex_destroy(&x.mu);
	return rc;
}

/* One WRITE UNSTABLE of b[0..n) at off, short WRITEs continued. */
static int write_piece(struct xfer *x, const char *b, uint32_t n,
		       uint64_t off)
{
	while (n > 0) {
		WRITE3args a = { x->fh, off, n, UNSTABLE, { n, (char *)b } };
		WRITE3res r;
		WRITE3resok *ok = &r.WRITE3res_u.resok;
		int rc = 0;

		memset(&r, 0, sizeof(r));
		if (clnt_call(x->c->cl, NFSPROC3_WRITE, XP(xdr_WRITE3args),
			      (char *)&a, XP(xdr_WRITE3res), (char *)&r,
			      x->c->tmo) != RPC_SUCCESS)
			return nfs3c_fail_rpc(x->c, "WRITE", x->path);
		__atomic_add_fetch(&x->calls, 1, __ATOMIC_RELAXED);
		if (r.status != NFS3_OK)
			rc = nfs3c_fail_nfs("WRITE", x->path, r.status);
		else if (ok->count == 0 || ok->count > n)
			rc = nfs3c_fail("WRITE", x->path, ok->count ?
					"more written than sent" :
					"0 bytes written");
		if (rc == 0) {
			pthread_mutex_lock(&x->mu);
			if (!x->have_verf) {
				memcpy(x->verf, ok->verf, sizeof(x->verf));
				x->have_verf = true;
			} else if (memcmp(x->verf, ok->verf,
					  sizeof(x->verf)) != 0) {
				memcpy(x->verf, ok->verf, sizeof(x->verf));
				x->verf_changed = true;
			}
			pthread_mutex_unlock(&x->mu);
			b += ok->count;
			off += ok->count;
			n -= ok->count;
		}
		xdr_free(XP(xdr_WRITE3res), (char *)&r);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static void *write_worker(void *arg)
{
	struct xfer *x = arg;
	char *buf = malloc(x->piece);
	uint64_t off;

	if (!buf) {
		nfs3c_fail("malloc", x->path, "out of memory");
		set_failed(x);
		return NULL;
	}
	while (take(x, &off)) {
		size_t n = x->size - off < x->piece ? x->size - off : x->piece;
		ssize_t got = pread(x->fd, buf, n, (off_t)off);

		if (got != (ssize_t)n) {
			nfs3c_fail("read", x->local, got < 0 ? strerror(errno) :
				   "the file shrank");
			set_failed(x);
			break;
		}
		if (write_piece(x, buf, (uint32_t)n, off) != 0) {
			set_failed(x);
			break;
		}
	}
	free(buf);
	return NULL;
}

/* COMMIT of the whole file (offset 0, count 0); its verifier in v. */
static int commit(struct xfer *x, writeverf3 v)
{
	COMMIT3args a = { x->fh, 0, 0 };
	COMMIT3res r;
	int rc = 0;

	memset(&r, 0, sizeof(r));
	if (clnt_call(x->c->cl, NFSPROC3_COMMIT, XP(xdr_COMMIT3args),
		      (char *)&a, XP(xdr_COMMIT3res), (char *)&r,
		      x->c->tmo) != RPC_SUCCESS)
		return nfs3c_fail_rpc(x->c, "COMMIT", x->path);
	if (r.status != NFS3_OK)
		rc = nfs3c_fail_nfs("COMMIT", x->path, r.status);
	else
		memcpy(v, r.COMMIT3res_u.resok.verf, sizeof(writeverf3));
	xdr_free(XP(xdr_COMMIT3res), (char *)&r);
	return rc;
}

/* CREATE UNCHECKED, mode 0644 and size 0 (section 3.3.8): a new file, or
 * the existing one truncated. Its handle in x->fh. */
static int create(struct xfer *x)
{
	char *copy = strdup(x->path), *slash;
	const char *dir = "", *nm;
	CREATE3args a;
	CREATE3res r;
	CREATE3resok *ok = &r.CREATE3res_u.resok;
	int rc = 0;

	if (!copy)
		return nfs3c_fail("CREATE", x->path, "out of memory");
	slash = strrchr(copy, '/');
	nm = copy;
	if (slash) {
		*slash = '\0';
		dir = copy;
		nm = slash + 1;
	}
	if (*nm == '\0') {
		free(copy);
		return nfs3c_fail("CREATE", x->path, "no file name");
	}
	memset(&a, 0, sizeof(a));
	if (nfs3c_resolve(x->c, dir, &a.where.dir, NULL) != 0) {
		free(copy);
		return -1;
	}
	a.where.name = (char *)nm;
	a.how.mode = UNCHECKED;
	a.how.createhow3_u.obj_attributes.mode.set_it = TRUE;
	a.how.createhow3_u.obj_attributes.mode.set_mode3_u.mode = 0644;
	a.how.createhow3_u.obj_attributes.size.set_it = TRUE;
	a.how.createhow3_u.obj_attributes.size.set_size3_u.size = 0;
	memset(&r, 0, sizeof(r));
	if (clnt_call(x->c->cl, NFSPROC3_CREATE, XP(xdr_CREATE3args),
		      (char *)&a, XP(xdr_CREATE3res), (char *)&r,
		      x->c->tmo) != RPC_SUCCESS) {
		rc = nfs3c_fail_rpc(x->c, "CREATE", x->path);
	} else if (r.status != NFS3_OK) {
		rc = nfs3c_fail_nfs("CREATE", x->path, r.status);
	} else if (ok->obj.handle_follows &&
		   ok->obj.post_op_fh3_u.handle.data.data_len > 0) {
		x->fh = ok->obj.post_op_fh3_u.handle;
		ok->obj.post_op_fh3_u.handle.data.data_val = NULL;
		ok->obj.post_op_fh3_u.handle.data.data_len = 0;
	} else {
		/* No handle in the reply: LOOKUP (section 3.3.8 allows it). */
		rc = nfs3c_resolve(x->c, x->path, &x->fh, NULL);
	}
	xdr_free(XP(xdr_CREATE3res), (char *)&r);
	nfs3c_fh_free(&a.where.dir);
	free(copy);
	return rc;
}

int nfs3c_write(struct nfs3c *c, const char *local, const char *path)
{
	struct xfer x;
	struct stat st;
	writeverf3 cv;
	double t0 = now();
	int rc = -1, pass;

	xfer_init(&x, c, path, local, c->wsize);
	x.fd = open(local, O_RDONLY);
	if (x.fd < 0)
		return nfs3c_fail("open", local, strerror(errno));
	if (fstat(x.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(x.fd);
		return nfs3c_fail("open", local, "not a regular file");
	}
	x.size = (uint64_t)st.st_size;
	if (create(&x) != 0)
		goto out;
	for (pass = 1; pass <= WRITE_PASSES; pass++) {
		x.next = 0;
		x.have_verf = x.verf_changed = false;
		if (run_workers(&x, c->jobs, write_worker) != 0)
			goto out;
		if (x.size == 0) {
			rc = 0;
			break;
		}
		if (commit(&x, cv) != 0)
			goto out;
		if (!x.verf_changed && memcmp(cv, x.verf, sizeof(cv)) == 0) {
			rc = 0;
			break;
		}
		/* Section 3.3.7: the server lost what it held unstable. */
		fprintf(stderr, "nfs3c: WRITE %s: the write verifier changed "
			"(pass %d), sending it again\n", path, pass);
	}
	if (rc != 0)
		nfs3c_fail("COMMIT", path, "the write verifier keeps changing");
	else
		report(&x, "write", x.size, t0);
out:
	close(x.fd);
	nfs3c_fh_free(&x.fh);
	pthread_mutex_destroy(&x.mu);
	return rc;
}
