/* SPDX-License-Identifier: BSD-3-Clause */
/* Constants shared by the CLOG headers (values as in MPE2). */
#ifndef CLOG_CONST_H
#define CLOG_CONST_H

#define CLOG_BOOL_NULL    -1
#define CLOG_BOOL_FALSE    0
#define CLOG_BOOL_TRUE     1

#define CLOG_NULL_FILE    -5

#define CLOG_PATH_STRLEN  256

#define CLOG_PROCID_NULL  -1
#define CLOG_MAXTHREADS   1024

#endif
