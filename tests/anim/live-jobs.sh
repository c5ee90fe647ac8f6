#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Live mpeanim under Xvfb across two jobs: the waiting window shows the
# line to export, selectable; the second job's rank 0 is not "ended";
# its history names the solo event the job defined and gives times from
# the job's start; the legend names the states and shows their colours.
. "$top_srcdir/tests/common/tap.sh"

anim=$top_builddir/anim/src/mpeanim
feed=$top_builddir/tests/anim/anim-feed
T=$tap_tmp

cat > "$T/scenario.sh" <<'EOS'
#!/bin/sh
anim=$1 feed=$2 T=$3
# Waits (at most 40 s) until the window's text has a line matching $1.
wait_text () {
  i=0
  while ! grep -q "$1" "$T/text" 2> /dev/null && [ $i -lt 400 ]; do
    sleep 0.1; i=$((i + 1))
  done
}
timeout 100 "$anim" --addr-file "$T/addr" --text-out "$T/text" \
  --select 0 > /dev/null 2> "$T/anim.err" &
W=$!
wait_text '^address: '
cp "$T/text" "$T/text0" 2> /dev/null
. "$T/addr"
timeout 40 "$feed" --ranks 2 --msgs 50 --solo --quiet \
  --addr "$MPEANIM_ADDR" > "$T/feed1.out" 2>&1
echo $? > "$T/feed1.rc"
wait_text '^info: rank 0 (ended)'
cp "$T/text" "$T/text1" 2> /dev/null
# The second job holds in Wait until the window's text shows it there.
timeout 60 "$feed" --ranks 2 --msgs 50 --solo --hold-ms 40000 \
  --hold-file "$T/seen" --quiet --addr "$MPEANIM_ADDR" \
  > "$T/feed2.out" 2>&1 &
F=$!
wait_text '^info: .*  begin Wait$'
cp "$T/text" "$T/text2" 2> /dev/null
# The frame reaches the screen after its text is written.
i=0
while [ $i -lt 50 ]; do
  import -window root "$T/shot.png" 2> /dev/null
  n=$(convert "$T/shot.png" -fill black +opaque '#0000ff' -fill white \
    -opaque '#0000ff' -format '%[fx:round(mean*w*h)]' info: 2>/dev/null)
  [ "${n:-0}" -gt 500 ] && break
  sleep 0.2; i=$((i + 1))
done
touch "$T/seen"
wait $F
echo $? > "$T/feed2.rc"
kill $W 2> /dev/null
wait $W 2> /dev/null
EOS

timeout 150 xvfb-run -a -s "-screen 0 1024x768x24 -noreset" \
  sh "$T/scenario.sh" "$anim" "$feed" "$T"
diag "xvfb-run exit status $?"
for f in text0 text1 text2; do
  [ -f "$T/$f" ] && sed "s/^/$f: /" "$T/$f" | head -30 | while read -r l; do
    diag "$l"; done
done

addr=$(sed -n "s/^export //p" "$T/addr")
grep -qxF "address: export $addr" "$T/text0"
ok $? "waiting window shows the line to export"
grep -qx "address selectable: 1" "$T/text0"
ok $? "... in a selectable label"
grep -q "^status: waiting for a job" "$T/text0"
ok $? "... and says it waits for a job"
test "$(cat "$T/feed1.rc")" = 0; ok $? "first job exits 0"
grep -q '^info: rank 0 (ended)' "$T/text1"
ok $? "first job's rank 0 shown ended"
test "$(cat "$T/feed2.rc")" = 0; ok $? "second job exits 0"
grep -q "^info: rank 0 - last" "$T/text2"
ok $? "second job's running rank 0 not shown ended"
grep -q '^info: [0-9.]*  event Checkpoint$' "$T/text2"
ok $? "solo event named by the job's definition"
! grep -q 'event 5000' "$T/text2"
ok $? "... never by its number"
grep -q '^info: [0-9.]*  begin Wait$' "$T/text2"
ok $? "state begin named"
# Times from the job's start: each record of a job of a few seconds.
bad=$(sed -n 's/^info: \([-0-9.][0-9.]*\)  .*/\1/p' "$T/text2" |
  awk '$1 < 0 || $1 > 100 { n++ } END { print n + 0 }')
n=$(grep -c '^info: [0-9]' "$T/text2")
test "$n" -gt 0 && test "$bad" = 0
ok $? "history times are seconds since the job's start ($n lines, $bad not)"
grep -q '^status: t [0-9.]* s ' "$T/text2"
ok $? "status gives the job's time"
grep -qx 'legend: Compute #ff0000' "$T/text2" &&
  grep -qx 'legend: Wait #0000ff' "$T/text2"
ok $? "legend names the job's states with their colours"
grep -qx 'legend: Late #00ff00' "$T/text2"
ok $? "... a state begun before its definition came too"
! grep -q 'legend: Checkpoint' "$T/text2"
ok $? "... and no solo event as a state"
# Every rank sits in Wait (blue): red is only the legend's swatch.
red=$(convert "$T/shot.png" -fill black +opaque '#ff0000' -fill white \
  -opaque '#ff0000' -format '%[fx:round(mean*w*h)]' info: 2>/dev/null)
blue=$(convert "$T/shot.png" -fill black +opaque '#0000ff' -fill white \
  -opaque '#0000ff' -format '%[fx:round(mean*w*h)]' info: 2>/dev/null)
diag "red pixels $red, blue $blue"
test "${red:-0}" -ge 100 && test "${red:-0}" -le 200
ok $? "legend swatch for Compute drawn in the window ($red px)"
test "${blue:-0}" -gt 500; ok $? "ranks drawn in Wait (blue)"
finish
