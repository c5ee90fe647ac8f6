/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helper for MPE2 CLOG2 files (CLOG-02.44):
 *
 *   clog2-util swap IN OUT [--local]
 *       rewrites a big-endian merged file in little-endian byte order,
 *       field by field; --local also marks it unfinalized and leaves the
 *       message records' comm unpatched (-999999999), as MPE2's per-process
 *       temp files are.
 *   clog2-util gen OUT RANKS ITERS [BLOCK_SIZE [THREADS]]
 *       writes a synthetic merged big-endian file: per rank and iteration a
 *       "Compute" state (600/601, info cargo), a send to the next rank and
 *       a receive from the previous one inside MPI_Send (320/321) and
 *       MPI_Recv (308/309) states, and every 10th iteration a "Tick" solo
 *       event (5000).  Expected counts: RANKS*ITERS of each state and
 *       message end, RANKS*ceil(ITERS/10) ticks.  With THREADS > 1,
 *       iteration i is logged by thread i % THREADS.
 *   clog2-util check FILE
 *       checks a merged big-endian file as strictly as MPE-COMPAT 5 says
 *       (do_check) and prints its records per type; exit 1 on a fault.
 *   clog2-util gen-comm OUT
 *       writes 4 ranks' messages on a dup, split communicators and two
 *       intercommunicators, recorded as MPE2 records them (do_gen_comm
 *       lists every message).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *
slurp (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    {
      perror (path);
      exit (2);
    }
  fseek (f, 0, SEEK_END);
  long n = ftell (f);
  fseek (f, 0, SEEK_SET);
  uint8_t *d = malloc ((size_t) n + 1);
  if (!d || fread (d, 1, (size_t) n, f) != (size_t) n)
    {
      perror (path);
      exit (2);
    }
  fclose (f);
  *len = (size_t) n;
  return d;
}

static void
spit (const char *path, const uint8_t *d, size_t len)
{
  FILE *f = fopen (path, "wb");
  if (!f || fwrite (d, 1, len, f) != len || fclose (f))
    {
      perror (path);
      exit (2);
    }
}

static int32_t
rd32 (const uint8_t *p)
{
  return (int32_t) ((uint32_t) p[0] << 24 | (uint32_t) p[1] << 16
                    | (uint32_t) p[2] << 8 | p[3]);
}

static void
rev (uint8_t *p, int n)
{
  for (int i = 0; i < n / 2; i++)
    {
      uint8_t t = p[i];
      p[i] = p[n - 1 - i];
      p[n - 1 - i] = t;
    }
}

/* Replaces the value token following `key` in the preamble (same length). */
static void
set_token (uint8_t *d, const char *key, const char *val)
{
  size_t kl = strlen (key) + 1;
  for (size_t i = 0; i + kl < 1024; i++)
    if (memcmp (d + i, key, kl) == 0)
      {
        memcpy (d + i + kl, val, strlen (val));
        return;
      }
  fprintf (stderr, "preamble token %s not found\n", key);
  exit (2);
}

static long long
get_token (const uint8_t *d, const char *key, int skip)
{
  size_t kl = strlen (key) + 1;
  for (size_t i = 0; i + kl < 1024; i++)
    if (memcmp (d + i, key, kl) == 0)
      {
        const char *p = (const char *) d + i + kl;
        while (skip--)
          p += strlen (p) + 1;
        return atoll (p);
      }
  fprintf (stderr, "preamble token %s not found\n", key);
  exit (2);
}

static const int rec_size[12] = { 24, 24, 136, 128, 64, 32, 64, 48, 40, 72,
                                   72, 32 };

