/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Our client's backward direction (RFC 8167) against the Linux kernel's
 * NFSv4.1 server (tests/vm/t/68-nfs41cb.sh starts nfsd on rdma port
 * 20049 and exports a tmpfs as the NFSv4 root, fsid=0).
 *
 * One rdma CLIENT to NFS version 4 with AUTH_SYS, a backward service for
 * the callback program registered on it before the session exists, then
 * (RFC 8881): EXCHANGE_ID (SP4_NONE), CREATE_SESSION with
 * CONN_BACK_CHAN so that nfsd calls back over this very connection,
 * RECLAIM_COMPLETE, OPEN for READ of a file that nobody else has open
 * (nfsd grants a read delegation once the callback path is up and its
 * grace period is over), then an open for write of that file in the
 * guest's own file system: the kernel breaks nfsd's lease and nfsd sends
 * CB_COMPOUND { CB_SEQUENCE, CB_RECALL } backward. We answer it from the
 * dispatch function (sessionid, slot and sequence checked as a replier
 * must, RFC 8881 s20.9.3), return the delegation (DELEGRETURN), check
 * that nfsd saw no backchannel fault (SEQUENCE status flags, and the
 * "callback state:" of /proc/fs/nfsd/clients/N/info where the kernel has
 * it) and that our backward counters moved; CLOSE, DESTROY_SESSION,
 * DESTROY_CLIENTID.
 *
 * CB_NULL is answered if it comes, but nfsd sends none for minor version
 * 1 and later (fs/nfsd/nfs4callback.c nfsd4_run_cb_work: "Don't send
 * probe messages for 4.1 or later"): the CB_RECALL is the backchannel
 * traffic this test requires.
 *
 * Environment: RPCRDMA_ADDR_A / RPCRDMA_ADDR_B (client source, server),
 * RPCRDMA_T_NFS41CB_DIR the exported directory (the NFSv4 root);
 * RPCRDMA_T_NFS41CB_BREAK a negative control that must fail ("session":
 * our CB_SEQUENCE reply names another session, nfsd marks the callback
 * path FAULT; "unreg": no backward service, no CB_RECALL reaches us).
 * Exit 0 passed, 1 failed.
 *
 * This file: main (the test's steps), say and CHECK, and the kernel's
 * view of our client (/proc/fs/nfsd/clients); the forward operations'
 * XDR and compound() are in nfs41cb_xdr.c, the backward service in
 * nfs41cb_cb.c, shared declarations in nfs41cb.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>

#include "nfs41cb.h"

static const char *addr_a, *addr_b, *export_dir;
static int failures;

void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("nfs41cb: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
}

/* A failed check: said, counted, the test goes on where it can. */
#define CHECK(c, ...)							\
	do {								\
		if (!(c)) {						\
			say("FAIL: " __VA_ARGS__);			\
			failures++;					\
		}							\
	} while (0)

/* ---- /proc/fs/nfsd/clients/N/info: the kernel's view of our client ---- */

/* The value of our client's "callback state:" line into out; 1 found,
 * 0 the kernel has no such line, -1 no info file names our owner. */
static int cb_state(const char *owner, char *out, size_t len)
{
	const char *top = "/proc/fs/nfsd/clients";
	DIR *d = opendir(top);
	struct dirent *e;
	int found = -1;

	if (!d)
		return -1;
	while (found < 0 && (e = readdir(d)) != NULL) {
		char path[300], line[512];
		bool ours = false;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/info", top, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		out[0] = '\0';
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, "name:", 5) == 0 &&
			    strstr(line, owner))
				ours = true;
			if (strncmp(line, "callback state: ", 16) == 0) {
				size_t n = strcspn(line + 16, "\n");

				n = n < len ? n : len - 1;
				memcpy(out, line + 16, n);
				out[n] = '\0';
			}
		}
		fclose(f);
		if (ours)
			found = out[0] ? 1 : 0;
	}
	closedir(d);
	return found;
}

/* ---- the test ---- */

static struct rpcrdma_stats stats_of(CLIENT *cl)
{
	struct rpcrdma_stats st;

	if (rpcrdma_clnt_stats(cl, &st) != 0)
		DIE("rpcrdma_clnt_stats failed");
	return st;
}

static CLIENT *nfs4_clnt(void)
{
	struct rpcrdma_opts o;
	CLIENT *cl;

	rpcrdma_opts_default(&o);
	o.port = NFS_RDMA_PORT;
	o.src_addr = addr_a;
	cl = clnt_rdma_create(addr_b, NFS4_PROGRAM, NFS_V4, &o);
	if (!cl)
		DIE("clnt_rdma_create: %s", clnt_spcreateerror(addr_b));
	/* AUTH_SYS as root: the export has no_root_squash. */
	cl->cl_auth = authunix_create_default();
	if (!cl->cl_auth)
		DIE("authunix_create_default failed");
	return cl;
}

