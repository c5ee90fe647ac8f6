#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The profile window under Xvfb: Ctrl+P opens it on a log with known
# states (4 ranks; A red takes more time than B green), the first row
# (A) draws its per-rank bars in red, a click on B draws them green.
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
# wait_color COLOUR: polls shots of the profile window until it holds
# more than 500 pixels of COLOUR; prints the count.
wait_color () {
  i=0; n=0
  while [ $i -lt 300 ]; do
    import -window "$pw" "$tap_tmp/shot.png" 2>/dev/null
    n=$(count "$tap_tmp/shot.png" "$1")
    [ -n "$n" ] && [ "$n" -gt 500 ] && { echo "$n"; return 0; }
    sleep 0.2; i=$((i + 1))
  done
  echo "${n:-none}"; return 1
}

"$b/tests/viewer/mklog" "$tap_tmp/t.clog" 1 4
ok $? "test log written (4 ranks)"
MPEVIEW_TEST_LOG=$tap_tmp/tlog "$b/mpeview" "$tap_tmp/t.clog" 2>"$tap_tmp/err" &
pids="$pids $!"
win=$(find_window '^t\.clog$')
test -n "$win"; ok $? "main window"
xdotool mousemove 500 300 click 1 2>/dev/null
sleep 0.3
xdotool key ctrl+p 2>/dev/null
pw=$(find_window '^Profile$')
test -n "$pw"; ok $? "Ctrl+P opens the profile window"
[ -n "$pw" ] || finish
n=$(wait_color ff0000); ok $? "the first row (A) draws red bars per rank ($n)"
import -window "$pw" "$tap_tmp/shot.png" 2>/dev/null
[ "$(count "$tap_tmp/shot.png" 00ff00)" -lt 50 ]; ok $? "no green bars yet"
# The table's second row, under the header and the first row.
xdotool mousemove --window "$pw" 120 109 click 1 2>/dev/null
n=$(wait_color 00ff00); ok $? "a click on the second row (B): green bars ($n)"
# The columns explained under the table.
note=$(grep '^profile note: ' "$tap_tmp/tlog" | tail -n 1)
case $note in *"App %: share of the application time"*"Imbalance: how far the busiest rank is above the mean"*) true ;; *) false ;; esac
ok $? "App % and imbalance explained: $note"
! grep -q . "$tap_tmp/err"; ok $? "nothing on stderr"
finish