/* (unused by some of the tests that include this file) */
static int __attribute__ ((unused))
do_swap (const char *in, const char *out, int local)
{
  size_t len;
  uint8_t *d = slurp (in, &len);
  long long bs = get_token (d, "block_size=", 0);
  long long ct = get_token (d, "commtable_fptr=", 0)
                 * get_token (d, "commtable_fptr=", 1)
                 + get_token (d, "commtable_fptr=", 2);
  set_token (d, "is_big_endian=", "FALSE");
  if (local)
    set_token (d, "is_finalzed=", "FALSE");
  for (long long base = 1024; base < ct; base += bs)
    {
      long long pos = 0;
      for (;;)
        {
          uint8_t *h = d + base + pos, *b = h + 24;
          int type = rd32 (h + 20);
          if (type < 0 || type > 11)
            {
              fprintf (stderr, "bad record type %d at %lld\n", type,
                       base + pos);
              return 2;
            }
          if (type == 7 && local)
            memcpy (b + 4, "\xc4\x65\x36\x01", 4);   /* -999999999 BE */
          static const int ints[12][6] = {
            { 0 }, { 0 }, { 3, 0, 4, 8 }, { 1, 0 }, { 2, 0, 4 }, { 1, 0 },
            { 1, 0 }, { 5, 0, 4, 8, 12, 16 }, { 3, 0, 4, 8 },
            { 4, 0, 4, 8, 12 }, { 2, 0, 4 }, { 0 }
          };
          rev (h, 8);
          for (int i = 0; i < 4; i++)
            rev (h + 8 + 4 * i, 4);
          for (int i = 1; i <= ints[type][0]; i++)
            rev (b + ints[type][i], 4);
          if (type == 9)        /* UUID: int32 + f64 */
            rev (b + 16, 4), rev (b + 20, 8);
          if (type == 11)
            rev (b, 8);
          if (type == 0)
            goto next_block_done;
          pos += rec_size[type];
          if (type == 1)
            break;
        }
    }
next_block_done:;
  int32_t n = rd32 (d + ct);
  rev (d + ct, 4);
  for (int32_t i = 0; i < n; i++)
    {
      uint8_t *e = d + ct + 4 + 40 * i;
      rev (e, 4);
      rev (e + 4, 8);
      rev (e + 32, 4);
      rev (e + 36, 4);
    }
  spit (out, d, len);
  free (d);
  return 0;
}

/* --------------------------------------------------------------- */

typedef struct
{
  FILE    *f;
  uint8_t *blk;
  size_t   bs, pos;
  uint64_t nblocks;
} gen_t;

static void
be32 (uint8_t *p, int32_t v)
{
  uint32_t u = (uint32_t) v;
  p[0] = (uint8_t) (u >> 24);
  p[1] = (uint8_t) (u >> 16);
  p[2] = (uint8_t) (u >> 8);
  p[3] = (uint8_t) u;
}

static void
bef64 (uint8_t *p, double v)
{
  uint64_t u;
  memcpy (&u, &v, 8);
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t) (u >> (56 - 8 * i));
}

static int cur_thread;         /* thread field of the records made */
static int gen_backstep;       /* rank 0 iteration 1 ends before it starts */

static void
put_hdr (uint8_t *p, double t, int icomm, int rank, int type)
{
  bef64 (p, t);
  be32 (p + 8, icomm);
  be32 (p + 12, rank);
  be32 (p + 16, type <= 1 ? 0 : cur_thread);
  be32 (p + 20, type);
}

static void
flush_block (gen_t *g)
{
  if (fwrite (g->blk, 1, g->bs, g->f) != g->bs)
    {
      perror ("write");
      exit (2);
    }
  memset (g->blk, 0, g->bs);
  g->pos = 0;
  g->nblocks++;
}

/* Appends a record (header already filled in rec). */
static void
put_rec (gen_t *g, const uint8_t *rec, int type, double t)
{
  size_t n = (size_t) rec_size[type];
  if (g->pos + n + 24 > g->bs)
    {
      put_hdr (g->blk + g->pos, t, 0, 0, 1);
      flush_block (g);
    }
  memcpy (g->blk + g->pos, rec, n);
  g->pos += n;
}

