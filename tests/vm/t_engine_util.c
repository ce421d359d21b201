/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the tests of t_engine share (t_engine.h): the addresses from the
 * environment (the fixture setup), the endpoint options, a listener with
 * its accepting thread (one-shot or cycling), and a connected pair of
 * endpoints with the checks of what RFC 8797 negotiation gave. No test
 * lives here.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/ep_int.h"
#include "t_engine.h"

struct sockaddr_in addr_a, addr_b;

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Whether ep's device speaks iWARP (siw): the device decides, not the
 * test's environment. */
bool cep_iwarp(const struct rpcrdma_ep *ep)
{
	return ep->pd->context->device->transport_type == IBV_TRANSPORT_IWARP;
}

static void addr_from_env(struct sockaddr_in *sin, const char *var,
			  const char *dflt)
{
	const char *v = getenv(var);

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	ck_assert_int_eq(inet_pton(AF_INET, v && *v ? v : dflt,
				   &sin->sin_addr), 1);
}

void setup(void)
{
	addr_from_env(&addr_a, "RPCRDMA_ADDR_A", "10.99.0.1");
	addr_from_env(&addr_b, "RPCRDMA_ADDR_B", "10.99.0.2");
}

struct rpcrdma_ep_opts mkopts(uint32_t snd, uint32_t rcv,
			      uint32_t credits, bool pvt)
{
	struct rpcrdma_ep_opts o = {
		.inline_send = snd,
		.inline_recv = rcv,
		.credits = credits,
		.send_pvtdata = pvt,
		.remote_inv = false,
		.timeout_ms = T_TIMEOUT_MS,
	};
	return o;
}

/* ---- a listener and an accepting thread ---- */

static void *srv_main(void *arg)
{
	struct srv *s = arg;
	uint64_t deadline = now_ms() + 30000;

	for (;;) {
		struct pollfd pfd = { .fd = rpcrdma_listener_fd(s->l),
				      .events = POLLIN };
		struct rpcrdma_ep *ep;
		int ret;

		if (s->cycle ? s->stop : now_ms() > deadline)
			break;
		poll(&pfd, 1, 50);
		while ((ret = rpcrdma_listener_accept(s->l, &ep)) == 1) {
			if (!s->cycle) {
				s->ep = ep;
				return NULL;
			}
			rpcrdma_ep_destroy(ep);
			__atomic_add_fetch(&s->accepted, 1, __ATOMIC_SEQ_CST);
		}
		if (ret < 0) {
			s->err = ret;
			return NULL;
		}
	}
	if (!s->cycle)
		s->err = -ETIMEDOUT;
	return NULL;
}

void srv_start(struct srv *s, const struct rpcrdma_ep_opts *o,
	       bool cycle)
{
	memset(s, 0, sizeof(*s));
	s->cycle = cycle;
	ck_assert_int_eq(rpcrdma_listener_create(
				 (const struct sockaddr *)&addr_b, o, &s->l), 0);
	ck_assert_int_ne(((const struct sockaddr_in *)
				  rpcrdma_listener_addr(s->l))->sin_port, 0);
	ck_assert_int_eq(pthread_create(&s->th, NULL, srv_main, s), 0);
}

struct sockaddr_in srv_dst(const struct srv *s)
{
	struct sockaddr_in dst = addr_b;

	dst.sin_port = ((const struct sockaddr_in *)
				rpcrdma_listener_addr(s->l))->sin_port;
	return dst;
}

/* Connects a client with co to a listener with so; both endpoints out. */
void pair_connect(const struct rpcrdma_ep_opts *co,
		  const struct rpcrdma_ep_opts *so, struct srv *s,
		  struct rpcrdma_ep **cep)
{
	struct sockaddr_in dst;

	srv_start(s, so, false);
	dst = srv_dst(s);
	ck_assert_int_eq(rpcrdma_ep_connect((const struct sockaddr *)&dst,
					    (const struct sockaddr *)&addr_a,
					    co, cep), 0);
	ck_assert_int_eq(pthread_join(s->th, NULL), 0);
	ck_assert_int_eq(s->err, 0);
	ck_assert_ptr_nonnull(s->ep);
	ck_assert(rpcrdma_ep_connected(*cep));
	ck_assert(rpcrdma_ep_connected(s->ep));
	ck_assert_int_ge(rpcrdma_ep_fd(*cep), 0);
	ck_assert_int_ge(rpcrdma_ep_fd(s->ep), 0);
}

void pair_destroy(struct srv *s, struct rpcrdma_ep *cep)
{
	rpcrdma_ep_destroy(cep);
	rpcrdma_ep_destroy(s->ep);
	rpcrdma_listener_destroy(s->l);
}

void check_inline(const struct rpcrdma_ep *ep, uint32_t snd,
		  uint32_t rcv, bool sent)
{
	const struct rpcrdma_inline *in = rpcrdma_ep_inline(ep);

	ck_assert_uint_eq(in->send_max, snd);
	ck_assert_uint_eq(in->recv_max, rcv);
	ck_assert(in->peer_sent_pvtdata == sent);
	ck_assert(!in->peer_remote_inv);
}
