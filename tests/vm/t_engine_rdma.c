/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RDMA tests of t_engine's "data" case: test_read_write (1 MiB each
 * way in uneven segments), test_xfer_deferred (transfers larger than the
 * send queue and the read window), test_bad_rkey, test_dereg_failure and
 * test_xfer_dereg_failure (with this program's ibv_dereg_mr, which can
 * refuse once) and test_write_with_imm.
 */
#define _GNU_SOURCE	/* dlvsym, RTLD_NEXT */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/ep_int.h"
#include "ep_sync.h"
#include "t_engine.h"


/* ---- RDMA Read and Write ---- */

#define MIB (1u << 20)

START_TEST(test_read_write)
{
	struct rpcrdma_ep_opts co = mkopts(4096, 4096, 8, true);
	struct rpcrdma_ep_opts so = mkopts(4096, 4096, 8, true);
	/* 1 MiB in four uneven segments: 100000 + 300000 + 524288 + 124288
	 * = 1048576. */
	static const uint32_t seglen[4] = { 100000, 300000, 524288, 124288 };
	struct rpcrdma_segment segs[4];
	struct rpcrdma_mr *mr;
	struct rpcrdma_ep *cep;
	uint32_t written[4];
	uint8_t *cbuf, *sbuf;
	uint64_t off, r0, w0;
	uint32_t i;
	struct srv s;

	pair_connect(&co, &so, &s, &cep);
	cbuf = malloc(MIB);
	sbuf = malloc(MIB + 64);
	ck_assert_ptr_nonnull(cbuf);
	ck_assert_ptr_nonnull(sbuf);

	/* Client exposes 1 MiB for remote read (a long call's chunk). */
	for (i = 0; i < MIB; i++)
		cbuf[i] = (uint8_t)(i * 13u + (i >> 16));
	ck_assert_int_eq(rpcrdma_ep_reg(cep, cbuf, MIB,
					RPCRDMA_ACCESS_REMOTE_READ, &mr), 0);
	for (i = 0, off = 0; i < 4; i++) {
		segs[i].handle = rpcrdma_mr_rkey(mr);
		segs[i].length = seglen[i];
		segs[i].offset = (uint64_t)(uintptr_t)cbuf + off;
		off += seglen[i];
	}
	ck_assert_uint_eq(off, MIB);
	r0 = rpcrdma_ep_stats(s.ep)->rdma_read_bytes;
	memset(sbuf, 0xee, MIB + 64);
	/* Too small a buffer for the segments. */
	ck_assert_int_eq(rpcrdma_ep_read(s.ep, sbuf, MIB - 1, segs, 4,
					 T_TIMEOUT_MS), -EMSGSIZE);
	ck_assert_int_eq(rpcrdma_ep_read(s.ep, sbuf, MIB + 64, segs, 4,
					 30000), 0);
	ck_assert_mem_eq(sbuf, cbuf, MIB);
	for (i = 0; i < 64 && sbuf[MIB + i] == 0xee; i++)
		;
	ck_assert_uint_eq(i, 64);
	ck_assert_uint_eq(rpcrdma_ep_stats(s.ep)->rdma_read_bytes - r0, MIB);
	rpcrdma_mr_dereg(mr);

	/* Client exposes 1 MiB for remote write (a reply chunk); the server
	 * writes 1 MiB - 1000 bytes: the segments fill in order, the last
	 * one gets 124288 - 1000 = 123288. */
	memset(cbuf, 0, MIB);
	ck_assert_int_eq(rpcrdma_ep_reg(cep, cbuf, MIB,
					RPCRDMA_ACCESS_REMOTE_WRITE, &mr), 0);
	for (i = 0; i < 4; i++)
		segs[i].handle = rpcrdma_mr_rkey(mr);
	for (i = 0; i < MIB; i++)
		sbuf[i] = (uint8_t)(i * 7u + 3u);
	w0 = rpcrdma_ep_stats(s.ep)->rdma_write_bytes;
	ck_assert_int_eq(rpcrdma_ep_write(s.ep, sbuf, MIB + 1, segs, 4,
					  written, T_TIMEOUT_MS), -EMSGSIZE);
	ck_assert_int_eq(rpcrdma_ep_write(s.ep, sbuf, MIB - 1000, segs, 4,
					  written, 30000), 0);
	ck_assert_uint_eq(written[0], 100000);
	ck_assert_uint_eq(written[1], 300000);
	ck_assert_uint_eq(written[2], 524288);
	ck_assert_uint_eq(written[3], 123288);
	ck_assert_mem_eq(cbuf, sbuf, MIB - 1000);
	for (i = MIB - 1000; i < MIB && cbuf[i] == 0; i++)
		;
	ck_assert_uint_eq(i, MIB);
	ck_assert_uint_eq(rpcrdma_ep_stats(s.ep)->rdma_write_bytes - w0,
			  MIB - 1000);
	rpcrdma_mr_dereg(mr);

	/* The connection is still good for messages. */
	{
		uint8_t b[16] = "after rdma ops";
		struct iovec iov = { b, sizeof(b) };
		struct rpcrdma_rx rx;

		ck_assert_int_eq(rpcrdma_ep_send(s.ep, &iov, 1, 0), 0);
		ck_assert_int_eq(rpcrdma_ep_poll(cep, &rx, T_TIMEOUT_MS), 1);
		ck_assert_uint_eq(rx.len, sizeof(b));
		ck_assert_mem_eq(rx.data, b, sizeof(b));
		rpcrdma_ep_rx_done(cep, &rx);
	}
	free(cbuf);
	free(sbuf);
	pair_destroy(&s, cep);
}
END_TEST

