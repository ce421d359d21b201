/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs engine: one RDMA-CM connection (an "endpoint") with its queue
 * pair, completion channel, receive and send buffers, memory registration
 * for chunks and RDMA Read / Write. No libtirpc types below this line.
 *
 * Threading: rpcrdma_ep_send, rpcrdma_ep_reg and rpcrdma_mr_dereg may be
 * called from any thread. rpcrdma_ep_poll, rpcrdma_ep_rx_done,
 * rpcrdma_ep_xfer_start and rpcrdma_ep_xfer_done must be called by one
 * thread at a time (the caller serialises them: the client's current
 * poller, the server's svc_run thread).
 */
#ifndef RPCRDMA_ENGINE_H
#define RPCRDMA_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <rpcrdma/wire.h>
#include <rpcrdma/pvtdata.h>
#include <rpcrdma/stats.h>

struct rpcrdma_ep;
struct rpcrdma_listener;
struct rpcrdma_mr;

/* Whether an endpoint uses memory windows (rpcrdma_ep_windows). */
enum rpcrdma_ep_windows {
	RPCRDMA_EP_WINDOWS_AUTO = 0,	/* the device and kernel decide */
	RPCRDMA_EP_WINDOWS_OFF,		/* never */
	RPCRDMA_EP_WINDOWS_ON,		/* whenever the device has type 2
					 * (type 1 on rxe: reg.c) */
	RPCRDMA_EP_WINDOWS_TYPE2,	/* type 2 even on rxe, where a server
					 * can crash the host (reg.c): only
					 * with trusted servers, and tests */
};

struct rpcrdma_ep_opts {
	uint32_t inline_send;	/* our RFC 8797 Send size */
	uint32_t inline_recv;	/* our RFC 8797 Receive size = rx buffer size */
	uint32_t credits;	/* receives to keep posted / calls in flight */
	uint32_t bc_credits;	/* backward-direction messages (RFC 8167
				 * section 3.3): receives and send buffers
				 * beyond credits, 0: none */
	bool send_pvtdata;	/* false: send no Private Data (tests) */
	bool remote_inv;	/* R bit to advertise */
	int timeout_ms;		/* resolution and connection establishment */
	uint32_t max_conns;	/* listener: connections at once, 0: no limit */
	uint32_t max_conns_per_source; /* listener: of them from one host,
				 * 0: no limit */
	uint32_t stall_ms;	/* accepted: transfers' no-progress deadline
				 * (0: none); see rpcrdma_ep_check_stall */
	uint32_t idle_ms;	/* accepted: closed after this long with
				 * nothing carried or in progress (0:
				 * never); rpcrdma_ep_check_stall */
	uint8_t retry_count;	/* transport retries we ask of the peer's QP
				 * (0: 6; tests play a peer asking 7) */
	uint8_t rnr_retry_count; /* accepted: RNR retries we ask of the
				 * client's QP (0, never: tests play a
				 * server asking 7, for ever on rxe) */
	bool no_read_resources;	/* client: answer no RDMA Read of the peer
				 * (responder_resources 0; tests) */
	uint32_t poll_us;	/* rpcrdma_ep_poll polls the CQ this long
				 * before it sleeps on the channel (0) */
	enum rpcrdma_ep_windows windows; /* rpcrdma_ep_windows' answer:
				 * AUTO (0) lets the device decide; the glue
				 * sets ON / OFF from RPCRDMA_WINDOWS=1 / 0 */
};

/* A received message; valid until rpcrdma_ep_rx_done(). */
struct rpcrdma_rx {
	const uint8_t *data;
	uint32_t len;
	bool invalidated;	/* arrived as Send With Invalidate */
	uint32_t inv_rkey;
	void *priv;		/* engine's own */
};

/* Access an MR grants the peer. Local read is always granted; local
 * write with LOCAL (memory the adapter writes into) and REMOTE_WRITE
 * only (verbs require it there, and a read-only buffer cannot be
 * registered with it). */
enum rpcrdma_access {
	RPCRDMA_ACCESS_LOCAL = 0,
	RPCRDMA_ACCESS_REMOTE_READ = 1,	/* read chunks */
	RPCRDMA_ACCESS_REMOTE_WRITE = 2,/* write and reply chunks */
};

/* Whether the peer answers our RDMA Reads at all: a client that offered
 * no responder resources does not (rdma_accept(3): our initiator depth
 * may not exceed them), and its read chunks get ERR_CHUNK. */
bool rpcrdma_ep_can_read(const struct rpcrdma_ep *ep);

/* --- connection lifetime --- */

/* Client: resolves dst (from src when given), creates the QP, connects
 * with Private Data. 0, or -ETIMEDOUT / -ECONNREFUSED / -errno. */
int rpcrdma_ep_connect(const struct sockaddr *dst, const struct sockaddr *src,
		       const struct rpcrdma_ep_opts *o, struct rpcrdma_ep **out);

/* Server: binds and listens; fd is the CM event channel (non-blocking). */
int rpcrdma_listener_create(const struct sockaddr *addr,
			    const struct rpcrdma_ep_opts *o,
			    struct rpcrdma_listener **out);
int rpcrdma_listener_fd(const struct rpcrdma_listener *l);
/* Bound address (the port to register with rpcbind). */
const struct sockaddr *rpcrdma_listener_addr(const struct rpcrdma_listener *l);
/* Handles the pending CM events. Returns 1 with *out when a connection
 * became established, 0 when nothing more is pending, or -errno. */
int rpcrdma_listener_accept(struct rpcrdma_listener *l,
			    struct rpcrdma_ep **out);
void rpcrdma_listener_destroy(struct rpcrdma_listener *l);

/* Disconnects, drains, frees everything the endpoint holds. Deregister
 * the endpoint's rpcrdma_mr first (they pin its protection domain). */
void rpcrdma_ep_destroy(struct rpcrdma_ep *ep);

/* Completion channel fd (non-blocking) to poll()/xprt_register. It is an
 * epoll fd holding the completion channel and the connection's own CM
 * event channel, so it also turns readable when the peer disconnects;
 * rpcrdma_ep_poll then returns -ENOTCONN (after any queued messages). */
int rpcrdma_ep_fd(const struct rpcrdma_ep *ep);
/* What RFC 8797 negotiation settled on. */
const struct rpcrdma_inline *rpcrdma_ep_inline(const struct rpcrdma_ep *ep);
/* Peer address (for svc_getcaller / xp_rtaddr). */
const struct sockaddr *rpcrdma_ep_peer(const struct rpcrdma_ep *ep);
/* False once the connection is lost or flushed. */
bool rpcrdma_ep_connected(const struct rpcrdma_ep *ep);
/* The same after reading what its CM channel holds (a disconnect nobody
 * has read yet): one system call. */
bool rpcrdma_ep_check_cm(struct rpcrdma_ep *ep);
/* n calls of ours the peer has yet to answer (a server's backward calls,
 * RFC 8167): the idle check (opts.idle_ms) counts them as in progress,
 * though nothing of theirs is posted or held. Any thread. */
void rpcrdma_ep_set_holds(struct rpcrdma_ep *ep, uint32_t n);
/* Credits the receives are provisioned for: receives stay posted for this
 * many calls in flight besides the ones being served (constant while the
 * endpoint lives; opts.credits unless the device allows fewer). */
uint32_t rpcrdma_ep_credits(const struct rpcrdma_ep *ep);
/* The endpoint's own RDMA-CM event channel fd (a zero-length write()
 * to it fails with EACCES once the calling thread's credentials are no
 * longer the opener's: svc_pool.c probes with it). */
int rpcrdma_ep_cm_fd(const struct rpcrdma_ep *ep);
/* Received messages already queued, not yet handed out by poll. */
uint32_t rpcrdma_ep_rx_queued(const struct rpcrdma_ep *ep);
/* Of those, how many pred accepts (pred looks at the bytes only, under
 * the endpoint's lock: it must be short and must not call the engine). */
uint32_t rpcrdma_ep_rx_queued_count(struct rpcrdma_ep *ep,
				    bool (*pred)(const uint8_t *data,
						 uint32_t len));
/* Closes the connection (DREQ to the peer, the QP to error) after a
 * fatal error of ours, err saying why; the endpoint stays valid until
 * rpcrdma_ep_destroy and poll returns -ENOTCONN from now on. */
void rpcrdma_ep_close(struct rpcrdma_ep *ep, int err);

/* Why our side closed a connection that was up (the first reason given
 * wins; none when the peer or its device ended it first). */
enum rpcrdma_close_why {
	RPCRDMA_CLOSE_NONE = 0,	/* up, or ended by the peer */
	RPCRDMA_CLOSE_LOCAL,	/* ours, no reason given (a client's reset) */
	RPCRDMA_CLOSE_CREDITS,	/* the peer sent more calls than granted */
	RPCRDMA_CLOSE_SEND,	/* a reply or RDMA_ERROR could not be sent */
	RPCRDMA_CLOSE_CHUNKS,	/* an RDMA Read or Write of the peer's
				 * chunks failed */
	RPCRDMA_CLOSE_STALL,	/* transfers made no progress for stall_ms */
	RPCRDMA_CLOSE_BC,	/* every backward credit held by lost calls */
	RPCRDMA_CLOSE_PERMISSION, /* the kernel refused a thread whose
				   * credentials changed */
	RPCRDMA_CLOSE_DEREG,	/* a registration would not go */
	RPCRDMA_CLOSE_PROTOCOL,	/* the peer broke the protocol (a message
				 * over the inline threshold...) */
	RPCRDMA_CLOSE_UNREACHABLE, /* the peer stopped answering (the
				    * transport's retries ran out) */
	RPCRDMA_CLOSE_INTERNAL,	/* a resource of ours (memory, a receive
				 * that could not be reposted) */
	RPCRDMA_CLOSE_IDLE,	/* nothing carried for idle_ms */
	RPCRDMA_CLOSE_EVICTED,	/* idle, its slot wanted at max_conns */
};
/* rpcrdma_ep_close with its reason (PERMISSION instead when err is
 * -EACCES or -EPERM); a close that finds the connection already down
 * keeps the first reason (none if the peer's). */
void rpcrdma_ep_close_why(struct rpcrdma_ep *ep, int err,
			  enum rpcrdma_close_why why);
enum rpcrdma_close_why rpcrdma_ep_why(const struct rpcrdma_ep *ep);
/* A reason in words, "" for none. */
const char *rpcrdma_close_why_str(enum rpcrdma_close_why why);
/* sa as "a.b.c.d:port" or "[v6]:port" ("?:0" for none or another
 * family), into buf; RPCRDMA_ADDR_STRLEN holds any (export.c). */
#define RPCRDMA_ADDR_STRLEN	64
void rpcrdma_addr_str(const struct sockaddr *sa, char *buf, size_t len);
/* This connection's counters; the engine keeps the process totals too. */
struct rpcrdma_stats *rpcrdma_ep_stats(struct rpcrdma_ep *ep);

/* --- messages --- */

/* Sends the gathered iov (total <= inline send_max) as one Send; with
 * inv_rkey != 0 as Send With Invalidate. Copies: iov may be reused on
 * return. 0, -EMSGSIZE, -ENOTCONN, -errno. */
int rpcrdma_ep_send(struct rpcrdma_ep *ep, const struct iovec *iov, int iovcnt,
		    uint32_t inv_rkey);
/* The same waiting at most timeout_ms for send queue room (never more
 * than rpcrdma_ep_send's 10 s; 0: only room there is now), so that a
 * peer that stalls our Sends holds a caller no longer than its own
 * deadline: -ETIMEDOUT then. */
int rpcrdma_ep_send_within(struct rpcrdma_ep *ep, const struct iovec *iov,
			   int iovcnt, uint32_t inv_rkey, int timeout_ms);

/* Waits up to timeout_ms (0: don't wait, -1: forever) for a received
 * message. 1 with *rx, 0 on timeout, -ENOTCONN when the connection is
 * gone (flushed receives are consumed internally). */
int rpcrdma_ep_poll(struct rpcrdma_ep *ep, struct rpcrdma_rx *rx,
		    int timeout_ms);
/* rpcrdma_ep_poll that polls the CQ for up to spin_us (not the
 * endpoint's poll_us) before it sleeps. */
int rpcrdma_ep_poll_spin(struct rpcrdma_ep *ep, struct rpcrdma_rx *rx,
			 int timeout_ms, uint32_t spin_us);
/* True when a received message is already queued (poll would not block). */
bool rpcrdma_ep_rx_pending(const struct rpcrdma_ep *ep);
/* Gives the buffer back; the engine re-posts it. */
void rpcrdma_ep_rx_done(struct rpcrdma_ep *ep, struct rpcrdma_rx *rx);

/* --- chunks --- */

/* Registers [addr, addr+len) for the given access. The segment a peer
 * needs is (rpcrdma_mr_rkey, len, (uint64_t)(uintptr_t)addr). */
int rpcrdma_ep_reg(struct rpcrdma_ep *ep, void *addr, size_t len,
		   enum rpcrdma_access access, struct rpcrdma_mr **out);
uint32_t rpcrdma_mr_rkey(const struct rpcrdma_mr *mr);
void rpcrdma_mr_dereg(struct rpcrdma_mr *mr);
/* A registration of ep's would not go: ep is closed (reg.c says why). */
void rpcrdma_ep_dereg_failed(struct rpcrdma_ep *ep);

/* --- pinned memory (pin.c) --- */

/*
 * What the process may pin: RLIMIT_MEMLOCK now, SIZE_MAX with no limit or
 * with CAP_IPC_LOCK (rpcrdma_pin_limit). Of it, what endpoints a listener
 * accepted pin for their clients is capped by the library whatever the
 * limit (RPCRDMA_MAX_PINNED, default half the physical memory:
 * rpcrdma_pin_cap). The engine counts the pages its registrations span
 * against them, as the kernel does; a registration that would pass one
 * fails with -EDQUOT: rpcrdma_ep_reg, rpcrdma_win_create, a transfer's
 * start and an endpoint's buffers at connect.
 */
size_t rpcrdma_pin_limit(void);
size_t rpcrdma_pin_cap(void);
/* A size as the environment gives it ("123", "64K", "512M", "2G"):
 * true and *v, or false when s is not one (a sign, other suffixes,
 * more than 64 bits). */
bool rpcrdma_size_parse(const char *s, uint64_t *v);

/* --- memory windows (reg.c) --- */

/*
 * A buffer exposed to the peer for one RPC at a time through a type-2
 * memory window: registered once (create) for binding,
 * bound by rpcrdma_ep_send_bind together with the Send that names it,
 * revoked by the peer's Send With Invalidate (rpcrdma_win_invalidated,
 * when a received message's inv_rkey is rpcrdma_win_owns') or by
 * rpcrdma_win_invalidate_post and _wait, never both. Destroy before the
 * endpoint.
 * create: access is the most its binds will grant (REMOTE_READ, or
 * REMOTE_WRITE, which lets binds grant either and registers the buffer
 * for local write too, as verbs require); 0, -EINVAL, -EOPNOTSUPP (no
 * type-2 windows, or a provider and kernel known to stall with them: rxe
 * before Linux 6.12; opts.windows overrides) or -errno.
 */
struct rpcrdma_win;
/* Whether rpcrdma_win_create will make windows on ep's device (decided
 * at the first question, then kept). */
bool rpcrdma_ep_windows(struct rpcrdma_ep *ep);
/* Whether they are type 2, which a peer's Send With Invalidate may revoke
 * (RFC 8797 section 4.1); rxe's are type 1 and may not (reg.c). */
bool rpcrdma_ep_windows_invalidable(struct rpcrdma_ep *ep);
int rpcrdma_win_create(struct rpcrdma_ep *ep, void *buf, size_t len,
		       enum rpcrdma_access access, struct rpcrdma_win **out);
void rpcrdma_win_destroy(struct rpcrdma_win *w);
/* The rkey the next bind will give the window (to put in the chunk). */
uint32_t rpcrdma_win_next_rkey(const struct rpcrdma_win *w);
bool rpcrdma_win_bound(const struct rpcrdma_win *w);
/* True when w is bound under rkey. */
bool rpcrdma_win_owns(const struct rpcrdma_win *w, uint32_t rkey);
/* The peer invalidated it (Send With Invalidate with its rkey). */
void rpcrdma_win_invalidated(struct rpcrdma_win *w);
/* Whether w was made over exactly buf[0, len). */
bool rpcrdma_win_covers(const struct rpcrdma_win *w, const void *buf,
			size_t len);
/* One window to bind: over its first len bytes, for access. */
struct rpcrdma_bind {
	struct rpcrdma_win *w;
	size_t len;
	enum rpcrdma_access access;	/* REMOTE_READ, or REMOTE_WRITE on
					 * a window made for it */
};
#define RPCRDMA_MAX_BINDS	4u	/* reply, call, two zero-copy */
/* Binds each window under its rpcrdma_win_next_rkey, then sends iov,
 * all posted in order. 0, -EINVAL (bound already, len too large, remote
 * write on a window made for reads), -EMSGSIZE, -ETIMEDOUT (no send
 * queue room within timeout_ms, as rpcrdma_ep_send_within), -ENOTCONN,
 * -errno. */
int rpcrdma_ep_send_bind(struct rpcrdma_ep *ep, const struct iovec *iov,
			 int iovcnt, const struct rpcrdma_bind *b,
			 uint32_t nb, int timeout_ms);
/* Invalidates a bound window locally in two steps: post (several
 * windows' may be posted), then wait for each (the caller must be the
 * endpoint's only poller meanwhile; the send queue completes them in
 * order). 0, -ETIMEDOUT, the connection's error (its QP is then in
 * error: the window is no longer reachable). */
int rpcrdma_win_invalidate_post(struct rpcrdma_win *w);
int rpcrdma_win_invalidate_wait(struct rpcrdma_win *w, int timeout_ms);

/* --- completion-driven transfers (xfer.c) --- */

/*
 * An asynchronous transfer: RDMA Reads of the peer's segments into local
 * memory, or RDMA Writes of local memory into them (filled in order, each
 * before the next) followed by a Send, or a Send alone. Started by
 * rpcrdma_ep_xfer_start, which never waits: what the send queue, the send
 * ring or the read depth cannot take now is posted, in order, as
 * completions make room. The Writes and the Send are chained (RC delivers
 * the Send after the Writes land), nothing waits for them. The caller owns
 * the structure and every buffer it names until rpcrdma_ep_xfer_done hands
 * it back with its status (0, or the connection's error: a transfer fails
 * only with its connection).
 */
/* Part of a transfer: local[off, off + len) to or from its own segments
 * (a write chunk, the reply chunk), filled in order. */
struct rpcrdma_xfer_part {
	uint64_t off;
	uint64_t len;
	const struct rpcrdma_segment *segs;
	uint32_t nsegs;
};

#define RPCRDMA_XFER_MAX_PARTS	(RPCRDMA_MAX_WRITE_CHUNKS + 1)
#define RPCRDMA_XFER_MAX_SEND	(RPCRDMA_MAX_WRITE_CHUNKS + 2)

struct rpcrdma_xfer {
	void *owner;				/* the caller's */
	bool read;				/* Reads, else Writes */
	void *local;				/* data read into or written */
	uint64_t len;				/* its length (0: none) */
	const struct rpcrdma_segment *segs;	/* the peer's segments */
	uint32_t nsegs;
	/* Writes only: nparts > 0 replaces segs/nsegs by parts of local,
	 * each to its own segments, in order. */
	struct rpcrdma_xfer_part parts[RPCRDMA_XFER_MAX_PARTS];
	uint32_t nparts;
	struct iovec send[RPCRDMA_XFER_MAX_SEND]; /* Send after the Writes, */
	int send_cnt;				/* gathered (0: none) */
	uint32_t inv_rkey;			/* Send With Invalidate of
						 * it (0: a plain Send) */
	bool defer;				/* queue only: posted by the
						 * next reap (the caller's
						 * thread may no longer
						 * command the device) */
	bool hold;				/* queue only: posted by
						 * rpcrdma_ep_xfer_flush, with
						 * the others held (one
						 * doorbell for a batch) */
	int status;				/* once done */

	/* The engine's own. */
	struct ibv_mr *mr;
	bool bounce;				/* small Writes: their bytes
						 * copied into the send ring;
						 * small Reads: read into the
						 * endpoint's read buffers,
						 * then copied; neither
						 * registered */
	uint32_t rb_n;				/* read buffers taken */
	uint32_t rb_len[RPCRDMA_MAX_BINDS];	/* bytes read into each */
	uint32_t part;				/* part being posted */
	uint32_t seg;				/* next segment to post */
	uint64_t seg_off, posted;		/* progress in it / in part */
	uint64_t moved;				/* bytes in all parts */
	bool send_posted;
	uint64_t last_seq;			/* last WR posted for it */
	struct rpcrdma_xfer *next;
};

/* 0, or -EINVAL / -EMSGSIZE (the segments cannot hold or supply len) /
 * -ENOTCONN / -errno of the registration: then nothing was started. */
int rpcrdma_ep_xfer_start(struct rpcrdma_ep *ep, struct rpcrdma_xfer *x);
/* Posts the held transfers (x->hold), in order, as few doorbells as
 * fit. */
void rpcrdma_ep_xfer_flush(struct rpcrdma_ep *ep);
/* A finished transfer (reaping the CQ first), or NULL. */
struct rpcrdma_xfer *rpcrdma_ep_xfer_done(struct rpcrdma_ep *ep);
/* Every finished transfer (reaping the CQ first when none is), in the
 * order they finished, linked by ->next; NULL when none. One lock for a
 * batch where rpcrdma_ep_xfer_done takes one per transfer and one more
 * to find the end. */
struct rpcrdma_xfer *rpcrdma_ep_xfers_done(struct rpcrdma_ep *ep);
/* True when a finished transfer waits for rpcrdma_ep_xfer_done. */
bool rpcrdma_ep_xfers_ready(struct rpcrdma_ep *ep);
/* Makes the endpoint's fd readable (rpcrdma_ep_unkick clears it): for a
 * caller that leaves work queued on purpose and wants poll() to bring it
 * back. */
void rpcrdma_ep_kick(struct rpcrdma_ep *ep);
void rpcrdma_ep_unkick(struct rpcrdma_ep *ep);
/* Notes which of the endpoint's channels are readable, so that the next
 * unkick, stall check and poll read only those: takes the completion
 * channel's event when there is one (one read, which ep_arm would make
 * anyway), else, and every 16th time, asks epoll (one system call). */
void rpcrdma_ep_look(struct rpcrdma_ep *ep);
/* After rpcrdma_ep_look took the completion channel's event, the CQ is
 * not armed until the next poll that finds nothing: a caller about to
 * sleep on the fd calls this first. Arms the CQ if the look left it so;
 * true when messages or finished transfers arrived meanwhile (handle
 * them before sleeping), or when the endpoint is down. */
bool rpcrdma_ep_rearm(struct rpcrdma_ep *ep);
/* Client endpoints: makes a thread blocked in rpcrdma_ep_poll return 0
 * now (or its next call, if none is blocked), so that it can do work
 * another thread handed it. */
void rpcrdma_ep_wake(struct rpcrdma_ep *ep);
/* With opts.stall_ms: while signaled work requests are posted and not
 * completed, a timer in the endpoint's fd ticks every quarter of it; this
 * consumes a tick, reaps, and closes the connection (-ETIMEDOUT, counter
 * transfer_stalls) when the send queue completed nothing for stall_ms.
 * Call before polling, whenever the fd was readable. */
void rpcrdma_ep_check_stall(struct rpcrdma_ep *ep);

/* --- counters (stats.c) --- */

/* Updates a counter of ep (NULL: the process totals only) and the process
 * totals, atomically; off is offsetof(struct rpcrdma_stats, field). The
 * engine itself counts connects, disconnects, rdma_read_bytes,
 * rdma_write_bytes and remote_invalidations (Send With Invalidate sent or
 * received); the glue counts the rest. */
void rpcrdma_stat_add(struct rpcrdma_ep *ep, size_t off, uint64_t n);
/* One process total (off as above). */
uint64_t rpcrdma_stat_total(size_t off);
void rpcrdma_stat_set(struct rpcrdma_ep *ep, size_t off, uint64_t v);
void rpcrdma_stat_max(struct rpcrdma_ep *ep, size_t off, uint64_t v);
/* Lowers a counter to v unless it is lower and nonzero (0: none yet). */
void rpcrdma_stat_min(struct rpcrdma_ep *ep, size_t off, uint64_t v);
#define RPCRDMA_STAT_ADD(ep, f, n) \
	rpcrdma_stat_add((ep), offsetof(struct rpcrdma_stats, f), (n))
#define RPCRDMA_STAT_SET(ep, f, v) \
	rpcrdma_stat_set((ep), offsetof(struct rpcrdma_stats, f), (v))
#define RPCRDMA_STAT_MAX(ep, f, v) \
	rpcrdma_stat_max((ep), offsetof(struct rpcrdma_stats, f), (v))
#define RPCRDMA_STAT_MIN(ep, f, v) \
	rpcrdma_stat_min((ep), offsetof(struct rpcrdma_stats, f), (v))

#endif /* RPCRDMA_ENGINE_H */
