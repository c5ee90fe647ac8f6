/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE
/*
 * Corrupt and truncated MPE2 files, made here from the real samples: every
 * truncation and every targeted damage gives the exact error code and a
 * message naming the file (and the offset where one applies); random bit
 * flips never crash (run under ASan in CI) and explain every failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logfmt/src/logfmt-import-internal.h"
#include "tests/common/tap.h"

static char out_path[256];

static uint8_t *
slurp (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  fseek (f, 0, SEEK_END);
  long n = ftell (f);
  fseek (f, 0, SEEK_SET);
  uint8_t *d = malloc ((size_t) n);
  if (d && fread (d, 1, (size_t) n, f) != (size_t) n)
    {
      free (d);
      d = NULL;
    }
  fclose (f);
  *len = (size_t) n;
  return d;
}

/* Imports data[0..len) (copied, so ASan sees the exact end). */
static int
import (const uint8_t *data, size_t len, int v1, logfmt_error_t *err)
{
  logfmt_writer_opts_t o = { 0 };
  logfmt_writer_t *w = NULL;
  o.size = sizeof o;
  o.match_messages = 1;
  if (logfmt_writer_open (out_path, &o, &w, NULL))
    return 99;
  uint8_t *copy = malloc (len ? len : 1);
  memcpy (copy, data, len);
  int rc = (v1 ? logfmt__import_clog1 : logfmt__import_clog2)
             (copy, len, "sample.clog2", w, NULL, NULL, err);
  free (copy);
  if (rc == 0)
    {
      rc = logfmt_writer_finish (w, NULL) ? 98 : 0;
      unlink (out_path);
    }
  else
    logfmt_writer_abort (w);
  return rc;
}

static int
explained (const logfmt_error_t *e, int rc)
{
  return e->code == rc && strncmp (e->message, "sample.clog2: ", 14) == 0
         && strlen (e->message) > 20;
}

static void
put_be32 (uint8_t *p, uint32_t v)
{
  p[0] = (uint8_t) (v >> 24);
  p[1] = (uint8_t) (v >> 16);
  p[2] = (uint8_t) (v >> 8);
  p[3] = (uint8_t) v;
}

