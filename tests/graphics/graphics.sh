#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPE graphics without a display: ranks draw known shapes in every colour
# and logic mode into one (offscreen) mpegraph window, checked by the
# pixels of the frame MPE_CaptureFile writes; 8 ranks at once; the
# Fortran bindings (mpif77, mpif90); a program in MPE2's example style
# built with mpecc -graphics; a window started by hand; no window at all.
. "$top_srcdir/tests/common/tap.sh"
gb=$top_builddir/tests/graphics
libs=$top_builddir/mpe/.libs
MPE_GRAPHICS_SERVER=$top_builddir/anim/src/mpegraph
export MPE_GRAPHICS_SERVER
unset DISPLAY MPE_GRAPHICS_ADDR
T=$tap_tmp
run () {
  np=$1; shift
  (cd "$T" && timeout 120 $MPIEXEC -n "$np" "$@") < /dev/null \
    > "$T/out" 2> "$T/err"
}
show_err () { sed 's/^/#   /' "$T/err" | head -"${1:-10}"; }
pixels () {
  "$gb/gpixels" "$@" > "$T/pix" 2>&1; r=$?
  [ $r -eq 0 ] || sed 's/^/#   /' "$T/pix" | head -20
  return $r
}

for np in 3 8; do
  rm -f "$T"/s*
  run $np "$gb/gshapes" "$T/s$np" headless; r=$?
  ok $r "gshapes on $np ranks exits 0"; [ $r -eq 0 ] || { show_err; cat "$T/out" | grep FAIL; }
  n=$(grep -c "^check PASS" "$T/out")
  ! grep -q "^check FAIL" "$T/out"; ok $? "every return code is as documented ($n checks pass, $np ranks)"
  [ $np -eq 8 ] || grep FAIL "$T/out" | sed 's/^/#   /'
  test -s "$T/s${np}000.png"; ok $? "MPE_CaptureFile wrote s${np}000.png"
  pixels "$T/s${np}000.png" "$T/s$np".expect.*
  ok $? "the frame has every rank's shapes, colours and logic modes ($(tail -1 "$T/pix"))"
done
grep -q "no display: drawing offscreen" "$T/err"; ok $? "without a display the window says it draws offscreen"

run 8 "$gb/gmany" "$T/m"; r=$?
ok $r "8 ranks drawing at once, 20 updates each: exit 0"
test "$(grep -c 'bad 0' "$T/out")" -eq 8; ok $? "no call failed on any of the 8 ranks"
pixels "$T/m000.png" "$T"/m.expect.*; ok $? "every pixel of every rank's stripe is there ($(tail -1 "$T/pix"))"

# Fortran, fixed and free form.
fdir=$(dirname "$MPIFC")
cp "$top_srcdir/tests/graphics/gfort.f" "$top_srcdir/tests/graphics/gfort90.f90" "$T/"
(cd "$T" && "$fdir/mpif77" gfort.f -o gfort -I"$top_srcdir/mpe/include" \
   -L"$libs" -Wl,-rpath,"$libs" -lmpe) > "$T/cc.err" 2>&1
ok $? "mpif77 gfort.f -lmpe builds"; sed 's/^/#   /' "$T/cc.err" | head -5
run 3 ./gfort "$T/f77"; ok $? "Fortran (fixed form) program on 3 ranks: exit 0"
test "$(grep -c 'bad 0' "$T/out")" -eq 3; ok $? "every Fortran call returned the documented ierr"
cat > "$T/f77.expect" <<'EXP'
px 10 10 ff0000
px 29 29 ff0000
px 40 10 ffff00
px 70 10 00ff00
px 10 50 0000ff
px 100 50 0000ff
px 50 61 ff00ff
px 50 59 ff00ff
px 111 50 00ff00
px 114 50 00ff00
px 150 80 ffffff
px 175 75 0080ff
none 140 70 160 90 00ffff
any 118 15 150 32 000000
EXP
pixels "$T/f77000.png" "$T/f77.expect"; ok $? "the Fortran drawing is in the frame ($(tail -1 "$T/pix"))"
(cd "$T" && "$MPIFC" gfort90.f90 -o gfort90 -I"$top_srcdir/mpe/include" \
   -L"$libs" -Wl,-rpath,"$libs" -lmpe) > "$T/cc.err" 2>&1
ok $? "mpif90 gfort90.f90 -lmpe builds"; sed 's/^/#   /' "$T/cc.err" | head -5
run 2 ./gfort90 "$T/f90"; ok $? "Fortran (free form) program on 2 ranks: exit 0"
test "$(grep -c 'bad 0' "$T/out")" -eq 2; ok $? "MPE_MAKE_COLOR_ARRAY from Fortran"
printf 'px 15 15 ff0000\npx 45 15 00ff00\n' > "$T/f90.expect"
pixels "$T/f90000.png" "$T/f90.expect"; ok $? "the free-form drawing is in the frame"

# MPE2's example style, only mpi.h and mpe.h, built by mpecc -graphics.
(cd "$T" && MPECC_LIBDIR=$libs MPECC_INCDIR=$top_srcdir/mpe/include \
   sh "$top_builddir/mpe/mpecc" -graphics "$top_srcdir/tests/graphics/gpi.c" \
   -o gpi -lm) > "$T/cc.err" 2>&1
ok $? "mpecc -graphics builds a program that includes only mpe.h"; sed 's/^/#   /' "$T/cc.err" | head -5
run 4 ./gpi; ok $? "it runs on 4 ranks"; grep -q "pi is approximately 3\.1" "$T/out"
ok $? "and computes pi ($(cat "$T/out"))"

# A window started by hand: the job draws there and the window ends with it
# (its frames go beneath --capture-dir only).
timeout 120 "$MPE_GRAPHICS_SERVER" --headless --exit-after-job \
  --capture-dir "$T" --addr-file "$T/addr" > /dev/null 2> "$T/win.err" &
W=$!
i=0; while [ ! -s "$T/addr" ] && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
. "$T/addr"
rm -f "$T"/h*
MPE_GRAPHICS_SERVER=/nonexistent MPE_GRAPHICS_ADDR=$MPE_GRAPHICS_ADDR \
  run 2 "$gb/gshapes" "$T/h" headless
ok $? "MPE_GRAPHICS_ADDR: the job draws in a window started by hand"
wait $W; ok $? "the window ends after the job (--exit-after-job)"
pixels "$T/h000.png" "$T"/h.expect.*; ok $? "with the same pixels"
unset MPE_GRAPHICS_ADDR

# No window program: every rank gets MPE_ERR_NOXCONNECT, nothing hangs.
MPE_GRAPHICS_SERVER=$T/no-such-mpegraph run 2 "$gb/gshapes" "$T/x" headless
test $? -ne 0; ok $? "without a window program MPE_Open_graphics fails"
test "$(grep -c "^open failed 1$" "$T/out")" -eq 2
ok $? "with MPE_ERR_NOXCONNECT on every rank"
grep -q "cannot start the window program $T/no-such-mpegraph" "$T/err"; ok $? "and says why"
finish
