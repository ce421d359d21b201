/* SPDX-License-Identifier: BSD-3-Clause */
#include <check.h>
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "procself.h"

int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

long vmrss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	ck_assert_int_ge(kib, 0);
	return kib;
}

size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/*
 * The kernel's resource tracking lists one line per object with "pid N"
 * for user objects, each kind's lines told apart by their first key
 * (iproute2 rdma/res-*.c; a cm_id line also shows lqpn, QP and MR lines
 * pdn, hence the order in which keys are tried). One rdma process for all
 * five (batch mode): each exec costs seconds under TCG.
 */
const char *const rdma_res_kinds[RDMA_RES_KINDS] = { "qp", "cq", "mr", "pd",
						     "cm_id" };
static const char *const res_keys[RDMA_RES_KINDS] = { " lqpn ", " cqn ",
						       " mrn ", " pdn ",
						       " cm-idn " };
static const int res_order[RDMA_RES_KINDS] = { 4, 2, 1, 0, 3 };

void rdma_res(pid_t pid, int out[RDMA_RES_KINDS])
{
	char line[512], pat[32];
	FILE *f;

	snprintf(pat, sizeof(pat), " pid %d ", (int)pid);
	f = popen("printf 'resource show qp\\nresource show cq\\n"
		  "resource show mr\\nresource show pd\\n"
		  "resource show cm_id\\n' | rdma -b - 2>&1", "r");
	ck_assert_ptr_nonnull(f);
	memset(out, 0, RDMA_RES_KINDS * sizeof(out[0]));
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, pat))
			continue;
		for (size_t i = 0; i < RDMA_RES_KINDS; i++) {
			if (strstr(line, res_keys[res_order[i]])) {
				out[res_order[i]]++;
				break;
			}
		}
	}
	ck_assert_int_eq(pclose(f), 0);
}

void rdma_res_print(const char *prefix, const char *who, const char *when,
		    const int r[RDMA_RES_KINDS])
{
	printf("%s: rdma resources of the %s %s:", prefix, who, when);
	for (size_t k = 0; k < RDMA_RES_KINDS; k++)
		printf(" %s %d", rdma_res_kinds[k], r[k]);
	printf("\n");
}
