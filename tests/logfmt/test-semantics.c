/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the format promises beyond a round trip (docs/FORMAT.md): summary
 * occupancy is exact, sends and receives pair FIFO across streams written
 * in any order, unmatched ends are kept, the message window query returns
 * exactly the messages it should, and the version rules hold.
 */
#include "tests/common/tap.h"
#include "logfmt/logfmt.h"
#include "logfmt-internal.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

static logfmt_event_t
ev (uint64_t t, uint32_t type, int32_t id)
{
  logfmt_event_t e;
  memset (&e, 0, sizeof e);
  e.time = t;
  e.type = type;
  e.id = id;
  return e;
}

static logfmt_event_t
msg (uint64_t t, uint32_t type, int32_t partner, int32_t tag, uint64_t size)
{
  logfmt_event_t e = ev (t, type, 0);
  e.partner = partner;
  e.tag = tag;
  e.size = size;
  return e;
}

static logfmt_writer_t *
open_writer (const char *path, uint32_t nstreams)
{
  logfmt_writer_opts_t o = { .size = sizeof o, .match_messages = 1,
                             .creator = "semantics test",
                             .world_size = nstreams };
  logfmt_writer_t *w = NULL;
  logfmt_error_t err = { 0 };
  if (logfmt_writer_open (path, &o, &w, &err) != 0)
    {
      diag ("writer: %s", err.message);
      return NULL;
    }
  logfmt_state_def_t a = { 10, 11, "A", "red", NULL, 0 };
  logfmt_state_def_t b = { 12, 13, "B", "green", NULL, 0 };
  logfmt_writer_add_state (w, &a);
  logfmt_writer_add_state (w, &b);
  for (uint32_t s = 0; s < nstreams; s++)
    {
      logfmt_stream_def_t sd = { (int32_t) s, 0, NULL };
      uint32_t id;
      logfmt_writer_add_stream (w, &sd, &id);
    }
  return w;
}

static int
near (float got, double want)
{
  return fabs ((double) got - want) < 1e-6;
}

/* A from 100 to 350 with B nested from 200 to 300, a solo event at 1000:
 * the finest level has 64 ns bins from the first record (t = 100). */
static void
test_summary (const char *path)
{
  logfmt_writer_t *w = open_writer (path, 1);
  if (!w)
    return;
  logfmt_event_t e[] = { ev (100, LOGFMT_REC_EVENT, 10),
                         ev (200, LOGFMT_REC_EVENT, 12),
                         ev (300, LOGFMT_REC_EVENT, 13),
                         ev (350, LOGFMT_REC_EVENT, 11),
                         ev (1000, LOGFMT_REC_EVENT, -5) };
  logfmt_error_t err = { 0 };
  ASSERT_OK (logfmt_writer_event (w, 0, e, 5), "summary log: events");
  ASSERT_OK (logfmt_writer_finish (w, &err), "summary log: finish");
  logfmt_reader_t *r = NULL;
  if (logfmt_reader_open (path, 0, &r, &err) != 0)
    {
      ok (0, "summary log opens: %s", err.message);
      return;
    }
  /* Output bins aligned with the stored 64 ns bins: exact values.
   * innermost A: [100,200) and [300,350); B: [200,300). */
  float occ[5 * 2];
  uint32_t cnt[5];
  uint64_t level = 0;
  ASSERT_OK (logfmt_reader_summary (r, 0, 100, 100 + 5 * 64, 5, occ, cnt,
                                    &level, &err), "summary, 5 bins of 64 ns");
  ASSERT_EQ (level, 64, "finest stored level: 64 ns bins");
  static const double want[5][2] = {
    { 1.0, 0.0 },               /* [100,164): A */
    { 36 / 64.0, 28 / 64.0 },   /* [164,228): A to 200, then B */
    { 0.0, 1.0 },               /* [228,292): B */
    { 50 / 64.0, 8 / 64.0 },    /* [292,356): B to 300, A to 350 */
    { 0.0, 0.0 },               /* [356,420): nothing open */
  };
  static const uint32_t want_cnt[5] = { 1, 1, 0, 2, 0 };
  int bad = 0;
  for (int i = 0; i < 5; i++)
    for (int s = 0; s < 2; s++)
      if (!near (occ[i * 2 + s], want[i][s]))
        {
          bad++;
          diag ("bin %d state %d: %g, want %g", i, s, occ[i * 2 + s],
                want[i][s]);
        }
  ASSERT_EQ (bad, 0, "occupancy of every bin and state exact");
  bad = 0;
  for (int i = 0; i < 5; i++)
    if (cnt[i] != want_cnt[i])
      {
        bad++;
        diag ("bin %d: %u records, want %u", i, cnt[i], want_cnt[i]);
      }
  ASSERT_EQ (bad, 0, "records per bin exact");

  /* Two 256 ns bins: four source bins summed into the first. */
  float occ2[2 * 2];
  uint32_t cnt2[2];
  ASSERT_OK (logfmt_reader_summary (r, 0, 100, 100 + 512, 2, occ2, cnt2,
                                    NULL, &err), "summary, 2 bins of 256 ns");
  ok (near (occ2[0], 150 / 256.0) && near (occ2[1], 100 / 256.0),
      "256 ns bin: A %g (150/256), B %g (100/256)", occ2[0], occ2[1]);
  ok (cnt2[0] == 4 && cnt2[1] == 0 && near (occ2[2], 0) && near (occ2[3], 0),
      "256 ns bins: 4 records then nothing (%u, %u)", cnt2[0], cnt2[1]);
  logfmt_reader_close (r);
}

