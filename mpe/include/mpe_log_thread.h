/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Thread support.  MPE2 serialised every call with one global mutex; this
 * library logs into a buffer per thread without locks, so the lock macros
 * MPE2 declared here expand to nothing.  Thread ids are 0, 1, 2, ... in
 * the order threads first log; the MPE_Init_log thread is 0.
 */
#ifndef MPE_LOG_THREAD_H
#define MPE_LOG_THREAD_H

#include "mpe_log.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MPE_LOG_THREAD_LOCK
#define MPE_LOG_THREAD_UNLOCK
#define MPE_LOG_THREADSTM_DECL
#define MPE_LOG_THREADSTM_GET
#define MPE_LOG_THREAD_INIT

/* Index of the calling thread in the log (assigns one if needed). */
MPE_API int MPE_Log_thread_id (void);

#ifdef __cplusplus
}
#endif

#endif
