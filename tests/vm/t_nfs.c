/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interoperability with the Linux kernel's nfsd as the responder
 * (tests/vm/t/65-nfsd.sh exports a tmpfs and starts nfsd on rdma port
 * 20049): our CLIENT speaks NFSv3 (tests/vm/nfs3.x, RFC 1813) to it.
 * NULL, LOOKUP, GETATTR and FSINFO; READ at sizes up to the server's
 * rtmax with its payload placed by nfsd in our write chunk; WRITE up to
 * wtmax with its payload pulled by nfsd from our read chunk; content
 * checked byte for byte against the file as the guest's own file system
 * sees it. RFC 8267 makes exactly those payloads DDP-eligible, and the
 * Linux server places a READ payload of any non-zero length in the write
 * chunk offered: the CLIENT's decode stream takes an item whose length
 * matches the returned chunk whatever the threshold. Where both ends set
 * the R bit (windows: rxe from 6.12) nfsd revokes a call's only rkey with
 * Send With Invalidate; the counters show it.
 *
 * Environment: RPCRDMA_ADDR_A / RPCRDMA_ADDR_B (client source, server),
 * RPCRDMA_T_NFS_DIR the exported directory (its path is also the MOUNT
 * path).
 */
#define _GNU_SOURCE	/* asprintf */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "nfs3.h"

#define NFS_RDMA_PORT	20049
#define XP(f)		((xdrproc_t)(void (*)(void))(f))

static const char *addr_a, *addr_b, *export_dir;
static const struct timeval tmo = { 60, 0 };

/* The file READ reads: 3 MiB and a page and 3 bytes of a pattern. */
#define DATA_LEN	((3u << 20) + 4099u)

static uint8_t pattern(uint64_t off, uint8_t seed)
{
	return (uint8_t)((off * 131u + (off >> 12) + seed) & 0xff);
}

static char *path_of(const char *name)
{
	char *p;

	ck_assert_int_gt(asprintf(&p, "%s/%s", export_dir, name), 0);
	return p;
}

/* A file of the export written through the guest's own file system. */
static void file_make(const char *name, size_t len, uint8_t seed)
{
	char *p = path_of(name);
	uint8_t *b = malloc(len ? len : 1);
	int fd;

	ck_assert_ptr_nonnull(b);
	for (size_t i = 0; i < len; i++)
		b[i] = pattern(i, seed);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_msg(fd >= 0, "open %s: %s", p, strerror(errno));
	ck_assert_int_eq(write(fd, b, len), (ssize_t)len);
	ck_assert_int_eq(close(fd), 0);
	free(b);
	free(p);
}

static nfs_fh3 root_fh;

/* MOUNT version 3 over TCP (rpcbind finds mountd): the export's root. */
static void mount_root(void)
{
	dirpath3 dp = (char *)export_dir;
	mountres3 res;
	CLIENT *m;

	m = clnt_create(addr_b, MOUNT_PROGRAM, MOUNT_V3, "tcp");
	ck_assert_msg(m != NULL, "MOUNT client: %s",
		      clnt_spcreateerror(addr_b));
	m->cl_auth = authunix_create_default();
	memset(&res, 0, sizeof(res));
	ck_assert_int_eq(clnt_call(m, MOUNTPROC3_MNT, XP(xdr_dirpath3),
				   (char *)&dp, XP(xdr_mountres3),
				   (char *)&res, tmo), RPC_SUCCESS);
	ck_assert_int_eq(res.fhs_status, MNT3_OK);
	root_fh.data.data_len = res.mountres3_u.mountinfo.fhandle.fhandle3_len;
	root_fh.data.data_val = malloc(root_fh.data.data_len);
	ck_assert_ptr_nonnull(root_fh.data.data_val);
	memcpy(root_fh.data.data_val,
	       res.mountres3_u.mountinfo.fhandle.fhandle3_val,
	       root_fh.data.data_len);
	xdr_free(XP(xdr_mountres3), (char *)&res);
	auth_destroy(m->cl_auth);
	clnt_destroy(m);
}

