#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# docs/tour/shots.sh draws every picture docs/TOUR.md shows, and the
# timeline's legend names the loss record; the matrix has a colour
# scale and counts in its cells.
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
# The matrix of 4 ranks (cells of 182 px, from x 64, y 34): its colour
# scale (the lightest colour, fee192, which no cell of this log has)
# and the count written in the cell 0 -> 1 (light on the dark cell).
n=$("$top_builddir/tests/viewer/pngpix" "$tap_tmp/matrix.png" --count fee192)
test "$n" -ge 30; ok $? "matrix: a colour scale ($n px of its light end)"
n=$(convert "$tap_tmp/matrix.png" -crop 40x24+317+113 +repage txt:- |
    python3 -c '
import re, sys
n = 0
for l in sys.stdin:
    m = re.search(r"#([0-9A-Fa-f]{6})", l)
    if m:
        v = int(m.group(1), 16)
        n += ((v >> 16) * 299 + ((v >> 8) & 255) * 587 + (v & 255) * 114) // 1000 > 128
print(n)')
test "$n" -gt 5; ok $? "matrix: the count in a cell with room ($n light px)"
finish
