/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * devcaps: assert that the guest's RDMA devices can carry this transport.
 *
 * Usage: devcaps DEVICE...   (the guest tier runs "devcaps rxe0 rxe1",
 *                             or "devcaps siw0 siw1" on iWARP)
 *
 * For each named device: port 1 is PORT_ACTIVE and the device answers RDMA
 * Reads (max_qp_rd_atom). A RoCE/InfiniBand device must also advertise
 * memory windows (IBV_DEVICE_MEM_WINDOW and IBV_DEVICE_MEM_WINDOW_TYPE_2B)
 * and the base memory management extensions (IBV_DEVICE_MEM_MGT_EXTENSIONS,
 * which include Send With Invalidate and local invalidation), have a
 * non-zero max_mw and really allocate a type-2 window. An iWARP device
 * (siw) has no windows: the transport then registers each chunk for its
 * RPC and offers no remote invalidation (docs/conformance.md), so there
 * ibv_alloc_mw must fail cleanly instead. Prints one line of capabilities
 * per device. Exit status 0 when every device passes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

static int failures;

static void check(int ok, const char *dev, const char *what)
{
	if (!ok) {
		fprintf(stderr, "devcaps: %s: %s\n", dev, what);
		failures++;
	}
}

static void check_device(struct ibv_device *d)
{
	const char *name = ibv_get_device_name(d);
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mw *mw;
	bool iwarp;
	int rc;

	ctx = ibv_open_device(d);
	if (!ctx) {
		check(0, name, "ibv_open_device failed");
		return;
	}
	rc = ibv_query_device(ctx, &attr);
	if (rc) {
		fprintf(stderr, "devcaps: %s: ibv_query_device: %s\n", name,
			strerror(rc));
		failures++;
		goto out_close;
	}
	rc = ibv_query_port(ctx, 1, &port);
	if (rc) {
		fprintf(stderr, "devcaps: %s: ibv_query_port: %s\n", name,
			strerror(rc));
		failures++;
		goto out_close;
	}
	iwarp = d->transport_type == IBV_TRANSPORT_IWARP;
	printf("%s: %s port1 %s mtu %d cap_flags 0x%x max_mw %d max_mr %d "
	       "max_sge %d max_qp_wr %d max_cqe %d max_qp_rd_atom %d\n",
	       name, iwarp ? "iWARP" : "IB/RoCE", ibv_port_state_str(port.state),
	       128 << port.active_mtu, (unsigned int)attr.device_cap_flags,
	       attr.max_mw, attr.max_mr, attr.max_sge, attr.max_qp_wr,
	       attr.max_cqe, attr.max_qp_rd_atom);

	check(port.state == IBV_PORT_ACTIVE, name, "port 1 is not ACTIVE");
	/* RDMA Read needs at least one outstanding read per QP. */
	check(attr.max_qp_rd_atom > 0, name, "max_qp_rd_atom is 0");
	if (iwarp)
		goto windows;
	check(attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW, name,
	      "no IBV_DEVICE_MEM_WINDOW");
	check(attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B, name,
	      "no IBV_DEVICE_MEM_WINDOW_TYPE_2B");
	check(attr.device_cap_flags & IBV_DEVICE_MEM_MGT_EXTENSIONS, name,
	      "no IBV_DEVICE_MEM_MGT_EXTENSIONS (Send With Invalidate)");
	check(attr.max_mw > 0, name, "max_mw is 0");
windows:
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		check(0, name, "ibv_alloc_pd failed");
		goto out_close;
	}
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	if (iwarp) {
		/* The guest tests expect siw to have none (windows_expected
		 * in t_clnt.c): a provider that grows them must change that. */
		check(!mw, name, "an iWARP device allocated a window");
		if (mw)
			ibv_dealloc_mw(mw);
	} else if (!mw) {
		fprintf(stderr, "devcaps: %s: ibv_alloc_mw(TYPE_2): %s\n", name,
			strerror(errno));
		failures++;
	} else {
		check(mw->type == IBV_MW_TYPE_2, name,
		      "allocated window is not of type 2");
		check(ibv_dealloc_mw(mw) == 0, name, "ibv_dealloc_mw failed");
	}
	check(ibv_dealloc_pd(pd) == 0, name, "ibv_dealloc_pd failed");
out_close:
	ibv_close_device(ctx);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	int i, j, n;

	if (argc < 2) {
		fprintf(stderr, "usage: devcaps DEVICE...\n");
		return 2;
	}
	list = ibv_get_device_list(&n);
	if (!list) {
		perror("devcaps: ibv_get_device_list");
		return 1;
	}
	for (i = 1; i < argc; i++) {
		for (j = 0; j < n; j++)
			if (strcmp(ibv_get_device_name(list[j]), argv[i]) == 0)
				break;
		if (j == n) {
			fprintf(stderr, "devcaps: %s: no such device (%d found)\n",
				argv[i], n);
			failures++;
			continue;
		}
		check_device(list[j]);
	}
	ibv_free_device_list(list);
	if (failures) {
		fprintf(stderr, "devcaps: %d check(s) failed\n", failures);
		return 1;
	}
	return 0;
}