static CLIENT *nfs_clnt(void)
{
	struct rpcrdma_opts o;
	CLIENT *cl;

	rpcrdma_opts_default(&o);
	o.port = NFS_RDMA_PORT;
	o.src_addr = addr_a;
	cl = clnt_rdma_create(addr_b, NFS_PROGRAM, NFS_V3, &o);
	ck_assert_msg(cl != NULL, "clnt_rdma_create: %s",
		      clnt_spcreateerror(addr_b));
	/* AUTH_SYS as root: the export has no_root_squash. */
	cl->cl_auth = authunix_create_default();
	ck_assert_ptr_nonnull(cl->cl_auth);
	return cl;
}

static void nfs_destroy(CLIENT *cl)
{
	auth_destroy(cl->cl_auth);
	clnt_destroy(cl);
}

static struct rpcrdma_stats stats_of(CLIENT *cl)
{
	struct rpcrdma_stats st;

	ck_assert_int_eq(rpcrdma_clnt_stats(cl, &st), 0);
	return st;
}

/* Whether nfsd may revoke our windows: we set R (it does whatever its
 * own R, docs/conformance.md). */
static bool remote_inv(CLIENT *cl)
{
	struct rpcrdma_inline in;

	ck_assert(clnt_control(cl, CLGET_RDMA_INLINE, (char *)&in));
	return in.remote_inv_in;
}

/*
 * What a call that exposed one window costs in our own invalidations:
 * none when nfsd revokes it (we set R), none without windows (rxe before
 * Linux 6.12, siw: registrations), one with rxe's type 1 windows, which
 * no server may revoke (engine/reg.c).
 */
static unsigned int own_inv(bool rinv)
{
	const char *w = getenv("RPCRDMA_WINDOWS"), *prov = getenv(
		"RPCRDMA_PROVIDER");
	unsigned int major = 0, minor = 0;
	struct utsname u;

	if (rinv || (w && !strcmp(w, "0")) || (prov && !strcmp(prov, "siw")))
		return 0;
	if (w && (!strcmp(w, "1") || !strcmp(w, "2")))
		return 1;
	ck_assert_int_eq(uname(&u), 0);
	ck_assert_int_eq(sscanf(u.release, "%u.%u", &major, &minor), 2);
	return major > 6 || (major == 6 && minor >= 12);
}

static void call_ok(CLIENT *cl, rpcproc_t proc, xdrproc_t xa, void *a,
		    xdrproc_t xr, void *r, const char *what)
{
	enum clnt_stat st = clnt_call(cl, proc, xa, a, xr, r, tmo);
	struct rpcrdma_stats s;

	if (st == RPC_SUCCESS)
		return;
	/* What the transport saw, to tell a peer's fault from ours. */
	rpcrdma_clnt_stats(cl, &s);
	ck_abort_msg("%s (received msg %llu nomsg %llu error %llu, bad "
		     "headers %llu, unmatched %llu, remote/local "
		     "invalidations %llu/%llu, connects %llu)",
		     clnt_sperror(cl, what),
		     (unsigned long long)s.recv_msg,
		     (unsigned long long)s.recv_nomsg,
		     (unsigned long long)s.recv_error,
		     (unsigned long long)s.bad_headers,
		     (unsigned long long)s.replies_unmatched,
		     (unsigned long long)s.remote_invalidations,
		     (unsigned long long)s.local_invalidations,
		     (unsigned long long)s.connects);
}

