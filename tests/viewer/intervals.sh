#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every consumer tells the same truth about state instances (FORMAT.md
# section 13, issue 14) on the log of tests/logfmt/test-intervals.c:
# states that overlap without nesting, unmatched ENDs, BEGINs left open at
# the end, nesting beyond 256, two threads of one rank and another rank.
# The instances of `clogtool print --intervals` (checked against a list
# made by hand in tests/tools/clogtool-intervals.sh) are the reference:
#   - clogtool stats --json, the Chrome JSON export and the OTF2 export
#     (otf2-print) give their counts and durations;
#   - the viewer's statistics model (mpeview --export-stats) gives them per
#     state and rank, with min, max and mean;
#   - the viewer's pixels drawn from summaries and from decoded events show
#     the innermost open state wherever the reference has one, and nothing
#     where it has none (after an END that closed nothing, after the last
#     record of a stream).
. "$top_srcdir/tests/common/tap.sh"
b=$top_builddir
clogtool=$b/clogtool
mpeview=$b/mpeview
python=$(command -v /usr/bin/python3 || command -v python3) \
  || bail "python3 is needed"
log=$tap_tmp/iv.clog
"$b/tests/logfmt/test-intervals" --write "$log" \
  || bail "test-intervals --write failed"

"$clogtool" print --intervals --tsv "$log" >"$tap_tmp/iv.tsv"
ok $? "clogtool print --intervals"
"$clogtool" stats --json "$log" >"$tap_tmp/stats.json"
ok $? "clogtool stats --json"
"$clogtool" convert -q "$log" "$tap_tmp/iv.json" 2>"$tap_tmp/err"
ok $? "clogtool convert to JSON"
if grep -q '^#define HAVE_OTF2 1' "$b/config.h"; then
  mkdir -p "$tap_tmp/otf2"
  "$clogtool" convert -q "$log" "$tap_tmp/otf2/iv.otf2" 2>"$tap_tmp/err" &&
    otf2-print "$tap_tmp/otf2/iv.otf2" >"$tap_tmp/otf2.txt" 2>&1
  ok $? "clogtool convert to OTF2, read back by otf2-print"
else
  : >"$tap_tmp/otf2.txt"   # built without OTF2: that check is left out
fi
env -u DISPLAY -u WAYLAND_DISPLAY "$mpeview" --export-stats \
  "$tap_tmp/viewer.csv" "$log"
ok $? "mpeview --export-stats"

# Two pictures of [0, 1700] ns at 1 ns per pixel (plot from x = 96, rows
# of 22 px from y = 30): from the summaries and from decoded events.
for how in summaries events; do
  "$mpeview" --export "$tap_tmp/$how.png" --detail $how --from 0 \
    --to 1700ns --width 1808 "$log"
  ok $? "mpeview --export --detail $how"
done

$python - "$tap_tmp" "$b/tests/viewer/pngpix" >"$tap_tmp/checks" \
  2>"$tap_tmp/checks.err" <<'PY'
import csv, json, re, subprocess, sys
from collections import defaultdict
d, pngpix = sys.argv[1], sys.argv[2]

def ok(cond, what):
    print("%d\t%s" % (0 if cond else 1, what))

def note(text):
    sys.stderr.write(text + "\n")

def ns(text):
    s, f = text.split(".")
    return int(s) * 1000000000 + int(f.ljust(9, "0")[:9])

# Reference: rank, thread, state, start, end, dur, excl, open.
ref = []
for line in open(d + "/iv.tsv"):
    start, end, rank, thread, state, det = line.rstrip("\n").split("\t")
    f = dict(x.split("=", 1) for x in det.split() if "=" in x)
    ref.append((int(rank), int(thread), state, ns(start), ns(end),
                ns(f["dur"]), ns(f["excl"]), " open" in det))
closed = [r for r in ref if not r[7]]
ok(len(ref) == 264 and len(closed) == 262,
   "reference: %d instances, %d closed" % (len(ref), len(closed)))

def table(rows):
    """state -> rank ('all' too) -> (count, total, excl, min, max)."""
    t = defaultdict(dict)
    for key in set((r[2], r[0]) for r in rows) | set((r[2], "all")
                                                     for r in rows):
        sel = [r for r in rows if r[2] == key[0]
               and (key[1] == "all" or r[0] == key[1])]
        durs = [r[5] for r in sel]
        t[key[0]][str(key[1])] = (len(sel), sum(durs),
                                  sum(r[6] for r in sel), min(durs),
                                  max(durs))
    return t

want = table(closed)

# clogtool stats --json: per state.
st = {s["name"]: s for s in json.load(open(d + "/stats.json"))["states"]}
got = {n: (st[n]["count"], round(st[n]["total_s"] * 1e9),
           round(st[n]["exclusive_s"] * 1e9)) for n in st if st[n]["count"]}
exp = {n: want[n]["all"][:3] for n in want}
ok(got == exp, "clogtool stats: count, total and exclusive per state "
   "(%r)" % (got,))

# The viewer's statistics model: every state and rank, exactly.
rows = list(csv.reader(open(d + "/viewer.csv")))
ok(rows[0] == ["state", "rank", "count", "total_s", "exclusive_s",
               "mean_s", "min_s", "max_s"], "viewer CSV: the header")
