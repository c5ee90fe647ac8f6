/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libspillfmt: PACKED payloads decode to what the records say (and to
 * what the in-memory decoder says), the clock correction is exact and
 * agrees with a 128-bit reference, the checksum is the format's, and the
 * readers skip damage in spill and ring files built here byte by byte.
 */
#include "tests/common/tap.h"

#include "spillfmt.h"

/* ---- records ---- */

static mpe_spill_rec_t many[1000];

static mpe_spill_rec_t recs[64];
static size_t nrecs;

static void
put (unsigned kind, uint64_t t, int32_t id, const void *ext, unsigned slots)
{
  recs[nrecs].t = t;
  recs[nrecs].id = id;
  recs[nrecs].aux = kind | 0x100u;
  if (slots)
    memcpy (&recs[nrecs + 1], ext, slots * sizeof (mpe_spill_rec_t));
  nrecs += 1 + slots;
}

static int
same_events (const logfmt_event_t *a, const logfmt_event_t *b, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (a[i].type != b[i].type || a[i].time != b[i].time
        || a[i].id != b[i].id || a[i].partner != b[i].partner
        || a[i].tag != b[i].tag || a[i].comm != b[i].comm
        || a[i].size != b[i].size || a[i].flags != b[i].flags
        || ((a[i].flags & LOGFMT_EVF_CARGO)
            && memcmp (a[i].cargo, b[i].cargo, sizeof a[i].cargo) != 0))
      return 0;
  return 1;
}

/* many[i] becomes a LOSS record of `lost` events (its extension slot is
 * many[i + 1]). */
static void
make_loss (size_t i, uint64_t lost)
{
  uint64_t ext[2] = { lost, 0 };
  many[i].aux = MPE_REC_LOSS | 0x100u;
  memcpy (&many[i + 1], ext, 16);
}

static logfmt_event_t mem[1000], pk[1000];

/* many[0, n) packed into one payload and read back agrees with the
 * in-memory decoding (mem[], *nm events); *len gets the payload's
 * length. */
static int
pack_agrees (size_t n, uint64_t tick0, uint64_t mult, size_t *nm,
             size_t *len)
{
  const mpe_spill_rec_t *p = many;
  *nm = mpe_spill_recs_decode (&p, many + n, tick0, mult, mem, 1000);
  unsigned char buf[8192];
  const mpe_spill_rec_t *from = many;
  *len = mpe_spill_pack (&from, many + n, buf, sizeof buf);
  mpe_spill_unpack_t u;
  mpe_spill_unpack_init (&u, buf, *len);
  size_t np = mpe_spill_unpack (&u, tick0, mult, pk, 1000);
  return from == many + n && np == *nm && u.left == 0
         && same_events (mem, pk, *nm);
}

/* Runs of BARE records with small deltas pack one byte each when the ids
 * alternate (each the id two records back, tick delta < 256), else two
 * (narrow: tick delta < 256, id delta in [-128, 127]); every boundary,
 * runs longer than one kind byte counts, other kinds in between, and
 * reading in batches of 3 (a run's state carried between calls). */
static void
narrow_case (uint64_t tick0, uint64_t mult, int alternate, double max_bytes)
{
  static const int64_t dts[] = { 1, 255, 256, 0, 17, 255, 1000000, 3 };
  static const int32_t dids[] = { 1, -1, 127, -128, 128, -129, 0, 5 };
  size_t n = 0;
  uint64_t t = 1000;
  int32_t id = 600;
  for (int i = 0; n < 990; i++)
    {
      /* Long narrow stretches, then each boundary case in turn. */
      int edge = i % 50 == 49;
      t += edge ? (uint64_t) dts[(i / 50) % 8] : (uint64_t) (i % 3) * 40;
      id += edge ? dids[(i / 50 + 3) % 8]
                 : alternate ? (i & 1 ? 1 : -1) : 1;
      many[n].t = t;
      many[n].id = id;
      many[n].aux = MPE_REC_BARE | 0x100u;
      if (i % 333 == 332)
        {
          /* A LOSS record (two slots) in the middle of a run. */
          make_loss (n, 9);
          n++;
        }
      n++;
    }
  const mpe_spill_rec_t *p = many;
  size_t nm = mpe_spill_recs_decode (&p, many + n, tick0, mult, mem, 1000);
  unsigned char buf[8192];
  const mpe_spill_rec_t *from = many;
  size_t len = mpe_spill_pack (&from, many + n, buf, sizeof buf);
  const char *what = alternate ? "alternating" : "narrow";
  ok (from == many + n && len < 12 + nm * max_bytes,
      "%s runs: %zu events in %zu bytes (at most %.1f each)", what, nm, len,
      max_bytes);
  mpe_spill_unpack_t u;
  mpe_spill_unpack_init (&u, buf, len);
  size_t np = 0, got;
  while ((got = mpe_spill_unpack (&u, tick0, mult, pk + np, 3)) > 0)
    np += got;
  ok (np == nm && u.left == 0 && same_events (mem, pk, nm),
      "%s runs read in batches of 3 agree with the records (%zu of %zu)",
      what, np, nm);
  /* Small payloads: runs end where a payload must. */
  from = many;
  np = 0;
  int payloads = 0, agree = 1;
  while (from < many + n)
    {
      len = mpe_spill_pack (&from, many + n, buf, 256);
      if (len == 0)
        break;
      payloads++;
      mpe_spill_unpack_init (&u, buf, len);
      while ((got = mpe_spill_unpack (&u, tick0, mult, pk + np, 1000)) > 0)
        np += got;
      agree &= u.left == 0;
    }
  ok (agree && np == nm && same_events (mem, pk, nm),
      "%s: in %d payloads of at most 256 bytes too", what, payloads);
  /* A run cut short: the records before the cut. */
  from = many;
  len = mpe_spill_pack (&from, many + 20, buf, sizeof buf);
  mpe_spill_unpack_init (&u, buf, len - 1);
  np = mpe_spill_unpack (&u, tick0, mult, pk, 1000);
  ok (np == 19 && u.left == 1 && same_events (mem, pk, 19),
      "%s: a cut run: 19 events, 1 unread (%zu, %u)", what, np, u.left);
}

