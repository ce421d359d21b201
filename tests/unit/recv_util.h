/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of check_recv share (lib/recv.h): chunks_util.h's
 * hand-written headers and exact heap copies, an RPC message's first
 * words, and each file's test cases (recv_add_*).
 */
#ifndef RPCRDMA_TESTS_RECV_UTIL_H
#define RPCRDMA_TESTS_RECV_UTIL_H

#include "chunks_util.h"
#include "lib/recv.h"

/* The words of a read segment, a write chunk's segment, a reply chunk's:
 * handle, length, offset (high, low). */
#define SEGW(h, l, o)	(h), (l), 0, (o)
/* An RPC message's xid and msg_type, then a word of its body. */
#define RPC_CALLW	0x01020304u, RPC_CALL, 2
#define RPC_REPLYW	0x01020304u, RPC_REPLY, 0

void recv_add_rsp(Suite *s);
void recv_add_req(Suite *s);

#endif /* RPCRDMA_TESTS_RECV_UTIL_H */
