/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RPC reply header both ways, against libtirpc's own XDR (RFC 5531
 * section 9): the client's ct_decode (xprt_rdma/clnt_decode.c), which
 * reads the common header (accepted, AUTH_NONE verifier, SUCCESS) in
 * place and everything else through xdr_replymsg, and the server's
 * xprt_reply_encode (xprt_rdma/tirpc.c), which writes that header in
 * place; the server's callback CLIENT's xprt_reply_decode (tirpc.c) on
 * the same hostile replies. Every reply here is made by libtirpc's
 * xdr_replymsg, and every
 * reply the server side writes must be byte for byte what xdr_replymsg
 * writes: the fast paths may change the cost, never the outcome.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rpc/rpc.h>
#include <rpc/svc_auth.h>
#include <rpc/svc_mt.h>

#include "../../xprt_rdma/clnt.h"

#define XID 0x5a5a0001u
#define BUFSZ 16384

/* A reply as libtirpc encodes it: accepted (1) with stat (results res
 * of proc when SUCCESS, the version range when PROG_MISMATCH) and
 * verifier verf, or denied with AUTH_ERROR (0) or RPC_MISMATCH (-1). Its
 * length. */
static size_t make_reply(uint8_t *buf, uint32_t xid, int accepted,
			 enum accept_stat stat, struct opaque_auth verf,
			 xdrproc_t proc, void *res)
{
	struct rpc_msg m;
	XDR x;
	size_t len;

	memset(&m, 0, sizeof(m));
	m.rm_xid = xid;
	m.rm_direction = REPLY;
	if (accepted == 1) {
		m.rm_reply.rp_stat = MSG_ACCEPTED;
		m.acpted_rply.ar_verf = verf;
		m.acpted_rply.ar_stat = stat;
		if (stat == SUCCESS) {
			m.acpted_rply.ar_results.where = res;
			m.acpted_rply.ar_results.proc = proc;
		} else if (stat == PROG_MISMATCH) {
			m.acpted_rply.ar_vers.low = 2;
			m.acpted_rply.ar_vers.high = 3;
		}
	} else if (accepted == 0) {
		m.rm_reply.rp_stat = MSG_DENIED;
		m.rjcted_rply.rj_stat = AUTH_ERROR;
		m.rjcted_rply.rj_why = AUTH_BADCRED;
	} else {
		/* RPC_MISMATCH, the range a hostile peer's: its high version
		 * lies where an accepted reply's verifier pointer does. */
		m.rm_reply.rp_stat = MSG_DENIED;
		m.rjcted_rply.rj_stat = RPC_MISMATCH;
		m.rjcted_rply.rj_vers.low = 0x41414141;
		m.rjcted_rply.rj_vers.high = 0x42424242;
	}
	xdrmem_create(&x, (char *)buf, BUFSZ, XDR_ENCODE);
	ck_assert(xdr_replymsg(&x, &m));
	len = XDR_GETPOS(&x);
	XDR_DESTROY(&x);
	return len;
}

static struct opaque_auth none_verf(void)
{
	struct opaque_auth v = { AUTH_NONE, NULL, 0 };

	return v;
}

/* ---- the client: ct_decode ---- */

static struct ct *ct_new(AUTH *auth)
{
	struct ct *ct = calloc(1, sizeof(*ct));
	AUTH *none = authnone_create();

	ck_assert_ptr_nonnull(ct);
	ck_assert_ptr_nonnull(none);
	rpcrdma_opts_default(&ct->opts);
	ct->none_ops = none->ah_ops;
	ct->clnt.cl_auth = auth ? auth : none;
	pthread_mutex_init(&ct->auth_lock, NULL);
	return ct;
}

static void ct_del(struct ct *ct)
{
	if (ct->clnt.cl_auth->ah_ops != ct->none_ops)
		auth_destroy(ct->clnt.cl_auth);
	pthread_mutex_destroy(&ct->auth_lock);
	free(ct);
}

/* ct_decode of len bytes of buf as the reply to XID into an int. */
static enum clnt_stat decode_int(struct ct *ct, uint8_t *buf, size_t len,
				 int *out, struct rpc_err *err)
{
	struct ct_slot s;
	bool refresh = false;

	memset(&s, 0, sizeof(s));
	memset(err, 0, sizeof(*err));
	s.xid = XID;
	s.reply_buf = buf;
	s.reply_len = (uint32_t)len;
	*out = 0;
	return ct_decode(ct, &s, (xdrproc_t)xdr_int, out, err, &refresh);
}

