/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3c (./nfs/nfs3c, from the build directory) against a hostile or odd
 * NFSv3 server over tcp on 127.0.0.1: a forked process of this test that
 * answers MOUNT and NFS on one port with canned replies. The tool must
 * end with an error, not loop or crash, on a READDIRPLUS without entries
 * and without eof, a cookie that does not move, a READ of 0 bytes without
 * eof, a READ of more than asked, a WRITE of 0 bytes, a write verifier
 * that never settles; and it must fall back to READDIR on
 * NFS3ERR_NOTSUPP, continue short WRITEs and send the file again once
 * when the verifier changed at the COMMIT (RFC 1813 sections 3.3.7,
 * 3.3.16, 3.3.17, 3.3.21). The real server is nfs3d's and the kernel's,
 * in the guest (t/65-nfsd.sh, t/66-nfs3d.sh).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

enum mode {
	ZERO_READ, BIG_READ, SAME_COOKIE, EMPTY_DIR, NOTSUPP, ZERO_WRITE,
	VERF_ALWAYS, VERF_ONCE, SHORT_WRITE,
};

/* ---- the fake server ---- */

struct out {
	uint8_t b[4096];
	size_t n;
};

static void u32(struct out *o, uint32_t v)
{
	v = htonl(v);
	memcpy(o->b + o->n, &v, 4);
	o->n += 4;
}

static void u64(struct out *o, uint64_t v)
{
	u32(o, (uint32_t)(v >> 32));
	u32(o, (uint32_t)v);
}