static void
ev (gen_t *g, double t, int rank, int id, const uint8_t *cargo)
{
  uint8_t r[64] = { 0 };
  put_hdr (r, t, 0, rank, cargo ? 6 : 5);
  be32 (r + 24, id);
  if (cargo)
    memcpy (r + 32, cargo, 32);
  put_rec (g, r, cargo ? 6 : 5, t);
}

static void
msg (gen_t *g, double t, int rank, int send, int partner, int tag, int size)
{
  uint8_t r[48] = { 0 };
  put_hdr (r, t, 0, rank, 7);
  be32 (r + 24, send ? -101 : -102);
  be32 (r + 28, 0);
  be32 (r + 32, partner);
  be32 (r + 36, tag);
  be32 (r + 40, size);
  put_rec (g, r, 7, t);
}

static void
statedef (gen_t *g, int id, int s, int e, const char *name,
          const char *color, const char *fmt)
{
  uint8_t r[136] = { 0 };
  put_hdr (r, 0, 0, 0, 2);
  be32 (r + 24, id);
  be32 (r + 28, s);
  be32 (r + 32, e);
  strncpy ((char *) r + 40, color, 23);
  strncpy ((char *) r + 64, name, 31);
  strncpy ((char *) r + 96, fmt, 39);
  put_rec (g, r, 2, 0);
}

/* Ends the last block, appends the comm table (entry i has local_ID i,
 * kind kinds[i] and a UUID of its own) and writes the preamble. */
static int
gen_finish (gen_t *g, const char *out, int ranks, int threads,
            const int32_t *kinds, int nentries)
{
  {
    uint8_t r[24] = { 0 };
    put_hdr (r, 1e8, 0, 0, 0);
    memcpy (g->blk + g->pos, r, 24);      /* always fits (24 kept free) */
    flush_block (g);
  }
  uint8_t n[4];
  be32 (n, nentries);
  fwrite (n, 1, 4, g->f);
  for (int i = 0; i < nentries; i++)
    {
      uint8_t e[40] = { 0 };
      be32 (e, 1000 + i);                       /* UUID: "random" int */
      bef64 (e + 4, (double) i);                /* creation time */
      snprintf ((char *) e + 12, 20, "node0");
      be32 (e + 32, i);
      be32 (e + 36, kinds[i]);
      fwrite (e, 1, 40, g->f);
    }
  uint64_t ct = 1024 + g->nblocks * g->bs;
  uint8_t pre[1024] = { 0 };
  int len = 0;
  const char *tok[] = { "CLOG-02.44", "is_big_endian=", "TRUE ",
                        "is_finalzed=", "TRUE ", "block_size=", NULL,
                        "num_buffered_blocks=", "128",
                        "max_comm_world_size=", NULL, "max_thread_count=",
                        "1", "known_eventID_start=", "0",
                        "user_eventID_start=", "600",
                        "known_solo_eventID_start=", "-10",
                        "user_solo_eventID_start=", "5000",
                        "known_stateID_count=", "300", "user_stateID_count=",
                        "1", "known_solo_eventID_count=", "0",
                        "user_solo_eventID_count=", "1", "commtable_fptr=",
                        NULL, NULL, NULL };
  char v[6][32];
  snprintf (v[0], 32, "%zu", g->bs);
  snprintf (v[1], 32, "%d", ranks);
  snprintf (v[2], 32, "%llu", (unsigned long long) (ct / 1073741824u));
  snprintf (v[3], 32, "%d", 1073741824);
  snprintf (v[4], 32, "%llu", (unsigned long long) (ct % 1073741824u));
  snprintf (v[5], 32, "%d", threads);
  tok[12] = v[5];
  tok[6] = v[0];
  tok[10] = v[1];
  tok[30] = v[2];
  tok[31] = v[3];
  tok[32] = v[4];
  for (size_t i = 0; i < sizeof tok / sizeof tok[0]; i++)
    {
      size_t l = strlen (tok[i]) + 1;
      memcpy (pre + len, tok[i], l);
      len += (int) l;
    }
  if (fseek (g->f, 0, SEEK_SET) || fwrite (pre, 1, 1024, g->f) != 1024
      || fclose (g->f))
    {
      perror (out);
      return 2;
    }
  return 0;
}