/* Waits for the server endpoint's next finished transfer. */
static struct rpcrdma_xfer *xfer_wait(struct rpcrdma_ep *ep)
{
	uint64_t end = now_ms() + T_TIMEOUT_MS;
	struct rpcrdma_xfer *x;

	while (!(x = rpcrdma_ep_xfer_done(ep)) && now_ms() < end)
		usleep(1000);
	return x;
}

/*
 * Completion-driven transfers (xfer.c) larger than the send queue and the
 * read window: 1 credit gives a send queue of 19 work requests, and 96
 * segments of 4 KiB need 96 RDMA Writes and a Send, or 96 RDMA Reads
 * with at most the agreed initiator depth (16 at most) in flight.
 * xfer_start never waits: what does not fit is posted, in order, as
 * completions make room (counted in xfers_deferred); every byte lands
 * where it belongs, and when the Send has arrived the Writes' data is in
 * place (RC order), and the read window was filled, never overfilled.
 */
START_TEST(test_xfer_deferred)
{
	enum { NSEG = 96, SEG = 4096 };
	struct rpcrdma_ep_opts co = mkopts(4096, 4096, 1, true);
	struct rpcrdma_ep_opts so = mkopts(4096, 4096, 1, true);
	static struct rpcrdma_segment segs[NSEG];
	uint8_t hdr[8] = "written", *cbuf, *sbuf;
	struct rpcrdma_xfer x, *done;
	struct rpcrdma_mr *mr;
	struct rpcrdma_ep *cep;
	struct rpcrdma_rx rx;
	uint64_t d0;
	uint32_t i;
	struct srv s;

	pair_connect(&co, &so, &s, &cep);
	cbuf = calloc(NSEG, SEG);
	sbuf = malloc((size_t)NSEG * SEG);
	ck_assert_ptr_nonnull(cbuf);
	ck_assert_ptr_nonnull(sbuf);
	ck_assert_int_eq(rpcrdma_ep_reg(cep, cbuf, (size_t)NSEG * SEG,
					RPCRDMA_ACCESS_REMOTE_WRITE, &mr), 0);
	/* The segments in reverse order of the client's memory. */
	for (i = 0; i < NSEG; i++) {
		segs[i].handle = rpcrdma_mr_rkey(mr);
		segs[i].length = SEG;
		segs[i].offset = (uint64_t)(uintptr_t)cbuf +
				 (uint64_t)(NSEG - 1 - i) * SEG;
	}
	for (i = 0; i < NSEG * SEG; i++)
		sbuf[i] = (uint8_t)(i * 31u + (i >> 12));
	d0 = rpcrdma_ep_stats(s.ep)->xfers_deferred;

	memset(&x, 0, sizeof(x));
	x.local = sbuf;
	x.len = (uint64_t)NSEG * SEG;
	x.segs = segs;
	x.nsegs = NSEG;
	x.send[0].iov_base = hdr;
	x.send[0].iov_len = sizeof(hdr);
	x.send_cnt = 1;
	ck_assert_int_eq(rpcrdma_ep_xfer_start(s.ep, &x), 0);
	ck_assert_uint_eq(rpcrdma_ep_stats(s.ep)->xfers_deferred, d0 + 1);
	/* Reaping the server's completions posts the rest. */
	done = xfer_wait(s.ep);
	ck_assert_ptr_eq(done, &x);
	ck_assert_int_eq(x.status, 0);
	/* The Send arrived: every Write's data is there. */
	ck_assert_int_eq(rpcrdma_ep_poll(cep, &rx, T_TIMEOUT_MS), 1);
	ck_assert_mem_eq(rx.data, hdr, sizeof(hdr));
	for (i = 0; i < NSEG; i++)
		ck_assert_mem_eq(cbuf + (size_t)(NSEG - 1 - i) * SEG,
				 sbuf + (size_t)i * SEG, SEG);
	rpcrdma_ep_rx_done(cep, &rx);

	/* And back by RDMA Read, past the read window. */
	rpcrdma_mr_dereg(mr);
	ck_assert_int_eq(rpcrdma_ep_reg(cep, cbuf, (size_t)NSEG * SEG,
					RPCRDMA_ACCESS_REMOTE_READ, &mr), 0);
	for (i = 0; i < NSEG; i++)
		segs[i].handle = rpcrdma_mr_rkey(mr);
	memset(sbuf, 0, (size_t)NSEG * SEG);
	memset(&x, 0, sizeof(x));
	x.read = true;
	x.local = sbuf;
	x.len = (uint64_t)NSEG * SEG;
	x.segs = segs;
	x.nsegs = NSEG;
	ck_assert_int_eq(rpcrdma_ep_xfer_start(s.ep, &x), 0);
	ck_assert_uint_eq(rpcrdma_ep_stats(s.ep)->xfers_deferred, d0 + 2);
	done = xfer_wait(s.ep);
	ck_assert_ptr_eq(done, &x);
	ck_assert_int_eq(x.status, 0);
	for (i = 0; i < NSEG; i++)
		ck_assert_mem_eq(sbuf + (size_t)i * SEG,
				 cbuf + (size_t)(NSEG - 1 - i) * SEG, SEG);
	{
		uint32_t depth = s.ep->initiator_depth ? s.ep->initiator_depth
						       : 1;

		if (depth > EP_MAX_RD_WINDOW)
			depth = EP_MAX_RD_WINDOW;
		ck_assert_uint_eq(rpcrdma_ep_stats(s.ep)->reads_inflight_peak,
				  depth);
	}
	rpcrdma_mr_dereg(mr);
	free(cbuf);
	free(sbuf);
	pair_destroy(&s, cep);
}
END_TEST

