/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpetop's model of the monitor's lines: what a job sends is understood
 * exactly, and whatever else arrives (a wrong token, malformed or hostile
 * lines, random bytes) is refused without changing the model.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/tap.h"
#include "top/top-model.h"

#define TOKEN "0123456789abcdef0123456789abcdef"

static int
line (top_model_t *m, const char *s)
{
  return top_model_line (m, s, strlen (s), TOKEN);
}

int
main (void)
{
  top_model_t m;


  top_model_init (&m);
  ok (line (&m, "sample 1 0 0 1 -1 0 1 1 0:1:1:1:0:0:1") == -1,
      "nothing before the hello");
  ok (line (&m, "hello 1 ffffffffffffffffffffffffffffffff 4 2 10") == -2,
      "a hello with another token is refused");
  ok (!m.hello, "and leaves no job behind");
  ok (line (&m, "hello 1 " TOKEN " 4 2 10") == 0, "the job's hello");
  ok (m.ranks == 4 && m.nodes == 2 && m.hz == 10, "ranks, nodes, rate");
  ok (line (&m, "hello 1 " TOKEN " 4 2 10") == -1, "one hello only");
  ok (line (&m, "node 0 0 alpha") == 0 && line (&m, "node 1 0 alpha") == 0
      && line (&m, "node 2 1 beta") == 0 && line (&m, "node 3 1 beta") == 0,
      "node lines");
  ok (m.node_of[2] == 1 && !strcmp (m.host[3], "beta"), "node table");
  ok (line (&m, "node 4 0 x") == -1 && line (&m, "node 1 2 x") == -1
      && line (&m, "node -1 0 x") == -1, "nodes out of range are refused");
  ok (line (&m, "metric 4294901760 events records") == 0
      && !strcmp (top_metric_name (&m, 4294901760u), "events"),
      "metric catalogue");

  ok (line (&m, "sample 7 1000000000 2000000 1 -1 4294901760 4 4 "
                "0:10:10:10:0:0:1 1:20:20:20:1:1:1 2:30:30:30:2:2:1 "
                "3:40:40:40:3:3:1") == 0, "a process-level sample");
  ok (m.cur.seq == 7 && m.cur.nslots == 4 && m.cur.slots[3].sum == 40
      && m.cur.rtt_ns == 2000000 && m.samples == 1, "its values");
  ok (line (&m, "sample 9 1500000000 4000000 1 -1 4294901760 4 4 "
                "0:15:15:15:0:0:1 1:30:30:30:1:1:1 2:45:45:45:2:2:1 "
                "3:60:60:60:3:3:1") == 0, "the next sample");
  ok (m.missing == 1, "sequence 8 never came: one missing");
  ok (top_model_rate (&m, 1) == 20.0, "rate: +10 in 0.5 s is 20/s");
  ok (top_model_rtt_median (&m) == 0.004 || top_model_rtt_median (&m) == 0.002,
      "round-trip median");
  ok (m.rtt_min == 0.002 && m.rtt_max == 0.004, "round-trip min and max");
  ok (line (&m, "sample 10 1600000000 1 2 -1 4294901760 3 1 "
                "1:100:40:60:2:3:2") == 0, "a node-level sample");
  ok (m.incomplete == 1, "it came back from 3 of 4 ranks: incomplete");
  ok (top_model_rate (&m, 0) == 0, "no rate across a change of level");

  /* Malformed and hostile lines: refused, the model unchanged. */
  static const char *const bad[] = {
    "", " ", "sample", "sample 11", "sample x 0 0 1 -1 0 4 1 0:1:1:1:0:0:1",
    "sample 11 0 0 9 -1 0 4 1 0:1:1:1:0:0:1",               /* level */
    "sample 11 0 -5 1 -1 0 4 1 0:1:1:1:0:0:1",              /* rtt */
    "sample 11 0 0 1 -1 0 5 1 0:1:1:1:0:0:1",               /* visited */
    "sample 11 0 0 1 -1 0 4 2 0:1:1:1:0:0:1",               /* n too big */
    "sample 11 0 0 1 -1 0 4 99999999 0:1:1:1:0:0:1",        /* n huge */
    "sample 11 0 0 1 -1 0 4 1 0:1:1:1:0:0",                 /* 6 fields */
    "sample 11 0 0 1 -1 0 4 1 0:1:1:1:0:0:1:",              /* trailing */
    "sample 11 0 0 1 -1 0 4 1 0:1:1:1:0:0:1 junk",
    "sample 11 0 0 1 -1 0 4 1 0:99999999999999999999:1:1:0:0:1",
    "sample 11 0 0 1 -1 0 4 1 0:1:1:1:0:0:-1",
    "node 1", "node 1 0", "node 1 0 a b", "metric x y z", "metric 1 a",
    "stats 1 2 3", "stats 1 2 3 -4", "bye now", "frobnicate 1 2",
    "hello 1 " TOKEN " 0 0 10",
  };
  uint64_t samples = m.samples;
  uint32_t seq = m.cur.seq;
  int refused = 0;
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    {
      int rc = line (&m, bad[i]);
      refused += rc == -1;
      if (rc != -1)
        diag ("accepted: '%s'", bad[i]);
    }
  ok (refused == (int) (sizeof bad / sizeof *bad), "%d malformed lines refused",
      refused);
  ok (m.samples == samples && m.cur.seq == seq, "the model is unchanged");

  /* Random bytes, and random mutations of a good line: no crash (ASan
     and UBSan builds run this too), nothing accepted that is not a
     well-formed line. */
  srand (12345);
  char buf[512];
  const char *good = "sample 12 1700000000 1 1 -1 4294901760 4 4 "
                     "0:1:1:1:0:0:1 1:2:2:2:1:1:1 2:3:3:3:2:2:1 "
                     "3:4:4:4:3:3:1";
  int odd = 0;
  for (int i = 0; i < 20000; i++)
    {
      size_t n;
      if (i % 2)
        {
          n = (size_t) (rand () % (int) sizeof buf);
          for (size_t k = 0; k < n; k++)
            buf[k] = (char) (rand () & 0xff);
        }
      else
        {
          n = strlen (good);
          memcpy (buf, good, n);
          for (int k = 0; k < 3; k++)
            buf[rand () % (int) n] = "0123456789: -x\n\0"[rand () % 16];
        }
      int rc = top_model_line (&m, buf, n, TOKEN);
      if (rc == 0 && (m.cur.nslots > 4 || m.cur.visited > 4))
        odd++;
    }
  ok (odd == 0, "20000 random lines: nothing out of range accepted");
  ok (line (&m, "stats 5 5 1 2") == 0 && m.sent == 5 && m.late == 1,
      "the job's accounting");
  ok (line (&m, "bye") == 0 && m.ended, "bye ends the job");
  top_model_free (&m);

  return exit_status ();
}
