#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpetop's window as a user drives it: the documented keys work in the
# window as in the text mode (l moves to the next level, and the job's
# samples follow; q closes the window), and SIGTERM or Ctrl+C in its
# terminal (SIGINT) closes it too, while it waits for a job or watches
# one.
. "$top_srcdir/tests/common/tap.sh"
TOP=$top_builddir/top/mpetop
PROG=$top_builddir/tests/mpe/monitor-prog
T=$tap_tmp
. "$top_srcdir/tests/viewer/xwin.sh"

cat > "$T/scenario.sh" <<'EOS'
T=$1 TOP=$2 PROG=$3
cd "$T"
. "$4"
# gone PID: polls (30 s) until the process has exited.
gone () {
  i=0; while kill -0 "$1" 2>/dev/null && [ $i -lt 150 ]; do
    sleep 0.2; i=$((i + 1)); done
  ! kill -0 "$1" 2>/dev/null
}
# A window waiting for a job: SIGTERM, then SIGINT, close it.
for sig in TERM INT; do
  timeout 60 "$TOP" > idle-$sig.out 2>&1 &
  W=$!
  find_window mpetop > idle-$sig.win
  kill -$sig $W
  gone $W; echo $? > idle-$sig.gone
  wait $W; echo $? > idle-$sig.rc
done
# Watching a job: l (process -> node) then q.
rm -f addr
timeout 120 "$TOP" --addr-file addr --record rec.txt > top.out 2> top.err &
W=$!
i=0; while [ ! -s addr ] && [ $i -lt 300 ]; do sleep 0.2; i=$((i+1)); done
MPE_LOGFILE_PREFIX=$T/job MPE_MONITOR=20 MPE_MONITOR_ADDR=$(cat addr) \
  timeout 120 mpiexec -n 4 "$PROG" steady 3000 > job.out 2>&1 &
J=$!
find_window mpetop > job.win
# Wait for process-level samples, then press l over the plot.
i=0; while [ $i -lt 300 ] && ! grep -q '^sample [0-9]* [0-9]* [0-9]* 1 ' rec.txt 2>/dev/null; do
  sleep 0.2; i=$((i + 1)); done
# No window manager: the keyboard follows the pointer (a click on the
# plot does nothing else).
xdotool mousemove 400 300 click 1 2>/dev/null
sleep 0.3
xdotool key l 2>/dev/null
i=0; while [ $i -lt 300 ] && ! grep -q '^sample [0-9]* [0-9]* [0-9]* 2 ' rec.txt 2>/dev/null; do
  sleep 0.2; i=$((i + 1)); done
xdotool key q 2>/dev/null
gone $W; echo $? > q.gone
wait $W; echo $? > q.rc
kill $J 2>/dev/null; wait $J
EOS
timeout 300 xvfb-run -a -s "-screen 0 1000x600x24 -noreset" \
  sh "$T/scenario.sh" "$T" "$TOP" "$PROG" "$top_srcdir/tests/viewer/xwin.sh"
diag "xvfb-run exit status $?"
for sig in TERM INT; do
  test -s "$T/idle-$sig.win"; ok $? "waiting for a job: the window appears ($sig)"
  test "$(cat "$T/idle-$sig.gone")" = 0; ok $? "SIG$sig closes the window"
  is "... with exit status 0" "$(cat "$T/idle-$sig.rc")" 0
done
grep -q '^sample [0-9]* [0-9]* [0-9]* 1 ' "$T/rec.txt"
ok $? "watching a job: process-level samples first"
grep -q '^sample [0-9]* [0-9]* [0-9]* 2 ' "$T/rec.txt"
ok $? "the l key moves to the node level, and the job's samples follow"
test "$(cat "$T/q.gone")" = 0; ok $? "the q key closes the window"
is "... with exit status 0" "$(cat "$T/q.rc")" 0
finish
