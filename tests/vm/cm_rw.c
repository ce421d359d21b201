/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm_rw: an RDMA-CM connection between the guest's two rxe devices carries
 * a Send, an RDMA Write and an RDMA Read whose bytes are checked.
 *
 * Usage: cm_rw [SERVER_ADDR [CLIENT_ADDR]]
 *   (defaults: $RPCRDMA_ADDR_B and $RPCRDMA_ADDR_A, as set by tests/vm/run)
 *
 * A server thread listens on SERVER_ADDR (an ephemeral port); the main
 * thread connects from CLIENT_ADDR. The server's accept carries, in its
 * private data, the address, rkey and length of a registered region
 * (first half: RDMA Write target, second half: RDMA Read source filled
 * with a known pattern). The client then
 *   1. Sends SEND_LEN bytes of pattern P_SEND: the server checks length
 *      and bytes of the receive;
 *   2. RDMA Writes RW_LEN bytes of pattern P_WRITE to the first half, then
 *      Sends "WDON": RC ordering makes the Write visible before that
 *      receive completes, and the server then checks the first half;
 *   3. RDMA Reads RW_LEN bytes of the second half and checks P_READ;
 *   4. disconnects; both sides see RDMA_CM_EVENT_DISCONNECTED.
 * It also asserts that the two ends are on different devices (the traffic
 * crossed the veth pair from one rxe device to the other).
 * Every wait is bounded (STEP_MS) and alarm() bounds the whole run.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define STEP_MS		20000	/* any single step, TCG is slow */
#define TOTAL_S		120	/* the whole test */
#define SEND_LEN	256
#define RW_LEN		4096
#define BUF_LEN		(4 * RW_LEN)
#define OFF_RECV1	0
#define OFF_RECV2	1024
#define OFF_WRITE	RW_LEN		/* server: Write target; client: source */
#define OFF_READ	(2 * RW_LEN)	/* server: Read source; client: sink */
#define P_SEND		0x11
#define P_WRITE		0x5a
#define P_READ		0xa5

/* What the server's accept tells the client, big-endian on the wire. */
struct region {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

struct side {
	const char *name;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned char *buf;
};

static const char *server_addr, *client_addr;
static uint16_t server_port;

static unsigned char pattern(unsigned int seed, size_t i)
{
	return (unsigned char)(seed + i * 31 + (i >> 8) * 7);
}

static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pattern(seed, i);
}

static int verify(const struct side *s, const char *what,
		  const unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] != pattern(seed, i)) {
			fprintf(stderr,
				"cm_rw: %s: %s: byte %zu is 0x%02x, expected 0x%02x\n",
				s->name, what, i, p[i], pattern(seed, i));
			return -1;
		}
	}
	printf("cm_rw: %s: %s: %zu bytes verified\n", s->name, what, len);
	return 0;
}

static int get_addr(const char *host, uint16_t port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1) {
		fprintf(stderr, "cm_rw: bad IPv4 address '%s'\n", host);
		return -1;
	}
	return 0;
}

/* Wait for the next CM event on s->ch; it must be @expected. */
static int wait_event(struct side *s, enum rdma_cm_event_type expected,
		      struct rdma_cm_event **out)
{
	struct pollfd pfd = { .fd = s->ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int rc;

