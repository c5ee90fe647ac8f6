#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/mpe/api (TAP from rank 0) on 1, 2 and 4 ranks.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
for n in 1 2 4; do
  run $n $B/tests/mpe/api; rc=$?
  ok $rc "api -n $n exits 0"
  nok=$(grep -c '^not ok' out.txt); nall=$(grep -c '^ok' out.txt)
  is "api -n $n: no failed check" "$nok" 0
  is "api -n $n: all checks ran" "$nall" $((31 + 4 * n))
  grep '^not ok' -A2 out.txt | while read -r l; do diag "$l"; done
done
finish