/* (unused by some of the tests that include this file) */
static int __attribute__ ((unused))
do_gen (const char *out, int ranks, long iters, size_t bs, int threads)
{
  gen_t g = { 0 };
  g.bs = bs;
  g.blk = calloc (1, bs);
  g.f = fopen (out, "wb");
  if (!g.f || !g.blk)
    {
      perror (out);
      return 2;
    }
  uint8_t pre[1024] = { 0 };
  fwrite (pre, 1, sizeof pre, g.f);     /* rewritten at the end */

  for (int r = 0; r < ranks; r++)
    {
      uint8_t c[72] = { 0 };
      for (int k = 0; k < 2; k++)
        {
          put_hdr (c, 0, k ? 1 + r : 0, k ? 0 : r, 9);
          be32 (c + 24, k);             /* WORLD_CREATE, SELF_CREATE */
          be32 (c + 28, k ? 1 + r : 0);
          be32 (c + 32, k ? 0 : r);
          be32 (c + 36, r);
          snprintf ((char *) c + 24 + 16 + 12, 20, "node%d", r);
          put_rec (&g, c, 9, 0);
        }
    }
  statedef (&g, 300, 600, 601, "Compute", "blue", "iter %d");
  statedef (&g, 160, 320, 321, "MPI_Send", "green", "");
  statedef (&g, 154, 308, 309, "MPI_Recv", "red", "");
  {
    uint8_t r[128] = { 0 };
    put_hdr (r, 0, 0, 0, 3);
    be32 (r + 24, 5000);
    strcpy ((char *) r + 32, "white");
    strcpy ((char *) r + 56, "Tick");
    put_rec (&g, r, 3, 0);
  }
  for (long i = 0; i < iters; i++)
    for (int r = 0; r < ranks; r++)
      {
        double t = 1e-3 + (double) i * 1e-4 + (double) r * 1e-6;
        uint8_t cargo[32] = { 0 };
        cur_thread = (int) (i % threads);
        be32 (cargo, (int32_t) i);
        ev (&g, t, r, 600, NULL);
        ev (&g, gen_backstep && i == 1 && r == 0 ? t - 5e-7 : t + 1e-5, r,
            601, cargo);
        ev (&g, t + 2e-5, r, 320, NULL);
        msg (&g, t + 2.1e-5, r, 1, (r + 1) % ranks, (int) (i & 1023), 64);
        ev (&g, t + 2.2e-5, r, 321, NULL);
        ev (&g, t + 6e-5, r, 308, NULL);
        msg (&g, t + 6.1e-5, r, 0, (r + ranks - 1) % ranks,
             (int) (i & 1023), 64);
        ev (&g, t + 6.2e-5, r, 309, NULL);
        if (i % 10 == 0)
          ev (&g, t + 7e-5, r, 5000, NULL);
      }
  cur_thread = 0;
  /* Comm table: world, then one self per rank. */
  int32_t *kinds = malloc ((size_t) (ranks + 1) * sizeof *kinds);
  for (int i = 0; kinds && i <= ranks; i++)
    kinds[i] = 1;
  if (!kinds || gen_finish (&g, out, ranks, threads, kinds, ranks + 1))
    return 2;
  free (kinds);
  free (g.blk);
  return 0;
}

/* --------------------------------------------------------------- */
/* Communicators the way MPE2 logs them (MPE-COMPAT 5.5-5.6)        */
/* --------------------------------------------------------------- */

/* Table ids of gen-comm's merged table.  Selves are 1..4. */
enum
{
  GC_WORLD = 0, GC_DUP = 5, GC_EVEN = 6, GC_ODD = 7,
  GC_IC1 = 8, GC_IC1_EVEN = 9, GC_IC1_ODD = 10, GC_IC1_ODD_SIDE = 11,
  GC_IC2 = 12, GC_IC2_EVEN = 13, GC_IC2_ODD = 14, GC_IC2_ODD_SIDE = 15,
  GC_NCOMMS = 16
};