	rc = poll(&pfd, 1, STEP_MS);
	if (rc <= 0) {
		fprintf(stderr, "cm_rw: %s: no %s within %d ms\n", s->name,
			rdma_event_str(expected), STEP_MS);
		return -1;
	}
	if (rdma_get_cm_event(s->ch, &ev)) {
		fprintf(stderr, "cm_rw: %s: rdma_get_cm_event: %s\n", s->name,
			strerror(errno));
		return -1;
	}
	if (ev->event != expected) {
		fprintf(stderr, "cm_rw: %s: got %s (status %d), expected %s\n",
			s->name, rdma_event_str(ev->event), ev->status,
			rdma_event_str(expected));
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (out)
		*out = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
}

/* Wait for one completion, which must succeed with opcode @op. */
static int wait_wc(struct side *s, enum ibv_wc_opcode op, struct ibv_wc *wc)
{
	struct pollfd pfd = { .fd = s->cc->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(s->cq, 1, wc);
		if (n)
			break;
		if (ibv_req_notify_cq(s->cq, 0)) {
			fprintf(stderr, "cm_rw: %s: ibv_req_notify_cq failed\n",
				s->name);
			return -1;
		}
		n = ibv_poll_cq(s->cq, 1, wc);
		if (n)
			break;
		if (poll(&pfd, 1, STEP_MS) <= 0) {
			fprintf(stderr, "cm_rw: %s: no completion (opcode %d) within %d ms\n",
				s->name, op, STEP_MS);
			return -1;
		}
		if (ibv_get_cq_event(s->cc, &ev_cq, &ev_ctx)) {
			fprintf(stderr, "cm_rw: %s: ibv_get_cq_event failed\n",
				s->name);
			return -1;
		}
		ibv_ack_cq_events(ev_cq, 1);
	}
	if (n < 0) {
		fprintf(stderr, "cm_rw: %s: ibv_poll_cq failed\n", s->name);
		return -1;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "cm_rw: %s: completion %s (opcode %d, wr_id %llu)\n",
			s->name, ibv_wc_status_str(wc->status), wc->opcode,
			(unsigned long long)wc->wr_id);
		return -1;
	}
	if (wc->opcode != op) {
		fprintf(stderr, "cm_rw: %s: completion opcode %d, expected %d\n",
			s->name, wc->opcode, op);
		return -1;
	}
	return 0;
}

/* PD, CQ with a completion channel, RC QP and one MR on s->id's device. */
static int setup_qp(struct side *s, int access)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};

	s->pd = ibv_alloc_pd(s->id->verbs);
	if (!s->pd)
		goto err;
	s->cc = ibv_create_comp_channel(s->id->verbs);
	if (!s->cc)
		goto err;
	s->cq = ibv_create_cq(s->id->verbs, 16, s, s->cc, 0);
	if (!s->cq)
		goto err;
	qa.send_cq = s->cq;
	qa.recv_cq = s->cq;
	if (rdma_create_qp(s->id, s->pd, &qa))
		goto err;
	s->buf = calloc(1, BUF_LEN);
	if (!s->buf)
		goto err;
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_LEN, access);
	if (!s->mr)
		goto err;
	printf("cm_rw: %s: on device %s\n", s->name,
	       ibv_get_device_name(s->id->verbs->device));
	return 0;
err:
	fprintf(stderr, "cm_rw: %s: verbs setup failed: %s\n", s->name,
		strerror(errno));
	return -1;
}

static void teardown(struct side *s)
{
	if (s->id && s->id->qp)
		rdma_destroy_qp(s->id);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->cc)
		ibv_destroy_comp_channel(s->cc);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->id)
		rdma_destroy_id(s->id);
	if (s->listen_id)
		rdma_destroy_id(s->listen_id);
	if (s->ch)
		rdma_destroy_event_channel(s->ch);
	free(s->buf);
}

static int post_recv(struct side *s, uint64_t wr_id, size_t off, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(s->buf + off),
		.length = (uint32_t)len,
		.lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(s->id->qp, &wr, &bad)) {
		fprintf(stderr, "cm_rw: %s: ibv_post_recv failed\n", s->name);
		return -1;
	}
	return 0;
}

static int post_send(struct side *s, enum ibv_wr_opcode op, size_t off,
		     size_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(s->buf + off),
		.length = (uint32_t)len,
		.lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = op,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(s->id->qp, &wr, &bad)) {
		fprintf(stderr, "cm_rw: %s: ibv_post_send(opcode %d) failed\n",
			s->name, op);
		return -1;
	}
	return 0;
}

static int server_listen(struct side *s)
{
	struct sockaddr_in sin;

	if (get_addr(server_addr, 0, &sin))
		return -1;
	s->ch = rdma_create_event_channel();
	if (!s->ch || rdma_create_id(s->ch, &s->listen_id, s, RDMA_PS_TCP)) {
		perror("cm_rw: server: rdma_create_id");
		return -1;
	}
	if (rdma_bind_addr(s->listen_id, (struct sockaddr *)&sin)) {
		fprintf(stderr, "cm_rw: server: rdma_bind_addr(%s): %s\n",
			server_addr, strerror(errno));
		return -1;
	}
	if (rdma_listen(s->listen_id, 1)) {
		perror("cm_rw: server: rdma_listen");
		return -1;
	}
	server_port = ntohs(rdma_get_src_port(s->listen_id));
	printf("cm_rw: server: listening on %s port %u\n", server_addr,
	       server_port);
	return 0;
}

static struct side server = { .name = "server" };
static struct side client = { .name = "client" };

