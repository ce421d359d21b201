/* SPDX-License-Identifier: BSD-3-Clause */
/* Counters: which paths messages actually took. Per connection and per
 * process; tests assert on them. */
#ifndef RPCRDMA_STATS_H
#define RPCRDMA_STATS_H

#include <stdint.h>

struct rpcrdma_stats {
	/* Transport headers sent / received, by rdma_proc. */
	uint64_t sent_msg, sent_nomsg, sent_error;
	uint64_t recv_msg, recv_nomsg, recv_error;
	/* Requester: how calls went out and how replies came back
	 * (replies_write_chunks: replies with data in a write chunk, also
	 * counted as inline or long by how the rest came). */
	uint64_t calls_inline, calls_read_chunks, calls_long;
	uint64_t replies_inline, replies_write_chunks, replies_long;
	/* Chunks by kind, and bytes moved by RDMA Read / RDMA Write.
	 * Requester: read chunks sent, write and reply chunks offered.
	 * Responder: calls whose chunks it read, write chunks it filled,
	 * reply chunks it used. */
	uint64_t read_chunks, write_chunks, reply_chunks;
	uint64_t rdma_read_bytes, rdma_write_bytes;
	/* RDMA_ERROR by code, both directions. */
	uint64_t err_vers_sent, err_chunk_sent;
	uint64_t err_vers_recv, err_chunk_recv;
	uint64_t bad_headers;		/* headers rejected by the decoder */
	/* Flow control. */
	uint64_t credits_granted;	/* last grant sent or received */
	uint64_t inflight_peak;		/* most calls outstanding at once */
	uint64_t credit_waits;		/* callers that waited for a credit */
	/* Memory exposure and invalidation. */
	uint64_t remote_invalidations;	/* Send With Invalidate seen / sent */
	uint64_t local_invalidations;
	/* Connections. */
	uint64_t connects, disconnects;
	/* Responder flow control and limits. The grant is min(requested,
	 * configured maximum), constant while a connection lives: min and
	 * max of the grants sent show it (0: none sent yet). */
	uint64_t credits_grant_min, credits_grant_max;
	uint64_t credit_overruns;	/* clients disconnected for sending
					 * more calls than granted */
	uint64_t connections_refused;	/* over a connection limit (all, or
					 * from one host) */
	uint64_t send_failures;		/* replies or RDMA_ERRORs that could
					 * not be sent: connection closed */
	uint64_t xid_mismatches;	/* rdma_xid != RPC XID: ERR_CHUNK */
	/* Completion-driven transfers (the server's Reads and replies). */
	uint64_t xfers_deferred;	/* had to wait for send queue room */
	uint64_t reads_inflight_peak;	/* most RDMA Reads in flight at once */
	uint64_t transfer_stalls;	/* connections closed: their Reads,
					 * Writes or Sends made no progress
					 * for stall_ms */
	/* Verbs or RDMA-CM commands the kernel refused with EACCES/EPERM:
	 * the calling thread's credentials are no longer those that opened
	 * the device (README: servers that switch credentials). The
	 * connection is closed. */
	uint64_t permission_errors;
	/* rpcrdma_svc_run: dispatches after which the serving thread's
	 * credentials had changed; its reply went out from another thread
	 * and the thread was replaced. */
	uint64_t cred_changes;
	/* Requester: well-formed messages dropped because no call of ours
	 * matches them (an unknown or finished XID): they change neither
	 * the grant nor any call. */
	uint64_t replies_unmatched;
	/* Requester: read chunks exposed from the caller's memory, not
	 * copied (opts.zc_threshold). */
	uint64_t zc_chunks;
	/* Registrations the provider would not drop: the connection was
	 * closed so that their rkeys reach nothing (security review 11). */
	uint64_t dereg_failures;
	/* Responder: calls whose read chunks did not fit their inline part
	 * (RFC 8166 section 4.5.2), answered GARBAGE_ARGS, not dispatched. */
	uint64_t garbage_args_sent;
	/* Backward direction (RFC 8167), counted apart from the forward
	 * one. Server (backward requester): calls sent through callback
	 * CLIENTs, their replies matched. Client (backward responder):
	 * calls received, replies sent (PROG_UNAVAIL and SYSTEM_ERR
	 * answers too), calls dropped (more than its grant outstanding,
	 * unparsable).
	 * bc_inflight: backward calls outstanding now (server: sent and not
	 * answered; client: received and not yet answered), bc_inflight_peak
	 * its highest value, bc_credits_granted the last backward grant
	 * sent (client) or received (server). */
	uint64_t bc_calls_sent, bc_replies_recv;
	uint64_t bc_calls_recv, bc_replies_sent, bc_calls_dropped;
	uint64_t bc_inflight, bc_inflight_peak, bc_credits_granted;
	/* Server: connections closed because every backward credit it may
	 * use was held by callback calls that had timed out (their replies
	 * never came): no callback could be sent on them again. */
	uint64_t bc_abandoned_closes;
	/* Client: backward replies larger than the server's inline receive
	 * threshold (or that would not encode), answered SYSTEM_ERR
	 * instead. */
	uint64_t bc_replies_too_big;
	/* Registrations that would have passed the process's locked-memory
	 * limit (RLIMIT_MEMLOCK). Client: calls that waited for another
	 * call's pinned memory (memlock_waits) and calls failed for it
	 * (memlock_refusals: RPC_SYSTEMERROR, ENOMEM, clnt_sperror names
	 * the limit). Server: calls whose chunks it could not register,
	 * answered RDMA_ERROR ERR_CHUNK, the connection kept. */
	uint64_t memlock_waits, memlock_refusals;
	/* Server: connections it closed on its own, whatever the reason
	 * (rpcrdma_set_log tells each with its peer and reason); and the
	 * reasons not counted above: an RDMA Read or Write of the client's
	 * chunks failed (a bad rkey, memory no longer exposed), or a
	 * resource of the server's failed (memory, a receive that could
	 * not be reposted, a local work request error). The other reasons: credit_overruns,
	 * send_failures, transfer_stalls, bc_abandoned_closes,
	 * permission_errors, dereg_failures. */
	uint64_t server_closes, closes_chunk_failed, closes_internal;
	/* Server: closes because the client broke the protocol in a way
	 * the verbs saw (a message over the inline threshold agreed, an
	 * RDMA Write With Immediate), or stopped answering (the transport's
	 * retries ran out). */
	uint64_t closes_protocol, closes_unreachable;
	/* Listener: accepted connections whose client did not complete the
	 * handshake within the listener's timeout_ms, dropped when a new
	 * request wanted their slot (each was counted in no other way). */
	uint64_t handshakes_expired;
	/* Server: connections closed because they stayed idle for idle_ms
	 * (closes_idle), or, idle for half as long, to make room for a new
	 * client at max_conns (closes_evicted). */
	uint64_t closes_idle, closes_evicted;
	/* Server: calls that waited because their connection's calls held
	 * opts.conn_mem_max bytes (before their RDMA Reads, or before their
	 * dispatch), each counted once; and a gauge, the most bytes one
	 * connection's calls held at once (per connection: its own). */
	uint64_t calls_waited_memory, conn_mem_peak;
	/* Verbs work, for what a call costs (bench/run): ibv_post_send
	 * calls (each rings the send queue's doorbell, a system call on
	 * rxe and siw), the work requests they posted, completions reaped
	 * from the CQ, receives posted. */
	uint64_t sq_doorbells, sq_wrs, cq_reaped, rq_wrs;
};

/* Process-wide totals since start (all connections, both sides). */
void rpcrdma_stats_global(struct rpcrdma_stats *out);

#endif /* RPCRDMA_STATS_H */
