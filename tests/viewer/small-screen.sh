#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The window on an 800x600 screen under a real window manager (openbox):
# it fits, every header control lies inside it, and the main menu (F10)
# opens the statistics.  The plot takes the keys as soon as the log is
# open (no click first), and after a click in the legend; a run of key
# zooms is one step back in the history.  A click on
# MPE_Comm_init names it (no "events lost"), a click on a state shows
# its end event's info and frames it, and a search frames the instance
# found and shows its details.  Ctrl+G on a log without samples says
# so (no empty flame graph window); the Threads menu greys out the
# layers the log has no records for, saying why.  The window reports
# what X tools cannot read (the details text, the controls' places)
# through MPEVIEW_TEST_LOG.
if [ -z "$MV_GUI_INNER" ]; then
  MV_GUI_INNER=1 exec xvfb-run -a -s "-screen 0 800x600x24 -noreset" sh "$0" "$@"
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
frame () { shot && pix --count ffd500; }
log=$tap_tmp/tlog
# Polls (60 s) until the test log has a line matching $1; prints it.
wait_log () {
  i=0
  while [ $i -lt 300 ]; do
    l=$(grep -e "$1" "$log" 2>/dev/null | tail -n 1)
    [ -n "$l" ] && { echo "$l"; return 0; }
    sleep 0.2; i=$((i + 1))
  done
  return 1
}

"$b/tests/viewer/mklog" --info "$tap_tmp/info.clog"
ok $? "test log written"
MPEVIEW_TEST_LOG=$log "$b/mpeview" "$tap_tmp/info.clog" 2>"$tap_tmp/err" &
pids="$pids $!"
win=$(find_window '^info\.clog$')
test -n "$win"; ok $? "window titled info.clog"
r0=$(wait_stable red -gt 1000); ok $? "states drawn: $r0 red pixels"

st=$(wait_log '^subtitle: '); ok $? "header subtitle: $st"
case $st in "subtitle: 1 process · 7 events"*) true ;; *) false ;; esac
ok $? "one process, said so"

# Fits the screen, every control inside it.
eval "$(xdotool getwindowgeometry --shell "$win")"
test "$WIDTH" -le 800 && test "$HEIGHT" -le 600
ok $? "the window fits 800x600: ${WIDTH}x$HEIGHT"
wl=$(wait_log '^window '); ok $? "layout reported: $wl"
ww=$(echo "$wl" | awk '{print $2}')
sleep 1
last=$(grep -n '^window ' "$log" | tail -n 1 | cut -d: -f1)
tail -n +"$last" "$log" | grep '^control ' >"$tap_tmp/controls"
n=$(wc -l <"$tap_tmp/controls")
test "$n" -ge 10; ok $? "$n header controls reported"
bad=$(awk -v w="$ww" '$3 == "hidden" || $3 < 0 || $3 + $5 > w { print $2 }' \
        "$tap_tmp/controls" | tr '\n' ' ')
test -z "$bad"; ok $? "every control inside the ${ww}-px window${bad:+: not $bad}"

# Keys right after opening: W zooms in (red changes), Home fits again.
xdotool key w w
r1=$(wait_stable red -ne "$r0"); ok $? "W zooms in without a click first: $r0 -> $r1"
xdotool key Home
r2=$(wait_stable red -eq "$r0"); ok $? "Home fits all again: $r2"
# A click in the legend (on a name, not its check box) keeps them.
shot
set -- $(pix --rows ffff00)
ly=$(( ($1 + $2) / 2 ))
set -- $(pix --cols ffff00 "$ly")
xdotool mousemove $(($2 + 40)) "$ly" click 1
sleep 0.5
xdotool key w
r3=$(wait_stable red -ne "$r0"); ok $? "W zooms after a legend click: $r3"
xdotool key Home
wait_stable red -eq "$r0" >/dev/null
# Key zooms are one step of the history: Alt+Left undoes all three.
xdotool key w w w
r4=$(wait_stable red -ne "$r0"); ok $? "W W W zoom in: $r4"
xdotool key alt+Left
r5=$(wait_stable red -eq "$r0"); ok $? "Alt+Left goes back to the whole run: $r5"

# MPE_Comm_init (id -10): its name, no false loss.
shot
set -- $(pix --rows ffff00)
my=$(($1 + 1))
set -- $(pix --cols ffff00 "$my")
xdotool mousemove "$1" "$my" click 1
d=$(wait_log '^details: MPE_Comm_init'); ok $? "MPE_Comm_init named: $d"
case $d in *lost*) false ;; *) true ;; esac
ok $? "no events lost said for it"

# A click on the first Compute: its end event's info, framed.
shot
set -- $(pix --rows ff0000)
sy=$(( ($1 + $2) / 2 ))
set -- $(pix --cols ff0000 "$sy")
xdotool mousemove $(($1 + 10)) "$sy" click 1
d=$(wait_log '^details: Compute'); ok $? "the state's details: $d"
case $d in *"end info: intervals=100 sum=3.25"*) true ;; *) false ;; esac
ok $? "the end event's info shown"
f=$(wait_stable frame -gt 100); ok $? "the clicked instance framed: $f px"

# Search the second instance (from the first): framed, details follow.
xdotool key Escape ctrl+f
sleep 0.3
xdotool type Compute
xdotool key Return Return
d=$(wait_log 'intervals=200 sum=6.5'); ok $? "the search's instance in the details: $d"
f=$(wait_stable frame -gt 100); ok $? "the instance found framed: $f px"

# Layers this log has no records for are greyed out, saying why.
l=$(wait_log '^layer _Off-CPU shading: '); ok $? "$l"
case $l in *"no context-switch records"*MPE_SCHED=1*) true ;; *) false ;; esac
ok $? "off-CPU shading not offered, and why"
l=$(wait_log '^layer Memory'); ok $? "$l"
case $l in *"no memory records"*MPE_MEMORY=1*) true ;; *) false ;; esac
ok $? "memory not offered, and why"

# No samples in this log: Ctrl+G says so instead of an empty window.
xdotool key ctrl+g
st=$(wait_log '^status: No flame graph'); ok $? "Ctrl+G without samples: $st"
n=$(xdotool search --onlyvisible --name '^Flame graph$' 2>/dev/null | wc -l)
test "$n" = 0; ok $? "no empty flame graph window ($n)"

# F10: the main menu; its first entry opens the statistics.
xdotool mousemove 400 300 click 1
sleep 0.3
i=0; sw=""
while [ $i -lt 20 ] && [ -z "$sw" ]; do
  xdotool key F10
  sleep 0.5
  xdotool key Return
  sleep 1
  sw=$(xdotool search --onlyvisible --name '^Statistics$' 2>/dev/null \
         | head -n 1)
  i=$((i + 1))
done
test -n "$sw"; ok $? "F10 then Enter opens the statistics"
finish
