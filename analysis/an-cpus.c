/* SPDX-License-Identifier: BSD-3-Clause */
/* Per host and CPU: its place in the topology, which threads ran on it
 * and for how long (from their runs, an-sched.c), and the host's NICs'
 * counters at the first and the last sample. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "an-internal.h"
#include "an-sched.h"

static an_cpu_t *
cpu_get (an_host_t *h, int32_t cpu)
{
  for (size_t i = 0; i < h->ncpus; i++)
    if (h->cpus[i].cpu == cpu)
      return &h->cpus[i];
  an_cpu_t *v = realloc (h->cpus, (h->ncpus + 1) * sizeof *v);
  if (!v)
    return NULL;
  h->cpus = v;
  an_cpu_t *c = &v[h->ncpus++];
  memset (c, 0, sizeof *c);
  c->cpu = cpu;
  c->core = c->socket = c->numa = c->smt = -1;
  return c;
}

static an_host_t *
host_get (an_cpus_t *c, const char *name)
{
  if (!name)
    name = "";
  for (size_t i = 0; i < c->nhosts; i++)
    if (strcmp (c->hosts[i].name, name) == 0)
      return &c->hosts[i];
  an_host_t *v = realloc (c->hosts, (c->nhosts + 1) * sizeof *v);
  if (!v)
    return NULL;
  c->hosts = v;
  an_host_t *h = &v[c->nhosts++];
  memset (h, 0, sizeof *h);
  h->name = name;
  return h;
}

static int
user_add (an_cpu_t *c, uint32_t stream, uint64_t ns)
{
  c->on += ns;
  for (size_t i = 0; i < c->nusers; i++)
    if (c->users[i].stream == stream)
      {
        c->users[i].on += ns;
        c->users[i].runs++;
        return 0;
      }
  an_cpu_user_t *v = realloc (c->users, (c->nusers + 1) * sizeof *v);
  if (!v)
    return -1;
  c->users = v;
  c->users[c->nusers++] = (an_cpu_user_t) { stream, ns, 1 };
  return 0;
}

static int
cpu_cmp (const void *a, const void *b)
{
  const an_cpu_t *x = a, *y = b;
  return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

size_t
an_cpus_core_users (const an_host_t *h, int32_t core, uint32_t *out,
                    size_t max)
{
  size_t n = 0;
  for (size_t i = 0; i < h->ncpus; i++)
    if (h->cpus[i].core == core)
      for (size_t u = 0; u < h->cpus[i].nusers; u++)
        {
          uint32_t s = h->cpus[i].users[u].stream;
          size_t k = 0;
          while (k < n && out[k] != s)
            k++;
          if (k == n && n < max)
            out[n++] = s;
        }
  return n;
}

/* The NICs' counters: first and last sample of each. */
static int
load_nics (const logfmt_reader_t *r, an_cpus_t *c, logfmt_error_t *err)
{
  const logfmt_info_t *info = logfmt_reader_info (r);
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      logfmt_track_info_t ti;
      if (logfmt_reader_track_info (r, s, LOGFMT_TRACK_NETWORK, &ti) != 0)
        continue;
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      an_host_t *h = NULL;
      for (size_t i = 0; i < c->nhosts; i++)
        if (sd && sd->host && strcmp (c->hosts[i].name, sd->host) == 0)
          h = &c->hosts[i];
      if (!h)
        continue;
      logfmt_track_iter_t *it;
      int rc = logfmt_track_iter_new (r, s, LOGFMT_TRACK_NETWORK, 0,
                                      UINT64_MAX, &it);
      if (rc)
        {
          an__error (err, rc, "cannot read the network track");
          return rc;
        }
      logfmt_track_rec_t rec;
      while ((rc = logfmt_track_iter_next (it, &rec)) == 1)
        for (size_t i = 0; i < h->nnics; i++)
          if (h->nics[i].id == rec.col[LOGFMT_NETWORK_COL_NIC])
            {
              an_nic_t *x = &h->nics[i];
              for (int k = 0; k < 4; k++)
                {
                  if (!x->seen)
                    x->first[k] = rec.col[1 + k];
                  x->last[k] = rec.col[1 + k];
                }
              x->seen = 1;
            }
      if (rc < 0)
        {
          const logfmt_error_t *e = logfmt_track_iter_error (it);
          if (err && !err->code && e && e->code)
            *err = *e;
          else
            an__error (err, rc, "cannot read the network track");
        }
      logfmt_track_iter_free (it);
      if (rc < 0)
        return rc;
    }
  return 0;
}

