/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the responder's decision on one received message
 * (lib/recv.c rpcrdma_rsp_recv, which xprt_rdma/svc_recv.c call_take
 * carries out). The input's first 8 bytes are the connection: max_msg
 * (4 bytes, big-endian, or a bound taken from the message: exactly what
 * it reads or rebuilds, one less), whether the client accepts RDMA
 * Reads, the decoder's limits; the rest is the message, read where it
 * lies (ASan sees a byte past it).
 *
 * Beyond "no crash": the decision agrees with rpcrdma_hdr_decode's
 * verdict (a refused header is dropped or answered with its code, never
 * read or dispatched; a message shorter than 28 bytes, or with an
 * RDMA_ERROR's procedure, never answered: RFC 8166 sections 4.2 and 5);
 * a decoded RDMA_ERROR is counted, never answered; an inline part is the
 * bytes after the header, never outside the input; GARBAGE_ARGS only for
 * an RDMA_MSG whose chunks do not splice (section 4.5.2); a read total is
 * the read list's sum, within 1..max_msg, and the Reads it asks for,
 * done into a buffer of that size, rebuild a call of at most max_msg;
 * the bound is exact: one byte less of max_msg refuses the read.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/hdr.h>
#include <rpcrdma/splice.h>

#include "lib/chunks.h"
#include "lib/recv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PREFIX	8u
#define RD_MAX	(1u << 16)	/* reads done for real up to this */

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* What the read chunks of a decoded call read and rebuild (the rebuilt
 * length 0 when they do not splice), from lengths alone. */
static void sizes(const struct rpcrdma_msg *m, const uint8_t *msg,
		  size_t msg_len, uint64_t *total, size_t *need)
{
	struct rpcrdma_piece p[RPCRDMA_MAX_READ_SEGS];
	const uint8_t *inl;
	size_t inl_len;
	uint32_t np;

	*total = 0;
	*need = 0;
	for (uint32_t i = 0; i < m->nreads; i++)
		*total += m->reads[i].seg.length;
	if (rpcrdma_call_read_pieces(m, msg, msg_len, NULL, p, &np, &inl,
				     &inl_len))
		return;
	*need = np ? rpcrdma_splice_len(inl_len, p, np) : inl_len;
}

/* The Reads a READ asks for, done into a buffer of exactly read_total
 * bytes, and the call rebuilt from them as svc_recv.c does. */
static void check_reads(const struct rpcrdma_msg *m, const uint8_t *msg,
			size_t msg_len, uint64_t total, uint32_t max_msg)
{
	struct rpcrdma_piece p[RPCRDMA_MAX_READ_SEGS];
	static uint8_t out[2 * RD_MAX + 8192];
	const uint8_t *inl;
	size_t inl_len, need, got = 0;
	uint8_t *rd;
	uint32_t np;

	if (total > RD_MAX)
		return;
	rd = malloc((size_t)total);
	if (!rd)
		abort();
	memset(rd, 0x5a, (size_t)total);
	if (rpcrdma_call_read_pieces(m, msg, msg_len, rd, p, &np, &inl,
				     &inl_len))
		abort();
	need = np ? rpcrdma_splice_len(inl_len, p, np) : inl_len;
	if (need > max_msg || (np && need == 0))
		abort();
	if (np) {
		if (need > sizeof(out) ||
		    rpcrdma_splice(inl, inl_len, p, np, out, need, &got) ||
		    got != need)
			abort();
	} else if (inl != rd || inl_len != total) {
		abort();
	}
	free(rd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rpcrdma_msg m, m2;
	struct rpcrdma_rsp_verdict v, w;
	struct rpcrdma_limits lim;
	const uint8_t *msg;
	enum rpcrdma_hdr_err herr;
	size_t len, hlen = 0, need;
	uint32_t max_msg;
	uint64_t total;
	bool can_read;

	if (size < PREFIX)
		return 0;
	msg = data + PREFIX;
	len = size - PREFIX;
	can_read = !(data[4] & 1);
	rpcrdma_limits_default(&lim);
	if (data[4] & 8)
		lim.max_chunk_bytes = UINT64_MAX;
	if (data[5])
		lim.max_read_segs = data[5];
	if (data[6])
		lim.max_chunk_segs = data[6];
	if (data[7])
		lim.max_write_chunks = data[7];

	herr = rpcrdma_hdr_decode(msg, len, &lim, &m2, &hlen);
	/* max_msg: the input's, or exactly what this message reads or
	 * rebuilds, or one less. */
	max_msg = be32(data);
	if (herr == RPCRDMA_HDR_OK && (data[4] & 6)) {
		sizes(&m2, msg + hlen, len - hlen, &total, &need);
		if ((data[4] & 6) == 2)
			max_msg = total > UINT32_MAX ? UINT32_MAX
						     : (uint32_t)total;
		else if ((data[4] & 6) == 4)
			max_msg = need > UINT32_MAX ? UINT32_MAX
						    : (uint32_t)need;
		else if (total && total <= (uint64_t)UINT32_MAX + 1)
			max_msg = (uint32_t)(total - 1);
	}

	if (rpcrdma_rsp_recv(msg, len, &lim, max_msg, can_read, &m, &v) !=
	    v.action)
		abort();
	if (v.herr != herr)
		abort();

	/* Never an offset or a length outside the input. */
	if (v.action == RPCRDMA_RSP_INLINE || v.action == RPCRDMA_RSP_GARBAGE) {
		if (v.off != v.hlen || v.off > len || v.len != len - v.off)
			abort();
	}

	if (herr != RPCRDMA_HDR_OK) {
		/* Refused: dropped, or answered with its code from 28
		 * bytes on, never an RDMA_ERROR answered. */
		if (v.action == RPCRDMA_RSP_ANSWER) {
			if (len < RPCRDMA_HDR_MIN ||
			    be32(msg + 12) == RPCRDMA_ERROR ||
			    v.err != rpcrdma_hdr_err_to_wire(herr))
				abort();
		} else if (v.action != RPCRDMA_RSP_DROP ||
			   (len >= RPCRDMA_HDR_MIN &&
			    be32(msg + 12) != RPCRDMA_ERROR)) {
			abort();
		}
		return 0;
	}

	if (v.hlen != hlen || m.proc != m2.proc || m.nreads != m2.nreads)
		abort();
	switch (v.action) {
	case RPCRDMA_RSP_DROP:
		abort();	/* the decoder knows only calls and errors */
	case RPCRDMA_RSP_ERROR_IN:
		if (m.proc != RPCRDMA_ERROR)
			abort();
		return 0;
	case RPCRDMA_RSP_ANSWER:
		if (m.proc == RPCRDMA_ERROR || v.err != RPCRDMA_ERR_CHUNK)
			abort();
		break;
	case RPCRDMA_RSP_INLINE:
		if (m.proc != RPCRDMA_MSG || m.nreads)
			abort();
		return 0;
	case RPCRDMA_RSP_GARBAGE:
		if (m.proc != RPCRDMA_MSG || !m.nreads || !can_read)
			abort();
		break;
	case RPCRDMA_RSP_READ:
		break;
	default:
		abort();
	}

	sizes(&m, msg + hlen, len - hlen, &total, &need);
	if (v.action == RPCRDMA_RSP_GARBAGE && need != 0)
		abort();
	if (v.action == RPCRDMA_RSP_ANSWER && m.nreads && can_read &&
	    total && total <= max_msg && need && need <= max_msg &&
	    (m.proc == RPCRDMA_MSG || m.reads[0].position == 0))
		abort();	/* refused a call that reads and fits */
	if (v.action != RPCRDMA_RSP_READ)
		return 0;
	if (!can_read || !m.nreads || v.read_total != total || !total ||
	    total > max_msg || need > max_msg ||
	    (m.proc == RPCRDMA_NOMSG && m.reads[0].position != 0))
		abort();
	check_reads(&m, msg + hlen, len - hlen, total, max_msg);
	/* The bound is exact: one byte less refuses it; no Read for a
	 * client that accepts none. */
	if (rpcrdma_rsp_recv(msg, len, &lim, (uint32_t)(total - 1), true, &m,
			     &w) != RPCRDMA_RSP_ANSWER ||
	    rpcrdma_rsp_recv(msg, len, &lim, max_msg, false, &m, &w) !=
		    RPCRDMA_RSP_ANSWER)
		abort();
	return 0;
}
