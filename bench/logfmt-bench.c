/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * logfmt benchmarks on the synthetic log (synth/logfmt-synth.h):
 *   size        bytes per event of the final file
 *   encode      encoder (columns + zstd) events/s, one core
 *   write       whole writer (encode, summaries, matching) events/s
 *   scan        full decode of every stream, events/s
 *   open        open + whole-run summaries of every stream, ms
 *   window      cost of a 1% window relative to a full scan
 *   scan-batch  the same through logfmt_iter_next_batch
 * Usage: logfmt-bench [-L] [-p PROCS] [-n EVENTS_PER_STREAM] [-r RUNS]
 *                     [-o FILE]
 * -L (large file): write the file once by streaming the generator into the
 * writer (no events held in memory), then measure only the reading side;
 * for the 100M-event case.  Every figure is the median of RUNS runs; scan
 * also gives process CPU time, which load from other jobs disturbs less.
 */
#include "config.h"
#include "synth/logfmt-synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
cpu_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static int
cmp_d (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
median (double *v, int n)
{
  qsort (v, (size_t) n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t sink_bytes;

static int
sink (void *user, const void *block, size_t len,
      const logfmt_block_info_t *info)
{
  (void) user; (void) block; (void) info;
  sink_bytes += len;
  return 0;
}

static void
die (const char *what, int rc, const logfmt_error_t *e)
{
  fprintf (stderr, "logfmt-bench: %s: %s\n", what,
           e && e->code ? e->message : logfmt_strerror (rc));
  exit (1);
}

/* The reading side: size, scan, window, open + summaries. */
static void
read_bench (const char *path, int runs)
{
  logfmt_reader_t *rd;
  logfmt_error_t err = { 0 };
  double t[64], tc[64];
  int rc = logfmt_reader_open (path, 0, &rd, &err);
  if (rc)
    die ("reader_open", rc, &err);
  const logfmt_info_t *inf = logfmt_reader_info (rd);
  printf ("size    %.3f bytes/event  (%llu bytes, %llu events, %llu "
          "messages)\n", (double) inf->file_size / (double) inf->nevents,
          (unsigned long long) inf->file_size,
          (unsigned long long) inf->nevents,
          (unsigned long long) inf->nmessages);

  /* scan: every event of every stream. */
  uint64_t seen = 0, kinds = 0;
  for (int r = 0; r < runs; r++)
    {
      seen = kinds = 0;
      double a = now (), ac = cpu_now ();
      for (uint32_t i = 0; i < inf->nstreams; i++)
        {
          logfmt_iter_t *it;
          logfmt_iter_new (rd, i, 0, UINT64_MAX, &it);
          logfmt_event_t e;
          while (logfmt_iter_next (it, &e) == 1)
            {
              seen++;
              kinds += e.kind;  /* use the event, as a reader would */
            }
          logfmt_iter_free (it);
        }
      t[r] = now () - a;
      tc[r] = cpu_now () - ac;
    }
  double sc = median (t, runs), scc = median (tc, runs);
  printf ("scan    %.1f M events/s  (%.3f s, CPU %.3f s = %.1f M events/s, "
          "%llu events)\n", (double) seen / sc / 1e6, sc, scc,
          (double) seen / scc / 1e6, (unsigned long long) seen);

  /* scan-batch: the same through the batch call. */
  enum { NB = 256 };
  logfmt_event_t *bev = malloc (NB * sizeof *bev);
  uint64_t bseen = 0, bkinds = 0;
  for (int r = 0; r < runs; r++)
    {
      bseen = bkinds = 0;
      double a = now (), ac = cpu_now ();
      for (uint32_t i = 0; i < inf->nstreams; i++)
        {
          logfmt_iter_t *it;
          logfmt_iter_new (rd, i, 0, UINT64_MAX, &it);
          long k;
          while ((k = logfmt_iter_next_batch (it, bev, NB)) > 0)
            for (long j = 0; j < k; j++)
              bkinds += bev[j].kind;
          bseen += logfmt_reader_stream_events (rd, i);
          logfmt_iter_free (it);
        }
      t[r] = now () - a;
      tc[r] = cpu_now () - ac;
    }
  free (bev);
  double bsc = median (t, runs), bscc = median (tc, runs);
  if (bkinds != kinds)
    die ("scan-batch disagrees with scan", LOGFMT_ECORRUPT, NULL);
  printf ("scan-batch %.1f M events/s  (%.3f s, CPU %.3f s = %.1f M "
          "events/s)\n", (double) bseen / bsc / 1e6, bsc, bscc,
          (double) bseen / bscc / 1e6);

  /* window: 1% of the run in the middle, each stream. */
  uint64_t span = inf->t_last - inf->t_first;
  uint64_t w0 = inf->t_first + span / 2, w1 = w0 + span / 100;
  uint64_t wseen = 0;
  for (int r = 0; r < runs; r++)
    {
      wseen = 0;
      double a = now ();
      for (uint32_t i = 0; i < inf->nstreams; i++)
        {
          logfmt_iter_t *it;
          logfmt_iter_new (rd, i, w0, w1, &it);
          logfmt_event_t e;
          while (logfmt_iter_next (it, &e) == 1)
            wseen++;
          logfmt_iter_free (it);
        }
      t[r] = now () - a;
    }
  double wi = median (t, runs);
  printf ("window  %.2f%% of scan time for %.2f%% of events (%.4f s)\n",
          100 * wi / sc, 100.0 * (double) wseen / (double) seen, wi);

#ifdef LOGFMT_STATE_MAX_DEPTH
  /* intervals: every state instance of every stream (FORMAT.md 13). */
  uint64_t ninst = 0, excl = 0;
  for (int r = 0; r < runs; r++)
    {
      ninst = excl = 0;
      double a = now (), ac = cpu_now ();
      logfmt_interval_iter_t *it;
      logfmt_interval_iter_new (rd, 0, 0, UINT64_MAX, &it);
      for (uint32_t i = 0; i < inf->nstreams; i++)
        {
          logfmt_interval_iter_reset (it, i, 0, UINT64_MAX);
          logfmt_interval_t iv;
          while (logfmt_interval_iter_next (it, &iv) == 1)
            {
              ninst++;
              excl += iv.exclusive;
            }
        }
      logfmt_interval_iter_free (it);
      t[r] = now () - a;
      tc[r] = cpu_now () - ac;
    }
  double ivt = median (t, runs), ivc = median (tc, runs);
  printf ("intervals %.1f M events/s  (%.3f s, CPU %.3f s = %.1f M events/s; "
          "%llu instances)\n", (double) seen / ivt / 1e6, ivt, ivc,
          (double) seen / ivc / 1e6, (unsigned long long) ninst);

  /* The index window passes need (one whole pass per stream, once), then
   * the instances overlapping the same 1% window. */
  logfmt_reader_t *rd2;
  rc = logfmt_reader_open (path, 0, &rd2, &err);
  if (rc)
    die ("reader_open", rc, &err);
  double a0 = now ();
  for (uint32_t i = 0; i < inf->nstreams; i++)
    if ((rc = logfmt_interval_index (rd2, i)))
      die ("interval_index", rc, NULL);
  double idx = now () - a0;
  uint64_t wins = 0;
  for (int r = 0; r < runs; r++)
    {
      wins = 0;
      double a = now ();
      logfmt_interval_iter_t *it;
      logfmt_interval_iter_new (rd2, 0, w0, w1, &it);
      for (uint32_t i = 0; i < inf->nstreams; i++)
        {
          logfmt_interval_iter_reset (it, i, w0, w1);
          logfmt_interval_t iv;
          while (logfmt_interval_iter_next (it, &iv) == 1)
            wins++;
        }
      logfmt_interval_iter_free (it);
      t[r] = now () - a;
    }
  double ivw = median (t, runs);
  printf ("iv-window %.2f%% of the intervals pass for the 1%% window (%.4f "
          "s, %llu instances; index once %.3f s)\n", 100 * ivw / ivt, ivw,
          (unsigned long long) wins, idx);
  logfmt_reader_close (rd2);
#endif
  logfmt_reader_close (rd);

  /* open + whole-run summaries (1000 bins) of every stream. */
  for (int r = 0; r < runs; r++)
    {
      double a = now ();
      rc = logfmt_reader_open (path, 0, &rd, &err);
      if (rc)
        die ("reader_open", rc, &err);
      inf = logfmt_reader_info (rd);
      size_t nst = logfmt_reader_n_states (rd);
      float *occ = malloc (1000 * (nst + 1) * sizeof *occ);
      uint32_t evc[1000];
      for (uint32_t i = 0; i < inf->nstreams; i++)
        {
          rc = logfmt_reader_summary (rd, i, inf->t_first, inf->t_last + 1,
                                      1000, occ, evc, NULL, &err);
          if (rc)
            die ("summary", rc, &err);
        }
      free (occ);
      logfmt_reader_close (rd);
      t[r] = now () - a;
    }
  printf ("open    %.2f ms  (open + whole-run summaries, 1000 bins, all "
          "streams)\n", median (t, runs) * 1e3);
}

int
main (int argc, char **argv)
{
  logfmt_synth_opts_t o;
  logfmt_synth_opts_init (&o);
  o.events_per_stream = 10000000;
  int runs = 3;
  const char *path = NULL;
  int c, large = 0;
  while ((c = getopt (argc, argv, "Lp:n:r:o:")) != -1)
    switch (c)
      {
      case 'L': large = 1; break;
      case 'p': o.nprocs = (uint32_t) atoi (optarg); break;
      case 'n': o.events_per_stream = strtoull (optarg, NULL, 10); break;
      case 'r': runs = atoi (optarg); break;
      case 'o': path = optarg; break;
      default:
        fprintf (stderr, "usage: logfmt-bench [-L] [-p PROCS] [-n EVENTS] "
                 "[-r RUNS] [-o FILE]\n");
        return 2;
      }
  if (runs < 1 || runs > 50)
    runs = 3;
  char tmp[] = "/tmp/logfmt-bench-XXXXXX";
  if (!path)
    {
      int fd = mkstemp (tmp);
      if (fd < 0)
        die ("mkstemp", LOGFMT_EIO, NULL);
      close (fd);
      path = tmp;
    }
  uint64_t total = o.events_per_stream * o.nprocs;
  printf ("# logfmt bench: %u procs x %llu events (%llu total), %d runs, "
          "medians\n", o.nprocs, (unsigned long long) o.events_per_stream,
          (unsigned long long) total, runs);

  if (large)
    {
      /* Written once, streaming: the events never all sit in memory. */
      logfmt_error_t err = { 0 };
      double a = now ();
      int rc = logfmt_synth_write (path, &o, &err);
      if (rc)
        {
          if (path == tmp)
            unlink (tmp);
          die ("synth_write", rc, &err);
        }
      printf ("generate+write %.1f s (once, not a benchmark figure)\n",
              now () - a);
      read_bench (path, runs);
      if (path == tmp)
        unlink (tmp);
      return 0;
    }

  /* Pre-generate events per stream in memory (encode timing only). */
  logfmt_synth_t *s;
  if (logfmt_synth_new (&o, &s))
    die ("synth", LOGFMT_EINVAL, NULL);
  uint32_t ns = logfmt_synth_nstreams (s);
  logfmt_event_t **ev = calloc (ns, sizeof *ev);
  size_t *nev = calloc (ns, sizeof *nev);
  for (uint32_t i = 0; i < ns; i++)
    {
      ev[i] = malloc (o.events_per_stream * sizeof **ev);
      if (!ev[i])
        die ("malloc", LOGFMT_ENOMEM, NULL);
    }
  {
    enum { B = 65536 };
    logfmt_event_t *buf = malloc (B * sizeof *buf);
    uint32_t *sid = malloc (B * sizeof *sid);
    size_t n;
    while ((n = logfmt_synth_next (s, buf, sid, B)) > 0)
      for (size_t k = 0; k < n; k++)
        ev[sid[k]][nev[sid[k]]++] = buf[k];
    free (buf);
    free (sid);
  }
  double t[64], tc[64];

  /* encode: encoder only (columns + zstd), one core. */
  for (int r = 0; r < runs; r++)
    {
      sink_bytes = 0;
      double a = now ();
      for (uint32_t i = 0; i < ns; i++)
        {
          logfmt_encoder_opts_t eo = { .size = sizeof eo, .stream = i };
          logfmt_encoder_t *e;
          logfmt_encoder_new (&eo, sink, NULL, &e);
          logfmt_encoder_add (e, ev[i], nev[i]);
          logfmt_encoder_flush (e);
          logfmt_encoder_free (e);
        }
      t[r] = now () - a;
    }
  double enc = median (t, runs);
  printf ("encode  %.1f M events/s  (%.3f s; blocks alone %.3f bytes/event)\n",
          (double) total / enc / 1e6, enc, (double) sink_bytes / total);

  /* summary: the summary builder alone (innermost state per bin), with
   * the state ids logfmt_synth_define gives (state k: 2k+1 / 2k+2, the
   * last two for MPI_Send / MPI_Recv). */
  size_t nst = o.nstates + 2;
  logfmt_state_def_t *defs = calloc (nst, sizeof *defs);
  if (!defs)
    die ("calloc", LOGFMT_ENOMEM, NULL);
  for (size_t k = 0; k < nst; k++)
    {
      defs[k].start_id = (int32_t) (2 * k + 1);
      defs[k].end_id = (int32_t) (2 * k + 2);
      defs[k].name = "state";
    }
  for (int r = 0; r < runs; r++)
    {
      double a = now (), ac = cpu_now ();
      for (uint32_t i = 0; i < ns; i++)
        {
          logfmt_summary_builder_t *sb;
          void *bytes;
          size_t len;
          logfmt_summary_builder_new (defs, nst, &sb);
          logfmt_summary_builder_add (sb, ev[i], nev[i]);
          logfmt_summary_builder_finish (sb, i, &bytes, &len);
          free (bytes);
          logfmt_summary_builder_free (sb);
        }
      t[r] = now () - a;
      tc[r] = cpu_now () - ac;
    }
  double sbt = median (t, runs), sbc = median (tc, runs);
  printf ("summary %.1f M events/s  (%.3f s, CPU %.3f s = %.1f M events/s; "
          "summary builder alone)\n", (double) total / sbt / 1e6, sbt, sbc,
          (double) total / sbc / 1e6);
  free (defs);

  /* write: the whole writer path, into the file. */
  logfmt_error_t err = { 0 };
  for (int r = 0; r < runs; r++)
    {
      logfmt_writer_opts_t wo = { .size = sizeof wo, .match_messages = 1,
                                  .creator = "logfmt-bench",
                                  .world_size = o.nprocs };
      logfmt_writer_t *w;
      double a = now (), ac = cpu_now ();
      int rc = logfmt_writer_open (path, &wo, &w, &err);
      if (rc)
        die ("writer_open", rc, &err);
      logfmt_synth_define (s, w);
      /* Interleave streams in 64K slices, as a merging logger would. */
      for (size_t off = 0; off < o.events_per_stream; off += 65536)
        for (uint32_t i = 0; i < ns; i++)
          if (off < nev[i])
            logfmt_writer_event (w, i, ev[i] + off,
                                 nev[i] - off < 65536 ? nev[i] - off : 65536);
      rc = logfmt_writer_finish (w, &err);
      if (rc)
        die ("writer_finish", rc, &err);
      t[r] = now () - a;
      tc[r] = cpu_now () - ac;
    }
  double wr = median (t, runs), wrc = median (tc, runs);
  printf ("write   %.1f M events/s  (%.3f s, CPU %.3f s = %.1f M events/s; "
          "writer incl. summaries, matching, fsync)\n",
          (double) total / wr / 1e6, wr, wrc, (double) total / wrc / 1e6);
  for (uint32_t i = 0; i < ns; i++)
    free (ev[i]);
  free (ev);
  free (nev);
  logfmt_synth_free (s);

  read_bench (path, runs);
  if (path == tmp)
    unlink (tmp);
  return 0;
}
