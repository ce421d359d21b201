/* SPDX-License-Identifier: BSD-3-Clause */
/* Transport options: defaults, environment overrides, engine form. */
#define _GNU_SOURCE	/* secure_getenv */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "xprt.h"

#define OPTS_DEFAULT_INLINE	4096u	/* what the Linux kernel uses */
#define OPTS_DEFAULT_CREDITS	32u
#define OPTS_MAX_CREDITS	1024u
/* 16 MiB of results or arguments and their headers with no configuration;
 * the most a header's chunks may sum to (lib/hdr.c) as well. A client
 * pins it per call in flight only for procedures without a reply hint. */
#define OPTS_DEFAULT_MAX_MSG	((16u << 20) + (64u << 10))
#define OPTS_DEFAULT_TIMEOUT_MS	5000
/* 384 KiB of pinned buffers (48 receive and 48 send buffers of 4 KiB)
 * and 3 fds per connection with the default credits and thresholds: 256
 * connections pin 96 MiB. */
#define OPTS_DEFAULT_MAX_CONNS	256u
/* A quarter: one host cannot shut every other out (security review
 * 21c8dd5, finding 6), and NFS clients with nconnect 16 fit four times. */
#define OPTS_DEFAULT_MAX_CONNS_PER_SOURCE	64u
/* Our own retries (ACK timeout, retry count 6) fail a dead peer's work
 * requests in about 7.5 s; the deadline is the backstop for a peer that
 * asked for more (its REQ's retry count binds our QP, and rxe reads 7 as
 * forever). */
#define OPTS_DEFAULT_STALL_MS	15000u
/* The Linux server's age for an idle temporary transport (6 minutes,
 * svc_conn_age_period): a client that keeps its connection for its next
 * burst keeps it; one that left it costs its slot only this long. */
#define OPTS_DEFAULT_IDLE_MS	360000u
#define OPTS_MAX_POLL_US	XPRT_POLL_MAX_US
/* What one server connection's calls may hold by default, in max_msg:
 * the most one call can (its read buffer, its rebuilt call and a Long
 * Reply gathered behind write chunks, twice max_msg), or several smaller
 * calls at once (security review 21c8dd5, finding 5). */
#define OPTS_CONN_MEM_MSGS	4u

/*
 * max_msg by default: OPTS_DEFAULT_MAX_MSG, or under a locked-memory limit
 * (an ordinary user's 8 MiB on Debian; engine/pin.c) the largest power of
 * two within an eighth of it, 64 KiB at least. A call without a reply
 * hint pins a reply chunk of max_msg while it is in flight, a Long Call
 * its whole message: an eighth leaves room for several such calls and the
 * connections' own buffers (384 KiB each), so that a process
 * started with the defaults can make every call the defaults allow; more
 * calls at once wait for pinned memory (clnt_expose.c ct_pin_wait).
 */
static uint32_t opts_default_max_msg(void)
{
	size_t lim = rpcrdma_pin_limit(), m = 64u << 10;

	if (lim == SIZE_MAX || lim / 8 >= OPTS_DEFAULT_MAX_MSG)
		return OPTS_DEFAULT_MAX_MSG;
	while (m * 2 <= lim / 8)
		m *= 2;
	return (uint32_t)m;
}

void rpcrdma_opts_default(struct rpcrdma_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->inline_send = OPTS_DEFAULT_INLINE;
	o->inline_recv = OPTS_DEFAULT_INLINE;
	o->credits = OPTS_DEFAULT_CREDITS;
	o->max_msg = opts_default_max_msg();
	o->remote_inv = true;
	o->timeout_ms = OPTS_DEFAULT_TIMEOUT_MS;
	o->max_conns = OPTS_DEFAULT_MAX_CONNS;
	o->max_conns_per_source = OPTS_DEFAULT_MAX_CONNS_PER_SOURCE;
	o->stall_ms = OPTS_DEFAULT_STALL_MS;
	o->idle_ms = OPTS_DEFAULT_IDLE_MS;
	o->conn_mem_max = RPCRDMA_CONN_MEM_AUTO;
	o->ddp_threshold = RPCRDMA_DDP_THRESHOLD;
	o->poll_us = RPCRDMA_POLL_AUTO;
	o->zc_threshold = RPCRDMA_ZC_THRESHOLD;
}

/* The environment, ignored in a set-user-ID or otherwise privileged
 * process (secure_getenv): RPCRDMA_* must not steer such a program. */
const char *rpcrdma_getenv(const char *name)
{
	return secure_getenv(name);
}

/* An unsigned environment value within [lo, hi], or 'dflt'. */
static unsigned long env_ulong(const char *name, unsigned long lo,
			       unsigned long hi, unsigned long dflt)
{
	const char *s = rpcrdma_getenv(name);
	unsigned long v;
	char *end;

	if (!s || !*s)
		return dflt;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v < lo || v > hi)
		return dflt;
	return v;
}

/* A size environment value below limit ("8M": engine/pin.c's syntax),
 * or 'dflt'. */
static uint64_t env_size(const char *name, uint64_t limit, uint64_t dflt)
{
	const char *s = rpcrdma_getenv(name);
	uint64_t v;

	if (!s || !rpcrdma_size_parse(s, &v) || v >= limit)
		return dflt;
	return v;
}