/* Collects the window's messages sorted as the reader gives them. */
static int
window (logfmt_reader_t *r, uint64_t t0, uint64_t t1, logfmt_message_t *m,
        int max)
{
  logfmt_msg_iter_t *it = NULL;
  if (logfmt_msg_iter_new (r, t0, t1, &it) != 0)
    return -1;
  int n = 0;
  logfmt_message_t x;
  while (logfmt_msg_iter_next (it, &x) == 1)
    if (n < max)
      m[n++] = x;
  logfmt_msg_iter_free (it);
  return n;
}

static void
test_messages (const char *path)
{
  logfmt_writer_t *w = open_writer (path, 3);
  if (!w)
    return;
  /* Rank 1's receives are written before rank 0's sends.  Three messages
   * 0 -> 1 share (comm 0, tag 5): FIFO pairs them in order; the
   * receives' sizes differ from the sends' to see which is kept. */
  logfmt_event_t r1[] = { msg (250, LOGFMT_REC_RECV, 0, 5, 11),
                          msg (260, LOGFMT_REC_RECV, 0, 5, 21),
                          msg (350, LOGFMT_REC_RECV, 0, 5, 31),
                          msg (500, LOGFMT_REC_RECV, 2, 1, 8) };
  logfmt_event_t r0[] = { msg (100, LOGFMT_REC_SEND, 1, 5, 10),
                          msg (200, LOGFMT_REC_SEND, 1, 5, 20),
                          msg (300, LOGFMT_REC_SEND, 1, 5, 30),
                          msg (400, LOGFMT_REC_SEND, 2, 9, 40) };
  logfmt_event_t r2[] = { ev (600, LOGFMT_REC_EVENT, -5) };
  logfmt_error_t err = { 0 };
  ASSERT_OK (logfmt_writer_event (w, 1, r1, 4), "receives first");
  ASSERT_OK (logfmt_writer_event (w, 2, r2, 1), "rank 2: no traffic logged");
  ASSERT_OK (logfmt_writer_event (w, 0, r0, 4), "then the sends");
  ASSERT_OK (logfmt_writer_finish (w, &err), "message log: finish");
  logfmt_reader_t *r = NULL;
  if (logfmt_reader_open (path, 0, &r, &err) != 0)
    {
      ok (0, "message log opens: %s", err.message);
      return;
    }
  ASSERT_EQ (logfmt_reader_info (r)->nmessages, 5,
             "3 pairs + 1 unmatched send + 1 unmatched receive");

  logfmt_message_t m[8];
  int n = window (r, 0, UINT64_MAX, m, 8);
  ASSERT_EQ (n, 5, "whole run: 5 messages");
  int pairs = 0, fifo = 0;
  for (int i = 0; i < n; i++)
    if (m[i].send_stream == 0 && m[i].recv_stream == 1)
      {
        pairs++;
        uint64_t s = m[i].send_time;
        uint64_t want_recv = s == 100 ? 250 : s == 200 ? 260 : 350;
        if (m[i].recv_time == want_recv && m[i].size == s / 10
            && m[i].tag == 5 && m[i].send_rank == 0 && m[i].recv_rank == 1)
          fifo++;
        else
          diag ("pair %" PRIu64 " -> %" PRIu64 " size %" PRIu64, s,
                m[i].recv_time, m[i].size);
      }
  ASSERT_EQ (pairs, 3, "three matched pairs");
  ASSERT_EQ (fifo, 3, "paired first-in first-out, size from the send");
  int lone_send = 0, lone_recv = 0;
  for (int i = 0; i < n; i++)
    {
      if (m[i].send_stream == 0 && m[i].recv_stream == LOGFMT_NO_STREAM
          && m[i].send_time == 400 && m[i].recv_rank == 2 && m[i].tag == 9
          && m[i].size == 40)
        lone_send++;
      if (m[i].recv_stream == 1 && m[i].send_stream == LOGFMT_NO_STREAM
          && m[i].recv_time == 500 && m[i].send_rank == 2 && m[i].tag == 1)
        lone_recv++;
    }
  ASSERT_EQ (lone_send, 1, "the send to rank 2 is kept, unmatched");
  ASSERT_EQ (lone_recv, 1, "the receive from rank 2 is kept, unmatched");

  n = window (r, 255, 270, m, 8);
  ok (n == 1 && m[0].send_time == 200,
      "window [255,270]: only the message in flight then (%d)", n);
  n = window (r, 240, 310, m, 8);
  ASSERT_EQ (n, 3, "window [240,310]: the three pairs");
  n = window (r, 450, 600, m, 8);
  ok (n == 1 && m[0].recv_time == 500,
      "window [450,600]: the lone receive (%d)", n);
  n = window (r, 601, 700, m, 8);
  ASSERT_EQ (n, 0, "window after all traffic: nothing");
  logfmt_reader_close (r);
}

