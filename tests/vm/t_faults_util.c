/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * No tests: what the files of t_faults share. The addresses, the blob
 * of the echoes, the clock, ports, the heap in use; the spawning of this
 * program as a server or client child (self_spawn, spawn_env,
 * srv_spawn...); the client helpers (clnt_try, clnt_mk, call_null, the
 * checked echoes of pseudo-random bytes).
 */
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "t_faults.h"

const char *addr_a, *addr_b;
/*
 * Whether a client may be killed while it connects. Not on siw: Linux
 * 6.12's siw queues a connection that closes before siw has taken it
 * from the listening socket as a close of the listener itself, and
 * releases the listening socket; every later connect is refused and
 * destroying the listener then oopses the kernel (list corruption in
 * siw_destroy_listen). One TCP connect and close to the port does it
 * (docs/conformance.md, "Providers"); a client killed inside
 * rdma_connect is such a connection. No library can survive that.
 */
bool kill_from_connect = true;

bool_t xdr_blob(XDR *x, struct blob *b)
{
	return xdr_bytes(x, &b->data, &b->len, T_BLOB_MAX);
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A port of our own per test run (each test runs in its own child). */
uint16_t port_new(void)
{
	static uint16_t next;

	if (!next)
		next = (uint16_t)(30100 + (getpid() % 2000) * 4);
	return next++;
}

/* Bytes in live allocations (glibc; 0 under ASan). Exact only without
 * the per-thread cache, whose chunks count as used: the children this
 * program spawns run without it (spawn_env). */
unsigned long long heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return (unsigned long long)(mi.uordblks + mi.hblkhd);
}

/* In a spawn argv: stands for the write end of the child's pipe. */
const char spawn_fd[] = "FD";

/*
 * The environment this program runs in, and gives the children it
 * spawns: glibc's malloc without its per-thread cache (a caller's
 * GLIBC_TUNABLES replaced; main re-executes itself with it), so that the
 * heap in use (heap_used, P_HEAP) counts live allocations only and can be
 * compared exactly. With the cache it drifts as chunks of new sizes are
 * cached: +115 KiB over 175 client kills in a server, +4.5 KiB over 20
 * server kills in this process; flat without (6.12 guest).
 */
char *const *spawn_env(void)
{
	extern char **environ;
	static char **env;
	size_t n = 0, j = 0;

	if (env)
		return env;
	while (environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		abort();
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "GLIBC_TUNABLES=", 15) != 0)
			env[j++] = environ[i];
	env[j++] = T_TUNABLES;
	env[j] = NULL;
	return env;
}

/*
 * Starts this program with argv (argv[0] "t_faults", argv[1] the mode),
 * spawn_fd replaced by the number of the write end of a pipe whose read
 * end, close-on-exec, is returned in *rd. posix_spawn (a vfork) rather
 * than fork: the caller's other threads keep calling meanwhile, and a
 * copy of their registered memory would cost time under TCG.
 */
pid_t self_spawn(const char *const argv[], int *rd)
{
	const char *av[16];
	char sfd[16];
	size_t i;
	pid_t pid;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(fcntl(p[0], F_SETFD, FD_CLOEXEC), 0);
	snprintf(sfd, sizeof(sfd), "%d", p[1]);
	for (i = 0; argv[i]; i++) {
		ck_assert_uint_lt(i, 15);
		av[i] = argv[i] == spawn_fd ? sfd : argv[i];
	}
	av[i] = NULL;
	ck_assert_int_eq(posix_spawn(&pid, "/proc/self/exe", NULL, NULL,
				     (char *const *)av, spawn_env()), 0);
	close(p[1]);
	*rd = p[0];
	return pid;
}

/* Whether a spawned child's next byte on rd is want (bounded: 30 s). */
bool child_sent(int rd, char want)
{
	struct pollfd pfd = { .fd = rd, .events = POLLIN };
	char c = 0;

	return poll(&pfd, 1, 30000) == 1 && read(rd, &c, 1) == 1 && c == want;
}

/* Waits for the byte 'r' that a spawned child sends when it is ready. */
void spawn_ready(int rd, pid_t pid, const char *what)
{
	ck_assert_msg(child_sent(rd, 'r'), "%s (pid %d) did not come up", what,
		      (int)pid);
}

