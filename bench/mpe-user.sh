#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The logging cost as users see it (bench/mpe-user.c), interleaved with
# its floor loop: ROUNDS rounds, each running every configuration once, as
# its own job; then per configuration the median, the range (spread) and
# the interquartile range over the rounds, and the median against the
# floor's for the same rank count (the default spill is write-behind,
# against the logger spilling itself and the spill thread packing and
# writing; 2 ranks fill this 2-core host, 1 leaves a core to spare).
# Each MPE configuration also runs once more per round with --pair (its
# loop in blocks, by turns with the floor loop in the same process):
# since this host's speed wanders from process to process, the same
# statistics of each such run's own ratio to its floor (where a spill
# thread takes CPU from the ranks, some of its work falls in the floor's
# blocks and the paired ratio reads low: `2 MPE_SPILL_THREAD=yes`; the
# wall and CPU columns tell; and the floor's blocks run 2-4% slower
# there than a floor-only process, so every paired ratio reads a little
# low).  Then what disturbed the timed thread in each plain run (page
# faults, involuntary switches, migrations: bench/mpe-user.c), so a slow
# run can be told from a slow configuration.
#   bench/mpe-user.sh [ROUNDS] [CALLS]     (from the build directory)
rounds=${1:-6}
calls=${2:-10000000}
mpiexec=${MPIEXEC:-mpiexec}
prog=${MPE_USER:-bench/mpe-user}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# job N WHAT [--floor|--pair]: one run of a configuration, its line.
job () {
  n=$1 what=$2
  shift 2
  case $what in
    floor|defaults) $mpiexec -n "$n" "$prog" "$calls" "$@" 2>/dev/null ;;
    *) env "$what" $mpiexec -n "$n" "$prog" "$calls" "$@" 2>/dev/null ;;
  esac
}
echo "== $(uptime)"
r=1
while [ "$r" -le "$rounds" ]; do
  for cfg in "1 floor" "1 defaults" "1 MPE_SPILL_THREAD=no" \
             "1 MPE_SPILL_THREAD=yes" "1 MPE_BUFFER_MB=400" "2 floor" "2 defaults" \
             "2 MPE_SPILL_THREAD=no" "2 MPE_SPILL_THREAD=yes" \
             "2 MPE_BUFFER_MB=400"; do
    set -- $cfg
    if [ "$2" = floor ]; then
      x=$(job "$1" floor --floor) ratio=0
    else
      x=$(job "$1" "$2")
      ratio=$(job "$1" "$2" --pair | sed -n \
        's/.*: \([0-9.]*\) ns\/call,.*; paired floor \([0-9.]*\) ns\/call.*/\1 \2/p' |
        awk '$2 > 0 { printf "%.4f", $1 / $2 }')
    fi
    ns=$(echo "$x" | sed -n 's/.*: \([0-9.]*\) ns\/call, \([0-9.]*\) ns CPU.*; \([-0-9]*\) faults, \([-0-9]*\) switches, \([-0-9]*\) migrations\(, \([-0-9]*\) blocked\)*.*/\1 \2 \3 \4 \5 \7/p')
    echo "$1 $2 $ns ${ratio:-0}" >> "$out"
  done
  r=$((r + 1))
done
echo "== $(uptime)"
# table COL HEADING UNIT: per configuration with a value in column COL
# (above 0), its median, range, spread and IQR over the rounds; for the
# wall and CPU times (UNIT ns), also against the floor's median.
table () {
echo "-- $2"
awk -v col="$1" -v unit="$3" '
  $col > 0 { k = $1 " " $2; v[k, ++c[k]] = $col
             if (!(k in seen)) { seen[k] = 1; order[++no] = k } }
  function med(k,   i, j, t, n, a) {
    n = c[k]; for (i = 1; i <= n; i++) a[i] = v[k, i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
      if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    lo[k] = a[1]; hi[k] = a[n]
    # the middle half: what a run or two preempted by the host leaves
    q = int((n + 3) / 4); iqr[k] = a[n + 1 - q] - a[q]
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  END {
    for (i = 1; i <= no; i++) m[order[i]] = med(order[i])
    printf "%-28s %8s %17s %7s %7s", "ranks configuration", "median", "range (" unit ")", "spread", "IQR"
    printf unit == "ns/call" ? " %9s\n" : "\n", "vs floor"
    for (i = 1; i <= no; i++) {
      k = order[i]; split(k, p, " ")
      printf "%-28s %8.2f %8.2f-%-8.2f %7.2f %7.2f", k, m[k], lo[k], hi[k], hi[k] - lo[k], iqr[k]
      if (unit == "ns/call") printf " %8.2fx", m[k] / m[p[1] " floor"]
      printf "\n" } }
' "$out"
}
table 3 "wall time around the loop (what the user measures)" ns/call
table 4 "process CPU time in the loop (all threads)" ns/call
table 9 "each --pair run's loop against its own floor's blocks" "x floor"
echo "-- each run: wall ns/call, CPU ns/call; the timed thread's page faults,"
echo "-- involuntary switches, migrations, voluntary switches (blocked) in the"
echo "-- loop (the most of any rank); [the round's --pair ratio]"
awk '{ k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++no] = k }
       r[k] = r[k] sprintf("  %.2f/%.2f %s/%s/%s/%s", $3, $4, $5, $6, $7, $8)
       if ($9 > 0) r[k] = r[k] sprintf("[%.2fx]", $9) }
     END { for (i = 1; i <= no; i++) printf "%-28s%s\n", order[i], r[order[i]] }' "$out"
