#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Call-path samples in the timeline export (--samples, --sample-depth)
# of a log with known samples (tests/viewer/mv-testlog.h,
# mv_testlog_write_samples): ticks in each function's colour (the flame
# graph's) in the right row and time: rank 0 in hot over the first 80 %,
# warm after; rank 1 in warm over the first half, hot after; none
# without --samples; at depth 1 all main, at depth 2 via and warm.
. "$top_srcdir/tests/common/tap.sh"
b=$top_builddir
MV="$b/mpeview"
PIX="$b/tests/viewer/pngpix"
log=$tap_tmp/s.clog
"$b/tests/viewer/mklog" --samples "$log"; ok $? "sample test log written"
"$MV" --export-flame "$tap_tmp/f.json" "$log"; ok $? "function colours"
eval "$(python3 - "$tap_tmp/f.json" <<'PY'
import json, sys
rgb = {}
def walk(n):
    rgb[n["name"].split("+")[-1]] = n["rgb"]
    for c in n["children"]:
        walk(c)
walk(json.load(open(sys.argv[1])))
print("main=%s via=%s hot=%s warm=%s" % (rgb["0x1000"], rgb["0x2000"],
                                        rgb["0x3000"], rgb["0x4000"]))
PY
)"
diag "main $main, via $via, hot $hot, warm $warm"

"$MV" --export "$tap_tmp/a.png" --width 1000 --height 200 "$log"
ok $? "export without samples"
n=$(( $("$PIX" "$tap_tmp/a.png" --count "$hot") + $("$PIX" "$tap_tmp/a.png" --count "$warm") ))
[ "$n" = 0 ]; ok $? "no sample ticks ($n px)"

"$MV" --export "$tap_tmp/s.png" --width 1000 --height 200 --samples "$log"
ok $? "export with --samples"
# The legend names the sampled functions in their colours: the strips
# are looked for above it (mv_layout_compute: 14 + 20 px per legend row
# of (1000 - 24) / 170 = 5 entries: A and 6 places for functions).
set -- $("$PIX" "$tap_tmp/s.png" --rows "$hot")
[ "$#" = 2 ] && [ "$2" -gt $((200 - 54)) ]
ok $? "the legend shows hot's colour (row $2)"
convert "$tap_tmp/s.png" -crop 1000x$((200 - 54))+0+0 +repage "$tap_tmp/s.png"
set -- $("$PIX" "$tap_tmp/s.png" --rows "$hot")
[ "$#" = 2 ]; ok $? "hot ticks drawn (rows $*)"
ytop=$1; ybot=$2
set -- $("$PIX" "$tap_tmp/s.png" --rows "$warm")
[ "$1" = "$ytop" ] && [ "$2" = "$ybot" ]
ok $? "warm ticks in the same strips ($*)"
# rank 0's strip (the top one): hot, then warm.
set -- $("$PIX" "$tap_tmp/s.png" --cols "$hot" "$ytop"); h0=$1; h1=$2
set -- $("$PIX" "$tap_tmp/s.png" --cols "$warm" "$ytop"); w0=$1; w1=$2
diag "rank 0: hot $h0..$h1, warm $w0..$w1"
# rank 1's strip (the bottom one): warm, then hot.
set -- $("$PIX" "$tap_tmp/s.png" --cols "$warm" "$ybot"); v0=$1; v1=$2
set -- $("$PIX" "$tap_tmp/s.png" --cols "$hot" "$ybot"); g0=$1; g1=$2
diag "rank 1: warm $v0..$v1, hot $g0..$g1"
python3 -c "
h0, h1, w0, w1, v0, v1, g0, g1 = $h0, $h1, $w0, $w1, $v0, $v1, $g0, $g1
w = w1 - h0 + 1
r0 = w1 > h1 and w0 >= h1 and abs((h1 - h0 + 1) / w - 0.8) < 0.01
r1 = g0 >= v1 and abs((v1 - v0 + 1) / w - 0.5) < 0.01 and v0 == h0 and g1 == w1
raise SystemExit(0 if r0 and r1 else 1)"
ok $? "rank 0 hot over 80 % then warm; rank 1 warm over half then hot"
[ $((ybot - ytop)) -gt 50 ]; ok $? "the strips are in different rows ($ytop, $ybot)"

"$MV" --export "$tap_tmp/d1.png" --width 1000 --height 200 --sample-depth 1 "$log"
ok $? "export with --sample-depth 1"
set -- $("$PIX" "$tap_tmp/d1.png" --cols "$main" "$ytop")
plot=$((w1 - h0 + 1))
[ "$#" = 3 ] && [ "$1" = "$h0" ] && [ "$2" = "$w1" ] && [ "$3" = "$plot" ]
ok $? "depth 1: a lane of main over the whole row, no gap ($*)"
n=$("$PIX" "$tap_tmp/d1.png" --count "$hot"); [ "$n" = 0 ]
ok $? "depth 1: no hot ($n px)"
"$MV" --export "$tap_tmp/d2.png" --width 1000 --height 200 --sample-depth 2 "$log"
set -- $("$PIX" "$tap_tmp/d2.png" --cols "$via" "$ytop")
[ "$#" = 3 ] && [ "$1" = "$h0" ] && [ $(($3 * 1000 / plot)) -ge 795 ] \
  && [ $(($3 * 1000 / plot)) -le 805 ]
ok $? "depth 2: via over rank 0's first 80 % ($*)"
set -- $("$PIX" "$tap_tmp/d2.png" --cols "$warm" "$ytop")
[ "$#" = 3 ] && [ "$2" = "$w1" ]; ok $? "depth 2: then warm ($*)"
"$MV" --export "$tap_tmp/z.png" --width 1000 --height 200 --samples \
  --from 790ms --to 810ms "$log"
set -- $("$PIX" "$tap_tmp/z.png" --cols "$hot" "$ytop")
[ "$#" = 3 ] && [ "$3" -ge 10 ] && [ "$3" -le 14 ]
ok $? "zoomed to [790, 810) ms: 10 hot ticks on rank 0 ($*)"
"$MV" --export "$tap_tmp/x.png" --sample-depth -1 "$log" 2>/dev/null
[ $? = 2 ]; ok $? "a negative depth: exit 2"
finish
