/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool cpus: per host and CPU (its core, socket, NUMA node and SMT
 * rank from the topology the log stores), which threads ran on it and for
 * how long, and the cores that more than one thread used; --runs lists
 * every run (which thread ran when). */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "clogtool.h"
#include "clogtool-internal.h"
#include "sched-runs.h"

static void
cpus_help (void)
{
  fputs (
    "Usage: clogtool cpus [--json] [--runs] FILE\n"
    "\n"
    "Prints, for a log written with MPE_SCHED=1, each host's CPUs with\n"
    "their place in the topology (core, socket, NUMA node, SMT rank), the\n"
    "time the log's threads ran on each and which threads those were; then\n"
    "the cores used by more than one thread (a shared core's time is the\n"
    "sum of its users').\n"
    "\n"
    "Options:\n"
    "  -j, --json   one JSON object instead of the tables\n"
    "  -r, --runs   also every run: CPU, start, end (s), rank, thread\n"
    "  -h, --help   show this help\n"
    "\n"
    "JSON: {hosts: [{host, cpus: [{cpu, core, socket, numa, smt, on_s,\n"
    "threads: [{rank, thread, on_s, runs}]}], shared_cores: [{core, cpus,\n"
    "threads: [{rank, thread}]}], nics: [{name, rx_bytes, tx_bytes,\n"
    "rx_packets, tx_packets}]}], runs: [{cpu, t0, t1, rank, thread}]\n"
    "(with --runs)}.  NICs: with MPE_NETWORK=1, what each interface\n"
    "carried between the first and the last sample.\n"
    "\n"
    "Exit status: 0 success, 1 error or no switch records, 2 bad usage.\n",
    stdout);
}

typedef struct
{
  uint32_t stream;
  uint64_t on;
  uint64_t runs;
} user_t;

typedef struct
{
  int32_t cpu, core, socket, numa, smt;
  uint64_t on;
  user_t *users;
  size_t nusers;
} cpu_t;

typedef struct
{
  const char *name;
  int64_t id;
  uint32_t stream;    /* where its records are, LOGFMT_NO_STREAM: none */
  int64_t first[4], last[4];
  int seen;
} nic_t;

typedef struct
{
  const char *name;
  cpu_t *cpus;
  size_t ncpus;
  nic_t *nics;
  size_t nnics;
} host_t;

static cpu_t *
cpu_get (host_t *h, int32_t cpu)
{
  for (size_t i = 0; i < h->ncpus; i++)
    if (h->cpus[i].cpu == cpu)
      return &h->cpus[i];
  cpu_t *v = realloc (h->cpus, (h->ncpus + 1) * sizeof *v);
  if (!v)
    return NULL;
  h->cpus = v;
  cpu_t *c = &v[h->ncpus++];
  memset (c, 0, sizeof *c);
  c->cpu = cpu;
  c->core = c->socket = c->numa = c->smt = -1;
  return c;
}

static host_t *
host_get (host_t **hs, size_t *nh, const char *name)
{
  if (!name)
    name = "";
  for (size_t i = 0; i < *nh; i++)
    if (strcmp ((*hs)[i].name, name) == 0)
      return &(*hs)[i];
  host_t *v = realloc (*hs, (*nh + 1) * sizeof *v);
  if (!v)
    return NULL;
  *hs = v;
  host_t *h = &v[(*nh)++];
  memset (h, 0, sizeof *h);
  h->name = name;
  return h;
}

static int
user_add (cpu_t *c, uint32_t stream, uint64_t ns)
{
  c->on += ns;
  for (size_t i = 0; i < c->nusers; i++)
    if (c->users[i].stream == stream)
      {
        c->users[i].on += ns;
        c->users[i].runs++;
        return 0;
      }
  user_t *v = realloc (c->users, (c->nusers + 1) * sizeof *v);
  if (!v)
    return -1;
  c->users = v;
  c->users[c->nusers++] = (user_t) { stream, ns, 1 };
  return 0;
}

