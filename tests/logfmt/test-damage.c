/* SPDX-License-Identifier: BSD-3-Clause */
/* Damaged files: truncation at every chunk boundary and at random points,
 * bit flips, a partial file (no trailer) opened tolerantly and repaired,
 * unknown chunk types, and the little-endian load helpers. */
#include "tests/common/tap.h"
#include "logfmt-internal.h"
#include "synth/logfmt-synth.h"

#include <unistd.h>

static uint8_t *
slurp (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  fseek (f, 0, SEEK_END);
  long n = ftell (f);
  fseek (f, 0, SEEK_SET);
  uint8_t *p = malloc ((size_t) n);
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

/* Opens, iterates everything; returns the first error code or 0. */
static int
read_all (const char *path, unsigned flags, uint64_t *nev)
{
  logfmt_reader_t *r;
  logfmt_error_t e = { 0 };
  int rc = logfmt_reader_open (path, flags, &r, &e);
  *nev = 0;
  if (rc)
    return rc;
  const logfmt_info_t *inf = logfmt_reader_info (r);
  for (uint32_t s = 0; s < inf->nstreams && !rc; s++)
    {
      logfmt_iter_t *it;
      logfmt_iter_new (r, s, 0, UINT64_MAX, &it);
      logfmt_event_t ev;
      int k;
      while ((k = logfmt_iter_next (it, &ev)) == 1)
        (*nev)++;
      if (k < 0)
        rc = k;
      logfmt_iter_free (it);
    }
  logfmt_reader_close (r);
  return rc;
}

int
main (void)
{
  char dir[] = "/tmp/logfmt-dmg-XXXXXX";
  if (!mkdtemp (dir))
    return 1;
  char good[512], bad[512], fixed[512];
  snprintf (good, sizeof good, "%s/good.clog", dir);
  snprintf (bad, sizeof bad, "%s/bad.clog", dir);
  snprintf (fixed, sizeof fixed, "%s/fixed.clog", dir);

  /* Little-endian helpers, whatever the host order. */
  const uint8_t le[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
  ASSERT_EQ (ld16 (le), 0x0201, "ld16 little-endian");
  ASSERT_EQ (ld32 (le), 0x04030201, "ld32 little-endian");
  ok (ld64 (le) == 0x0807060504030201ull, "ld64 little-endian");
  uint8_t buf8[8];
  st64 (buf8, 0x0807060504030201ull);
  ok (memcmp (buf8, le, 8) == 0, "st64 writes little-endian");

  logfmt_synth_opts_t o;
  logfmt_synth_opts_init (&o);
  o.events_per_stream = 3000;
  o.block_events = 500;
  logfmt_error_t e = { 0 };
  ASSERT_OK (logfmt_synth_write (good, &o, &e), "synthetic file written");
  uint64_t nev;
  ASSERT_OK (read_all (good, 0, &nev), "good file reads");
  ASSERT_EQ (nev, 6000, "all events");
  ASSERT_OK (logfmt_verify (good, NULL, NULL), "good file verifies");

  size_t len;
  uint8_t *img = slurp (good, &len);
  uint64_t hlen = ld32 (img + 12);

  /* Every chunk boundary: a file cut there has no trailer. */
  int cuts = 0, cut_ok = 0;
  uint64_t off = hlen, index_off = 0;
  while (off + 20 <= len - LOGFMT__TRAILER_SIZE)
    {
      spit (bad, img, (size_t) off);
      int rc = read_all (bad, 0, &nev);
      cuts++;
      cut_ok += rc == LOGFMT_EPARTIAL;
      if (ld32 (img + off) == LOGFMT__CHUNK_INDEX)
        index_off = off;
      off += 20 + ld64 (img + off + 8);
    }
  ASSERT_EQ (cut_ok, cuts, "cut at each chunk boundary -> EPARTIAL");
  spit (bad, img, 5);
  ASSERT_EQ (read_all (bad, 0, &nev), LOGFMT_EBADMAGIC, "5 bytes: bad magic");
  spit (bad, img, 20);
  ASSERT_EQ (read_all (bad, 0, &nev), LOGFMT_ETRUNCATED,
             "20 bytes: truncated header");

  /* Random truncations: always a clean error. */
  srand (7);
  int clean = 0;
  for (int i = 0; i < 200; i++)
    {
      size_t at = (size_t) rand () % len;
      spit (bad, img, at);
      int rc = read_all (bad, 0, &nev);
      clean += rc == LOGFMT_EPARTIAL || rc == LOGFMT_ETRUNCATED
               || rc == LOGFMT_EBADMAGIC;
    }
  ASSERT_EQ (clean, 200, "random truncations fail cleanly");

  /* Bit flips: open/iterate may succeed only if verify still fails. */
  int caught = 0;
  for (int i = 0; i < 300; i++)
    {
      uint8_t *c = malloc (len);
      memcpy (c, img, len);
      size_t at = (size_t) rand () % len;
      c[at] ^= (uint8_t) (1u << (rand () % 8));
      spit (bad, c, len);
      free (c);
      read_all (bad, 0, &nev);
      read_all (bad, LOGFMT_OPEN_TOLERANT, &nev);
      caught += logfmt_verify (bad, NULL, NULL) < 0;
    }
  ASSERT_EQ (caught, 300, "every bit flip is detected by verify");

  /* Partial file: everything before the index (a crashed writer). */
  ok (index_off > 0, "index found");
  spit (bad, img, (size_t) index_off);
  ASSERT_EQ (read_all (bad, 0, &nev), LOGFMT_EPARTIAL, "partial detected");
  ASSERT_OK (read_all (bad, LOGFMT_OPEN_TOLERANT, &nev), "tolerant open");
  ASSERT_EQ (nev, 6000, "tolerant open sees every event");
  uint64_t kept, lost;
  ASSERT_OK (logfmt_repair (bad, fixed, &kept, &lost, &e), "repair");
  ASSERT_EQ (kept, 12, "12 blocks kept");
  ASSERT_EQ (lost, 0, "none lost");
  ASSERT_OK (logfmt_verify (fixed, NULL, NULL), "repaired file verifies");
  ASSERT_OK (read_all (fixed, 0, &nev), "repaired file reads");
  ASSERT_EQ (nev, 6000, "repaired file has every event");
  logfmt_reader_t *r;
  logfmt_reader_open (fixed, 0, &r, &e);
  ASSERT_EQ (logfmt_reader_n_states (r), 10, "repaired file keeps states");
  ASSERT_STREQ (logfmt_reader_state (r, 0)->name, "Compute",
                "state names kept");
  ok (logfmt_reader_info (r)->nmessages > 0, "messages re-matched");
  logfmt_reader_close (r);

  /* An unknown chunk type in the chunk stream is skipped. */
  {
    uint8_t unk[20 + 10];
    memset (unk, 0xab, sizeof unk);
    st32 (unk, 777);
    st32 (unk + 4, 0);
    st64 (unk + 8, 6);
    st32 (unk + 22, logfmt__chunk_crc (unk, unk + 16, 6, 0));
    uint8_t *c = malloc (index_off + 26);
    /* Insert before the first block, after the header. */
    memcpy (c, img, hlen);
    memcpy (c + hlen, unk, 26);
    memcpy (c + hlen + 26, img + hlen, (size_t) (index_off - hlen));
    spit (bad, c, (size_t) index_off + 26);
    free (c);
    ASSERT_OK (read_all (bad, LOGFMT_OPEN_TOLERANT, &nev),
               "unknown chunk skipped");
    ASSERT_EQ (nev, 6000, "events after an unknown chunk");
    ASSERT_OK (logfmt_repair (bad, fixed, &kept, &lost, &e),
               "repair across an unknown chunk");
    ASSERT_EQ (kept, 12, "all blocks kept");
  }

  /* A damaged block in a partial file costs only that block. */
  {
    uint8_t *c = malloc (index_off);
    memcpy (c, img, (size_t) index_off);
    uint64_t b = hlen;
    while (ld32 (c + b) != LOGFMT__CHUNK_BLOCK)
      b += 20 + ld64 (c + b + 8);
    c[b + 16 + 60] ^= 0x10;
    spit (bad, c, (size_t) index_off);
    free (c);
    ASSERT_OK (logfmt_repair (bad, fixed, &kept, &lost, &e),
               "repair with a bad block");
    ASSERT_EQ (kept, 11, "11 blocks kept");
    ASSERT_EQ (lost, 1, "1 block lost");
    ASSERT_OK (read_all (fixed, 0, &nev), "repaired file reads");
    ASSERT_EQ (nev, 5500, "events of the good blocks");
  }
  free (img);
  unlink (good);
  unlink (bad);
  unlink (fixed);
  rmdir (dir);
  return exit_status ();
}
