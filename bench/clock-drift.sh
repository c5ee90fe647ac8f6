#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/clock-drift.sh MPIEXEC PINGPONG CLOGTOOL [SECONDS]: the clocks of
# two ranks on one host over a long run.  A logged ping-pong of SECONDS
# (default 10; 60 for the figures in docs/BENCHMARKS.md), its merged log
# cut into windows of half a second.  In each window the smallest
# one-way latencies a (0->1) and b (1->0) bound the offset of rank 1's
# clock against rank 0's to [-b, a]: the offset is (a - b) / 2 within
# (a + b) / 2.  Over the windows where that bound is under 1 us (the
# load let both ranks run), it prints the offset's residual (largest
# minus smallest: 0 for clocks that agree, up to the bound's noise) and
# its fitted slope in ns/s (a drift's rate).  Once with the defaults,
# once with MPE_SYNC_SAME_HOST=1 (each process its own calibration,
# measured at the start and the finish), and both again with
# MPE_TEST_CLOCK_RATE_PPM=100 (rank 1's calibrated rate 100 ppm off).
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
  "$clogtool" query "$dir/drift.clog" "SELECT send_rank,
      CAST (send_time / $win AS INT), min (recv_time - send_time), count (*)
    FROM messages WHERE tag = 7 AND recv_time IS NOT NULL GROUP BY 1, 2
    ORDER BY 2, 1" | awk -F, -v name="$name" -v win="$win" \
      -v shifted="${shifted:-0}" '
    NR == 1 { next }
    { m[$2, $1] = $3; msgs += $4; if ($2 + 1 > nw) nw = $2 + 1 }
    END {
      for (w = 0; w < nw; w++) {
        if (!((w, 0) in m) || !((w, 1) in m)) continue
        a = m[w, 0]; b = m[w, 1]
        if (a + b >= 2000) continue
        y = (a - b) / 2; x = (w + 0.5) * win / 1e9
        n++; sx += x; sy += y; sxx += x * x; sxy += x * y
        if (n == 1 || y < lo) lo = y
        if (n == 1 || y > hi) hi = y
        if (n == 1 || a < amin) amin = a
        if (n == 1 || b < bmin) bmin = b
      }
      k = n * sxx - sx * sx
      slope = k > 0 ? (n * sxy - sx * sy) / k : 0
      if (n == 0) { printf "%-22s no window bounds the offset within 1 us\n", name; exit }
      printf "%-22s %9d msgs  %2d/%2d windows  min %4d/%4d ns  " \
             "offset residual %6.0f ns  slope %7.1f ns/s  merge shift %d ns\n",
             name, msgs, n, nw, amin, bmin, hi - lo, slope, shifted
    }'
}

echo "same-host ping-pong, ${secs} s; windows of 0.5 s that bound the offset within 1 us"
one default
one MPE_SYNC_SAME_HOST=1 MPE_SYNC_SAME_HOST=1
one "rate +100 ppm" MPE_TEST_CLOCK_RATE_PPM=100
one "rate +100 ppm, own" MPE_TEST_CLOCK_RATE_PPM=100 MPE_SYNC_SAME_HOST=1