/* COMMEVT on the parent comm (hc, hr): new comm nc, rank there, world. */
static void
commevt (gen_t *g, int hc, int hr, int etype, int nc, int rank, int wrank)
{
  uint8_t c[72] = { 0 };
  put_hdr (c, 0, hc, hr, 9);
  be32 (c + 24, etype);
  be32 (c + 28, nc);
  be32 (c + 32, rank);
  be32 (c + 36, wrank);
  snprintf ((char *) c + 24 + 16 + 12, 20, "node%d", wrank);
  put_rec (g, c, 9, 0);
}

/* MSGEVT logged by rank hr of comm hc; the partner is rank pr of pc: on
 * an intracomm both are the same comm, on an intercomm each side names
 * its own group (hc) and the other group (pc). */
static void
msgevt (gen_t *g, double t, int hc, int hr, int send, int pc, int pr,
        int tag)
{
  uint8_t r[48] = { 0 };
  put_hdr (r, t, hc, hr, 7);
  be32 (r + 24, send ? -101 : -102);
  be32 (r + 28, pc);
  be32 (r + 32, pr);
  be32 (r + 36, tag);
  be32 (r + 40, 100 + tag);
  put_rec (g, r, 7, t);
}

/* 4 ranks: MPI_COMM_WORLD, a dup of it, a split into even {0,2} and odd
 * {1,3} ranks, an intercomm between the two halves (made from the split
 * comms) and a dup of that intercomm.  Rank 0's table knows the even
 * side's entries (inter 8, local 9, remote 10); the odd side's own inter
 * entry (11) was learned at the merge (kind -1), its local group is 10
 * and its remote group 9, as the UUIDs tie them.  Messages, times in us
 * after 1 ms (the log starts 1 us earlier):
 *   dup       w3 -> w0 tag 7     0 -> 5
 *   even      w0 -> w2 tag 1    10 -> 15
 *   odd       w1 -> w3 tag 1    10 -> 15
 *   ic1       w0 -> w1 tag 5    20 -> 25,   w2 -> w3 tag 5   20 -> 25
 *   ic1       w1 -> w0 tag 5    30 -> 35,   w3 -> w2 tag 5   30 -> 35
 *   ic1, ic2  w0 -> w1 tag 9: ic1 sent at 40, ic2 at 41; w1 receives
 *             ic2 at 45 and ic1 at 46 (only the comm tells them apart)
 * Message sizes are 100 + tag; 9 messages, none unmatched. */
