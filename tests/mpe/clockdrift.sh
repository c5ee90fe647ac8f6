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
# two tenths (0.8 of the run when the load is even), some 40 times that
# bound with 1000 round trips; the control run (each process its own
# calibration, no sync: the old same-host clock) shows the check
# catches it.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
P=$B/bench/clock-pingpong
PPM=50000

# tenths LOG: sets res to "OK" or why not, for each pair of ranks (0 and
# 1, 2 and 3, ...); sep (ns from the first tenth's last receive to the
# last tenth's first send, on rank 0's clock) and bound (ns), ranks 0
# and 1's.
tenths () {
  res="query failed"; sep=0; bound=0
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
    { w = $1; d = $2; p = int (d / 2); lat[w, d] = $3; cnt[w, d] = $6
      lost += $7; rows++; if (d > dmax) dmax = d
      if (!((w, p) in s0) || $4 < s0[w, p]) s0[w, p] = $4
      if (!((w, p) in r1) || $5 > r1[w, p]) r1[w, p] = $5
      if (d == 0) first0[w] = $4   # on the clock of rank 0 alone
      if (d == 1) last0[w] = $5 }
    END {
      if (rows != 2 * (dmax + 1) || dmax % 2 == 0) {
        print "sep=0 bound=0"; print "not 2 windows x directions: " rows; exit }
      if (lost) { print "sep=0 bound=0"; print lost " unmatched messages"; exit }
      why = ""
      for (p = 0; 2 * p < dmax; p++) {
        b[p] = 0
        for (w = 0; w <= 1; w++) {
          m = cnt[w, 2 * p] < cnt[w, 2 * p + 1] ? cnt[w, 2 * p] : cnt[w, 2 * p + 1]
          if ((r1[w, p] - s0[w, p]) / m > b[p]) b[p] = (r1[w, p] - s0[w, p]) / m
        }
        for (d = 2 * p; d <= 2 * p + 1; d++) {
          for (w = 0; w <= 1; w++)
            if (lat[w, d] < 0)
              why = why sprintf(" %d->%d tenth %d: a receive %.0f ns before its send;",
                                d, d ^ 1, w, -lat[w, d])
          x = lat[1, d] - lat[0, d]
          if (x < 0) x = -x
          if (x > b[p])
            why = why sprintf(" %d->%d: smallest latency %.0f ns then %.0f ns (bound %.0f);",
                              d, d - 2 * p == 0 ? d + 1 : d - 1, lat[0, d], lat[1, d], b[p])
        }
      }
      printf "sep=%.0f bound=%.0f\n", first0[1] - last0[0], b[0]
      print why == "" ? "OK" : why
    }' q.txt > t.txt
  eval "$(sed -n 1p t.txt)"
  res=$(sed -n 2p t.txt)
}

MPE_TEST_CLOCK_RATE_PPM=$PPM run 2 $P 1000 drift; ok $? "ping-pong, rank 1's rate $PPM ppm off"
tenths drift.clog
is "one host, one conversion: the latencies do not drift" "$res" OK
diag "  first and last tenth $sep ns apart, bound $bound ns"
grep -q '^mpe: note: shifted' err.txt; ok $((!$?)) "the merge shifted no rank"
is "no arrow backwards" "$(val drift.clog violations)" 0
is "every message matched" "$(val drift.clog unmatched)" 0

# Killed before the finish: no finish reading, nothing but what each
# process wrote at the start (its host's conversion).
rm -rf "$MPE_TMPDIR"/*
MPE_TEST_CLOCK_RATE_PPM=$PPM run 2 $P 1000 killed kill
fails $?; ok $? "killed ping-pong fails"
$CLOGTOOL recover --clean "$MPE_TMPDIR" -o rec.clog > rec.txt 2>&1; ok $? "clogtool recover"
tenths rec.clog
is "recovered: the latencies do not drift" "$res" OK
diag "  first and last tenth $sep ns apart, bound $bound ns"
is "recovered: no arrow backwards" "$(val rec.clog violations)" 0

# Control: each process its own calibration and no sync, as ranks of one
# host had before, rank 1's rate 50% off; the check must see it.  The
# tenths' minima lie within a bound of the drifting offset at some
# moment of each tenth, so they differ by at least 50% of sep less a
# bound: more than a bound when 50% of sep is over 4 bounds (else the
# load made the tenths too close).  A run of 0.3 s, not of a count: the
# first round trips are slow while the ranks start, and a short run is
# all start.
CPPM=500000
# A loaded machine may leave the tenths too close together for the drift
# to show beyond the bound: a longer run then, up to three.
measured=0 crc=0
for len in 0.3s 1s 3s; do
  MPE_TEST_CLOCK_RATE_PPM=$CPPM MPE_SYNC_SAME_HOST=1 MPE_CLOCKS_SYNC=no \
    run 2 $P $len own || { crc=1; break; }
  tenths own.clog
  diag "  control of $len: first and last tenth $sep ns apart, bound $bound ns"
  if [ $((sep / 1000000 * CPPM)) -gt $((4 * bound)) ]; then
    measured=1; break
  fi
done
ok $crc "control run"
if [ $measured = 1 ]; then
  [ "$res" != OK ]; ok $? "control: own calibrations drift apart ($res)"
else
  diag "control: the load kept the tenths within 4 bounds in three runs"
fi

# MPE_SYNC_SAME_HOST in one rank's environment only: the ranks still
# choose together (a split on one side alone would hang the job).
run 1 $P 200 mixed : -n 1 -env MPE_SYNC_SAME_HOST 1 $P 200 mixed
ok $? "MPE_SYNC_SAME_HOST set for rank 1 alone"
is "mixed: every message matched" "$(val mixed.clog unmatched)" 0

# Two hosts of two ranks (a test hook), the second 60 ms and 10% off
# the first (its leader, rank 2's): the sync measures rank 2 at the
# start and the finish, and rank 3 takes its points, whichever way the
# offsets are composed.  Ranks 2 and 3 would be 60 ms apart with no
# point or differing ones, 10% x the run with one.
for algo in SEQ BITREE ALTNGBR; do
  MPE_TEST_CLOCK_HOSTS=2 MPE_TEST_CLOCK_SKEW_NS=30000000 \
    MPE_TEST_CLOCK_RATE_PPM=$PPM MPE_SYNC_ALGORITHM=$algo \
    run 4 $P 400 hosts; ok $? "$algo: 2 hosts of 2 ranks"
  tenths hosts.clog
  is "$algo: each host's ranks agree" "$res" OK
  is "$algo: no arrow backwards" "$(val hosts.clog violations)" 0
done
finish