/* An RDMA Read with a key the peer never issued: the peer NAKs it
 * (remote access error), the read fails, both QPs go to error and both
 * endpoints report the connection gone. */
START_TEST(test_bad_rkey)
{
	struct rpcrdma_ep_opts o = mkopts(4096, 4096, 8, true);
	struct rpcrdma_segment seg;
	struct rpcrdma_mr *mr;
	struct rpcrdma_ep *cep;
	struct rpcrdma_rx rx;
	static uint8_t cbuf[8192], sbuf[8192];
	struct srv s;
	int ret;

	pair_connect(&o, &o, &s, &cep);
	/* Registered for remote write only: reading it is refused too.
	 * Not on siw, which serves Reads of any valid STag (siw_qp_tx.c
	 * checks no remote access for a Read Response: docs/conformance.md);
	 * there the key is one deregistered, never valid again. */
	ck_assert_int_eq(rpcrdma_ep_reg(cep, cbuf, sizeof(cbuf),
					RPCRDMA_ACCESS_REMOTE_WRITE, &mr), 0);
	if (cep_iwarp(cep)) {
		uint32_t dead = rpcrdma_mr_rkey(mr);

		rpcrdma_mr_dereg(mr);
		ck_assert_int_eq(rpcrdma_ep_reg(cep, sbuf, sizeof(sbuf),
						RPCRDMA_ACCESS_REMOTE_READ,
						&mr), 0);
		ck_assert_uint_ne(rpcrdma_mr_rkey(mr), dead);
		seg.handle = dead;
	} else {
		seg.handle = rpcrdma_mr_rkey(mr);
	}
	seg.length = sizeof(cbuf);
	seg.offset = (uint64_t)(uintptr_t)cbuf;
	ret = rpcrdma_ep_read(s.ep, sbuf, sizeof(sbuf), &seg, 1, T_TIMEOUT_MS);
	/* iWARP: the peer answers with a TERMINATE, which flushes the Read
	 * (RFC 5040 section 4.8). */
	ck_assert_msg(ret == -EACCES || ret == -EIO ||
		      (cep_iwarp(cep) && ret == -ENOTCONN), "read: %d", ret);
	ck_assert(!rpcrdma_ep_connected(s.ep));
	ck_assert_int_eq(rpcrdma_ep_poll(s.ep, &rx, T_TIMEOUT_MS), -ENOTCONN);
	ck_assert_int_eq(rpcrdma_ep_poll(cep, &rx, T_TIMEOUT_MS), -ENOTCONN);
	ck_assert_int_eq(rpcrdma_ep_read(s.ep, sbuf, sizeof(sbuf), &seg, 1,
					 T_TIMEOUT_MS),
			 cep_iwarp(cep) ? -ENOTCONN : -EACCES);
	rpcrdma_mr_dereg(mr);
	pair_destroy(&s, cep);
}
END_TEST