static int
cpu_cmp (const void *a, const void *b)
{
  const cpu_t *x = a, *y = b;
  return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static void
print_user (const logfmt_reader_t *r, uint32_t stream, int json)
{
  const logfmt_stream_def_t *sd = logfmt_reader_stream (r, stream);
  if (json)
    printf ("{\"rank\": %d, \"thread\": %d", sd ? sd->rank : -1,
            sd ? sd->thread : -1);
  else
    printf ("%d:%d", sd ? sd->rank : -1, sd ? sd->thread : -1);
}

/* Threads that ran on any CPU of core `core` of h (a list of streams). */
static size_t
core_users (const host_t *h, int32_t core, uint32_t *out, size_t max)
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

static void
print_host (const logfmt_reader_t *r, const host_t *h, int json,
            int first)
{
  if (json)
    {
      printf ("%s\n  {\"host\": ", first ? "" : ",");
      clogtool__json_string (stdout, h->name);
      printf (", \"cpus\": [");
    }
  else
    printf ("host %s\n%5s %5s %6s %5s %4s %12s  %s\n", h->name, "CPU",
            "core", "socket", "numa", "smt", "on-CPU s",
            "threads (rank:thread on-CPU s)");
  for (size_t i = 0; i < h->ncpus; i++)
    {
      const cpu_t *c = &h->cpus[i];
      if (json)
        printf ("%s\n    {\"cpu\": %d, \"core\": %d, \"socket\": %d, "
                "\"numa\": %d, \"smt\": %d, \"on_s\": %.9f, \"threads\": [",
                i ? "," : "", c->cpu, c->core, c->socket, c->numa, c->smt,
                c->on / 1e9);
      else
        printf ("%5d %5d %6d %5d %4d %12.6f ", c->cpu, c->core, c->socket,
                c->numa, c->smt, c->on / 1e9);
      for (size_t u = 0; u < c->nusers; u++)
        {
          if (json)
            {
              printf ("%s", u ? ", " : "");
              print_user (r, c->users[u].stream, 1);
              printf (", \"on_s\": %.9f, \"runs\": %" PRIu64 "}",
                      c->users[u].on / 1e9, c->users[u].runs);
            }
          else
            {
              printf (" ");
              print_user (r, c->users[u].stream, 0);
              printf (" %.6f", c->users[u].on / 1e9);
            }
        }
      printf (json ? "]}" : "\n");
    }
  /* Cores with more than one user. */
  if (json)
    printf ("], \"shared_cores\": [");
  int n = 0;
  for (size_t i = 0; i < h->ncpus; i++)
    {
      int32_t core = h->cpus[i].core;
      size_t j = 0;
      while (j < i && h->cpus[j].core != core)
        j++;
      if (j < i)
        continue;  /* core listed already */
      uint32_t us[64];
      size_t nu = core_users (h, core, us, 64);
      if (nu < 2)
        continue;
      if (json)
        printf ("%s\n    {\"core\": %d, \"cpus\": [", n ? "," : "", core);
      else
        printf ("%sshared core %d (CPUs", n ? "" : "", core);
      int k = 0;
      for (size_t x = 0; x < h->ncpus; x++)
        if (h->cpus[x].core == core)
          printf (json ? "%s%d" : "%s%d", json ? (k++ ? ", " : "")
                                               : (k++ ? "," : " "),
                  h->cpus[x].cpu);
      printf (json ? "], \"threads\": [" : "):");
      for (size_t u = 0; u < nu; u++)
        {
          printf ("%s", json ? (u ? ", " : "") : " ");
          print_user (r, us[u], json);
          if (json)
            printf ("}");
        }
      printf (json ? "]}" : "\n");
      n++;
    }
  if (json)
    printf ("], \"nics\": [");
  else if (h->nnics)
    printf ("%-16s %16s %16s %14s %14s  (over the log)\n", "interface",
            "received B", "sent B", "received pkts", "sent pkts");
  for (size_t i = 0; i < h->nnics; i++)
    {
      const nic_t *x = &h->nics[i];
      int64_t d[4];
      for (int k = 0; k < 4; k++)
        d[k] = x->seen ? x->last[k] - x->first[k] : 0;
      if (json)
        {
          printf ("%s\n    {\"name\": ", i ? "," : "");
          clogtool__json_string (stdout, x->name);
          printf (", \"rx_bytes\": %" PRId64 ", \"tx_bytes\": %" PRId64
                  ", \"rx_packets\": %" PRId64 ", \"tx_packets\": %" PRId64
                  "}", d[0], d[1], d[2], d[3]);
        }
      else
        {
          clogtool__put_text (stdout, x->name, 16);
          printf (" %16" PRId64 " %16" PRId64 " %14" PRId64 " %14" PRId64
                  "\n", d[0], d[1], d[2], d[3]);
        }
    }
  if (json)
    printf ("]}");
  else
    printf ("\n");
}

/* The NICs' counters: first and last sample of each. */
static int
load_nics (const logfmt_reader_t *r, host_t *hs, size_t nh)
{
  const logfmt_info_t *info = logfmt_reader_info (r);
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      logfmt_track_info_t ti;
      if (logfmt_reader_track_info (r, s, LOGFMT_TRACK_NETWORK, &ti) != 0)
        continue;
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      host_t *h = NULL;
      for (size_t i = 0; i < nh; i++)
        if (sd && sd->host && strcmp (hs[i].name, sd->host) == 0)
          h = &hs[i];
      if (!h)
        continue;
      logfmt_track_iter_t *it;
      int rc = logfmt_track_iter_new (r, s, LOGFMT_TRACK_NETWORK, 0,
                                      UINT64_MAX, &it);
      if (rc)
        return rc;
      logfmt_track_rec_t rec;
      while ((rc = logfmt_track_iter_next (it, &rec)) == 1)
        for (size_t i = 0; i < h->nnics; i++)
          if (h->nics[i].id == rec.col[LOGFMT_NETWORK_COL_NIC])
            {
              nic_t *x = &h->nics[i];
              for (int k = 0; k < 4; k++)
                {
                  if (!x->seen)
                    x->first[k] = rec.col[1 + k];
                  x->last[k] = rec.col[1 + k];
                }
              x->seen = 1;
            }
      if (rc < 0)
        clogtool__lib_error ("cannot read the network track", rc,
                             logfmt_track_iter_error (it));
      logfmt_track_iter_free (it);
      if (rc < 0)
        return rc;
    }
  return 0;
}

