#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/counters-sample.sh BENCH [ROUNDS]: what reading counters at timer
# samples costs, against perf record doing the same on the same program
# in the same run.  One fixed computation (bench/counters-bench work N),
# interleaved rounds of:
#   samples   MPE_SAMPLE_HZ=1000 (call paths only)
#   counters  the same with MPE_COUNTERS=task-clock,context-switches,
#             page-faults (a group read at every sample)
#   perf      no MPE sampling, under perf record -F 1000 of the same
#             three events as a group read at every sample (:S)
# Prints per configuration the median of the loop's thread CPU time and
# of the whole run's CPU time (user + system of every process of it:
# perf's own included).
bench=$1; rounds=${2:-5}; n=${N:-3000000000}
ev=task-clock,context-switches,page-faults
med () { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# one NAME CMD...: appends "loop_s total_s" of one run to NAME.txt.
one () {
  name=$1; shift
  /usr/bin/time -f "cpu %U %S" "$@" "$bench" work "$n" > out.txt 2> time.txt
  l=$(awk '$1 == "work_s" { print $2 }' out.txt)
  t=$(awk '$1 == "cpu" { print $2 + $3 }' time.txt)
  echo "$l $t" >> "$name.txt"
}
: > samples.txt; : > counters.txt; : > perf.txt
i=0
while [ $i -lt "$rounds" ]; do
  one samples env MPE_SAMPLE_HZ=1000
  one counters env MPE_SAMPLE_HZ=1000 MPE_COUNTERS=$ev
  one perf perf record -q -F 1000 -e "{$ev}:S" -o perf-bench.data --
  i=$((i + 1))
done
echo "N=$n iterations, median of $rounds interleaved rounds (s):"
for c in samples counters perf; do
  echo "  $c  loop $(awk '{ print $1 }' $c.txt | med)  whole run $(awk '{ print $2 }' $c.txt | med)"
done
rm -f samples.txt counters.txt perf.txt out.txt time.txt perf-bench.data \
  perf-bench.data.old
