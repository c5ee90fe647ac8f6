#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The real window under Xvfb: opening a large MPE2 log offers to convert it
# to an indexed .clog next to it (threshold lowered here); Return accepts,
# the copy is written and opened; the next open offers the copy; Escape
# opens the original; an unrelated file of the copy's name is never
# replaced; MPEVIEW_CONVERT=never opens it without asking.
if [ -z "$MV_GUI_INNER" ]; then
  MV_GUI_INNER=1 exec xvfb-run -a -s "-screen 0 1280x800x24 -noreset" sh "$0" "$@"
fi
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/viewer/xwin.sh"
b=$top_builddir
pid=""
cleanup () { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tap_tmp"; }
trap cleanup EXIT
cp "$top_srcdir/tests/interop/data/cpilog.clog2" "$tap_tmp/" || exit 1
MPEVIEW_CONVERT_MB=0
export MPEVIEW_CONVERT_MB

# start [ENV=VAL]: runs the viewer on the copy of cpilog.clog2.
start () {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  env "$@" "$b/mpeview" "$tap_tmp/cpilog.clog2" 2>>"$tap_tmp/err" &
  pid=$!
}
# answer KEY: waits for the offer and presses KEY in it, again if the
# offer is still up 10 s later (a focus change lost on a loaded X
# server).  Says why when there is no offer.
answer () {
  d=$(find_window '^Convert MPE2 log$')
  if [ -z "$d" ]; then
    kill -0 "$pid" 2>/dev/null && echo "# viewer running, no offer" \
      || echo "# viewer exited"
    sed 's/^/# stderr: /' "$tap_tmp/err"
    return 1
  fi
  for try in 1 2 3; do
    xdotool windowfocus --sync "$d" key "$1" 2>/dev/null
    i=0
    while [ $i -lt 50 ]; do
      xdotool search --onlyvisible --name '^Convert MPE2 log$' \
        > /dev/null 2>&1 || return 0
      sleep 0.2; i=$((i + 1))
    done
    echo "# offer still shown after key $1 (try $try)"
  done
  return 1
}
# titled NAME: the main window's title becomes NAME.
titled () {
  find_window "^$1\$" > /dev/null
}

start
answer Return; ok $? "a large MPE2 log: the window offers to convert it"
titled 'cpilog\.clog'; ok $? "converted copy opened (title cpilog.clog)"
"$b/clogtool" stats "$tap_tmp/cpilog.clog" > "$tap_tmp/stats" 2>&1
grep -q '^format *clog3' "$tap_tmp/stats"; ok $? "cpilog.clog is an indexed .clog"
grep -q '^events *348 ' "$tap_tmp/stats"; ok $? "with all 348 events"
test ! -e "$tap_tmp/cpilog.clog.part"; ok $? "no partial file left"
m1=$(stat -c %Y.%s "$tap_tmp/cpilog.clog")

start
answer Return; ok $? "next open: the copy is offered"
titled 'cpilog\.clog'; ok $? "the copy opens"
test "$(stat -c %Y.%s "$tap_tmp/cpilog.clog")" = "$m1"
ok $? "and is not converted again"

start
answer Escape; ok $? "offer dismissed with Escape"
titled 'cpilog\.clog2'; ok $? "the original opens"

# Another file already named cpilog.clog (not a conversion) is never
# replaced: the copy gets another name.
rm -f "$tap_tmp/cpilog.clog"
"$b/tests/viewer/mklog" "$tap_tmp/cpilog.clog" || exit 1
cp "$tap_tmp/cpilog.clog" "$tap_tmp/theirs.clog"
start
answer Return; ok $? "offer again (the cpilog.clog there is not a copy)"
titled 'cpilog\.converted\.clog'; ok $? "converted to cpilog.converted.clog"
cmp -s "$tap_tmp/cpilog.clog" "$tap_tmp/theirs.clog"
ok $? "the other cpilog.clog is untouched"

start MPEVIEW_CONVERT=never
titled 'cpilog\.clog2'; ok $? "MPEVIEW_CONVERT=never: the original opens"
n=$(xdotool search --name '^Convert MPE2 log$' 2>/dev/null | wc -l)
test "$n" -eq 0; ok $? "without an offer"
kill -0 "$pid"; ok $? "viewer still running"
finish