/* (unused by some of the tests that include this file) */
static int __attribute__ ((unused))
do_gen_comm (const char *out)
{
  gen_t g = { 0 };
  g.bs = 1024;                        /* several blocks */
  g.blk = calloc (1, g.bs);
  g.f = fopen (out, "wb");
  if (!g.f || !g.blk)
    {
      perror (out);
      return 2;
    }
  uint8_t pre[1024] = { 0 };
  fwrite (pre, 1, sizeof pre, g.f);     /* rewritten at the end */

  for (int r = 0; r < 4; r++)
    {
      int half = r & 1, hr = r / 2;
      int split = half ? GC_ODD : GC_EVEN;
      int ic1 = half ? GC_IC1_ODD_SIDE : GC_IC1;
      int l1 = half ? GC_IC1_ODD : GC_IC1_EVEN;
      int r1 = half ? GC_IC1_EVEN : GC_IC1_ODD;
      int ic2 = half ? GC_IC2_ODD_SIDE : GC_IC2;
      int l2 = half ? GC_IC2_ODD : GC_IC2_EVEN;
      int r2 = half ? GC_IC2_EVEN : GC_IC2_ODD;
      commevt (&g, GC_WORLD, r, 0, GC_WORLD, r, r);
      commevt (&g, 1 + r, 0, 1, 1 + r, 0, r);
      commevt (&g, GC_WORLD, r, 100, GC_DUP, r, r);
      commevt (&g, GC_WORLD, r, 100, split, hr, r);
      /* MPI_Intercomm_create on the split comm, then its dup on it. */
      commevt (&g, split, hr, 1000, ic1, hr, r);
      commevt (&g, split, hr, 101, l1, hr, r);
      commevt (&g, split, hr, 102, r1, hr, r);
      commevt (&g, l1, hr, 1000, ic2, hr, r);
      commevt (&g, l1, hr, 101, l2, hr, r);
      commevt (&g, l1, hr, 102, r2, hr, r);
    }
  statedef (&g, 300, 600, 601, "Compute", "blue", "");
  const double t0 = 1e-3, us = 1e-6;
  for (int r = 0; r < 4; r++)
    ev (&g, t0 - 1 * us, r, 600, NULL);   /* everyone's origin */
  /* In time order, as a merged file is. */
  msgevt (&g, t0, GC_DUP, 3, 1, GC_DUP, 0, 7);
  msgevt (&g, t0 + 5 * us, GC_DUP, 0, 0, GC_DUP, 3, 7);
  msgevt (&g, t0 + 10 * us, GC_EVEN, 0, 1, GC_EVEN, 1, 1);
  msgevt (&g, t0 + 10 * us, GC_ODD, 0, 1, GC_ODD, 1, 1);
  msgevt (&g, t0 + 15 * us, GC_EVEN, 1, 0, GC_EVEN, 0, 1);
  msgevt (&g, t0 + 15 * us, GC_ODD, 1, 0, GC_ODD, 0, 1);
  for (int i = 0; i < 2; i++)
    msgevt (&g, t0 + 20 * us, GC_IC1_EVEN, i, 1, GC_IC1_ODD, i, 5);
  for (int i = 0; i < 2; i++)
    msgevt (&g, t0 + 25 * us, GC_IC1_ODD, i, 0, GC_IC1_EVEN, i, 5);
  for (int i = 0; i < 2; i++)
    msgevt (&g, t0 + 30 * us, GC_IC1_ODD, i, 1, GC_IC1_EVEN, i, 5);
  for (int i = 0; i < 2; i++)
    msgevt (&g, t0 + 35 * us, GC_IC1_EVEN, i, 0, GC_IC1_ODD, i, 5);
  msgevt (&g, t0 + 40 * us, GC_IC1_EVEN, 0, 1, GC_IC1_ODD, 0, 9);
  msgevt (&g, t0 + 41 * us, GC_IC2_EVEN, 0, 1, GC_IC2_ODD, 0, 9);
  msgevt (&g, t0 + 45 * us, GC_IC2_ODD, 0, 0, GC_IC2_EVEN, 0, 9);
  msgevt (&g, t0 + 46 * us, GC_IC1_ODD, 0, 0, GC_IC1_EVEN, 0, 9);
  for (int r = 0; r < 4; r++)
    ev (&g, t0 + 50 * us, r, 601, NULL);

  int32_t kinds[GC_NCOMMS] = {
    1, 1, -1, -1, -1, 1, 1, -1, 0, 2, 3, -1, 0, 2, 3, -1
  };
  int rc = gen_finish (&g, out, 4, 1, kinds, GC_NCOMMS);
  free (g.blk);
  return rc;
}

/* --------------------------------------------------------------- */
/* Strict layout check of a merged big-endian file (MPE-COMPAT 5)   */
/* --------------------------------------------------------------- */

static const char *const check_keys[] = {
  "is_big_endian=", "is_finalzed=", "block_size=", "num_buffered_blocks=",
  "max_comm_world_size=", "max_thread_count=", "known_eventID_start=",
  "user_eventID_start=", "known_solo_eventID_start=",
  "user_solo_eventID_start=", "known_stateID_count=", "user_stateID_count=",
  "known_solo_eventID_count=", "user_solo_eventID_count=", "commtable_fptr="
};

