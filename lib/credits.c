/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Credit-based flow control (RFC 8166 section 3.3.1).
 *
 * The requester side counts calls in flight against the last grant; the
 * responder side chooses what to put in rdma_credit.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/credits.h>

/*
 * RFC 8166 section 3.3.3: until it has received a valid reply carrying the
 * responder's credit value, a requester MUST NOT assume more than one
 * credit. A max of 0 would leave no usable slot at all; it is taken as 1
 * so that granted always stays within 1..max.
 */
void rpcrdma_req_credits_init(struct rpcrdma_req_credits *c, uint32_t max)
{
	if (!c)
		return;
	memset(c, 0, sizeof(*c));
	c->max = max ? max : 1;
	c->granted = 1;
}

/*
 * RFC 8166 section 3.3.1: "The requester MUST NOT send unacknowledged
 * requests in excess of this granted responder credit limit." The test is
 * >= rather than == because a later, smaller grant can leave inflight
 * above granted: then nothing new goes out until enough calls end.
 */
bool rpcrdma_req_credits_get(struct rpcrdma_req_credits *c)
{
	if (!c || c->inflight >= c->granted)
		return false;
	c->inflight++;
	if (c->inflight > c->peak)
		c->peak = c->inflight;
	return true;
}

/* A put without a matching get (a caller bug) must not wrap to 2^32-1. */
void rpcrdma_req_credits_put(struct rpcrdma_req_credits *c)
{
	if (c && c->inflight > 0)
		c->inflight--;
}

/*
 * RFC 8166 section 3.3.1: the granted value MUST NOT be zero (it would
 * deadlock the connection); a peer that sends 0 anyway is treated as
 * granting 1 and counted. A grant above our slot count is useless to us
 * (we could not have that many calls outstanding) and is clamped to max,
 * also counted. The grant may shrink below inflight; calls already sent
 * stay valid, get() simply refuses until inflight drops below it.
 */
void rpcrdma_req_credits_update(struct rpcrdma_req_credits *c, uint32_t grant)
{
	if (!c)
		return;
	if (grant == 0) {
		c->zero_grants++;
		grant = 1;
	}
	if (grant > c->max) {
		c->clamped_grants++;
		grant = c->max;
	}
	c->granted = grant;
}

/*
 * Responder grant, RFC 8166 section 3.3.1:
 *  - never 0 ("The granted value MUST NOT be zero, since such a value
 *    would result in deadlock");
 *  - never above max (our policy limit for this connection) nor above the
 *    receives currently posted: a credit increase must be effected
 *    (receives posted) before the reply announcing it is sent, or a Send
 *    from the requester may find no Receive and break the connection;
 *  - no more than the requester asked for: the effective limit "is always
 *    the lower of the requested and granted credit values", so granting
 *    more than the request only promises receives that will not be used.
 *    A request of 0 is read as a request for 1.
 * With no receive posted (or max 0) the result is still 1, because 0 is
 * forbidden on the wire: the caller must post a receive before it sends
 * the reply that carries this grant (it has just consumed one for the
 * call being answered and normally reposts it first).
 */
uint32_t rpcrdma_rsp_credits_grant(uint32_t requested, uint32_t max,
				   uint32_t recvs_posted)
{
	uint32_t g = requested ? requested : 1;

	if (g > max)
		g = max;
	if (g > recvs_posted)
		g = recvs_posted;
	return g ? g : 1;
}
