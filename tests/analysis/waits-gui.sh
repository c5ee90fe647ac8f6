#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The window (under Xvfb) on waits-prog's allreduce log: no hatch at
# first; Threads > MPI waits hatched (by the keyboard) hatches the waits
# and adds the legend row; toggled off again, the hatch goes.
if [ -z "$MV_GUI_INNER" ]; then
  MV_GUI_INNER=1 exec xvfb-run -a -s "-screen 0 1200x800x24 -noreset" sh "$0" "$@"
fi
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
. "$top_srcdir/tests/viewer/xwin.sh"
command -v openbox >/dev/null || skip_all "openbox not installed"
b=$top_builddir
hatch=2b2b2b   # MV_WAIT_HATCH_RGB
pids=""
cleanup () { for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tap_tmp"; }
trap cleanup EXIT
openbox >/dev/null 2>&1 &
pids="$pids $!"
shot () { import -window root "$tap_tmp/shot.png" 2>/dev/null; }
hatched () { shot && "$b/tests/viewer/pngpix" "$tap_tmp/shot.png" --count $hatch; }
log=$tap_tmp/tlog
wait_log () {
  i=0
  while [ $i -lt 300 ]; do
    l=$(grep -e "$1" "$log" 2>/dev/null | tail -n 1)
    [ -n "$l" ] && { echo "$l"; return 0; }
    sleep 0.2; i=$((i + 1))
  done
  return 1
}

wrun 4 "$b/tests/analysis/waits-prog" allreduce 60; ok $? "allreduce runs"
clog=$(ls "$tap_tmp"/log*.clog 2>/dev/null | head -1)
MPEVIEW_TEST_LOG=$log "$b/mpeview" "$clog" 2>"$tap_tmp/err" &
pids="$pids $!"
win=$(find_window "$(basename "$clog")")
test -n "$win"; ok $? "window open"
c=$(wait_log '^control threads [0-9]'); ok $? "$c"
sleep 1
# (a few pixels of the colour elsewhere in the window's theme)
n0=$(wait_stable hatched -ge 0); [ "$n0" -lt 100 ]
ok $? "no hatch at first ($n0 pixels)"

# toggle: opens the Threads menu, toggles its first sensitive entry
# (this log has no context switches: off-CPU shading is greyed out).
toggle () {
  set -- $(wait_log '^origin ')
  ox=$2; oy=$3
  set -- $(grep '^control threads [0-9]' "$log" | tail -n 1)
  xdotool mousemove $((ox + $3 + $5 / 2)) $((oy + $4 + $6 / 2)) click 1
  sleep 1
  xdotool key space
  sleep 0.5
  xdotool key Escape
}
toggle
n=$(wait_stable hatched -gt 1000); ok $? "MPI waits hatched: $n pixels"
l=$(wait_log '^legend: MPI waits'); ok $? "$l"
toggle
n=$(wait_stable hatched -le "$n0"); ok $? "toggled off: $n pixels"
finish
