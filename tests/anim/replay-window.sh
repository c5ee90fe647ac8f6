#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The replay window under Xvfb: plays a small log, a click on rank 0 opens
# its history box, and the frame shows rank 0's state colour.
. "$top_srcdir/tests/common/tap.sh"

anim=$top_builddir/anim/src/mpeanim
T=$tap_tmp
"$top_builddir/tests/anim/anim-replay-test" --write-log "$T/run.clog"
ok $? "test log written"

cat > "$T/scenario.sh" <<'EOS'
anim=$1 T=$2
# Speed 1/1000: the replay stays near t = 0, where rank 0 is in Compute.
"$anim" --speed 0.001 "$T/run.clog" 2> "$T/anim.err" &
W=$!
wid=$(timeout 20 xdotool search --sync --name "mpeanim - replay" | head -1)
sleep 1
eval "$(xdotool getwindowgeometry --shell "$wid")"
import -window root "$T/before.png"
# Node 0 sits at the top centre of the drawing area (mpeanim(1)); the
# area is the window minus the control bar (about 40 px).
h=$((HEIGHT - 40)); m=$WIDTH; [ $h -lt $m ] && m=$h
xdotool mousemove --window "$wid" $((WIDTH / 2)) $((h / 2 - m * 2 / 5)) click 1
sleep 1
import -window root "$T/after.png"
[ -n "$KEEP_SHOT" ] && cp "$T/after.png" "$KEEP_SHOT"
kill -0 $W; echo $? > "$T/alive"
kill $W 2>/dev/null
wait $W 2>/dev/null
EOS
timeout 60 xvfb-run -a -s "-screen 0 1024x768x24 -noreset" sh "$T/scenario.sh" "$anim" "$T"
count () {
  convert "$1" -fill black +opaque "$2" -fill white -opaque "$2" \
    -format '%[fx:round(mean*w*h)]' info: 2>/dev/null
}
test "$(cat "$T/alive")" = 0; ok $? "window still running after the click"
red=$(count "$T/before.png" '#ff0000')
test "${red:-0}" -gt 500; ok $? "rank 0 drawn in Compute red ($red px)"
# The history box is black at 75% over the #1e1e1e background.
b0=$(count "$T/before.png" '#080808')
b1=$(count "$T/after.png" '#080808')
diag "history box pixels before $b0, after $b1"
test "${b0:-1}" -eq 0 && test "${b1:-0}" -gt 5000
ok $? "click on rank 0 opens its history box"
finish