int
main (void)
{
  const char *src = getenv ("top_srcdir");
  char p[4096];
  size_t len, v1len;
  logfmt_error_t err;
  snprintf (out_path, sizeof out_path, "/tmp/interop-corrupt-%ld.clog",
            (long) getpid ());
  snprintf (p, sizeof p, "%s/tests/interop/data/cpilog.clog2",
            src ? src : ".");
  uint8_t *d = slurp (p, &len);
  snprintf (p, sizeof p, "%s/tests/interop/data/fpilog.clog",
            src ? src : ".");
  uint8_t *v1 = slurp (p, &v1len);
  if (!d || !v1)
    {
      ok (0, "samples load");
      return exit_status ();
    }
  ASSERT_EQ (import (d, len, 0, &err), 0, "intact cpilog imports");

  /* Truncations anywhere: short preamble, missing blocks, cut table. */
  int bad = 0, n = 0;
  for (size_t cut = 0; cut < len; cut += cut < 1100 ? 37 : 611)
    {
      int rc = import (d, cut, 0, &err);
      int want = cut < 8 ? LOGFMT_EBADMAGIC : LOGFMT_ETRUNCATED;
      n++;
      if (rc != want || !explained (&err, rc))
        {
          if (bad++ < 5)
            diag ("  cut %zu: rc %d: %s", cut, rc, err.message);
        }
    }
  for (size_t cut = len - 41; cut < len; cut++, n++)
    if (import (d, cut, 0, &err) != LOGFMT_ETRUNCATED
        || !explained (&err, LOGFMT_ETRUNCATED))
      bad++;
  ok (bad == 0, "%d CLOG2 truncations all give ETRUNCATED with a message",
      n);
  import (d, 66000, 0, &err);
  ASSERT_STREQ (err.message, "sample.clog2: offset 66000: file is truncated: "
                "1 blocks and a comm table at offset 66560 expected, but "
                "the file has 66000 bytes", "truncation message is exact");

  bad = n = 0;
  /* The records end with ENDLOG at 18768; cut anywhere before its end. */
  for (size_t cut = 0; cut < 18768 + 24; cut += 397, n++)
    {
      int rc = import (v1, cut, 1, &err);
      if (rc != LOGFMT_ETRUNCATED || !explained (&err, rc))
        {
          if (bad++ < 5)
            diag ("  cut %zu: rc %d: %s", cut, rc, err.message);
        }
    }
  ok (bad == 0, "%d CLOG v1 truncations all give ETRUNCATED", n);

  /* Targeted damage, each with its exact code. */
  uint8_t *c = malloc (len);
  memcpy (c, d, len);
  memcpy (c, "CLOG-02.43", 10);
  ASSERT_EQ (import (c, len, 0, &err), LOGFMT_EVERSION, "older version");
  ok (strstr (err.message, "CLOG-02.43") != NULL, "message names it: %s",
      err.message);

  memcpy (c, d, len);
  put_be32 (c + 1024 + 20, 42);                   /* first record's type */
  ASSERT_EQ (import (c, len, 0, &err), LOGFMT_ECORRUPT, "bad record type");
  ASSERT_STREQ (err.message, "sample.clog2: offset 1024: unknown CLOG2 "
                "record type 42", "message names offset and type");
  ASSERT_EQ (err.offset, 1024, "error offset");

  memcpy (c, d, len);
  put_be32 (c + 66560, 0x7fffffff);               /* comm table count */
  ASSERT_EQ (import (c, len, 0, &err), LOGFMT_ECORRUPT, "huge comm table");

  memcpy (c, d, len);
  memset (c + 1024, 0xff, 8);                     /* NaN time */
  ASSERT_EQ (import (c, len, 0, &err), LOGFMT_ECORRUPT, "NaN timestamp");

  memcpy (c, d, len);
  memset (c + 1024, 0, 65536);                    /* records only, no ENDBLOCK */
  for (size_t i = 0; i < 65536; i += 32)
    put_be32 (c + 1024 + i + 20, 5);              /* bare events only */
  ASSERT_EQ (import (c, len, 0, &err), LOGFMT_ECORRUPT,
             "block without ENDBLOCK");

  memcpy (c, d, len);
  {
    /* A block_size that does not divide the layout. */
    char *bs = memmem (c, 1024, "65536", 5);
    if (bs)
      memcpy (bs, "65544", 5);
    ASSERT_EQ (import (c, len, 0, &err), LOGFMT_ECORRUPT,
               "inconsistent block_size");
  }

  /* Random bit flips: any outcome but a crash; failures explain. */
  uint64_t seed = 0x2545F4914F6CDD1Dull;
  int fails = 0, oks = 0, unexplained = 0;
  for (int i = 0; i < 1500; i++)
    {
      memcpy (c, d, len);
      for (int k = 0; k < 1 + i % 3; k++)
        {
          seed ^= seed << 13;
          seed ^= seed >> 7;
          seed ^= seed << 17;
          /* Mostly the records (where the interesting bytes are). */
          size_t at = i % 5 == 0 ? seed % 1024 : 1024 + seed % 4200;
          c[at] ^= (uint8_t) (1u << (seed >> 40) % 8);
        }
      int rc = import (c, len, 0, &err);
      if (rc == 0)
        oks++;
      else
        {
          fails++;
          if (!explained (&err, rc))
            {
              if (unexplained++ < 3)
                diag ("  unexplained rc %d: %s", rc, err.message);
            }
        }
    }
  diag ("bit flips: %d imported, %d rejected", oks, fails);
  ok (unexplained == 0 && fails > 0 && oks > 0,
      "1500 damaged CLOG2 files: no crash, every rejection explained");

  /* The same through the public reader. */
  snprintf (p, sizeof p, "/tmp/interop-corrupt-%ld.clog2", (long) getpid ());
  FILE *f = fopen (p, "wb");
  fwrite (d, 1, 30000, f);
  fclose (f);
  logfmt_reader_t *r = NULL;
  int rc = logfmt_reader_open (p, 0, &r, &err);
  ok (rc < 0 && r == NULL, "reader refuses a truncated CLOG2 (rc %d)", rc);
  ok (strstr (err.message, "truncated") != NULL,
      "reader's message says truncated: %s", err.message);
  unlink (p);

  free (c);
  free (d);
  free (v1);
  return exit_status ();
}