static double
rdf64 (const uint8_t *p)
{
  uint64_t u = 0;
  for (int i = 0; i < 8; i++)
    u = u << 8 | p[i];
  double d;
  memcpy (&d, &u, 8);
  return d;
}

#define CHECK(cond, ...)                                                \
  do {                                                                  \
    if (!(cond))                                                        \
      {                                                                 \
        fprintf (stderr, "clog2-util check: " __VA_ARGS__);             \
        fputc ('\n', stderr);                                           \
        free (d);                                                       \
        return 1;                                                       \
      }                                                                 \
  } while (0)

/* Checks everything MPE2's readers rely on, as strictly as the format
 * says: the preamble's tokens in MPE2's order with their exact values'
 * spelling, whole blocks each closed by ENDBLOCK (the last by ENDLOG),
 * record types MPE2 writes, headers naming comms, ranks and threads that
 * exist, times in merged order, a comm table of local_ID == index that
 * ends the file.  totals[type] receives the records per type. */
/* (unused by some of the tests that include this file) */
static int __attribute__ ((unused))
do_check (const char *path, long totals[12])
{
  size_t len;
  uint8_t *d = slurp (path, &len);
  memset (totals, 0, 12 * sizeof *totals);
  CHECK (len >= 1024, "shorter than the preamble");
  const char *tok[40];
  int ntok = 0;
  for (size_t i = 0; i < 1024 && ntok < 40;)
    {
      if (!d[i])
        break;
      tok[ntok++] = (const char *) d + i;
      i += strlen ((const char *) d + i) + 1;
    }
  CHECK (ntok == 33, "%d preamble tokens, MPE2 writes 33", ntok);
  CHECK (strcmp (tok[0], "CLOG-02.44") == 0, "version %s", tok[0]);
  for (int k = 0; k < 15; k++)
    CHECK (strcmp (tok[1 + 2 * k], check_keys[k]) == 0,
           "token %d is \"%s\", want \"%s\"", 1 + 2 * k, tok[1 + 2 * k],
           check_keys[k]);
  CHECK (strcmp (tok[2], "TRUE ") == 0 && strcmp (tok[4], "TRUE ") == 0,
         "not a merged big-endian file (\"%s\", \"%s\")", tok[2], tok[4]);
  long long bs = atoll (tok[6]), world = atoll (tok[10]);
  long long threads = atoll (tok[12]);
  CHECK (bs >= 64 && bs % 8 == 0, "block_size %lld", bs);
  CHECK (atoll (tok[31]) == 1073741824, "commtable_fptr unit %s", tok[31]);
  long long ct = atoll (tok[30]) * 1073741824ll + atoll (tok[32]);
  CHECK (ct >= 1024 && (ct - 1024) % bs == 0 && (size_t) ct + 4 <= len,
         "comm table offset %lld", ct);
  int32_t ncomms = rd32 (d + ct);
  CHECK (ncomms >= 2 && (size_t) ct + 4 + 40 * (size_t) ncomms == len,
         "comm table of %d entries does not end the file", ncomms);
  for (int32_t i = 0; i < ncomms; i++)
    {
      const uint8_t *e = d + ct + 4 + 40 * i;
      CHECK (rd32 (e + 32) == i, "comm table entry %d has local_ID %d", i,
             rd32 (e + 32));
      CHECK (rd32 (e + 36) >= -1 && rd32 (e + 36) <= 3, "entry %d kind %d",
             i, rd32 (e + 36));
    }
  double last = -1e300;
  long long nblocks = (ct - 1024) / bs;
  for (long long k = 0; k < nblocks; k++)
    {
      const uint8_t *b = d + 1024 + k * bs;
      for (long long pos = 0;;)
        {
          CHECK (pos + 24 <= bs, "block %lld not closed", k);
          const uint8_t *h = b + pos;
          int type = rd32 (h + 20);
          CHECK (type >= 0 && type <= 11 && type != 8 && type != 10,
                 "block %lld offset %lld: record type %d", k, pos, type);
          CHECK (pos + rec_size[type] <= bs, "record past its block");
          totals[type]++;
          double t = rdf64 (h);
          int32_t icomm = rd32 (h + 8), rank = rd32 (h + 12);
          int32_t thread = rd32 (h + 16);
          if (type == 0)
            {
              CHECK (k == nblocks - 1, "ENDLOG in block %lld of %lld", k,
                     nblocks);
              CHECK (t == 1e8 && icomm == 0 && rank == 0,
                     "ENDLOG header %g %d %d", t, icomm, rank);
              break;
            }
          if (type == 1)
            {
              CHECK (k < nblocks - 1, "the last block ends with ENDBLOCK");
              CHECK (icomm == 0 && rank == 0 && thread == 0,
                     "ENDBLOCK header %d %d %d", icomm, rank, thread);
              break;
            }
          CHECK (t >= last, "block %lld offset %lld: time %.9f before %.9f",
                 k, pos, t, last);
          last = t;
          CHECK (icomm >= 0 && icomm < ncomms && rank >= 0 && rank < world
                 && thread >= 0 && thread < threads,
                 "block %lld offset %lld: header comm %d rank %d thread %d",
                 k, pos, icomm, rank, thread);
          const uint8_t *body = h + 24;
          if (type == 7)
            CHECK ((rd32 (body) == -101 || rd32 (body) == -102)
                   && rd32 (body + 4) >= 0 && rd32 (body + 4) < ncomms
                   && rd32 (body + 8) >= 0 && rd32 (body + 8) < world,
                   "block %lld offset %lld: bad MSGEVT", k, pos);
          if (type == 9)
            CHECK (rd32 (body + 4) >= 0 && rd32 (body + 4) < ncomms
                   && rd32 (body + 12) >= 0 && rd32 (body + 12) < world,
                   "block %lld offset %lld: bad COMMEVT", k, pos);
          if (type == 2 || type == 3)
            {
              /* Strings are NUL-terminated inside their fields. */
              const uint8_t *s = body + (type == 2 ? 16 : 8);
              CHECK (memchr (s, 0, 24) && memchr (s + 24, 0, 32)
                     && memchr (s + 56, 0, 40),
                     "block %lld offset %lld: unterminated string", k, pos);
            }
          pos += rec_size[type];
        }
    }
  CHECK (totals[0] == 1, "no ENDLOG");
  free (d);
  return 0;
}

