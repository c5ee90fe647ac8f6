#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# LD_PRELOAD of liblmpe.so on an unmodified binary gives the same log as
# relinking.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
lib=$top_builddir/mpe/.libs/liblmpe.so
for mode in ring iring wild; do
  wrun 4 "$wb/wprog-log" $mode; ok $? "$mode: relinked run"
  wlog; ok $? "$mode: relinked log reads back"
  # Polling loops (Testall, Waitsome, Improbe) run a varying number of times.
  poll='^(state|total) MPI_(Testall|Waitsome|Improbe) '
  grep -vE "$poll" "$tap_tmp/sum" > "$tap_tmp/sum.linked"
  wrun 4 env LD_PRELOAD="$lib" "$wb/wprog-plain" $mode; ok $? "$mode: preloaded run"
  wlog; ok $? "$mode: preloaded log reads back"
  grep -vE "$poll" "$tap_tmp/sum" > "$tap_tmp/sum.p" && mv "$tap_tmp/sum.p" "$tap_tmp/sum"
  cmp -s "$tap_tmp/sum" "$tap_tmp/sum.linked"; r=$?
  ok $r "$mode: same log (states, arrows, sizes, counts)"
  [ $r -eq 0 ] || diff "$tap_tmp/sum.linked" "$tap_tmp/sum" | head -10 | sed 's/^/#   /'
  test "$(wc -l < "$tap_tmp/sum")" -gt 20; ok $? "$mode: log is not trivially empty"
done
wrun 2 env LD_PRELOAD="$top_builddir/mpe/.libs/libampe.so" "$wb/wprog-plain" ring
ok $? "libampe preloaded, no animation window"
test "$(grep -c 'MPEANIM_ADDR is not set' "$tap_tmp/run.err")" -eq 1; ok $? "libampe warns once that nothing is animated"
wlog; ok $? "libampe still writes the log"
has "messages 13 0" "with every arrow"
wrun 2 "$wb/wprog-plain" ring; ok $? "without preload the binary logs nothing"
test -z "$(ls "$tap_tmp"/log* 2>/dev/null)"; ok $? "no log file without liblmpe"
finish
