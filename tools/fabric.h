/* SPDX-License-Identifier: BSD-3-Clause */
/* rpcrdma-stat -f: what the fabric retransmitted (tools/fabric.c). */
#ifndef RPCRDMA_TOOLS_FABRIC_H
#define RPCRDMA_TOOLS_FABRIC_H

#include <stdbool.h>

/* Prints, for every RDMA device port of this host, its counters of
 * retransmission and loss (all its counters with all), and TCP's
 * retransmitted segments (iWARP's, siw's); 0, or 1 when there is no RDMA
 * device. */
int fabric_print(bool all);

#endif
