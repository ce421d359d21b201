/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RPC-over-RDMA version 1 wire constants and structures, in one place.
 *
 * RFC 8166 (RPC-over-RDMA version 1), RFC 8167 (backward direction),
 * RFC 8797 (RDMA-CM Private Data). Nothing here touches verbs or libtirpc.
 */
#ifndef RPCRDMA_WIRE_H
#define RPCRDMA_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RPCRDMA_XDR_UNIT	4u

/* RFC 8166 section 4.2: rdma_vers */
#define RPCRDMA_VERSION		1u

/* RFC 8166 section 4.2.4: rdma_proc */
enum rpcrdma_proc {
	RPCRDMA_MSG = 0,	/* RPC message follows inline */
	RPCRDMA_NOMSG = 1,	/* RPC message in a chunk (long call/reply) */
	RPCRDMA_MSGP = 2,	/* deprecated, RFC 8166 section 4.5 */
	RPCRDMA_DONE = 3,	/* deprecated, RFC 8166 section 4.5 */
	RPCRDMA_ERROR = 4,
};

/* RFC 8166 section 4.2.4 / 5: rpcrdma_errcode */
enum rpcrdma_errcode {
	RPCRDMA_ERR_VERS = 1,
	RPCRDMA_ERR_CHUNK = 2,
};

/* Fixed part of every transport header: xid, vers, credits, proc. */
#define RPCRDMA_HDR_FIXED	16u
/* RDMA_MSG / RDMA_NOMSG with three empty lists. */
#define RPCRDMA_HDR_MIN		(RPCRDMA_HDR_FIXED + 3 * 4)
/* On-the-wire sizes of list items (RFC 8166 section 4.2.1). */
#define RPCRDMA_SEGMENT_WIRE	16u	/* handle, length, offset (64 bits) */
#define RPCRDMA_READ_SEG_WIRE	(4u + 4u + RPCRDMA_SEGMENT_WIRE) /* disc, pos, seg */

/* RFC 8166 section 3.3.3: default inline threshold without RFC 8797. */
#define RPCRDMA_DEFAULT_INLINE	1024u

/* RFC 8797 section 4: the 8-octet Private Data message. */
#define RPCRDMA_PVTDATA_FORMAT_ID	0xf6ab0e18u
#define RPCRDMA_PVTDATA_LEN		8u
#define RPCRDMA_PVTDATA_VERSION		1u
#define RPCRDMA_PVTDATA_FLAG_REMOTE_INV	0x01u	/* the R bit */
#define RPCRDMA_PVTDATA_MIN_SIZE	1024u
#define RPCRDMA_PVTDATA_MAX_SIZE	262144u

/* Default IANA port for RPC-over-RDMA (NFS/RDMA), RFC 8267 / RFC 5667. */
#define RPCRDMA_NFS_PORT	20049u

/* RFC 8166 section 4.1.2: an RDMA segment. */
struct rpcrdma_segment {
	uint32_t handle;	/* rkey */
	uint32_t length;
	uint64_t offset;
};

/* RFC 8166 section 4.1.3: a read segment (one entry of the read list). */
struct rpcrdma_read_segment {
	uint32_t position;	/* XDR position of the chunk in the message */
	struct rpcrdma_segment seg;
};

/* A write chunk or the reply chunk: nsegs segments starting at segs[first]. */
struct rpcrdma_chunk {
	uint32_t first;
	uint32_t nsegs;
};

/*
 * Hard ceilings on what one decoded header can hold; the per-connection
 * limits (struct rpcrdma_limits) may be lower, never higher.
 */
#define RPCRDMA_MAX_READ_SEGS	32u
#define RPCRDMA_MAX_WRITE_CHUNKS 8u
#define RPCRDMA_MAX_SEGS	64u	/* write-list plus reply-chunk segments */

/*
 * A transport header in host form. Read segments are kept as on the wire
 * (a flat list, grouped by position); write chunks and the reply chunk
 * index into one segment pool.
 */
struct rpcrdma_msg {
	uint32_t xid;
	uint32_t vers;
	uint32_t credits;
	uint32_t proc;		/* enum rpcrdma_proc */

	/* RPCRDMA_MSG and RPCRDMA_NOMSG */
	uint32_t nreads;
	uint32_t nwrites;
	uint32_t nsegs;		/* used entries of segs[] */
	bool has_reply;
	struct rpcrdma_chunk reply;
	struct rpcrdma_chunk writes[RPCRDMA_MAX_WRITE_CHUNKS];
	struct rpcrdma_read_segment reads[RPCRDMA_MAX_READ_SEGS];
	struct rpcrdma_segment segs[RPCRDMA_MAX_SEGS];

	/* RPCRDMA_ERROR */
	uint32_t err;		/* enum rpcrdma_errcode */
	uint32_t vers_low;	/* ERR_VERS only */
	uint32_t vers_high;
};

/* RFC 8797 section 4: Private Data in host form. */
struct rpcrdma_pvtdata {
	uint8_t version;
	bool remote_inv;	/* R: sender accepts Send With Invalidate */
	uint32_t send_size;	/* bytes, 1024..262144, multiple of 1024 */
	uint32_t recv_size;
};

#endif /* RPCRDMA_WIRE_H */
