/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_nfs3d's operation tests (of the TCase "tcp"): READ and WRITE
 * (offsets, sizes, stability, verifier), CREATE modes, MKNOD and
 * SETATTR, the namespace operations' errors (REMOVE, RMDIR, RENAME, LINK,
 * READLINK), READDIR / READDIRPLUS, and FSSTAT / FSINFO / PATHCONF.
 */
#define _GNU_SOURCE
#include <check.h>
#include <string.h>
#include <rpc/rpc.h>
#include "nfs3_prot.h"
#include "nfs3d_util.h"

/* 3.3.6 READ and 3.3.7 WRITE: offsets, sizes, stability, verifier. */
START_TEST(test_read_write)
{
	nfs_fh3 f = create(root, "data");
	static char data[3 << 20];
	WRITE3args wa;
	WRITE3res wr;
	READ3args ra;
	READ3res rr;
	COMMIT3args ca = {f, 0, 0};
	COMMIT3res cr;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 13 + 5);
	memset(&wa, 0, sizeof(wa));
	wa.file = f;
	wa.count = 1 << 20;
	wa.stable = UNSTABLE;
	wa.data.data_len = 1 << 20;
	wa.data.data_val = data;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.status, NFS3_OK);
	ck_assert_uint_eq(wr.WRITE3res_u.resok.count, 1 << 20);
	ck_assert_int_eq(wr.WRITE3res_u.resok.committed, UNSTABLE);
	CALL(nfsproc3_commit_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3_OK);
	ck_assert_mem_eq(cr.COMMIT3res_u.resok.verf, wr.WRITE3res_u.resok.verf,
			 NFS3_WRITEVERFSIZE);
	/* FILE_SYNC and DATA_SYNC are answered as asked. */
	wa.stable = FILE_SYNC;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.WRITE3res_u.resok.committed, FILE_SYNC);
	wa.stable = DATA_SYNC;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.WRITE3res_u.resok.committed, DATA_SYNC);
	/* Bad stable_how, count above the data, offset overflow. */
	wa.stable = 7;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.status, NFS3ERR_INVAL);
	wa.stable = UNSTABLE;
	wa.count = wa.data.data_len + 1;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.status, NFS3ERR_INVAL);
	wa.count = 10;
	wa.offset = UINT64_MAX - 5;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.status, NFS3ERR_FBIG);
	wa.offset = 0;
	wa.file = root;
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.status, NFS3ERR_ISDIR);
	/* A WRITE larger than wtmax is still written whole. */
	wa.file = f;
	wa.count = wa.data.data_len = sizeof(data);
	CALL(nfsproc3_write_3, &wa, &wr);
	ck_assert_int_eq(wr.status, NFS3_OK);
	ck_assert_uint_eq(wr.WRITE3res_u.resok.count, sizeof(data));

	/* READ: clamped to rtmax, eof, past the end, huge offset, a dir. */
	ra.file = f;
	ra.offset = 1;
	ra.count = 4 << 20;
	CALL(nfsproc3_read_3, &ra, &rr);
	ck_assert_int_eq(rr.status, NFS3_OK);
	ck_assert_uint_eq(rr.READ3res_u.resok.count, 1 << 20);
	ck_assert(!rr.READ3res_u.resok.eof);
	ck_assert_mem_eq(rr.READ3res_u.resok.data.data_val, data + 1, 1 << 20);
	xdr_free(XP(xdr_READ3res), (char *)&rr);
	ra.offset = sizeof(data) - 10;
	ra.count = 100;
	CALL(nfsproc3_read_3, &ra, &rr);
	ck_assert_uint_eq(rr.READ3res_u.resok.count, 10);
	ck_assert(rr.READ3res_u.resok.eof);
	xdr_free(XP(xdr_READ3res), (char *)&rr);
	ra.offset = sizeof(data) + 100;
	CALL(nfsproc3_read_3, &ra, &rr);
	ck_assert_int_eq(rr.status, NFS3_OK);
	ck_assert_uint_eq(rr.READ3res_u.resok.count, 0);
	ck_assert(rr.READ3res_u.resok.eof);
	ra.offset = UINT64_MAX;
	CALL(nfsproc3_read_3, &ra, &rr);
	ck_assert_int_eq(rr.status, NFS3_OK);
	ck_assert_uint_eq(rr.READ3res_u.resok.count, 0);
	ck_assert(rr.READ3res_u.resok.eof);
	ra.file = root;
	ra.offset = 0;
	CALL(nfsproc3_read_3, &ra, &rr);
	ck_assert_int_eq(rr.status, NFS3ERR_ISDIR);
	ck_assert(rr.READ3res_u.resfail.file_attributes.attributes_follow);
}
END_TEST

