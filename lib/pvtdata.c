/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA-CM Private Data for RPC-over-RDMA version 1 (RFC 8797).
 *
 * RFC 8797 section 4, the 8-octet message, in this order:
 *
 *   octets 0-3  Format Identifier 0xf6ab0e18, network byte order
 *   octet  4    Version (1)
 *   octet  5    Flags: 7 Reserved bits, then R as the least significant
 *               bit (bit 15 of the second word, mask 0x01)
 *   octet  6    Send Size    (encoded, section 4.2)
 *   octet  7    Receive Size (encoded, section 4.2)
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rpcrdma/pvtdata.h>

#define PD_OFF_VERSION	4
#define PD_OFF_FLAGS	5
#define PD_OFF_SEND	6
#define PD_OFF_RECV	7

/*
 * RFC 8797 section 4.2: the encoded value is size / 1024 - 1, so only
 * multiples of 1024 in 1024..262144 (encoded 0..255) are representable.
 */
static int size_encode(uint32_t size, uint8_t *out)
{
	if (size < RPCRDMA_PVTDATA_MIN_SIZE ||
	    size > RPCRDMA_PVTDATA_MAX_SIZE || size % 1024u != 0)
		return -EINVAL;
	*out = (uint8_t)(size / 1024u - 1u);
	return 0;
}

/* RFC 8797 section 4.2: the receiver adds one and multiplies by 1024. */
static uint32_t size_decode(uint8_t v)
{
	return ((uint32_t)v + 1u) * 1024u;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * pd->version is not consulted: this encoder produces format version 1,
 * the only one defined (RFC 8797 section 4). The Reserved bits are sent
 * as zero (section 4: "Senders MUST set these bits to zero").
 */
int rpcrdma_pvtdata_encode(const struct rpcrdma_pvtdata *pd,
			   uint8_t out[RPCRDMA_PVTDATA_LEN])
{
	uint8_t send, recv;

	if (!pd || !out)
		return -EINVAL;
	if (size_encode(pd->send_size, &send) ||
	    size_encode(pd->recv_size, &recv))
		return -EINVAL;

	out[0] = (uint8_t)(RPCRDMA_PVTDATA_FORMAT_ID >> 24);
	out[1] = (uint8_t)(RPCRDMA_PVTDATA_FORMAT_ID >> 16);
	out[2] = (uint8_t)(RPCRDMA_PVTDATA_FORMAT_ID >> 8);
	out[3] = (uint8_t)RPCRDMA_PVTDATA_FORMAT_ID;
	out[PD_OFF_VERSION] = RPCRDMA_PVTDATA_VERSION;
	out[PD_OFF_FLAGS] = 0;
	if (pd->remote_inv)
		out[PD_OFF_FLAGS] = RPCRDMA_PVTDATA_FLAG_REMOTE_INV;
	out[PD_OFF_SEND] = send;
	out[PD_OFF_RECV] = recv;
	return 0;
}

/*
 * RFC 8797 section 5.2: the received buffer is searched for the Format
 * Identifier at any offset, with no alignment; a candidate is accepted only
 * when its version is one we know (1) and the message does not overrun the
 * buffer. Otherwise the search goes on past that offset: other private
 * data (MPAv2, RFC 6581, or an upper layer's) may happen to contain the
 * identifier. Section 5.1: no acceptable message means the peer is treated
 * as sending none (the caller then negotiates with NULL).
 *
 * Section 4: receivers MUST ignore the Reserved bits; only R is read.
 */
int rpcrdma_pvtdata_parse(const void *buf, size_t len,
			  struct rpcrdma_pvtdata *pd)
{
	const uint8_t *p = buf;
	size_t off;

	if (!pd)
		return -EINVAL;
	if (!buf || len < RPCRDMA_PVTDATA_LEN)
		return -ENOENT;

	/* len >= 8, so off + 8 <= len cannot overflow for these offsets. */
	for (off = 0; off <= len - RPCRDMA_PVTDATA_LEN; off++) {
		const uint8_t *m = p + off;
		uint8_t flags;
		uint32_t id = (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 |
			      (uint32_t)m[2] << 8 | (uint32_t)m[3];

		if (id != RPCRDMA_PVTDATA_FORMAT_ID)
			continue;
		if (m[PD_OFF_VERSION] != RPCRDMA_PVTDATA_VERSION)
			continue;

		pd->version = m[PD_OFF_VERSION];
		flags = m[PD_OFF_FLAGS];
		pd->remote_inv = (flags & RPCRDMA_PVTDATA_FLAG_REMOTE_INV) != 0;
		pd->send_size = size_decode(m[PD_OFF_SEND]);
		pd->recv_size = size_decode(m[PD_OFF_RECV]);
		return 0;
	}
	/*
	 * An identifier in the last 7 octets cannot carry a whole message
	 * (section 5.2, "does not overrun the length of the buffer"), so
	 * the loop need not look there.
	 */
	return -ENOENT;
}

/*
 * RFC 8797 section 4.2: "The client uses the smaller of its own send size
 * and the server's reported receive size as the client-to-server inline
 * threshold. The server uses the smaller of its own send size and the
 * client's reported receive size as the server-to-client inline
 * threshold." The rule is symmetric, so for either role: send_max =
 * min(local send, peer receive), and by the same rule applied at the peer,
 * recv_max = min(local receive, peer send).
 *
 * Section 5.1: without a conforming message, behave as if the peer sent
 * R = 0 and both sizes encoded 0 (1024 octets, the RFC 8166 section 3.3.3
 * default). Our own larger values then do not matter: min() yields 1024.
 *
 * Section 4.1: Send With Invalidate is allowed only "when both connection
 * peers have set this bit"; when either clears it, the responder MUST use
 * only RDMA Send. So peer_remote_inv needs our own R as well as the
 * peer's: we advertise R only when we can handle (and issue) it.
 * Receiving is another matter: the Linux server sends R = 0 yet uses Send
 * With Invalidate whenever the client set R (docs/conformance.md), so
 * remote_inv_in, what we must be ready to receive, is our own R alone.
 *
 * A NULL local is taken as the defaults too (1024 each way, no R).
 */
void rpcrdma_pvtdata_negotiate(const struct rpcrdma_pvtdata *local,
			       const struct rpcrdma_pvtdata *peer,
			       struct rpcrdma_inline *out)
{
	static const struct rpcrdma_pvtdata dflt = {
		.version = RPCRDMA_PVTDATA_VERSION,
		.remote_inv = false,
		.send_size = RPCRDMA_DEFAULT_INLINE,
		.recv_size = RPCRDMA_DEFAULT_INLINE,
	};
	const struct rpcrdma_pvtdata *l = local ? local : &dflt;
	const struct rpcrdma_pvtdata *r = peer ? peer : &dflt;

	if (!out)
		return;
	out->send_max = min_u32(l->send_size, r->recv_size);
	out->recv_max = min_u32(l->recv_size, r->send_size);
	out->peer_remote_inv = l->remote_inv && r->remote_inv;
	out->remote_inv_in = l->remote_inv;
	out->peer_sent_pvtdata = peer != NULL;
}
