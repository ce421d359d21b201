/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the client's decoding of an RPC reply
 * (xprt_rdma/clnt_decode.c ct_decode): the reply header of RFC 5531
 * section 9 read in place or by xdr_replymsg, the verifier checked and
 * freed, the results (an opaque of up to 4 KiB) decoded through the
 * AUTH, in part from a write chunk (direct data placement).
 *
 * The input's first byte chooses: bit 0 the AUTH (libtirpc's AUTH_NONE,
 * read in place, or AUTH_SYS, which takes the lock); bit 1 an XID that
 * is not the reply's; bit 2 one write chunk offered, of 16 times the
 * second byte's bytes, which the responder filled. The rest is the
 * reply, as the slot holds it.
 *
 * Beyond "no crash, no leak": ct_decode's status is the one it puts in
 * the rpc_err; a reply to another XID never succeeds; decoded results
 * are never longer than their XDR bound. A denial's fields, which lie
 * where an accepted reply's verifier pointer does, are never freed as a
 * pointer (the bug fd99cbb fixed): ASan reports that free.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xprt_rdma/clnt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RES_MAX	4096u

struct res {
	char *p;
	u_int n;
};

static bool_t xdr_res(XDR *x, struct res *r)
{
	return xdr_bytes(x, &r->p, &r->n, RES_MAX);
}

static struct ct *ct_new(void)
{
	struct ct *ct = calloc(1, sizeof(*ct));

	if (!ct)
		abort();
	/* The one option ct_decode reads: the smallest item a write chunk
	 * carries (its default). */
	ct->opts.ddp_threshold = RPCRDMA_DDP_THRESHOLD;
	/* What clnt_rdma.c records at creation: libtirpc's AUTH_NONE
	 * operations, for the in-place path. */
	ct->clnt.cl_auth = authnone_create();
	ct->none_ops = ct->clnt.cl_auth->ah_ops;
	pthread_mutex_init(&ct->auth_lock, NULL);
	return ct;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ct *ct;
	static AUTH *none, *sys;
	struct res r = { NULL, 0 };
	struct rpc_err err;
	struct ct_slot s;
	enum clnt_stat st;
	bool refresh = false, other_xid, ddp;
	uint32_t wire_xid = 0, wlen;
	size_t room;

	if (!ct) {
		ct = ct_new();
		none = ct->clnt.cl_auth;
		sys = authunix_create("fuzz", 1, 1, 0, NULL);
		if (!sys)
			abort();
	}
	if (size < 2)
		return 0;
	ct->clnt.cl_auth = (data[0] & 1) ? sys : none;
	other_xid = data[0] & 2;
	ddp = data[0] & 4;
	wlen = ddp ? 16u * data[1] : 0;
	data += 2;
	size -= 2;

	memset(&s, 0, sizeof(s));
	memset(&err, 0, sizeof(err));
	if (size >= 4)
		memcpy(&wire_xid, data, 4);
	s.xid = ntohl(wire_xid) + (other_xid ? 1 : 0);
	s.reply_len = (uint32_t)size;
	/* The slot's buffer: the reply, then the write chunk behind it
	 * (slot_write_area), as clnt_slot.c lays them out. */
	s.ddp_max = RES_MAX;
	s.wbase = rpcrdma_xdr_roundup((uint32_t)size);
	room = s.wbase + (ddp ? rpcrdma_xdr_roundup(s.ddp_max) : 0);
	s.reply_buf = malloc(room ? room : 1);
	if (!s.reply_buf)
		abort();
	memcpy(s.reply_buf, data, size);
	if (ddp) {
		s.nwrites = 1;
		s.wlen[0] = wlen;
		memset(slot_write_area(&s, 0), 0xab, wlen);
	}

	st = ct_decode(ct, &s, (xdrproc_t)xdr_res, &r, &err, &refresh);
	if (st != err.re_status)
		abort();
	if (st == RPC_SUCCESS) {
		if (other_xid || r.n > RES_MAX)
			abort();
	} else if (r.p) {
		/* A failed decode leaves nothing for the caller to free
		 * (libtirpc's callers free nothing after a failure). */
		abort();
	}
	free(r.p);
	free(s.reply_buf);
	return 0;
}
