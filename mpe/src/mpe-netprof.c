/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The network layer (MPE_NETWORK=1): the lowest rank of each host samples
 * its network interfaces' byte and packet counters
 * (/sys/class/net/IFACE/statistics) from the scheduling layer's poller,
 * so the MPI traffic the wrappers count can be set against what the NICs
 * carried.  Records for track kind 6: (nic, rx_bytes, tx_bytes,
 * rx_packets, tx_packets), kept when a counter changed.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpe-internal.h"
#include "mpe-sched.h"

#define MAX_NICS 64

static const char *const stat_names[4] = {
  "rx_bytes", "tx_bytes", "rx_packets", "tx_packets"
};

static struct
{
  int             on;
  pthread_mutex_t lock;
  char            names[MAX_NICS][64];
  int             nnics;
  int64_t         last[MAX_NICS][4];
  mpe_net_sample_t *recs;
  size_t          n, cap, max;
  uint64_t        dropped;
} N = { .lock = PTHREAD_MUTEX_INITIALIZER };

int
mpe__net_on (void)
{
  return __atomic_load_n (&N.on, __ATOMIC_ACQUIRE);
}

/* MPE_NETWORK=1 was decided for the job; only host leaders sample. */
void
mpe__net_init (int host_leader)
{
  mpe__net_reset ();
  if (!host_leader)
    return;
  DIR *d = opendir ("/sys/class/net");
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir (d)) && N.nnics < MAX_NICS)
    if (e->d_name[0] != '.' && strlen (e->d_name) < sizeof N.names[0])
      {
        strcpy (N.names[N.nnics], e->d_name);
        for (int k = 0; k < 4; k++)
          N.last[N.nnics][k] = -1;
        N.nnics++;
      }
  closedir (d);
  N.max = (size_t) 1 << 20;
  if (N.nnics)
    __atomic_store_n (&N.on, 1, __ATOMIC_RELEASE);
  mpe__net_sample ();
}

static int64_t
read_stat (const char *nic, const char *what)
{
  char p[256];
  snprintf (p, sizeof p, "/sys/class/net/%s/statistics/%s", nic, what);
  FILE *f = fopen (p, "r");
  if (!f)
    return -1;
  long long v = -1;
  if (fscanf (f, "%lld", &v) != 1)
    v = -1;
  fclose (f);
  return v;
}

void
mpe__net_sample (void)
{
  if (!mpe__net_on ())
    return;
  pthread_mutex_lock (&N.lock);
  uint64_t t = mpe__ticks_to_local (mpe__ticks ());
  for (int i = 0; i < N.nnics; i++)
    {
      int64_t v[4];
      int changed = 0;
      for (int k = 0; k < 4; k++)
        {
          v[k] = read_stat (N.names[i], stat_names[k]);
          changed |= v[k] != N.last[i][k];
        }
      if (!changed)
        continue;
      memcpy (N.last[i], v, sizeof v);
      if (N.n == N.cap)
        {
          size_t nc = N.cap ? N.cap * 2 : 1024;
          mpe_net_sample_t *r = N.n < N.max ? realloc (N.recs,
                                                        nc * sizeof *r)
                                            : NULL;
          if (!r)
            {
              N.dropped++;
              continue;
            }
          N.recs = r;
          N.cap = nc;
        }
      N.recs[N.n++] = (mpe_net_sample_t) { t, i, { v[0], v[1], v[2],
                                                   v[3] } };
    }
  pthread_mutex_unlock (&N.lock);
}

size_t
mpe__net_records (const mpe_net_sample_t **out)
{
  *out = N.recs;
  return N.n;
}

size_t
mpe__net_nics (const char (**names)[64])
{
  *names = (const char (*)[64]) N.names;
  return mpe__net_on () ? (size_t) N.nnics : 0;
}

void
mpe__net_reset (void)
{
  pthread_mutex_lock (&N.lock);
  free (N.recs);
  N.recs = NULL;
  N.n = N.cap = 0;
  N.nnics = 0;
  N.dropped = 0;
  __atomic_store_n (&N.on, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock (&N.lock);
}
