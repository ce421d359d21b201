/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-RPC memory registration for chunks: each region gets its own MR with
 * exactly the remote access the chunk needs (RFC 8166 section 3.4.5: read
 * chunks are read by the responder, write and reply chunks written), and
 * is deregistered when the RPC ends. Deregister before rpcrdma_ep_destroy:
 * an MR keeps the endpoint's protection domain alive.
 */
#include <errno.h>
#include <stdlib.h>

#include "ep_int.h"

int rpcrdma_ep_reg(struct rpcrdma_ep *ep, void *addr, size_t len,
		   enum rpcrdma_access access, struct rpcrdma_mr **out)
{
	struct rpcrdma_mr *m;
	int flags = IBV_ACCESS_LOCAL_WRITE;

	if (!ep || !out || !addr || !len)
		return -EINVAL;
	*out = NULL;
	switch (access) {
	case RPCRDMA_ACCESS_LOCAL:
		break;
	case RPCRDMA_ACCESS_REMOTE_READ:
		flags |= IBV_ACCESS_REMOTE_READ;
		break;
	case RPCRDMA_ACCESS_REMOTE_WRITE:
		/* Remote write requires local write (verbs rule). */
		flags |= IBV_ACCESS_REMOTE_WRITE;
		break;
	default:
		return -EINVAL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->mr = ibv_reg_mr(ep->pd, addr, len, flags);
	if (!m->mr) {
		int ret = errno > 0 ? -errno : -ENOMEM;

		free(m);
		return ret;
	}
	m->ep = ep;
	__atomic_add_fetch(&ep->mr_count, 1, __ATOMIC_RELAXED);
	*out = m;
	return 0;
}

uint32_t rpcrdma_mr_rkey(const struct rpcrdma_mr *mr)
{
	return mr->mr->rkey;
}

/*
 * A registration the provider would not drop may still answer its rkey
 * while its memory goes back to its owner for reuse (security review 11):
 * the connection closes at once, its QP to error, so that no peer reaches
 * the memory through it; the registration is leaked with its protection
 * domain (dereg_failures counts it).
 */
void rpcrdma_ep_dereg_failed(struct rpcrdma_ep *ep)
{
	RPCRDMA_STAT_ADD(ep, dereg_failures, 1);
	rpcrdma_ep_close(ep, -EIO);
}

void rpcrdma_mr_dereg(struct rpcrdma_mr *mr)
{
	if (!mr)
		return;
	if (ibv_dereg_mr(mr->mr))
		rpcrdma_ep_dereg_failed(mr->ep);
	else
		__atomic_sub_fetch(&mr->ep->mr_count, 1, __ATOMIC_RELAXED);
	free(mr);
}