static nfs_fh3 lookup(CLIENT *cl, const char *name)
{
	LOOKUP3args a = { { root_fh, (char *)name } };
	LOOKUP3res r;
	nfs_fh3 fh;

	memset(&r, 0, sizeof(r));
	call_ok(cl, NFSPROC3_LOOKUP, XP(xdr_LOOKUP3args), &a,
		XP(xdr_LOOKUP3res), &r, "LOOKUP");
	ck_assert_int_eq(r.status, NFS3_OK);
	fh = r.LOOKUP3res_u.resok.object;
	/* Keep the handle, free the rest. */
	r.LOOKUP3res_u.resok.object.data.data_val = NULL;
	r.LOOKUP3res_u.resok.object.data.data_len = 0;
	xdr_free(XP(xdr_LOOKUP3res), (char *)&r);
	return fh;
}

static fattr3 getattr(CLIENT *cl, const nfs_fh3 *fh)
{
	GETATTR3args a = { *fh };
	GETATTR3res r;

	memset(&r, 0, sizeof(r));
	call_ok(cl, NFSPROC3_GETATTR, XP(xdr_GETATTR3args), &a,
		XP(xdr_GETATTR3res), &r, "GETATTR");
	ck_assert_int_eq(r.status, NFS3_OK);
	return r.GETATTR3res_u.resok.obj_attributes;
}

static FSINFO3resok fsinfo(CLIENT *cl)
{
	FSINFO3args a = { root_fh };
	FSINFO3res r;
	FSINFO3resok ok;

	memset(&r, 0, sizeof(r));
	call_ok(cl, NFSPROC3_FSINFO, XP(xdr_FSINFO3args), &a,
		XP(xdr_FSINFO3res), &r, "FSINFO");
	ck_assert_int_eq(r.status, NFS3_OK);
	ok = r.FSINFO3res_u.resok;
	xdr_free(XP(xdr_FSINFO3res), (char *)&r);
	return ok;
}

/* The largest READ / WRITE payload both ends take: the server's rtmax or
 * wtmax, at most our largest message. */
static uint32_t payload_max(CLIENT *cl, uint32_t server_max)
{
	uint32_t mm;

	ck_assert(clnt_control(cl, CLGET_RDMA_MAX_MSG, (char *)&mm));
	ck_assert_uint_ge(server_max, 4096);
	return server_max < mm ? server_max : mm;
}

/* READ of n bytes at off; the result in buf when buf is not NULL (the
 * caller's memory), else in memory the XDR routine allocates. */
static void read_check(CLIENT *cl, const nfs_fh3 *fh, uint64_t off,
		       uint32_t n, uint8_t *buf, uint64_t flen, uint8_t seed)
{
	READ3args a = { *fh, off, n };
	uint32_t want = off >= flen ? 0 : (uint32_t)(flen - off < n ?
						      flen - off : n);
	READ3res r;
	READ3resok *ok = &r.READ3res_u.resok;
	char what[64];

	snprintf(what, sizeof(what), "READ %u at %llu", n,
		 (unsigned long long)off);
	memset(&r, 0, sizeof(r));
	ok->data.data_val = (char *)buf;
	ok->data.data_len = buf ? n : 0;
	call_ok(cl, NFSPROC3_READ, XP(xdr_READ3args), &a, XP(xdr_READ3res),
		&r, what);
	ck_assert_int_eq(r.status, NFS3_OK);
	ck_assert_uint_eq(ok->count, want);
	ck_assert_uint_eq(ok->data.data_len, want);
	ck_assert_int_eq(ok->eof, off + want >= flen);
	if (buf)
		ck_assert_ptr_eq(ok->data.data_val, buf);
	for (uint32_t i = 0; i < want; i++)
		if ((uint8_t)ok->data.data_val[i] != pattern(off + i, seed))
			ck_abort_msg("%s: byte %u is %u, not %u", what, i,
				     (uint8_t)ok->data.data_val[i],
				     pattern(off + i, seed));
	if (!buf)
		xdr_free(XP(xdr_READ3res), (char *)&r);
}

