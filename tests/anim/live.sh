#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Live mpeanim under Xvfb with four fake ranks running the real client:
# hostile clients are rejected without harm, the window's counters match
# what the ranks sent, a screenshot shows the ranks' state colour, and
# killing the window leaves the ranks running to completion.
. "$top_srcdir/tests/common/tap.sh"

anim=$top_builddir/anim/src/mpeanim
feed=$top_builddir/tests/anim/anim-feed
T=$tap_tmp

cat > "$T/scenario.sh" <<'EOS'
#!/bin/sh
anim=$1 feed=$2 T=$3
wait_file () {
  i=0
  while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
# --- phase 1: hostile clients, then a job ---------------------------
timeout 60 "$anim" --addr-file "$T/addr1" --stats-out "$T/stats1" \
  --exit-after-job > "$T/anim1.out" 2> "$T/anim1.err" &
W=$!
wait_file "$T/addr1"
. "$T/addr1"
good=$MPEANIM_ADDR
tcp=${good#*,}
bad=$(echo "$tcp" | sed 's,/[0-9a-f]*$,/00000000000000000000000000000000,')
timeout 20 "$feed" --ranks 1 --msgs 50 --quiet --addr "$bad" \
  > "$T/bad.out" 2>&1
echo $? > "$T/bad.rc"
timeout 20 "$feed" --garbage --addr "$tcp" > "$T/garbage.out" 2>&1
echo $? > "$T/garbage.rc"
# 2 s of messages, then the ranks hold Wait until a screenshot has shown
# it (the hold file) or 40 s have passed: a CI under load drew 4 frames
# in 0.5 s of messages and none in a fixed 2.5 s hold.
timeout 60 "$feed" --ranks 4 --msgs 2000 --rate 1000 --hold-ms 40000 \
  --hold-file "$T/seen" --quiet --addr "$good" > "$T/feed1.out" 2>&1 &
F=$!
sleep 1
while kill -0 $F 2> /dev/null; do
  import -window root "$T/shot.png" 2> "$T/import.err"
  n=$(convert "$T/shot.png" -fill black +opaque '#0000ff' -fill white \
    -opaque '#0000ff' -format '%[fx:round(mean*w*h)]' info: 2>/dev/null)
  [ "${n:-0}" -gt 500 ] && break
  sleep 0.2
done
touch "$T/seen"
wait $F
echo $? > "$T/feed1.rc"
wait $W
echo $? > "$T/anim1.rc"
# --- phase 2: the window is killed in the middle of a job ------------
timeout 60 "$anim" --addr-file "$T/addr2" > /dev/null 2>&1 &
W=$!
wait_file "$T/addr2"
. "$T/addr2"
start=$(date +%s)
timeout 60 "$feed" --ranks 4 --msgs 12000 --rate 4000 --quiet \
  --addr "$MPEANIM_ADDR" > "$T/feed2.out" 2>&1 &
F=$!
sleep 1
kill -9 $W
wait $F
echo $? > "$T/feed2.rc"
echo $(( $(date +%s) - start )) > "$T/feed2.secs"
# The same job with no window at all, for the machine's pace now.
start=$(date +%s)
timeout 60 "$feed" --ranks 4 --msgs 12000 --rate 4000 --quiet --no-client \
  > "$T/feed2b.out" 2>&1
echo $(( $(date +%s) - start )) > "$T/feed2b.secs"
# --- phase 3: a rank on "another node" (UNIX path absent) uses TCP ---
timeout 60 "$anim" --addr-file "$T/addr3" --stats-out "$T/stats3" \
  --exit-after-job > /dev/null 2>&1 &
W=$!
wait_file "$T/addr3"
. "$T/addr3"
tok=${MPEANIM_ADDR##*/}
timeout 60 "$feed" --ranks 2 --msgs 100 --quiet \
  --addr "unix:/nonexistent/sock#$tok,${MPEANIM_ADDR#*,}" > "$T/feed3.out" 2>&1
echo $? > "$T/feed3.rc"
wait $W
EOS

timeout 150 xvfb-run -a -s "-screen 0 1024x768x24 -noreset" \
  sh "$T/scenario.sh" "$anim" "$feed" "$T"
diag "xvfb-run exit status $?"

get () { sed -n "s/^$1=//p" "$T/stats1"; }
test "$(cat "$T/anim1.rc")" = 0; ok $? "window exits 0 after the job"
test "$(cat "$T/feed1.rc")" = 0; ok $? "the ranks of the job exit 0"
test "$(cat "$T/bad.rc")" = 0; ok $? "a rank with a wrong token runs on (exit 0)"
grep -q "wrong token" "$T/anim1.err"; ok $? "window logs the wrong token"
test "$(cat "$T/garbage.rc")" = 0; ok $? "garbage client connected and was closed"
test "$(get rejected)" = 2; ok $? "two connections rejected ($(get rejected))"
test "$(get clients)" = 4; ok $? "four ranks said HELLO ($(get clients))"
test "$(get ranks_complete)" = 4; ok $? "all four END counts match ($(get ranks_complete))"
test "$(get messages)" = 8000; ok $? "messages seen = sent = 8000 ($(get messages))"
test "$(get matched)" = 8000; ok $? "every send matched its receive ($(get matched))"
test "$(get records)" = 32008; ok $? "records = 4 x (2000 x 4 + 2) ($(get records))"
test "$(get records_expected)" = 32008; ok $? "ranks report 32008 records sent"
test "$(get dropped)" = 0; ok $? "no updates dropped ($(get dropped))"
test "$(get frames)" -gt 10; ok $? "window drew frames ($(get frames))"
grep -q "^export MPEANIM_ADDR='unix:.*#[0-9a-f]\{32\},tcp://127.0.0.1:[0-9]*/[0-9a-f]\{32\}'$" \
  "$T/anim1.out"; ok $? "window prints the address with its token"
# Ranks sit in Wait (blue) while the screenshot is taken.
blue=$(convert "$T/shot.png" -fill black +opaque '#0000ff' -fill white \
  -opaque '#0000ff' -format '%[fx:round(mean*w*h)]' info: 2>/dev/null)
diag "blue pixels in the screenshot: $blue"
test "${blue:-0}" -gt 500; ok $? "screenshot shows the ranks in Wait (blue)"
test "$(cat "$T/feed2.rc")" = 0; ok $? "killed window: ranks still exit 0"
# Not slowed: at most 3 s more than the run without a window (3 s of
# work on an idle machine; a rank blocked on the dead window would wait
# for its time-outs).
k=$(cat "$T/feed2.secs") b=$(cat "$T/feed2b.secs")
test "$k" -le $((b + 3))
ok $? "killed window: job not slowed ($k s; $b s without a window)"
test "$(cat "$T/feed3.rc")" = 0; ok $? "ranks with an unusable UNIX path exit 0"
test "$(sed -n 's/^messages=//p' "$T/stats3")" = 200; ok $? "... and reach the window over TCP (200 messages)"
"$feed" --ranks 1 --msgs 10 --addr "tcp://nohost/xyz" > "$T/badaddr.out" 2>&1
test $? = 1; ok $? "a malformed address makes anim_client_start fail"
grep -q "bad address" "$T/badaddr.out"; ok $? "... with a clear message"
finish
