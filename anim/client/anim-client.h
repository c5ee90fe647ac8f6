/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rank side of live animation: connects to an mpeanim window and
 * streams this process's records to it from a sender thread.  GTK-free.
 * Built as the convenience library anim/client/libanimclient.la and linked
 * into liblmpe and libampe by the wrapper libraries.
 *
 * The client installs itself as the core's tap (mpe__set_tap), copies each
 * record into a bounded buffer and never blocks the rank: when the window
 * is slow or gone, records are dropped and counted.
 */
#ifndef ANIM_CLIENT_H
#define ANIM_CLIENT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Called by the MPI_Init wrapper after logging is initialised.  Reads the
 * window address (with its token) from `addr` if not NULL, else from the
 * environment variable MPEANIM_ADDR.  Returns 0 if connected (or
 * connecting in the background), 1 if no address is configured (nothing
 * happens), negative on a bad address (a warning is printed once; the
 * job continues unaffected). */
int  anim_client_start (const char *addr, int world_rank, int world_size);

/* Called by the MPI_Finalize wrapper: sends an end marker, drains what it
 * can within a short deadline, stops the thread, prints on rank 0 nothing
 * unless records were dropped.  Safe to call when not started. */
void anim_client_stop (void);

#ifdef __cplusplus
}
#endif

#endif
