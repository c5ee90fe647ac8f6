#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The logging cost as users see it (bench/mpe-user.c), interleaved with
# its floor loop: ROUNDS rounds, each running every configuration once, as
# its own job; then per configuration the median, the range (spread) and
# the interquartile range over the rounds, and the median against the
# floor's for the same rank count; then, since this host's speed wanders
# from process to process, the median over the rounds of each run's own
# ratio to the floor loop it ran first, in the same process (--pair);
# then what disturbed the timed thread in each run (page faults,
# involuntary switches, migrations: bench/mpe-user.c), so a slow run can
# be told from a slow configuration.
#   bench/mpe-user.sh [ROUNDS] [CALLS]     (from the build directory)
rounds=${1:-6}
calls=${2:-10000000}
mpiexec=${MPIEXEC:-mpiexec}
prog=${MPE_USER:-bench/mpe-user}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "== $(uptime)"
r=1
while [ "$r" -le "$rounds" ]; do
  for cfg in "1 floor" "1 defaults" "1 MPE_SPILL_THREAD=no" \
             "1 MPE_BUFFER_MB=400" "2 floor" "2 defaults" \
             "2 MPE_BUFFER_MB=400"; do
    set -- $cfg
    n=$1 what=$2
    case $what in
      floor) x=$($mpiexec -n "$n" "$prog" "$calls" --floor) ;;
      defaults) x=$($mpiexec -n "$n" "$prog" "$calls" --pair 2>/dev/null) ;;
      *) x=$(env "$what" $mpiexec -n "$n" "$prog" "$calls" --pair 2>/dev/null) ;;
    esac
    ns=$(echo "$x" | sed -n 's/.*: \([0-9.]*\) ns\/call, \([0-9.]*\) ns CPU.*; \([-0-9]*\) faults, \([-0-9]*\) switches, \([-0-9]*\) migrations\(, \([-0-9]*\) blocked\)*.*/\1 \2 \3 \4 \5 \7/p')
    pf=$(echo "$x" | sed -n 's/.*; paired floor \([0-9.]*\) ns\/call.*/\1/p')
    echo "$n $what $ns ${pf:-0}" >> "$out"
  done
  r=$((r + 1))
done
echo "== $(uptime)"
for col in 3 4; do
[ $col = 3 ] && echo "-- wall time around the loop (what the user measures)" \
             || echo "-- process CPU time in the loop (all threads)"
awk -v col=$col '
  { k = $1 " " $2; v[k, ++c[k]] = $col; if (!(k in seen)) { seen[k] = 1; order[++no] = k } }
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
    printf "%-28s %8s %17s %7s %7s %9s\n", "ranks configuration", "median", "range (ns/call)", "spread", "IQR", "vs floor"
    for (i = 1; i <= no; i++) {
      k = order[i]; split(k, p, " "); f = m[p[1] " floor"]
      printf "%-28s %8.2f %8.2f-%-8.2f %7.2f %7.2f %8.2fx\n", k, m[k], lo[k], hi[k], hi[k] - lo[k], iqr[k], m[k] / f } }
' "$out"
done
echo "-- each run against the floor loop in its own process, before it (--pair)"
awk '$9 > 0 { k = $1 " " $2; v[k, ++c[k]] = $3 / $9; f[k, c[k]] = $9
              if (!(k in seen)) { seen[k] = 1; order[++no] = k } }
  function sort(k, a,   i, j, t, n) {
    n = c[k]; for (i = 1; i <= n; i++) a[i] = v[k, i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
      if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n }
  END {
    printf "%-28s %8s %17s %7s\n", "ranks configuration", "median", "range (x floor)", "IQR"
    for (i = 1; i <= no; i++) {
      k = order[i]; n = sort(k, a); q = int((n + 3) / 4)
      m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      printf "%-28s %7.2fx %7.2f-%-7.2f %7.2f\n", k, m, a[1], a[n], a[n + 1 - q] - a[q] } }
' "$out"
echo "-- each run: wall ns/call, CPU ns/call; the timed thread's page faults,"
echo "-- involuntary switches, migrations, voluntary switches (blocked) in the"
echo "-- loop (the most of any rank); [the paired floor's wall ns/call]"
awk '{ k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++no] = k }
       r[k] = r[k] sprintf("  %.2f/%.2f %s/%s/%s/%s", $3, $4, $5, $6, $7, $8)
       if ($9 > 0) r[k] = r[k] sprintf("[%.2f]", $9) }
     END { for (i = 1; i <= no; i++) printf "%-28s%s\n", order[i], r[order[i]] }' "$out"
