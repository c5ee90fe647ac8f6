#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpeview --export-stats: the statistics table as CSV, exact figures on
# the hand-built test log, a time range, and clean failures.
. "$top_srcdir/tests/common/tap.sh"
b=$top_builddir
mpeview=$b/mpeview

"$b/tests/viewer/mklog" "$tap_tmp/t.clog"
ok $? "test log written"

# Rank 0: A [100, 600] around B [200, 300], A [800, 1000]; rank 1:
# B [150, 350], A [520, 900] (ns).
env -u DISPLAY -u WAYLAND_DISPLAY "$mpeview" --export-stats "$tap_tmp/s.csv" \
  "$tap_tmp/t.clog" 2>"$tap_tmp/err"
ok $? "export-stats without a display"
cat >"$tap_tmp/want.csv" <<'CSV'
state,rank,count,total_s,exclusive_s,mean_s,min_s,max_s
A,all,3,0.000001080,0.000000980,0.000000360,0.000000200,0.000000500
A,0,2,0.000000700,0.000000600,0.000000350,0.000000200,0.000000500
A,1,1,0.000000380,0.000000380,0.000000380,0.000000380,0.000000380
B,all,2,0.000000300,0.000000300,0.000000150,0.000000100,0.000000200
B,0,1,0.000000100,0.000000100,0.000000100,0.000000100,0.000000100
B,1,1,0.000000200,0.000000200,0.000000200,0.000000200,0.000000200
CSV
diff "$tap_tmp/want.csv" "$tap_tmp/s.csv" >&2
ok $? "whole run: every state, rank and total exact"

# Instances beginning in [0, 200 ns]: A at 100 on rank 0, B at 200 and 150.
"$mpeview" --export-stats "$tap_tmp/r.csv" --from 0 --to 200ns \
  "$tap_tmp/t.clog"
ok $? "export-stats --from --to"
grep -q '^A,all,1,0.000000500,0.000000400,' "$tap_tmp/r.csv" &&
  grep -q '^B,all,2,0.000000300,' "$tap_tmp/r.csv" &&
  ! grep -q '^A,1,' "$tap_tmp/r.csv"
ok $? "range: instances beginning in it"

"$mpeview" --export-stats "$tap_tmp/r2.csv" --from 700ns "$tap_tmp/t.clog" &&
  grep -q '^A,all,1,0.000000200,' "$tap_tmp/r2.csv" &&
  grep -q '^B,all,0,0.000000000,0.000000000,0.000000000,0.000000000,' \
    "$tap_tmp/r2.csv"
ok $? "--from alone: to the end (states without instances read 0)"

"$mpeview" --export-stats "$tap_tmp/no/such/dir/s.csv" "$tap_tmp/t.clog" \
  2>"$tap_tmp/err"
test $? -eq 1 && grep -q "such/dir" "$tap_tmp/err" &&
  ! test -e "$tap_tmp/no"
ok $? "unwritable output: exit 1 with the path in the message"

printf 'not a log' >"$tap_tmp/bad.clog"
"$mpeview" --export-stats "$tap_tmp/b.csv" "$tap_tmp/bad.clog" 2>/dev/null
test $? -eq 1 && ! test -e "$tap_tmp/b.csv"
ok $? "unreadable input: exit 1, no output"

"$mpeview" --export-stats "$tap_tmp/x.csv" --export "$tap_tmp/x.png" \
  "$tap_tmp/t.clog" 2>/dev/null
test $? -eq 2
ok $? "--export-stats with --export: usage error"

"$mpeview" --export-stats "$tap_tmp/x.csv" --from 2 --to 1 \
  "$tap_tmp/t.clog" 2>/dev/null
test $? -eq 1 && ! test -e "$tap_tmp/x.csv"
ok $? "--to before --from: error, no output"
finish