static int server_run(struct side *s)
{
	struct region reg;
	struct rdma_conn_param cp = {
		.responder_resources = 1,	/* the client's RDMA Read */
		.initiator_depth = 1,
		.private_data = &reg,
		.private_data_len = sizeof(reg),
	};
	struct rdma_cm_event *ev;
	struct ibv_wc wc;

	if (wait_event(s, RDMA_CM_EVENT_CONNECT_REQUEST, &ev))
		return -1;
	s->id = ev->id;
	printf("cm_rw: server: connect request, responder_resources %u initiator_depth %u\n",
	       ev->param.conn.responder_resources,
	       ev->param.conn.initiator_depth);
	rdma_ack_cm_event(ev);
	if (setup_qp(s, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ))
		return -1;
	fill(s->buf + OFF_READ, RW_LEN, P_READ);
	if (post_recv(s, 1, OFF_RECV1, SEND_LEN) ||
	    post_recv(s, 2, OFF_RECV2, 64))
		return -1;
	reg.addr = htobe64((uintptr_t)(s->buf + OFF_WRITE));
	reg.rkey = htobe32(s->mr->rkey);
	reg.len = htobe32(2 * RW_LEN);
	if (rdma_accept(s->id, &cp)) {
		perror("cm_rw: server: rdma_accept");
		return -1;
	}
	if (wait_event(s, RDMA_CM_EVENT_ESTABLISHED, NULL))
		return -1;
	printf("cm_rw: server: established\n");

	/* 1. the Send */
	if (wait_wc(s, IBV_WC_RECV, &wc))
		return -1;
	if (wc.wr_id != 1 || wc.byte_len != SEND_LEN) {
		fprintf(stderr, "cm_rw: server: receive wr_id %llu of %u bytes, expected 1 and %d\n",
			(unsigned long long)wc.wr_id, wc.byte_len, SEND_LEN);
		return -1;
	}
	if (verify(s, "Send payload", s->buf + OFF_RECV1, SEND_LEN, P_SEND))
		return -1;

	/* 2. "WDON" follows the RDMA Write on the same QP */
	if (wait_wc(s, IBV_WC_RECV, &wc))
		return -1;
	if (wc.wr_id != 2 || wc.byte_len != 4 ||
	    memcmp(s->buf + OFF_RECV2, "WDON", 4) != 0) {
		fprintf(stderr, "cm_rw: server: bad second receive (wr_id %llu, %u bytes)\n",
			(unsigned long long)wc.wr_id, wc.byte_len);
		return -1;
	}
	if (verify(s, "RDMA Write target", s->buf + OFF_WRITE, RW_LEN,
		   P_WRITE))
		return -1;

	/* 3. the client Reads, then disconnects */
	if (wait_event(s, RDMA_CM_EVENT_DISCONNECTED, NULL))
		return -1;
	/* Answer the client's DREQ, or it waits for the CM timeout. */
	if (rdma_disconnect(s->id)) {
		perror("cm_rw: server: rdma_disconnect");
		return -1;
	}
	printf("cm_rw: server: disconnected\n");
	return 0;
}

static void *server_thread(void *arg)
{
	static int result;

	result = server_run(arg);
	if (result)
		fprintf(stderr, "cm_rw: server failed\n");
	return &result;
}