/* Alternating runs break at exactly the record that breaks them, wherever
 * it falls in the four or eight records the packer tests at once, and in
 * the runs of a stretch longer than one kind byte counts: a tick delta of
 * 256 (255 still fits), the id of the wrong state, a record of another
 * kind; another round's tag (aux bits 8-31) does not break a run. */
static void
test_alt_edges (uint64_t tick0, uint64_t mult)
{
  enum { LEN = 140 };
  int all_agree = 1, tight = 1;
  size_t whole = 0;   /* the payload's length with nothing broken */
  for (int what = -1; what < 5; what++)
    for (int at = 0; at < (what < 0 ? 1 : LEN - 2); at++)
      {
        size_t n = 0;
        uint64_t t = 5000;
        for (int i = 0; i < LEN; i++)
          {
            uint64_t prev = t;
            t += (uint64_t) (i * 37 % 200);
            many[n].t = t;
            many[n].id = 600 + (i & 1);
            many[n].aux = MPE_REC_BARE | 0x100u;
            if (i == at && what >= 0)
              switch (what)
                {
                case 0: many[n].t = t = prev + 256; break;
                case 1: many[n].t = t = prev + 255; break;
                case 2: many[n].id = 602; break;
                case 3: many[n].aux = MPE_REC_BARE | 0x200u; break;
                default:
                  make_loss (n, 3);
                  n++;
                }
            n++;
          }
        size_t nm, len;
        int agree = pack_agrees (n, tick0, mult, &nm, &len);
        if (!agree)
          diag ("case %d at record %d: %zu events disagree", what, at, nm);
        all_agree &= agree;
        /* Nothing broken: as long as the unbroken payload. */
        if (what < 0)
          whole = len;
        /* In the long run (from record 17), a delta of 256 is an
         * exception: its index and a varint byte. */
        size_t want = whole + (what == 0 ? 3 : 0);
        if ((what == 0 && at >= 17) || what == 1 || what == 3)
          if (len != want)
            {
              diag ("case %d at record %d: %zu bytes", what, at, len);
              tight = 0;
            }
      }
  ok (all_agree, "alternating runs broken at every position agree");
  ok (tight, "a delta of 255, of 256 (three bytes more) and another tag "
      "leave a run whole");
  /* Unbroken: the first record on its own (4 bytes: no id two back
   * yet), a narrow run of 16 (33), then the rest alternating, a byte a
   * record after one long run's kind byte and counts. */
  ok (whole == 12 + 4 + 33 + 4 + (LEN - 17),
      "an unbroken stretch of %d: %zu bytes", LEN, whole);
}

/* Alternating stretches longer than one long run's count: cut into runs
 * of at most 65535, whatever their deltas, read back in batches that end
 * anywhere in them; a payload cut inside a long run's count reads the
 * records before it. */
