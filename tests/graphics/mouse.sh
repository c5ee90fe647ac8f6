#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPE graphics with a display (Xvfb): the window appears, mouse presses
# injected with xdotool reach MPE_Get_mouse_press on the rank that asks,
# and drags reach MPE_Get_drag_region(_fixratio) with MPE2's region.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/viewer/xwin.sh"
gb=$top_builddir/tests/graphics
T=$tap_tmp
cat > "$T/scenario.sh" <<EOS
#!/bin/sh
. "$top_srcdir/tests/viewer/xwin.sh"
T=$T
export MPE_GRAPHICS_SERVER=$top_builddir/anim/src/mpegraph MPEGRAPH_TRACE=1
unset MPE_GRAPHICS_ADDR
(cd "\$T" && timeout 120 $MPIEXEC -n 2 "$gb/gmouse" "\$T/ready") \
  < /dev/null > "\$T/out" 2> "\$T/err" &
J=\$!
# wait_for FILE TEXT: poll (60 s) until FILE contains TEXT.
wait_for () {
  i=0
  while ! grep -q "\$2" "\$1" 2>/dev/null && [ \$i -lt 300 ]; do
    sleep 0.2; i=\$((i + 1))
  done
}
wait_for "\$T/out" iget
W=\$(find_window '^MPE\$') || { echo "no window" > "\$T/fail"; wait \$J; exit; }
echo "\$W" > "\$T/win"
# Presses made before the rank asks are kept for it.
xdotool mousemove --window "\$W" 30 40 click 1
xdotool mousemove --window "\$W" 100 50 click 3
wait_for "\$T/err" "waits for a drag"
xdotool mousemove --window "\$W" 10 20 mousedown 1 mousemove --window "\$W" 40 60 \
  mousemove --window "\$W" 60 80 mouseup 1
wait_for "\$T/out" "^drag "
wait_for "\$T/err" "waits for a drag"
n=\$(grep -c "waits for a drag" "\$T/err")
while [ "\$n" -lt 2 ]; do sleep 0.2; n=\$(grep -c "waits for a drag" "\$T/err"); done
xdotool mousemove --window "\$W" 50 50 mousedown 1 mousemove --window "\$W" 90 60 \
  mousemove --window "\$W" 150 70 mouseup 1
wait \$J
echo \$? > "\$T/rc"
EOS
timeout 200 xvfb-run -a -s "-screen 0 1024x768x24 -noreset" sh "$T/scenario.sh"
diag "xvfb-run exit status $?"
test ! -e "$T/fail"; ok $? "the MPE window appears on the display"
test "$(cat "$T/rc" 2>/dev/null)" = 0; ok $? "the job exits 0"
[ "$(cat "$T/rc" 2>/dev/null)" = 0 ] || sed 's/^/#   /' "$T/err" | head
grep -q "^iget 0 0$" "$T/out"; ok $? "MPE_Iget_mouse_press: nothing pressed yet"
grep -q "^press 30 40 1 rc 0$" "$T/out"; ok $? "the first press reaches MPE_Get_mouse_press (30,40 button 1)"
grep -q "^press 100 50 3 rc 0$" "$T/out"; ok $? "the second press: 100,50 button 3"
grep -q "^drag 10 20 60 80 rc 0$" "$T/out"; ok $? "a rectangle drag gives its corners"
# ratio 0.5 (height/width): 100 wide -> 50 high, from the press corner.
grep -q "^drag 50 50 150 100 rc 0$" "$T/out"; ok $? "a fixed-ratio drag is widened to height/width 0.5"
sed 's/^/#   /' "$T/out"
finish