/* 3.3.8 CREATE modes, 3.3.11 MKNOD, 3.3.2 SETATTR's guard and size. */
START_TEST(test_create_setattr)
{
	CREATE3args ca;
	CREATE3res cr;
	MKNOD3args ma;
	MKNOD3res mr;
	SETATTR3args sa;
	SETATTR3res sr;
	fileid3 id;

	memset(&ca, 0, sizeof(ca));
	ca.where.dir = root;
	ca.where.name = "x";
	ca.how.mode = GUARDED;
	CALL(nfsproc3_create_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3_OK);
	CALL(nfsproc3_create_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3ERR_EXIST);
	ck_assert(cr.CREATE3res_u.resfail.dir_wcc.after.attributes_follow);
	ca.where.name = ".";
	CALL(nfsproc3_create_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3ERR_INVAL);
	/* EXCLUSIVE: a retransmission (same verifier) succeeds, another
	 * verifier meets NFS3ERR_EXIST. */
	ca.where.name = "excl";
	ca.how.mode = EXCLUSIVE;
	memcpy(ca.how.createhow3_u.verf, "verifier", 8);
	CALL(nfsproc3_create_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3_OK);
	id = cr.CREATE3res_u.resok.obj_attributes.post_op_attr_u.attributes
		 .fileid;
	CALL(nfsproc3_create_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3_OK);
	ck_assert_uint_eq(cr.CREATE3res_u.resok.obj_attributes.post_op_attr_u
			      .attributes.fileid,
			  id);
	memcpy(ca.how.createhow3_u.verf, "VERIFIER", 8);
	CALL(nfsproc3_create_3, &ca, &cr);
	ck_assert_int_eq(cr.status, NFS3ERR_EXIST);

	memset(&ma, 0, sizeof(ma));
	ma.where.dir = root;
	ma.where.name = "dev";
	/* MKNOD makes devices and FIFOs (check_nfs3d_safety.c); over a
	 * name that exists, EXIST. */
	ma.what.type = NF3CHR;
	CALL(nfsproc3_mknod_3, &ma, &mr);
	ck_assert_int_eq(mr.status, NFS3_OK);
	ma.what.type = NF3FIFO;
	CALL(nfsproc3_mknod_3, &ma, &mr);
	ck_assert_int_eq(mr.status, NFS3ERR_EXIST);
	ma.what.type = NF3REG;
	CALL(nfsproc3_mknod_3, &ma, &mr);
	ck_assert_int_eq(mr.status, NFS3ERR_BADTYPE);

	memset(&sa, 0, sizeof(sa));
	sa.object = root;
	sa.new_attributes.size.set_it = TRUE;
	CALL(nfsproc3_setattr_3, &sa, &sr);
	ck_assert_int_eq(sr.status, NFS3ERR_ISDIR);
	sa.new_attributes.size.set_it = FALSE;
	sa.new_attributes.mode.set_it = TRUE;
	sa.new_attributes.mode.set_mode3_u.mode = 0700;
	sa.guard.check = TRUE; /* ctime 0: not the directory's */
	CALL(nfsproc3_setattr_3, &sa, &sr);
	ck_assert_int_eq(sr.status, NFS3ERR_NOT_SYNC);
	sa.guard.check = FALSE;
	CALL(nfsproc3_setattr_3, &sa, &sr);
	ck_assert_int_eq(sr.status, NFS3_OK);
	ck_assert_uint_eq(
	    sr.SETATTR3res_u.resok.obj_wcc.after.post_op_attr_u.attributes.mode,
	    0700);
}
END_TEST

/* 3.3.12-15: REMOVE, RMDIR, RENAME, LINK, READLINK errors. */
START_TEST(test_namespace)
{
	nfs_fh3 f = create(root, "file");
	MKDIR3args ma;
	MKDIR3res mr;
	REMOVE3args ra = {{root, "nothing"}};
	REMOVE3res rr;
	RMDIR3args da = {{root, "d"}};
	RMDIR3res dr;
	RENAME3args na = {{root, "nothing"}, {root, "other"}};
	RENAME3res nr;
	LINK3args la;
	LINK3res lr;
	READLINK3args rla = {f};
	READLINK3res rlr;
	nfs_fh3 d;

	memset(&ma, 0, sizeof(ma));
	ma.where.dir = root;
	ma.where.name = "d";
	CALL(nfsproc3_mkdir_3, &ma, &mr);
	ck_assert_int_eq(mr.status, NFS3_OK);
	d = mr.MKDIR3res_u.resok.obj.post_op_fh3_u.handle;
	CALL(nfsproc3_mkdir_3, &ma, &mr);
	ck_assert_int_eq(mr.status, NFS3ERR_EXIST);
	create(d, "inside");
	CALL(nfsproc3_remove_3, &ra, &rr);
	ck_assert_int_eq(rr.status, NFS3ERR_NOENT);
	CALL(nfsproc3_rmdir_3, &da, &dr);
	ck_assert_int_eq(dr.status, NFS3ERR_NOTEMPTY);
	da.object.name = "file";
	CALL(nfsproc3_rmdir_3, &da, &dr);
	ck_assert_int_eq(dr.status, NFS3ERR_NOTDIR);
	da.object.name = ".";
	CALL(nfsproc3_rmdir_3, &da, &dr);
	ck_assert_int_eq(dr.status, NFS3ERR_INVAL);
	CALL(nfsproc3_rename_3, &na, &nr);
	ck_assert_int_eq(nr.status, NFS3ERR_NOENT);
	na.from.name = "file";
	na.to.dir = f;
	CALL(nfsproc3_rename_3, &na, &nr);
	ck_assert_int_eq(nr.status, NFS3ERR_NOTDIR);
	la.file = d;
	la.link.dir = root;
	la.link.name = "dlink";
	CALL(nfsproc3_link_3, &la, &lr);
	ck_assert_int_ne(lr.status, NFS3_OK);
	la.file = f;
	la.link.name = "file";
	CALL(nfsproc3_link_3, &la, &lr);
	ck_assert_int_eq(lr.status, NFS3ERR_EXIST);
	CALL(nfsproc3_readlink_3, &rla, &rlr);
	ck_assert_int_eq(rlr.status, NFS3ERR_INVAL);
}
END_TEST

