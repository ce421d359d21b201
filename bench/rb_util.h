/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by rb_server and rb_client: the byte pattern every READ result
 * and WRITE argument carries, so that each side checks what arrived. */
#ifndef RB_UTIL_H
#define RB_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* A buffer of n pattern bytes (n >= 1), or NULL. The pattern does not
 * repeat with any power of two, so a misplaced chunk shows. */
static inline uint8_t *rb_pattern(size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131u + (i >> 9) + 7u);
	return p;
}

#endif /* RB_UTIL_H */
