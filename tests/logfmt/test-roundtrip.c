/* SPDX-License-Identifier: BSD-3-Clause */
/* Round trip of every record kind and every definition kind through the
 * writer and the reader, plus window iteration across blocks. */
#include "tests/common/tap.h"
#include "logfmt/logfmt.h"

#include <unistd.h>

#define NEV 5000

/* Deterministic records for stream s: cycles through every kind. */
static void
make_event (uint32_t s, int i, logfmt_event_t *e)
{
  memset (e, 0, sizeof *e);
  e->time = 1000 + (uint64_t) i * 37 + (uint64_t) (i % 7) * 3 + s;
  switch (i % 6)
    {
    case 0: e->type = LOGFMT_REC_EVENT; e->id = 10; break;   /* begin A */
    case 1: e->type = LOGFMT_REC_EVENT; e->id = 12; break;   /* begin B */
    case 2: e->type = LOGFMT_REC_EVENT; e->id = 13; break;   /* end B */
    case 3:
      e->type = LOGFMT_REC_SEND; e->partner = (int32_t) (s ^ 1);
      e->tag = i - 3000; e->comm = 7; e->size = (uint64_t) i * 1000003;
      break;
    case 4:
      e->type = i % 12 == 4 ? LOGFMT_REC_RECV : LOGFMT_REC_EVENT;
      e->id = -42;                                            /* solo */
      e->partner = 3; e->tag = 5; e->comm = 0xfffffffeu;
      if (e->type == LOGFMT_REC_EVENT)
        {
          e->partner = 0; e->tag = 0; e->comm = 0;
          e->flags = LOGFMT_EVF_CARGO;
          for (int k = 0; k < LOGFMT_CARGO_SIZE; k++)
            e->cargo[k] = (uint8_t) (i + k);
        }
      else
        {
          e->id = 0;
          e->size = UINT64_MAX - (uint64_t) i;
        }
      break;
    case 5:
      if (i % 60 == 5)
        {
          e->type = LOGFMT_REC_LOSS;
          e->size = (uint64_t) i;
        }
      else
        {
          e->type = LOGFMT_REC_EVENT;
          e->id = 11;                                         /* end A */
        }
      break;
    }
}

static int
same (const logfmt_event_t *a, const logfmt_event_t *b)
{
  return a->time == b->time && a->type == b->type && a->flags == b->flags
         && a->id == b->id && a->partner == b->partner && a->tag == b->tag
         && a->comm == b->comm && a->size == b->size
         && (!(a->flags & LOGFMT_EVF_CARGO)
             || memcmp (a->cargo, b->cargo, LOGFMT_CARGO_SIZE) == 0);
}

/* Reads what the iterator has left, expecting stream 1's records from
 * index first on; counts them in *m and returns the mismatches. */
static int
rest_of_stream1 (logfmt_iter_t *it, int first, int *m)
{
  logfmt_event_t got, want;
  int bad = 0;
  while (logfmt_iter_next (it, &got) == 1)
    {
      make_event (1, first + *m, &want);
      if (!same (&got, &want))
        bad++;
      (*m)++;
    }
  return bad;
}

