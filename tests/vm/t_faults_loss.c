/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "loss" TCase of t_faults: RoCE assumes a lossless fabric, users'
 * fabrics drop packets. tc netem on both ends of the guest's veth drops
 * (and, in the last run, reorders) packets while 4 threads of one CLIENT
 * run the mixed load (NULL calls, inline echoes, echoes in chunks up to
 * 256 KiB) against a server child. Every call must succeed or fail with a
 * connection error within its timeout, never with a wrong byte (the
 * mixers check each, t_faults_mix.c); the fabric's retransmissions must
 * show in the counters a user reads (rxe's port counters, TCP's for siw:
 * rpcrdma-stat -f prints both); once the loss stops, the same CLIENT
 * carries a burst in which every call succeeds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_faults.h"

/* netem's settings, one run each; reordering needs a delay to act on. */
static const char *const loss_spec[] = {
	"loss 0.1%",
	"loss 1%",
	"delay 1ms reorder 25% 50% loss 1%",
};
#define LOSS_RUN_S	6	/* mixed load under each */

/* netem with spec on both ends of the veth, or none (spec NULL). */
static void netem(const char *spec)
{
	static const char *const dev[] = { "v0", "v1" };
	char cmd[256];

	for (int i = 0; i < 2; i++) {
		if (spec) {
			snprintf(cmd, sizeof(cmd),
				 "tc qdisc replace dev %s root netem %s",
				 dev[i], spec);
			ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
		} else {
			snprintf(cmd, sizeof(cmd),
				 "tc qdisc del dev %s root 2>/dev/null",
				 dev[i]);
			if (system(cmd)) {
				/* none was there */
			}
		}
	}
}

/* One counter file's value, or 0 when it does not exist. */
static long long read_ll(const char *path)
{
	long long v = 0;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* TCP's RetransSegs (/proc/net/snmp): siw's retransmissions. */
static long long tcp_retrans(void)
{
	char hdr[1024], val[1024];
	long long v = 0;
	FILE *f = fopen("/proc/net/snmp", "r");

	if (!f)
		return 0;
	while (fgets(hdr, sizeof(hdr), f) && fgets(val, sizeof(val), f)) {
		char *hs, *vs, *h, *x;
		int i = 0, want = -1;

		if (strncmp(hdr, "Tcp:", 4) != 0)
			continue;
		for (h = strtok_r(hdr, " \n", &hs); h;
		     h = strtok_r(NULL, " \n", &hs), i++)
			if (strcmp(h, "RetransSegs") == 0)
				want = i;
		i = 0;
		for (x = strtok_r(val, " \n", &vs); x;
		     x = strtok_r(NULL, " \n", &vs), i++)
			if (i == want)
				v = atoll(x);
	}
	fclose(f);
	return v;
}

/* The retransmissions the fabric made so far: rxe's requesters' retries
 * (a timeout or a NAK for a sequence gap) on both devices, or on siw
 * TCP's retransmitted segments. */
static long long fabric_retrans(void)
{
	const char *devs[] = { getenv("RPCRDMA_DEV_A"),
			       getenv("RPCRDMA_DEV_B") };
	const char *prov = getenv("RPCRDMA_PROVIDER");
	long long n = 0;
	char p[256];

	if (prov && strcmp(prov, "siw") == 0)
		return tcp_retrans();
	for (int i = 0; i < 2; i++) {
		if (!devs[i])
			continue;
		snprintf(p, sizeof(p),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/"
			 "completer_retry_err", devs[i]);
		n += read_ll(p);
		snprintf(p, sizeof(p),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/"
			 "rcvd_seq_err", devs[i]);
		n += read_ll(p);
	}
	return n;
}

START_TEST(test_loss_mixed)
{
	const char *spec = loss_spec[_i];
	uint16_t port = port_new();
	struct mixer ms[M_THREADS];
	pthread_t th[M_THREADS];
	atomic_bool stop = false;
	struct mixer m = { .seed = 0x10550000u + (uint32_t)_i * 0x1000u,
			   .stop = &stop, .ok_fd = -1 };
	struct rpcrdma_stats c0, c1;
	struct mix_stats tot, after;
	long long r0, r1;
	long ok = 0;
	pid_t pid;

	pid = srv_spawn(port);
	m.cl = clnt_mk(port);
	burst_ok(m.cl, M_THREADS, 10, false, m.seed ^ 0xffu, &after);
	c0 = stats_of(m.cl);
	r0 = fabric_retrans();
	netem(spec);
	ck_assert_int_eq(mixers_start(ms, th, M_THREADS, &m), 0);
	sleep(LOSS_RUN_S);
	atomic_store(&stop, true);
	mixers_join(ms, th, M_THREADS, &tot);
	netem(NULL);
	r1 = fabric_retrans();
	c1 = stats_of(m.cl);
	mix_print("t_faults loss", spec, &tot);
	printf("t_faults loss: %s: %lld retransmissions by the fabric, "
	       "%llu reconnects\n", spec, r1 - r0,
	       (unsigned long long)(c1.connects - c0.connects));
	if (c1.connects != c0.connects) {
		char cmd[128];

		/* Why the connections went: both sides' counters. */
		stats_print("t_faults loss client", &c1);
		snprintf(cmd, sizeof(cmd), "./tools/rpcrdma-stat %d", (int)pid);
		if (system(cmd)) {
			/* the tool's absence is not the test's failure */
		}
	}
	/* What a user reads (rpcrdma-stat(1)): the fabric's retries. */
	if (system("./tools/rpcrdma-stat -f")) {
		/* printed for the log only */
	}
	for (int k = 0; k < MIX_KINDS; k++)
		ok += tot.ok[k];
	ck_assert_msg(ok > 0, "%s: no call succeeded in %d s", spec,
		      LOSS_RUN_S);
	ck_assert_msg(r1 > r0, "%s: the fabric counted no retransmission: "
		      "did netem drop anything?", spec);
	/* The loss is gone: every call succeeds again, on the same CLIENT. */
	burst_ok(m.cl, M_THREADS, 10, false, m.seed ^ 0xfeu, &after);
	clnt_destroy(m.cl);
	srv_kill(pid);
}
END_TEST

void t_faults_add_loss(TCase *l)
{
	tcase_set_timeout(l, 180);
	tcase_add_loop_test(l, test_loss_mixed, 0,
			    (int)(sizeof(loss_spec) / sizeof(loss_spec[0])));
}