static void
test_alt_long (uint64_t tick0, uint64_t mult)
{
  enum { N = 150000 };
  mpe_spill_rec_t *r = malloc (N * sizeof *r);
  unsigned char *buf = malloc (2 * N);
  logfmt_event_t *ev = malloc (997 * sizeof *ev);
  if (!r || !buf || !ev)
    {
      ok (0, "memory for %d records", N);
      return;
    }
  /* Deltas of 0-255 and, here and there, ones a preemption makes,
   * huge ones and a tick that goes back: exceptions, each its index and
   * a varint of the delta >> 8 more. */
  uint64_t t = 1u << 20;
  size_t extra = 0;
  for (size_t i = 0; i < N; i++)
    {
      uint64_t d = i * 7919 % 256;
      if (i % 1000 == 999)
        d = 300 + i;
      else if (i == 5000)
        d = (uint64_t) 1 << 40;
      else if (i == 7001)
        d = (uint64_t) -5;
      t += d;
      r[i].t = t;
      r[i].id = 600 + (int32_t) (i & 1);
      r[i].aux = MPE_REC_BARE | 0x100u;
      if (i >= 17 && d >= 256)
        {
          extra += 2;
          for (uint64_t v = d >> 8; ; v >>= 7)
            {
              extra++;
              if (v < 0x80)
                break;
            }
        }
    }
  const mpe_spill_rec_t *from = r;
  size_t len = mpe_spill_pack (&from, r + N, buf, 2 * N);
  /* As test_alt_edges: 4 + 33 bytes, then the rest in runs of 65528. */
  size_t rest = N - 17, runs = (rest + 65527) / 65528;
  ok (from == r + N && len == 12 + 4 + 33 + 4 * runs + rest + extra,
      "%d alternating records: %zu bytes, %zu runs, %zu of exceptions",
      N, len, runs, extra);
  mpe_spill_unpack_t u;
  mpe_spill_unpack_init (&u, buf, len);
  size_t i = 0, got;
  int agree = 1;
  while ((got = mpe_spill_unpack (&u, tick0, mult, ev, 997)) > 0)
    for (size_t j = 0; j < got && i < N; j++, i++)
      agree &= ev[j].id == r[i].id
               && ev[j].time == mpe_spill_tick_ns (r[i].t, tick0, mult);
  ok (agree && i == N && u.left == 0,
      "read back in batches of 997: %zu of %d agree", i, N);
  mpe_spill_unpack_init (&u, buf, 12 + 4 + 33 + 2);
  size_t np = mpe_spill_unpack (&u, tick0, mult, ev, 997);
  ok (np == 17 && u.left == N - 17,
      "cut in a long run's count: 17 events, the rest unread (%zu, %u)", np,
      u.left);
  /* Cut inside the last record's exception (1000 >> 8: one varint
   * byte, after its index). */
  t = 5000;
  for (size_t j = 0; j < 120; j++)
    {
      r[j].t = t += j == 119 ? 1000 : 30;
      r[j].id = 600 + (int32_t) (j & 1);
      r[j].aux = MPE_REC_BARE | 0x100u;
    }
  from = r;
  len = mpe_spill_pack (&from, r + 120, buf, 2 * N);
  mpe_spill_unpack_init (&u, buf, len - 1);
  np = mpe_spill_unpack (&u, tick0, mult, ev, 997);
  ok (np == 119 && u.left == 1 && ev[118].time
                                  == mpe_spill_tick_ns (r[118].t, tick0, mult),
      "cut in an exception: 119 events, 1 unread (%zu, %u)", np, u.left);
  mpe_spill_unpack_init (&u, buf, len);
  np = mpe_spill_unpack (&u, tick0, mult, ev, 997);
  ok (np == 120 && ev[119].time == mpe_spill_tick_ns (r[119].t, tick0, mult),
      "and whole, all 120 (%zu)", np);
  /* Damage anywhere (every byte, a few values): never a read past the
   * payload (the sanitizer lanes) nor more records than it counts. */
  int sane = 1;
  for (size_t at = 0; at < len; at++)
    for (int v = 0; v < 4; v++)
      {
        static const unsigned char vals[] = { 0x00, 0xff, 0x80, 0x7f };
        unsigned char keep = buf[at];
        buf[at] = vals[v];
        mpe_spill_unpack_init (&u, buf, len);
        size_t got2 = 0, m;
        while ((m = mpe_spill_unpack (&u, tick0, mult, ev, 997)) > 0)
          got2 += m;
        sane &= got2 <= 120;
        buf[at] = keep;
      }
  ok (sane, "a damaged long run reads at most its count");
  /* More exceptions than a run holds (255): the next run goes on. */
  t = 5000;
  for (size_t j = 0; j < 2000; j++)
    {
      r[j].t = t += j % 2 ? 300 : 20;
      r[j].id = 600 + (int32_t) (j & 1);
      r[j].aux = MPE_REC_BARE | 0x100u;
    }
  from = r;
  len = mpe_spill_pack (&from, r + 2000, buf, 2 * N);
  mpe_spill_unpack_init (&u, buf, len);
  i = 0;
  agree = 1;
  while ((got = mpe_spill_unpack (&u, tick0, mult, ev, 997)) > 0)
    for (size_t j = 0; j < got && i < 2000; j++, i++)
      agree &= ev[j].id == r[i].id
               && ev[j].time == mpe_spill_tick_ns (r[i].t, tick0, mult);
  ok (from == r + 2000 && agree && i == 2000 && len < 12 + 2000 + 1000 * 3
                                                    + 20 * 4 + 40,
      "1000 exceptions in 2000 records: %zu agree, %zu bytes", i, len);
  free (ev);
  free (buf);
  free (r);
}

/* An alternating run whose ticks' low 32 bits wrap between any two of
 * its records, and whose first record's do after the tick before it:
 * the deltas are 64-bit wherever the packer takes them. */
static void
test_alt_wrap (uint64_t tick0, uint64_t mult)
{
  enum { LEN = 44 };
  int all_agree = 1, one_byte = 1;
  for (int at = 0; at < LEN; at++)
    {
      uint64_t t = ((uint64_t) 1 << 32) + 50 - 100 * (uint64_t) at;
      for (int i = 0; i < LEN; i++, t += 100)
        {
          many[i].t = t;
          many[i].id = 600 + (i & 1);
          many[i].aux = MPE_REC_BARE | 0x100u;
        }
      size_t nm, len;
      int agree = pack_agrees (LEN, tick0, mult, &nm, &len);
      if (!agree)
        diag ("wrap before record %d: %zu events disagree", at, nm);
      all_agree &= agree;
      one_byte &= len < 12 + 8 + 2 * LEN;   /* one run, not varints */
    }
  ok (all_agree, "alternating runs across a 2^32 tick boundary agree");
  ok (one_byte, "and pack a byte a record");
}

/* The merge's first pass (mpe_spill_unpack_msgs) sees in buf[0, len)
 * the messages the full decoding sees, ends at the same record (u.t)
 * with as many unread. */
