#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpeview --export: pixels where known states, an event and an arrow must
# (and must not) be, other formats, and clean failures on bad input.
. "$top_srcdir/tests/common/tap.sh"
b=$top_builddir
mpeview=$b/mpeview
pix () { "$b/tests/viewer/pngpix" "$@"; }

"$b/tests/viewer/mklog" "$tap_tmp/t.clog"
ok $? "test log written"

# 1108 px wide: labels 96 px, plot 1000 px = 1 ns per pixel; rows start
# at y=30, 22 px each (row 0 centre y=41, row 1 centre y=63).
env -u DISPLAY -u WAYLAND_DISPLAY "$mpeview" --export "$tap_tmp/t.png" \
  --from 0 --to 1000ns --width 1108 "$tap_tmp/t.clog" 2>"$tap_tmp/err"
ok $? "export without a display"
set -- $(pix "$tap_tmp/t.png" 246 41  346 41  346 33  146 41  746 41 \
             796 33  346 63  746 63  1046 63  546 52)
test "$1" = ff0000; ok $? "rank 0 t=150: A is red ($1)"
test "$2" = 00ff00; ok $? "rank 0 t=250: nested B is green ($2)"
test "$3" = ff0000; ok $? "rank 0 t=250 near the top: A around B ($3)"
test "$4" = ffffff; ok $? "rank 0 t=50: nothing before A ($4)"
test "$5" = ffffff; ok $? "rank 0 t=650: nothing after A ($5)"
test "$6" = 0000ff; ok $? "rank 0 t=700: event E marker is blue ($6)"
test "$7" = 00ff00; ok $? "rank 1 t=250: B ($7)"
test "$8" = ff0000; ok $? "rank 1 t=650: A ($8)"
test "$9" = f5f6f8; ok $? "rank 1 t=950: empty (zebra row) ($9)"
shift 9
r=$(printf '%d' "0x$(echo "$1" | cut -c1-2)")
test "$r" -lt 128; ok $? "arrow 400 -> 500 crosses (546,52) dark ($1)"

# Many arrows (650 messages, more than are drawn one by one) become a
# count-weighted density image: 3 messages per pixel column in
# [100, 250) ns darker than 1 in [500, 650), nothing between or above
# the row centres; the slanted band sent in [800, 850) and received
# 100 ns later crosses the rows' middle (y=52) at 850..950 ns.
"$b/tests/viewer/mklog" --msgs "$tap_tmp/m.clog"
ok $? "message-dense test log written"
"$mpeview" --export "$tap_tmp/m.png" --from 0 --to 1000ns --width 1108 \
  "$tap_tmp/m.clog"
ok $? "export 650 arrows"
set -- $(pix "$tap_tmp/m.png" 271 46  671 46  496 46  271 36  971 52  921 46 \
             946 36)
red () { printf '%d' "0x$(echo "$1" | cut -c1-2)"; }
test "$(red "$1")" -lt "$(red "$2")"; ok $? "dense arrows: 3 per column ($1) darker than 1 ($2)"
test "$(red "$2")" -lt 240; ok $? "dense arrows: 1 per column still shows ($2)"
test "$3" = ffffff; ok $? "dense arrows: none at 400 ns ($3)"
test "$4" = ffffff; ok $? "dense arrows: nothing above row 0's centre ($4)"
test "$(red "$5")" -lt 240; ok $? "dense arrows: slanted band at 875 ns, y=52 ($5)"
test "$(red "$6")" -lt 240; ok $? "dense arrows: slanted band at 825 ns, y=46 ($6)"
test "$7" = ffffff; ok $? "dense arrows: slanted band starts at row 0's centre ($7)"

# A given height is shared among few rows (160 px at most): rows at
# y=30..190 and 190..350, nesting inset in proportion, nothing below.
"$mpeview" --export "$tap_tmp/tall.png" --from 0 --to 1000ns --width 1108 \
  --height 700 "$tap_tmp/t.clog"
ok $? "export 1108x700"
set -- $(pix "$tap_tmp/tall.png" 346 45  346 110  346 270  746 270  346 380 \
             546 190)
test "$1" = ff0000; ok $? "tall rows: A around B near row 0's top ($1)"
test "$2" = 00ff00; ok $? "tall rows: B at row 0's centre, y=110 ($2)"
test "$3" = 00ff00; ok $? "tall rows: row 1 is 160 px lower, B at y=270 ($3)"
test "$4" = ff0000; ok $? "tall rows: row 1's A at y=270 ($4)"
test "$5" = ffffff; ok $? "tall rows: nothing below the last row ($5)"
r=$(printf '%d' "0x$(echo "$6" | cut -c1-2)")
test "$r" -lt 128; ok $? "tall rows: the arrow joins the row centres ($6)"
# Bars have a 1-px darker border inside their box: A starts at x=196.
test "$(pix "$tap_tmp/tall.png" 195 110 196 110 197 110 346 40 346 41 | tr '\n' ' ')" \
  = "ffffff 990000 ff0000 990000 ff0000 "
ok $? "tall rows: A's border is dark red, 1 px, inside its box"

# Four processes in 1108x600 fill the height: the plot is y=30..566
# (legend below), 4 rows of 134 px (not 22) at y=30, 164, 298, 432;
# ranks 2 and 3 repeat ranks 0 and 1.
"$b/tests/viewer/mklog" "$tap_tmp/r4.clog" 1 4
ok $? "4-rank test log written"
"$mpeview" --export "$tap_tmp/r4.png" --from 0 --to 1000ns --width 1108 \
  --height 600 "$tap_tmp/r4.clog"
