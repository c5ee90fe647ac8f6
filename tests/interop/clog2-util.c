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

static int
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

static int
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
  {
    uint8_t r[24] = { 0 };
    put_hdr (r, 1e8, 0, 0, 0);
    memcpy (g.blk + g.pos, r, 24);      /* always fits (24 kept free) */
    flush_block (&g);
  }
  /* Comm table: world, then one self per rank. */
  uint8_t n[4];
  be32 (n, ranks + 1);
  fwrite (n, 1, 4, g.f);
  for (int i = 0; i <= ranks; i++)
    {
      uint8_t e[40] = { 0 };
      be32 (e + 32, i);
      be32 (e + 36, 1);
      fwrite (e, 1, 40, g.f);
    }
  uint64_t ct = 1024 + g.nblocks * bs;
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
  snprintf (v[0], 32, "%zu", bs);
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
  if (fseek (g.f, 0, SEEK_SET) || fwrite (pre, 1, 1024, g.f) != 1024
      || fclose (g.f))
    {
      perror (out);
      return 2;
    }
  free (g.blk);
  return 0;
}

#ifndef CLOG2_UTIL_NO_MAIN
int
main (int argc, char **argv)
{
  if (argc >= 4 && strcmp (argv[1], "swap") == 0)
    return do_swap (argv[2], argv[3],
                    argc > 4 && strcmp (argv[4], "--local") == 0);
  if (argc >= 5 && strcmp (argv[1], "gen") == 0)
    return do_gen (argv[2], atoi (argv[3]), atol (argv[4]),
                   argc > 5 ? (size_t) atol (argv[5]) : 65536,
                   argc > 6 ? atoi (argv[6]) : 1);
  fprintf (stderr, "usage: clog2-util swap IN OUT [--local]\n"
                   "       clog2-util gen OUT RANKS ITERS [BLOCK_SIZE [THREADS]]\n");
  return 2;
}
#endif
