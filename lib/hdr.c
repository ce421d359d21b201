/* SPDX-License-Identifier: BSD-3-Clause */
/* Transport header codec: RFC 8166 sections 4 and 5. */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include <rpcrdma/hdr.h>

#include "chunks.h"

/*
 * The running total of chunk bytes is a uint64_t fed by at most
 * RPCRDMA_MAX_READ_SEGS + RPCRDMA_MAX_SEGS 32-bit lengths, so it cannot
 * wrap; this keeps the per-segment check a plain addition.
 */
_Static_assert((uint64_t)(RPCRDMA_MAX_READ_SEGS + RPCRDMA_MAX_SEGS) *
	       UINT32_MAX < UINT64_MAX / 2, "chunk byte total could overflow");

/* Defaults: the ceilings, 16 segments a chunk, 16 MiB + 64 KiB. */
#define DEFAULT_CHUNK_SEGS	16u
#define DEFAULT_CHUNK_BYTES	((16u << 20) + (64u << 10))

static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static inline void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static inline uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

static inline uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

/*
 * RFC 8166 section 4.1.2: handle, length, offset. The 64-bit offset is an
 * XDR hyper: big-endian, high word first, i.e. one big-endian 64-bit word.
 */
static inline void get_seg(const uint8_t *p, struct rpcrdma_segment *s)
{
	s->handle = get32(p);
	s->length = get32(p + 4);
	s->offset = get64(p + 8);
}

static inline uint8_t *put_seg(uint8_t *p, const struct rpcrdma_segment *s)
{
	put32(p, s->handle);
	put32(p + 4, s->length);
	put64(p + 8, s->offset);
	return p + RPCRDMA_SEGMENT_WIRE;
}

/* Also what rpcrdma_hdr_decode() applies when passed lim == NULL. */
static const struct rpcrdma_limits default_limits = {
	.max_read_segs = RPCRDMA_MAX_READ_SEGS,
	.max_write_chunks = RPCRDMA_MAX_WRITE_CHUNKS,
	.max_chunk_segs = DEFAULT_CHUNK_SEGS,
	.max_chunk_bytes = DEFAULT_CHUNK_BYTES,
};

void rpcrdma_limits_default(struct rpcrdma_limits *lim)
{
	*lim = default_limits;
}

/*
 * The decoder walks the untrusted buffer with a cursor p and the count of
 * bytes left from p. Each length check covers a whole item plus the
 * discriminator or count that must follow it, so a valid header costs one
 * check per item; any shortfall is ETRUNC.
 */

/* Why a read position failed the fast check (RFC 8166 section 3.5.3). */
static enum rpcrdma_hdr_err pos_err(uint32_t pos, bool nomsg)
{
	if (pos & (RPCRDMA_XDR_UNIT - 1))
		return RPCRDMA_HDR_EPOSALIGN;
	if (pos == 0 && !nomsg)
		return RPCRDMA_HDR_EPOSZERO;
	return RPCRDMA_HDR_EPOSORDER;
}

/* Stable insertion sort by position: at most max_reads entries. */
static void sort_reads(struct rpcrdma_read_segment *r, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		struct rpcrdma_read_segment v = r[i];
		uint32_t j = i;

		for (; j > 0 && r[j - 1].position > v.position; j--)
			r[j] = r[j - 1];
		r[j] = v;
	}
}

/*
 * A segment names length bytes of the sender's memory from offset: one
 * whose end passes 2^64 names no memory at all. Refused here rather than
 * left to fail as an RDMA operation, so that no arithmetic on the range
 * downstream (the peer's, ours) ever sees it wrap.
 */
static inline bool seg_wraps(const struct rpcrdma_segment *s)
{
	return s->length && s->offset > UINT64_MAX - (s->length - 1);
}

/*
 * Copies count segments into the pool and adds their lengths to *total.
 * False when one of them wraps.
 */
static inline bool dec_segs(const uint8_t *p, struct rpcrdma_segment *s,
			    uint32_t count, uint64_t *total)
{
	const struct rpcrdma_segment *end = s + count;
	uint64_t sum = *total;
	bool wraps = false;

	for (; s < end; s++, p += RPCRDMA_SEGMENT_WIRE) {
		get_seg(p, s);
		sum += s->length;
		wraps |= seg_wraps(s);
	}
	*total = sum;
	return !wraps;
}

