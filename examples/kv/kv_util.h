/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by kv_client and kv_server (not part of librpcrdma). */
#ifndef KV_UTIL_H
#define KV_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <rpcrdma/stats.h>

/* CRC-32 (IEEE 802.3, as zlib's crc32()), to show that bytes arrived. */
uint32_t kv_crc32(const void *buf, size_t len);
/* FNV-1a of a key, for the server's hash table. */
uint32_t kv_hash(const char *key);
/* One line per group of the transport counters, each line prefixed. */
void kv_print_rdma_stats(FILE *f, const char *prefix,
			 const struct rpcrdma_stats *s);

#endif /* KV_UTIL_H */
