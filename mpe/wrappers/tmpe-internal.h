/* SPDX-License-Identifier: BSD-3-Clause */
/* libtmpe: prints every MPI call on entry and exit (MPE-COMPAT 2.8). */
#ifndef MPE_TMPE_INTERNAL_H
#define MPE_TMPE_INTERNAL_H

#include <mpi.h>
#include <stdatomic.h>

#define MPE__TRACE_HIDDEN __attribute__ ((visibility ("hidden")))

extern _Atomic int mpe__trace_on MPE__TRACE_HIDDEN;
extern __thread int mpe__trace_nest
  __attribute__ ((tls_model ("initial-exec"))) MPE__TRACE_HIDDEN;

#define TRACE_ON() \
  (atomic_load_explicit (&mpe__trace_on, memory_order_relaxed) \
   && !mpe__trace_nest)

/* One line "[rank] text\n" on stdout, flushed, whole even with threads. */
void mpe__trace_line (const char *fmt, ...)
  __attribute__ ((format (printf, 1, 2))) MPE__TRACE_HIDDEN;

#endif
