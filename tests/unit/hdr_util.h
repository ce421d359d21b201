/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the check_hdr sources (check_hdr.c, check_hdr_errors.c,
 * check_hdr_builders.c): the four test segments, the builders of the
 * vectors' headers, the header comparison and the exact-size decode, all
 * defined once in check_hdr_util.c. (Not named check_hdr.h: .gitignore
 * ignores tests/unit/check_* but for .c files.)
 */
#ifndef HDR_UTIL_H
#define HDR_UTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include <rpcrdma/hdr.h>

extern const struct rpcrdma_segment S1, S2, S3, S4;

#define XID(n)		(0xdeadbe00u + (n))
#define CREDITS		128u

void build_msg_empty(struct rpcrdma_msg *m);
void build_msg_read1(struct rpcrdma_msg *m);
void build_msg_read3(struct rpcrdma_msg *m);
void build_nomsg_pos0(struct rpcrdma_msg *m);
void build_msg_write1(struct rpcrdma_msg *m);
void build_msg_write_multi(struct rpcrdma_msg *m);
void build_msg_write2(struct rpcrdma_msg *m);
void build_msg_reply(struct rpcrdma_msg *m);
void build_nomsg_reply(struct rpcrdma_msg *m);
void build_msg_all(struct rpcrdma_msg *m);
void build_err_vers(struct rpcrdma_msg *m);
void build_err_chunk(struct rpcrdma_msg *m);

/* Compares the meaningful content of two headers. */
void msg_eq(const struct rpcrdma_msg *a, const struct rpcrdma_msg *b);
/* Decodes from an exactly-sized heap copy so ASan catches any overread. */
enum rpcrdma_hdr_err decode_exact(const uint8_t *bytes, size_t len,
				  const struct rpcrdma_limits *lim,
				  struct rpcrdma_msg *m, size_t *hdr_len);

/* The TCases of check_hdr_errors.c and check_hdr_builders.c. */
TCase *hdr_tc_decode_errors(void);
TCase *hdr_tc_builders(void);

#endif /* HDR_UTIL_H */