static int client_run(struct side *s)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1,
		.initiator_depth = 1,	/* we issue an RDMA Read */
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct sockaddr_in src, dst;
	struct rdma_cm_event *ev;
	struct region reg;
	struct ibv_wc wc;
	uint64_t raddr;
	uint32_t rkey, rlen;

	if (get_addr(client_addr, 0, &src) ||
	    get_addr(server_addr, server_port, &dst))
		return -1;
	s->ch = rdma_create_event_channel();
	if (!s->ch || rdma_create_id(s->ch, &s->id, s, RDMA_PS_TCP)) {
		perror("cm_rw: client: rdma_create_id");
		return -1;
	}
	if (rdma_resolve_addr(s->id, (struct sockaddr *)&src,
			      (struct sockaddr *)&dst, STEP_MS / 2)) {
		perror("cm_rw: client: rdma_resolve_addr");
		return -1;
	}
	if (wait_event(s, RDMA_CM_EVENT_ADDR_RESOLVED, NULL))
		return -1;
	if (rdma_resolve_route(s->id, STEP_MS / 2)) {
		perror("cm_rw: client: rdma_resolve_route");
		return -1;
	}
	if (wait_event(s, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL))
		return -1;
	if (setup_qp(s, IBV_ACCESS_LOCAL_WRITE))
		return -1;
	fill(s->buf + OFF_RECV1, SEND_LEN, P_SEND);
	memcpy(s->buf + OFF_RECV2, "WDON", 4);
	fill(s->buf + OFF_WRITE, RW_LEN, P_WRITE);
	if (rdma_connect(s->id, &cp)) {
		perror("cm_rw: client: rdma_connect");
		return -1;
	}
	if (wait_event(s, RDMA_CM_EVENT_ESTABLISHED, &ev))
		return -1;
	if (!ev->param.conn.private_data ||
	    ev->param.conn.private_data_len < sizeof(reg)) {
		fprintf(stderr, "cm_rw: client: accept private data too short (%u)\n",
			ev->param.conn.private_data_len);
		rdma_ack_cm_event(ev);
		return -1;
	}
	memcpy(&reg, ev->param.conn.private_data, sizeof(reg));
	rdma_ack_cm_event(ev);
	raddr = be64toh(reg.addr);
	rkey = be32toh(reg.rkey);
	rlen = be32toh(reg.len);
	printf("cm_rw: client: established, region rkey 0x%x len %u\n", rkey,
	       rlen);
	if (rlen != 2 * RW_LEN) {
		fprintf(stderr, "cm_rw: client: region length %u, expected %d\n",
			rlen, 2 * RW_LEN);
		return -1;
	}
	/* 1. Send */
	if (post_send(s, IBV_WR_SEND, OFF_RECV1, SEND_LEN, 0, 0) ||
	    wait_wc(s, IBV_WC_SEND, &wc))
		return -1;
	printf("cm_rw: client: Send of %d bytes completed\n", SEND_LEN);

	/* 2. RDMA Write, then a Send the server waits for */
	if (post_send(s, IBV_WR_RDMA_WRITE, OFF_WRITE, RW_LEN, raddr, rkey) ||
	    wait_wc(s, IBV_WC_RDMA_WRITE, &wc))
		return -1;
	printf("cm_rw: client: RDMA Write of %d bytes completed\n", RW_LEN);
	if (post_send(s, IBV_WR_SEND, OFF_RECV2, 4, 0, 0) ||
	    wait_wc(s, IBV_WC_SEND, &wc))
		return -1;

	/* 3. RDMA Read of the server's second half */
	if (post_send(s, IBV_WR_RDMA_READ, OFF_READ, RW_LEN, raddr + RW_LEN,
		      rkey) ||
	    wait_wc(s, IBV_WC_RDMA_READ, &wc))
		return -1;
	if (verify(s, "RDMA Read sink", s->buf + OFF_READ, RW_LEN, P_READ))
		return -1;

	/* 4. disconnect */
	if (rdma_disconnect(s->id)) {
		perror("cm_rw: client: rdma_disconnect");
		return -1;
	}
	if (wait_event(s, RDMA_CM_EVENT_DISCONNECTED, NULL))
		return -1;
	printf("cm_rw: client: disconnected\n");
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t tid;
	void *ret;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	server_addr = argc > 1 ? argv[1] : getenv("RPCRDMA_ADDR_B");
	client_addr = argc > 2 ? argv[2] : getenv("RPCRDMA_ADDR_A");
	if (!server_addr || !client_addr) {
		fprintf(stderr,
			"usage: cm_rw [SERVER_ADDR [CLIENT_ADDR]] (or set RPCRDMA_ADDR_B and RPCRDMA_ADDR_A)\n");
		return 2;
	}
	alarm(TOTAL_S);	/* SIGALRM kills a hung run */

	if (server_listen(&server))
		return 1;
	rc = pthread_create(&tid, NULL, server_thread, &server);
	if (rc) {
		fprintf(stderr, "cm_rw: pthread_create: %s\n", strerror(rc));
		return 1;
	}
	if (client_run(&client)) {
		fprintf(stderr, "cm_rw: client failed\n");
		return 1;	/* the server may be blocked: do not join */
	}
	pthread_join(tid, &ret);
	if (*(int *)ret)
		return 1;
	if (client.id->verbs->device == server.id->verbs->device) {
		fprintf(stderr, "cm_rw: both ends on device %s: the traffic did not cross the veth pair\n",
			ibv_get_device_name(client.id->verbs->device));
		return 1;
	}
	teardown(&client);
	teardown(&server);
	printf("cm_rw: OK\n");
	return 0;
}
