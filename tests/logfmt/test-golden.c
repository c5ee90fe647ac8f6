/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The golden files: tests/logfmt/golden/v1.N.clog were written once by
 * this program (`test-golden --write FILE`) with format 1.N: the same
 * content in each, v1.0 with block codec 1, v1.1 with codec 2.  Every
 * later reader must read all of them exactly as below, so that no change
 * to the reader or the writer silently breaks the files users already
 * have.  And the writer must still produce the newest byte for byte: the
 * content is fixed and the writer is deterministic (no clock, host or pid
 * in the file).  If the format changes on purpose, bump the minor or major
 * version, keep these files and add the new one next to them.
 */
#include "tests/common/tap.h"
#include "logfmt/logfmt.h"
#include "logfmt-internal.h"
#include "logfmt-reader-internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define GOLDEN_MINOR 1   /* the version today's writer writes */

static int
write_golden (const char *path)
{
  char creator[64];
  snprintf (creator, sizeof creator, "golden file, format 1.%d",
            GOLDEN_MINOR);
  /* Codec 2 even on these 16-record blocks (the writer would pick codec 1
   * for them as the smaller), so that the file pins codec 2's bytes. */
  logfmt__split_try_joint = 0;
  logfmt_writer_opts_t o = { .size = sizeof o, .block_events = 16,
                             .match_messages = 1,
                             .creator = creator,
                             .world_size = 2,
                             .origin_unix_ns = 1763800000000000000LL };
  logfmt_writer_t *w = NULL;
  logfmt_error_t err = { 0 };
  if (logfmt_writer_open (path, &o, &w, &err) != 0)
    {
      fprintf (stderr, "%s\n", err.message);
      return -1;
    }
  logfmt_state_def_t sa = { 600, 601, "Compute", "blue", "n=%d", 0 };
  logfmt_state_def_t sb = { 602, 603, "MPI_Send", "#ff8000", NULL, 0 };
  logfmt_event_def_t ed = { 5000, "Round done", "LightGoldenrod", "r=%d", 0 };
  logfmt_writer_add_state (w, &sa);
  logfmt_writer_add_state (w, &sb);
  logfmt_writer_add_event_def (w, &ed);
  logfmt_stream_def_t s0 = { 0, 0, "node-a" }, s1 = { 1, 0, "node-b" };
  uint32_t id;
  logfmt_writer_add_stream (w, &s0, &id);
  logfmt_writer_add_stream (w, &s1, &id);
  logfmt_comm_def_t world = { 0, 1, "MPI_COMM_WORLD", 0, NULL };
  logfmt_writer_add_comm (w, &world);

  /* Each stream: 20 rounds of Compute (cargo on the end) with a nested
   * MPI_Send to the other rank, then a solo event. */
  for (uint32_t s = 0; s < 2; s++)
    {
      logfmt_event_t e[20 * 7];
      int n = 0;
      for (int i = 0; i < 20; i++)
        {
          uint64_t t = 1000 + (uint64_t) i * 1000 + s * 100;
          logfmt_event_t x;
          memset (&x, 0, sizeof x);
          x.type = LOGFMT_REC_EVENT;
          x.time = t, x.id = 600, e[n++] = x;
          x.time = t + 300, x.id = 602, e[n++] = x;
          x.type = LOGFMT_REC_SEND, x.id = 0, x.time = t + 310;
          x.partner = (int32_t) (1 - s), x.tag = i, x.size = 8 * (i + 1);
          e[n++] = x;
          memset (&x, 0, sizeof x);
          x.type = LOGFMT_REC_EVENT;
          x.time = t + 320, x.id = 603, e[n++] = x;
          x.type = LOGFMT_REC_RECV, x.id = 0, x.time = t + 700;
          x.partner = (int32_t) (1 - s), x.tag = i, x.size = 8 * (i + 1);
          e[n++] = x;
          memset (&x, 0, sizeof x);
          x.type = LOGFMT_REC_EVENT;
          x.time = t + 800, x.id = 601, x.flags = LOGFMT_EVF_CARGO;
          x.cargo[3] = (uint8_t) i;     /* n=%d: 4 bytes, big-endian */
          e[n++] = x;
          memset (&x, 0, sizeof x);
          x.type = LOGFMT_REC_EVENT;
          x.time = t + 900, x.id = 5000, e[n++] = x;
        }
      if (logfmt_writer_event (w, s, e, (size_t) n) != 0)
        return -1;
    }
  return logfmt_writer_finish (w, &err);
}

/* The codec byte of every BLOCK chunk of the file: all equal to codec,
 * and how many. */