/*
 * RFC 8166 section 4.2.1.2: a write chunk (and the reply chunk) is a
 * counted array of segments. The count is bounded before any arithmetic
 * or store: the per-chunk limit, then what is left of the pool. A write
 * chunk may be empty (the Linux server accepts one and echoes it as it
 * came, and so do we: no item fits it); a reply chunk holds a reply.
 */
static inline enum rpcrdma_hdr_err chunk_count(uint32_t count, uint32_t max,
					       uint32_t used, bool may_be_empty)
{
	if (unlikely(count == 0 && !may_be_empty))
		return RPCRDMA_HDR_EEMPTY;
	if (unlikely(count > max || count > RPCRDMA_MAX_SEGS - used))
		return RPCRDMA_HDR_ESEGS;
	return RPCRDMA_HDR_OK;
}

/* RFC 8166 section 4.2.1: rpcrdma1_chunks, the three lists in order. */
static enum rpcrdma_hdr_err dec_chunks(const uint8_t *p, size_t *leftp,
				       const struct rpcrdma_limits *lim,
				       struct rpcrdma_msg *m)
{
	uint32_t max_reads = min32(lim->max_read_segs, RPCRDMA_MAX_READ_SEGS);
	uint32_t max_writes = min32(lim->max_write_chunks,
				    RPCRDMA_MAX_WRITE_CHUNKS);
	uint32_t max_segs = min32(lim->max_chunk_segs, RPCRDMA_MAX_SEGS);
	bool nomsg = m->proc == RPCRDMA_NOMSG;
	struct rpcrdma_read_segment *rs;
	struct rpcrdma_chunk *c;
	enum rpcrdma_hdr_err ret;
	uint32_t n, disc, pos, prev, count, nsegs = 0;
	size_t left = *leftp, need;
	uint64_t total = 0;
	bool sorted;

	/*
	 * Read list. RFC 8166 section 4.1.3 / 3.5.3: positions are XDR
	 * aligned offsets into the RPC message; segments sharing a position
	 * form one chunk. Position zero (the whole RPC message) only with
	 * RDMA_NOMSG. The requester SHOULD sort them (section 4.3.1); the
	 * Linux server takes any order, and so do we: sorted below, the
	 * segments of one position kept in their order.
	 */
	if (unlikely(left < 4))
		return RPCRDMA_HDR_ETRUNC;
	sorted = true;
	prev = 0;
	rs = m->reads;
	for (n = 0; (disc = get32(p)) != 0; n++, rs++) {
		if (unlikely(disc != 1))
			return RPCRDMA_HDR_EBOOL;
		if (unlikely(n >= max_reads))
			return RPCRDMA_HDR_EREADS;
		/* discriminator, position, segment, next discriminator */
		if (unlikely(left < RPCRDMA_READ_SEG_WIRE + 4))
			return RPCRDMA_HDR_ETRUNC;
		pos = get32(p + 4);
		if (unlikely((pos & (RPCRDMA_XDR_UNIT - 1)) ||
			     (pos == 0 && !nomsg)))
			return pos_err(pos, nomsg);
		sorted &= pos >= prev;
		prev = pos;
		rs->position = pos;
		get_seg(p + 8, &rs->seg);
		if (unlikely(seg_wraps(&rs->seg)))
			return RPCRDMA_HDR_ESEGWRAP;
		total += rs->seg.length;
		p += RPCRDMA_READ_SEG_WIRE;
		left -= RPCRDMA_READ_SEG_WIRE;
	}
	m->nreads = n;
	if (!sorted)
		sort_reads(m->reads, n);