static int
msgs_agree (const unsigned char *buf, size_t len, uint64_t tick0,
            uint64_t mult, size_t *nmsg)
{
  static logfmt_event_t full[2048], part[2048];
  mpe_spill_unpack_t a, b;
  if (mpe_spill_unpack_init (&a, buf, len) != 0)
    return mpe_spill_unpack_init (&b, buf, len) != 0;
  mpe_spill_unpack_init (&b, buf, len);
  size_t nf = 0, np = 0, got;
  logfmt_event_t ev[7];
  while ((got = mpe_spill_unpack (&a, tick0, mult, ev, 7)) > 0)
    for (size_t i = 0; i < got; i++)
      if ((ev[i].type == LOGFMT_REC_SEND || ev[i].type == LOGFMT_REC_RECV)
          && nf < 2048)
        full[nf++] = ev[i];
  /* Batches of 3: a batch full of messages stops between records. */
  while (np + 3 <= 2048
         && (got = mpe_spill_unpack_msgs (&b, tick0, mult, part + np, 3)) > 0)
    np += got;
  *nmsg = np;
  return nf == np && same_events (full, part, nf) && a.t == b.t
         && a.left == b.left;
}

/* Messages among runs of every kind (alternating, narrow, long with
 * exceptions) and the other kinds, whole, cut at every length and
 * damaged at every byte: the first pass and the full decoding agree. */
static void
test_unpack_msgs (uint64_t tick0, uint64_t mult)
{
  size_t n = 0;
  uint64_t t = 1000;
  for (int i = 0; n < 990; i++)
    {
      int phase = i / 150 % 4;  /* 0, 2: long runs; 1: narrow */
      t += phase == 2 && i % 7 == 3 ? 300 + (uint64_t) i : (uint64_t) (i % 5) * 20;
      many[n].t = t;
      many[n].id = phase == 1 ? 600 + i % 3 : 600 + (i & 1);
      many[n].aux = MPE_REC_BARE | 0x100u;
      if (phase == 3 && (i % 37 == 36 || i % 41 == 40))
        {
          mpe_spill_msg_t m = { i - 50, (uint32_t) i % 3, (uint64_t) i << 9 };
          many[n].aux = (i % 37 == 36 ? MPE_REC_SEND : MPE_REC_RECV) | 0x100u;
          many[n].id = i % 4;
          memcpy (&many[n + 1], &m, sizeof m);
          n++;
        }
      else if (i % 97 == 96)
        {
          make_loss (n, 3);
          n++;
        }
      n++;
    }
  unsigned char buf[4096];
  const mpe_spill_rec_t *from = many;
  size_t len = mpe_spill_pack (&from, many + n, buf, sizeof buf), nmsg = 0;
  int whole = from == many + n && msgs_agree (buf, len, tick0, mult, &nmsg);
  ok (whole && nmsg >= 8,
      "first pass: the %zu messages of %zu bytes, as the full decoding", nmsg,
      len);
  int cut = 1, damaged = 1;
  for (size_t l = 0; l < len; l++)
    cut &= msgs_agree (buf, l, tick0, mult, &nmsg);
  ok (cut, "and cut at every length");
  for (size_t at = 12; at < len; at++)
    for (int v = 0; v < 4; v++)
      {
        static const unsigned char vals[] = { 0x00, 0xff, 0x80, 0x41 };
        unsigned char keep = buf[at];
        buf[at] = vals[v];
        damaged &= msgs_agree (buf, len, tick0, mult, &nmsg);
        buf[at] = keep;
      }
  ok (damaged, "and damaged at every byte");
}

static void
test_narrow_runs (uint64_t tick0, uint64_t mult)
{
  narrow_case (tick0, mult, 1, 1.5);   /* a state entered and left */
  narrow_case (tick0, mult, 0, 2.3);   /* ids that only go up */
}

