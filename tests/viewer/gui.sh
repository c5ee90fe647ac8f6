#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The real window under Xvfb, driven with xdotool: it draws the states,
# wheel/keys/drag change the view, Home restores it, Ctrl+T opens the
# statistics (saved as CSV from there), and a corrupt file gives an error
# dialog, not a crash.
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
red () { shot && "$b/tests/viewer/pngpix" "$tap_tmp/shot.png" --count ff0000; }
# Every wait below polls for a condition with a generous deadline (60 s):
# a loaded machine may take seconds to start a window or redraw it, and
# nothing here asserts how fast.
# Polls until the red pixel count satisfies "$1 $2" and is the same in two
# shots in a row: a redraw still on its way (some of several keys done)
# is not taken for the result.
wait_red () { wait_stable red "$@"; }

"$b/tests/viewer/mklog" "$tap_tmp/t.clog" 1000
ok $? "test log written"
"$b/mpeview" "$tap_tmp/t.clog" 2>"$tap_tmp/err" &
pids="$pids $!"
win=$(find_window '^t\.clog$')
test -n "$win"; ok $? "window titled t.clog"
r0=$(wait_red -gt 1000); ok $? "states drawn: $r0 red pixels"

# Focus the timeline (a click shows details), then zoom in with keys.
xdotool mousemove 500 300 click 1
sleep 0.3
xdotool key w w w
r1=$(wait_red -ne "$r0"); ok $? "W zooms in: red $r0 -> $r1"
xdotool key d d d
r2=$(wait_red -ne "$r1"); ok $? "D pans: red $r1 -> $r2"
xdotool key Home
r3=$(wait_red -eq "$r0"); ok $? "Home fits all again: red $r3"
xdotool mousemove 300 300 click 4 click 4 click 4
r4=$(wait_red -ne "$r0"); ok $? "wheel zooms at the pointer: red $r4"
xdotool mousemove 600 300 mousedown 1 mousemove 400 300 mousemove 200 300 \
  mouseup 1
r5=$(wait_red -ne "$r4"); ok $? "drag pans: red $r4 -> $r5"
xdotool key alt+Left
r6=$(wait_red -ne "$r5"); ok $? "Alt+Left goes back in history: red $r6"

xdotool key ctrl+t
sw=$(find_window '^Statistics$')
test -n "$sw"; ok $? "Ctrl+T opens the statistics window"

# Save as CSV from the window (a file chooser): the table --export-stats
# writes.  The button is live once the statistics are computed: retried.
"$b/mpeview" --export-stats "$tap_tmp/want.csv" "$tap_tmp/t.clog"
i=0; dlg=""
while [ $i -lt 200 ] && [ -z "$dlg" ]; do
  xdotool windowfocus --sync "$sw" key alt+c 2>/dev/null
  sleep 0.3
  dlg=$(xdotool search --onlyvisible --name '^Save statistics as CSV$' \
          2>/dev/null | head -n 1)
  i=$((i + 1))
done
test -n "$dlg"; ok $? "Save as CSV opens a file chooser"
# The name field takes the whole path, typed once the chooser is visible
# (mapped: it can take the focus), and again while the chooser is still
# there and the file is not (keys sent before it was ready).
i=0
while [ $i -lt 30 ] && [ -n "$dlg" ] && ! test -s "$tap_tmp/saved.csv"; do
  xdotool windowfocus --sync "$dlg" key ctrl+a type "$tap_tmp/saved.csv" \
    2>/dev/null && xdotool key Return
  j=0
  while [ $j -lt 10 ] && ! test -s "$tap_tmp/saved.csv"; do
    sleep 0.2; j=$((j + 1))
  done
  i=$((i + 1))
done
cmp "$tap_tmp/want.csv" "$tap_tmp/saved.csv" >&2
ok $? "the saved table equals mpeview --export-stats"
kill -0 $(echo $pids | awk '{print $1}'); ok $? "viewer still running"

# A corrupt file: an error dialog (a second window), no crash.
printf 'CLOG but not really a log file at all' >"$tap_tmp/bad.clog"
"$b/mpeview" "$tap_tmp/bad.clog" 2>"$tap_tmp/err2" &
bad=$!
pids="$pids $bad"
i=0; n=0
while [ $i -lt 300 ]; do
  n=$(xdotool search --onlyvisible --pid $bad 2>/dev/null | wc -l)
  [ "$n" -ge 2 ] && break
  sleep 0.2; i=$((i + 1))
done
test "$n" -ge 2; ok $? "corrupt file: error dialog over the window ($n windows)"
kill -0 $bad; ok $? "corrupt file: no crash"

# Four processes: rows grow to fill the window (160 px at most), and a
# resize recomputes them.  Red (A) spans from rank 0's top to rank 3's
# bottom.  The other windows go first so that only this one is seen.
for p in $pids; do kill "$p" 2>/dev/null; done
pids=""
"$b/tests/viewer/mklog" "$tap_tmp/r4.clog" 1000 4
ok $? "4-rank test log written"
"$b/mpeview" "$tap_tmp/r4.clog" 2>"$tap_tmp/err4" &
pids="$pids $!"
v4=$!
w4=$(find_window '^r4\.clog$')
test -n "$w4"; ok $? "window titled r4.clog"
if [ -z "$w4" ]; then
  # Say why: the viewer gone (its stderr), or the windows there are.
  kill -0 $v4 2>/dev/null && diag "mpeview still runs" || diag "mpeview exited"
  sed 's/^/#   stderr: /' "$tap_tmp/err4" | head -20
  for x in $(xdotool search --name . 2>/dev/null); do
    diag "window $x: $(xdotool getwindowname "$x" 2>/dev/null)"
  done | head -20
fi
xdotool mousemove 1279 799
# Polls until red spans more ($1 -gt) or less ($1 -lt) than $2 rows, the
# same in three shots in a row: a loaded machine can show a layout on its
# way (the status line not there yet).
wait_span () {
  i=0; seen=""; same=0
  while [ $i -lt 300 ]; do
    shot
    set -- "$1" "$2" $("$b/tests/viewer/pngpix" "$tap_tmp/shot.png" \
                         --rows ff0000)
    if [ $# -eq 4 ]; then
      span=$(($4 - $3))
      if [ "$span" "$1" "$2" ]; then
        if [ "$seen" = "$span ($3..$4)" ]; then same=$((same + 1)); else same=1; fi
        seen="$span ($3..$4)"
        [ $same -ge 3 ] && { echo "$seen"; return 0; }
      else
        same=0
      fi
    fi
    sleep 0.2; i=$((i + 1))
  done
  echo "${span:-none}"; return 1
}
s0=$(wait_span -gt 300); ok $? "4 ranks fill the window: red spans $s0 px"
xdotool windowsize "$w4" 900 400
s1=$(wait_span -lt 300); ok $? "smaller window, thinner rows: $s1 px"
case $s1 in
  none*) false ;;
  *) test "${s1%% *}" -gt 150 ;;
esac
ok $? "smaller window: the rows still fill it ($s1 px)"
xdotool windowsize "$w4" 1200 760
s2=$(wait_span -gt 300); ok $? "taller again, rows grow back: $s2 px"
test "$s2" = "$s0"; ok $? "same rows as at first ($s0, $s2)"
finish
