/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The operator's log: the library prints nothing; lines go to the hook
 * the application installed (rpcrdma_set_log), or nowhere.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include "xprt.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static rpcrdma_log_fn log_fn;
static void *log_arg;

void rpcrdma_set_log(rpcrdma_log_fn fn, void *arg)
{
	pthread_mutex_lock(&log_lock);
	log_fn = fn;
	log_arg = arg;
	pthread_mutex_unlock(&log_lock);
}

void xprt_log(const char *fmt, ...)
{
	rpcrdma_log_fn fn;
	char line[512];
	va_list ap;
	void *arg;

	pthread_mutex_lock(&log_lock);
	fn = log_fn;
	arg = log_arg;
	pthread_mutex_unlock(&log_lock);
	if (!fn)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fn(arg, line);
}
