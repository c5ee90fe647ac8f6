#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Counter tracks in an export: a log with metric "queue" on 2 ranks
# (tests/viewer/mv-testlog.h) drawn with --counter shows the step line
# under each process; without it, none; an unknown metric is an error.
. "$top_srcdir/tests/common/tap.sh"
b=$top_builddir
line=1a4099   # the step line's colour (C_COUNTER)
"$b/tests/viewer/mklog" --metric "$tap_tmp/m.clog"
ok $? "metric test log written"
"$b/mpeview" --export "$tap_tmp/a.png" --width 800 --height 240 \
  "$tap_tmp/m.clog"
ok $? "export without counters"
n=$("$b/tests/viewer/pngpix" "$tap_tmp/a.png" --count $line)
[ "$n" = 0 ]; ok $? "no step line ($n pixels)"
"$b/mpeview" --export "$tap_tmp/c.png" --width 800 --height 240 \
  --counter queue "$tap_tmp/m.clog"
ok $? "export with --counter queue"
n=$("$b/tests/viewer/pngpix" "$tap_tmp/c.png" --count $line)
[ "$n" -gt 1000 ]; ok $? "step lines under both processes ($n pixels)"
set -- $("$b/tests/viewer/pngpix" "$tap_tmp/c.png" --rows $line)
[ "$#" = 2 ] && [ $(($2 - $1)) -gt 60 ]
ok $? "from the top of rank 0's strip to rank 1's ($1 .. $2)"
# The strip is a sub-track: no state colour under a veil (A, ff0000,
# read ffb3b3 under it: not in the legend).
n=$("$b/tests/viewer/pngpix" "$tap_tmp/c.png" --count ffb3b3)
[ "$n" = 0 ]; ok $? "no veiled state colour ($n pixels)"
n=$("$b/tests/viewer/pngpix" "$tap_tmp/c.png" --count ff0000)
[ "$n" -gt 1000 ]; ok $? "A still in its own colour ($n pixels)"
# Each strip's scale (max 40, min 0) in the label column beside it, in
# the step line's blue: bluish pixels left of the plot (x < 90, under
# the 30-px ruler), none without --counter.
blue_labels () {
  convert "$1" -crop 90x200+0+30 +repage txt:- | python3 -c "
import re, sys
n = 0
for l in sys.stdin:
    m = re.search(r'#([0-9A-Fa-f]{6})', l)
    if m:
        v = int(m.group(1), 16)
        n += (v & 255) - (v >> 16) > 60
print(n)"
}
n=$(blue_labels "$tap_tmp/c.png")
[ "$n" -gt 20 ]; ok $? "the strips' scales are labelled ($n bluish pixels)"
n=$(blue_labels "$tap_tmp/a.png")
[ "$n" = 0 ]; ok $? "no scale without a counter ($n)"
"$b/mpeview" --export "$tap_tmp/x.png" --counter nosuch "$tap_tmp/m.clog" \
  2>"$tap_tmp/err"
[ $? -eq 1 ]; ok $? "an unknown metric: exit 1"
grep -q "no metric named 'nosuch'" "$tap_tmp/err"; ok $? "and says so"
finish