/* 3.3.16 / 3.3.17: every entry once, in replies within count. */
START_TEST(test_readdir)
{
	MKDIR3args ma;
	MKDIR3res mr;
	nfs_fh3 d;
	char leaf[32];
	unsigned int seen[2] = {0, 0};

	memset(&ma, 0, sizeof(ma));
	ma.where.dir = root;
	ma.where.name = "many";
	CALL(nfsproc3_mkdir_3, &ma, &mr);
	ck_assert_int_eq(mr.status, NFS3_OK);
	d = mr.MKDIR3res_u.resok.obj.post_op_fh3_u.handle;
	for (int i = 0; i < 500; i++) {
		snprintf(leaf, sizeof(leaf), "entry-%d", i);
		create(d, leaf);
	}
	for (int plus = 0; plus < 2; plus++) {
		cookie3 cookie = 0;
		bool_t eof = FALSE;

		while (!eof) {
			if (plus) {
				READDIRPLUS3args a = {
				    d, cookie, {0}, 2048, 8192};
				READDIRPLUS3res r;

				CALL(nfsproc3_readdirplus_3, &a, &r);
				ck_assert_int_eq(r.status, NFS3_OK);
				for (entryplus3 *e = r.READDIRPLUS3res_u.resok
							 .reply.entries;
				     e; e = e->nextentry) {
					cookie = e->cookie;
					if (strncmp(e->name, "entry-", 6))
						continue;
					seen[1]++;
					ck_assert(
					    e->name_handle.handle_follows);
					ck_assert(e->name_attributes
						      .attributes_follow);
				}
				eof = r.READDIRPLUS3res_u.resok.reply.eof;
			} else {
				READDIR3args a = {d, cookie, {0}, 1024};
				READDIR3res r;

				CALL(nfsproc3_readdir_3, &a, &r);
				ck_assert_int_eq(r.status, NFS3_OK);
				for (entry3 *e =
					 r.READDIR3res_u.resok.reply.entries;
				     e; e = e->nextentry) {
					cookie = e->cookie;
					if (strncmp(e->name, "entry-", 6) == 0)
						seen[0]++;
				}
				eof = r.READDIR3res_u.resok.reply.eof;
			}
		}
	}
	ck_assert_uint_eq(seen[0], 500);
	ck_assert_uint_eq(seen[1], 500);
	{
		READDIR3args a = {d, 0, {0}, 40};
		READDIR3res r;

		CALL(nfsproc3_readdir_3, &a, &r);
		ck_assert_int_eq(r.status, NFS3ERR_TOOSMALL);
		a.dir = create(root, "plain");
		a.count = 4096;
		CALL(nfsproc3_readdir_3, &a, &r);
		ck_assert_int_eq(r.status, NFS3ERR_NOTDIR);
	}
}
END_TEST

/* 3.3.18-20 */
START_TEST(test_fs)
{
	FSINFO3args ia = {root};
	FSINFO3res ir;
	FSSTAT3args sa = {root};
	FSSTAT3res sr;
	PATHCONF3args pa = {root};
	PATHCONF3res pr;

	CALL(nfsproc3_fsinfo_3, &ia, &ir);
	ck_assert_int_eq(ir.status, NFS3_OK);
	ck_assert_uint_eq(ir.FSINFO3res_u.resok.rtmax, 1 << 20);
	ck_assert_uint_eq(ir.FSINFO3res_u.resok.wtmax, 1 << 20);
	CALL(nfsproc3_fsstat_3, &sa, &sr);
	ck_assert_int_eq(sr.status, NFS3_OK);
	ck_assert_uint_gt(sr.FSSTAT3res_u.resok.tbytes, 0);
	CALL(nfsproc3_pathconf_3, &pa, &pr);
	ck_assert_int_eq(pr.status, NFS3_OK);
	ck_assert_uint_eq(pr.PATHCONF3res_u.resok.name_max, 255);
}
END_TEST

void nfs3d_add_ops(TCase *tc)
{
	tcase_add_test(tc, test_read_write);
	tcase_add_test(tc, test_create_setattr);
	tcase_add_test(tc, test_namespace);
	tcase_add_test(tc, test_readdir);
	tcase_add_test(tc, test_fs);
}
