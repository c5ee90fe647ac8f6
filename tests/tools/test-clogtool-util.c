/* SPDX-License-Identifier: BSD-3-Clause */
/* clogtool's helpers: exact time parsing with units, JSON escaping. */
#include "config.h"

#include "tests/common/tap.h"
#include "tools/clogtool-internal.h"

static void
time_is (const char *s, uint64_t want)
{
  uint64_t got = 0;
  int rc = clogtool__parse_time (s, &got);
  ok (rc == 0 && got == want, "'%s' -> %" PRIu64 " ns (got %" PRIu64 ")",
      s, want, got);
}

static void
time_bad (const char *s)
{
  uint64_t got = 0;
  ok (clogtool__parse_time (s, &got) < 0, "'%s' rejected", s);
}

static void
json_is (const char *s, const char *want)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  clogtool__json_string (f, s);
  fclose (f);
  ok (strcmp (buf, want) == 0, "json %s (got %s)", want, buf);
  free (buf);
}

int
main (void)
{
  plan (31);
  time_is ("0", 0);
  time_is ("1", 1000000000);
  time_is ("1.5", 1500000000);
  time_is ("1.5s", 1500000000);
  time_is ("0.1", 100000000);
  time_is (".25", 250000000);
  time_is ("20ms", 20000000);
  time_is ("0.5ms", 500000);
  time_is ("300us", 300000);
  time_is ("1.001us", 1001);
  time_is ("100ns", 100);
  time_is ("7.9ns", 7);                    /* below 1 ns: truncated */
  time_is ("1.0000000019", 1000000001);
  time_is ("18446744073ms", 18446744073000000);
  time_is ("18446744073.709551615", UINT64_MAX);
  time_bad ("");
  time_bad (".");
  time_bad ("abc");
  time_bad ("1.5x");
  time_bad ("-1");
  time_bad ("1e3");
  time_bad ("10 ms");
  time_bad ("18446744074");
  time_bad ("99999999999999999999999ns");

  char buf[32];
  ok (strcmp (clogtool__fmt_time (1500000001, buf), "1.500000001") == 0,
      "fmt_time 1.500000001");
  ok (strcmp (clogtool__fmt_time (42, buf), "0.000000042") == 0,
      "fmt_time 0.000000042");

  json_is ("plain", "\"plain\"");
  json_is ("a\"b\\c", "\"a\\\"b\\\\c\"");
  json_is ("t\tn\nx\x01", "\"t\\tn\\nx\\u0001\"");
  json_is ("caf\xc3\xa9", "\"caf\xc3\xa9\"");        /* valid UTF-8 kept */
  json_is ("bad\xe9", "\"bad\\u00e9\"");             /* Latin-1 byte */
  return exit_status ();
}