int
an_cpus_load (const logfmt_reader_t *r, an_cpus_run_fn run_cb, void *user,
              an_cpus_t **out, logfmt_error_t *err)
{
  *out = NULL;
  an_cpus_t *c = calloc (1, sizeof *c);
  if (!c)
    goto oom;
  /* The topology first, so idle CPUs are listed too. */
  for (size_t i = 0; i < logfmt_reader_n_resources (r); i++)
    {
      const logfmt_resource_def_t *d = logfmt_reader_resource (r, i);
      if (d->kind != LOGFMT_RES_CPU)
        continue;
      an_host_t *h = host_get (c, d->s[0]);
      an_cpu_t *x = h ? cpu_get (h, (int32_t) d->v[LOGFMT_CPU_ID]) : NULL;
      if (!x)
        goto oom;
      x->core = (int32_t) d->v[LOGFMT_CPU_CORE];
      x->socket = (int32_t) d->v[LOGFMT_CPU_SOCKET];
      x->numa = (int32_t) d->v[LOGFMT_CPU_NUMA];
      x->smt = (int32_t) d->v[LOGFMT_CPU_SMT];
    }
  for (size_t i = 0; i < logfmt_reader_n_resources (r); i++)
    {
      const logfmt_resource_def_t *d = logfmt_reader_resource (r, i);
      if (d->kind != LOGFMT_RES_NIC || !d->s[1])
        continue;
      an_host_t *h = host_get (c, d->s[0]);
      an_nic_t *v = h ? realloc (h->nics, (h->nnics + 1) * sizeof *v) : NULL;
      if (!v)
        goto oom;
      h->nics = v;
      memset (&v[h->nnics], 0, sizeof *v);
      v[h->nnics].name = d->s[1];
      v[h->nnics].id = d->v[LOGFMT_NIC_ID];
      h->nnics++;
    }
  const logfmt_info_t *info = logfmt_reader_info (r);
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      an_sched_thread_t th;
      int rc = an_sched_thread_load (r, s, &th, err);
      if (rc != 0)
        {
          an_cpus_free (c);
          return rc;
        }
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      an_host_t *h = host_get (c, sd ? sd->host : NULL);
      for (size_t k = 0; h && k < th.nruns; k++)
        {
          const an_sched_run_t *x = &th.runs[k];
          if (!x->on || x->cpu < 0)
            continue;
          an_cpu_t *cp = cpu_get (h, x->cpu);
          if (!cp || user_add (cp, s, x->t1 - x->t0) != 0)
            h = NULL;
          else if (run_cb)
            run_cb (user, s, x);
        }
      an_sched_thread_free (&th);
      if (!h)
        goto oom;
    }
  int rc = load_nics (r, c, err);
  if (rc)
    {
      an_cpus_free (c);
      return rc;
    }
  for (size_t i = 0; i < c->nhosts; i++)
    if (c->hosts[i].ncpus)
      qsort (c->hosts[i].cpus, c->hosts[i].ncpus, sizeof *c->hosts[i].cpus,
             cpu_cmp);
  *out = c;
  return 0;
oom:
  an_cpus_free (c);
  an__error (err, LOGFMT_ENOMEM, "CPU table");
  return LOGFMT_ENOMEM;
}

void
an_cpus_free (an_cpus_t *c)
{
  if (!c)
    return;
  for (size_t i = 0; i < c->nhosts; i++)
    {
      for (size_t k = 0; k < c->hosts[i].ncpus; k++)
        free (c->hosts[i].cpus[k].users);
      free (c->hosts[i].cpus);
      free (c->hosts[i].nics);
    }
  free (c->hosts);
  free (c);
}