static void
test_codec (void)
{
  unsigned char cargo[32];
  for (int i = 0; i < 32; i++)
    cargo[i] = (unsigned char) (i * 7);
  mpe_spill_msg_t m = { -5, 7, 1u << 20 }, m2 = { 123456, 0, 0 };
  uint64_t lost[2] = { 42, 0 };
  put (MPE_REC_BARE, 1000, 600, NULL, 0);
  put (MPE_REC_CARGO, 1003, 700, cargo, 2);
  put (MPE_REC_SEND, 1010, 3, &m, 1);
  put (MPE_REC_RECV, 1010, 1, &m2, 1);
  put (MPE_REC_LOSS, 5000, 0, lost, 1);
  mpe_spill_metric_t ms = { 7, -123456789012345 };
  put (MPE_REC_METRIC, 5001, 0x300001, &ms, 1);
  put (MPE_REC_BARE, 5000, -2147483647 - 1, NULL, 0);
  put (MPE_REC_BARE, (uint64_t) 1 << 62, 2147483647, NULL, 0);

  /* 2 ns per tick: mult_fp = 2 << 32; tick0 = 500. */
  const uint64_t tick0 = 500, mult = (uint64_t) 2 << 32;
  logfmt_event_t mem[16], pk[16];
  const mpe_spill_rec_t *p = recs;
  size_t nm = mpe_spill_recs_decode (&p, recs + nrecs, tick0, mult, mem, 16);
  ASSERT_EQ (nm, 8, "in-memory records decode to 8 events");
  ok (p == recs + nrecs, "and consume every slot");
  ok (mem[0].type == LOGFMT_REC_EVENT && mem[0].id == 600
      && mem[0].time == 1000, "bare event: id, time (2 ns per tick)");
  ok (mem[1].flags == LOGFMT_EVF_CARGO
      && memcmp (mem[1].cargo, cargo, 32) == 0, "cargo bytes");
  ok (mem[2].type == LOGFMT_REC_SEND && mem[2].partner == 3
      && mem[2].tag == -5 && mem[2].comm == 7 && mem[2].size == 1u << 20,
      "send: partner, tag, comm, size");
  ok (mem[4].type == LOGFMT_REC_LOSS && mem[4].size == 42, "loss count");
  ok (mem[5].type == MPE_SPILL_EV_METRIC && mem[5].id == 0x300001
      && mem[5].partner == 7 && (int64_t) mem[5].size == -123456789012345,
      "metric sample: id, object, value");
  logfmt_track_rec_t tr;
  mpe_spill_ev_metric_rec (&mem[5], &tr);
  ok (tr.time == mem[5].time && tr.col[0] == 0x300001 && tr.col[1] == 7
      && tr.col[2] == -123456789012345, "as a metric track record");
  ok (mem[6].id == INT32_MIN && mem[7].id == INT32_MAX, "extreme ids");

  unsigned char buf[1024];
  const mpe_spill_rec_t *from = recs;
  size_t len = mpe_spill_pack (&from, recs + nrecs, buf, sizeof buf);
  ok (len > 12 && from == recs + nrecs, "pack: one payload of %zu bytes",
      len);
  mpe_spill_unpack_t u;
  ASSERT_EQ (mpe_spill_unpack_init (&u, buf, len), 0, "unpack_init");
  size_t np = mpe_spill_unpack (&u, tick0, mult, pk, 16);
  ASSERT_EQ (np, 8, "packed payload: 8 events");
  ok (u.left == 0, "nothing left unread");
  ok (same_events (mem, pk, 8), "packed and in-memory decoding agree");

  /* Cut short: the records before the cut, and a count of the rest. */
  ASSERT_EQ (mpe_spill_unpack_init (&u, buf, len - 3), 0, "cut payload");
  np = mpe_spill_unpack (&u, tick0, mult, pk, 16);
  ok (np == 7 && u.left == 1, "cut payload: 7 events, 1 unread (%zu, %u)",
      np, u.left);
  /* A torn extension at the end of a memory range is dropped. */
  p = recs;
  nm = mpe_spill_recs_decode (&p, recs + 2, tick0, mult, mem, 16);
  ok (nm == 1 && p == recs + 2, "torn cargo record dropped");

  /* The checksum is part of the format: a change breaks old files. */
  test_narrow_runs (tick0, mult);
  test_alt_edges (tick0, mult);
  test_alt_wrap (tick0, mult);
  test_alt_long (tick0, mult);
  test_unpack_msgs (tick0, mult);
  /* The same again as a CPU without AVX2 packs. */
  mpe_spill__avx2 = 0;
  narrow_case (tick0, mult, 1, 1.5);
  test_alt_edges (tick0, mult);
  test_alt_wrap (tick0, mult);
  test_alt_long (tick0, mult);
  mpe_spill__avx2 = -1;
  ASSERT_EQ (mpe_spill_sum ("MPE spill", 9), 0x5c03a0e6u, "checksum value");
  ok (mpe_spill_sum (buf, len) != mpe_spill_sum (buf, len - 1),
      "checksum covers the length");
}

/* ---- clock ---- */

/* The reference: the compiler's 128-bit integers where it has them;
 * elsewhere a slow exact product in 16-bit digits would do, but every
 * platform we build on has them (the CI's compilers), so the few targets
 * without simply check the fixed cases below. */
#ifdef __SIZEOF_INT128__
static int64_t
ref_muldiv (int64_t a, int64_t b, int64_t c)
{
  __int128 q = (__int128) a * b / c;
  return (int64_t) (uint64_t) (unsigned __int128) q;
}
#endif

static void
test_clock (void)
{
#ifdef __SIZEOF_INT128__
  int bad = 0;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 200000; i++)
    {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      int64_t a = (int64_t) x >> (x & 31);
      int64_t c = (int64_t) ((x >> 1) >> ((x >> 8) & 62)) | 1;
      int64_t b = (int64_t) ((x * 0x9e3779b97f4a7c15ull) >> 1) % c;
      if (i & 1)
        b = -b;
      if (mpe_spill_muldiv (a, b, c) != ref_muldiv (a, b, c))
        bad++;
    }
  ASSERT_EQ (bad, 0, "muldiv agrees with __int128 on 200000 cases");
#endif
  ASSERT_EQ (mpe_spill_muldiv (INT64_MIN / 2, (int64_t) 1 << 61,
                               (int64_t) 1 << 62),
             INT64_MIN / 4, "muldiv: exact past 64 bits");

  /* Offsets 0 at 0 and +1000 at 1e9; the middle and beyond. */
  int64_t L[3] = { 0, 1000000000, 2000000000 }, O[3] = { 0, 1000, -3000 };
  mpe_spill_clock_t c = { 7, L, O, 3, 0 };
  ASSERT_EQ (mpe_spill_clock_correct (&c, 500000000), 7 + 500000000 + 500,
             "interpolated in the middle");
  ASSERT_EQ (mpe_spill_clock_correct (&c, 1), 7 + 1 + 0,
             "truncated toward zero (0.000001 ns)");
  ASSERT_EQ (mpe_spill_clock_correct (&c, 1500000001), 7 + 1500000001 - 1000,
             "second segment, truncated toward zero");
  ASSERT_EQ (mpe_spill_clock_correct (&c, 3000000000u), 7 + 3000000000 - 3000,
             "after the last point: its offset");
  /* A long run with a large drift: the product exceeds 63 bits. */
  int64_t L2[2] = { 0, (int64_t) 4 << 40 }, O2[2] = { 0, (int64_t) 3 << 30 };
  mpe_spill_clock_t c2 = { 0, L2, O2, 2, 0 };
  uint64_t t = ((uint64_t) 3 << 40) + 12345;
  ASSERT_EQ (mpe_spill_clock_correct (&c2, t),
             (int64_t) t + 2415919113,  /* (3 << 30) * t / (4 << 40) */
             "wide product: exact");
  mpe_spill_clock_t none = { 5, NULL, NULL, 0, 0 };
  ASSERT_EQ (mpe_spill_clock_correct (&none, 10), 15, "no sync point");
}

