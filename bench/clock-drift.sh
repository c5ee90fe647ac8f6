#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/clock-drift.sh MPIEXEC PINGPONG CLOGTOOL [SECONDS]: the clocks of
# two ranks on one host over a long run.  A logged ping-pong of SECONDS
# (default 10; 60 for the figures in docs/BENCHMARKS.md), its merged log
# cut into windows of half a second.  In each window the smallest
# one-way latencies a (0->1) and b (1->0) bound the offset of rank 1's
# clock against rank 0's to [-b, a]: (a - b) / 2 within (a + b) / 2,
# which is at most half the window's fastest round trip (timed on rank
# 0's clock alone).  Over the windows whose fastest round trip is under
# 2 us (the load let both ranks run), it prints the offset's residual
# (largest minus smallest: 0 for clocks that agree, up to the noise of
# the minima) and its fitted slope in ns/s (a drift's rate); a constant
# shift the merge makes moves every window alike.  Runs: the defaults;
# MPE_SYNC_SAME_HOST=1 (each process its own calibration, measured at
# the start and the finish); each process its own calibration and no
# sync (what ranks of one host had before one conversion per host); and
# the first two again with rank 1's calibrated rate 100 ppm off
# (MPE_TEST_CLOCK_RATE_PPM).
mpiexec=$1; prog=$2; clogtool=$3; secs=${4:-10}
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
export MPE_TMPDIR="$dir"
win=500000000

one () {
  name=$1; shift
  if ! env "$@" $mpiexec -n 2 "$prog" "${secs}s" "$dir/drift" \
      > "$dir/out.txt" 2> "$dir/err.txt"; then
    echo "$name: the run failed:"; cat "$dir/err.txt"; return 1
  fi
  shifted=$(sed -n 's/^mpe: note: shifted .* by up to \([0-9]*\) ns.*/\1/p' \
            "$dir/err.txt")
  "$clogtool" query "$dir/drift.clog" "SELECT CAST (send_time / $win AS INT),
      send_rank, min (recv_time - send_time), count (*)
    FROM messages WHERE tag = 7 AND recv_time IS NOT NULL GROUP BY 1, 2" \
    > "$dir/lat.csv"
  "$clogtool" query "$dir/drift.clog" "SELECT CAST (t0 / $win AS INT), -1,
      min (t - t0) FROM (SELECT time AS t, kind,
        lag (time) OVER (ORDER BY time) AS t0,
        lag (kind) OVER (ORDER BY time) AS k0
      FROM events WHERE rank = 0 AND kind IN ('send', 'recv'))
    WHERE kind = 'recv' AND k0 = 'send' GROUP BY 1" > "$dir/rtt.csv"
  awk -F, -v name="$name" -v win="$win" -v shifted="${shifted:-0}" '
    FNR == 1 { next }
    { m[$1, $2] = $3; if ($2 >= 0) msgs += $4; if ($1 + 1 > nw) nw = $1 + 1 }
    END {
      for (w = 0; w < nw; w++) {
        if (!((w, 0) in m) || !((w, 1) in m) || !((w, -1) in m)) continue
        if (m[w, -1] >= 2000) continue
        a = m[w, 0]; b = m[w, 1]
        y = (a - b) / 2; x = (w + 0.5) * win / 1e9
        n++; sx += x; sy += y; sxx += x * x; sxy += x * y
        if (n == 1 || y < lo) lo = y
        if (n == 1 || y > hi) hi = y
      }
      k = n * sxx - sx * sx
      slope = k > 0 ? (n * sxy - sx * sy) / k : 0
      if (n == 0) { printf "%-24s no round trip under 2 us\n", name; exit }
      printf "%-24s %9d msgs  %3d/%3d windows  offset residual %8.0f ns  " \
             "slope %9.1f ns/s  merge shift %d ns\n",
             name, msgs, n, nw, hi - lo, slope, shifted
    }' "$dir/lat.csv" "$dir/rtt.csv"
}

echo "same-host ping-pong, ${secs} s; windows of 0.5 s with a round trip under 2 us"
one default
one MPE_SYNC_SAME_HOST=1 MPE_SYNC_SAME_HOST=1
one "own, no sync (before)" MPE_SYNC_SAME_HOST=1 MPE_CLOCKS_SYNC=no
one "rate +100 ppm" MPE_TEST_CLOCK_RATE_PPM=100
one "rate +100 ppm, SAME_HOST" MPE_TEST_CLOCK_RATE_PPM=100 MPE_SYNC_SAME_HOST=1
