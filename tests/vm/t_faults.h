/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of t_faults share: the test program (T_PROG) and its
 * blob, the addresses, the spawning of this program as a server or
 * client child and the client helpers (t_faults_util.c); the mixed load
 * of NULL calls and echoes, inline and in chunks (t_faults_mix.c); and
 * the functions that set up each TCase of faults_suite.
 */
#ifndef T_FAULTS_H
#define T_FAULTS_H

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include <rpc/rpc.h>

#include <rpcrdma/rpcrdma.h>
#include "procself.h"

#define T_PROG		0x20005a5bu
#define T_VERS		1u
#define P_NULL		0u
#define P_ECHO		1u	/* blob -> the same blob */
#define P_SLEEP		2u	/* u_int ms -> the same u_int, after ms */
#define P_HEAP		3u	/* void -> u_quad: the server's heap in use */
#define P_EXIT		4u	/* void -> void, then the server exits (0) */
#define T_BLOB_MAX	262144u	/* the largest echo: 64 4 KiB pages */
#define T_MAX_MSG	(T_BLOB_MAX + 4096u) /* server and CLIENT max_msg */

#define XP(f) ((xdrproc_t)(void (*)(void))(f))

struct blob {
	u_int len;
	char *data;
};

#define T_TUNABLES	"GLIBC_TUNABLES=glibc.malloc.tcache_count=0"

enum { MIX_NULL, MIX_INLINE, MIX_CHUNKS, MIX_KINDS };

#define M_THREADS	4	/* callers on one CLIENT */
#define M_TMO_S		5	/* per call */
#define M_MARGIN_S	2.0	/* allowed beyond the call timeout */
#define M_BACKOFF_US	10000	/* after a failed call, as a caller would */

struct mix_stats {
	long calls[MIX_KINDS], ok[MIX_KINDS];
	long failed[32];	/* by clnt_stat */
	long long ok_bytes;	/* echoed and verified */
	double worst;		/* the longest call, s */
	int worst_kind;
};

struct mixer {
	CLIENT *cl;
	int id;
	uint32_t seed;		/* call i of thread id: seed + id << 24 + i */
	bool strict;		/* every call must succeed (the server lives) */
	bool inline_only;
	long ncalls;		/* then stop; 0: until *stop */
	atomic_bool *stop;
	int ok_fd;		/* a byte 'o' per verified success, or -1 */
	struct mix_stats s;
};

/* Exit statuses of a client child that stopped by itself. */
#define X_BYTES		3	/* a success with other bytes */
#define X_SLOW		4	/* a call over its timeout plus the margin */
#define X_FAILED	5	/* a call failed (strict) or failed oddly */
#define X_CREATE	6	/* no CLIENT */

/* t_faults_util.c */
extern const char *addr_a, *addr_b;
extern bool kill_from_connect;	/* whether a client may be killed while
				 * it connects (not on siw) */
extern const char spawn_fd[];	/* in a spawn argv: the child's pipe */
bool_t xdr_blob(XDR *x, struct blob *b);
double now_s(void);
uint16_t port_new(void);
unsigned long long heap_used(void);
char *const *spawn_env(void);
pid_t self_spawn(const char *const argv[], int *rd);
bool child_sent(int rd, char want);
void spawn_ready(int rd, pid_t pid, const char *what);
pid_t srv_spawn(uint16_t port);
void srv_kill(pid_t pid);
CLIENT *clnt_try(uint16_t port);
CLIENT *clnt_mk(uint16_t port);
struct rpcrdma_stats stats_of(CLIENT *cl);
enum clnt_stat call_null(CLIENT *cl, time_t sec);
uint32_t hash32(uint32_t x);
enum clnt_stat echo_raw(CLIENT *cl, size_t n, uint32_t seed, time_t sec,
			bool *bad);
enum clnt_stat call_echo(CLIENT *cl, size_t n, uint32_t seed, time_t sec);
bool st_is_conn_error(enum clnt_stat st);

/* t_faults_mix.c */
extern const char *const mix_name[MIX_KINDS];
extern atomic_long m_oks, m_cut[MIX_KINDS];
extern bool client_mode;
int mixers_start(struct mixer *ms, pthread_t *th, int n,
		 const struct mixer *m);
void mixers_join(struct mixer *ms, pthread_t *th, int n,
		 struct mix_stats *tot);
void mix_print(const char *tag, const char *what,
	       const struct mix_stats *s);
void burst_ok(CLIENT *cl, int nthreads, int per_thread, bool inline_only,
	      uint32_t seed, struct mix_stats *out);

/* Each sets up one TCase of faults_suite as it was: its timeout, then
 * its tests in their order. */
void t_faults_add_burst(TCase *f);	/* "faults": t_faults_burst.c */
void t_faults_add_cycles(TCase *c);	/* "cleanup": t_faults_cycles.c */
void t_faults_add_kills(TCase *k);	/* "kills": t_faults_kills.c */
void t_faults_add_loss(TCase *l);	/* "loss": t_faults_loss.c */

#endif
