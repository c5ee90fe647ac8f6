#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# '-' is standard output for the commands that write a log: convert's
# OUT operand (through a temporary file for the writers that seek) and
# repair -o -, never a file named '-'; convert --progress draws on a
# terminal only, from the start of the writing, within a stream.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"

log=$tap_tmp/run.clog
gen_log "$log" 2 1 3000
cd "$tap_tmp" || bail "no $tap_tmp"

# convert IN -: the bytes convert IN OUT writes, the report on stderr.
for f in json clog clog2; do
  "$clogtool" convert -q "$log" "file.$f" >/dev/null 2>&1
  run 0 "convert IN - --format $f" "$clogtool" convert "$log" - --format $f
  cmp -s "file.$f" "$tap_tmp/out"
  ok $? "convert IN - --format $f writes what convert IN OUT.$f writes"
  grep -q "^$log -> - ($f): " "$tap_tmp/err"; ok $? "  the report on stderr"
done
"$python" -c 'import json, sys; json.load(open(sys.argv[1]))' file.json
ok $? "the JSON on standard output parses"
"$clogtool" convert -q "$log" - --format clog 2>/dev/null | cat >pipe.clog
cmp -s file.clog pipe.clog; ok $? "convert IN - writes a .clog into a pipe"
run 2 "convert IN - needs --format" "$clogtool" convert "$log" -
grep -q "needs --format" "$tap_tmp/err"; ok $? "  and says so"
run 2 "convert IN - --format otf2 (an archive is several files)" \
  "$clogtool" convert "$log" - --format otf2
[ ! -e ./- ]; ok $? "convert made no file named '-'"

# repair -o -: the repaired log on stdout, the report on stderr.
"$clogtool" repair "$log" -o rep-file.clog >/dev/null 2>&1
run 0 "repair -o -" "$clogtool" repair "$log" -o -
"$clogtool" print --tsv rep-file.clog >want.tsv 2>/dev/null
cp "$tap_tmp/out" rep-out.clog
"$clogtool" print --tsv rep-out.clog >got.tsv 2>/dev/null
cmp -s want.tsv got.tsv && [ -s want.tsv ]
ok $? "repair -o - writes the repaired log to stdout"
grep -q "^-: kept [0-9]* block" "$tap_tmp/err"; ok $? "  the report on stderr"
run 0 "repair --output -" "$clogtool" repair --output - "$log"
[ ! -e ./- ]; ok $? "repair made no file named '-'"

# --progress: nothing when stderr is not a terminal ...
run 0 "convert --progress, stderr a file" "$clogtool" convert -q --progress \
  "$log" p.json
[ ! -s "$tap_tmp/err" ]; ok $? "convert --progress is quiet off a terminal"
# ... on a terminal, the first percentage is drawn early in the one
# stream (4096 of 300000 events written), not at a fixed 50%, and the
# last is 100%.
if script -qec true /dev/null >/dev/null 2>&1; then
  gen_log one.clog 1 1 300000
  script -qec "'$clogtool' convert -q --progress one.clog p2.json" \
    /dev/null </dev/null >tty.out 2>&1
  tr '\r' '\n' <tty.out | sed -n 's/^converting: *\([0-9]*\)%.*/\1/p' >pct.out
  first=$(head -n 1 pct.out); last=$(tail -n 1 pct.out)
  [ -n "$first" ] && [ "$first" -lt 10 ] && [ "$last" = 100 ]
  ok $? "convert --progress on a terminal: first ${first:-none}%, last ${last:-none}%"
  # Never backwards.
  sort -n -c pct.out; ok $? "  and never goes back"
  # An MPE2 log imported straight to .clog reaches 100% too.
  mpe2=$top_srcdir/tests/interop/data/srtest.clog2
  script -qec "'$clogtool' convert -q --progress '$mpe2' mpe2.clog" \
    /dev/null </dev/null >tty2.out 2>&1
  last=$(tr '\r' '\n' <tty2.out | sed -n 's/^converting: *\([0-9]*\)%.*/\1/p' \
         | tail -n 1)
  [ "$last" = 100 ]; ok $? "convert --progress of an MPE2 log ends at ${last:-none}%"
else
  diag "skipped: no script(1) for a terminal"
fi
finish
