/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include "kv_util.h"

uint32_t kv_crc32(const void *buf, size_t len)
{
	static uint32_t table[256];
	const unsigned char *p = buf;
	uint32_t c = 0xffffffffu;
	uint32_t i, k, v;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			v = i;
			for (k = 0; k < 8; k++)
				v = v & 1 ? 0xedb88320u ^ (v >> 1) : v >> 1;
			table[i] = v;
		}
	}
	while (len--)
		c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

uint32_t kv_hash(const char *key)
{
	uint32_t h = 2166136261u;

	while (*key) {
		h ^= (unsigned char)*key++;
		h *= 16777619u;
	}
	return h;
}

void kv_print_rdma_stats(FILE *f, const char *prefix,
			 const struct rpcrdma_stats *s)
{
	fprintf(f, "%s: sent msg %" PRIu64 " nomsg %" PRIu64
		" error %" PRIu64 ", received msg %" PRIu64 " nomsg %" PRIu64
		" error %" PRIu64 "\n", prefix, s->sent_msg, s->sent_nomsg,
		s->sent_error, s->recv_msg, s->recv_nomsg, s->recv_error);
	fprintf(f, "%s: calls inline %" PRIu64 " long %" PRIu64
		" read-chunk %" PRIu64 ", replies inline %" PRIu64
		" long %" PRIu64 " write-chunk %" PRIu64 "\n", prefix,
		s->calls_inline, s->calls_long, s->calls_read_chunks,
		s->replies_inline, s->replies_long, s->replies_write_chunks);
	fprintf(f, "%s: chunks read %" PRIu64 " write %" PRIu64
		" reply %" PRIu64 ", RDMA Read %" PRIu64
		" bytes, RDMA Write %" PRIu64 " bytes\n", prefix,
		s->read_chunks, s->write_chunks, s->reply_chunks,
		s->rdma_read_bytes, s->rdma_write_bytes);
	fprintf(f, "%s: credits %" PRIu64 ", peak in flight %" PRIu64
		", credit waits %" PRIu64 ", RDMA_ERROR sent %" PRIu64
		" received %" PRIu64 ", bad headers %" PRIu64
		", connects %" PRIu64 "\n", prefix, s->credits_granted,
		s->inflight_peak, s->credit_waits,
		s->err_vers_sent + s->err_chunk_sent,
		s->err_vers_recv + s->err_chunk_recv, s->bad_headers,
		s->connects);
}
