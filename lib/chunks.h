/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The glue's view of the wire rules that look only at a decoded header
 * (struct rpcrdma_msg) or at a message's raw bytes, kept out of the
 * installed headers: internal to the library (not exported, see
 * librpcrdma.map), host-tested by tests/unit/check_chunks.c and fuzzed by
 * tests/fuzz/fuzz_hdr.c. Defined in lib/hdr.c (peeks), lib/chunks.c (a
 * reply's chunk lists given its call's) and lib/splice.c (read chunks by
 * position).
 */
#ifndef RPCRDMA_LIB_CHUNKS_H
#define RPCRDMA_LIB_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/hdr.h>

/*
 * lib/hdr.c. Received by the responder (server) on a forward connection:
 * does buf[0..len) look like an answer to one of its backward calls
 * (RFC 8167)? A reply (RFC 8167 section 4.2): RDMA_MSG of version 1, all
 * three chunk lists empty, an RPC message of msg_type REPLY inline. Or an
 * RDMA_ERROR of version 1: only a responder sends one (RFC 8166 section
 * 5), and the client is one only in the backward direction. A forward
 * call has neither shape. A cheap look at the fixed words: the header is
 * not decoded (the caller decodes what this accepts). Never reads
 * outside buf[0..len).
 */
bool rpcrdma_hdr_peek_bc_answer(const void *buf, size_t len);

#endif /* RPCRDMA_LIB_CHUNKS_H */
