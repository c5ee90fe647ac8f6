/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rank side of live animation: connects to an mpeanim window and
 * streams this process's records to it from a sender thread.  GTK-free.
 * Built as the convenience library anim/client/libanimclient.la and linked
 * into liblmpe and libampe by the wrapper libraries.
 *
 * This header is the whole interface, both ways: the client knows nothing
 * of libmpe.  Whoever starts it (mpe/wrappers/wrap-anim.c) passes the
 * few things it needs from the logging core as an anim_client_core_t,
 * and the core's tap feeds anim_client_record.  The client copies each
 * record into a bounded buffer and never blocks the rank: when the window
 * is slow or gone, records are dropped and counted.
 */
#ifndef ANIM_CLIENT_H
#define ANIM_CLIENT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One logged record, as the window needs it. */
typedef struct
{
  uint64_t time_ns;     /* the log's clock, uncorrected */
  int32_t  thread;
  int32_t  type;        /* 1 event, 2 send, 3 recv (as LOGFMT_REC_*) */
  int32_t  event_id;    /* type 1 */
  int32_t  partner;     /* types 2/3: world rank */
  int32_t  tag;
  uint64_t bytes;
} anim_client_record_t;

typedef void (*anim_client_state_def_cb) (void *user, int start_id,
                                          int end_id, const char *name,
                                          const char *color);

/* What the client needs from the logging core. */
typedef struct
{
  /* on = 1: from now on hand every logged record of every thread to
   * anim_client_record (on the logging thread).  on = 0: stop doing so;
   * a call already under way may still arrive. */
  void (*set_tap) (int on);
  /* Calls cb for each state definition known so far (from the client's
   * sender thread, now and then). */
  void (*foreach_state_def) (anim_client_state_def_cb cb, void *user);
} anim_client_core_t;

/* Called by the MPI_Init wrapper after logging is initialised.  `core`
 * must stay valid until anim_client_stop.  Reads the window address (with
 * its token) from `addr` if not NULL, else from the environment variable
 * MPEANIM_ADDR.  Returns 0 if connected (or connecting in the
 * background), 1 if no address is configured (nothing happens), negative
 * on a bad address (a warning is printed once; the job continues
 * unaffected). */
int  anim_client_start (const anim_client_core_t *core, const char *addr,
                        int world_rank, int world_size);

/* The tap: queues one record for the window, or counts it as dropped.
 * Any thread; never blocks. */
void anim_client_record (const anim_client_record_t *rec);

/* Called by the MPI_Finalize wrapper: sends an end marker, drains what it
 * can within a short deadline, stops the thread, prints on rank 0 nothing
 * unless records were dropped.  Safe to call when not started. */
void anim_client_stop (void);

#ifdef __cplusplus
}
#endif

#endif
