/* SPDX-License-Identifier: BSD-3-Clause */
/* libmpe_null: every MPE call is a no-op (MPE-COMPAT 1.11).  The getters
 * return -99999; MPE_Initialized_logging still reports 0/1/2;
 * MPE_Log_merged_logfilename returns NULL. */
#include "config.h"

#include <stddef.h>

#define MPE_NO_INLINE_CHECK 1
#include "mpe_log.h"
#include "mpe_log_thread.h"

#define NULL_ID (-99999)

static int state;
CLOG_CommSet_t *CLOG_CommSet;

int MPE_Init_log (void) { state = 1; return MPE_LOG_OK; }
int MPE_Initialized_logging (void) { return state; }
int MPE_Start_log (void) { return MPE_LOG_OK; }
int MPE_Stop_log (void) { return MPE_LOG_OK; }
int MPE_Log_sync_clocks (void) { return MPE_LOG_OK; }

int
MPE_Finish_log (const char *filename)
{
  (void) filename;
  if (state == 1)
    state = 2;
  return MPE_LOG_OK;
}

const char *MPE_Log_merged_logfilename (void) { return NULL; }
int MPE_Log_get_event_number (void) { return NULL_ID; }

int
MPE_Log_get_state_eventIDs (int *start_id, int *final_id)
{
  if (start_id)
    *start_id = NULL_ID;
  if (final_id)
    *final_id = NULL_ID;
  return MPE_LOG_OK;
}

int
MPE_Log_get_solo_eventID (int *event_id)
{
  if (event_id)
    *event_id = NULL_ID;
  return MPE_LOG_OK;
}

int MPE_Log_get_known_eventID (void) { return NULL_ID; }
int MPE_Log_get_known_stateID (void) { return NULL_ID; }
int MPE_Log_get_known_solo_eventID (void) { return NULL_ID; }

int
MPE_Describe_state (int a, int b, const char *n, const char *c)
{
  (void) a; (void) b; (void) n; (void) c;
  return MPE_LOG_OK;
}

int
MPE_Describe_info_state (int a, int b, const char *n, const char *c,
                         const char *f)
{
  (void) a; (void) b; (void) n; (void) c; (void) f;
  return MPE_LOG_OK;
}

int
MPE_Describe_comm_state (MPI_Comm comm, int a, int b, const char *n,
                         const char *c, const char *f)
{
  (void) comm; (void) a; (void) b; (void) n; (void) c; (void) f;
  return MPE_LOG_OK;
}

int
MPE_Describe_event (int e, const char *n, const char *c)
{
  (void) e; (void) n; (void) c;
  return MPE_LOG_OK;
}

int
MPE_Describe_info_event (int e, const char *n, const char *c, const char *f)
{
  (void) e; (void) n; (void) c; (void) f;
  return MPE_LOG_OK;
}

int
MPE_Describe_comm_event (MPI_Comm comm, int e, const char *n, const char *c,
                         const char *f)
{
  (void) comm; (void) e; (void) n; (void) c; (void) f;
  return MPE_LOG_OK;
}

/* The inline check in mpe_log.h then returns OK without a call. */
int mpe__log_active = 0;
int mpe__log_off_rc = MPE_LOG_OK;
/* Never set, and no thread has a buffer head: the inline bare event
 * always falls back to the check (mpe__bare_fast: for programs built
 * with an older mpe_log.h, which test it). */
MPE_API int mpe__bare_fast = 0;
MPE_API __thread struct mpe__tbuf_head *mpe__tls
  __attribute__ ((tls_model ("initial-exec")));
MPE_API __thread mpe__u64 mpe__mdue
  __attribute__ ((tls_model ("initial-exec")));

int MPE_Log_event (int e, int d, const char *b)
{ (void) e; (void) d; (void) b; return MPE_LOG_OK; }
int MPE_Log_bare_event (int e) { (void) e; return MPE_LOG_OK; }
int MPE_Log_info_event (int e, const char *b)
{ (void) e; (void) b; return MPE_LOG_OK; }
int MPE_Log_comm_event (MPI_Comm c, int e, const char *b)
{ (void) c; (void) e; (void) b; return MPE_LOG_OK; }

int
MPE_Log_pack (MPE_LOG_BYTES bytebuf, int *position, char tokentype,
              int count, const void *data)
{
  (void) bytebuf; (void) position; (void) tokentype; (void) count;
  (void) data;
  return MPE_LOG_OK;
}

