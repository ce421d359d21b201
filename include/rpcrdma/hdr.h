/* SPDX-License-Identifier: BSD-3-Clause */
/* Transport header codec: RFC 8166 sections 4 and 5. */
#ifndef RPCRDMA_HDR_H
#define RPCRDMA_HDR_H

#include <rpcrdma/wire.h>

/*
 * Why a header was rejected. Each reason is distinct so tests and counters
 * can tell them apart; rpcrdma_hdr_err_to_wire() maps them onto the two
 * codes RDMA_ERROR can carry.
 */
enum rpcrdma_hdr_err {
	RPCRDMA_HDR_OK = 0,
	RPCRDMA_HDR_ESHORT,		/* fewer than the 4 fixed words */
	RPCRDMA_HDR_EVERS,		/* rdma_vers != 1 */
	RPCRDMA_HDR_EPROC,		/* unknown rdma_proc */
	RPCRDMA_HDR_EMSGP,		/* RDMA_MSGP: deprecated, rejected */
	RPCRDMA_HDR_EDONE,		/* RDMA_DONE: deprecated, rejected */
	RPCRDMA_HDR_ETRUNC,		/* a list or field runs past the buffer */
	RPCRDMA_HDR_EBOOL,		/* list discriminator not 0 or 1 */
	RPCRDMA_HDR_EREADS,		/* too many read segments */
	RPCRDMA_HDR_EWRITES,		/* too many write chunks */
	RPCRDMA_HDR_ESEGS,		/* too many segments in one chunk / in total */
	RPCRDMA_HDR_EEMPTY,		/* a write or reply chunk with 0 segments */
	RPCRDMA_HDR_ECHUNKLEN,		/* total chunk length over the limit */
	RPCRDMA_HDR_EPOSALIGN,		/* read position not XDR aligned */
	RPCRDMA_HDR_EPOSORDER,		/* (unused: the decoder sorts them) */
	RPCRDMA_HDR_EPOSZERO,		/* position-zero read chunk without NOMSG */
	RPCRDMA_HDR_ENOMSG,		/* NOMSG with neither pos-zero nor reply chunk */
	RPCRDMA_HDR_EERRCODE,		/* RDMA_ERROR with an unknown code */
	RPCRDMA_HDR_ESEGWRAP,		/* a segment's offset + length passes 2^64 */
	RPCRDMA_HDR_NERR
};

/* Per-connection bounds the decoder enforces (never above the ceilings). */
struct rpcrdma_limits {
	uint32_t max_read_segs;		/* <= RPCRDMA_MAX_READ_SEGS */
	uint32_t max_write_chunks;	/* <= RPCRDMA_MAX_WRITE_CHUNKS */
	uint32_t max_chunk_segs;	/* per write chunk / reply chunk */
	uint64_t max_chunk_bytes;	/* sum of all segment lengths */
};

/* Fills the defaults: the ceilings, 16 segments a chunk, 16 MiB + 64 KiB. */
void rpcrdma_limits_default(struct rpcrdma_limits *lim);

/*
 * Decodes the transport header at buf[0..len). On success returns
 * RPCRDMA_HDR_OK and sets *hdr_len to the header's size (the RPC message,
 * if inline, starts there). On failure returns the reason; m->xid, vers,
 * credits and proc are valid whenever len >= 16 so the caller can answer
 * with RDMA_ERROR. Never reads outside buf[0..len).
 */
enum rpcrdma_hdr_err rpcrdma_hdr_decode(const void *buf, size_t len,
					const struct rpcrdma_limits *lim,
					struct rpcrdma_msg *m,
					size_t *hdr_len);

/* RPCRDMA_ERR_VERS for RPCRDMA_HDR_EVERS, RPCRDMA_ERR_CHUNK otherwise. */
enum rpcrdma_errcode rpcrdma_hdr_err_to_wire(enum rpcrdma_hdr_err err);
/* A short static description, never NULL. */
const char *rpcrdma_hdr_strerror(enum rpcrdma_hdr_err err);

/* Builders: start a header, then add chunks. Return 0 or -ENOSPC/-EINVAL. */
void rpcrdma_msg_init(struct rpcrdma_msg *m, uint32_t xid, uint32_t credits,
		      enum rpcrdma_proc proc);
int rpcrdma_msg_add_read(struct rpcrdma_msg *m, uint32_t position,
			 const struct rpcrdma_segment *seg);
/* Opens a new write chunk; returns its index (>= 0) or -ENOSPC. */
int rpcrdma_msg_add_write_chunk(struct rpcrdma_msg *m);
/* Appends a segment to write chunk 'chunk', which must be the last opened. */
int rpcrdma_msg_add_write_seg(struct rpcrdma_msg *m, uint32_t chunk,
			      const struct rpcrdma_segment *seg);
/* Appends a segment to the reply chunk (creating it on first use). */
int rpcrdma_msg_add_reply_seg(struct rpcrdma_msg *m,
			      const struct rpcrdma_segment *seg);
/* Sets up an RDMA_ERROR header (vers_low/high used only for ERR_VERS). */
void rpcrdma_msg_init_error(struct rpcrdma_msg *m, uint32_t xid,
			    uint32_t credits, enum rpcrdma_errcode err);

/* Sum of the lengths of a chunk's segments. */
uint64_t rpcrdma_chunk_length(const struct rpcrdma_msg *m,
			      const struct rpcrdma_chunk *c);

/* Encoded size of m in bytes. */
size_t rpcrdma_hdr_size(const struct rpcrdma_msg *m);
/*
 * Size of an RDMA_MSG/NOMSG header with the given shape, for planning:
 * nreads read segments, write chunks whose segment counts are in
 * write_segs[0..nwrites), and a reply chunk of reply_segs segments
 * (0 = no reply chunk).
 */
size_t rpcrdma_hdr_size_for(uint32_t nreads, uint32_t nwrites,
			    const uint32_t *write_segs, uint32_t reply_segs);

/* Encodes m into buf; returns 0 and *used, or -ENOSPC / -EINVAL. */
int rpcrdma_hdr_encode(const struct rpcrdma_msg *m, void *buf, size_t len,
		       size_t *used);

#endif /* RPCRDMA_HDR_H */