int
main (void)
{
  char path[] = "/tmp/logfmt-rt-XXXXXX";
  int fd = mkstemp (path);
  close (fd);

  logfmt_writer_opts_t o = { .size = sizeof o, .block_events = 700,
                             .creator = "roundtrip test", .world_size = 2,
                             .origin_unix_ns = 1700000000123456789LL };
  logfmt_writer_t *w;
  logfmt_error_t err = { 0 };
  ASSERT_OK (logfmt_writer_open (path, &o, &w, &err), "writer opens");
  logfmt_state_def_t sa = { 10, 11, "Compute", "SeaGreen", NULL, 0 };
  logfmt_state_def_t sb = { 12, 13, "MPI_Send", "#ff8000",
                            "bytes=%d tag=%d", 0 };
  ASSERT_OK (logfmt_writer_add_state (w, &sa), "state A");
  ASSERT_OK (logfmt_writer_add_state (w, &sb), "state B");
  logfmt_event_def_t ed = { -42, "Marker", "light  grey", "n=%d", 0 };
  ASSERT_OK (logfmt_writer_add_event_def (w, &ed), "event def");
  logfmt_stream_def_t s0 = { 0, 0, "node-a" }, s1 = { 1, 0, NULL };
  uint32_t id0, id1;
  ASSERT_OK (logfmt_writer_add_stream (w, &s0, &id0), "stream 0");
  ASSERT_OK (logfmt_writer_add_stream (w, &s1, &id1), "stream 1");
  ASSERT_EQ (id1, 1, "second stream has index 1");
  int32_t ranks[2] = { 1, 0 };
  logfmt_comm_def_t cm = { 7, 1, "swapped", 2, ranks };
  logfmt_comm_def_t cw = { 0, 1, NULL, 2, NULL };
  ASSERT_OK (logfmt_writer_add_comm (w, &cm), "comm with ranks");
  ASSERT_OK (logfmt_writer_add_comm (w, &cw), "comm without ranks");
  logfmt_const_def_t k = { "answer", -4200000000000LL };
  ASSERT_OK (logfmt_writer_add_const (w, &k), "const");

  /* Interleave the two streams in small batches. */
  static logfmt_event_t evs[NEV];
  for (int i = 0; i < NEV; i += 250)
    for (uint32_t s = 0; s < 2; s++)
      {
        for (int j = i; j < i + 250; j++)
          make_event (s, j, &evs[j]);
        if (logfmt_writer_event (w, s, evs + i, 250) != 0)
          diag ("writer_event failed");
      }
  ASSERT_OK (logfmt_writer_finish (w, &err), "writer finishes");

  logfmt_reader_t *r;
  int rc = logfmt_reader_open (path, 0, &r, &err);
  ASSERT_OK (rc, "reader opens");
  if (rc)
    {
      diag ("%s", err.message);
      return exit_status ();
    }
  const logfmt_info_t *inf = logfmt_reader_info (r);
  ASSERT_EQ (inf->major, 1, "major 1");
  ASSERT_EQ (inf->minor, 1, "minor 1");
  ASSERT_STREQ (inf->format_name, "clog3", "format name");
  ASSERT_STREQ (inf->creator, "roundtrip test", "creator");
  ASSERT_EQ (inf->origin_unix_ns, 1700000000123456789LL, "origin");
  ASSERT_EQ (inf->world_size, 2, "world size");
  ASSERT_EQ (inf->nstreams, 2, "two streams");
  ASSERT_EQ (inf->nevents, 2 * NEV, "event total");
  ASSERT_EQ (inf->t_first, 1000, "t_first");
  uint64_t lost = 0;
  for (int i = 0; i < NEV; i++)
    if (i % 60 == 5)
      lost += (uint64_t) i;
  ASSERT_EQ (inf->lost_events, 2 * lost, "lost events summed");

  ASSERT_EQ (logfmt_reader_n_states (r), 2, "two states");
  const logfmt_state_def_t *st = logfmt_reader_state (r, 1);
  ASSERT_STREQ (st->name, "MPI_Send", "state name");
  ASSERT_STREQ (st->color, "#ff8000", "state colour as given");
  ASSERT_EQ (st->rgb, 0xff8000, "state rgb");
  ASSERT_STREQ (st->format, "bytes=%d tag=%d", "state format");
  ASSERT_EQ (st->start_id * 100 + st->end_id, 1213, "state ids");
  ASSERT_EQ (logfmt_reader_state (r, 0)->rgb, 0x2e8b57, "SeaGreen rgb");
  ASSERT_OK (logfmt_reader_state (r, 0)->format != NULL, "NULL format kept");
  ASSERT_EQ (logfmt_reader_n_event_defs (r), 1, "one event def");
  ASSERT_EQ (logfmt_reader_find_event_def (r, -42), 0, "find event def");
  ASSERT_EQ (logfmt_reader_find_event_def (r, 5), -1, "missing event def");
  ASSERT_EQ (logfmt_reader_event_def (r, 0)->rgb, 0xd3d3d3, "light grey");
  ASSERT_STREQ (logfmt_reader_stream (r, 0)->host, "node-a", "host");
  ASSERT_OK (logfmt_reader_stream (r, 1)->host != NULL, "NULL host kept");
  ASSERT_EQ (logfmt_reader_stream (r, 1)->rank, 1, "stream rank");
  ASSERT_EQ (logfmt_reader_n_comms (r), 2, "two comms");
  const logfmt_comm_def_t *c = logfmt_reader_comm (r, 0);
  ASSERT_EQ (c->id, 7, "comm id");
  ASSERT_STREQ (c->name, "swapped", "comm name");
  ASSERT_EQ (c->size == 2 && c->ranks && c->ranks[0] == 1
             && c->ranks[1] == 0, 1, "comm ranks");
  ASSERT_OK (logfmt_reader_comm (r, 1)->ranks != NULL, "no ranks kept");
  ASSERT_EQ (logfmt_reader_n_consts (r), 1, "one const");
  ASSERT_EQ (logfmt_reader_const (r, 0)->value, -4200000000000LL,
             "const value");

  /* Full iteration of both streams, record by record. */
  for (uint32_t s = 0; s < 2; s++)
    {
      logfmt_iter_t *it;
      ASSERT_OK (logfmt_iter_new (r, s, 0, UINT64_MAX, &it), "iter new");
      logfmt_event_t got, want;
      int n = 0, bad = 0, kinds[7] = { 0 };
      while ((rc = logfmt_iter_next (it, &got)) == 1)
        {
          make_event (s, n, &want);
          if (!same (&got, &want))
            bad++;
          if (got.kind >= 1 && got.kind <= 6)
            kinds[got.kind]++;
          if (got.type == LOGFMT_REC_EVENT && got.id == 12
              && (got.kind != LOGFMT_KIND_BEGIN || got.state != 1))
            bad++;
          if (got.type == LOGFMT_REC_EVENT && got.id == 11
              && (got.kind != LOGFMT_KIND_END || got.state != 0))
            bad++;
          if (got.type == LOGFMT_REC_EVENT && got.id == -42
              && (got.kind != LOGFMT_KIND_SOLO || got.state != -1))
            bad++;
          n++;
        }
      ASSERT_EQ (rc, 0, "iteration ends cleanly");
      ASSERT_EQ (n, NEV, "all records back");
      ASSERT_EQ (bad, 0, "records identical and classified");
      ASSERT_EQ (kinds[LOGFMT_KIND_BEGIN], 1668, "begins");
      ASSERT_EQ (kinds[LOGFMT_KIND_SEND], NEV / 6, "sends");
      ASSERT_EQ (kinds[LOGFMT_KIND_LOSS], 84, "losses");
      logfmt_iter_free (it);
    }

  /* Window iteration: exactly the records with t0 <= time <= t1. */
  uint64_t t0 = 50001, t1 = 120000;
  logfmt_iter_t *it;
  ASSERT_OK (logfmt_iter_new (r, 1, t0, t1, &it), "window iter");
  logfmt_event_t got, want;
  int n = 0, first = -1, bad = 0;
  for (int i = 0; i < NEV; i++)
    {
      make_event (1, i, &want);
      if (want.time >= t0 && want.time <= t1)
        {
          if (first < 0)
            first = i;
          n++;
        }
    }
  int m = 0;
  bad += rest_of_stream1 (it, first, &m);
  ASSERT_EQ (m, n, "window count");
  ASSERT_EQ (bad, 0, "window records");
  /* The same iterator pointed elsewhere, left in the middle of a block,
   * then at the window again: the same records as a new one gives. */
  ASSERT_OK (logfmt_iter_reset (it, 0, 0, UINT64_MAX), "reset to stream 0");
  for (int i = 0; i < 5 && logfmt_iter_next (it, &got) == 1; i++)
    {
      make_event (0, i, &want);
      if (!same (&got, &want))
        bad++;
    }
  ASSERT_EQ (bad, 0, "reset: stream 0 from its start");
  ASSERT_OK (logfmt_iter_reset (it, 1, 0, UINT64_MAX), "reset to stream 1");
  for (int i = 0; i < 300; i++)
    {
      make_event (1, i, &want);
      if (logfmt_iter_next (it, &got) != 1 || !same (&got, &want))
        bad++;
    }
  ASSERT_EQ (bad, 0, "reset: stream 1 from its start, not stream 0's rest");
  ASSERT_OK (logfmt_iter_reset (it, 1, t0, t1), "reset to the window");
  m = 0;
  bad += rest_of_stream1 (it, first, &m);
  ASSERT_EQ (m, n, "reset: window count");
  ASSERT_EQ (bad, 0, "reset: window records");
  ASSERT_EQ (logfmt_iter_reset (it, 2, 0, 1), LOGFMT_ERANGE,
             "reset: bad stream rejected");
  logfmt_iter_free (it);
  ASSERT_EQ (logfmt_iter_new (r, 2, 0, 1, &it), LOGFMT_ERANGE,
             "bad stream rejected");

  /* Batches of every size (below, at and above the size that decodes
   * straight into the caller's array, and above a block), with single
   * calls between them: the window's records, in order, once each. */
  static logfmt_event_t bb[NEV];
  const size_t sizes[] = { 1, 63, 64, 65, 256, 701, NEV };
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
    {
      ASSERT_OK (logfmt_iter_new (r, 1, t0, t1, &it), "batch iter");
      int seen = 0, wrong = 0, calls = 0;
      long got_n;
      for (;;)
        {
          if (++calls % 3 == 0)
            {
              /* A single record now and then: the next batch starts
               * in the middle of the iterator's own chunk. */
              if ((got_n = logfmt_iter_next (it, &bb[0])) != 1)
                break;
            }
          else if ((got_n = logfmt_iter_next_batch (it, bb, sizes[z])) <= 0)
            break;
          for (long j = 0; j < got_n; j++)
            {
              make_event (1, first + seen, &want);
              if (!same (&bb[j], &want))
                wrong++;
              seen++;
            }
        }
      char what[64];
      snprintf (what, sizeof what, "batches of %zu end cleanly", sizes[z]);
      ASSERT_EQ (got_n, 0, what);
      snprintf (what, sizeof what, "batches of %zu: the window's count",
                sizes[z]);
      ASSERT_EQ (seen, n, what);
      snprintf (what, sizeof what, "batches of %zu: the window's records",
                sizes[z]);
      ASSERT_EQ (wrong, 0, what);
      logfmt_iter_free (it);
    }
  logfmt_reader_close (r);
  unlink (path);

  /* Writer refuses a state after events and the reader reports partial. */
  ASSERT_OK (logfmt_writer_open (path, &o, &w, &err), "second writer");
  logfmt_writer_add_stream (w, &s0, &id0);
  make_event (0, 0, &want);
  logfmt_writer_event (w, 0, &want, 1);
  ASSERT_EQ (logfmt_writer_add_state (w, &sa), LOGFMT_ESTATE,
             "state after events refused");
  rc = logfmt_reader_open (path, 0, &r, &err);
  ASSERT_EQ (rc, LOGFMT_EPARTIAL, "unfinished file is partial");
  logfmt_writer_abort (w);
  ASSERT_EQ (access (path, F_OK), -1, "abort removes the file");
  return exit_status ();
}