/* ---- readers ---- */

static size_t
frame (unsigned char *f, size_t at, int type, int thread, const void *p,
       size_t len)
{
  mpe_spill_frame_t h = { MPE_SPILL_FRAME_MAGIC, (uint16_t) type,
                          (uint16_t) thread, (uint32_t) len,
                          mpe_spill_sum (p, len) };
  memcpy (f + at, &h, sizeof h);
  if (len)
    memcpy (f + at + sizeof h, p, len);
  memset (f + at + sizeof h + len, 0, mpe_spill_pad8 (len) - len);
  return at + sizeof h + mpe_spill_pad8 (len);
}

static void
test_readers (void)
{
  static unsigned char f[8192];
  memcpy (f, MPE_SPILL_MAGIC, 8);
  uint32_t v = MPE_SPILL_VERSION, hs = MPE_SPILL_HEADER_SIZE;
  memcpy (f + 8, &v, 4);
  memcpy (f + 12, &hs, 4);
  size_t at = 16;
  const char meta[] = "rank 3\nsize 4\npid 99\nhost node7\ntick0 500\n"
                      "mult_fp 8589934592\nmono0 -12\nreal0 77\nring none\n";
  at = frame (f, at, MPE_SPILL_META, 0, meta, sizeof meta - 1);
  const char st[] = "600 601\tWork\tred\tx=%d";
  at = frame (f, at, MPE_SPILL_STATE, 0, st, sizeof st - 1);
  size_t damaged = at;
  at = frame (f, at, MPE_SPILL_EVENT, 0, "9\tTick\tblue\t", 12);
  f[damaged + 20] ^= 1;  /* the event definition is damaged */
  int64_t sync[2] = { 100, -20 };
  at = frame (f, at, MPE_SPILL_SYNC, 0, sync, sizeof sync);
  unsigned char pk[1024];
  const mpe_spill_rec_t *from = recs;
  size_t len = mpe_spill_pack (&from, recs + nrecs, pk, sizeof pk);
  at = frame (f, at, MPE_SPILL_PACKED, 1, pk, len);
  at = frame (f, at, MPE_SPILL_RAW, 2, recs, nrecs * sizeof *recs);
  at = frame (f, at, MPE_SPILL_END, 0, NULL, 0);

  mpe_spill_mem_t mem = { f, at };
  mpe_spill_scan_t sc;
  ASSERT_EQ (mpe_spill_scan_init (&sc, mpe_spill_read_mem_cb, &mem, at), 0,
             "spill header");
  mpe_spill_frame_t h;
  uint64_t off;
  int types[16], n = 0;
  mpe_spill_meta_t m;
  memset (&m, 0, sizeof m);
  mpe_spill_def_t d;
  int def_ok = 0, events = 0;
  while (n < 16 && mpe_spill_scan_next (&sc, &h, &off) == 1)
    {
      types[n++] = h.type;
      if (h.type == MPE_SPILL_META)
        mpe_spill_meta_parse (&m, sc.payload, h.len);
      else if (h.type == MPE_SPILL_STATE)
        def_ok = mpe_spill_def_parse (h.type, sc.payload, h.len, &d) == 0
                 && d.state.start_id == 600 && d.state.end_id == 601
                 && !strcmp (d.state.name, "Work")
                 && !strcmp (d.state.format, "x=%d");
      else if (h.type == MPE_SPILL_PACKED || h.type == MPE_SPILL_RAW)
        {
          mpe_spill_events_t it;
          logfmt_error_t err;
          logfmt_event_t ev[16];
          if (mpe_spill_events_init (&it, h.type, sc.payload, h.len, m.tick0,
                                     m.mult_fp, &err) == 0)
            {
              events += (int) mpe_spill_events_next (&it, ev, 16);
              mpe_spill_events_free (&it);
            }
        }
    }
  ok (n == 6 && types[0] == MPE_SPILL_META && types[2] == MPE_SPILL_SYNC
      && types[5] == MPE_SPILL_END, "6 good frames in order (%d)", n);
  ASSERT_EQ (sc.bad, 1, "the damaged frame was skipped");
  ok (m.rank == 3 && m.size == 4 && m.pid == 99 && !strcmp (m.host, "node7")
      && m.tick0 == 500 && m.mult_fp == (uint64_t) 2 << 32 && m.mono0 == -12
      && m.real0 == 77 && m.ring[0] == '\0', "META fields");
  ok (def_ok, "STATE definition");
  ASSERT_EQ (events, 16, "PACKED and RAW frames: 8 events each");
  mpe_spill_scan_free (&sc);

  f[9] = 9;  /* version 2305 */
  ASSERT_EQ (mpe_spill_scan_init (&sc, mpe_spill_read_mem_cb, &mem, at), -2,
             "a newer version is refused");
  mem.len = 10;
  ASSERT_EQ (mpe_spill_scan_init (&sc, mpe_spill_read_mem_cb, &mem, 10), -1,
             "a cut header is not a spill file");
  char text[] = "1 2\tonly two fields";
  ok (mpe_spill_def_parse (MPE_SPILL_STATE, text, sizeof text - 1, &d) != 0,
      "malformed definition refused");
  char comm[16] = { 0 };
  uint32_t big = 1000;
  memcpy (comm + 8, &big, 4);
  ok (mpe_spill_def_parse (MPE_SPILL_COMM, comm, 16, &d) != 0,
      "communicator larger than its frame refused");
  /* METRIC: u32 id, u32 flags, name NUL unit NUL (t[len] is a NUL, as
   * the scanner leaves it). */
  char md[] = "\x07\0\0\0\x02\0\0\0depth\0\x31";
  ok (mpe_spill_def_parse (MPE_SPILL_METRIC, md, sizeof md, &d) == 0
      && d.metric.id == 7 && d.metric.flags == 2
      && !strcmp (d.metric.name, "depth") && !strcmp (d.metric.unit, "1"),
      "METRIC definition: id, flags, name, unit");
  ok (mpe_spill_def_parse (MPE_SPILL_METRIC, md, sizeof md - 1, &d) != 0,
      "METRIC definition without its unit's NUL refused");
  ok (mpe_spill_def_parse (MPE_SPILL_METRIC, md, 12, &d) != 0,
      "METRIC definition cut in its name refused");
  char md0[] = "\x07\0\0\0\0\0\0\0\0ns";
  ok (mpe_spill_def_parse (MPE_SPILL_METRIC, md0, sizeof md0, &d) != 0,
      "METRIC definition without a name refused");
  int64_t l, o;
  int64_t wild[2] = { 1, INT64_MIN };
  ok (mpe_spill_sync_parse (wild, 16, &l, &o) != 0, "wild sync point refused");

  /* A ring: part 1 (slots 8..) holds the older round, part 0 the newer;
   * part 0 ends at a record of another tag. */
  static unsigned char r[MPE_RING_HEADER_SIZE + 16 * 16];
  memset (r, 0, sizeof r);
  mpe_ring_header_t *rh = (mpe_ring_header_t *) (void *) r;
  memcpy (rh->magic, MPE_RING_MAGIC, 8);
  rh->version = MPE_RING_VERSION;
  rh->cap = 16;
  rh->split = 8;
  rh->tag[0] = 0x200;
  rh->tag[1] = 0x100;
  rh->live[0] = rh->live[1] = 1;
  mpe_spill_rec_t *slot = (mpe_spill_rec_t *) (void *) (r
                                                        + MPE_RING_HEADER_SIZE);
  for (int i = 0; i < 3; i++)
    slot[i] = (mpe_spill_rec_t) { 9000 + (uint64_t) i, 1, 0x200 };
  slot[3] = (mpe_spill_rec_t) { 9100, 1, 0x100 };  /* an older round */
  for (int i = 0; i < 8; i++)
    slot[8 + i] = (mpe_spill_rec_t) { 100 + (uint64_t) i, 2, 0x100 };
  mpe_spill_mem_t rm = { r, sizeof r };
  mpe_ring_t ring;
  ASSERT_EQ (mpe_ring_load (&ring, mpe_spill_read_mem_cb, &rm, sizeof r), 0,
             "ring loads");
  ok (ring.len[0] == 8 && ring.part[0][0].t == 100 && ring.len[1] == 3
      && ring.part[1][0].t == 9000, "oldest part first, current round only");
  mpe_ring_free (&ring);
  rh->cap = 17;
  ok (mpe_ring_load (&ring, mpe_spill_read_mem_cb, &rm, sizeof r) == -1,
      "a ring claiming more slots than its file is refused");
}

