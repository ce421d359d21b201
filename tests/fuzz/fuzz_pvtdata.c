/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the RFC 8797 Private Data parser (lib/pvtdata.c). An
 * accepted message (at any offset, section 5.2) has sizes in the RFC's
 * range and survives an encode and parse unchanged; the thresholds
 * negotiated against ours stay within 1024 and our own 4096.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rpcrdma/pvtdata.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rpcrdma_pvtdata pd, ours = {
		.version = RPCRDMA_PVTDATA_VERSION,
		.remote_inv = true,
		.send_size = 4096,
		.recv_size = 4096,
	};
	struct rpcrdma_pvtdata again;
	struct rpcrdma_inline inl;
	uint8_t out[RPCRDMA_PVTDATA_LEN];

	if (rpcrdma_pvtdata_parse(data, size, &pd) != 0)
		return 0;
	if (pd.send_size < RPCRDMA_PVTDATA_MIN_SIZE ||
	    pd.send_size > RPCRDMA_PVTDATA_MAX_SIZE ||
	    pd.recv_size < RPCRDMA_PVTDATA_MIN_SIZE ||
	    pd.recv_size > RPCRDMA_PVTDATA_MAX_SIZE)
		abort();
	if (rpcrdma_pvtdata_encode(&pd, out) != 0 ||
	    rpcrdma_pvtdata_parse(out, sizeof(out), &again) != 0 ||
	    again.version != pd.version || again.remote_inv != pd.remote_inv ||
	    again.send_size != pd.send_size ||
	    again.recv_size != pd.recv_size)
		abort();
	rpcrdma_pvtdata_negotiate(&ours, &pd, &inl);
	if (inl.send_max < RPCRDMA_PVTDATA_MIN_SIZE || inl.send_max > 4096 ||
	    inl.recv_max < RPCRDMA_PVTDATA_MIN_SIZE || inl.recv_max > 4096 ||
	    inl.peer_remote_inv != pd.remote_inv)
		abort();
	return 0;
}