int main(void)
{
	char owner[128], path[512], state[64];
	const char *brk;
	struct exid_args xa;
	struct exid_res xr = { 0 };
	struct cs_args ca = { 0 };
	struct cs_res cr = { 0 };
	struct open_args oa;
	struct open_res orr = { 0 };
	struct seq_res sr = { 0 };
	struct rpcrdma_stats s0, s1;
	struct fh fh = { 0 };
	unsigned recalls, dispatched;
	uint32_t st;
	CLIENT *cl;
	int fd, r, grace;

	addr_a = getenv("RPCRDMA_ADDR_A");
	addr_b = getenv("RPCRDMA_ADDR_B");
	export_dir = getenv("RPCRDMA_T_NFS41CB_DIR");
	if (!addr_a || !addr_b || !export_dir)
		DIE("RPCRDMA_ADDR_A, RPCRDMA_ADDR_B, RPCRDMA_T_NFS41CB_DIR "
		    "must be set");
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(owner, sizeof(owner), "librpcrdma-nfs41cb-%ld-%ld",
		 (long)getpid(), (long)time(NULL));

	brk = getenv("RPCRDMA_T_NFS41CB_BREAK");
	brk = brk ? brk : "";
	break_reply = strcmp(brk, "session") == 0;
	if (*brk)
		say("negative control: %s", brk);

	cl = nfs4_clnt();
	/* The backward service exists before nfsd may call back. */
	if (strcmp(brk, "unreg") != 0 &&
	    !rpcrdma_clnt_svc_reg(cl, CB_PROGRAM, CB_VERS, cb_dispatch))
		DIE("rpcrdma_clnt_svc_reg failed");
	s0 = stats_of(cl);

	/* EXCHANGE_ID (s18.35), SP4_NONE */
	memcpy(xa.verifier, owner + strlen(owner) - 8, 8);
	xa.owner = owner;
	{
		struct op ops[] = {
			{ OP_EXCHANGE_ID, args_exchange_id, &xa,
			  res_exchange_id, &xr, 0 },
		};

		st = compound(cl, ops, 1, "EXCHANGE_ID");
		if (st != NFS4_OK)
			DIE("EXCHANGE_ID: status %u", st);
	}
	say("EXCHANGE_ID: clientid %#llx sequenceid %u flags %#x (owner %s)",
	    (unsigned long long)xr.clientid, xr.seq, xr.flags, owner);

	/* CREATE_SESSION (s18.36) binding this connection as the back
	 * channel too. Fore channel: what our CLIENT takes (nfsd clamps);
	 * back channel: one slot, CB_SEQUENCE + CB_RECALL, messages within
	 * the inline threshold (RFC 8167 s4). */
	ca.clientid = xr.clientid;
	ca.seq = xr.seq;
	ca.flags = CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
	ca.fore = (struct chan){ 0, 1u << 20, 1u << 20, 4096, 8, 16 };
	ca.back = (struct chan){ 0, BC_MAX_MSG, BC_MAX_MSG, 0, 2, 1 };
	{
		struct op ops[] = {
			{ OP_CREATE_SESSION, args_create_session, &ca,
			  res_create_session, &cr, 0 },
		};

		st = compound(cl, ops, 1, "CREATE_SESSION");
		if (st != NFS4_OK)
			DIE("CREATE_SESSION: status %u", st);
	}
	memcpy(sess.id, cr.id, 16);
	sess.seq = 1;
	say("CREATE_SESSION: csr_flags %#x; fore maxreq %u maxresp %u "
	    "maxops %u maxreqs %u; back maxreq %u maxresp %u maxops %u "
	    "maxreqs %u", cr.flags, cr.fore.maxreq, cr.fore.maxresp,
	    cr.fore.maxops, cr.fore.maxreqs, cr.back.maxreq, cr.back.maxresp,
	    cr.back.maxops, cr.back.maxreqs);
	if (!(cr.flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN))
		DIE("nfsd did not take this connection as the back channel "
		    "(csr_flags %#x)", cr.flags);
	CHECK(cr.back.maxreqs >= 1 && cr.back.maxops >= 2 &&
	      cr.back.maxreq <= BC_MAX_MSG && cr.back.maxresp <= BC_MAX_MSG,
	      "back channel attributes beyond what we offered");

	/* CB_NULL: for 4.1 nfsd marks the path up without one (see the
	 * top); answered and counted if a kernel sends it. */
	if (cb_wait(&cb.nulls, 0, 3))
		say("CB_NULL answered");
	else
		say("no CB_NULL within 3 s (nfsd sends none for 4.1)");
	r = cb_state(owner, state, sizeof(state));
	if (r > 0)
		say("after CREATE_SESSION nfsd says callback state: %s", state);

	/* RECLAIM_COMPLETE (s18.51): nfsd refuses ordinary OPENs of a
	 * client that has not sent it. */
	{
		struct op ops[] = {
			{ OP_SEQUENCE, args_sequence, &sess, res_sequence,
			  &sr, 0 },
			{ OP_RECLAIM_COMPLETE, args_bool_false, NULL, NULL,
			  NULL, 0 },
		};

		st = compound(cl, ops, 2, "SEQUENCE, RECLAIM_COMPLETE");
		if (st != NFS4_OK)
			DIE("SEQUENCE, RECLAIM_COMPLETE: status %u", st);
	}

	/* A file nobody has open: a read delegation is possible. */
	snprintf(path, sizeof(path), "%s/deleg", export_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "nfs41cb\n", 8) != 8 || close(fd) != 0)
		DIE("%s: %s", path, strerror(errno));

	/* OPEN for READ (s18.16); nfsd answers NFS4ERR_GRACE until its
	 * grace period ends (the script shortens it to 10 s). */
	oa.clientid = xr.clientid;
	oa.owner = "nfs41cb-open-owner";
	oa.name = "deleg";
	for (grace = 0;; grace++) {
		struct op ops[] = {
			{ OP_SEQUENCE, args_sequence, &sess, res_sequence,
			  &sr, 0 },
			{ OP_PUTROOTFH, NULL, NULL, NULL, NULL, 0 },
			{ OP_OPEN, args_open, &oa, res_open, &orr, 0 },
			{ OP_GETFH, NULL, NULL, args_fh, &fh, 0 },
		};

		st = compound(cl, ops, 4, "OPEN");
		if (st == NFS4_OK)
			break;
		if (st != NFS4ERR_GRACE || grace >= 40)
			DIE("SEQUENCE, PUTROOTFH, OPEN, GETFH: status %u (ops: "
			    "%u %u %u %u)", st, ops[0].status, ops[1].status,
			    ops[2].status, ops[3].status);
		sleep(1);
	}
	say("OPEN deleg for READ (after %d NFS4ERR_GRACE): delegation type "
	    "%u (1 = read), rflags %#x, fh of %u bytes", grace, orr.dtype,
	    orr.rflags, fh.len);
	if (orr.dtype != OPEN_DELEGATE_READ)
		DIE("nfsd gave no read delegation (type %u): no recall to "
		    "trigger", orr.dtype);

	/* The conflict: an open for write on the server's own file system
	 * breaks nfsd's lease; O_NONBLOCK starts the break without waiting
	 * for it (EWOULDBLOCK), and nfsd sends CB_RECALL. */
	pthread_mutex_lock(&cb.lock);
	recalls = cb.recalls;
	dispatched = cb.dispatched;
	pthread_mutex_unlock(&cb.lock);
	fd = open(path, O_WRONLY | O_NONBLOCK);
	if (fd >= 0)
		DIE("an open for write of %s went through the delegation's "
		    "lease", path);
	CHECK(errno == EWOULDBLOCK, "open for write: %s (EWOULDBLOCK "
	      "expected)", strerror(errno));
	if (!cb_wait(&cb.recalls, recalls, 15))
		DIE("no CB_RECALL within 15 s (callbacks dispatched: %u; %s)",
		    cb.dispatched - dispatched,
		    cb.err[0] ? cb.err : "no callback error seen");
	pthread_mutex_lock(&cb.lock);
	CHECK(memcmp(cb.recall_sid.other, orr.deleg.other, 12) == 0,
	      "CB_RECALL names another stateid");
	CHECK(cb.recall_fh.len == fh.len &&
	      memcmp(cb.recall_fh.data, fh.data, fh.len) == 0,
	      "CB_RECALL names another file handle");
	pthread_mutex_unlock(&cb.lock);

	/* DELEGRETURN (s18.6): the lease goes, the local open works. */
	{
		struct op ops[] = {
			{ OP_SEQUENCE, args_sequence, &sess, res_sequence,
			  &sr, 0 },
			{ OP_PUTFH, args_fh, &fh, NULL, NULL, 0 },
			{ OP_DELEGRETURN, args_stateid, &orr.deleg, NULL, NULL,
			  0 },
		};

		st = compound(cl, ops, 3, "DELEGRETURN");
		CHECK(st == NFS4_OK, "SEQUENCE, PUTFH, DELEGRETURN: status %u",
		      st);
	}
	say("DELEGRETURN done; SEQUENCE status flags %#x", sr.flags);
	CHECK(!(sr.flags & SEQ4_CB_BAD), "nfsd reports a backchannel "
	      "problem: SEQUENCE status flags %#x", sr.flags);
	fd = open(path, O_WRONLY | O_NONBLOCK);
	CHECK(fd >= 0, "open for write after DELEGRETURN: %s",
	      strerror(errno));
	if (fd >= 0)
		close(fd);

	pthread_mutex_lock(&cb.lock);
	CHECK(cb.err[0] == '\0', "backchannel: %s", cb.err);
	say("callbacks: %u CB_NULL, %u CB_COMPOUND (%u CB_RECALL), last "
	    "CB_SEQUENCE seq %u", cb.nulls, cb.compounds, cb.recalls,
	    cb.last_seq);
	dispatched = cb.dispatched;
	pthread_mutex_unlock(&cb.lock);
	s1 = stats_of(cl);
	say("counters: bc_calls_recv %llu bc_replies_sent %llu "
	    "bc_calls_dropped %llu bc_replies_too_big %llu "
	    "bc_credits_granted %llu bc_inflight_peak %llu",
	    (unsigned long long)(s1.bc_calls_recv - s0.bc_calls_recv),
	    (unsigned long long)(s1.bc_replies_sent - s0.bc_replies_sent),
	    (unsigned long long)(s1.bc_calls_dropped - s0.bc_calls_dropped),
	    (unsigned long long)(s1.bc_replies_too_big -
				 s0.bc_replies_too_big),
	    (unsigned long long)s1.bc_credits_granted,
	    (unsigned long long)s1.bc_inflight_peak);
	CHECK(s1.bc_calls_recv - s0.bc_calls_recv == dispatched &&
	      s1.bc_replies_sent - s0.bc_replies_sent == dispatched,
	      "backward counters do not match the %u callbacks dispatched",
	      dispatched);
	CHECK(s1.bc_calls_dropped == s0.bc_calls_dropped &&
	      s1.bc_replies_too_big == s0.bc_replies_too_big,
	      "backward calls dropped or replies too big");

	/* The kernel's own verdict on our replies: a CB_SEQUENCE reply it
	 * did not accept marks the path FAULT or DOWN. */
	r = -1;
	for (int i = 0; i < 50; i++) {
		r = cb_state(owner, state, sizeof(state));
		if (r != 1 || strcmp(state, "UP") == 0)
			break;
		usleep(100000);
	}
	if (r == 1)
		CHECK(strcmp(state, "UP") == 0, "nfsd says callback state: %s",
		      state);
	if (r == 1)
		say("nfsd says callback state: %s", state);
	else if (r == 0)
		say("this kernel's /proc/fs/nfsd/clients/*/info has no "
		    "\"callback state:\" line: not checked");
	else
		say("no /proc/fs/nfsd/clients/*/info names our client: "
		    "callback state not checked");

	/* CLOSE, then the session and the client ID (s18.37, s18.50). */
	{
		struct stateid closed;
		struct op ops[] = {
			{ OP_SEQUENCE, args_sequence, &sess, res_sequence,
			  &sr, 0 },
			{ OP_PUTFH, args_fh, &fh, NULL, NULL, 0 },
			{ OP_CLOSE, args_close, &orr.sid, args_stateid,
			  &closed, 0 },
		};

		st = compound(cl, ops, 3, "CLOSE");
		CHECK(st == NFS4_OK, "SEQUENCE, PUTFH, CLOSE: status %u", st);
	}
	{
		struct op ops[] = {
			{ OP_DESTROY_SESSION, args_sessionid, sess.id, NULL,
			  NULL, 0 },
		};

		st = compound(cl, ops, 1, "DESTROY_SESSION");
		CHECK(st == NFS4_OK, "DESTROY_SESSION: status %u", st);
	}
	{
		struct op ops[] = {
			{ OP_DESTROY_CLIENTID, args_u64, &xr.clientid, NULL,
			  NULL, 0 },
		};

		st = compound(cl, ops, 1, "DESTROY_CLIENTID");
		CHECK(st == NFS4_OK, "DESTROY_CLIENTID: status %u", st);
	}
	auth_destroy(cl->cl_auth);
	clnt_destroy(cl);
	unlink(path);
	if (failures)
		DIE("%d check(s) failed", failures);
	say("passed");
	return 0;
}
