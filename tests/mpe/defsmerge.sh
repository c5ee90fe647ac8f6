#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Definitions from different ranks merged at MPE_Finish_log (a tree over
# the ranks, tests/mpe/defsmerge.c): with 1 to 7 ranks, every definition
# reaches the log and the lowest rank that defined an id names it.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
for n in 1 2 3 5 7; do
  run "$n" $B/tests/mpe/defsmerge dm$n
  ok $? "$n ranks: the job succeeds"
  names=$($CLOGTOOL stats dm$n.clog | grep -oE '[ABCE]-r[0-9]+' | sort -u |
          tr '\n' ' ')
  want="A-r0 B-r$((n - 1)) "
  [ "$n" -ge 3 ] && want="${want}C-r2 "
  [ "$n" -ge 2 ] && want="${want}E-r1 "
  is "$n ranks: every definition, the lowest rank's name" "$names" "$want"
done
finish