int MPE_Log_send (int r, int t, int s)
{ (void) r; (void) t; (void) s; return MPE_LOG_OK; }
int MPE_Log_receive (int r, int t, int s)
{ (void) r; (void) t; (void) s; return MPE_LOG_OK; }
int MPE_Log_comm_send (MPI_Comm c, int r, int t, int s)
{ (void) c; (void) r; (void) t; (void) s; return MPE_LOG_OK; }
int MPE_Log_comm_receive (MPI_Comm c, int r, int t, int s)
{ (void) c; (void) r; (void) t; (void) s; return MPE_LOG_OK; }
void MPE_Log_thread_sync (int n) { (void) n; }
int MPE_Log_thread_id (void) { return 0; }

int
MPE_Describe_known_state (const CLOG_CommIDs_t *ci, int th, int s, int a,
                          int b, const char *n, const char *c, const char *f)
{
  (void) ci; (void) th; (void) s; (void) a; (void) b; (void) n; (void) c;
  (void) f;
  return MPE_LOG_OK;
}

int
MPE_Describe_known_event (const CLOG_CommIDs_t *ci, int th, int e,
                          const char *n, const char *c, const char *f)
{
  (void) ci; (void) th; (void) e; (void) n; (void) c; (void) f;
  return MPE_LOG_OK;
}

int MPE_Log_commIDs_intracomm (const CLOG_CommIDs_t *a, int t, int e,
                               const CLOG_CommIDs_t *b)
{ (void) a; (void) t; (void) e; (void) b; return MPE_LOG_OK; }
int MPE_Log_commIDs_nullcomm (const CLOG_CommIDs_t *a, int t, int e)
{ (void) a; (void) t; (void) e; return MPE_LOG_OK; }
int MPE_Log_commIDs_intercomm (const CLOG_CommIDs_t *a, int t, int e,
                               const CLOG_CommIDs_t *b)
{ (void) a; (void) t; (void) e; (void) b; return MPE_LOG_OK; }
int MPE_Log_commIDs_send (const CLOG_CommIDs_t *a, int t, int r, int g, int s)
{ (void) a; (void) t; (void) r; (void) g; (void) s; return MPE_LOG_OK; }
int MPE_Log_commIDs_receive (const CLOG_CommIDs_t *a, int t, int r, int g,
                             int s)
{ (void) a; (void) t; (void) r; (void) g; (void) s; return MPE_LOG_OK; }
int MPE_Log_commIDs_event (const CLOG_CommIDs_t *a, int t, int e,
                           const char *b)
{ (void) a; (void) t; (void) e; (void) b; return MPE_LOG_OK; }

/* Metrics (mpe_metrics.h): cells are numbered as in libmpe, values are
 * not kept. */
#include "mpe_metrics.h"

static int null_cells;

int
MPE_Metric_define (const char *name, const char *unit, int *cell)
{
  if (!name || !unit || !cell)
    return MPE_LOG_PACK_FAIL;
  if (null_cells >= MPE_METRIC_MAX_CELLS)
    return MPE_LOG_NO_MEMORY;
  *cell = null_cells++;
  return MPE_LOG_OK;
}

int MPE_Metric_set (int c, long long v) { (void) c; (void) v; return MPE_LOG_OK; }
int MPE_Metric_add (int c, long long v) { (void) c; (void) v; return MPE_LOG_OK; }
int MPE_Metric_sub (int c, long long v) { (void) c; (void) v; return MPE_LOG_OK; }
int MPE_Metric_timer_start (int c) { (void) c; return MPE_LOG_OK; }
int MPE_Metric_timer_stop (int c) { (void) c; return MPE_LOG_OK; }
int MPE_Metric_guard (int c, int f) { (void) c; (void) f; return MPE_LOG_OK; }
long long MPE_Metric_read (int c) { (void) c; return 0; }
long long MPE_Metric_read_channel (int c, int p) { (void) c; (void) p; return 0; }
int MPE_Metric_sample (void) { return MPE_LOG_OK; }
int MPE_Counters_read (void) { return MPE_LOG_OK; }
int MPE_Metric_sample_on (int e) { (void) e; return MPE_LOG_OK; }

int
MPE_Metric_find (const char *name, int *cell)
{
  (void) name; (void) cell;
  return MPE_LOG_PACK_FAIL;
}