static void write_check(CLIENT *cl, const nfs_fh3 *fh, const char *name,
			uint64_t off, uint32_t n, uint8_t seed)
{
	WRITE3args a = { *fh, off, n, FILE_SYNC, { n, NULL } };
	WRITE3res r;
	char *p = path_of(name);
	uint8_t *b = malloc(n), *back = malloc(n);
	int fd;

	ck_assert(b && back);
	for (uint32_t i = 0; i < n; i++)
		b[i] = pattern(off + i, seed);
	a.data.data_val = (char *)b;
	memset(&r, 0, sizeof(r));
	call_ok(cl, NFSPROC3_WRITE, XP(xdr_WRITE3args), &a,
		XP(xdr_WRITE3res), &r, "WRITE");
	ck_assert_int_eq(r.status, NFS3_OK);
	ck_assert_uint_eq(r.WRITE3res_u.resok.count, n);
	ck_assert_int_eq(r.WRITE3res_u.resok.committed, FILE_SYNC);
	xdr_free(XP(xdr_WRITE3res), (char *)&r);
	/* What nfsd wrote, as the guest's file system has it. */
	fd = open(p, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, back, n, (off_t)off), (ssize_t)n);
	close(fd);
	ck_assert_msg(memcmp(b, back, n) == 0, "WRITE %u at %llu: the file "
		      "differs", n, (unsigned long long)off);
	free(b);
	free(back);
	free(p);
}

static void setup(void)
{
	mount_root();
	file_make("data", DATA_LEN, 7);
	file_make("out", 0, 0);
}

static void teardown(void)
{
	free(root_fh.data.data_val);
	root_fh.data.data_val = NULL;
}

/*
 * NULL, LOOKUP, GETATTR, FSINFO. Without a reply hint every call offers
 * a reply chunk of max_msg and nfsd, which uses a reply chunk whenever one
 * is offered, sends each reply by RDMA Write (a Long Reply); its only
 * rkey is revoked remotely where R is agreed. With a bound that fits
 * inline (CLSET_RDMA_REPLY_MAX) no chunk is offered and replies come
 * inline.
 */
START_TEST(test_metadata)
{
	CLIENT *cl = nfs_clnt();
	struct rpcrdma_stats a, b;
	uint32_t bound = 1024;
	bool rinv = remote_inv(cl);
	nfs_fh3 fh;
	fattr3 at;

	a = stats_of(cl);
	call_ok(cl, NFSPROC3_NULL, XP(xdr_void), NULL, XP(xdr_void), NULL,
		"NULL");
	fh = lookup(cl, "data");
	at = getattr(cl, &fh);
	ck_assert_int_eq(at.type, NF3REG);
	ck_assert_uint_eq(at.size, DATA_LEN);
	b = stats_of(cl);
	ck_assert_uint_eq(b.connects, 1);
	ck_assert_uint_eq(b.replies_long - a.replies_long, 3);
	ck_assert_uint_eq(b.remote_invalidations - a.remote_invalidations,
			  (rinv ? 3 : 0));
	ck_assert_uint_eq(b.local_invalidations - a.local_invalidations,
			  3 * own_inv(rinv));

	ck_assert(clnt_control(cl, CLSET_RDMA_REPLY_MAX, (char *)&bound));
	a = stats_of(cl);
	call_ok(cl, NFSPROC3_NULL, XP(xdr_void), NULL, XP(xdr_void), NULL,
		"NULL");
	at = getattr(cl, &fh);
	ck_assert_uint_eq(at.size, DATA_LEN);
	ck_assert_uint_ge(fsinfo(cl).rtmax, 4096);
	b = stats_of(cl);
	ck_assert_uint_eq(b.replies_inline - a.replies_inline, 3);
	ck_assert_uint_eq(b.replies_long, a.replies_long);
	ck_assert_uint_eq(b.reply_chunks, a.reply_chunks);
	free(fh.data.data_val);
	nfs_destroy(cl);
}
END_TEST

