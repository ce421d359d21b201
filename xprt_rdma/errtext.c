/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What clnt_sperror adds for a call of ours that met a limit (netid.c):
 * the limit, on which side it lies, and the knob that moves it, from what
 * the call sent and offered (struct ct_limit, filled by clnt_call.c). A
 * pure function, so that every text is tested on the host
 * (tests/unit/check_errtext.c).
 */
#include <stdio.h>
#include "clnt.h"

/* The sentence on the room the call offered for its reply. */
static int reply_text(const struct ct_limit *l, char *buf, size_t len)
{
	if (l->bytes == 0 && l->hint)
		return snprintf(buf, len,
				"The call offered no reply chunk: the "
				"procedure's reply bound, %u bytes, fits the "
				"%u-byte inline threshold (CLSET_RDMA_PROC_"
				"REPLY or CLSET_RDMA_REPLY_MAX set it; raise "
				"it if replies can be larger)",
				l->hint, l->inline_recv);
	if (l->bytes == 0)
		return snprintf(buf, len,
				"The call offered no reply chunk (its other "
				"chunks left no room for one): its reply had "
				"to fit the %u-byte inline threshold",
				l->inline_recv);
	if (l->hint)
		return snprintf(buf, len,
				"The call offered %u bytes for its reply, the "
				"procedure's reply bound (CLSET_RDMA_PROC_REPLY "
				"or CLSET_RDMA_REPLY_MAX, at most this client's "
				"RPCRDMA_MAX_MSG, %u); a larger reply, or one "
				"over the server's own RPCRDMA_MAX_MSG, is "
				"refused after the procedure ran",
				l->bytes, l->max_msg);
	return snprintf(buf, len,
			"The call offered %u bytes for its reply, this "
			"client's RPCRDMA_MAX_MSG (the procedure has no "
			"reply bound); a larger reply, or one over the "
			"server's own RPCRDMA_MAX_MSG, is refused after the "
			"procedure ran",
			l->bytes);
}

int ct_limit_text(const struct ct_limit *l, char *buf, size_t len)
{
	int n = 0, m;

	if (!len)
		return 0;
	buf[0] = 0;
	switch (l->kind) {
	case CT_LIM_NONE:
		return 0;
	case CT_LIM_CALL:
		n = snprintf(buf, len, "the call is larger than "
			     "RPCRDMA_CALL_MAX (%u bytes), the most this "
			     "client encodes", l->bytes);
		break;
	case CT_LIM_ERR_VERS:
		n = snprintf(buf, len, "RDMA_ERROR ERR_VERS: the server "
			     "does not speak RPC-over-RDMA version 1");
		break;
	case CT_LIM_ERR_CHUNK:
		if (l->call_chunked)
			n = snprintf(buf, len, "RDMA_ERROR ERR_CHUNK: the "
				     "server refused the call or its reply. "
				     "The call, %u bytes, went in read "
				     "chunks: a server takes calls up to its "
				     "own largest message (the server's "
				     "RPCRDMA_MAX_MSG). ", l->call);
		else
			n = snprintf(buf, len, "RDMA_ERROR ERR_CHUNK: the "
				     "server could not send the reply. ");
		if (n < 0 || (size_t)n >= len)
			break;
		m = reply_text(l, buf + n, len - (size_t)n);
		n = m < 0 ? m : n + m;
		break;
	case CT_LIM_REPLY:
		n = snprintf(buf, len, "the reply did not fit what the call "
			     "offered: %u bytes for the reply%s, and the "
			     "write chunks of its DDP hint "
			     "(CLSET_RDMA_PROC_DDP)", l->bytes,
			     l->hint ? " (its procedure's reply bound, "
				       "CLSET_RDMA_PROC_REPLY)"
				     : "");
		break;
	case CT_LIM_MEMLOCK:
		n = snprintf(buf, len, "the client's locked-memory limit "
			     "(RLIMIT_MEMLOCK, %u KiB: ulimit -l, systemd "
			     "LimitMEMLOCK=) cannot hold what this call "
			     "registers; raise it, or lower RPCRDMA_MAX_MSG, "
			     "or give the procedure a reply size hint "
			     "(CLSET_RDMA_PROC_REPLY)", l->bytes / 1024);
		break;
	}
	if (n < 0)
		return 0;
	return (size_t)n < len ? n : (int)len - 1;
}