#ifndef CLOG2_UTIL_NO_MAIN
static int
print_check (const char *path)
{
  long n[12];
  if (do_check (path, n))
    return 1;
  printf ("blocks %ld statedef %ld eventdef %ld constdef %ld bare %ld "
          "cargo %ld msg %ld comm %ld timeshift %ld\n", n[1] + 1, n[2], n[3],
          n[4], n[5], n[6], n[7], n[9], n[11]);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc >= 4 && strcmp (argv[1], "swap") == 0)
    return do_swap (argv[2], argv[3],
                    argc > 4 && strcmp (argv[4], "--local") == 0);
  if (argc == 3 && strcmp (argv[1], "check") == 0)
    return print_check (argv[2]);
  if (argc == 3 && strcmp (argv[1], "gen-comm") == 0)
    return do_gen_comm (argv[2]);
  if (argc >= 5 && strcmp (argv[1], "gen") == 0)
    return do_gen (argv[2], atoi (argv[3]), atol (argv[4]),
                   argc > 5 ? (size_t) atol (argv[5]) : 65536,
                   argc > 6 ? atoi (argv[6]) : 1);
  fprintf (stderr, "usage: clog2-util swap IN OUT [--local]\n"
                   "       clog2-util gen OUT RANKS ITERS "
                   "[BLOCK_SIZE [THREADS]]\n"
                   "       clog2-util gen-comm OUT\n"
                   "       clog2-util check FILE\n");
  return 2;
}
#endif
