/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transport header codec benchmark: encode plus decode of a call header
 * with a read list of 2 segments, a write list of one 2-segment chunk and
 * a 1-segment reply chunk (136 bytes on the wire), side by side with a
 * memcpy of the same 136 bytes, measured in the same run.
 *
 *   bench_hdr [N]          timed: N iterations (default 2000000), best of
 *                          5 rounds, ns per operation and the ratio
 *   bench_hdr codec N      exactly N encode+decode pairs, no timing
 *   bench_hdr memcpy N     exactly N memcpys of the header size
 *
 * The last two are for valgrind --tool=callgrind (tools/bench-hdr.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rpcrdma/hdr.h>

#define ROUNDS	5

static struct rpcrdma_msg msg;
static struct rpcrdma_msg out;
static struct rpcrdma_limits lim;
static uint8_t wire[256] __attribute__((aligned(64)));
static uint8_t copy[256] __attribute__((aligned(64)));
static volatile size_t hdr_bytes;	/* opaque to the optimiser */

static void setup(void)
{
	static const struct rpcrdma_segment s[4] = {
		{ 0xa1a2a3a4, 256, 0x0102030405060708ull },
		{ 0xb1b2b3b4, 4096, 0x1112131415161718ull },
		{ 0xc1c2c3c4, 65536, 0x2122232425262728ull },
		{ 0xd1d2d3d4, 4, 0xfffffffcull },
	};

	rpcrdma_limits_default(&lim);
	rpcrdma_msg_init(&msg, 1, 128, RPCRDMA_MSG);
	if (rpcrdma_msg_add_read(&msg, 40, &s[0]) ||
	    rpcrdma_msg_add_read(&msg, 72, &s[1]) ||
	    rpcrdma_msg_add_write_chunk(&msg) != 0 ||
	    rpcrdma_msg_add_write_seg(&msg, 0, &s[2]) ||
	    rpcrdma_msg_add_write_seg(&msg, 0, &s[3]) ||
	    rpcrdma_msg_add_reply_seg(&msg, &s[1])) {
		fprintf(stderr, "bench_hdr: building the header failed\n");
		exit(EXIT_FAILURE);
	}
	hdr_bytes = rpcrdma_hdr_size(&msg);
	memset(copy, 0, sizeof(copy));
}

/* One encode and one decode; returns nonzero on any failure. */
static inline int codec_once(uint32_t xid)
{
	size_t used, hdr_len;

	msg.xid = xid;
	if (rpcrdma_hdr_encode(&msg, wire, sizeof(wire), &used))
		return 1;
	if (rpcrdma_hdr_decode(wire, used, &lim, &out, &hdr_len))
		return 1;
	return out.xid != xid;
}

static int run_codec(unsigned long n)
{
	unsigned long i;
	int bad = 0;

	for (i = 0; i < n; i++)
		bad |= codec_once((uint32_t)i);
	return bad;
}

static void run_memcpy(unsigned long n)
{
	size_t len = hdr_bytes;
	unsigned long i;

	for (i = 0; i < n; i++) {
		wire[0] = (uint8_t)i;
		memcpy(copy, wire, len);
		/* Keep each copy: the compiler must not merge iterations. */
		__asm__ volatile("" : : "r"(copy) : "memory");
	}
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int timed(unsigned long n)
{
	double best_codec = 1e300, best_copy = 1e300, t;
	int r;

	if (run_codec(1000)) {
		fprintf(stderr, "bench_hdr: encode/decode failed\n");
		return EXIT_FAILURE;
	}
	run_memcpy(1000);
	for (r = 0; r < ROUNDS; r++) {
		t = now_ns();
		if (run_codec(n)) {
			fprintf(stderr, "bench_hdr: encode/decode failed\n");
			return EXIT_FAILURE;
		}
		t = (now_ns() - t) / (double)n;
		if (t < best_codec)
			best_codec = t;
		t = now_ns();
		run_memcpy(n);
		t = (now_ns() - t) / (double)n;
		if (t < best_copy)
			best_copy = t;
	}
	printf("header: %zu bytes (2 read segs, 1 write chunk of 2, "
	       "reply chunk of 1)\n", (size_t)hdr_bytes);
	printf("iterations: %lu, best of %d rounds\n", n, ROUNDS);
	printf("encode+decode:    %8.2f ns/op\n", best_codec);
	printf("memcpy %3zu bytes: %8.2f ns/op\n", (size_t)hdr_bytes,
	       best_copy);
	printf("ratio (codec / memcpy): %.2f\n", best_codec / best_copy);
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	unsigned long n = 2000000;

	setup();
	if (argc == 3 && strcmp(argv[1], "codec") == 0)
		return run_codec(strtoul(argv[2], NULL, 0)) ? EXIT_FAILURE :
							      EXIT_SUCCESS;
	if (argc == 3 && strcmp(argv[1], "memcpy") == 0) {
		run_memcpy(strtoul(argv[2], NULL, 0));
		return EXIT_SUCCESS;
	}
	if (argc == 2)
		n = strtoul(argv[1], NULL, 0);
	if (argc > 3 || n == 0) {
		fprintf(stderr, "usage: %s [N] | codec N | memcpy N\n",
			argv[0]);
		return EXIT_FAILURE;
	}
	return timed(n);
}