	/* Write list: RFC 8166 section 4.2.1.2, a list of counted arrays. */
	if (unlikely(left < 8))
		return RPCRDMA_HDR_ETRUNC;
	p += 4;
	left -= 4;
	for (n = 0; (disc = get32(p)) != 0; n++) {
		if (unlikely(disc != 1))
			return RPCRDMA_HDR_EBOOL;
		if (unlikely(n >= max_writes))
			return RPCRDMA_HDR_EWRITES;
		if (unlikely(left < 8))
			return RPCRDMA_HDR_ETRUNC;
		count = get32(p + 4);
		ret = chunk_count(count, max_segs, nsegs, true);
		if (ret)
			return ret;
		/* discriminator, count, segments, next discriminator */
		need = 8 + (size_t)count * RPCRDMA_SEGMENT_WIRE;
		if (unlikely(left < need + 4))
			return RPCRDMA_HDR_ETRUNC;
		c = &m->writes[n];
		c->first = nsegs;
		c->nsegs = count;
		if (unlikely(!dec_segs(p + 8, &m->segs[nsegs], count, &total)))
			return RPCRDMA_HDR_ESEGWRAP;
		nsegs += count;
		p += need;
		left -= need;
	}
	m->nwrites = n;

	/* Reply chunk: an optional counted array (section 4.2.1.3). */
	if (unlikely(left < 8))
		return RPCRDMA_HDR_ETRUNC;
	p += 4;
	left -= 4;
	disc = get32(p);
	if (disc == 1) {
		if (unlikely(left < 8))
			return RPCRDMA_HDR_ETRUNC;
		count = get32(p + 4);
		ret = chunk_count(count, max_segs, nsegs, false);
		if (ret)
			return ret;
		need = 8 + (size_t)count * RPCRDMA_SEGMENT_WIRE;
		if (unlikely(left < need))
			return RPCRDMA_HDR_ETRUNC;
		m->reply.first = nsegs;
		m->reply.nsegs = count;
		if (unlikely(!dec_segs(p + 8, &m->segs[nsegs], count, &total)))
			return RPCRDMA_HDR_ESEGWRAP;
		nsegs += count;
		m->has_reply = true;
		left -= need;
	} else if (likely(disc == 0)) {
		left -= 4;
	} else {
		return RPCRDMA_HDR_EBOOL;
	}
	m->nsegs = nsegs;
	*leftp = left;

	if (unlikely(total > lim->max_chunk_bytes))
		return RPCRDMA_HDR_ECHUNKLEN;

	/*
	 * RFC 8166 section 3.5.1: RDMA_NOMSG means the RPC message is in a
	 * chunk, either the Position Zero Read chunk (Long Call) or the
	 * Reply chunk (Long Reply). Positions are sorted, so a position-zero
	 * chunk, if any, starts the read list.
	 */
	if (nomsg && !m->has_reply &&
	    (m->nreads == 0 || m->reads[0].position != 0))
		return RPCRDMA_HDR_ENOMSG;
	return RPCRDMA_HDR_OK;
}

/* RFC 8166 section 4.2.4 / 5: rpcrdma1_error. */
static enum rpcrdma_hdr_err dec_error(const uint8_t *p, size_t *leftp,
				      struct rpcrdma_msg *m)
{
	if (*leftp < 4)
		return RPCRDMA_HDR_ETRUNC;
	m->err = get32(p);
	switch (m->err) {
	case RPCRDMA_ERR_VERS:
		if (*leftp < 12)
			return RPCRDMA_HDR_ETRUNC;
		m->vers_low = get32(p + 4);
		m->vers_high = get32(p + 8);
		*leftp -= 12;
		return RPCRDMA_HDR_OK;
	case RPCRDMA_ERR_CHUNK:
		*leftp -= 4;
		return RPCRDMA_HDR_OK;
	default:
		return RPCRDMA_HDR_EERRCODE;
	}
}

enum rpcrdma_hdr_err rpcrdma_hdr_decode(const void *buf, size_t len,
					const struct rpcrdma_limits *lim,
					struct rpcrdma_msg *m, size_t *hdr_len)
{
	const uint8_t *p = buf;
	enum rpcrdma_hdr_err ret;
	size_t left;

	if (unlikely(len < RPCRDMA_HDR_FIXED))
		return RPCRDMA_HDR_ESHORT;
	m->xid = get32(p);
	m->vers = get32(p + 4);
	m->credits = get32(p + 8);
	m->proc = get32(p + 12);
	/* RFC 8166 section 4.3: check the version before anything else. */
	if (unlikely(m->vers != RPCRDMA_VERSION))
		return RPCRDMA_HDR_EVERS;

