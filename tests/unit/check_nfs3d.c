/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3d's answers to bad and edge-case arguments (RFC 1813 section 3.3's
 * error lists), on the host: the server (./nfs/nfs3d, from the build
 * directory) serves a fresh directory over tcp on 127.0.0.1, and every
 * check is a call made with rpcgen's client stubs of nfs/nfs3_prot.x.
 * The same dispatch code serves rdma; the guest test t/66-nfs3d.sh has
 * the kernel client drive it there. Needs root (open_by_handle_at wants
 * CAP_DAC_READ_SEARCH), else skipped (77).
 *
 * This file: main (the suite "nfs3d", its TCase "tcp") and the tests of
 * mounting, handles, names, garbage arguments and a restart; the
 * operation tests are in check_nfs3d_ops.c, the credentials test in
 * check_nfs3d_cred.c, shared state and helpers in check_nfs3d_util.c
 * (nfs3d_util.h).
 */
#define _GNU_SOURCE
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rpc/rpc.h>
#include "nfs3_prot.h"
#include "nfs3d_util.h"

START_TEST(test_mount)
{
	mountres3 mr;
	dirpath p = "/no/such/export";
	exports ex = NULL;

	memset(&mr, 0, sizeof(mr));
	ck_assert_int_eq(mountproc3_mnt_3(&p, &mr, mnt), RPC_SUCCESS);
	ck_assert_int_eq(mr.fhs_status, MNT3ERR_NOENT);
	ck_assert_int_eq(mountproc3_export_3(NULL, &ex, mnt), RPC_SUCCESS);
	ck_assert_ptr_nonnull(ex);
	ck_assert_str_eq(ex->ex_dir, dir);
	ck_assert_int_eq(mountproc3_null_3(NULL, NULL, mnt), RPC_SUCCESS);
	ck_assert_int_eq(nfsproc3_null_3(NULL, NULL, nfs), RPC_SUCCESS);
}
END_TEST

/* 2.3.3 / 3.3.1: malformed handles BADHANDLE, gone ones STALE. */
START_TEST(test_handles)
{
	nfs_fh3 fh = create(root, "f"), bad;
	char buf[NFS3_FHSIZE];
	REMOVE3args ra = {{root, "f"}};
	REMOVE3res rr;

	ck_assert_int_eq(getattr(root), NFS3_OK);
	ck_assert_int_eq(getattr(fh), NFS3_OK);
	/* Empty, short, wrong version, wrong length field. */
	bad.data.data_len = 0;
	bad.data.data_val = NULL;
	ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	memcpy(buf, fh.data.data_val, fh.data.data_len);
	bad.data.data_val = buf;
	bad.data.data_len = 8;
	ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	bad.data.data_len = fh.data.data_len;
	buf[0] = 9;
	ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	buf[0] = fh.data.data_val[0];
	buf[3] ^= 1;
	ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	buf[3] = fh.data.data_val[3];
	/* Another export's tag, without that export's MAC: altered. */
	buf[9] ^= 0x55;
	ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	buf[9] = fh.data.data_val[9];
	/* A handle claiming the wrong type. */
	buf[1] = NF3DIR;
	ck_assert_int_eq(getattr(bad), NFS3ERR_BADHANDLE);
	buf[1] = fh.data.data_val[1];
	/* The file system's part garbled: not a crash, an error. */
	for (u_int i = 12; i < fh.data.data_len; i++)
		buf[i] = (char)~buf[i];
	ck_assert_int_ne(getattr(bad), NFS3_OK);
	/* Removed: stale. */
	CALL(nfsproc3_remove_3, &ra, &rr);
	ck_assert_int_eq(rr.status, NFS3_OK);
	ck_assert_int_eq(getattr(fh), NFS3ERR_STALE);
}
END_TEST