/* Starts this program in server mode on addr_b:port; returns once it
 * listens (bounded: 30 s). */
pid_t srv_spawn(uint16_t port)
{
	char sport[16];
	const char *argv[] = { "t_faults", "server", addr_b, sport, spawn_fd,
			       NULL };
	pid_t pid;
	int rd;

	snprintf(sport, sizeof(sport), "%u", port);
	pid = self_spawn(argv, &rd);
	spawn_ready(rd, pid, "the server");
	close(rd);
	return pid;
}

void srv_kill(pid_t pid)
{
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
}

/* ---- client helpers ---- */

/* A CLIENT of the tests' shape, or NULL (rpc_createerr says why); its
 * connect may take timeout_ms. */
static CLIENT *clnt_try_ms(uint16_t port, int timeout_ms)
{
	struct rpcrdma_opts o;

	rpcrdma_opts_default(&o);
	o.port = port;
	o.src_addr = addr_a;
	o.credits = 8;
	o.max_msg = T_MAX_MSG;
	o.timeout_ms = timeout_ms;
	return clnt_rdma_create(addr_b, T_PROG, T_VERS, &o);
}

/* Where a connect may meet a dying server: 2 s. */
CLIENT *clnt_try(uint16_t port)
{
	return clnt_try_ms(port, 2000);
}

/* Where the server is up and the connect must succeed: 15 s, for a
 * guest beside a second one on a slow host (2 s ran out once under ASan
 * on 6.1 in CI, in test_kill_during_burst's first connect). */
CLIENT *clnt_mk(uint16_t port)
{
	CLIENT *cl = clnt_try_ms(port, 15000);

	ck_assert_msg(cl != NULL, "clnt_rdma_create: %s",
		      clnt_spcreateerror("clnt"));
	return cl;
}

struct rpcrdma_stats stats_of(CLIENT *cl)
{
	struct rpcrdma_stats st;

	ck_assert(clnt_control(cl, CLGET_RDMA_STATS, (char *)&st));
	return st;
}

enum clnt_stat call_null(CLIENT *cl, time_t sec)
{
	struct timeval tv = { sec, 0 };

	return clnt_call(cl, P_NULL, XP(xdr_void), NULL, XP(xdr_void), NULL,
			 tv);
}

uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/* n pseudo-random bytes of seed (xorshift32, 4 bytes a step). */
static void fill(char *p, size_t n, uint32_t seed)
{
	uint32_t x = hash32(seed) | 1u;

	for (size_t i = 0; i < n; i += 4) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		memcpy(p + i, &x, n - i < 4 ? n - i : 4);
	}
}

/* ECHO of n pseudo-random bytes of seed (each call its own seed, so that
 * another call's reply cannot pass for its own). *bad: a success that
 * brought back other bytes. */
enum clnt_stat echo_raw(CLIENT *cl, size_t n, uint32_t seed,
			time_t sec, bool *bad)
{
	struct timeval tv = { sec, 0 };
	struct blob a = { (u_int)n, malloc(n ? n : 1) };
	struct blob r = { 0, NULL };
	enum clnt_stat st;

	*bad = false;
	if (!a.data)
		abort();
	fill(a.data, n, seed);
	st = clnt_call(cl, P_ECHO, XP(xdr_blob), &a, XP(xdr_blob), &r, tv);
	if (st == RPC_SUCCESS)
		*bad = r.len != n || memcmp(r.data, a.data, n) != 0;
	clnt_freeres(cl, XP(xdr_blob), &r);
	free(a.data);
	return st;
}

/* ECHO of n bytes, checked. */
enum clnt_stat call_echo(CLIENT *cl, size_t n, uint32_t seed,
			 time_t sec)
{
	enum clnt_stat st;
	bool bad;

	st = echo_raw(cl, n, seed, sec, &bad);
	ck_assert_msg(!bad, "echo %zu (seed %#x): bytes differ", n, seed);
	return st;
}

bool st_is_conn_error(enum clnt_stat st)
{
	return st == RPC_CANTRECV || st == RPC_CANTSEND || st == RPC_TIMEDOUT;
}