view = defaultdict(dict)
means_ok = True
for r in rows[1:]:
    count = int(r[2])
    if count == 0:
        continue
    total = ns(r[3])
    view[r[0]][r[1]] = (count, total, ns(r[4]), ns(r[6]), ns(r[7]))
    means_ok &= ns(r[5]) == (total + count // 2) // count
ok(dict(view) == dict(want), "viewer statistics: count, total, exclusive, "
   "min and max of every state, per rank and in all")
if dict(view) != dict(want):
    note("viewer %r\n  want %r" % (dict(view), dict(want)))
ok(means_ok, "viewer statistics: means")

# Chrome JSON export: closed instances (not "unfinished") per state.
doc = json.load(open(d + "/iv.json"))["traceEvents"]
def us(x):
    return round(x * 1000)
inst, begins = [], {}
for e in doc:
    if e.get("cat") != "state":
        continue
    fin = not e.get("args", {}).get("unfinished", False)
    if e["ph"] == "X":
        inst.append((e["name"], us(e["dur"]), fin))
    elif e["ph"] == "b":
        begins[e["id"]] = e
    elif e["ph"] == "e":
        bb = begins.pop(e["id"])
        inst.append((bb["name"], us(e["ts"]) - us(bb["ts"]),
                     not bb.get("args", {}).get("unfinished", False)))
jt = defaultdict(lambda: [0, 0])
for name, dur, fin in inst:
    if fin:
        jt[name][0] += 1
        jt[name][1] += dur
ok({n: tuple(v) for n, v in jt.items()}
   == {n: want[n]["all"][:2] for n in want},
   "JSON export: count and total per state")

# OTF2: Enter/Leave pairs; a re-entry marked "continued" goes on with the
# instance left just before, so the pieces of one instance add up.
lines = open(d + "/otf2.txt").read().splitlines()
have_otf2 = bool(lines)
stacks, pieces, enters = {}, defaultdict(int), defaultdict(int)
for i, line in enumerate(lines):
    m = re.match(r'(ENTER|LEAVE)\s+(\d+)\s+(\d+)\s+Region: "([^"]*)"', line)
    if not m:
        continue
    kind, loc, t, reg = m.group(1), int(m.group(2)), int(m.group(3)), \
        m.group(4)
    st_ = stacks.setdefault(loc, [])
    if kind == "ENTER":
        cont = i + 1 < len(lines) and '"continued"' in lines[i + 1]
        if not cont:
            enters[reg] += 1
        st_.append((reg, t))
    else:
        r_, t0 = st_.pop()
        pieces[reg] += t - t0
every = defaultdict(lambda: [0, 0])
for r in ref:
    every[r[2]][0] += 1
    every[r[2]][1] += r[5]
if have_otf2:
  ok({n: (enters[n], pieces[n]) for n in pieces}
     == {n: tuple(v) for n, v in every.items()},
     "OTF2 export: instances and time per state (left-open ones "
     "included, as written)")

# Pixels: at these times the reference's innermost open instance (or none)
# is the colour both pictures must show in the middle of the row.
colour = {"A": "ff0000", "B": "00ff00", "C": "0000ff"}
def innermost(rank, thread, t):
    best = None
    for r in ref:
        if (r[0], r[1]) == (rank, thread) and r[3] <= t < r[4]:
            if best is None or r[3] >= best[3]:
                best = r
    return colour[best[2]] if best else None
# Times at least one summary bin (64 ns) from any change.
probes = [(0, 0, 0, t) for t in (150, 350, 470, 530, 700, 950, 1050, 1270,
                                 1350, 1500)] \
    + [(1, 0, 1, t) for t in (200, 300)] + [(2, 1, 0, t) for t in
                                            (1200, 1690)]
args = []
for row, rank, thread, t in probes:
    args += [str(96 + t), str(41 + 22 * row)]
pics = {}
for how in ("summaries", "events"):
    out = subprocess.run([pngpix, d + "/" + how + ".png"] + args,
                         capture_output=True, text=True).stdout.split()
    pics[how] = out
for how in ("summaries", "events"):
    good = len(pics[how]) == len(probes)
    for (row, rank, thread, t), px in zip(probes, pics[how]):
        w = innermost(rank, thread, t)
        # Nothing open: the row's background (white or the zebra grey).
        if (w or "ffffff f5f6f8").find(px) < 0:
            note("%s: rank %d.%d t=%d: %s, want %s" % (how, rank, thread, t,
                                                       px, w or "background"))
            good = False
    ok(good, "viewer pixels from %s: the innermost state at %d points "
       "(B open after A ends, nothing after an unmatched END or after a "
       "stream's last record)" % (how, len(probes)))
ok(pics["summaries"] == pics["events"],
   "viewer: summaries and decoded events show the same at every point")
PY
ok $? "the checks ran"
tab=$(printf '\t')
while IFS=$tab read -r status what; do
  ok "$status" "$what"
done <"$tap_tmp/checks"
[ -s "$tap_tmp/checks" ]
ok $? "checks were made"
sed 's/^/# /' "$tap_tmp/checks.err"
finish
