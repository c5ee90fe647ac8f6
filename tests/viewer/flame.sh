#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The flame graph (mpeview --export-flame) of a log with known samples
# (tests/viewer/mv-testlog.h, mv_testlog_write_samples: rank 0 in hot
# for 800 of its 1000 samples, rank 1 for 500): its tree is clogtool
# cct's, for the whole run, a time range and one rank; the hot
# function's box is the widest and drawn so; selecting it gives the
# times its samples fell in, which the timeline export marks on the
# right rows; bad arguments are errors.
. "$top_srcdir/tests/common/tap.sh"
b=$top_builddir
MV="$b/mpeview"
CLOGTOOL="$b/clogtool"
PIX="$b/tests/viewer/pngpix"
log=$tap_tmp/s.clog
is () {
  [ "$2" = "$3" ]; r=$?
  ok $r "$1"
  [ $r -eq 0 ] || diag "  got '$2', want '$3'"
}
"$b/tests/viewer/mklog" --samples "$log"; ok $? "sample test log written"

# same A.json B.json: the trees are equal in name, self and total at
# every node (children in any order); prints the first difference.
same () {
  python3 - "$1" "$2" <<'PY'
import json, sys
def norm(n):
    return (n["name"], n["self"], n["total"],
            tuple(sorted(norm(c) for c in n["children"] if c["total"] or c["self"])))
a, b = (norm(json.load(open(p))) for p in sys.argv[1:3])
if a != b:
    print("differ:", a, b)
    sys.exit(1)
print("equal, %d samples" % a[2])
PY
}

"$MV" --export-flame "$tap_tmp/f.json" "$log"; ok $? "flame graph as JSON"
"$CLOGTOOL" cct --json "$log" > "$tap_tmp/c.json" 2>/dev/null
ok $? "clogtool cct --json"
out=$(same "$tap_tmp/f.json" "$tap_tmp/c.json"); ok $? "whole run: the tree is cct's ($out)"
"$MV" --export-flame "$tap_tmp/f2.json" --from 100ms --to 650ms "$log" &&
  "$CLOGTOOL" cct --json --from 100ms --to 650ms "$log" > "$tap_tmp/c2.json" 2>/dev/null
out=$(same "$tap_tmp/f2.json" "$tap_tmp/c2.json"); ok $? "[100, 650) ms: the tree is cct's ($out)"
"$MV" --export-flame "$tap_tmp/f3.json" --ranks 1 "$log" &&
  "$CLOGTOOL" cct --json --rank 1 "$log" > "$tap_tmp/c3.json" 2>/dev/null
out=$(same "$tap_tmp/f3.json" "$tap_tmp/c3.json"); ok $? "rank 1: the tree is cct's ($out)"
"$MV" --export-flame "$tap_tmp/f4.json" --ranks 0-1 --from 100ms --to 650ms "$log"
out=$(same "$tap_tmp/f4.json" "$tap_tmp/c2.json"); ok $? "ranks 0-1 are every rank ($out)"

# The widest box of a function with samples of its own, its share, its
# name and colour, the depth and the colour of the other leaf.
eval "$(python3 - "$tap_tmp/f.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
boxes = []
def walk(n):
    if n["self"] > 0:
        boxes.append(n)
    for c in n["children"]:
        walk(c)
walk(t)
boxes.sort(key=lambda n: n["x0"] - n["x1"])
hot, warm = boxes[0], boxes[1]
print("hot=%s hotw=%.4f hotrgb=%s hotdepth=%d warm=%s warmrgb=%s hotx0=%.4f" % (
    hot["name"], hot["x1"] - hot["x0"], hot["rgb"], hot["depth"],
    warm["name"], warm["rgb"], hot["x0"]))
PY
)"
diag "hot $hot ($hotrgb, depth $hotdepth, width $hotw), warm $warm ($warmrgb)"
[ "$hot" = "prog+0x3000" ]; ok $? "the widest box with samples of its own is hot (0x3000)"
[ "$hotw" = "0.6500" ]; ok $? "its share is 1300 of 2000 samples ($hotw)"
[ "$hotdepth" = 3 ]; ok $? "under main and via (depth $hotdepth)"