static int
patch16 (const char *path, long off, uint16_t v)
{
  FILE *f = fopen (path, "r+b");
  if (!f)
    return -1;
  uint8_t b[2] = { (uint8_t) v, (uint8_t) (v >> 8) };
  int rc = fseek (f, off, SEEK_SET) == 0 && fwrite (b, 1, 2, f) == 2 ? 0 : -1;
  fclose (f);
  return rc;
}

/* The header checksum covers the version: recompute it (field at 48 taken
 * as zero) so that only the version rule decides. */
static int
reseal_header (const char *path)
{
  uint8_t h[8192];
  FILE *f = fopen (path, "r+b");
  if (!f)
    return -1;
  size_t got = fread (h, 1, sizeof h, f);
  uint32_t hl = (uint32_t) h[12] | (uint32_t) h[13] << 8
                | (uint32_t) h[14] << 16 | (uint32_t) h[15] << 24;
  if (got < 56 || hl < 56 || hl > got)
    {
      fclose (f);
      return -1;
    }
  memset (h + 48, 0, 4);
  uint32_t crc = logfmt__crc32c (0, h, hl);
  uint8_t c[4] = { (uint8_t) crc, (uint8_t) (crc >> 8), (uint8_t) (crc >> 16),
                   (uint8_t) (crc >> 24) };
  int rc = fseek (f, 48, SEEK_SET) == 0 && fwrite (c, 1, 4, f) == 4 ? 0 : -1;
  fclose (f);
  return rc;
}

static void
test_versions (const char *path)
{
  logfmt_writer_t *w = open_writer (path, 1);
  if (!w)
    return;
  logfmt_event_t e = ev (5, LOGFMT_REC_EVENT, -5);
  logfmt_error_t err = { 0 };
  logfmt_writer_event (w, 0, &e, 1);
  ASSERT_OK (logfmt_writer_finish (w, &err), "version log: finish");

  logfmt_reader_t *r = NULL;
  ASSERT_OK (patch16 (path, 10, 7) || reseal_header (path),
             "minor version set to 7");
  int rc = logfmt_reader_open (path, 0, &r, &err);
  ok (rc == 0 && r && logfmt_reader_info (r)->minor == 7,
      "a newer minor version opens (rc %d %s)", rc, rc ? err.message : "");
  logfmt_reader_close (r);
  r = NULL;

  ASSERT_OK (patch16 (path, 8, 2) || reseal_header (path),
             "major version set to 2");
  rc = logfmt_reader_open (path, 0, &r, &err);
  ASSERT_EQ (rc, LOGFMT_EVERSION, "another major version is refused");
  ok (r == NULL && strstr (err.message, "version 2.7") != NULL,
      "the message names the version: %s", err.message);
}

int
main (void)
{
  char path[] = "/tmp/logfmt-sem-XXXXXX";
  int fd = mkstemp (path);
  if (fd < 0)
    return 1;
  close (fd);
  test_summary (path);
  test_messages (path);
  test_versions (path);
  unlink (path);
  return exit_status ();
}
