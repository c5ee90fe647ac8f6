#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpetop's window under Xvfb watching a 4-rank job: a peer without the
# token is hung up on, the window appears, draws one bar per rank in the
# heat colours (rank 3, the busiest, at the top of the scale), records the
# job's process-level samples, and closes when the job ends.
. "$top_srcdir/tests/common/tap.sh"
TOP=$top_builddir/top/mpetop
PROG=$top_builddir/tests/mpe/monitor-prog
T=$tap_tmp
. "$top_srcdir/tests/viewer/xwin.sh"

cat > "$T/scenario.sh" <<'EOS'
T=$1 TOP=$2 PROG=$3
cd "$T"
timeout 120 "$TOP" --exit-after-job --addr-file addr --record rec.txt \
  > top.out 2> top.err &
W=$!
i=0; while [ ! -s addr ] && [ $i -lt 300 ]; do sleep 0.2; i=$((i+1)); done
# A peer without the token first.
port=$(sed 's,.*:\([0-9]*\)/.*,\1,' addr)
python3 -c "
import socket, time
s = socket.create_connection(('127.0.0.1', $port))
s.sendall(b'hello 1 00000000000000000000000000000000 4 1 10\n')
time.sleep(0.5); s.close()" > bad.out 2>&1
echo $? > bad.rc
MPE_LOGFILE_PREFIX=$T/job MPE_MONITOR=20 MPE_MONITOR_ADDR=$(cat addr) \
  timeout 120 mpiexec -n 4 "$PROG" steady 600 > job.out 2>&1 &
J=$!
. "$4"
find_window mpetop > win.txt
# Screenshots until the busiest bar shows (on a loaded machine the first
# samples may come late) or the job ends.
i=0
while [ $i -lt 60 ] && kill -0 $J 2>/dev/null; do
  sleep 1
  import -window root shot.png 2> import.err
  hot=$(convert shot.png -fuzz 4% -fill black +opaque '#f24d1a' \
    -fill white -opaque '#f24d1a' -format '%[fx:round(mean*w*h)]' info: \
    2>/dev/null)
  [ "${hot:-0}" -gt 5000 ] && break
  i=$((i + 1))
done
wait $J; echo $? > job.rc
wait $W; echo $? > top.rc
EOS
timeout 200 xvfb-run -a -s "-screen 0 1000x600x24 -noreset" \
  sh "$T/scenario.sh" "$T" "$TOP" "$PROG" "$top_srcdir/tests/viewer/xwin.sh"
diag "xvfb-run exit status $?"
test "$(cat "$T/bad.rc")" = 0; ok $? "a peer without the token connects"
grep -q "right token; hung up" "$T/top.err"; ok $? "... and is hung up on"
test -s "$T/win.txt"; ok $? "the window appears"
test "$(cat "$T/job.rc")" = 0; ok $? "the job runs to its end"
test "$(cat "$T/top.rc")" = 0; ok $? "the window closes after the job (exit 0)"
n=$(grep -c '^sample [0-9]* [0-9]* [0-9]* 1 -1 ' "$T/rec.txt")
test "$n" -ge 5; ok $? "process-level samples recorded ($n)"
grep -q '^stats ' "$T/rec.txt"; ok $? "the job's accounting arrives"
# The busiest rank's bar is at the top of the heat scale: rgb(0.95, 0.3,
# 0.1) for the largest value.
hot=$(convert "$T/shot.png" -fuzz 4% -fill black +opaque '#f24d1a' \
  -fill white -opaque '#f24d1a' -format '%[fx:round(mean*w*h)]' info: 2>/dev/null)
diag "pixels of the hottest colour: $hot"
test "${hot:-0}" -gt 5000; ok $? "the screenshot shows the busiest rank's bar"
finish