static void opaque(struct out *o, const char *s, uint32_t len)
{
	u32(o, len);
	memcpy(o->b + o->n, s, len);
	o->n += len;
	while (o->n % 4)
		o->b[o->n++] = 0;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static void fattr(struct out *o, uint32_t type, uint64_t size)
{
	u32(o, type);
	u32(o, 0644);
	u32(o, 1);
	u32(o, 0);
	u32(o, 0);
	u64(o, size);
	u64(o, size);
	u32(o, 0);
	u32(o, 0);
	u64(o, 1);
	u64(o, 2);
	for (int i = 0; i < 6; i++)
		u32(o, 0);
}

static void wcc_none(struct out *o)
{
	u32(o, 0);
	u32(o, 0);
}

#define FSIZE	100000u
#define PIECE	65536u

/* The result of one call (after the accepted-SUCCESS header). */
static void result(enum mode m, uint32_t prog, uint32_t proc,
		   const uint8_t *args, size_t alen, struct out *o)
{
	static unsigned int nwrites, ncommits;

	if (prog == 100005) {		/* MOUNT: MNT; UMNT is void */
		if (proc == 1) {
			u32(o, 0);
			opaque(o, "ROOT", 4);
			u32(o, 1);
			u32(o, 1);
		}
		return;
	}
	switch (proc) {
	case 19:			/* FSINFO */
		u32(o, 0);
		u32(o, 0);
		for (int i = 0; i < 7; i++)
			u32(o, i % 3 == 2 ? 4096 : PIECE);
		u64(o, 1ull << 40);
		u32(o, 0);
		u32(o, 1);
		u32(o, 0);
		break;
	case 3:				/* LOOKUP: a file of FSIZE bytes */
		u32(o, 0);
		opaque(o, "FILE", 4);
		u32(o, 1);
		fattr(o, 1, FSIZE);
		u32(o, 0);
		break;
	case 1:				/* GETATTR */
		u32(o, 0);
		fattr(o, 1, FSIZE);
		break;
	case 6:				/* READ */
		u32(o, 0);
		u32(o, 0);
		if (m == BIG_READ) {
			/* 8 bytes more than the count says and than asked */
			u32(o, 8);
			u32(o, 0);
			opaque(o, "abcdefghijklmnop", 16);
		} else {
			u32(o, 0);
			u32(o, 0);
			u32(o, 0);
		}
		break;
	case 8:				/* CREATE, no handle: then LOOKUP */
		u32(o, 0);
		u32(o, 0);
		u32(o, 0);
		wcc_none(o);
		break;
	case 7: {			/* WRITE */
		/* args: handle, offset, count, stable, data */
		uint32_t hl = alen >= 4 ? get32(args) : 0;
		size_t at = 4 + ((hl + 3) & ~3u) + 8;
		uint32_t count = alen >= at + 4 ? get32(args + at) : 0;

		nwrites++;
		u32(o, 0);
		wcc_none(o);
		if (m == ZERO_WRITE)
			count = 0;
		else if (m == SHORT_WRITE && count > 1)
			count /= 2;
		u32(o, count);
		u32(o, 0);
		/* VERF_ALWAYS: a new verifier every WRITE */
		u64(o, m == VERF_ALWAYS ? nwrites : 7);
		break;
	}
	case 21:			/* COMMIT */
		ncommits++;
		u32(o, 0);
		wcc_none(o);
		u64(o, m == VERF_ONCE && ncommits == 1 ? 8 :
		       m == VERF_ALWAYS ? 1000 + ncommits : 7);
		break;
	case 17:			/* READDIRPLUS */
		if (m == NOTSUPP) {
			u32(o, 10004);
			u32(o, 0);
			break;
		}
		u32(o, 0);
		u32(o, 0);
		u64(o, 0);		/* cookieverf */
		if (m == SAME_COOKIE) {
			u32(o, 1);
			u64(o, 1);
			opaque(o, "a", 1);
			u64(o, 0);	/* the cookie asked for: 0 */
			u32(o, 0);
			u32(o, 0);
		}
		u32(o, 0);		/* no more entries */
		u32(o, 0);		/* eof FALSE */
		break;
	case 16:			/* READDIR: "b", then eof */
		u32(o, 0);
		u32(o, 0);
		u64(o, 0);
		u32(o, 1);
		u64(o, 1);
		opaque(o, "b", 1);
		u64(o, 5);
		u32(o, 0);
		u32(o, 1);
		break;
	default:			/* NULL */
		break;
	}
}

static bool read_full(int fd, uint8_t *b, size_t n)
{
	while (n > 0) {
		ssize_t r = read(fd, b, n);

		if (r <= 0)
			return false;
		b += r;
		n -= (size_t)r;
	}
	return true;
}

static void serve_conn(int c, enum mode m)
{
	static uint8_t msg[1 << 20];

	for (;;) {
		uint8_t rm[4];
		uint32_t len = 0, xid, prog, proc, frag;
		size_t off = 24;
		struct out o = { .n = 4 };

		/* Record marking: fragments up to the last one's. */
		do {
			if (!read_full(c, rm, 4))
				return;
			frag = get32(rm) & 0x7fffffffu;
			if (frag > sizeof(msg) - len ||
			    !read_full(c, msg + len, frag))
				return;
			len += frag;
		} while (!(get32(rm) & 0x80000000u));
		if (len < 40)
			return;
		xid = get32(msg);
		prog = get32(msg + 12);
		proc = get32(msg + 20);
		for (int i = 0; i < 2 && off + 8 <= len; i++)
			off += 8 + ((get32(msg + off + 4) + 3) & ~3u);
		if (off > len)
			return;
		u32(&o, xid);
		u32(&o, 1);	/* REPLY */
		u32(&o, 0);	/* MSG_ACCEPTED */
		u32(&o, 0);	/* AUTH_NONE verifier */
		u32(&o, 0);
		u32(&o, 0);	/* SUCCESS */
		result(m, prog, proc, msg + off, len - off, &o);
		len = htonl(0x80000000u | (uint32_t)(o.n - 4));
		memcpy(o.b, &len, 4);
		if (write(c, o.b, o.n) != (ssize_t)o.n)
			return;
	}
}

static pid_t srv = -1;
static uint16_t port;

static void fake_start(enum mode m)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	int s = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(s, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(s, 8), 0);
	ck_assert_int_eq(getsockname(s, (struct sockaddr *)&sin, &sl), 0);
	port = ntohs(sin.sin_port);
	srv = fork();
	ck_assert_int_ge(srv, 0);
	if (srv == 0) {
		/* One connection at a time: nfs3c's MOUNT, NFS, UMNT. */
		for (;;) {
			int c = accept(s, NULL, NULL);

			if (c < 0)
				_exit(0);
			serve_conn(c, m);
			close(c);
		}
	}
	close(s);
}

