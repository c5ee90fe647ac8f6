#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The flame graph window under Xvfb, on the sample test log
# (tests/viewer/mv-testlog.h, mv_testlog_write_samples): Ctrl+G opens
# it and draws the hot box; a click on it marks its samples in the
# timeline (the mark bars appear in the main window, on both ranks);
# Ctrl+E draws the samples in the rows.
if [ -z "$MV_GUI_INNER" ]; then
  MV_GUI_INNER=1 exec xvfb-run -a -s "-screen 0 1280x800x24 -noreset" sh "$0" "$@"
fi
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/viewer/xwin.sh"
b=$top_builddir
PIX="$b/tests/viewer/pngpix"
pids=""
cleanup () { for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tap_tmp"; }
trap cleanup EXIT
mark=c8106e
# wait_color WIN COLOUR: polls shots of WIN until it holds more than 100
# pixels of COLOUR (the shot stays in $tap_tmp/shot.png); prints the count.
wait_color () {
  i=0; n=0
  while [ $i -lt 300 ]; do
    import -window "$1" "$tap_tmp/shot.png" 2>/dev/null
    n=$("$PIX" "$tap_tmp/shot.png" --count "$2")
    [ -n "$n" ] && [ "$n" -gt 100 ] && { echo "$n"; return 0; }
    sleep 0.2; i=$((i + 1))
  done
  echo "${n:-none}"; return 1
}

log=$tap_tmp/s.clog
"$b/tests/viewer/mklog" --samples "$log"; ok $? "sample test log written"
"$b/mpeview" --export-flame "$tap_tmp/f.json" "$log"
rgb () {
  python3 -c '
import json, sys
def walk(n):
    if n["name"] == sys.argv[2]:
        print(n["rgb"])
    for c in n["children"]:
        walk(c)
walk(json.load(open(sys.argv[1])))' "$tap_tmp/f.json" "$1"
}
hot=$(rgb prog+0x3000); warm=$(rgb prog+0x4000)
diag "hot's colour $hot, warm's $warm"
MPEVIEW_TEST_LOG=$tap_tmp/tlog "$b/mpeview" "$log" 2>"$tap_tmp/err" &
pids="$pids $!"
win=$(find_window '^s\.clog$')
test -n "$win"; ok $? "main window"
xdotool mousemove 500 300 click 1 2>/dev/null
sleep 0.3
import -window "$win" "$tap_tmp/shot.png" 2>/dev/null
n=$("$PIX" "$tap_tmp/shot.png" --count $mark)
[ "$n" = 0 ]; ok $? "no marks before a selection ($n px)"
xdotool key ctrl+g 2>/dev/null
fw=$(find_window '^Flame graph$')
test -n "$fw"; ok $? "Ctrl+G opens the flame graph window"
[ -n "$fw" ] || finish
# Out of the way of the main window's rows (the shots are of the screen).
xdotool windowmove "$fw" 0 560 2>/dev/null
sleep 0.3
n=$(wait_color "$fw" "$hot"); ok $? "the hot box is drawn ($n px)"
set -- $("$PIX" "$tap_tmp/shot.png" --rows "$hot")
y=$((($1 + $2) / 2))
set -- $("$PIX" "$tap_tmp/shot.png" --cols "$hot" $y)
x=$((($1 + $2) / 2))
diag "clicking the hot box at $x,$y"
xdotool mousemove --window "$fw" $x $y click 1 2>/dev/null
n=$(wait_color "$win" $mark); ok $? "a click on it marks the timeline ($n px)"
set -- $("$PIX" "$tap_tmp/shot.png" --rows $mark)
[ "$#" = 2 ] && [ $(($2 - $1)) -gt 50 ]
ok $? "on both ranks' rows ($*)"
xdotool mousemove 500 300 click 1 2>/dev/null
sleep 0.3
xdotool key ctrl+e 2>/dev/null
# (hot's ticks lie under the marks' tint: look for warm's, not marked)
n=$(wait_color "$win" "$warm"); ok $? "Ctrl+E: warm samples in the rows ($n px)"
grep -q '^legend: Samples: a colour per function (top strip' "$tap_tmp/tlog"
ok $? "the legend names the sample strips"
! grep -q . "$tap_tmp/err"; ok $? "nothing on stderr"
finish
