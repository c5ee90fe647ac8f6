/* SPDX-License-Identifier: BSD-3-Clause */
/* Extension tracks (FORMAT.md section 14): round trip of metric samples
 * and definitions, window reads that decode only the overlapping chunks
 * (counted), metric bins from the level-of-detail summaries against a
 * brute-force pass over the samples, the assembly paths (encoder + put,
 * and chunks written in place by others, indexed from their heads),
 * and damaged track chunks and directories giving error codes.
 * With an argument DIR it also writes DIR/tracks.clog and
 * DIR/notracks.clog (same events) for tests/tools/clogtool-tracks.sh. */
#include "tests/common/tap.h"
#include "logfmt-internal.h"

#include <fcntl.h>
#include <unistd.h>

#define NS   50000      /* samples on stream 0 */
#define NEV  3000       /* events per stream */
#define CHUNK 4096      /* LOGFMT__TRACK_CHUNK_RECS */

static void
sample (int i, logfmt_track_rec_t *r)
{
  memset (r, 0, sizeof *r);
  r->time = 1000 + (uint64_t) i * 100 + (uint64_t) (i % 3);
  switch (i % 3)
    {
    case 0:
      r->col[0] = 0, r->col[1] = -1, r->col[2] = i / 3;
      break;
    case 1:
      r->col[0] = 1, r->col[1] = (i / 3) % 2, r->col[2] = (int64_t) i << 20;
      break;
    default:
      r->col[0] = 2, r->col[1] = -1;
      r->col[2] = (int64_t) ((uint64_t) i * 2654435761u % 2001) - 1000;
      break;
    }
}

static void
event (uint32_t s, int i, logfmt_event_t *e)
{
  memset (e, 0, sizeof *e);
  e->time = 500 + (uint64_t) i * 1700 + s;
  e->type = LOGFMT_REC_EVENT;
  e->id = i % 2 ? 11 : 10;
}

static int
write_log (const char *path, int with_tracks)
{
  logfmt_writer_opts_t o = { .size = sizeof o, .world_size = 2,
                             .creator = "test-tracks" };
  logfmt_writer_t *w;
  logfmt_error_t e;
  int rc = logfmt_writer_open (path, &o, &w, &e);
  if (rc)
    return rc;
  logfmt_state_def_t st = { 10, 11, "Compute", "red", NULL, 0 };
  logfmt_writer_add_state (w, &st);
  for (int s = 0; s < 2; s++)
    {
      logfmt_stream_def_t sd = { s, 0, "node0" };
      logfmt_writer_add_stream (w, &sd, NULL);
    }
  if (with_tracks)
    {
      logfmt_metric_def_t m[3] = {
        { 0, 0, "messages", "1" },
        { 1, LOGFMT_METRIC_CHANNEL, "bytes", "bytes" },
        { 2, LOGFMT_METRIC_TIMER | LOGFMT_METRIC_LEVEL, "level", "ns" },
      };
      for (int k = 0; k < 3; k++)
        logfmt_writer_add_metric (w, &m[k]);
    }
  logfmt_track_rec_t r;
  int next = 0;
  for (int i = 0; i < NEV; i++)
    for (uint32_t s = 0; s < 2; s++)
      {
        logfmt_event_t ev;
        event (s, i, &ev);
        if ((rc = logfmt_writer_event (w, s, &ev, 1)))
          goto fail;
        /* Samples interleave with events and between the streams. */
        for (; with_tracks && s == 0 && next < NS
               && next * (int64_t) NEV < (int64_t) (i + 1) * NS; next++)
          {
            sample (next, &r);
            if ((rc = logfmt_writer_track_add (w, 0, LOGFMT_TRACK_METRIC,
                                               &r, 1)))
              goto fail;
          }
        if (with_tracks && s == 1 && i % 300 == 0)
          {
            memset (&r, 0, sizeof r);
            r.time = ev.time;
            r.col[1] = -1;
            r.col[2] = i;
            if ((rc = logfmt_writer_track_add (w, 1, LOGFMT_TRACK_METRIC,
                                               &r, 1)))
              goto fail;
          }
      }
  return logfmt_writer_finish (w, &e);
fail:
  logfmt_writer_abort (w);
  return rc;
}