/* 3.3.3 LOOKUP: names. */
START_TEST(test_names)
{
	nfs_fh3 f = create(root, "file");
	char longname[300];
	LOOKUP3args a;
	LOOKUP3res r;

	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	a.what.dir = root;
	a.what.name = "missing";
	CALL(nfsproc3_lookup_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3ERR_NOENT);
	ck_assert(r.LOOKUP3res_u.resfail.dir_attributes.attributes_follow);
	a.what.name = longname;
	CALL(nfsproc3_lookup_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3ERR_NAMETOOLONG);
	a.what.name = "a/b";
	CALL(nfsproc3_lookup_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3ERR_INVAL);
	a.what.name = "";
	CALL(nfsproc3_lookup_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3ERR_NOENT);
	a.what.name = ".."; /* at the root: the root itself */
	CALL(nfsproc3_lookup_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3_OK);
	ck_assert_uint_eq(r.LOOKUP3res_u.resok.object.data.data_len,
			  root.data.data_len);
	ck_assert_mem_eq(r.LOOKUP3res_u.resok.object.data.data_val,
			 root.data.data_val, root.data.data_len);
	a.what.dir = f;
	a.what.name = "x";
	CALL(nfsproc3_lookup_3, &a, &r);
	ck_assert_int_eq(r.status, NFS3ERR_NOTDIR);
}
END_TEST

/* A LOOKUP whose name's length word says 2^32 - 1 bytes: libtirpc's
 * xdr_string decodes it as a NULL string; the server must refuse it. */
static bool_t xdr_lookup_huge(XDR *x, nfs_fh3 *dirfh)
{
	u_int len = 0xffffffffu;

	return xdr_nfs_fh3(x, dirfh) && xdr_u_int(x, &len);
}

/* Arguments cut short. */
static bool_t xdr_write_cut(XDR *x, nfs_fh3 *fh)
{
	uint64_t off = 0;
	u_int count = 1000000, stable = 0, len = 1000000;

	return xdr_nfs_fh3(x, fh) && xdr_uint64_t(x, &off) &&
	       xdr_u_int(x, &count) && xdr_u_int(x, &stable) &&
	       xdr_u_int(x, &len);
}

START_TEST(test_garbage)
{
	struct timeval tv = {10, 0};
	LOOKUP3res r;
	WRITE3res w;
	enum clnt_stat st;

	memset(&r, 0, sizeof(r));
	st = clnt_call(nfs, NFSPROC3_LOOKUP, XP(xdr_lookup_huge), (char *)&root,
		       XP(xdr_LOOKUP3res), (char *)&r, tv);
	ck_assert(st == RPC_SUCCESS || st == RPC_CANTDECODEARGS);
	if (st == RPC_SUCCESS)
		ck_assert_int_ne(r.status, NFS3_OK);
	memset(&w, 0, sizeof(w));
	st = clnt_call(nfs, NFSPROC3_WRITE, XP(xdr_write_cut), (char *)&root,
		       XP(xdr_WRITE3res), (char *)&w, tv);
	ck_assert_int_eq(st, RPC_CANTDECODEARGS);
	/* Unknown procedure. */
	st = clnt_call(nfs, 22, XP(xdr_void), NULL, XP(xdr_void), NULL, tv);
	ck_assert_int_eq(st, RPC_PROCUNAVAIL);
	ck_assert_int_eq(nfsproc3_null_3(NULL, NULL, nfs), RPC_SUCCESS);
}
END_TEST

/* Handles survive a restart of the server (RFC 1813 section 2.3.3). */
START_TEST(test_restart)
{
	nfs_fh3 f = create(root, "kept");
	nfs_fh3 keep;

	keep.data.data_len = f.data.data_len;
	keep.data.data_val = malloc(f.data.data_len);
	ck_assert_ptr_nonnull(keep.data.data_val);
	memcpy(keep.data.data_val, f.data.data_val, f.data.data_len);
	stop_server();
	start_server();
	ck_assert_int_eq(getattr(keep), NFS3_OK);
	ck_assert_int_eq(getattr(root), NFS3_OK);
	free(keep.data.data_val);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nfs3d");
	TCase *tc = tcase_create("tcp");
	SRunner *sr;
	int failed;

	if (geteuid() != 0) {
		fprintf(stderr,
			"check_nfs3d: needs root (open_by_handle_at)\n");
		return 77;
	}
	if (access("./nfs/nfs3d", X_OK) != 0) {
		fprintf(stderr, "check_nfs3d: ./nfs/nfs3d not built\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_mount);
	tcase_add_test(tc, test_handles);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_garbage);
	nfs3d_add_ops(tc);
	tcase_add_test(tc, test_restart);
	nfs3d_add_credentials(tc);
	nfs3d_add_safety(tc);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