static int
blocks_with_codec (const char *path, int codec)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return -1;
  static uint8_t b[1 << 16];
  size_t len = fread (b, 1, sizeof b, f);
  fclose (f);
  if (len < 56 + 40)
    return -1;
  uint64_t at = ld32 (b + 12), n = 0;
  while (at + 16 <= len - 40)
    {
      uint32_t type = ld32 (b + at);
      uint64_t plen = ld64 (b + at + 8);
      if (at + 16 + plen + 4 > len)
        return -1;
      if (type == 1)
        {
          if (b[at + 16 + 32] != codec)
            return -1;
          n++;
        }
      at += 16 + plen + 4;
    }
  return (int) n;
}

static void
check_contents (const char *path, int minor)
{
  logfmt_reader_t *r = NULL;
  logfmt_error_t err = { 0 };
  if (logfmt_reader_open (path, 0, &r, &err) != 0)
    {
      ok (0, "golden file opens: %s", err.message);
      return;
    }
  ok (1, "golden file opens");
  const logfmt_info_t *in = logfmt_reader_info (r);
  ASSERT_EQ (in->major, 1, "major 1");
  ASSERT_EQ (in->minor, minor, "minor");
  char creator[64];
  snprintf (creator, sizeof creator, "golden file, format 1.%d", minor);
  ASSERT_STREQ (in->creator, creator, "creator");
  ASSERT_EQ (in->origin_unix_ns, 1763800000000000000LL, "origin");
  ASSERT_EQ (in->world_size, 2, "world size");
  ASSERT_EQ (in->nstreams, 2, "streams");
  ASSERT_EQ (in->nevents, 280, "events");
  ASSERT_EQ (in->nmessages, 40, "messages");
  ASSERT_EQ (logfmt_reader_n_states (r), 2, "states");
  const logfmt_state_def_t *a = logfmt_reader_state (r, 0);
  ok (strcmp (a->name, "Compute") == 0 && strcmp (a->color, "blue") == 0
      && a->rgb == 0x0000ff && a->start_id == 600 && a->end_id == 601
      && a->format && strcmp (a->format, "n=%d") == 0,
      "state 0: Compute, blue (0000ff), 600/601, n=%%d");
  const logfmt_state_def_t *b = logfmt_reader_state (r, 1);
  ok (strcmp (b->name, "MPI_Send") == 0 && b->rgb == 0xff8000,
      "state 1: MPI_Send, #ff8000");
  const logfmt_event_def_t *ed = logfmt_reader_event_def (r, 0);
  ok (ed && ed->id == 5000 && strcmp (ed->name, "Round done") == 0
      && ed->rgb == 0xeedd82, "event def: Round done, LightGoldenrod");
  ok (strcmp (logfmt_reader_stream (r, 1)->host, "node-b") == 0
      && logfmt_reader_stream (r, 1)->rank == 1, "stream 1: rank 1 on node-b");

  for (uint32_t s = 0; s < 2; s++)
    {
      logfmt_iter_t *it = NULL;
      logfmt_event_t e;
      int n = 0, begins = 0, ends = 0, cargo_ok = 0, first_ok = 0;
      logfmt_iter_new (r, s, 0, UINT64_MAX, &it);
      while (it && logfmt_iter_next (it, &e) == 1)
        {
          if (n == 0)
            first_ok = e.time == 1000 + s * 100 && e.id == 600
                       && e.kind == LOGFMT_KIND_BEGIN && e.state == 0;
          begins += e.kind == LOGFMT_KIND_BEGIN;
          ends += e.kind == LOGFMT_KIND_END;
          if (e.id == 601 && (e.flags & LOGFMT_EVF_CARGO)
              && e.cargo[3] == (uint8_t) ((e.time - 1800 - s * 100) / 1000))
            cargo_ok++;
          n++;
        }
      logfmt_iter_free (it);
      ok (n == 140 && begins == 40 && ends == 40 && cargo_ok == 20
          && first_ok, "stream %u: 140 records, 40 begins, 40 ends, cargo"
          " of every round, first at %u ns", s, 1000 + s * 100);
    }

  logfmt_msg_iter_t *mi = NULL;
  logfmt_message_t m;
  int n = 0, good = 0;
  logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi);
  while (mi && logfmt_msg_iter_next (mi, &m) == 1)
    {
      n++;
      uint64_t t = m.send_time - 310 - (uint64_t) m.send_rank * 100;
      int i = (int) (t / 1000) - 1;
      good += m.send_stream != LOGFMT_NO_STREAM
              && m.recv_stream != LOGFMT_NO_STREAM && m.tag == i
              && m.size == 8u * (unsigned) (i + 1)
              && m.recv_time == 1000 + (uint64_t) i * 1000
                                + (uint64_t) m.recv_rank * 100 + 700;
    }
  logfmt_msg_iter_free (mi);
  ok (n == 40 && good == 40, "40 matched messages, tags, sizes and times"
      " (%d of %d)", good, n);

  float occ[2];
  uint32_t cnt;
  ASSERT_OK (logfmt_reader_summary (r, 0, in->t_first, in->t_last + 1, 1,
                                    occ, &cnt, NULL, &err),
             "whole-run summary");
  ASSERT_EQ (cnt, 140, "summary counts every record of stream 0");
  logfmt_reader_close (r);
}

