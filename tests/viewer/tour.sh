#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# docs/tour/shots.sh draws every picture docs/TOUR.md shows, and the
# timeline's legend names the loss record.
. "$top_srcdir/tests/common/tap.sh"
sh "$top_srcdir/docs/tour/shots.sh" "$top_builddir" "$tap_tmp" 2>"$tap_tmp/err"
ok $? "shots.sh ran"
for f in $(sed -n 's/^!\[[a-z]*\](tour\/\([a-z]*\.png\))$/\1/p' \
             "$top_srcdir/docs/TOUR.md"); do
  test -s "$tap_tmp/$f"; ok $? "$f drawn"
done
# The loss record's marker and its legend swatch (MV_LOSS_RGB).
# The plot is 260 px high, its legend strip the bottom 34 px.
set -- $("$top_builddir/tests/viewer/pngpix" "$tap_tmp/timeline.png" --rows d0021b)
test $# = 2 && test "$1" -lt 60 && test "$2" -gt 226
ok $? "timeline: the loss marker and its legend entry (rows $*)"
finish