"$MV" --export-flame "$tap_tmp/f.png" --width 1000 "$log"
ok $? "flame graph as PNG"
set -- $("$PIX" "$tap_tmp/f.png" --cols "$hotrgb" $((hotdepth * 18 + 9)))
diag "hot's row: $*"
# (its label covers some of its pixels: measure from edge to edge)
[ "$#" = 3 ] && [ "$1" = 0 ] && [ "$2" -ge 645 ] && [ "$2" -le 650 ]
ok $? "hot's box is 650 px of 1000 wide, on the left ($1..$2)"
set -- $("$PIX" "$tap_tmp/f.png" --cols "$warmrgb" $((2 * 18 + 9)))
[ "$#" = 3 ] && [ "$1" -ge 649 ] && [ "$1" -le 651 ] && [ "$2" -ge 995 ]
ok $? "warm's box is the 350 px beside via's ($1..$2)"

# Selecting hot: where its samples fell.
"$MV" --export-flame "$tap_tmp/sel.png" --flame-select "$hot" "$log" \
  > "$tap_tmp/marks.txt"
ok $? "--flame-select $hot"
is "its samples: rank 0 [0, 800) ms, rank 1 [500, 1000) ms" \
  "$(cat "$tap_tmp/marks.txt")" \
  "0 0 0 800000000 800
1 0 500000000 1000000000 500"
n=$("$PIX" "$tap_tmp/sel.png" --count 101014)
[ "$n" -gt 100 ]; ok $? "the selected box is outlined ($n px)"
"$MV" --export-flame "$tap_tmp/sel2.json" --flame-select "$warm" \
  --ranks 0 "$log" > "$tap_tmp/marks2.txt"
is "warm on rank 0: [800, 1000) ms" "$(cat "$tap_tmp/marks2.txt")" \
  "0 0 800000000 1000000000 200"

# The timeline marks them: rank 0's row from the left to 80 %, rank 1's
# from 50 % to the right edge.
"$MV" --export "$tap_tmp/t.png" --width 1000 --height 200 \
  --flame-select "$hot" "$log"
ok $? "timeline export with the selection marked"
set -- $("$PIX" "$tap_tmp/t.png" --rows c8106e)
diag "mark bars on rows $*"
[ "$#" = 2 ]; ok $? "mark bars drawn"
y0=$1; y1=$2
set -- $("$PIX" "$tap_tmp/t.png" --cols c8106e "$y0")
a0=$1; a1=$2
set -- $("$PIX" "$tap_tmp/t.png" --cols c8106e "$y1")
b0=$1; b1=$2
diag "rank 0: $a0..$a1, rank 1: $b0..$b1"
python3 -c "
a0, a1, b0, b1 = $a0, $a1, $b0, $b1
w = b1 - a0 + 1          # the plot: rank 0 starts and rank 1 ends at its edges
ok = abs((a1 - a0 + 1) / w - 0.8) < 0.01 and abs((b0 - a0) / w - 0.5) < 0.01 and b1 > a1
raise SystemExit(0 if ok else 1)"
ok $? "rank 0 marked over 80 % from the start, rank 1 from the middle"

# Bad input: clear errors.
"$MV" --export-flame "$tap_tmp/x.json" --flame-select nosuch "$log" \
  2> "$tap_tmp/err"
[ $? = 1 ] && grep -q "no function named 'nosuch'" "$tap_tmp/err"
ok $? "an unknown function: exit 1, said so"
"$MV" --export-flame "$tap_tmp/x.json" --ranks 1-x "$log" 2> "$tap_tmp/err"
[ $? = 1 ] && grep -q "ranks" "$tap_tmp/err"; ok $? "bad --ranks: exit 1"
"$b/tests/viewer/mklog" "$tap_tmp/plain.clog"
"$MV" --export-flame "$tap_tmp/x.json" "$tap_tmp/plain.clog" 2> "$tap_tmp/err"
[ $? = 1 ] && grep -q "no call paths" "$tap_tmp/err"
ok $? "a log without samples: exit 1, no call paths"
"$MV" --export-flame "$tap_tmp/x.txt" "$log" 2> "$tap_tmp/err"
[ $? = 1 ]; ok $? "an unknown output format: exit 1"
finish