	/* Only the counts: the arrays are valid up to them. */
	m->nreads = 0;
	m->nwrites = 0;
	m->nsegs = 0;
	m->has_reply = false;
	m->err = 0;
	left = len - RPCRDMA_HDR_FIXED;

	switch (m->proc) {
	case RPCRDMA_MSG:
	case RPCRDMA_NOMSG:
		ret = dec_chunks(p + RPCRDMA_HDR_FIXED, &left,
				 lim ? lim : &default_limits, m);
		break;
	case RPCRDMA_ERROR:
		ret = dec_error(p + RPCRDMA_HDR_FIXED, &left, m);
		break;
	/* RFC 8166 section 4.5: deprecated; answer with ERR_CHUNK. */
	case RPCRDMA_MSGP:
		return RPCRDMA_HDR_EMSGP;
	case RPCRDMA_DONE:
		return RPCRDMA_HDR_EDONE;
	default:
		return RPCRDMA_HDR_EPROC;
	}
	if (ret == RPCRDMA_HDR_OK && hdr_len)
		*hdr_len = len - left;
	return ret;
}

/* ---- Peeks: a message's kind from its fixed words, before decoding ---- */

/* RFC 5531 section 9: msg_type of an RPC message (libtirpc's CALL and
 * REPLY). */
#define RPC_MSG_TYPE_CALL	0u
#define RPC_MSG_TYPE_REPLY	1u

/*
 * RFC 8167 section 4.2 (a backward reply) and RFC 8166 section 5 (an
 * RDMA_ERROR, which only a responder sends): see lib/chunks.h. The
 * words: rdma_vers (1), rdma_proc (4 RDMA_ERROR, or 0 RDMA_MSG with the
 * three list discriminators 0 and, after the RPC XID, msg_type REPLY).
 */
bool rpcrdma_hdr_peek_bc_answer(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (len < RPCRDMA_HDR_FIXED)
		return false;
	if (get32(p + 4) != RPCRDMA_VERSION)
		return false;
	if (get32(p + 12) == RPCRDMA_ERROR)
		return true;
	if (len < RPCRDMA_HDR_MIN + 8)
		return false;
	return get32(p + 12) == RPCRDMA_MSG && !get32(p + 16) &&
	       !get32(p + 20) && !get32(p + 24) &&
	       get32(p + RPCRDMA_HDR_MIN + 4) == RPC_MSG_TYPE_REPLY;
}

/*
 * RFC 8167 section 4 (a backward call): see lib/chunks.h. On the decoded
 * header m: RDMA_MSG with every chunk list empty; then, in the bytes
 * after the header, the RPC XID and msg_type CALL.
 */
bool rpcrdma_hdr_peek_bc_call(const struct rpcrdma_msg *m, size_t hlen,
			      const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (m->proc != RPCRDMA_MSG || m->nreads || m->nwrites ||
	    m->has_reply || hlen > len || len - hlen < 8)
		return false;
	return get32(p + hlen + 4) == RPC_MSG_TYPE_CALL;
}

enum rpcrdma_errcode rpcrdma_hdr_err_to_wire(enum rpcrdma_hdr_err err)
{
	return err == RPCRDMA_HDR_EVERS ? RPCRDMA_ERR_VERS : RPCRDMA_ERR_CHUNK;
}

