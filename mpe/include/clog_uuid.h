/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicator identifiers in MPE2's layout: 32 bytes. */
#ifndef CLOG_UUID_H
#define CLOG_UUID_H

#include "clog_inttypes.h"

#define CLOG_UUID_NAME_SIZE 20
#define CLOG_UUID_SIZE      (4 + 8 + CLOG_UUID_NAME_SIZE)

typedef char CLOG_Uuid_t[CLOG_UUID_SIZE];

#endif
