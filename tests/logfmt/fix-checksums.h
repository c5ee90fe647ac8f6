/* SPDX-License-Identifier: BSD-3-Clause */
/* Test helper: recompute a .clog image's checksums (fix-checksums.c). */
#ifndef LOGFMT_TEST_FIX_CHECKSUMS_H
#define LOGFMT_TEST_FIX_CHECKSUMS_H

#include <stddef.h>
#include <stdint.h>

void logfmt_test_fix_checksums (uint8_t *d, size_t n);

#endif
