/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma-stat -f: the fabric's own counters of retransmission and loss.
 * A connection over a lossy fabric keeps working, only slower: RoCE's
 * retransmissions are the adapter's, invisible to the library and its
 * counters (a queue pair's completions say nothing of them), and iWARP's
 * are TCP's. They are in the device's port counters
 * (/sys/class/infiniband/DEV/ports/N/hw_counters, the names vary by
 * driver) and in /proc/net/snmp; this prints the ones that say "a packet
 * was lost or came out of order", so a user need not know the names.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric.h"

#define SYS_IB	"/sys/class/infiniband"

/*
 * Counters that move when the fabric loses or reorders packets: rxe's
 * (retries of a requester, NAKs for a sequence gap, requests seen twice
 * or early, RNR NAKs, retries exhausted), mlx5's (ACK timeouts, sequence
 * errors, implied NAKs, duplicates, RNR retries exhausted) and bnxt_re's
 * and irdma's like-named ones.
 */
static const char *const loss_names[] = {
	"completer_retry_err", "rcvd_seq_err", "out_of_seq_request",
	"duplicate_request", "retry_exceeded_err", "retry_rnr_exceeded_err",
	"rcvd_rnr_err", "send_rnr_err", "local_ack_timeout_err",
	"out_of_sequence", "packet_seq_err", "implied_nak_seq_err",
	"rnr_nak_retry_err", "seq_err_naks_rcvd", "to_retransmits",
	"rnr_naks_rcvd", "max_retry_exceeded", "ip4RxDiscards",
};

static bool is_loss_name(const char *n)
{
	for (size_t i = 0; i < sizeof(loss_names) / sizeof(loss_names[0]); i++)
		if (strcmp(n, loss_names[i]) == 0)
			return true;
	return false;
}

static bool read_ull(const char *path, unsigned long long *v)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%llu", v) == 1;
	fclose(f);
	return ok;
}

/* One port's counters (those of loss, or all). */
static void port_print(const char *dev, const char *port, bool all)
{
	char dir[1024], path[1400];
	struct dirent **names;
	int n, shown = 0;

	snprintf(dir, sizeof(dir), SYS_IB "/%s/ports/%s/hw_counters", dev,
		 port);
	n = scandir(dir, &names, NULL, alphasort);
	printf("%s port %s:", dev, port);
	if (n < 0) {
		printf(" no counters (the driver exports none: siw counts "
		       "nothing, its retransmissions are TCP's)\n");
		return;
	}
	for (int i = 0; i < n; i++) {
		unsigned long long v;

		if (names[i]->d_name[0] != '.' &&
		    (all || is_loss_name(names[i]->d_name))) {
			snprintf(path, sizeof(path), "%s/%s", dir,
				 names[i]->d_name);
			if (read_ull(path, &v) && (all || v)) {
				printf("%s %s %llu", shown % 4 ? "," : "\n  ",
				       names[i]->d_name, v);
				shown++;
			}
		}
		free(names[i]);
	}
	free(names);
	printf("%s\n", shown ? "" : " none moved");
}

/* TCP's RetransSegs: what iWARP (siw, and hardware iWARP's own TCP
 * offload excepted) retransmitted. */
static void tcp_print(void)
{
	char hdr[2048], val[2048], *hs, *vs, *h, *v;
	FILE *f = fopen("/proc/net/snmp", "r");

	if (!f)
		return;
	while (fgets(hdr, sizeof(hdr), f) && fgets(val, sizeof(val), f)) {
		if (strncmp(hdr, "Tcp:", 4) != 0)
			continue;
		for (h = strtok_r(hdr, " \n", &hs), v = strtok_r(val, " \n", &vs);
		     h && v;
		     h = strtok_r(NULL, " \n", &hs), v = strtok_r(NULL, " \n", &vs))
			if (strcmp(h, "RetransSegs") == 0)
				printf("tcp (iWARP's transport): RetransSegs "
				       "%s\n", v);
	}
	fclose(f);
}

int fabric_print(bool all)
{
	struct dirent **devs;
	int n = scandir(SYS_IB, &devs, NULL, alphasort), found = 0;

	for (int i = 0; i < n; i++) {
		char pdir[600];
		struct dirent **ports;
		int np;

		if (devs[i]->d_name[0] == '.') {
			free(devs[i]);
			continue;
		}
		snprintf(pdir, sizeof(pdir), SYS_IB "/%s/ports",
			 devs[i]->d_name);
		np = scandir(pdir, &ports, NULL, alphasort);
		for (int j = 0; j < np; j++) {
			if (ports[j]->d_name[0] != '.') {
				port_print(devs[i]->d_name, ports[j]->d_name,
					   all);
				found++;
			}
			free(ports[j]);
		}
		if (np >= 0)
			free(ports);
		free(devs[i]);
	}
	if (n >= 0)
		free(devs);
	tcp_print();
	if (!found)
		printf("(no RDMA device in " SYS_IB ")\n");
	return found ? 0 : 1;
}
