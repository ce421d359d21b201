/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The counters export's file format, shared by the library (export.c,
 * the writer) and rpcrdma-stat(1) (the reader). One file per process,
 * DIR/rpcrdma.PID (DIR: RPCRDMA_STATS_DIR, default /dev/shm), mapped
 * shared by the process: a header, the process totals, then a table of
 * connection slots. Counters are 64-bit words updated with atomic
 * operations; a reader takes them as they are. A slot is live while its
 * in_use word is 1 (set after its label, with release ordering).
 */
#ifndef RPCRDMA_EXPORT_H
#define RPCRDMA_EXPORT_H

#include <stdint.h>
#include <rpcrdma/stats.h>

#define RPCRDMA_EXPORT_MAGIC	"RPCRDMA"	/* 8 bytes with its NUL */
#define RPCRDMA_EXPORT_VERSION	1u
#define RPCRDMA_EXPORT_CONNS	1024u
#define RPCRDMA_EXPORT_DIR	"/dev/shm"
#define RPCRDMA_EXPORT_PREFIX	"rpcrdma."

enum rpcrdma_export_role {
	RPCRDMA_EXPORT_CLIENT = 1,	/* a connection we made */
	RPCRDMA_EXPORT_SERVER = 2,	/* one a listener of ours accepted */
};

struct rpcrdma_export_hdr {
	char magic[8];
	uint32_t version;
	uint32_t stats_size;	/* sizeof(struct rpcrdma_stats) */
	uint32_t conn_size;	/* sizeof(struct rpcrdma_export_conn) */
	uint32_t nconns;
	int32_t pid;
	uint32_t pad;
	uint64_t started;	/* CLOCK_REALTIME seconds */
	char comm[32];		/* the program's name */
	uint8_t reserved[48];
};

struct rpcrdma_export_conn {
	uint32_t in_use;	/* 1: live */
	uint32_t role;		/* enum rpcrdma_export_role, 0 until known */
	uint64_t since;		/* CLOCK_REALTIME seconds it came up */
	char peer[64];		/* "a.b.c.d:port", "[v6]:port"
				 * (rpcrdma_addr_str) */
	struct rpcrdma_stats stats;
};

struct rpcrdma_export_file {
	struct rpcrdma_export_hdr hdr;
	struct rpcrdma_stats total;
	struct rpcrdma_export_conn conn[RPCRDMA_EXPORT_CONNS];
};

#endif /* RPCRDMA_EXPORT_H */