/*
 * READ with a DDP hint (one write chunk of the largest payload) and a
 * reply bound without the payload that fits inline: every non-empty
 * payload comes in the write chunk, the rest inline; the write chunk is
 * the call's only rkey. Sizes from 1 byte to rtmax, odd lengths, across
 * the end of the file, into the caller's buffer and into allocated
 * memory.
 */
START_TEST(test_read)
{
	CLIENT *cl = nfs_clnt();
	struct rpcrdma_stats a, b;
	struct rpcrdma_proc_reply hr = { NFSPROC3_READ, 512 };
	struct rpcrdma_proc_ddp d;
	uint32_t rmax = payload_max(cl, fsinfo(cl).rtmax);
	const uint32_t sizes[] = { 1, 100, 4096, 4099, 65537, rmax - 1, rmax };
	const uint64_t offs[] = { 0, 1, 4095, DATA_LEN - 4099 };
	bool rinv = remote_inv(cl);
	uint8_t *buf = malloc(rmax);
	nfs_fh3 fh = lookup(cl, "data");
	unsigned int n = 0;

	ck_assert_ptr_nonnull(buf);
	d.proc = NFSPROC3_READ;
	d.items = 1;
	d.item_max = rmax;
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_DDP, (char *)&d));
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_REPLY, (char *)&hr));
	a = stats_of(cl);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t j = 0; j < sizeof(offs) / sizeof(offs[0]); j++) {
			read_check(cl, &fh, offs[j], sizes[i],
				   (i + j) % 2 ? buf : NULL, DATA_LEN, 7);
			n++;
		}
	b = stats_of(cl);
	ck_assert_uint_eq(b.connects, 1);
	ck_assert_uint_eq(b.write_chunks - a.write_chunks, n);
	ck_assert_uint_eq(b.replies_write_chunks - a.replies_write_chunks, n);
	ck_assert_uint_eq(b.replies_inline - a.replies_inline, n);
	ck_assert_uint_eq(b.replies_long, a.replies_long);
	ck_assert_uint_eq(b.reply_chunks, a.reply_chunks);
	ck_assert_uint_eq(b.remote_invalidations - a.remote_invalidations,
			  (rinv ? n : 0));
	ck_assert_uint_eq(b.local_invalidations - a.local_invalidations,
			  n * own_inv(rinv));

	/* Past the end: an empty payload, the chunk comes back unused. */
	read_check(cl, &fh, DATA_LEN, 4096, NULL, DATA_LEN, 7);
	free(buf);
	free(fh.data.data_val);
	nfs_destroy(cl);
}
END_TEST

/*
 * WRITE up to wtmax: a payload that does not fit inline goes in a read
 * chunk at its position (RDMA_MSG, no Long Call), which nfsd pulls by
 * RDMA Read, from the caller's buffer itself from 1 MiB on (zero-copy); the reply bound fits inline so the read chunk is the only
 * rkey. The file is then read back locally and by NFS READ.
 */
