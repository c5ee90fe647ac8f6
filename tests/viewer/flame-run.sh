#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The flame graph of a real sampled run (tests/sampling/hot.c: hot_loop,
# called through via_helper, does 4/5 of the compute), with symbols
# resolved from the binary: its tree is clogtool cct's, the widest box
# with samples of its own is hot_loop under via_helper with about 80 %
# of the compute, and selecting it marks both ranks; the timeline
# export draws its ticks.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
. "$top_srcdir/tests/sampling/common.sh"
MV=$B/mpeview
PIX=$B/tests/viewer/pngpix

MPE_SAMPLE_HZ=1000 run 2 $HOT 30 12; ok $? "hot runs sampled at 1000 Hz"
"$MV" --export-flame f.json hot.clog 2> notes.txt
ok $? "mpeview --export-flame f.json"
$CLOGTOOL cct --json hot.clog > c.json 2>/dev/null; ok $? "clogtool cct --json"
python3 - f.json c.json <<'PY'
import json, sys
def norm(n):
    return (n["name"], n.get("file"), n.get("line"), n["self"], n["total"],
            tuple(sorted(norm(c) for c in n["children"] if c["total"] or c["self"])))
a, b = (norm(json.load(open(p))) for p in sys.argv[1:3])
sys.exit(a != b)
PY
ok $? "the tree is cct's: functions, files, lines, self and total samples"
eval "$(python3 - f.json <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
boxes = []
def walk(n, parent):
    if n["self"] > 0:
        boxes.append((n["x1"] - n["x0"], n, parent))
    for c in n["children"]:
        walk(c, n["name"])
walk(t, None)
boxes.sort(key=lambda b: -b[0])
w, n, p = boxes[0]
warm = sum(b[1]["self"] for b in boxes if b[1]["name"] == "warm_loop")
print("top=%s parent=%s share=%.3f rgb=%s" % (
    n["name"], p, n["self"] / max(n["self"] + warm, 1), n["rgb"]))
PY
)"
diag "widest box: $top under $parent, $share of hot+warm, colour $rgb"
[ "$top" = hot_loop ]; ok $? "the widest box with samples of its own is hot_loop"
[ "$parent" = via_helper ]; ok $? "under via_helper"
awk -v s="$share" 'BEGIN { exit !(s >= 0.74 && s <= 0.86) }'
ok $? "with 80 % of the compute, within 6 points ($share)"
"$MV" --export-flame sel.png --flame-select hot_loop hot.clog > marks.txt
ok $? "--flame-select hot_loop"
is "its samples fell on both ranks" "$(awk '{ print $1 }' marks.txt | sort -u | tr '\n' ' ')" "0 1 "
"$MV" --export t.png --width 800 --height 200 --samples hot.clog
ok $? "timeline export with --samples"
n=$("$PIX" t.png --count "$rgb"); [ "$n" -gt 200 ]
ok $? "hot_loop's ticks are drawn ($n px)"
finish
