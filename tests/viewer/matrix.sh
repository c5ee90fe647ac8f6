#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The communication matrix: --export-matrix pixels of a log with known
# messages (4 ranks, one message 0 -> 1 and one 2 -> 3), then the window
# under Xvfb (Ctrl+M opens it, a click selects a block).
if [ -z "$MV_GUI_INNER" ]; then
  MV_GUI_INNER=1 exec xvfb-run -a -s "-screen 0 1280x800x24 -noreset" sh "$0" "$@"
fi
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/viewer/xwin.sh"
b=$top_builddir
pids=""
cleanup () { for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tap_tmp"; }
trap cleanup EXIT
count () { "$b/tests/viewer/pngpix" "$1" --count "$2"; }
hot=660514     # the colour of the largest value
empty=f1f2f4   # a block without messages
sel=2e70de     # the frame of the selected block

"$b/tests/viewer/mklog" "$tap_tmp/t.clog" 1 4
ok $? "test log written (4 ranks)"
"$b/mpeview" --export-matrix "$tap_tmp/m.png" "$tap_tmp/t.clog"
ok $? "--export-matrix writes the heat map"
# 800 x 800: a 728-pixel square of 4 x 4 blocks of 182 pixels.
# (each holds its count, "1", in light text: a few hundred pixels at most)
n=$(count "$tap_tmp/m.png" $hot)
[ "$n" -le $((2 * 182 * 182)) ] && [ "$n" -gt $((2 * 182 * 182 - 400)) ]
ok $? "two full blocks (0->1, 2->3): $n pixels"
n=$(count "$tap_tmp/m.png" $empty)
[ "$n" = $((14 * 182 * 182)) ]; ok $? "fourteen empty blocks: $n pixels"
"$b/tests/viewer/pngpix" "$tap_tmp/m.png" $((64 + 182 + 90)) $((34 + 90)) \
  $((64 + 90)) $((34 + 182 + 90)) > "$tap_tmp/px"
[ "$(tr '\n' ' ' < "$tap_tmp/px")" = "$hot $empty " ]
ok $? "row 0, column 1 is hot; row 1, column 0 is empty"
"$b/mpeview" --export-matrix "$tap_tmp/e.png" --to 300ns "$tap_tmp/t.clog"
ok $? "--export-matrix of a window before the messages"
[ "$(count "$tap_tmp/e.png" $hot)" = 0 ]; ok $? "nothing in it"
"$b/mpeview" --export-matrix "$tap_tmp/x.svg" "$tap_tmp/t.clog" 2>/dev/null
[ $? -eq 1 ]; ok $? "--export-matrix to a non-PNG name is an error"

"$b/mpeview" "$tap_tmp/t.clog" 2>"$tap_tmp/err" &
pids="$pids $!"
win=$(find_window '^t\.clog$')
test -n "$win"; ok $? "main window"
# A click in the timeline gives it the focus, then the shortcut.
xdotool mousemove 500 300 click 1 2>/dev/null
sleep 0.3
xdotool key ctrl+m 2>/dev/null
mw=$(find_window '^Communication matrix$')
test -n "$mw"; ok $? "Ctrl+M opens the matrix window"
[ -n "$mw" ] || finish
shot () { import -window "$mw" "$tap_tmp/shot.png" 2>/dev/null; }
i=0; n=0
while [ $i -lt 300 ]; do
  shot; n=$(count "$tap_tmp/shot.png" $hot)
  [ -n "$n" ] && [ "$n" -gt 1000 ] && break
  sleep 0.2; i=$((i + 1))
done
[ "$n" -gt 1000 ]; ok $? "the window draws the hot blocks ($n pixels)"
# Click on a hot block: its first pixel row in the shot, then the first
# hot column on that row.
eval "$(xdotool getwindowgeometry --shell "$mw")"
i=0; s=0
xy=$("$b/tests/viewer/pngpix" "$tap_tmp/shot.png" --rows $hot)
y0=${xy%% *}
for x in $(seq 20 8 $((WIDTH - 1))); do
  c=$("$b/tests/viewer/pngpix" "$tap_tmp/shot.png" $x $((y0 + 4)))
  [ "$c" = $hot ] && break
done
xdotool mousemove --window "$mw" $((x + 4)) $((y0 + 4)) click 1 2>/dev/null
while [ $i -lt 300 ]; do
  shot; s=$(count "$tap_tmp/shot.png" $sel)
  [ -n "$s" ] && [ "$s" -gt 100 ] && break
  sleep 0.2; i=$((i + 1))
done
[ "$s" -gt 100 ]; ok $? "a click frames the block ($s pixels)"
! grep -q . "$tap_tmp/err"; ok $? "nothing on stderr"
finish
