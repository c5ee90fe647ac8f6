#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench/memory-run.sh BENCH LIBMPE_MEMORY [ROUNDS]: the cost the memory
# layer adds to a malloc/free pair, interleaved rounds of: no wrappers,
# wrappers loaded but off, recording (MPE_MEMORY=1); then the same
# program under valgrind --tool=massif (fewer pairs) for comparison.
# Prints the median of each.
bench=$1; lib=$2; rounds=${3:-7}; n=${N:-10000000}
med () { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: > plain.txt; : > off.txt; : > on.txt
i=0
while [ $i -lt "$rounds" ]; do
  "$bench" "$n" | awk '{ print $2 }' >> plain.txt
  LD_PRELOAD=$lib "$bench" "$n" | awk '{ print $2 }' >> off.txt
  MPE_MEMORY=1 LD_PRELOAD=$lib "$bench" "$n" | awk '{ print $2 }' >> on.txt
  i=$((i + 1))
done
p=$(med < plain.txt); o=$(med < off.txt); r=$(med < on.txt)
echo "malloc/free pair, ns (median of $rounds interleaved rounds, $n pairs):"
echo "  no wrappers         $p"
echo "  wrappers, off       $o"
echo "  MPE_MEMORY=1        $r   (+$(echo "$r - $p" | bc) ns)"
if command -v valgrind > /dev/null; then
  m=$(valgrind --tool=massif --massif-out-file=/dev/null "$bench" \
        $((n / 20)) 2> /dev/null | awk '{ print $2 }')
  echo "  valgrind massif     $m   ($((n / 20)) pairs)"
fi
rm -f plain.txt off.txt on.txt
