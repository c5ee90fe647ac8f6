#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpeview --export with rows grouped by node (--group, --collapse,
# --expand): a node's header row draws the dominant state of its ranks
# faded by how much of them states cover, and folding changes the rows.
. "$top_srcdir/tests/common/tap.sh"
b=$top_builddir
mpeview=$b/mpeview
pix () { "$b/tests/viewer/pngpix" "$@"; }
export_png () {
  out=$1; shift
  env -u DISPLAY -u WAYLAND_DISPLAY "$mpeview" --export "$out" --from 0 \
    --to 1ms --width 1108 "$@" "$tap_tmp/n.clog" 2>"$tap_tmp/err"
}

# 8 ranks round-robin on nodeE (0 2 4 6) and nodeO (1 3 5 7), see
# mv-testlog.h: nodeE is 3/4 B + 1/4 A over [0, 0.5) ms, 1/4 A after;
# nodeO is all A.
"$b/tests/viewer/mklog" --nodes "$tap_tmp/n.clog"
ok $? "node test log written"

# 1108 px: plot 1000 px = 1 us per pixel from x=96; rows of 22 px from
# y=30.  Expanded (the default of --group node): nodeE's header
# (y 30-52), ranks 0 2 4 6, nodeO's header (y 140-162), ranks 1 3 5 7.
export_png "$tap_tmp/e.png" --group node
ok $? "export grouped by node"
set -- $(pix "$tap_tmp/e.png" 346 41  846 41  346 151  846 151  846 63 \
             346 85  846 85)
test "$1" = 00ff00; ok $? "nodeE header at 0.25 ms: B dominates, full ($1)"
g=$(printf '%d' "0x$(echo "$2" | cut -c3-4)")
test "$(echo "$2" | cut -c1-2)" = ff && test "$g" -ge 184 && test "$g" -le 200 \
  && test "$(echo "$2" | cut -c3-4)" = "$(echo "$2" | cut -c5-6)"
ok $? "nodeE header at 0.75 ms: A on 1 of 4 ranks, red at 25% ($2)"
test "$3" = ff0000; ok $? "nodeO header at 0.25 ms: A ($3)"
test "$4" = ff0000; ok $? "nodeO header at 0.75 ms: A ($4)"
test "$5" = ff0000; ok $? "rank 0's row at 0.75 ms: A ($5)"
test "$6" = 00ff00; ok $? "rank 2's row (second under nodeE) at 0.25 ms: B ($6)"
test "$7" = ffffff; ok $? "rank 2's row at 0.75 ms: nothing ($7)"

export_png "$tap_tmp/c.png" --group node --collapse
ok $? "export with every group collapsed"
set -- $(pix "$tap_tmp/c.png" 346 41  346 63  846 63)
test "$1" = 00ff00 && test "$2" = ff0000 && test "$3" = ff0000
ok $? "collapsed: nodeE then nodeO's aggregate in two rows ($*)"
export_png "$tap_tmp/u.png" --group none
ok $? "export ungrouped"
export_png "$tap_tmp/r.png" --group range
ok $? "export grouped by rank range"
he=$(pix "$tap_tmp/e.png" --size | cut -d' ' -f2)
hc=$(pix "$tap_tmp/c.png" --size | cut -d' ' -f2)
hu=$(pix "$tap_tmp/u.png" --size | cut -d' ' -f2)
hr=$(pix "$tap_tmp/r.png" --size | cut -d' ' -f2)
test $((he - hc)) -eq $((8 * 22)); ok $? "expanded: 8 rows more than collapsed ($he, $hc px)"
test $((hu - hc)) -eq $((6 * 22)); ok $? "ungrouped: 8 rows, collapsed 2 ($hu, $hc px)"
test $((hr - hc)) -eq $((7 * 22)); ok $? "by rank range: a header and 8 rows ($hr px)"
export_png "$tap_tmp/x.png" --group range --collapse
hx=$(pix "$tap_tmp/x.png" --size | cut -d' ' -f2)
test $((hc - hx)) -eq 22; ok $? "by rank range, collapsed: one row ($hx px)"

# A log on one node per rank is drawn as before: no group rows.
"$b/tests/viewer/mklog" "$tap_tmp/t.clog" 1 4
env -u DISPLAY "$mpeview" --export "$tap_tmp/t1.png" "$tap_tmp/t.clog" \
  2>/dev/null
env -u DISPLAY "$mpeview" --export "$tap_tmp/t2.png" --group none \
  "$tap_tmp/t.clog" 2>/dev/null
cmp -s "$tap_tmp/t1.png" "$tap_tmp/t2.png"
ok $? "one process per node: the same image as ungrouped"
# 8 ranks on 2 nodes: no groups unless asked for (below 1024 processes).
export_png "$tap_tmp/a.png"
cmp -s "$tap_tmp/a.png" "$tap_tmp/u.png"
ok $? "8 ranks on 2 nodes by default: the same image as ungrouped"

"$mpeview" --export "$tap_tmp/bad.png" --group rack "$tap_tmp/n.clog" \
  2>"$tap_tmp/err"
test $? -eq 2 && grep -q "group" "$tap_tmp/err"
ok $? "--group rack: a clear error ($(cat "$tap_tmp/err"))"
"$mpeview" --export "$tap_tmp/bad.png" --collapse --expand \
  "$tap_tmp/n.clog" 2>/dev/null
test $? -eq 2; ok $? "--collapse with --expand is refused"

# From 1000 ranks the label column is wide enough for "ranks 3200-3215":
# the darkest text ends well before the plot (the first pixel of A).
"$b/tests/viewer/mklog" "$tap_tmp/r4k.clog" 1 4096
ok $? "4096-rank test log written"
env -u DISPLAY -u WAYLAND_DISPLAY "$mpeview" --export "$tap_tmp/r4k.png" \
  --group range --expand --width 800 --height 400 "$tap_tmp/r4k.clog"
ok $? "export by rank range"
set -- $(convert "$tap_tmp/r4k.png" txt:- | python3 -c '
import re, sys
px = {}
W = H = 0
for l in sys.stdin:
    m = re.match(r"(\d+),(\d+): .*#([0-9A-Fa-f]{6})", l)
    if m:
        x, y, v = int(m.group(1)), int(m.group(2)), int(m.group(3), 16)
        px[x, y] = v
        W, H = max(W, x + 1), max(H, y + 1)
rows = range(32, H - 40)
lum = lambda v: ((v >> 16) * 299 + ((v >> 8) & 255) * 587 + (v & 255) * 114) // 1000
plot = min(x for y in rows for x in range(W) if px[x, y] in (0xff0000, 0xff7f7f))
print(plot, max(x for x in range(plot) for y in rows if lum(px[x, y]) < 100))')
test $# = 2 && test $(($1 - $2)) -ge 8
ok $? "the labels end 8 px or more before the plot (text to x=$2, plot from $1)"
finish
