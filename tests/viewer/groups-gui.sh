#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Row groups in the real window under Xvfb (xdotool): --collapse shows
# the two node rows; a click on a node's label unfolds it and a second
# click folds it again; ] unfolds every group and [ folds them all.
if [ -z "$MV_GUI_INNER" ]; then
  MV_GUI_INNER=1 exec xvfb-run -a -s "-screen 0 1280x800x24 -noreset" sh "$0" "$@"
fi
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/viewer/xwin.sh"
b=$top_builddir
pids=""
cleanup () { for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tap_tmp"; }
trap cleanup EXIT
shot () { import -window root "$tap_tmp/shot.png" 2>/dev/null; }
# Pixels of rank 0's lone A (red) and of B (green), as one word.
count () {
  shot || return 1
  echo "$("$b/tests/viewer/pngpix" "$tap_tmp/shot.png" --count ff0000)/$("$b/tests/viewer/pngpix" "$tap_tmp/shot.png" --count 00ff00)"
}
# Polls (60 s) until the counts satisfy "$1 $2" twice in a row.
wait_count () { wait_stable count "$@"; }

"$b/tests/viewer/mklog" --nodes "$tap_tmp/n.clog"
ok $? "node test log written"
"$b/mpeview" --group node --collapse "$tap_tmp/n.clog" 2>"$tap_tmp/err" &
pids="$pids $!"
win=$(find_window '^n\.clog$')
test -n "$win"; ok $? "window titled n.clog"
c0=$(wait_count != "0/0"); ok $? "two collapsed node rows drawn: $c0 red/green pixels"
# The rows fill the plot (2 rows: up to 160 px each): y=160 is nodeE's
# row, x=30 its label, whatever the header bar's height.
xdotool mousemove --window "$win" 30 160 click 1
c1=$(wait_count != "$c0"); ok $? "a click on nodeE's label unfolds it: $c0 -> $c1"
xdotool mousemove --window "$win" 30 160 click 1
c2=$(wait_count = "$c0"); ok $? "a second click folds it again: $c2"
xdotool mousemove --window "$win" 600 400 click 1
sleep 0.3
xdotool key bracketright
c3=$(wait_count != "$c0"); ok $? "] unfolds every group: $c3"
xdotool key bracketleft
c4=$(wait_count = "$c0"); ok $? "[ folds them all: $c4"
kill -0 "${pids# }" 2>/dev/null; ok $? "still running"
finish
