#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The window's background jobs (load, statistics, search) end with it:
# closed while its statistics run, mpeview exits cleanly, and the late
# callbacks touch nothing of the window (GLib would warn; ASan would stop
# the run).  A FIFO given as the log is refused at once, never waited on.
if [ -z "$MV_GUI_INNER" ]; then
  MV_GUI_INNER=1 exec xvfb-run -a -s "-screen 0 1280x800x24 -noreset" sh "$0" "$@"
fi
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/viewer/xwin.sh"
b=$top_builddir
pids=""
cleanup () { for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tap_tmp"; }
trap cleanup EXIT

# Polls (60 s) for the process to end; returns its exit status (a
# process still running then is killed, and the wait fails).
wait_exit () {
  i=0
  while [ $i -lt 300 ] && kill -0 "$1" 2>/dev/null; do
    sleep 0.2; i=$((i + 1))
  done
  if kill -0 "$1" 2>/dev/null; then
    kill -9 "$1"; wait "$1"; return 1
  fi
  wait "$1"
}
# The window of process $1, once visible.
pid_window () {
  i=0
  while [ $i -lt 300 ]; do
    w=$(xdotool search --onlyvisible --pid "$1" 2>/dev/null | head -n 1)
    [ -n "$w" ] && { echo "$w"; return 0; }
    sleep 0.2; i=$((i + 1))
  done
  return 1
}
close_window () { xdotool windowfocus --sync "$1" key ctrl+w 2>/dev/null; }

mkfifo "$tap_tmp/blocked.clog"
timeout 60 "$b/mpeview" --export "$tap_tmp/x.png" "$tap_tmp/blocked.clog" \
  2>"$tap_tmp/err1"
r=$?
test $r -ne 0 && test $r -ne 124; ok $? "a FIFO as the log: refused at once (exit $r)"
grep -q "not a regular file" "$tap_tmp/err1"; ok $? "... saying it is not a regular file"

# A log whose statistics take a moment: closed as soon as it is shown
# (the statistics job starts then).
"$b/tests/viewer/mklog" "$tap_tmp/big.clog" 200000 8
ok $? "test log written"
"$b/mpeview" "$tap_tmp/big.clog" 2>"$tap_tmp/err2" &
p=$!; pids="$pids $p"
w=$(find_window '^big\.clog$')
test -n "$w"; ok $? "window titled big.clog"
close_window "$w"
wait_exit $p; ok $? "closed during the statistics: mpeview exits 0"
cat "$tap_tmp/err2" >&2
! grep -q . "$tap_tmp/err2"; ok $? "closed during the statistics: nothing on stderr"
finish
