#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/sched-run.sh BENCH [ROUNDS]: the cost of the scheduling layer per
# blocking round trip (two switches), interleaved rounds of: rings off,
# rings on (as MPE_SCHED=1), and the same program under
# `perf record --switch-events` (the kernel writes the same records, perf
# copies them to a file).  Prints the median of each.
bench=$1; rounds=${2:-7}; n=${N:-50000}
med () { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: > off.txt; : > on.txt; : > perf.txt
i=0
while [ $i -lt "$rounds" ]; do
  "$bench" "$n" | awk '{ print $2 }' >> off.txt
  "$bench" "$n" on | awk '{ print $2 }' >> on.txt
  if command -v perf > /dev/null; then
    perf record -q --switch-events -e dummy:u -o perf-bench.data \
      "$bench" "$n" 2> /dev/null | awk '{ print $2 }' >> perf.txt
  fi
  i=$((i + 1))
done
echo "blocking round trip, us (median of $rounds interleaved rounds, $n trips):"
echo "  switch rings off          $(med < off.txt)"
echo "  switch rings on           $(med < on.txt)"
[ -s perf.txt ] && echo "  perf record --switch-events  $(med < perf.txt)"
rm -f off.txt on.txt perf.txt perf-bench.data
