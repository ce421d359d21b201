/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * No tests: the mixed load of t_faults (NULL calls, inline echoes,
 * echoes in chunks, each success checked byte for byte) on threads of
 * one CLIENT, used by the faults and kills tests and by the client
 * child (client mode); its counts of where a kill lands and its
 * statistics.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "t_faults.h"

/* ---- the mixed load: NULL, inline echo, echo in chunks ---- */

const char *const mix_name[MIX_KINDS] = { "NULL", "inline echo",
					   "chunked echo" };

/*
 * What call seed is: a quarter NULL; a quarter ECHO of 1 to 3,000 bytes
 * (inline both ways); half ECHO of 4 KiB + 1 to T_BLOB_MAX bytes, half of
 * those up to 32 KiB: beyond the 4 KiB inline threshold, the argument
 * travels in a read chunk (DDP) and the result in the offered reply chunk
 * (a Long Reply). inline_only: always the second kind.
 */
static int mix_kind(uint32_t seed, bool inline_only, size_t *len)
{
	uint32_t h = hash32(seed), r = hash32(h), k = inline_only ? 1 : h % 4;

	switch (k) {
	case 0:
		*len = 0;
		return MIX_NULL;
	case 1:
		*len = 1 + r % 3000;
		return MIX_INLINE;
	default:
		*len = r & 1 ? 4097 + (r >> 1) % (32768 - 4096)
			     : 32769 + (r >> 1) % (T_BLOB_MAX - 32768);
		return MIX_CHUNKS;
	}
}

/* Where a kill lands: verified successes, and calls cut on a live
 * connection (RPC_CANTRECV) by kind, of all mixers. */
atomic_long m_oks, m_cut[MIX_KINDS];
/* A client child (client mode) has no check: it reports by exit status. */
bool client_mode;

static void mix_fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void mix_fail(int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (client_mode) {
		fprintf(stderr, "t_faults client %d: %s\n", (int)getpid(), msg);
		_exit(code);
	}
	ck_abort_msg("%s", msg);
}

static void *mixer_main(void *arg)
{
	struct mixer *m = arg;

	for (long i = 0; m->ncalls == 0 || i < m->ncalls; i++) {
		uint32_t seed = m->seed + ((uint32_t)m->id << 24) + (uint32_t)i;
		enum clnt_stat st;
		size_t len;
		bool bad = false;
		double t0, d;
		int kind;

		if (m->stop && atomic_load(m->stop))
			break;
		kind = mix_kind(seed, m->inline_only, &len);
		t0 = now_s();
		st = kind == MIX_NULL ? call_null(m->cl, M_TMO_S)
				      : echo_raw(m->cl, len, seed, M_TMO_S,
						 &bad);
		d = now_s() - t0;
		m->s.calls[kind]++;
		if (d > m->s.worst) {
			m->s.worst = d;
			m->s.worst_kind = kind;
		}
		if (bad)
			mix_fail(X_BYTES, "thread %d call %ld (%s of %zu bytes, "
				 "seed %#x): a success with other bytes",
				 m->id, i, mix_name[kind], len, seed);
		if (d > M_TMO_S + M_MARGIN_S)
			mix_fail(X_SLOW, "thread %d call %ld (%s of %zu bytes)"
				 " took %.2f s (limit %d + %.0f s): %s", m->id,
				 i, mix_name[kind], len, d, M_TMO_S,
				 M_MARGIN_S, clnt_sperrno(st));
		if (st == RPC_CANTRECV)
			atomic_fetch_add(&m_cut[kind], 1);
		if (st == RPC_SUCCESS) {
			atomic_fetch_add(&m_oks, 1);
			m->s.ok[kind]++;
			m->s.ok_bytes += (long long)len;
			if (m->ok_fd >= 0 && write(m->ok_fd, "o", 1) < 0) {
				/* a full pipe: the count is a lower bound */
			}
			continue;
		}
		m->s.failed[(unsigned)st < 32 ? st : 31]++;
		if (m->strict || !st_is_conn_error(st)) {
			/* What the transport saw: the CLIENT's counters. */
			struct rpcrdma_stats cs;

			if (clnt_control(m->cl, CLGET_RDMA_STATS, (char *)&cs))
				stats_print("t_faults failed call, client",
					    &cs);
			mix_fail(X_FAILED, "thread %d call %ld (%s of %zu "
				 "bytes) failed after %.3f s: %s", m->id, i,
				 mix_name[kind], len, d, clnt_sperrno(st));
		}
		usleep(M_BACKOFF_US);
	}
	return NULL;
}

static void mix_stats_add(struct mix_stats *t, const struct mix_stats *s)
{
	for (int k = 0; k < MIX_KINDS; k++) {
		t->calls[k] += s->calls[k];
		t->ok[k] += s->ok[k];
	}
	for (int i = 0; i < 32; i++)
		t->failed[i] += s->failed[i];
	t->ok_bytes += s->ok_bytes;
	if (s->worst > t->worst) {
		t->worst = s->worst;
		t->worst_kind = s->worst_kind;
	}
}

/* n threads of the mixed load on cl (from mixer m's settings); the
 * caller joins them with mixers_join. No check in here: a client child
 * uses it too. */
int mixers_start(struct mixer *ms, pthread_t *th, int n,
		 const struct mixer *m)
{
	for (int i = 0; i < n; i++) {
		ms[i] = *m;
		ms[i].id = i;
		if (pthread_create(&th[i], NULL, mixer_main, &ms[i]))
			return -1;
	}
	return 0;
}

void mixers_join(struct mixer *ms, pthread_t *th, int n,
		 struct mix_stats *tot)
{
	memset(tot, 0, sizeof(*tot));
	for (int i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		mix_stats_add(tot, &ms[i].s);
	}
}

void mix_print(const char *tag, const char *what,
	       const struct mix_stats *s)
{
	printf("%s: %s:", tag, what);
	for (int k = 0; k < MIX_KINDS; k++)
		printf(" %s %ld ok of %ld;", mix_name[k], s->ok[k],
		       s->calls[k]);
	printf(" %.1f MiB echoed and verified; longest call %.3f s (%s)\n",
	       (double)s->ok_bytes / (1 << 20), s->worst,
	       mix_name[s->worst_kind]);
	for (int i = 0; i < 32; i++)
		if (s->failed[i])
			printf("%s:   failed: %5ld x %s\n", tag, s->failed[i],
			       clnt_sperrno((enum clnt_stat)i));
}

/* nthreads threads, per_thread calls each (mixed, or inline echoes
 * only): all succeed, with the right bytes. */
void burst_ok(CLIENT *cl, int nthreads, int per_thread,
	      bool inline_only, uint32_t seed,
	      struct mix_stats *out)
{
	struct mixer ms[8], m = { .cl = cl, .seed = seed, .strict = true,
				  .inline_only = inline_only,
				  .ncalls = per_thread, .ok_fd = -1 };
	struct mix_stats tot;
	pthread_t th[8];

	ck_assert_int_le(nthreads, 8);
	ck_assert_int_eq(mixers_start(ms, th, nthreads, &m), 0);
	mixers_join(ms, th, nthreads, &tot);
	ck_assert_int_eq(tot.ok[MIX_NULL] + tot.ok[MIX_INLINE] +
				 tot.ok[MIX_CHUNKS],
			 nthreads * per_thread);
	if (out)
		*out = tot;
}
