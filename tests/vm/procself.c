/* SPDX-License-Identifier: BSD-3-Clause */
#include <check.h>
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "procself.h"

static int fds_in(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;

	ck_assert_msg(d != NULL, "%s cannot be read", dir);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static long vmrss_in(const char *status)
{
	FILE *f = fopen(status, "r");
	char line[256];
	long kib = -1;

	ck_assert_msg(f != NULL, "%s cannot be read", status);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	ck_assert_int_ge(kib, 0);
	return kib;
}

int open_fds(void)
{
	return fds_in("/proc/self/fd");
}

long vmrss_kib(void)
{
	return vmrss_in("/proc/self/status");
}

int pid_fds(pid_t pid)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%d/fd", (int)pid);
	return fds_in(p);
}

long pid_vmrss_kib(pid_t pid)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	return vmrss_in(p);
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
 *
 * The "pid" is that of the thread that made the object (restrack keeps
 * its task), shown only while that thread lives: a QP that a caller's
 * thread made when it reconnected shows no pid once that thread ended
 * (seen on 6.12), nor does a kernel object, which shows "comm [name]".
 * orphans: count those user objects without a pid too, for a process
 * whose other threads made objects and are gone (this one, once no other
 * process of the guest has such objects).
 */
const char *const rdma_res_kinds[RDMA_RES_KINDS] = { "qp", "cq", "mr", "pd",
						     "cm_id" };
static const char *const res_keys[RDMA_RES_KINDS] = { " lqpn ", " cqn ",
						       " mrn ", " pdn ",
						       " cm-idn " };
static const int res_order[RDMA_RES_KINDS] = { 4, 2, 1, 0, 3 };

void rdma_res(pid_t pid, bool orphans, int out[RDMA_RES_KINDS])
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
		if (!strstr(line, pat) &&
		    (!orphans || strstr(line, " pid ") ||
		     strstr(line, " comm [")))
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
