/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parts of t_svc's "svc" case that live outside t_svc.c, as main
 * adds them to it, in this order between test_many_clients and
 * test_limits: the raw headers (t_svc_raw.c), the DDP hints and the
 * generic rule (t_svc_ddp.c), the raw chunks (t_svc_raw.c), then the
 * 2026 CVE shapes (t_svc_cve.c).
 */
#ifndef T_SVC_H
#define T_SVC_H

#include <check.h>

/* t_svc_raw.c: test_bad_headers, test_ddp_read_chunk. */
void t_svc_add_raw_headers(TCase *tc);
/* t_svc_ddp.c: test_reply_hints, test_ddp. */
void t_svc_add_ddp(TCase *tc);
/* t_svc_raw.c: test_write_chunk_raw, test_read_chunk_checked_first,
 * test_no_read_resources, test_empty_write_chunk. */
void t_svc_add_raw_chunks(TCase *tc);
/* t_svc_cve.c: test_cve_2026_shapes. */
void t_svc_add_cve(TCase *tc);

#endif /* T_SVC_H */