void rpcrdma_opts_from_env(struct rpcrdma_opts *o)
{
	const char *s;
	uint32_t inl;

	rpcrdma_opts_default(o);
	o->port = (uint16_t)env_ulong("RPCRDMA_PORT", 1, 65535, 0);
	o->src_addr = rpcrdma_getenv("RPCRDMA_SRCADDR");
	inl = (uint32_t)env_ulong("RPCRDMA_INLINE", RPCRDMA_PVTDATA_MIN_SIZE,
				  RPCRDMA_PVTDATA_MAX_SIZE, o->inline_send);
	o->inline_send = o->inline_recv = inl & ~(RPCRDMA_PVTDATA_MIN_SIZE - 1);
	o->credits = (uint32_t)env_ulong("RPCRDMA_CREDITS", 1,
					 OPTS_MAX_CREDITS, o->credits);
	o->max_msg = (uint32_t)env_ulong("RPCRDMA_MAX_MSG", 4096, 1u << 30,
					 o->max_msg);
	o->no_pvtdata = env_ulong("RPCRDMA_NO_PVTDATA", 0, 1, 0) != 0;
	o->max_conns = (uint32_t)env_ulong("RPCRDMA_MAX_CONNS", 1, 1u << 20,
					   o->max_conns);
	o->max_conns_per_source =
		(uint32_t)env_ulong("RPCRDMA_MAX_CONNS_PER_SOURCE", 0, 1u << 20,
				    o->max_conns_per_source);
	o->stall_ms = (uint32_t)env_ulong("RPCRDMA_STALL_MS", 0, 3600000,
					  o->stall_ms);
	o->idle_ms = (uint32_t)env_ulong("RPCRDMA_IDLE_MS", 0, 86400000,
					 o->idle_ms);
	o->conn_mem_max = (uint32_t)env_size("RPCRDMA_CONN_MEM_MAX",
					     RPCRDMA_CONN_MEM_AUTO,
					     o->conn_mem_max);
	o->ddp_threshold = (uint32_t)env_ulong("RPCRDMA_DDP_THRESHOLD", 0,
					       1u << 30, o->ddp_threshold);
	o->zc_threshold = (uint32_t)env_ulong("RPCRDMA_ZC_THRESHOLD", 0,
					      1u << 30, o->zc_threshold);
	s = rpcrdma_getenv("RPCRDMA_POLL_US");
	if (s && strcmp(s, "auto") == 0)
		o->poll_us = RPCRDMA_POLL_AUTO;
	else
		o->poll_us = (uint32_t)env_ulong("RPCRDMA_POLL_US", 0,
						 OPTS_MAX_POLL_US, o->poll_us);
}

size_t rpcrdma_conn_mem_max(const struct rpcrdma_opts *o)
{
	size_t v = o->conn_mem_max;

	if (v == 0)
		return 0;
	if (v == RPCRDMA_CONN_MEM_AUTO)
		return (size_t)OPTS_CONN_MEM_MSGS * o->max_msg;
	/* A call alone is never held (svc_recv.c): below max_msg the cap
	 * would only make every large call wait for the others. */
	return v < o->max_msg ? o->max_msg : v;
}

/* RFC 8797 section 4: sizes travel as KiB - 1, so only whole KiB count. */
static bool size_ok(uint32_t v)
{
	return v >= RPCRDMA_PVTDATA_MIN_SIZE && v <= RPCRDMA_PVTDATA_MAX_SIZE &&
	       v % RPCRDMA_PVTDATA_MIN_SIZE == 0;
}

int rpcrdma_opts_to_ep(const struct rpcrdma_opts *o, struct rpcrdma_ep_opts *eo)
{
	const char *win = rpcrdma_getenv("RPCRDMA_WINDOWS");

	if (!size_ok(o->inline_send) || !size_ok(o->inline_recv) ||
	    o->credits == 0 || o->credits > OPTS_MAX_CREDITS)
		return -EINVAL;
	memset(eo, 0, sizeof(*eo));
	eo->inline_send = o->inline_send;
	eo->inline_recv = o->inline_recv;
	eo->credits = o->credits;
	eo->send_pvtdata = !o->no_pvtdata;
	/* RFC 8797 section 4.1: the client drops R where it cannot use
	 * windows (rpcrdma_ep_connect); the server, exposing nothing,
	 * advertises it to send Send With Invalidate. */
	eo->remote_inv = o->remote_inv;
	eo->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : OPTS_DEFAULT_TIMEOUT_MS;
	eo->max_conns = o->max_conns;
	eo->max_conns_per_source = o->max_conns_per_source;
	eo->stall_ms = o->stall_ms;
	eo->idle_ms = o->idle_ms;
	/* Auto is the client's to work out, call by call (clnt_reply.c). */
	eo->poll_us = o->poll_us == RPCRDMA_POLL_AUTO ? 0 :
		      o->poll_us < OPTS_MAX_POLL_US   ? o->poll_us :
							OPTS_MAX_POLL_US;
	/* RPCRDMA_WINDOWS=0 or 1 overrides the engine's choice of memory
	 * windows (engine/reg.c), 2 asks type 2 even on rxe; any other
	 * value leaves it to the device. */
	if (win && win[0] >= '0' && win[0] <= '2' && !win[1])
		eo->windows = win[0] == '1'   ? RPCRDMA_EP_WINDOWS_ON :
			      win[0] == '2' ? RPCRDMA_EP_WINDOWS_TYPE2 :
					      RPCRDMA_EP_WINDOWS_OFF;
	return 0;
}

void xprt_createerr(enum clnt_stat st, int err)
{
	int eno = err < 0 ? -err : err;

	rpc_createerr.cf_stat = st;
	rpc_createerr.cf_error.re_errno = eno;
	/* clnt_spcreateerror prints RPC_PMAPFAILURE with the status of the
	 * rpcbind call (cf_error.re_status): left at 0 it read "Port mapper
	 * failure - Success" for a host that could not be reached. */
	if (st == RPC_PMAPFAILURE)
		rpc_createerr.cf_error.re_status =
		    eno == ETIMEDOUT ? RPC_TIMEDOUT
		    : eno == EIO     ? RPC_CANTRECV
				     : RPC_CANTSEND;
}