static uint8_t *
slurp (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  fseek (f, 0, SEEK_END);
  long n = ftell (f);
  fseek (f, 0, SEEK_SET);
  uint8_t *p = malloc ((size_t) n + 1);
  if (fread (p, 1, (size_t) n, f) != (size_t) n)
    n = 0;
  fclose (f);
  *len = (size_t) n;
  return p;
}

static void
spit (const char *path, const uint8_t *p, size_t len)
{
  FILE *f = fopen (path, "wb");
  fwrite (p, 1, len, f);
  fclose (f);
}

/* Offsets of the chunks of one type, in file order. */
static size_t
find_chunks (const uint8_t *p, size_t len, uint32_t type, uint64_t *at,
             size_t max)
{
  size_t n = 0;
  uint64_t off = ld32 (p + 12);
  while (off + 20 <= len - 40)
    {
      uint64_t plen = ld64 (p + off + 8);
      if (ld32 (p + off) == type && n < max)
        at[n++] = off;
      off += 20 + plen;
    }
  return n;
}

/* Iterates (stream, kind 1) over [t0, t1); returns the iterator's last
 * code, *n the records, *chunks the chunks it read. */
static int
count_window (logfmt_reader_t *r, uint32_t s, uint64_t t0, uint64_t t1,
              uint64_t *n, uint64_t *chunks, int *mismatch, int first)
{
  logfmt_track_iter_t *it;
  *n = 0;
  if (logfmt_track_iter_new (r, s, LOGFMT_TRACK_METRIC, t0, t1, &it))
    return LOGFMT_ENOMEM;
  logfmt_track_rec_t got, want;
  int rc;
  while ((rc = logfmt_track_iter_next (it, &got)) == 1)
    {
      if (mismatch)
        {
          sample (first + (int) *n, &want);
          if (memcmp (&got, &want, sizeof got))
            (*mismatch)++;
        }
      (*n)++;
    }
  *chunks = logfmt_track_iter_chunks (it);
  logfmt_track_iter_free (it);
  return rc;
}

/* Metric bins the slow way, from the samples (same rules). */
static void
brute_bins (int64_t id, int64_t object, uint64_t t0, uint64_t t1,
            uint32_t nbins, logfmt_metric_bin_t *out)
{
  memset (out, 0, nbins * sizeof *out);
  int64_t carry = 0;
  int known = 0;
  int i = 0;
  logfmt_track_rec_t r;
  for (uint32_t b = 0; b < nbins; b++)
    {
      uint64_t lo = t0 + (t1 - t0) * b / nbins;
      uint64_t hi = t0 + (t1 - t0) * (b + 1) / nbins;
      logfmt_metric_bin_t *o = &out[b];
      o->min = o->max = o->last = carry;
      o->known = known;
      for (; i < NS; i++)
        {
          sample (i, &r);
          if (r.time >= hi)
            break;
          if (r.col[0] != id || r.col[1] != object)
            continue;
          int64_t v = r.col[2];
          carry = v;
          known = 1;
          if (r.time < lo)
            continue;
          if (o->samples == 0 && !o->known)
            o->min = o->max = v;
          if (v < o->min)
            o->min = v;
          if (v > o->max)
            o->max = v;
          o->last = v;
          o->samples++;
          o->known = 1;
        }
    }
}

static int
same_bins (const logfmt_metric_bin_t *a, const logfmt_metric_bin_t *b,
           uint32_t n)
{
  int bad = 0;
  for (uint32_t i = 0; i < n; i++)
    if (a[i].min != b[i].min || a[i].max != b[i].max
        || a[i].last != b[i].last || a[i].samples != b[i].samples
        || a[i].known != b[i].known)
      {
        if (bad++ < 3)
          diag ("bin %u: got %lld/%lld/%lld n=%llu k=%d, want "
                "%lld/%lld/%lld n=%llu k=%d", i, (long long) a[i].min,
                (long long) a[i].max, (long long) a[i].last,
                (unsigned long long) a[i].samples, a[i].known,
                (long long) b[i].min, (long long) b[i].max,
                (long long) b[i].last, (unsigned long long) b[i].samples,
                b[i].known);
      }
  return bad;
}

static int
on_chunk (void *user, const void *chunk, size_t len)
{
  return logfmt_writer_put_track (user, 1, chunk, len);
}

/* Chunks made "elsewhere", for the assembly in place: their bytes one
 * after the other, as another process's region of the file. */
typedef struct
{
  uint8_t *b;
  size_t len, cap;
  size_t off[4096];
  size_t n;
} region_t;