/*
 * ibv_dereg_mr as the library reaches it: the provider's, or, once
 * fail_dereg is set, a refusal (the test's own definition interposes on
 * librpcrdma's calls).
 */
static atomic_bool fail_dereg;
static struct ibv_mr *refused_mr;	/* the test drops it itself */

static int real_dereg_mr(struct ibv_mr *mr)
{
	static int (*real)(struct ibv_mr *);

	if (!real)
		real = (int (*)(struct ibv_mr *))(void (*)(void))dlvsym(
			RTLD_NEXT, "ibv_dereg_mr", "IBVERBS_1.1");
	return real ? real(mr) : ENOSYS;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	if (atomic_exchange(&fail_dereg, false)) {
		refused_mr = mr;
		return EBUSY;
	}
	return real_dereg_mr(mr);
}

/* buf[0, len) filled with fill and registered on ep for the peer's RDMA
 * Reads; *seg names it. */
static struct rpcrdma_mr *expose_read(struct rpcrdma_ep *ep, uint8_t *buf,
				      size_t len, uint8_t fill,
				      struct rpcrdma_segment *seg)
{
	struct rpcrdma_mr *mr;

	memset(buf, fill, len);
	ck_assert_int_eq(rpcrdma_ep_reg(ep, buf, len,
					RPCRDMA_ACCESS_REMOTE_READ, &mr), 0);
	seg->handle = rpcrdma_mr_rkey(mr);
	seg->length = (uint32_t)len;
	seg->offset = (uint64_t)(uintptr_t)buf;
	return mr;
}