/* Concurrent readers of one open file: every thread iterates both
 * streams, the messages and the summaries many times over and must see
 * the same as one thread alone. */
typedef struct
{
  const logfmt_reader_t *r;
  uint64_t sum;
  int      bad;
} reader_job_t;

static uint64_t
read_all (const logfmt_reader_t *r)
{
  uint64_t sum = 0;
  for (uint32_t st = 0; st < 2; st++)
    {
      logfmt_iter_t *it = NULL;
      logfmt_event_t e;
      if (logfmt_iter_new (r, st, 0, UINT64_MAX, &it) != 0)
        return 0;
      while (logfmt_iter_next (it, &e) == 1)
        sum += e.time * (uint64_t) (e.kind + 1);
      logfmt_iter_free (it);
    }
  logfmt_msg_iter_t *mi = NULL;
  logfmt_message_t m;
  if (logfmt_msg_iter_new (r, 0, UINT64_MAX, &mi) == 0)
    while (logfmt_msg_iter_next (mi, &m) == 1)
      sum += m.recv_time - m.send_time;
  logfmt_msg_iter_free (mi);
  float occ[64 * 2];
  uint32_t cnt[64];
  const logfmt_info_t *in = logfmt_reader_info (r);
  if (logfmt_reader_summary (r, 1, in->t_first, in->t_last + 1, 64, occ, cnt,
                             NULL, NULL) == 0)
    for (int i = 0; i < 64; i++)
      sum += cnt[i] + (uint64_t) (occ[2 * i] * 1000);
  return sum;
}

static void *
reader_thread (void *arg)
{
  reader_job_t *j = arg;
  for (int k = 0; k < 200; k++)
    if (read_all (j->r) != j->sum)
      j->bad++;
  return NULL;
}

static void
check_threads (const char *path)
{
  logfmt_reader_t *r = NULL;
  if (logfmt_reader_open (path, 0, &r, NULL) != 0)
    {
      ok (0, "golden file opens for the thread test");
      return;
    }
  uint64_t want = read_all (r);
  /* A summary's decompression context is kept by the reader and lent
   * to the next call, not made anew each time. */
  ZSTD_DCtx *kept = r->dctx_pool[0];
  uint64_t again = read_all (r);
  ok (kept != NULL && r->dctx_pool[0] == kept && again == want,
      "a summary's decompression context is kept for the next call");
  /* More threads than the reader keeps contexts: some calls make their
   * own. */
  enum { NTH = 6 };
  reader_job_t jobs[NTH];
  pthread_t th[NTH];
  int started = 0, bad = 0;
  for (int i = 0; i < NTH; i++)
    {
      jobs[i] = (reader_job_t) { r, want, 0 };
      if (pthread_create (&th[i], NULL, reader_thread, &jobs[i]) == 0)
        started++;
    }
  for (int i = 0; i < started; i++)
    {
      pthread_join (th[i], NULL);
      bad += jobs[i].bad;
    }
  ok (started == NTH && bad == 0 && want != 0,
      "6 threads x 200 passes over one reader: all as one thread saw"
      " (%d differed)", bad);
  logfmt_reader_close (r);
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--write") == 0)
    return write_golden (argv[2]) ? 1 : 0;
  const char *src = getenv ("top_srcdir");
  char golden[4096];
  for (int minor = 0; minor <= GOLDEN_MINOR; minor++)
    {
      snprintf (golden, sizeof golden, "%s/tests/logfmt/golden/v1.%d.clog",
                src ? src : ".", minor);
      check_contents (golden, minor);
      check_threads (golden);
      /* Format 1.0 has codec 1 blocks, 1.1 codec 2: 18 of <= 16 records. */
      int n = blocks_with_codec (golden, minor == 0 ? 1 : 2);
      ok (n == 18, "v1.%d: its 18 blocks all have codec %d (%d)", minor,
          minor == 0 ? 1 : 2, n);
    }

  /* Today's writer, same content: the same bytes. */
  char path[] = "/tmp/logfmt-golden-XXXXXX";
  int fd = mkstemp (path);
  if (fd < 0)
    return 1;
  close (fd);
  ASSERT_OK (write_golden (path), "write the content again");
  FILE *a = fopen (golden, "rb"), *b = fopen (path, "rb");
  long off = -1, pos = 0;
  int ca = 0, cb = 0;
  while (a && b)
    {
      ca = getc (a);
      cb = getc (b);
      if (ca != cb)
        {
          off = pos;
          break;
        }
      if (ca == EOF)
        break;
      pos++;
    }
  ok (a && b && off < 0, "today's writer gives the golden bytes (first"
      " difference at %ld)", off);
  if (a)
    fclose (a);
  if (b)
    fclose (b);
  unlink (path);
  return exit_status ();
}
