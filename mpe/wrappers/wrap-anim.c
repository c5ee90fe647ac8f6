/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bridge between the logging core's live tap and the animation
 * client (anim/client/anim-client.h): the only file of mpe/ that knows
 * the client, and the only place the client meets libmpe, so neither
 * includes the other's internals.
 */
#include "config.h"

#include "mpe/wrappers/wrap-internal.h"
#include "anim/client/anim-client.h"

/* Runs on every logging thread for every record while the client is up:
 * a plain copy into the client's own record type. */
static void
anim_tap (void *user, const mpe_tap_record_t *rec)
{
  (void) user;
  anim_client_record_t r = {
    .time_ns = rec->time_ns, .thread = rec->thread, .type = rec->type,
    .event_id = rec->event_id, .partner = rec->partner, .tag = rec->tag,
    .bytes = rec->bytes
  };
  anim_client_record (&r);
}

static void
anim_set_tap (int on)
{
  mpe__set_tap (on ? anim_tap : NULL, NULL);
}

/* The window names records by the definitions it is sent.  The MPI
 * calls' states reach the log only at MPI_Finalize (those some rank
 * used), so the window gets the wrappers' whole table from the start,
 * and the communicator markers (solo: start == end). */
static void
anim_foreach_def (anim_client_state_def_cb cb, void *user)
{
  mpe__foreach_state_def (cb, user);
  for (int s = 0; s < mpe__wrap_nstates; s++)
    {
      const mpe__wstate_t *w = &mpe__wrap_states[s];
      cb (user, w->start_id, w->end_id, w->name, w->color);
    }
  cb (user, MPE_KNOWN_SOLO_COMM_INIT, MPE_KNOWN_SOLO_COMM_INIT,
      "MPE_Comm_init", "red");
  cb (user, MPE_KNOWN_SOLO_COMM_FINALIZE, MPE_KNOWN_SOLO_COMM_FINALIZE,
      "MPE_Comm_finalize", "orange");
}

static const anim_client_core_t anim_core = {
  .set_tap = anim_set_tap,
  .foreach_state_def = anim_foreach_def,
};

int
mpe__wrap_anim_start (int world_rank, int world_size)
{
  return anim_client_start (&anim_core, NULL, world_rank, world_size);
}

void
mpe__wrap_anim_stop (void)
{
  anim_client_stop ();
}