static void fake_stop(void)
{
	if (srv > 0) {
		kill(srv, SIGKILL);
		waitpid(srv, NULL, 0);
	}
	srv = -1;
}

/* Runs nfs3c with the fake on 'port'; its exit status, output in out. */
static int nfs3c(char *out, size_t outlen, const char *args)
{
	char cmd[512];
	FILE *f;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "timeout 30 ./nfs/nfs3c -n tcp -p %u -m %u "
		 "-t 10 -v 127.0.0.1:/x %s 2>&1", port, port, args);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(out, 1, outlen - 1, f);
	out[n] = '\0';
	st = pclose(f);
	ck_assert_msg(WIFEXITED(st), "nfs3c %s: killed", args);
	return WEXITSTATUS(st);
}

static void expect(enum mode m, const char *args, int status,
		   const char *says)
{
	char out[4096];
	int st;

	fake_start(m);
	st = nfs3c(out, sizeof(out), args);
	fake_stop();
	ck_assert_msg(st == status, "nfs3c %s: exit %d, not %d: %s", args, st,
		      status, out);
	ck_assert_msg(strstr(out, says), "nfs3c %s said '%s', not '%s'",
		      args, out, says);
}

static char local[] = "/tmp/check_nfs3c.XXXXXX";

START_TEST(test_loops_end)
{
	expect(EMPTY_DIR, "ls", 1,
	       "nfs3c: READDIRPLUS /: no entries and no eof");
	expect(SAME_COOKIE, "ls d", 1,
	       "nfs3c: READDIRPLUS d: the cookie did not advance");
	expect(ZERO_READ, "read f /dev/null", 1,
	       "nfs3c: READ f: 0 bytes without eof");
	expect(BIG_READ, "read f /dev/null", 1,
	       "nfs3c: READ f: more data than asked for");
}
END_TEST

START_TEST(test_fallback)
{
	expect(NOTSUPP, "ls d", 0, "b\n");
	expect(NOTSUPP, "ls -l d", 0, "- 0644       100000 b\n");
}
END_TEST

START_TEST(test_write)
{
	char args[128];

	snprintf(args, sizeof(args), "write %s f", local);
	expect(ZERO_WRITE, args, 1, "nfs3c: WRITE f: 0 bytes written");
	expect(VERF_ALWAYS, args, 1,
	       "nfs3c: COMMIT f: the write verifier keeps changing");
	expect(VERF_ONCE, args, 0, "the write verifier changed (pass 1)");
	/* 100000 bytes in pieces of 65536, each taken half at a time. */
	expect(SHORT_WRITE, args, 0, "100000 bytes, ");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nfs3c");
	TCase *tc = tcase_create("hostile");
	SRunner *sr;
	char buf[FSIZE];
	FILE *f;
	int fd, failed;

	if (access("./nfs/nfs3c", X_OK) != 0) {
		fprintf(stderr, "check_nfs3c: ./nfs/nfs3c not built\n");
		return 77;
	}
	fd = mkstemp(local);
	if (fd < 0)
		return 99;
	f = fdopen(fd, "w");
	memset(buf, 'x', sizeof(buf));
	if (!f || fwrite(buf, 1, sizeof(buf), f) != sizeof(buf) || fclose(f))
		return 99;
	signal(SIGPIPE, SIG_IGN);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_loops_end);
	tcase_add_test(tc, test_fallback);
	tcase_add_test(tc, test_write);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	unlink(local);
	return failed ? 1 : 0;
}