/* One sealed PACKED frame of n records from t0 at p; its bytes. */
static size_t
put_frame (unsigned char *p, uint64_t t0, int n)
{
  mpe_spill_rec_t recs[64];
  for (int i = 0; i < n; i++)
    recs[i] = (mpe_spill_rec_t) { t0 + (uint64_t) i * 10, 600 + i % 2, 0 };
  const mpe_spill_rec_t *from = recs;
  unsigned char *pay = p + sizeof (mpe_spill_frame_t);
  size_t len = mpe_spill_pack (&from, recs + n, pay, 4000);
  mpe_spill_frame_t h = { MPE_SPILL_FRAME_MAGIC, MPE_SPILL_PACKED, 0,
                          (uint32_t) len, mpe_spill_sum (pay, len) };
  memcpy (p, &h, sizeof h);
  return sizeof h + mpe_spill_pad8 (len);
}

/* Events of the frames in a loaded ring's area k, their first time. */
static uint64_t
area_events (const mpe_ring_t *ring, int k, int64_t *first, uint64_t *bad)
{
  mpe_spill_mem_t mem = { ring->area[k], ring->area_len[k] };
  mpe_spill_scan_t sc;
  mpe_spill_scan_area (&sc, mpe_spill_read_mem_cb, &mem, mem.len);
  mpe_spill_frame_t h;
  uint64_t at, n = 0;
  *first = -1;
  while (mpe_spill_scan_next (&sc, &h, &at) == 1)
    {
      mpe_spill_events_t it;
      logfmt_error_t err;
      logfmt_event_t ev[64];
      if (mpe_spill_events_init (&it, h.type, sc.payload, h.len, 0,
                                 (uint64_t) 1 << 32, &err) != 0)
        continue;
      size_t got;
      while ((got = mpe_spill_events_next (&it, ev, 64)) > 0)
        {
          if (*first < 0)
            *first = ev[0].time;
          n += got;
        }
      mpe_spill_events_free (&it);
    }
  *bad = sc.bad;
  mpe_spill_scan_free (&sc);
  return n;
}