/* The common reply, read in place: its results right after the header,
 * with libtirpc's AUTH_NONE and with AUTH_SYS (whose verifier check
 * takes the AUTH's lock). */
START_TEST(test_client_plain)
{
	static uint8_t buf[BUFSZ];
	AUTH *sys = authunix_create("host", 1000, 1000, 0, NULL);
	struct rpc_err err;
	int v = 0x12345678, got;
	size_t len;

	len = make_reply(buf, XID, 1, SUCCESS, none_verf(),
			 (xdrproc_t)xdr_int, &v);
	ck_assert_uint_eq(len, CT_REPLY_PLAIN_LEN + 4);
	for (int i = 0; i < 2; i++) {
		struct ct *ct = ct_new(i ? sys : NULL);

		ck_assert_int_eq(decode_int(ct, buf, len, &got, &err),
				 RPC_SUCCESS);
		ck_assert_int_eq(got, v);
		ct_del(ct);
	}
}
END_TEST

/* An AUTH that accepts only an AUTH_NONE verifier: what a verifier of
 * another flavour with no bytes must meet (never taken for AUTH_NONE's). */
static bool_t strict_validate(AUTH *a, struct opaque_auth *v)
{
	(void)a;
	return v->oa_flavor == AUTH_NONE;
}

static bool_t strict_unwrap(AUTH *a, XDR *x, xdrproc_t f, caddr_t p)
{
	(void)a;
	return (*f)(x, p);
}

static void strict_destroy(AUTH *a)
{
	(void)a;
}

static struct auth_ops strict_ops = {
	.ah_validate = strict_validate,
	.ah_unwrap = strict_unwrap,
	.ah_destroy = strict_destroy,
};

/* Not the common reply: the header goes through xdr_replymsg, and the
 * outcome is libtirpc's. */
