#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Clock correction: an injected per-rank offset (rank * 30 ms) is removed
# by the sync; with sync off, receivers are shifted so no message arrives
# before it was sent.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
EX=$B/examples
MPE_TEST_CLOCK_SKEW_NS=30000000 run 4 $EX/ring/ring skew 5; ok $? "ring with skew"
is "skew corrected: no arrow backwards" "$(val skew.clog violations)" 0
is "skew corrected: monotonic" "$(val skew.clog nonmonotonic)" 0
is "skew corrected: matched" "$(val skew.clog matched)" 20
# Under load the ping-pongs may leave a small residual that the shift
# removes; it must be far below the 30-90 ms injected, or, on a machine
# so loaded that no ping-pong was short, within the error bound the sync
# itself states (half its best round trip, summed along the tree).
# residual_ok LIMIT: the residual of err.txt's note against LIMIT ns.
residual_ok () {
  sh=$(sed -n 's/^mpe: note: shifted .* by up to \([0-9]*\) ns.*/\1/p' err.txt)
  bound=$(sed -n "s/^mpe: note: shifted .*sync's error bound: \([0-9]*\) ns.*/\1/p" err.txt)
  [ "${sh:-0}" -lt "$1" ] || { [ -n "$bound" ] && [ "$sh" -le "$bound" ]; }
}
residual_ok 10000000
ok $? "skew removed by the sync (residual ${sh:-0} ns, bound ${bound:-none})"

MPE_TEST_CLOCK_SKEW_NS=-30000000 MPE_CLOCKS_SYNC=no run 4 $EX/ring/ring noskew 5
ok $? "ring with skew and sync off"
grep -q '^mpe: note: shifted 3 rank(s) by up to' err.txt; ok $? "shift noted"
is "shifted: no arrow backwards" "$(val noskew.clog violations)" 0
is "shifted: monotonic" "$(val noskew.clog nonmonotonic)" 0
# MPE2's other sync algorithms: offsets composed along a binomial tree
# (BITREE) or a chain of neighbours (ALTNGBR) over 5 ranks (rank 4 is
# 2 hops from rank 0 in the tree, 4 along the chain).  An offset not
# composed along the path would leave 30 ms or more; 5 ranks on a loaded
# machine leave noise of a few ms, hence 25 ms.
for algo in BITREE altngbr SEQ; do
  MPE_SYNC_ALGORITHM=$algo MPE_TEST_CLOCK_SKEW_NS=30000000 run 5 $EX/ring/ring $algo 5
  ok $? "ring with skew, MPE_SYNC_ALGORITHM=$algo"
  is "$algo: no arrow backwards" "$(val $algo.clog violations)" 0
  is "$algo: matched" "$(val $algo.clog matched)" 25
  residual_ok 25000000
  ok $? "$algo: skew of up to 120 ms removed (residual ${sh:-0} ns, bound ${bound:-none})"
done
MPE_SYNC_ALGORITHM=bogus run 2 $EX/ring/ring bogus 2; ok $? "an unknown MPE_SYNC_ALGORITHM still runs"
grep -q "MPE_SYNC_ALGORITHM=bogus is not DEFAULT, SEQ, BITREE or ALTNGBR" err.txt
ok $? "and is named in a warning"
MPE_SYNC_FREQUENCY=5 MPE_SYNC_SAME_HOST=yes run 2 $EX/ring/ring measured 5
ok $? "measured sync on one host"
is "measured: no arrow backwards" "$(val measured.clog violations)" 0
finish
