/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the nfs41cb sources (nfs41cb.c, nfs41cb_xdr.c, nfs41cb_cb.c):
 * the protocol's numbers, the XDR structures of the forward operations,
 * the session (sess, defined once in nfs41cb_xdr.c), what the backward
 * service saw (cb and break_reply, defined once in nfs41cb_cb.c), and the
 * functions the other files call.
 */
#ifndef NFS41CB_H
#define NFS41CB_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <rpc/rpc.h>

#define XP(f)		((xdrproc_t)(void (*)(void))(f))

#define NFS4_PROGRAM	100003
#define NFS_V4		4
#define NFS_RDMA_PORT	20049
#define COMPOUND	1
/* RFC 8881 s18.36 (NFS4_CALLBACK): any number the client chooses;
 * this is the one the Linux client uses. */
#define CB_PROGRAM	0x40000000
#define CB_VERS		1
#define CB_NULL		0
#define CB_COMPOUND	1

/* Operations (RFC 8881 s16.2.1, s20) */
enum {
	OP_CLOSE = 4, OP_DELEGRETURN = 8, OP_GETFH = 10, OP_OPEN = 18,
	OP_PUTFH = 22, OP_PUTROOTFH = 24, OP_EXCHANGE_ID = 42,
	OP_CREATE_SESSION = 43, OP_DESTROY_SESSION = 44, OP_SEQUENCE = 53,
	OP_DESTROY_CLIENTID = 57, OP_RECLAIM_COMPLETE = 58,
	OP_CB_RECALL = 4, OP_CB_SEQUENCE = 11,
};
/* Status codes (RFC 8881 s15.1) */
enum {
	NFS4_OK = 0, NFS4ERR_NOTSUPP = 10004, NFS4ERR_GRACE = 10013,
	NFS4ERR_MINOR_VERS_MISMATCH = 10021, NFS4ERR_BADXDR = 10036,
	NFS4ERR_BADSESSION = 10052, NFS4ERR_BADSLOT = 10053,
	NFS4ERR_SEQ_MISORDERED = 10063, NFS4ERR_SEQUENCE_POS = 10064,
	NFS4ERR_OP_NOT_IN_SESSION = 10070,
};
#define CREATE_SESSION4_FLAG_CONN_BACK_CHAN	0x2
#define OPEN4_SHARE_ACCESS_READ			1
#define OPEN_DELEGATE_READ			1
/* SEQUENCE status flags that say the backchannel failed (s18.46.3) */
#define SEQ4_STATUS_CB_PATH_DOWN		0x1
#define SEQ4_STATUS_RECALLABLE_STATE_REVOKED	0x40
#define SEQ4_STATUS_CB_PATH_DOWN_SESSION	0x200
#define SEQ4_STATUS_BACKCHANNEL_FAULT		0x400
#define SEQ4_CB_BAD (SEQ4_STATUS_CB_PATH_DOWN |				\
		     SEQ4_STATUS_RECALLABLE_STATE_REVOKED |		\
		     SEQ4_STATUS_CB_PATH_DOWN_SESSION |			\
		     SEQ4_STATUS_BACKCHANNEL_FAULT)

/* Our backward limits: the kernel's inline threshold is 4096 both ways
 * (shared/docs/linux-interop.md) and the RPC message follows a 28-byte
 * RPC-over-RDMA header with empty chunk lists (RFC 8167 s4: backward
 * messages are inline only). */
#define BC_MAX_MSG	(4096 - 28)

void say(const char *fmt, ...);

/* A failure after which nothing else can run. */
#define DIE(...)							\
	do {								\
		say("FAIL: " __VA_ARGS__);				\
		exit(1);						\
	} while (0)

struct stateid {
	uint32_t seqid;
	char other[12];
};

struct fh {
	u_int len;
	char data[128];		/* NFS4_FHSIZE */
};

struct chan {			/* channel_attrs4 */
	uint32_t pad, maxreq, maxresp, maxresp_cached, maxops, maxreqs;
};

/* One operation: its arguments' encoder, and the decoder of the rest of
 * its result when the status is NFS4_OK (NULL: nothing follows). */
struct op {
	uint32_t code;
	bool_t (*args)(XDR *, void *);
	void *a;
	bool_t (*res)(XDR *, void *);
	void *r;
	uint32_t status;
};

/* The session's fore channel slot 0 (s2.10.6): its sequence ID moves on
 * with every SEQUENCE that succeeds. */
struct session {
	char id[16];
	uint32_t seq;
};

extern struct session sess;

struct seq_res {
	char id[16];
	uint32_t seq, slot, highest, target, flags;
};

struct exid_args {
	char verifier[8];
	const char *owner;
};

struct exid_res {
	uint64_t clientid;
	uint32_t seq, flags;
};

struct cs_args {
	uint64_t clientid;
	uint32_t seq, flags;
	struct chan fore, back;
};

struct cs_res {
	char id[16];
	uint32_t seq, flags;
	struct chan fore, back;
};

struct open_args {
	uint64_t clientid;
	const char *owner, *name;
};

struct open_res {
	struct stateid sid, deleg;
	uint32_t rflags, dtype;
	bool_t recall;
};

/* What the service saw, for the main thread. */
struct cb_seen {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned nulls, compounds, dispatched, recalls;
	uint32_t last_seq;	/* back channel slot 0; nfsd starts at 1 */
	struct stateid recall_sid;
	struct fh recall_fh;
	char err[256];		/* the first thing nfsd did wrong */
};
extern struct cb_seen cb;
extern bool break_reply;

/* nfs41cb_xdr.c */
bool_t x_u32(XDR *x, uint32_t *v);
bool_t x_stateid(XDR *x, struct stateid *s);
bool_t x_fh(XDR *x, struct fh *f);
bool_t args_sequence(XDR *x, void *p);
bool_t res_sequence(XDR *x, void *p);
/* COMPOUND of n operations: the compound's status; the RPC must work. */
uint32_t compound(CLIENT *cl, struct op *ops, uint32_t n,
		  const char *what);
bool_t args_exchange_id(XDR *x, void *p);
bool_t res_exchange_id(XDR *x, void *p);
bool_t args_create_session(XDR *x, void *p);
bool_t res_create_session(XDR *x, void *p);
bool_t args_bool_false(XDR *x, void *p);
bool_t args_open(XDR *x, void *p);
bool_t res_open(XDR *x, void *p);
bool_t args_fh(XDR *x, void *p);
bool_t args_stateid(XDR *x, void *p);
bool_t args_close(XDR *x, void *p);
bool_t args_sessionid(XDR *x, void *p);
bool_t args_u64(XDR *x, void *p);

/* nfs41cb_cb.c */
void cb_dispatch(struct svc_req *rq, SVCXPRT *x);
/* Waits up to secs for *counter to exceed was; true if it did. */
bool cb_wait(unsigned *counter, unsigned was, int secs);

#endif /* NFS41CB_H */