START_TEST(test_write)
{
	CLIENT *cl = nfs_clnt();
	struct rpcrdma_stats a, b;
	struct rpcrdma_proc_reply hr = { NFSPROC3_WRITE, 512 };
	uint32_t wmax = payload_max(cl, fsinfo(cl).wtmax);
	const uint32_t sizes[] = { 1, 100, 4099, 65536, wmax - 1, wmax };
	bool rinv = remote_inv(cl);
	nfs_fh3 fh = lookup(cl, "out");
	unsigned int chunked = 0, n = 0, zc = 0;
	uint64_t off = 0;

	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_REPLY, (char *)&hr));
	a = stats_of(cl);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		write_check(cl, &fh, "out", off, sizes[i], 3);
		off += sizes[i];
		n++;
		/* Below the inline threshold the call goes as it is; from
		 * the zero-copy threshold on, from our buffer itself. */
		chunked += sizes[i] >= 4096;
		zc += sizes[i] >= RPCRDMA_ZC_THRESHOLD;
	}
	b = stats_of(cl);
	ck_assert_uint_eq(b.connects, 1);
	ck_assert_uint_eq(b.calls_read_chunks - a.calls_read_chunks, chunked);
	ck_assert_uint_eq(b.zc_chunks - a.zc_chunks, zc);
	ck_assert_uint_eq(b.calls_inline - a.calls_inline, n - chunked);
	ck_assert_uint_eq(b.calls_long, a.calls_long);
	ck_assert_uint_eq(b.reply_chunks, a.reply_chunks);
	ck_assert_uint_eq(b.remote_invalidations - a.remote_invalidations,
			  (rinv ? chunked : 0));
	ck_assert_uint_eq(b.local_invalidations - a.local_invalidations,
			  chunked * own_inv(rinv));
	/* Read back through NFS, over what was written. */
	read_check(cl, &fh, 0, 65536, NULL, off, 3);
	read_check(cl, &fh, off - 4099, 4099, NULL, off, 3);
	free(fh.data.data_val);
	nfs_destroy(cl);
}
END_TEST

/* Four threads on one CLIENT, READs and WRITEs of 256 KiB at once:
 * credits, XIDs and chunks of concurrent calls against nfsd's. */
struct mixer {
	CLIENT *cl;
	nfs_fh3 data, out;
	int id;
};

static void *mixer_main(void *arg)
{
	struct mixer *m = arg;
	const uint32_t n = 256u << 10;

	for (int i = 0; i < 6; i++) {
		if (m->id % 2)
			read_check(m->cl, &m->data, (uint64_t)i * n, n, NULL,
				   DATA_LEN, 7);
		else
			write_check(m->cl, &m->out, "out",
				    ((uint64_t)m->id * 6 + i) * n, n, 5);
	}
	return NULL;
}

START_TEST(test_concurrent)
{
	CLIENT *cl = nfs_clnt();
	struct rpcrdma_proc_reply hr = { NFSPROC3_READ, 512 };
	struct rpcrdma_proc_ddp d = { NFSPROC3_READ, 1, 256u << 10 };
	struct mixer m[4];
	pthread_t th[4];
	nfs_fh3 data = lookup(cl, "data"), out = lookup(cl, "out");

	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_DDP, (char *)&d));
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_REPLY, (char *)&hr));
	hr.proc = NFSPROC3_WRITE;
	ck_assert(clnt_control(cl, CLSET_RDMA_PROC_REPLY, (char *)&hr));
	for (int i = 0; i < 4; i++) {
		m[i] = (struct mixer){ cl, data, out, i };
		ck_assert_int_eq(pthread_create(&th[i], NULL, mixer_main,
						&m[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	ck_assert_uint_eq(stats_of(cl).connects, 1);
	ck_assert_uint_ge(stats_of(cl).inflight_peak, 2);
	free(data.data.data_val);
	free(out.data.data_val);
	nfs_destroy(cl);
}
END_TEST

static Suite *nfs_suite(void)
{
	Suite *s = suite_create("nfsd");
	TCase *tc = tcase_create("nfsd");

	tcase_set_timeout(tc, 300);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_metadata);
	tcase_add_test(tc, test_read);
	tcase_add_test(tc, test_write);
	tcase_add_test(tc, test_concurrent);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	addr_a = getenv("RPCRDMA_ADDR_A");
	addr_b = getenv("RPCRDMA_ADDR_B");
	export_dir = getenv("RPCRDMA_T_NFS_DIR");
	if (!addr_a || !addr_b || !export_dir) {
		fprintf(stderr, "t_nfs: RPCRDMA_ADDR_A, RPCRDMA_ADDR_B and "
			"RPCRDMA_T_NFS_DIR must be set (tests/vm/t/65-nfsd.sh)\n");
		return 77;
	}
	sr = srunner_create(nfs_suite());
	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