int
clogtool_cpus_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "json", no_argument, NULL, 'j' },
    { "runs", no_argument, NULL, 'r' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int json = 0, runs = 0, c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":jrh", longopts, NULL)) != -1)
    switch (c)
      {
      case 'j':
        json = 1;
        break;
      case 'r':
        runs = 1;
        break;
      case 'h':
        cpus_help ();
        return clogtool__exit_after_output ();
      default:
        return clogtool__bad_option ("cpus", c, argv);
      }
  if (clogtool__one_file ("cpus", argc) != 0)
    return CLOGTOOL_EXIT_USAGE;
  logfmt_reader_t *r = clogtool__open (argv[optind]);
  if (!r)
    return CLOGTOOL_EXIT_PROBLEM;
  if (!sched_file_has_switches (r))
    {
      clogtool__error ("%s has no context-switch records (log with "
                       "MPE_SCHED=1)", argv[optind]);
      logfmt_reader_close (r);
      return CLOGTOOL_EXIT_PROBLEM;
    }
  int status = CLOGTOOL_EXIT_OK;
  host_t *hs = NULL;
  size_t nh = 0;
  /* The topology first, so idle CPUs are listed too. */
  for (size_t i = 0; i < logfmt_reader_n_resources (r); i++)
    {
      const logfmt_resource_def_t *d = logfmt_reader_resource (r, i);
      if (d->kind != LOGFMT_RES_CPU)
        continue;
      host_t *h = host_get (&hs, &nh, d->s[0]);
      cpu_t *x = h ? cpu_get (h, (int32_t) d->v[LOGFMT_CPU_ID]) : NULL;
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
      host_t *h = host_get (&hs, &nh, d->s[0]);
      nic_t *v = h ? realloc (h->nics, (h->nnics + 1) * sizeof *v) : NULL;
      if (!v)
        goto oom;
      h->nics = v;
      memset (&v[h->nnics], 0, sizeof *v);
      v[h->nnics].name = d->s[1];
      v[h->nnics].id = d->v[LOGFMT_NIC_ID];
      h->nnics++;
    }
  const logfmt_info_t *info = logfmt_reader_info (r);
  if (json)
    printf ("{");
  int nrun = 0;
  for (uint32_t s = 0; s < info->nstreams; s++)
    {
      sched_thread_t th;
      if (sched_thread_load (r, s, &th) != 0)
        {
          status = CLOGTOOL_EXIT_PROBLEM;
          break;
        }
      const logfmt_stream_def_t *sd = logfmt_reader_stream (r, s);
      host_t *h = host_get (&hs, &nh, sd ? sd->host : NULL);
      for (size_t k = 0; h && k < th.nruns; k++)
        {
          const sched_run_t *x = &th.runs[k];
          if (!x->on || x->cpu < 0)
            continue;
          cpu_t *cp = cpu_get (h, x->cpu);
          if (!cp || user_add (cp, s, x->t1 - x->t0) != 0)
            {
              h = NULL;
              break;
            }
          if (runs)
            {
              if (json)
                printf ("%s\n  {\"cpu\": %d, \"t0\": %.9f, \"t1\": %.9f, "
                        "\"rank\": %d, \"thread\": %d}",
                        nrun ? "," : "\"runs\": [", x->cpu, x->t0 / 1e9,
                        x->t1 / 1e9, sd ? sd->rank : -1,
                        sd ? sd->thread : -1);
              else
                printf ("%srun cpu %d %.9f %.9f rank %d thread %d\n",
                        nrun ? "" : "", x->cpu, x->t0 / 1e9, x->t1 / 1e9,
                        sd ? sd->rank : -1, sd ? sd->thread : -1);
              nrun++;
            }
        }
      sched_thread_free (&th);
      if (!h)
        goto oom;
    }
  if (status == CLOGTOOL_EXIT_OK && load_nics (r, hs, nh) != 0)
    status = CLOGTOOL_EXIT_PROBLEM;
  if (json)
    printf ("%s\"hosts\": [", nrun ? "\n], " : "");
  for (size_t i = 0; i < nh && status == CLOGTOOL_EXIT_OK; i++)
    {
      qsort (hs[i].cpus, hs[i].ncpus, sizeof *hs[i].cpus, cpu_cmp);
      print_host (r, &hs[i], json, i == 0);
    }
  if (json)
    printf ("\n]}\n");
  goto out;
oom:
  clogtool__error ("out of memory");
  status = CLOGTOOL_EXIT_PROBLEM;
out:
  for (size_t i = 0; i < nh; i++)
    {
      for (size_t k = 0; k < hs[i].ncpus; k++)
        free (hs[i].cpus[k].users);
      free (hs[i].cpus);
      free (hs[i].nics);
    }
  free (hs);
  logfmt_reader_close (r);
  if (status != CLOGTOOL_EXIT_OK)
    return status;
  return clogtool__exit_after_output ();
}
