#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The window with GDK_SCALE=2 on a 2560x1440 screen (1280 logical pixels
# wide) fits it with every header control inside; with
# GTK_THEME=Adwaita:dark the side panel and the details pane follow the
# theme: a dark background under light text (they were light on light).
if [ -z "$MV_GUI_INNER" ]; then
  MV_GUI_INNER=1 exec xvfb-run -a -s "-screen 0 2560x1440x24 -noreset" sh "$0" "$@"
fi
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/viewer/xwin.sh"
command -v openbox >/dev/null || skip_all "openbox not installed"
b=$top_builddir
pids=""
cleanup () { for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tap_tmp"; }
trap cleanup EXIT
openbox >/dev/null 2>&1 &
pids="$pids $!"
shot () { import -window root "$tap_tmp/shot.png" 2>/dev/null; }
pix () { "$b/tests/viewer/pngpix" "$tap_tmp/shot.png" "$@"; }
red () { shot && pix --count ff0000; }
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
# Luminance (0-255) of an rrggbb colour.
lum () { printf '%d\n' $(( (0x${1%????} * 299 + 0x$(echo "$1" | cut -c3-4) * 587 + 0x${1#????} * 114) / 1000 )); }

"$b/tests/viewer/mklog" --info "$tap_tmp/info.clog"
ok $? "test log written"

GDK_SCALE=2 MPEVIEW_TEST_LOG=$log "$b/mpeview" "$tap_tmp/info.clog" \
  2>"$tap_tmp/err" &
v=$!
pids="$pids $v"
win=$(find_window '^info\.clog$')
test -n "$win"; ok $? "GDK_SCALE=2: window titled info.clog"
r0=$(wait_stable red -gt 1000); ok $? "GDK_SCALE=2: states drawn ($r0 px)"
eval "$(xdotool getwindowgeometry --shell "$win")"
test "$WIDTH" -le 2560 && test "$HEIGHT" -le 1440
ok $? "GDK_SCALE=2: the window fits the screen: ${WIDTH}x$HEIGHT"
wl=$(wait_log '^window '); ok $? "layout reported: $wl"
sleep 1
ww=$(grep '^window ' "$log" | tail -n 1 | awk '{print $2}')
last=$(grep -n '^window ' "$log" | tail -n 1 | cut -d: -f1)
tail -n +"$last" "$log" | grep '^control ' >"$tap_tmp/controls"
bad=$(awk -v w="$ww" '$3 == "hidden" || $3 < 0 || $3 + $5 > w { print $2 }' \
        "$tap_tmp/controls" | tr '\n' ' ')
test "$ww" -le 1280 && test -z "$bad"
ok $? "GDK_SCALE=2: every control inside the ${ww}-px (logical) window${bad:+: not $bad}"
kill $v

# Dark theme: click a state, then read the details pane's colours.
rm -f "$log"
GTK_THEME=Adwaita:dark MPEVIEW_TEST_LOG=$log "$b/mpeview" \
  "$tap_tmp/info.clog" 2>"$tap_tmp/err2" &
pids="$pids $!"
win=$(find_window '^info\.clog$')
test -n "$win"; ok $? "dark theme: window titled info.clog"
r0=$(wait_stable red -gt 1000); ok $? "dark theme: states drawn ($r0 px)"
shot
set -- $(pix --rows ff0000)
sy=$(( ($1 + $2) / 2 ))
set -- $(pix --cols ff0000 "$sy")
xdotool mousemove $(($1 + 10)) "$sy" click 1
d=$(wait_log '^details: Compute'); ok $? "dark theme: details shown"
# The details pane, where the window says it is (on the screen: the
# window's origin plus the pane's place); its background is the most
# common colour there, the text the lightest.
sleep 1
o=$(grep '^origin ' "$log" | tail -n 1)
dp=$(grep '^control details ' "$log" | tail -n 1)
diag "$o; $dp"
set -- $o $dp
x=$(($2 + $6)); y=$(($3 + $7)); dw=$8; dh=$9
shot
convert "$tap_tmp/shot.png" -crop $((dw - 8))x$((dh - 8))+$((x + 4))+$((y + 4)) \
  +repage -format %c histogram:info:- 2>/dev/null \
  | sed -n 's/^ *\([0-9]*\):.*#\([0-9A-Fa-f]\{6\}\).*/\1 \2/p' \
  | sort -rn >"$tap_tmp/hist"
bg=$(head -n 1 "$tap_tmp/hist" | awk '{print $2}')
lb=$(lum "$bg")
lt=0
for c in $(awk '{print $2}' "$tap_tmp/hist"); do
  l=$(lum "$c"); [ "$l" -gt "$lt" ] && lt=$l
done
test -n "$bg" && test "$lb" -lt 100; ok $? "dark theme: the details pane is dark (#$bg, luminance $lb)"
test $((lt - lb)) -ge 120; ok $? "dark theme: its text stands out (luminance $lt on $lb)"
finish