static int
region_add (void *user, const void *chunk, size_t len)
{
  region_t *g = user;
  if (g->len + len > g->cap)
    {
      g->cap = (g->len + len) * 2;
      g->b = realloc (g->b, g->cap);
    }
  if (!g->b || g->n == 4096)
    return LOGFMT_ENOMEM;
  memcpy (g->b + g->len, chunk, len);
  g->off[g->n++] = g->len;
  g->len += len;
  return 0;
}

static int
region_block (void *user, const void *block, size_t len,
              const logfmt_block_info_t *info)
{
  (void) info;
  return region_add (user, block, len);
}

static size_t
region_chunk_len (const region_t *g, size_t i)
{
  return (i + 1 < g->n ? g->off[i + 1] : g->len) - g->off[i];
}

int
main (int argc, char **argv)
{
  char path[256], bad[256];
  if (argc > 1)
    {
      snprintf (path, sizeof path, "%s/tracks.clog", argv[1]);
      snprintf (bad, sizeof bad, "%s/notracks.clog", argv[1]);
      return write_log (path, 1) || write_log (bad, 0);
    }

  snprintf (path, sizeof path, "/tmp/test-tracks-%d.clog", (int) getpid ());
  snprintf (bad, sizeof bad, "/tmp/test-tracks-%d-bad.clog", (int) getpid ());
  ASSERT_OK (write_log (path, 1), "write a log with tracks");

  logfmt_reader_t *r;
  logfmt_error_t e;
  ASSERT_OK (logfmt_reader_open (path, 0, &r, &e), "open it");
  ok (logfmt_reader_n_metrics (r) == 3, "three metric definitions");
  const logfmt_metric_def_t *m1 = logfmt_reader_metric (r, 1);
  ok (m1 && m1->id == 1 && m1->flags == LOGFMT_METRIC_CHANNEL
      && !strcmp (m1->name, "bytes") && !strcmp (m1->unit, "bytes"),
      "metric definition round trip");
  ok (logfmt_reader_find_metric (r, 2) == 2
      && logfmt_reader_find_metric (r, 9) == -1, "find_metric");
  ok (logfmt_track_kind_ncols (LOGFMT_TRACK_METRIC) == 3
      && logfmt_track_kind_ncols (30) == LOGFMT_ENOENT, "kind columns");

  logfmt_track_info_t ti;
  ASSERT_OK (logfmt_reader_track_info (r, 0, LOGFMT_TRACK_METRIC, &ti),
             "track info of stream 0");
  logfmt_track_rec_t first, last;
  sample (0, &first);
  sample (NS - 1, &last);
  ASSERT_EQ (ti.records, (uint64_t) NS, "records from the directory");
  ASSERT_EQ (ti.chunks, (uint32_t) ((NS + CHUNK - 1) / CHUNK), "chunks");
  ok (ti.t_first == first.time && ti.t_last == last.time && ti.ncols == 3,
      "time range and columns from the directory");
  ASSERT_OK (logfmt_reader_track_info (r, LOGFMT_NO_STREAM,
                                       LOGFMT_TRACK_METRIC, &ti),
             "track info of every stream");
  ASSERT_EQ (ti.records, (uint64_t) NS + NEV / 300, "records, all streams");
  ok (logfmt_reader_track_info (r, 0, 5, &ti) == LOGFMT_ENOENT
      && ti.records == 0, "no such kind: ENOENT");

  uint64_t n, chunks;
  int mism = 0;
  ASSERT_OK (count_window (r, 0, 0, UINT64_MAX, &n, &chunks, &mism, 0),
             "whole track");
  ok (n == NS && mism == 0, "every sample read back (%llu, %d differ)",
      (unsigned long long) n, mism);
  ASSERT_EQ (chunks, (uint64_t) (NS + CHUNK - 1) / CHUNK,
             "whole read: every chunk of stream 0");

  /* [t(10000), t(20000)) holds samples 10000..19999: chunks 2..4. */
  logfmt_track_rec_t a, b;
  sample (10000, &a);
  sample (20000, &b);
  mism = 0;
  ASSERT_OK (count_window (r, 0, a.time, b.time, &n, &chunks, &mism, 10000),
             "window read");
  ok (n == 10000 && mism == 0, "window gives exactly its samples");
  ASSERT_EQ (chunks, (uint64_t) (19999 / CHUNK - 10000 / CHUNK + 1),
             "window read decodes only the overlapping chunks");
  ASSERT_OK (count_window (r, 0, last.time + 1, UINT64_MAX, &n, &chunks,
                           NULL, 0), "window after the end");
  ok (n == 0 && chunks == 0, "window after the end reads nothing");
  ASSERT_OK (count_window (r, 1, 0, UINT64_MAX, &n, &chunks, NULL, 0),
             "sparse stream");
  ASSERT_EQ (n, (uint64_t) (NEV / 300), "sparse stream's samples");

  /* Summaries: output bins of 2^16 ns aligned at 0 select level 2. */
  logfmt_metric_bin_t got[64], want[64];
  uint64_t lvl;
  for (int64_t id = 0; id < 3; id++)
    {
      int64_t obj = id == 1 ? 1 : -1;
      ASSERT_OK (logfmt_reader_metric_bins (r, 0, (uint32_t) id, obj, 0,
                                            64 << 16, 64, got, &lvl, &e),
                 "metric bins from a summary");
      brute_bins (id, obj, 0, 64 << 16, 64, want);
      ok (lvl == 1 << 16 && same_bins (got, want, 64) == 0,
          "metric %lld: summary bins (level %llu ns) equal the samples'",
          (long long) id, (unsigned long long) lvl);
    }
  ASSERT_OK (logfmt_reader_metric_bins (r, 0, 2, -1, 1000000, 1064000, 64,
                                        got, &lvl, &e),
             "metric bins from the samples");
  brute_bins (2, -1, 1000000, 1064000, 64, want);
  ok (lvl == 0 && same_bins (got, want, 64) == 0,
      "narrow bins come from the samples and equal them");
  ASSERT_OK (logfmt_reader_metric_bins (r, 0, 1, 0, 0, (uint64_t) 1 << 30,
                                        16, got, &lvl, &e),
             "a zoomed-out window");
  ok (lvl >= (1u << 20), "a zoomed-out window reads a coarse level "
      "(%llu ns)", (unsigned long long) lvl);
  uint64_t total = 0;
  for (int i = 0; i < 16; i++)
    total += got[i].samples;
  uint64_t want_n = 0;
  for (int i = 0; i < NS; i++)
    {
      sample (i, &a);
      want_n += a.col[0] == 1 && a.col[1] == 0;
    }
  ASSERT_EQ (total, want_n, "coarse bins count every sample");
  ASSERT_OK (logfmt_reader_metric_bins (r, 1, 0, -1, 0, (uint64_t) 1 << 30,
                                        4, got, &lvl, &e),
             "sparse stream bins");
  /* 10 samples: levels 1-3 would hold as many records and are not
   * kept; level 4 (one bin) is. */
  ok (lvl == 1u << 24 && got[0].samples == NEV / 300
      && got[0].last == 2700 && got[0].min == 0 && got[0].max == 2700,
      "a sparse track keeps only its useful summary level (%llu ns)",
      (unsigned long long) lvl);

  /* Events are untouched. */
  logfmt_interval_iter_t *ii;
  logfmt_interval_counts_t c;
  ASSERT_OK (logfmt_interval_iter_new (r, 0, 0, UINT64_MAX, &ii), "pairs");
  logfmt_interval_t iv;
  while (logfmt_interval_iter_next (ii, &iv) == 1)
    ;
  logfmt_interval_iter_counts (ii, -1, &c);
  logfmt_interval_iter_free (ii);
  ASSERT_EQ (c.closed, (uint64_t) NEV / 2, "state instances");
  logfmt_reader_close (r);
  ASSERT_OK (logfmt_verify (path, NULL, NULL), "verify passes");

  /* Assembly path: an encoder's chunks put under another stream. */
  {
    logfmt_writer_opts_t o = { .size = sizeof o };
    logfmt_writer_t *w;
    ASSERT_OK (logfmt_writer_open (bad, &o, &w, &e), "assembly writer");
    for (int s = 0; s < 2; s++)
      {
        logfmt_stream_def_t sd = { s, 0, NULL };
        logfmt_writer_add_stream (w, &sd, NULL);
      }
    logfmt_track_encoder_t *te;
    ASSERT_OK (logfmt_track_encoder_new (7, on_chunk, w, &te), "encoder");
    logfmt_track_rec_t x;
    int arc = 0;
    for (int i = 0; i < NS && !arc; i++)
      {
        sample (i, &x);
        arc = logfmt_track_encoder_add (te, LOGFMT_TRACK_METRIC, &x, 1);
      }
    ok (logfmt_track_encoder_add (te, 30, &x, 1) == LOGFMT_EINVAL,
        "an unknown kind is refused");
    sample (0, &x);
    arc = arc ? arc : logfmt_track_encoder_add (te, LOGFMT_TRACK_METRIC,
                                                &x, 1);
    ASSERT_EQ (logfmt_track_encoder_fixed_times (te), (uint64_t) 1,
               "a time going back is raised and counted");
    ASSERT_OK (arc ? arc : logfmt_track_encoder_flush (te), "encode");
    logfmt_track_encoder_free (te);
    ASSERT_OK (logfmt_writer_finish (w, &e), "assembled file");
    ASSERT_OK (logfmt_reader_open (bad, 0, &r, &e), "open it");
    mism = 0;
    count_window (r, 1, 0, last.time, &n, &chunks, &mism, 0);
    ok (n == NS - 1 && mism == 0, "put_track renumbers the stream");
    logfmt_reader_close (r);
    ASSERT_OK (logfmt_verify (bad, NULL, NULL), "verify the assembly");
  }

  /* Assembly in place: stream 1's blocks, samples and messages are
   * written into a region the writer set aside, as another process would,
   * and indexed from their first bytes only. */
  {
    char ip[256];
    snprintf (ip, sizeof ip, "/tmp/test-tracks-%d-inplace.clog",
              (int) getpid ());
    logfmt_writer_opts_t o = { .size = sizeof o, .world_size = 2 };
    logfmt_writer_t *w;
    ASSERT_OK (logfmt_writer_open (ip, &o, &w, &e), "in-place writer");
    logfmt_state_def_t st = { 10, 11, "Compute", "red", NULL, 0 };
    logfmt_writer_add_state (w, &st);
    for (int s = 0; s < 2; s++)
      {
        logfmt_stream_def_t sd = { s, 0, NULL };
        logfmt_writer_add_stream (w, &sd, NULL);
      }
    region_t *g = calloc (1, sizeof *g);
    logfmt_encoder_opts_t eo = { sizeof eo, 1, 500, 0 };
    logfmt_encoder_t *enc;
    logfmt_summary_builder_t *sb;
    ASSERT_OK (logfmt_encoder_new (&eo, region_block, g, &enc), "encoder");
    ASSERT_OK (logfmt_summary_builder_new (&st, 1, &sb), "summary builder");
    logfmt_event_t ev;
    for (int i = 0; i < NEV; i++)
      {
        event (1, i, &ev);
        logfmt_encoder_add (enc, &ev, 1);
        logfmt_summary_builder_add (sb, &ev, 1);
        event (0, i, &ev);
        logfmt_writer_event (w, 0, &ev, 1);   /* the writer's own stream */
      }
    ASSERT_OK (logfmt_encoder_flush (enc), "blocks");
    logfmt_encoder_free (enc);
    logfmt_track_encoder_t *te;
    ASSERT_OK (logfmt_track_encoder_new (1, region_add, g, &te), "tracks");
    logfmt_track_rec_t x;
    for (int i = 0; i < NS; i++)
      {
        sample (i, &x);
        logfmt_track_encoder_add (te, LOGFMT_TRACK_METRIC, &x, 1);
      }
    ASSERT_OK (logfmt_track_encoder_flush (te), "samples");
    logfmt_track_encoder_free (te);
    enum { NM = 9000 };
    logfmt_message_t *msg = calloc (NM, sizeof *msg);
    for (int i = 0; i < NM; i++)
      msg[i] = (logfmt_message_t) {
        .send_stream = 0, .recv_stream = 1,
        .send_time = 500 + (uint64_t) (NM - i) * 300,
        .recv_time = 600 + (uint64_t) (NM - i) * 300,
        .send_rank = 0, .recv_rank = 1, .tag = i % 7, .size = 8 };
    ASSERT_OK (logfmt_messages_encode (msg, NM, region_add, g), "messages");
    ok (msg[0].send_time < msg[NM - 1].send_time,
        "logfmt_messages_encode sorts by time");

    uint64_t at = 0;
    ASSERT_OK (logfmt_writer_reserve (w, g->len, &at), "reserve");
    int fd = open (ip, O_WRONLY);
    ok (fd >= 0 && pwrite (fd, g->b, g->len, (off_t) at)
                   == (ssize_t) g->len, "the region written by another fd");
    close (fd);
    int bad_rc = 0;
    for (size_t i = 0; i < g->n; i++)
      {
        size_t cl = region_chunk_len (g, i);
        bad_rc |= logfmt_writer_note_chunk (w, at + g->off[i],
                                            g->b + g->off[i],
                                            cl < LOGFMT_CHUNK_HEAD_MAX
                                            ? cl : LOGFMT_CHUNK_HEAD_MAX);
      }
    ok (bad_rc == 0, "every chunk indexed from its first bytes");
    ok (logfmt_writer_note_chunk (w, at, g->b, LOGFMT_CHUNK_HEAD_MAX)
        == LOGFMT_ERANGE, "a block going back in time is refused");
    ok (logfmt_writer_note_chunk (w, at + g->len + 1000, g->b,
                                  LOGFMT_CHUNK_HEAD_MAX) == LOGFMT_EINVAL,
        "an offset past the file is refused");
    ok (logfmt_writer_note_chunk (w, at, g->b, 12) == LOGFMT_EINVAL,
        "a head shorter than a chunk header is refused");
    uint8_t odd[LOGFMT_CHUNK_HEAD_MAX];
    memcpy (odd, g->b, sizeof odd);
    st32 (odd, 0x77);
    ok (logfmt_writer_note_chunk (w, at, odd, sizeof odd) == LOGFMT_EINVAL,
        "an unknown chunk type is refused");
    void *sum;
    size_t sumlen;
    ASSERT_OK (logfmt_summary_builder_finish (sb, 1, &sum, &sumlen), "sum");
    ASSERT_OK (logfmt_writer_put_summary (w, 1, sum, sumlen), "summary");
    free (sum);
    logfmt_summary_builder_free (sb);
    ASSERT_OK (logfmt_writer_finish (w, &e), "in-place file finished");
    ASSERT_OK (logfmt_verify (ip, NULL, NULL), "verify the in-place file");
    ASSERT_OK (logfmt_reader_open (ip, 0, &r, &e), "open it");
    ok (logfmt_reader_stream_events (r, 0) == NEV
        && logfmt_reader_stream_events (r, 1) == NEV,
        "both streams' events indexed");
    uint64_t ne = 0;
    logfmt_iter_t *it;
    ASSERT_OK (logfmt_iter_new (r, 1, 0, UINT64_MAX, &it), "iter");
    logfmt_event_t back;
    int same_ev = 1;
    while (logfmt_iter_next (it, &back) == 1)
      {
        event (1, (int) ne++, &ev);
        same_ev &= back.time == ev.time && back.id == ev.id;
      }
    logfmt_iter_free (it);
    ok (ne == NEV && same_ev, "stream 1 read back (%llu events)",
        (unsigned long long) ne);
    mism = 0;
    count_window (r, 1, 0, UINT64_MAX, &n, &chunks, &mism, 0);
    ok (n == NS && mism == 0, "stream 1's samples read back");
    logfmt_msg_iter_t *mi;
    ASSERT_OK (logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi), "msg iter");
    logfmt_message_t mm;
    uint64_t nm = 0;
    while (logfmt_msg_iter_next (mi, &mm) == 1)
      nm++;
    logfmt_msg_iter_free (mi);
    ok (nm == NM, "every message read back (%llu)", (unsigned long long) nm);
    logfmt_reader_close (r);
    unlink (ip);
    free (msg);
    free (g->b);
    free (g);
  }

  /* Damage. */
  size_t len = 0;
  uint8_t *img = slurp (path, &len);
  uint64_t tc[64], dir[2];
  size_t ntc = find_chunks (img, len, 6, tc, 64);
  ok (ntc >= 13 && find_chunks (img, len, 7, dir, 2) == 1,
      "file holds the track chunks and one directory");
  uint8_t *cp = malloc (len);

  /* A flipped bit in stream 0's second chunk: ECHECKSUM after the first
   * chunk's samples, events still readable, verify reports it. */
  uint64_t second = 0;
  int seen = 0;
  for (size_t i = 0; i < ntc && !second; i++)
    if (ld32 (img + tc[i] + 16) == 0 && ld16 (img + tc[i] + 28) == 0
        && ++seen == 2)
      second = tc[i];
  memcpy (cp, img, len);
  cp[second + 16 + 60] ^= 0x10;
  spit (bad, cp, len);
  ASSERT_OK (logfmt_reader_open (bad, 0, &r, &e), "damaged track: opens");
  int rc = count_window (r, 0, 0, UINT64_MAX, &n, &chunks, NULL, 0);
  ok (rc == LOGFMT_ECHECKSUM && n == CHUNK,
      "flipped bit: ECHECKSUM after the good chunk's samples (%d, %llu)",
      rc, (unsigned long long) n);
  logfmt_iter_t *ei;
  logfmt_iter_new (r, 0, 0, UINT64_MAX, &ei);
  logfmt_event_t ev;
  n = 0;
  while (logfmt_iter_next (ei, &ev) == 1)
    n++;
  logfmt_iter_free (ei);
  ASSERT_EQ (n, (uint64_t) NEV, "events still read");
  logfmt_reader_close (r);
  ok (logfmt_verify (bad, NULL, NULL) == LOGFMT_ECHECKSUM,
      "verify reports the damaged track chunk");

  /* Damage behind a fixed-up CRC: a header that disagrees with the
   * directory, a body that does not decompress. */
  uint64_t plen = ld64 (img + second + 8);
  for (int k = 0; k < 2; k++)
    {
      memcpy (cp, img, len);
      if (k == 0)
        st32 (cp + second + 16 + 40, ld32 (cp + second + 16 + 40) - 1);
      else
        memset (cp + second + 16 + 56, 0, 4);
      st32 (cp + second + 16 + plen,
            logfmt__chunk_crc (cp + second, cp + second + 16, plen, 8));
      spit (bad, cp, len);
      ASSERT_OK (logfmt_reader_open (bad, 0, &r, &e), "re-sealed damage");
      rc = count_window (r, 0, 0, UINT64_MAX, &n, &chunks, NULL, 0);
      ok (rc == LOGFMT_ECORRUPT && n == CHUNK,
          "%s: ECORRUPT (%d)", k ? "body not zstd" : "count changed", rc);
      logfmt_reader_close (r);
    }

  /* Every byte of a chunk's header changed in turn: never a crash, and
   * a clear code when the change matters. */
  int crashes = 0;
  for (int k = 0; k < 16 + 56; k++)
    {
      memcpy (cp, img, len);
      cp[second + k] ^= 0xff;
      spit (bad, cp, len);
      if (logfmt_reader_open (bad, 0, &r, &e) == 0)
        {
          rc = count_window (r, 0, 0, UINT64_MAX, &n, &chunks, NULL, 0);
          if (rc > 0 || (rc == 0 && n != NS))
            crashes++;
          logfmt_reader_close (r);
        }
      logfmt_verify (bad, NULL, NULL);
    }
  ok (crashes == 0, "header bytes damaged: an error code or the right "
      "samples");

  /* A damaged directory: the open says so. */
  memcpy (cp, img, len);
  cp[dir[0] + 16 + 8 + 3] ^= 1;
  spit (bad, cp, len);
  rc = logfmt_reader_open (bad, 0, &r, &e);
  ok (rc == LOGFMT_ECHECKSUM, "damaged directory: ECHECKSUM (%d)", rc);

  /* Cut inside the third track chunk: the tolerant open keeps the
   * tracks before the cut (rebuilt from the self-describing chunks). */
  uint64_t third = 0;
  seen = 0;
  for (size_t i = 0; i < ntc && !third; i++)
    if (ld32 (img + tc[i] + 16) == 0 && ld16 (img + tc[i] + 28) == 0
        && ++seen == 3)
      third = tc[i];
  spit (bad, img, third + 40);
  ok (logfmt_reader_open (bad, 0, &r, &e) == LOGFMT_EPARTIAL,
      "cut file: EPARTIAL");
  ASSERT_OK (logfmt_reader_open (bad, LOGFMT_OPEN_TOLERANT, &r, &e),
             "cut file opens tolerantly");
  mism = 0;
  rc = count_window (r, 0, 0, UINT64_MAX, &n, &chunks, &mism, 0);
  ok (rc == 0 && n == 2 * CHUNK && mism == 0,
      "the two chunks before the cut are read back (%llu)",
      (unsigned long long) n);
  logfmt_reader_close (r);

  free (cp);
  free (img);
  unlink (path);
  unlink (bad);

  return exit_status ();
}
