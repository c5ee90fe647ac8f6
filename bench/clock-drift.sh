#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/clock-drift.sh MPIEXEC PINGPONG CLOGTOOL [SECONDS]: the clocks of
# two ranks on one host over a long run.  A logged ping-pong of SECONDS
# (default 10; 60 for the figure in docs/BENCHMARKS.md), its merged log
# cut into 20 windows of equal length; in each, the smallest one-way
# latency of each direction.  Clocks that agree leave those minima flat:
# the residual (largest minus smallest) is the noise of the minima, a
# drift adds its rate times the run's length, and the fitted slope
# (ns/s) is that rate.  Once with the defaults, once with
# MPE_SYNC_SAME_HOST=1 (each process its own calibration, measured at
# the start and the finish), and once each with MPE_TEST_CLOCK_RATE_PPM
# (rank 1's calibrated rate 100 ppm off).
mpiexec=$1; prog=$2; clogtool=$3; secs=${4:-10}
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
export MPE_TMPDIR="$dir"
win=$((secs * 1000000000 / 20))

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
    ORDER BY 1, 2" | awk -F, -v name="$name" -v win="$win" \
      -v shifted="${shifted:-0}" '
    NR == 1 { next }
    { d = $1; x = ($2 + 0.5) * win / 1e9; y = $3
      n[d]++; sx[d] += x; sy[d] += y; sxx[d] += x * x; sxy[d] += x * y
      if (!(d in lo) || y < lo[d]) lo[d] = y
      if (!(d in hi) || y > hi[d]) hi[d] = y
      msgs[d] += $4 }
    END {
      for (d = 0; d <= 1; d++) {
        k = n[d] * sxx[d] - sx[d] * sx[d]
        slope = k > 0 ? (n[d] * sxy[d] - sx[d] * sy[d]) / k : 0
        printf "%-24s %d->%d  %8d msgs  min %6d ns  residual %6d ns  " \
               "slope %8.1f ns/s  merge shift %d ns\n", name, d, 1 - d,
               msgs[d], lo[d], hi[d] - lo[d], slope, shifted
      }
    }'
}

echo "same-host ping-pong, ${secs} s, 20 windows: smallest one-way latency"
one default
one MPE_SYNC_SAME_HOST=1 MPE_SYNC_SAME_HOST=1
one "rate +100 ppm" MPE_TEST_CLOCK_RATE_PPM=100
one "rate +100 ppm, own" MPE_TEST_CLOCK_RATE_PPM=100 MPE_SYNC_SAME_HOST=1