/*
 * A registration the provider will not drop keeps answering its rkey
 * while its memory goes back to its owner (security review 11): the
 * endpoint closes at once, counts it, and the peer's RDMA Read with that
 * rkey, which worked a moment before, fails.
 */
START_TEST(test_dereg_failure)
{
	struct rpcrdma_ep_opts o = mkopts(4096, 4096, 8, true);
	struct rpcrdma_segment seg;
	struct rpcrdma_mr *mr;
	struct rpcrdma_ep *cep;
	static uint8_t cbuf[8192], sbuf[8192];
	struct srv s;
	int ret;

	pair_connect(&o, &o, &s, &cep);
	mr = expose_read(cep, cbuf, sizeof(cbuf), 0x3c, &seg);
	ck_assert_int_eq(rpcrdma_ep_read(s.ep, sbuf, sizeof(sbuf), &seg, 1,
					 T_TIMEOUT_MS), 0);
	ck_assert_uint_eq(sbuf[100], 0x3c);
	atomic_store(&fail_dereg, true);
	rpcrdma_mr_dereg(mr);
	ck_assert(!atomic_load(&fail_dereg));	/* it was called */
	ck_assert(!rpcrdma_ep_connected(cep));
	ck_assert_uint_eq(rpcrdma_ep_stats(cep)->dereg_failures, 1);
	ret = rpcrdma_ep_read(s.ep, sbuf, sizeof(sbuf), &seg, 1, T_TIMEOUT_MS);
	ck_assert_msg(ret != 0, "the rkey still reached the memory");
	/* What the library leaked on purpose goes now (LeakSanitizer). */
	ck_assert_int_eq(real_dereg_mr(refused_mr), 0);
	pair_destroy(&s, cep);
}
END_TEST

/*
 * The same for a transfer's own registration (security review 21c8dd5,
 * finding 10): the server's RDMA Read sink, registered by
 * rpcrdma_ep_xfer_start for that transfer alone, would not deregister
 * when the Read is done. On iWARP the sink is registered for remote write
 * and the client learned its STag from the Read Request (ep_sink_access),
 * so it would keep a way into memory the server reuses; the engine
 * registers the sink on every provider, so the test runs on rxe and siw
 * alike. The Read itself succeeded, but the server's endpoint closes at
 * once (DEREG, dereg_failures 1, its QP in error) and the client is told.
 */
START_TEST(test_xfer_dereg_failure)
{
	struct rpcrdma_ep_opts o = mkopts(4096, 4096, 8, true);
	/* Over four inline buffers: a smaller Read lands in the endpoint's
	 * read buffers (xfer.c) and registers no sink. */
	static uint8_t cbuf[20480], sbuf[20480];
	struct rpcrdma_xfer x, *done;
	struct rpcrdma_segment seg;
	struct rpcrdma_mr *mr;
	struct rpcrdma_ep *cep;
	struct rpcrdma_rx rx;
	struct srv s;

	pair_connect(&o, &o, &s, &cep);
	mr = expose_read(cep, cbuf, sizeof(cbuf), 0x5c, &seg);
	memset(sbuf, 0, sizeof(sbuf));
	memset(&x, 0, sizeof(x));
	x.read = true;
	x.local = sbuf;
	x.len = sizeof(sbuf);
	x.segs = &seg;
	x.nsegs = 1;
	refused_mr = NULL;
	ck_assert_int_eq(rpcrdma_ep_xfer_start(s.ep, &x), 0);
	/* The sink's registration, dropped when the Read's completion is
	 * reaped (never by start itself): that one is refused. */
	ck_assert_ptr_nonnull(x.mr);
	atomic_store(&fail_dereg, true);
	done = xfer_wait(s.ep);
	ck_assert_ptr_eq(done, &x);
	ck_assert(!atomic_load(&fail_dereg));	/* it was called */
	ck_assert_ptr_nonnull(refused_mr);
	ck_assert_int_eq(x.status, 0);
	ck_assert_uint_eq(sbuf[100], 0x5c);
	ck_assert(!rpcrdma_ep_connected(s.ep));
	ck_assert_int_eq(rpcrdma_ep_why(s.ep), RPCRDMA_CLOSE_DEREG);
	ck_assert_uint_eq(rpcrdma_ep_stats(s.ep)->dereg_failures, 1);
	ck_assert_int_eq(rpcrdma_ep_poll(s.ep, &rx, T_TIMEOUT_MS), -ENOTCONN);
	ck_assert_int_eq(rpcrdma_ep_poll(cep, &rx, T_TIMEOUT_MS), -ENOTCONN);
	/* What the library leaked on purpose goes now (before its PD). */
	ck_assert_int_eq(real_dereg_mr(refused_mr), 0);
	rpcrdma_mr_dereg(mr);
	pair_destroy(&s, cep);
}
END_TEST