static const char *const hdr_errstr[RPCRDMA_HDR_NERR] = {
	[RPCRDMA_HDR_OK] = "success",
	[RPCRDMA_HDR_ESHORT] = "header shorter than the fixed part",
	[RPCRDMA_HDR_EVERS] = "unsupported RPC-over-RDMA version",
	[RPCRDMA_HDR_EPROC] = "unknown message type",
	[RPCRDMA_HDR_EMSGP] = "RDMA_MSGP is deprecated",
	[RPCRDMA_HDR_EDONE] = "RDMA_DONE is deprecated",
	[RPCRDMA_HDR_ETRUNC] = "header truncated",
	[RPCRDMA_HDR_EBOOL] = "list discriminator not 0 or 1",
	[RPCRDMA_HDR_EREADS] = "too many read segments",
	[RPCRDMA_HDR_EWRITES] = "too many write chunks",
	[RPCRDMA_HDR_ESEGS] = "too many segments",
	[RPCRDMA_HDR_EEMPTY] = "write or reply chunk with no segments",
	[RPCRDMA_HDR_ECHUNKLEN] = "total chunk length over the limit",
	[RPCRDMA_HDR_EPOSALIGN] = "read position not XDR aligned",
	[RPCRDMA_HDR_EPOSORDER] = "read positions out of order",
	[RPCRDMA_HDR_EPOSZERO] = "position-zero read chunk without RDMA_NOMSG",
	[RPCRDMA_HDR_ENOMSG] = ("RDMA_NOMSG without a position-zero read "
				"chunk or reply chunk"),
	[RPCRDMA_HDR_EERRCODE] = "unknown RDMA_ERROR code",
	[RPCRDMA_HDR_ESEGWRAP] = "segment's offset + length passes 2^64",
};

const char *rpcrdma_hdr_strerror(enum rpcrdma_hdr_err err)
{
	if ((unsigned int)err >= RPCRDMA_HDR_NERR)
		return "unknown header error";
	return hdr_errstr[err];
}

/* ---- Builders ---- */

void rpcrdma_msg_init(struct rpcrdma_msg *m, uint32_t xid, uint32_t credits,
		      enum rpcrdma_proc proc)
{
	/* Only the scalars: the arrays are covered by the counts. */
	m->xid = xid;
	m->vers = RPCRDMA_VERSION;
	m->credits = credits;
	m->proc = proc;
	m->nreads = 0;
	m->nwrites = 0;
	m->nsegs = 0;
	m->has_reply = false;
	m->reply.first = 0;
	m->reply.nsegs = 0;
	m->err = 0;
	m->vers_low = 0;
	m->vers_high = 0;
}

int rpcrdma_msg_add_read(struct rpcrdma_msg *m, uint32_t position,
			 const struct rpcrdma_segment *seg)
{
	if (!seg || (position & (RPCRDMA_XDR_UNIT - 1)))
		return -EINVAL;
	if (m->nreads >= RPCRDMA_MAX_READ_SEGS)
		return -ENOSPC;
	/* RFC 8166 section 4.1.3: the read list is sorted by position. */
	if (m->nreads && position < m->reads[m->nreads - 1].position)
		return -EINVAL;
	m->reads[m->nreads].position = position;
	m->reads[m->nreads].seg = *seg;
	m->nreads++;
	return 0;
}

int rpcrdma_msg_add_write_chunk(struct rpcrdma_msg *m)
{
	if (m->nwrites >= RPCRDMA_MAX_WRITE_CHUNKS)
		return -ENOSPC;
	m->writes[m->nwrites].first = m->nsegs;
	m->writes[m->nwrites].nsegs = 0;
	return (int)m->nwrites++;
}

/* A chunk may grow only while its segments end the pool (contiguity). */
static int chunk_append(struct rpcrdma_msg *m, struct rpcrdma_chunk *c,
			const struct rpcrdma_segment *seg)
{
	if (!seg || c->first > m->nsegs || c->nsegs != m->nsegs - c->first)
		return -EINVAL;
	if (m->nsegs >= RPCRDMA_MAX_SEGS)
		return -ENOSPC;
	m->segs[m->nsegs++] = *seg;
	c->nsegs++;
	return 0;
}

int rpcrdma_msg_add_write_seg(struct rpcrdma_msg *m, uint32_t chunk,
			      const struct rpcrdma_segment *seg)
{
	if (m->nwrites == 0 || chunk != m->nwrites - 1)
		return -EINVAL;
	return chunk_append(m, &m->writes[chunk], seg);
}

int rpcrdma_msg_add_reply_seg(struct rpcrdma_msg *m,
			      const struct rpcrdma_segment *seg)
{
	int ret;

	if (!m->has_reply) {
		if (!seg)
			return -EINVAL;
		if (m->nsegs >= RPCRDMA_MAX_SEGS)
			return -ENOSPC;
		m->reply.first = m->nsegs;
		m->reply.nsegs = 0;
	}
	ret = chunk_append(m, &m->reply, seg);
	if (ret == 0)
		m->has_reply = true;
	return ret;
}

