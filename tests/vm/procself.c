/* SPDX-License-Identifier: BSD-3-Clause */
#include <check.h>
#include <dirent.h>
#include <stdio.h>

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