ok $? "export 4 ranks 1108x600"
set -- $(pix "$tap_tmp/r4.png" 346 365  246 365  346 499  746 499  746 557 \
             746 566  546 432  1046 499)
test "$1" = 00ff00; ok $? "4 ranks: rank 2's B at its row centre, y=365 ($1)"
test "$2" = ff0000; ok $? "4 ranks: rank 2's A around it ($2)"
test "$3" = 00ff00; ok $? "4 ranks: bottom row (rank 3) B at y=499 ($3)"
test "$4" = ff0000; ok $? "4 ranks: bottom row A at y=499 ($4)"
test "$5" = 990000; ok $? "4 ranks: bottom row A's lower border at y=557 ($5)"
test "$6" = d9dce1; ok $? "4 ranks: the plot ends right below it, y=566 ($6)"
r=$(printf '%d' "0x$(echo "$7" | cut -c1-2)")
test "$r" -lt 128; ok $? "4 ranks: arrow 2 -> 3 crosses (546,432) dark ($7)"
test "$8" = f5f6f8; ok $? "4 ranks: rank 3 empty at t=950 is a zebra row ($8)"

# 64 processes in the same image keep thin rows (536/64 = 8.4 px each):
# rank 0 at the top, rank 63 at the plot's bottom, nothing past it.
"$b/tests/viewer/mklog" "$tap_tmp/r64.clog" 1 64
ok $? "64-rank test log written"
"$mpeview" --export "$tap_tmp/r64.png" --from 0 --to 1000ns --width 1108 \
  --height 600 "$tap_tmp/r64.clog"
ok $? "export 64 ranks 1108x600"
set -- $(pix "$tap_tmp/r64.png" 246 34  746 42  146 42  746 562  746 570)
test "$1" = ff0000; ok $? "64 ranks: rank 0's A at y=34 ($1)"
test "$2" = ff0000; ok $? "64 ranks: rank 1's A 8 px lower, y=42 ($2)"
test "$3" = f5f6f8; ok $? "64 ranks: rank 1 empty at t=50 ($3)"
test "$4" = ff0000; ok $? "64 ranks: rank 63's A at y=562 ($4)"
test "$5" = ffffff; ok $? "64 ranks: nothing below rank 63 ($5)"

# The whole run (default window and size) also renders.
"$mpeview" --export "$tap_tmp/all.png" "$tap_tmp/t.clog"
ok $? "export the whole run"
test "$(pix "$tap_tmp/all.png" --count ff0000)" -gt 1000
ok $? "whole run: many red pixels"

"$mpeview" --export "$tap_tmp/t.svg" "$tap_tmp/t.clog" &&
  grep -q '<svg' "$tap_tmp/t.svg"
ok $? "SVG export"
"$mpeview" --export "$tap_tmp/t.pdf" "$tap_tmp/t.clog" &&
  head -c 5 "$tap_tmp/t.pdf" | grep -q '%PDF-'
ok $? "PDF export"

# Bad input: a clear message and exit status 1 or 2, never a crash.
fails () { # expected-status message-pattern args...
  want=$1; pat=$2; shift 2
  "$mpeview" "$@" >"$tap_tmp/out" 2>"$tap_tmp/err"
  rc=$?
  [ $rc -eq "$want" ] && grep -q "$pat" "$tap_tmp/err"
}
fails 1 "nosuch.clog" --export "$tap_tmp/x.png" "$tap_tmp/nosuch.clog"
ok $? "missing file: error names it"
printf 'hello world, not a log' >"$tap_tmp/junk.clog"
fails 1 "junk.clog" --export "$tap_tmp/x.png" "$tap_tmp/junk.clog"
ok $? "garbage file: error names it"
size=$(wc -c <"$tap_tmp/t.clog")
head -c $((size / 2)) "$tap_tmp/t.clog" >"$tap_tmp/half.clog"
"$mpeview" --export "$tap_tmp/half.png" "$tap_tmp/half.clog" 2>"$tap_tmp/err"
rc=$?
[ $rc -eq 0 ] && grep -q "warning: .*did not finish" "$tap_tmp/err" &&
  [ -s "$tap_tmp/half.png" ]
ok $? "truncated file: exported with a warning (status $rc: $(head -c 120 "$tap_tmp/err"))"
# The image says what is missing: a note on a pale amber box.
n=$(pix "$tap_tmp/half.png" --count fff4d6)
[ "${n:-0}" -gt 1000 ]
ok $? "truncated file: visible note in the image ($n note pixels)"
# A damaged block (checksum): what can be read is drawn, the error names
# the problem, the status is 1.
cp "$tap_tmp/t.clog" "$tap_tmp/bad.clog"
printf '\336\255\276\357' | dd of="$tap_tmp/bad.clog" bs=1 seek=400 \
  conv=notrunc 2>/dev/null
fails 1 "checksum mismatch" --export "$tap_tmp/bad.png" "$tap_tmp/bad.clog"
ok $? "damaged block: error names it, status 1 ($(head -c 120 "$tap_tmp/err"))"
fails 1 "unknown output format" --export "$tap_tmp/x.bmp" "$tap_tmp/t.clog"
ok $? "unknown output format"
fails 2 "bad time" --export "$tap_tmp/x.png" --from 1parsec "$tap_tmp/t.clog"
ok $? "bad --from"
fails 1 "later than" --export "$tap_tmp/x.png" --from 2us --to 1us \
  "$tap_tmp/t.clog"
ok $? "--to before --from"
fails 1 "x.png" --export "$tap_tmp/nodir/x.png" "$tap_tmp/t.clog"
ok $? "unwritable output"
finish