/*
 * An RDMA Write with Immediate consumes a posted receive; RPC-over-RDMA
 * never sends one, and the receive's buffer then holds no message (stale
 * bytes of an earlier one). The endpoint must not hand it up as a
 * message: it counts a bad header and goes down.
 */
START_TEST(test_write_with_imm)
{
	struct rpcrdma_ep_opts o = mkopts(4096, 4096, 8, true);
	static uint8_t cbuf[4096], sbuf[64];
	struct ibv_send_wr wr, *bad;
	struct rpcrdma_mr *mr;
	struct rpcrdma_ep *cep;
	struct rpcrdma_rx rx;
	struct ibv_mr *smr;
	struct ibv_sge sge;
	struct srv s;
	uint64_t before;

	pair_connect(&o, &o, &s, &cep);
	ck_assert_int_eq(rpcrdma_ep_reg(cep, cbuf, sizeof(cbuf),
					RPCRDMA_ACCESS_REMOTE_WRITE, &mr), 0);
	smr = ibv_reg_mr(s.ep->pd, sbuf, sizeof(sbuf), 0);
	ck_assert_ptr_nonnull(smr);
	memset(sbuf, 0x5a, sizeof(sbuf));
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uint64_t)(uintptr_t)sbuf;
	sge.length = sizeof(sbuf);
	sge.lkey = smr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htonl(7);
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)cbuf;
	wr.wr.rdma.rkey = rpcrdma_mr_rkey(mr);
	before = rpcrdma_ep_stats(cep)->bad_headers;
	pthread_mutex_lock(&s.ep->lock);
	if (cep_iwarp(s.ep)) {
		/* iWARP has no immediate data (RFC 5040 defines none): no
		 * peer can send one; the provider refuses to post it. */
		ck_assert_int_ne(ibv_post_send(s.ep->qp, &wr, &bad), 0);
		pthread_mutex_unlock(&s.ep->lock);
		ck_assert(rpcrdma_ep_connected(cep));
		rpcrdma_mr_dereg(mr);
		ibv_dereg_mr(smr);
		pair_destroy(&s, cep);
		return;
	}
	ck_assert_int_eq(ibv_post_send(s.ep->qp, &wr, &bad), 0);
	pthread_mutex_unlock(&s.ep->lock);
	ck_assert_int_eq(rpcrdma_ep_poll(cep, &rx, T_TIMEOUT_MS), -ENOTCONN);
	ck_assert_uint_eq(rpcrdma_ep_stats(cep)->bad_headers - before, 1);
	ck_assert(!rpcrdma_ep_connected(cep));
	rpcrdma_mr_dereg(mr);
	ibv_dereg_mr(smr);	/* before its endpoint's PD goes */
	pair_destroy(&s, cep);
}
END_TEST

/* The RDMA tests of the "data" case, in their order there. */
void t_engine_add_rdma(TCase *tc)
{
	tcase_add_test(tc, test_read_write);
	tcase_add_test(tc, test_xfer_deferred);
	tcase_add_test(tc, test_bad_rkey);
	tcase_add_test(tc, test_dereg_failure);
	tcase_add_test(tc, test_xfer_dereg_failure);
	tcase_add_test(tc, test_write_with_imm);
}