void rpcrdma_msg_init_error(struct rpcrdma_msg *m, uint32_t xid,
			    uint32_t credits, enum rpcrdma_errcode err)
{
	rpcrdma_msg_init(m, xid, credits, RPCRDMA_ERROR);
	m->err = err;
	/* RFC 8166 section 4.3: we support version 1 only. */
	if (err == RPCRDMA_ERR_VERS) {
		m->vers_low = RPCRDMA_VERSION;
		m->vers_high = RPCRDMA_VERSION;
	}
}

uint64_t rpcrdma_chunk_length(const struct rpcrdma_msg *m,
			      const struct rpcrdma_chunk *c)
{
	uint32_t pool = min32(m->nsegs, RPCRDMA_MAX_SEGS);
	uint64_t sum = 0;
	uint32_t i, n;

	if (c->first >= pool)
		return 0;
	n = min32(c->nsegs, pool - c->first);
	for (i = 0; i < n; i++)
		sum += m->segs[c->first + i].length;
	return sum;
}

/* ---- Encoder ---- */

/*
 * RFC 8166 section 4.2.1: every list is a sequence of discriminated items
 * ended by a FALSE discriminator. A read segment costs its discriminator
 * plus position plus segment; a write chunk its discriminator, a count and
 * its segments; the reply chunk an optional discriminator, count, segments.
 */
size_t rpcrdma_hdr_size_for(uint32_t nreads, uint32_t nwrites,
			    const uint32_t *write_segs, uint32_t reply_segs)
{
	size_t len = RPCRDMA_HDR_FIXED;
	uint32_t i;

	len += (size_t)nreads * RPCRDMA_READ_SEG_WIRE + 4;
	for (i = 0; i < nwrites; i++)
		len += 4 + 4 + (size_t)write_segs[i] * RPCRDMA_SEGMENT_WIRE;
	len += 4;
	if (reply_segs)
		len += 4 + 4 + (size_t)reply_segs * RPCRDMA_SEGMENT_WIRE;
	else
		len += 4;
	return len;
}

static size_t error_size(const struct rpcrdma_msg *m)
{
	return RPCRDMA_HDR_FIXED + 4 + (m->err == RPCRDMA_ERR_VERS ? 8 : 0);
}

size_t rpcrdma_hdr_size(const struct rpcrdma_msg *m)
{
	uint32_t nwrites = min32(m->nwrites, RPCRDMA_MAX_WRITE_CHUNKS);
	size_t len;
	uint32_t i;

	if (m->proc == RPCRDMA_ERROR)
		return error_size(m);
	len = RPCRDMA_HDR_MIN + (size_t)m->nreads * RPCRDMA_READ_SEG_WIRE;
	for (i = 0; i < nwrites; i++)
		len += 8 + (size_t)m->writes[i].nsegs * RPCRDMA_SEGMENT_WIRE;
	if (m->has_reply)
		len += 4 + (size_t)m->reply.nsegs * RPCRDMA_SEGMENT_WIRE;
	return len;
}

/* A write or reply chunk the decoder would accept: in the pool, and for
 * the reply chunk non-empty. */
static inline bool chunk_ok(const struct rpcrdma_chunk *c, uint32_t pool,
			    bool may_be_empty)
{
	return (c->nsegs != 0 || may_be_empty) &&
	       (uint64_t)c->first + c->nsegs <= pool;
}

/*
 * Returns the encoded size of m, or 0 when the decoder (with limits at the
 * compile-time ceilings) would reject it. Per-connection limits of the peer
 * are the caller's business.
 */