START_TEST(test_client_other)
{
	static uint8_t buf[BUFSZ];
	uint8_t shorthand[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct opaque_auth sv = { AUTH_SHORT, (caddr_t)shorthand, 8 };
	struct ct *ct = ct_new(NULL);
	struct rpc_err err;
	int v = 77, got;
	size_t len;

	/* Another call's XID, the header otherwise the common one. */
	len = make_reply(buf, XID + 1, 1, SUCCESS, none_verf(),
			 (xdrproc_t)xdr_int, &v);
	ck_assert_int_eq(decode_int(ct, buf, len, &got, &err),
			 RPC_CANTDECODERES);
	/* A verifier with bytes: the results start after them. */
	len = make_reply(buf, XID, 1, SUCCESS, sv, (xdrproc_t)xdr_int, &v);
	ck_assert_uint_eq(len, CT_REPLY_PLAIN_LEN + 8 + 4);
	ck_assert_int_eq(decode_int(ct, buf, len, &got, &err), RPC_SUCCESS);
	ck_assert_int_eq(got, v);
	/* A verifier of another flavour with no bytes: the AUTH sees it. */
	{
		struct opaque_auth gv = { RPCSEC_GSS, NULL, 0 };
		AUTH strict;
		struct ct *sct;

		memset(&strict, 0, sizeof(strict));
		strict.ah_cred.oa_flavor = AUTH_SYS;
		strict.ah_ops = &strict_ops;
		sct = ct_new(&strict);
		len = make_reply(buf, XID, 1, SUCCESS, gv, (xdrproc_t)xdr_int,
				 &v);
		ck_assert_int_eq(decode_int(sct, buf, len, &got, &err),
				 RPC_AUTHERROR);
		ck_assert_int_eq(err.re_why, AUTH_INVALIDRESP);
		len = make_reply(buf, XID, 1, SUCCESS, none_verf(),
				 (xdrproc_t)xdr_int, &v);
		ck_assert_int_eq(decode_int(sct, buf, len, &got, &err),
				 RPC_SUCCESS);
		ck_assert_int_eq(got, v);
		ct_del(sct);
	}
	/* Cut short after a verifier with bytes: not decoded, and the
	 * verifier decoding allocated goes (LeakSanitizer in the ASan build;
	 * found by fuzzing ct_decode). */
	len = make_reply(buf, XID, 1, SUCCESS, sv, (xdrproc_t)xdr_int, &v);
	ck_assert_int_eq(decode_int(ct, buf, 5 * 4 + 8, &got, &err),
			 RPC_CANTDECODERES);
	/* Accepted, not SUCCESS. */
	len = make_reply(buf, XID, 1, PROG_UNAVAIL, none_verf(), NULL, NULL);
	ck_assert_int_eq(decode_int(ct, buf, len, &got, &err),
			 RPC_PROGUNAVAIL);
	len = make_reply(buf, XID, 1, GARBAGE_ARGS, none_verf(), NULL, NULL);
	ck_assert_int_eq(decode_int(ct, buf, len, &got, &err),
			 RPC_CANTDECODEARGS);
	len = make_reply(buf, XID, 1, PROG_MISMATCH, none_verf(), NULL, NULL);
	ck_assert_int_eq(decode_int(ct, buf, len, &got, &err),
			 RPC_PROGVERSMISMATCH);
	ck_assert_int_eq(err.re_vers.low, 2);
	ck_assert_int_eq(err.re_vers.high, 3);
	/* Denied. */
	len = make_reply(buf, XID, 0, SUCCESS, none_verf(), NULL, NULL);
	ck_assert_int_eq(decode_int(ct, buf, len, &got, &err), RPC_AUTHERROR);
	ck_assert_int_eq(err.re_why, AUTH_BADCRED);
	/* Denied for the RPC version: the range reported, nothing freed
	 * that the reply did not allocate (ASan and the free of a bad
	 * pointer catch it; found by fuzzing ct_decode). */
	len = make_reply(buf, XID, -1, SUCCESS, none_verf(), NULL, NULL);
	ck_assert_int_eq(decode_int(ct, buf, len, &got, &err),
			 RPC_VERSMISMATCH);
	ck_assert_uint_eq(err.re_vers.low, 0x41414141);
	ck_assert_uint_eq(err.re_vers.high, 0x42424242);
	/* The common header cut short, and its results missing. */
	len = make_reply(buf, XID, 1, SUCCESS, none_verf(),
			 (xdrproc_t)xdr_int, &v);
	ck_assert_int_eq(decode_int(ct, buf, CT_REPLY_PLAIN_LEN - 4, &got,
				    &err), RPC_CANTDECODERES);
	ck_assert_int_eq(decode_int(ct, buf, CT_REPLY_PLAIN_LEN, &got, &err),
			 RPC_CANTDECODERES);
	ct_del(ct);
}
END_TEST

/* The server's callback CLIENT (svc_bc.c): its whole reply, results
 * within xdr_replymsg, by xprt_reply_decode. The same hostile shapes as
 * the forward CLIENT's: an RPC_MISMATCH denial whose high version lies
 * where an accepted reply's verifier pointer does (freed as a pointer
 * before fd99cbb), a reply cut short after a verifier with bytes (that
 * verifier leaked), another XID, and the good reply around them. */
START_TEST(test_callback_decode)
{
	static uint8_t buf[BUFSZ];
	uint8_t shorthand[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct opaque_auth sv = { AUTH_SHORT, (caddr_t)shorthand, 8 };
	AUTH *none = authnone_create();
	struct rpc_err err;
	int v = 4242, got = 0;
	size_t len;

	len = make_reply(buf, XID, 1, SUCCESS, none_verf(),
			 (xdrproc_t)xdr_int, &v);
	ck_assert_int_eq(xprt_reply_decode(none, buf, (uint32_t)len, XID,
					   (xdrproc_t)xdr_int, &got, &err),
			 RPC_SUCCESS);
	ck_assert_int_eq(got, v);
	ck_assert_int_eq(xprt_reply_decode(none, buf, (uint32_t)len, XID + 1,
					   (xdrproc_t)xdr_int, &got, &err),
			 RPC_CANTDECODERES);
	len = make_reply(buf, XID, -1, SUCCESS, none_verf(), NULL, NULL);
	ck_assert_int_eq(xprt_reply_decode(none, buf, (uint32_t)len, XID,
					   (xdrproc_t)xdr_int, &got, &err),
			 RPC_VERSMISMATCH);
	ck_assert_uint_eq(err.re_vers.low, 0x41414141);
	ck_assert_uint_eq(err.re_vers.high, 0x42424242);
	len = make_reply(buf, XID, 0, SUCCESS, none_verf(), NULL, NULL);
	ck_assert_int_eq(xprt_reply_decode(none, buf, (uint32_t)len, XID,
					   (xdrproc_t)xdr_int, &got, &err),
			 RPC_AUTHERROR);
	ck_assert_int_eq(err.re_why, AUTH_BADCRED);
	len = make_reply(buf, XID, 1, SUCCESS, sv, (xdrproc_t)xdr_int, &v);
	ck_assert_int_eq(xprt_reply_decode(none, buf, 5 * 4 + 8, XID,
					   (xdrproc_t)xdr_int, &got, &err),
			 RPC_CANTDECODERES);
	/* With all its bytes: AUTH_NONE's validate takes any verifier. */
	got = 0;
	ck_assert_int_eq(xprt_reply_decode(none, buf, (uint32_t)len, XID,
					   (xdrproc_t)xdr_int, &got, &err),
			 RPC_SUCCESS);
	ck_assert_int_eq(got, v);
	len = make_reply(buf, XID, 1, PROG_UNAVAIL, none_verf(), NULL, NULL);
	ck_assert_int_eq(xprt_reply_decode(none, buf, (uint32_t)len, XID,
					   (xdrproc_t)xdr_int, &got, &err),
			 RPC_PROGUNAVAIL);
}
END_TEST

struct blob {
	char *p;
	u_int n;
};

static bool_t xdr_blob(XDR *x, struct blob *b)
{
	return xdr_bytes(x, &b->p, &b->n, 1 << 20);
}

/* The common header with results whose item came in a write chunk
 * (RFC 8166 section 3.4.6): read in place, then the item from the
 * chunk, the inline part holding only its length. */
START_TEST(test_client_plain_ddp)
{
	static uint8_t buf[BUFSZ];	/* make_reply's stream is BUFSZ */
	struct ct *ct = ct_new(NULL);
	struct rpc_err err;
	struct blob out = { NULL, 0 };
	struct ct_slot s;
	bool refresh = false;
	uint32_t n = htonl(8192);

	ck_assert_uint_eq(make_reply(buf, XID, 1, SUCCESS, none_verf(),
				     (xdrproc_t)(void (*)(void))xdr_void, NULL),
			  CT_REPLY_PLAIN_LEN);
	memcpy(buf + CT_REPLY_PLAIN_LEN, &n, 4);
	for (int i = 0; i < 8192; i++)
		buf[CT_REPLY_PLAIN_LEN + 4 + i] = (uint8_t)(i * 7);
	memset(&s, 0, sizeof(s));
	s.xid = XID;
	s.reply_buf = buf;
	s.reply_len = CT_REPLY_PLAIN_LEN + 4;
	s.nwrites = 1;
	s.wbase = CT_REPLY_PLAIN_LEN + 4;
	s.ddp_max = 8192;
	s.wlen[0] = 8192;
	ct->opts.ddp_threshold = 1024;
	ck_assert_int_eq(ct_decode(ct, &s, (xdrproc_t)xdr_blob, &out, &err,
				   &refresh), RPC_SUCCESS);
	ck_assert_uint_eq(out.n, 8192);
	ck_assert_mem_eq(out.p, buf + CT_REPLY_PLAIN_LEN + 4, 8192);
	free(out.p);
	/* An item the results do not take: not this call's reply. */
	s.wlen[0] = 4096;
	ck_assert_int_eq(ct_decode(ct, &s, (xdrproc_t)xdr_int, &n, &err,
				   &refresh), RPC_CANTDECODERES);
	ct_del(ct);
}
END_TEST

/* ---- the server: xprt_reply_encode ---- */

static bool_t wrap_plain(SVCAUTH *a, XDR *x, xdrproc_t f, caddr_t w)
{
	(void)a;
	return (*f)(x, w);
}

static bool_t unwrap_plain(SVCAUTH *a, XDR *x, xdrproc_t f, caddr_t w)
{
	(void)a;
	return (*f)(x, w);
}

static int destroy_none(SVCAUTH *a)
{
	(void)a;
	return 0;
}

static struct svc_auth_ops plain_ops = {
	.svc_ah_wrap = wrap_plain,
	.svc_ah_unwrap = unwrap_plain,
	.svc_ah_destroy = destroy_none,
};

/* msg encoded by xprt_reply_encode into an xdrmem stream, or the
 * library's growable one, is xdr_replymsg's encoding. */
static void check_same(struct rpc_msg *m, bool with_auth)
{
	static uint8_t want[BUFSZ], got[BUFSZ];
	SVCXPRT_EXT ext;
	SVCXPRT xprt;
	size_t wlen, glen;
	XDR x;

	memset(&ext, 0, sizeof(ext));
	memset(&xprt, 0, sizeof(xprt));
	ext.xp_auth.svc_ah_ops = with_auth ? &plain_ops : NULL;
	xprt.xp_p3 = &ext;
	xdrmem_create(&x, (char *)want, BUFSZ, XDR_ENCODE);
	ck_assert(xdr_replymsg(&x, m));
	wlen = XDR_GETPOS(&x);
	XDR_DESTROY(&x);

	xdrmem_create(&x, (char *)got, BUFSZ, XDR_ENCODE);
	ck_assert(xprt_reply_encode(&xprt, &x, m));
	glen = XDR_GETPOS(&x);
	XDR_DESTROY(&x);
	ck_assert_uint_eq(glen, wlen);
	ck_assert_mem_eq(got, want, wlen);

	ck_assert_int_eq(rpcrdma_xdrgrow_create(&x, 64, BUFSZ), 0);
	ck_assert(xprt_reply_encode(&xprt, &x, m));
	{
		uint8_t *p = rpcrdma_xdrgrow_buf(&x, &glen);

		ck_assert_uint_eq(glen, wlen);
		ck_assert_mem_eq(p, want, wlen);
	}
	rpcrdma_xdrgrow_destroy(&x);
}

/* The common reply to XID: accepted, AUTH_NONE verifier, SUCCESS, *v. */
static void common_reply(struct rpc_msg *m, int *v)
{
	memset(m, 0, sizeof(*m));
	m->rm_xid = XID;
	m->rm_direction = REPLY;
	m->rm_reply.rp_stat = MSG_ACCEPTED;
	m->acpted_rply.ar_verf = none_verf();
	m->acpted_rply.ar_stat = SUCCESS;
	m->acpted_rply.ar_results.where = (caddr_t)v;
	m->acpted_rply.ar_results.proc = (xdrproc_t)xdr_int;
}

START_TEST(test_server_same_bytes)
{
	uint8_t shorthand[8] = { 8, 7, 6, 5, 4, 3, 2, 1 };
	struct opaque_auth sv = { AUTH_SHORT, (caddr_t)shorthand, 8 };
	struct rpc_msg m;
	int v = 0x0badcafe;

	for (int a = 0; a < 2; a++) {
		common_reply(&m, &v);
		check_same(&m, a);	/* the common reply */
		ck_assert_ptr_eq(m.acpted_rply.ar_results.where, &v);
		m.acpted_rply.ar_verf = sv;
		check_same(&m, a);	/* a verifier with bytes */
		m.acpted_rply.ar_verf = none_verf();
		m.acpted_rply.ar_stat = PROG_MISMATCH;
		m.acpted_rply.ar_vers.low = 1;
		m.acpted_rply.ar_vers.high = 4;
		check_same(&m, a);
		m.acpted_rply.ar_stat = SYSTEM_ERR;
		check_same(&m, a);
		memset(&m.ru, 0, sizeof(m.ru));
		m.rm_reply.rp_stat = MSG_DENIED;
		m.rjcted_rply.rj_stat = RPC_MISMATCH;
		m.rjcted_rply.rj_vers.low = 2;
		m.rjcted_rply.rj_vers.high = 2;
		check_same(&m, a);
	}
}
END_TEST

/* What the server writes, the client reads: the common reply round
 * trip through both fast paths. */
START_TEST(test_round_trip)
{
	static uint8_t buf[BUFSZ];
	SVCXPRT_EXT ext;
	SVCXPRT xprt;
	struct rpc_msg m;
	struct rpc_err err;
	struct ct *ct = ct_new(NULL);
	int v = -5, got;
	XDR x;

	memset(&ext, 0, sizeof(ext));
	memset(&xprt, 0, sizeof(xprt));
	ext.xp_auth.svc_ah_ops = &plain_ops;
	xprt.xp_p3 = &ext;
	common_reply(&m, &v);
	xdrmem_create(&x, (char *)buf, BUFSZ, XDR_ENCODE);
	ck_assert(xprt_reply_encode(&xprt, &x, &m));
	ck_assert_int_eq(decode_int(ct, buf, XDR_GETPOS(&x), &got, &err),
			 RPC_SUCCESS);
	ck_assert_int_eq(got, v);
	XDR_DESTROY(&x);
	ct_del(ct);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("rpchdr");
	TCase *tc = tcase_create("rpchdr");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_client_plain);
	tcase_add_test(tc, test_client_other);
	tcase_add_test(tc, test_callback_decode);
	tcase_add_test(tc, test_client_plain_ddp);
	tcase_add_test(tc, test_server_same_bytes);
	tcase_add_test(tc, test_round_trip);
	suite_add_tcase(su, tc);
	sr = srunner_create(su);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