/* Version 2: packed write-behind's frame areas after the slots. */
static void
test_ring_areas (void)
{
  enum { AREA = 4096, OFF = 8192 };
  static unsigned char r[OFF + 2 * AREA];
  memset (r, 0, sizeof r);
  mpe_ring_header_t *rh = (mpe_ring_header_t *) (void *) r;
  memcpy (rh->magic, MPE_RING_MAGIC, 8);
  rh->version = 2;
  rh->cap = 16;
  rh->split = 16;
  rh->tag[0] = 0x300;
  rh->live[0] = 1;
  rh->frames_off = OFF;
  rh->frames_cap = AREA;
  /* Area 1 is the older (spilling when the process died), area 0 the
   * newer; two frames in area 0, one in area 1; then records. */
  size_t l0 = put_frame (r + OFF, 5000, 40);
  l0 += put_frame (r + OFF + l0, 5400, 30);
  size_t l1 = put_frame (r + OFF + AREA, 1000, 50);
  rh->frames_len[0] = l0;
  rh->frames_len[1] = l1;
  rh->frames_gen[0] = 8;
  rh->frames_gen[1] = 7;
  rh->frames_live[0] = rh->frames_live[1] = 1;
  mpe_spill_rec_t *slot = (mpe_spill_rec_t *) (void *) (r
                                                        + MPE_RING_HEADER_SIZE);
  for (int i = 0; i < 5; i++)
    slot[i] = (mpe_spill_rec_t) { 9000 + (uint64_t) i, 1, 0x300 };
  mpe_spill_mem_t rm = { r, sizeof r };
  mpe_ring_t ring;
  int64_t first;
  uint64_t bad;
  ASSERT_EQ (mpe_ring_load (&ring, mpe_spill_read_mem_cb, &rm, sizeof r), 0,
             "ring with frame areas loads");
  ok (ring.area_len[0] == l1 && ring.area_len[1] == l0 && ring.len[0] == 5,
      "older area first, each as long as its header says");
  ok (area_events (&ring, 0, &first, &bad) == 50 && first == 1000,
      "older area: its frame's events");
  ok (area_events (&ring, 1, &first, &bad) == 70 && first == 5000 && !bad,
      "newer area: both frames' events");
  mpe_ring_free (&ring);

  /* An area spilled (not live) is not read; its length is ignored. */
  rh->frames_live[1] = 0;
  rh->frames_len[1] = 999999;
  ASSERT_EQ (mpe_ring_load (&ring, mpe_spill_read_mem_cb, &rm, sizeof r), 0,
             "ring with a spilled area loads");
  ok (ring.area_len[0] == l0 && ring.area_len[1] == 0,
      "a spilled area is left out");
  mpe_ring_free (&ring);

  /* A length beyond the area: only the area is read. */
  rh->frames_live[1] = 1;
  ASSERT_EQ (mpe_ring_load (&ring, mpe_spill_read_mem_cb, &rm, sizeof r), 0,
             "an area's length beyond it: loads");
  ok (ring.area_len[0] == AREA, "an area's length beyond it: the area");
  ok (area_events (&ring, 0, &first, &bad) == 50,
      "an area's length beyond it: its frame, not the zeros after it");
  mpe_ring_free (&ring);
  rh->frames_len[1] = l1;

  /* A damaged frame: skipped, the next one found. */
  r[OFF + sizeof (mpe_spill_frame_t) + 20] ^= 0x55;
  ASSERT_EQ (mpe_ring_load (&ring, mpe_spill_read_mem_cb, &rm, sizeof r), 0,
             "damaged frame: loads");
  ok (area_events (&ring, 1, &first, &bad) == 30 && first == 5400 && bad == 1,
      "damaged frame: skipped, the next one read");
  mpe_ring_free (&ring);

  /* Areas beyond the file, or before the slots: not a usable ring. */
  rh->frames_cap = AREA + 8;
  ok (mpe_ring_load (&ring, mpe_spill_read_mem_cb, &rm, sizeof r) == -1,
      "areas beyond the file refused");
  rh->frames_cap = AREA;
  rh->frames_off = 64;
  ok (mpe_ring_load (&ring, mpe_spill_read_mem_cb, &rm, sizeof r) == -1,
      "areas inside the header refused");
  /* Version 1 has no areas: whatever those bytes hold is ignored. */
  rh->version = 1;
  ASSERT_EQ (mpe_ring_load (&ring, mpe_spill_read_mem_cb, &rm, sizeof r), 0,
             "version 1 ring loads");
  ok (ring.area_len[0] == 0 && ring.area_len[1] == 0 && ring.len[0] == 5,
      "version 1: records only");
  mpe_ring_free (&ring);
  rh->version = 3;
  ok (mpe_ring_load (&ring, mpe_spill_read_mem_cb, &rm, sizeof r) == -1,
      "a newer ring version refused");
}

int
main (void)
{
  test_codec ();
  test_clock ();
  test_readers ();
  test_ring_areas ();
  return exit_status ();
}