static size_t enc_check(const struct rpcrdma_msg *m)
{
	uint32_t i, prev, total_segs = 0;
	size_t len;

	if (m->proc == RPCRDMA_ERROR) {
		/* RFC 8166 section 4.5: an RDMA_ERROR carries the version of
		 * the message that failed, whatever it was. */
		if (m->err != RPCRDMA_ERR_VERS && m->err != RPCRDMA_ERR_CHUNK)
			return 0;
		return error_size(m);
	}
	if (m->vers != RPCRDMA_VERSION)
		return 0;
	if (m->proc != RPCRDMA_MSG && m->proc != RPCRDMA_NOMSG)
		return 0;
	if (m->nreads > RPCRDMA_MAX_READ_SEGS ||
	    m->nwrites > RPCRDMA_MAX_WRITE_CHUNKS ||
	    m->nsegs > RPCRDMA_MAX_SEGS)
		return 0;

	/*
	 * Same read-list rules as the decoder (RFC 8166 section 3.5.3):
	 * aligned, in order, position zero only with RDMA_NOMSG.
	 */
	prev = m->proc == RPCRDMA_NOMSG ? 0 : 1;
	for (i = 0; i < m->nreads; i++) {
		uint32_t pos = m->reads[i].position;

		if (pos < prev || (pos & (RPCRDMA_XDR_UNIT - 1)))
			return 0;
		prev = pos;
	}
	len = RPCRDMA_HDR_MIN + (size_t)m->nreads * RPCRDMA_READ_SEG_WIRE;
	for (i = 0; i < m->nwrites; i++) {
		if (!chunk_ok(&m->writes[i], m->nsegs, true))
			return 0;
		total_segs += m->writes[i].nsegs;
		len += 8 + (size_t)m->writes[i].nsegs * RPCRDMA_SEGMENT_WIRE;
	}
	if (m->has_reply) {
		if (!chunk_ok(&m->reply, m->nsegs, false))
			return 0;
		total_segs += m->reply.nsegs;
		len += 4 + (size_t)m->reply.nsegs * RPCRDMA_SEGMENT_WIRE;
	}
	/* Chunks may share pool entries; the wire carries each copy. */
	if (total_segs > RPCRDMA_MAX_SEGS)
		return 0;
	if (m->proc == RPCRDMA_NOMSG && !m->has_reply &&
	    (m->nreads == 0 || m->reads[0].position != 0))
		return 0;
	return len;
}

static inline uint8_t *enc_chunk(uint8_t *p, const struct rpcrdma_msg *m,
				 const struct rpcrdma_chunk *c)
{
	const struct rpcrdma_segment *s = &m->segs[c->first];
	const struct rpcrdma_segment *end = s + c->nsegs;

	put32(p, 1);
	put32(p + 4, c->nsegs);
	p += 8;
	/* Locals for the bounds: stores through p may alias *m. */
	for (; s < end; s++)
		p = put_seg(p, s);
	return p;
}

int rpcrdma_hdr_encode(const struct rpcrdma_msg *m, void *buf, size_t len,
		       size_t *used)
{
	const struct rpcrdma_read_segment *rs, *rend;
	const struct rpcrdma_chunk *c, *cend;
	uint8_t *p = buf;
	size_t size;

	size = enc_check(m);
	if (unlikely(!size))
		return -EINVAL;
	if (unlikely(size > len))
		return -ENOSPC;

	put32(p, m->xid);
	put32(p + 4, m->vers);
	put32(p + 8, m->credits);
	put32(p + 12, m->proc);
	p += RPCRDMA_HDR_FIXED;

	if (m->proc == RPCRDMA_ERROR) {
		put32(p, m->err);
		if (m->err == RPCRDMA_ERR_VERS) {
			put32(p + 4, m->vers_low);
			put32(p + 8, m->vers_high);
		}
	} else {
		rs = m->reads;
		rend = rs + m->nreads;
		for (; rs < rend; rs++) {
			put32(p, 1);
			put32(p + 4, rs->position);
			p = put_seg(p + 8, &rs->seg);
		}
		put32(p, 0);
		p += 4;
		c = m->writes;
		cend = c + m->nwrites;
		for (; c < cend; c++)
			p = enc_chunk(p, m, c);
		put32(p, 0);
		p += 4;
		if (m->has_reply)
			p = enc_chunk(p, m, &m->reply);
		else
			put32(p, 0);
	}
	if (used)
		*used = size;
	return 0;
}
