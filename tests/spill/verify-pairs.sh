#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool verify notices message pairs that cannot be: a receive ending
# well before its send started, and a lone send earlier than a matched
# one of the same key (what a bounded matching queue wrote); pairs cut by
# a crash (lone ends after the matched ones) are fine.
. "$top_srcdir/tests/common/tap.sh"
cd "$tap_tmp" || bail "no scratch dir"
M=$top_builddir/tests/spill/mkpairs
C=$top_builddir/clogtool
for k in good tail backwards order; do
  $M $k $k.clog; ok $? "mkpairs $k"
done
$C verify good.clog > out.txt 2>&1; ok $? "good pairs verify"
$C verify tail.clog > out.txt 2>&1; ok $? "lone ends after the pairs verify"
$C verify backwards.clog > out.txt 2>&1; [ $? -eq 1 ]; ok $? "backwards pair: verify fails"
grep -q 'received more than .* before they were sent' out.txt
ok $? "backwards pair: said so"
$C verify order.clog > out.txt 2>&1; [ $? -eq 1 ]; ok $? "out of order: verify fails"
grep -q "out of MPI's order: an unmatched send earlier" out.txt
ok $? "out of order: said so"
finish
