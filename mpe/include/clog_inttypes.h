/* SPDX-License-Identifier: BSD-3-Clause */
/* Fixed-width integer types under MPE2's CLOG names. */
#ifndef CLOG_INTTYPES_H
#define CLOG_INTTYPES_H

#include <stdint.h>

typedef int8_t   CLOG_int8_t;
typedef int16_t  CLOG_int16_t;
typedef int32_t  CLOG_int32_t;
typedef int64_t  CLOG_int64_t;
typedef uint8_t  CLOG_uint8_t;
typedef uint16_t CLOG_uint16_t;
typedef uint32_t CLOG_uint32_t;
typedef uint64_t CLOG_uint64_t;

#define i32fmt "%d"
#define i64fmt "%lld"

#endif
