#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpeview --export --waits on waits-prog's allreduce log (4 ranks; rank 3
# computes, the others wait for it in MPI_Allreduce): the waiting part
# of the calls is hatched (one exact colour) on ranks 0-2 and not on
# rank 3, which entered last and did not wait; without --waits, no
# hatch.  States are drawn one by one (a small log: decoded).
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
b=$top_builddir
pix=$b/tests/viewer/pngpix
hatch=2b2b2b   # MV_WAIT_HATCH_RGB
d=60

wrun 4 "$b/tests/analysis/waits-prog" allreduce $d; ok $? "allreduce runs"
log=$(ls "$tap_tmp"/log*.clog 2>/dev/null | head -1)
# rgb STATE: the state's colour as rrggbb
rgb () {
  "$clogtool" stats --json "$log" | $python -c 'import json,sys
print([s["rgb"] for s in json.load(sys.stdin)["states"] if s["name"] == sys.argv[1]][0].lstrip("#"))' "$1"
}
compute=$(rgb Compute); allreduce=$(rgb MPI_Allreduce)
[ -n "$compute" ] && [ -n "$allreduce" ]; ok $? "state colours ($compute, $allreduce)"

opts="--width 1200 --height 400 --detail events"
"$b/mpeview" --export "$tap_tmp/a.png" $opts "$log"; ok $? "export without --waits"
n=$("$pix" "$tap_tmp/a.png" --count $hatch)
[ "$n" = 0 ]; ok $? "no hatch without --waits ($n pixels)"
"$b/mpeview" --export "$tap_tmp/w.png" --waits $opts "$log"
ok $? "export with --waits"
n=$("$pix" "$tap_tmp/w.png" --count $hatch)
[ "$n" -gt 100 ]; ok $? "waits hatched ($n pixels)"

# Per pixel row (every other one): Compute pixels (rank 3's row: only
# rank 3 computes), hatch pixels, MPI_Allreduce pixels.
y=0
: > "$tap_tmp/rows"
while [ $y -lt 400 ]; do
  c=$("$pix" "$tap_tmp/w.png" --cols $compute $y | awk '{print $3+0}')
  h=$("$pix" "$tap_tmp/w.png" --cols $hatch $y | awk '{print $3+0}')
  a=$("$pix" "$tap_tmp/w.png" --cols $allreduce $y | awk '{print $3+0}')
  echo "$y $c $h $a" >> "$tap_tmp/rows"
  y=$((y + 2))
done
$python - "$tap_tmp/rows" > "$tap_tmp/checks" <<'PY' || diag "row check failed"
import sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
r3 = [y for y, c, h, a in rows if c > 100]
# Below rank 3's row only the legend (its hatch entry).
low = max(r3 or [0])
hat = [y for y, c, h, a in rows if h > 0 and y <= low]
legend = [y for y, c, h, a in rows if h > 0 and y > low]
bands = sum(1 for i, y in enumerate(hat) if i == 0 or y - hat[i - 1] > 2)
def out(what, got, want):
    print("%s\t%s\t%s" % (what, got, want))
out("rank 3's row found", bool(r3), True)
out("no hatch on rank 3's row", [y for y in r3 if y in hat], [])
out("hatched rows above rank 3's", bool(hat) and max(hat) < min(r3 or [0]), True)
out("three hatched rows (ranks 0-2)", bands, 3)
out("hatch only over MPI_Allreduce",
    [y for y, c, h, a in rows if h and not a and y <= low], [])
out("the legend names the hatch", bool(legend), True)
PY
while IFS='	' read -r what got want; do
  [ "$got" = "$want" ]; ok $? "$what"
  [ "$got" = "$want" ] || diag "got $got, want $want"
done < "$tap_tmp/checks"
finish
