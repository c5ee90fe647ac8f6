#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Ranks of one host turn counter ticks into times with one conversion,
# their host leader's: rank 1's calibrated rate made 5% off
# (MPE_TEST_CLOCK_RATE_PPM) leaves the one-way latencies of a logged
# ping-pong (bench/clock-pingpong) as they were, in the finished log and
# in one recovered after a kill.
#
# Bound, by construction: each message's send is logged before MPI_Send
# and its receive after MPI_Recv, and the round trips follow each other,
# so with clocks that agree every latency is >= 0 and the latencies of
# both directions within a stretch of round trips sum to at most the
# stretch's length.  The smallest of a stretch's m latencies of one
# direction is then in [0, length / m], and those of the first and the
# last tenth of the run differ by less than the larger such bound.  Rank
# 1's rate 5% off would move them apart by 5% of the time between the
# two tenths (0.9 of the run when the load is even), some 90 times that
# bound with 2000 round trips; the control run (each process its own
# calibration, no sync: the old same-host clock) shows the check
# catches it.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
P=$B/bench/clock-pingpong
PPM=50000

# tenths LOG: sets res to "OK" or why not, gap (ns between the two
# tenths' first sends) and bound (ns).
tenths () {
  res="query failed"; gap=0; bound=0
  $CLOGTOOL query "$1" "WITH m AS (SELECT send_rank AS d, send_time AS s,
      recv_time AS r, row_number () OVER (PARTITION BY send_rank
                                          ORDER BY send_time) - 1 AS k
      FROM messages WHERE tag = 7),
    c AS (SELECT min (n) AS n FROM (SELECT count (*) AS n FROM m GROUP BY d))
    SELECT CASE WHEN k < n / 10 THEN 0 ELSE 1 END, d, min (r - s), min (s),
      max (r), count (*), count (*) - count (r)
    FROM m, c WHERE k < n / 10 OR k >= n - n / 10 GROUP BY 1, 2
    ORDER BY 1, 2" > q.txt 2>&1 || { res="query failed: $(cat q.txt)"; return; }
  awk -F, 'NR == 1 { next }
    { w = $1; d = $2; lat[w, d] = $3; cnt[w, d] = $6; lost += $7; rows++
      if (!(w in s0) || $4 < s0[w]) s0[w] = $4
      if (!(w in r1) || $5 > r1[w]) r1[w] = $5 }
    END {
      if (rows != 4) { print "gap=0 bound=0"; print "not 4 windows x directions: " rows; exit }
      if (lost) { print "gap=0 bound=0"; print lost " unmatched messages"; exit }
      b = 0
      for (w = 0; w <= 1; w++) {
        m = cnt[w, 0] < cnt[w, 1] ? cnt[w, 0] : cnt[w, 1]
        if ((r1[w] - s0[w]) / m > b) b = (r1[w] - s0[w]) / m
      }
      printf "gap=%.0f bound=%.0f\n", s0[1] - s0[0], b
      why = ""
      for (d = 0; d <= 1; d++) {
        for (w = 0; w <= 1; w++)
          if (lat[w, d] < 0)
            why = why sprintf(" %d->%d tenth %d: a receive %.0f ns before its send;",
                              d, 1 - d, w, -lat[w, d])
        x = lat[1, d] - lat[0, d]
        if (x < 0) x = -x
        if (x > b)
          why = why sprintf(" %d->%d: smallest latency %.0f ns then %.0f ns;",
                            d, 1 - d, lat[0, d], lat[1, d])
      }
      print why == "" ? "OK" : "bound " int (b) " ns:" why
    }' q.txt > t.txt
  eval "$(sed -n 1p t.txt)"
  res=$(sed -n 2p t.txt)
}

MPE_TEST_CLOCK_RATE_PPM=$PPM run 2 $P 2000 drift; ok $? "ping-pong, rank 1's rate $PPM ppm off"
tenths drift.clog
is "one host, one conversion: the latencies do not drift" "$res" OK
diag "  first and last tenth $gap ns apart, bound $bound ns"
grep -q '^mpe: note: shifted' err.txt; ok $((!$?)) "the merge shifted no rank"
is "no arrow backwards" "$(val drift.clog violations)" 0
is "every message matched" "$(val drift.clog unmatched)" 0

# Killed before the finish: no finish reading, nothing but what each
# process wrote at the start (its host's conversion).
rm -rf "$MPE_TMPDIR"/*
MPE_TEST_CLOCK_RATE_PPM=$PPM run 2 $P 2000 killed kill
fails $?; ok $? "killed ping-pong fails"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o rec.clog > rec.txt 2>&1; ok $? "clogtool recover"
tenths rec.clog
is "recovered: the latencies do not drift" "$res" OK
diag "  first and last tenth $gap ns apart, bound $bound ns"
is "recovered: no arrow backwards" "$(val rec.clog violations)" 0

# Control: each process its own calibration and no sync, as ranks of one
# host had before; the check must see the 5% (when the two tenths are
# far enough apart for it to show: by construction, 4 bounds).
MPE_TEST_CLOCK_RATE_PPM=$PPM MPE_SYNC_SAME_HOST=1 MPE_CLOCKS_SYNC=no \
  run 2 $P 2000 own; ok $? "control run"
tenths own.clog
if [ $((gap / 1000000 * PPM)) -gt $((4 * bound)) ]; then
  [ "$res" != OK ]; ok $? "control: own calibrations drift apart ($res)"
else
  ok 0 "# SKIP control: tenths $gap ns apart, too close for 5% to show"
fi
finish
