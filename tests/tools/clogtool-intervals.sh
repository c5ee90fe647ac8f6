#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every non-viewer consumer reports the same state instances (FORMAT.md
# section 13) on the log of tests/logfmt/test-intervals.c: states that
# overlap without nesting, an unmatched END, BEGINs left open at the end,
# nesting beyond 256, two threads of one rank and another rank.
# `clogtool print --intervals` is checked against the hand-computed list;
# `clogtool stats` (--json and the table), the Chrome JSON export and the
# OTF2 export (read back with otf2-print) must give the same instances and
# durations.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"

log=$tap_tmp/iv.clog
"$top_builddir/tests/logfmt/test-intervals" --write "$log" \
  || bail "test-intervals --write failed"

run 0 "print --intervals --tsv" "$clogtool" print --intervals --tsv "$log"
cp "$tap_tmp/out" "$tap_tmp/iv.tsv"
run 0 "print --intervals --from 1350ns --to 1360ns" \
  "$clogtool" print --intervals --tsv --from 1350ns --to 1360ns "$log"
cp "$tap_tmp/out" "$tap_tmp/iv-window.tsv"
run 0 "stats --json" "$clogtool" stats --json "$log"
cp "$tap_tmp/out" "$tap_tmp/stats.json"
run 0 "stats (table)" "$clogtool" stats "$log"
cp "$tap_tmp/out" "$tap_tmp/stats.txt"
"$clogtool" convert -q "$log" "$tap_tmp/iv.json" 2>"$tap_tmp/err"
ok $? "convert to JSON"
if grep -q '^#define HAVE_OTF2 1' "$top_builddir/config.h"; then
  mkdir -p "$tap_tmp/otf2"
  "$clogtool" convert -q "$log" "$tap_tmp/otf2/iv.otf2" 2>"$tap_tmp/err"
  ok $? "convert to OTF2"
  grep -q '1 state ends were not innermost' "$tap_tmp/err"
  ok $? "OTF2: the one END that leaves an inner state open is reported"
  otf2-print "$tap_tmp/otf2/iv.otf2" >"$tap_tmp/otf2.txt" 2>&1
  ok $? "otf2-print reads the archive"
  otf2-print -G "$tap_tmp/otf2/iv.otf2" >"$tap_tmp/otf2-defs.txt" 2>&1
else
  : >"$tap_tmp/otf2.txt"
  : >"$tap_tmp/otf2-defs.txt"
fi

# The checks print "STATUS<tab>description" lines (0 = pass), comments
# on stderr.
$python - "$tap_tmp" >"$tap_tmp/checks" 2>"$tap_tmp/checks.err" <<'PY'
import json, re, sys
from collections import Counter
d = sys.argv[1]

def ns(text):
    s, f = text.split(".")
    return int(s) * 1000000000 + int(f.ljust(9, "0")[:9])

def ok(cond, what):
    print("%d\t%s" % (0 if cond else 1, what))

def note(text):
    sys.stderr.write(text + "\n")

# print --intervals: start, end, rank, thread, state, details.
rows = []
for line in open(d + "/iv.tsv"):
    start, end, rank, thread, state, det = line.rstrip("\n").split("\t")
    f = dict(x.split("=", 1) for x in det.split() if "=" in x)
    rows.append((int(rank), int(thread), state, ns(start), ns(end),
                 ns(f["dur"]), ns(f["excl"]), int(f["depth"]),
                 " open" in det, f.get("info")))

# By hand (tests/logfmt/test-intervals.c has the story of each).
want = [
    (0, 0, "A", 100, 300, 200, 100, 0, False, '"n=8"'),
    (0, 1, "C", 250, 350, 100, 100, 0, False, None),
    (0, 0, "C", 400, 500, 100, 100, 1, False, None),
    (0, 0, "B", 200, 600, 400, 300, 1, False, None),
    (0, 0, "A", 900, 1000, 100, 100, 1, False, None),
    (0, 0, "A", 800, 1100, 300, 200, 0, False, None),
    (0, 0, "B", 1200, 1400, 200, 100, 0, True, '"n=5"'),
    (0, 0, "C", 1300, 1400, 100, 100, 1, True, None),
]
for j in range(4, 260):
    k = 259 - j
    want.append((1, 0, "A", 1000 + k, 1659 - k, 659 - 2 * k,
                 149 if k == 255 else 2, k, False, None))
ok(rows == want, "print --intervals: %d instances exactly as computed by "
   "hand, in the order they end" % len(want))
if rows != want:
    for a, b in zip(rows, want):
        if a != b:
            note(" got %r\nwant %r" % (a, b))
            break

# A window gives the instances overlapping it, unclipped.
wrows = []
for line in open(d + "/iv-window.tsv"):
    start, end, rank, thread, state, det = line.rstrip("\n").split("\t")
    wrows.append((int(rank), int(thread), state, ns(start), ns(end)))
over = [r[:5] for r in want if r[3] <= 1360 and r[4] >= 1350]
ok(sorted(wrows) == sorted(over) and len(over) == 2 + 256,
   "print --intervals --from/--to: the %d instances overlapping the "
   "window, whole" % len(over))

# stats --json: per state, the closed instances of the list.
stats = {s["name"]: s for s in json.load(open(d + "/stats.json"))["states"]}
good = True
for name in "ABC":
    closed = [r for r in rows if r[2] == name and not r[8]]
    left = [r for r in rows if r[2] == name and r[8]]
    s = stats[name]
    got = (s["count"], round(s["total_s"] * 1e9), round(s["exclusive_s"] * 1e9),
           s["unmatched_begins"])
    exp = (len(closed), sum(r[5] for r in closed), sum(r[6] for r in closed),
           len(left))
    if got != exp:
        note("stats %s: got %r want %r" % (name, got, exp))
        good = False
ok(good, "stats: count, total_s, exclusive_s and unmatched_begins of each "
   "state agree with the instances")
hand = {n_: (stats[n_]["count"], round(stats[n_]["total_s"] * 1e9),
             round(stats[n_]["exclusive_s"] * 1e9),
             stats[n_]["unmatched_begins"], stats[n_]["unmatched_ends"],
             stats[n_]["too_deep"]) for n_ in "ABC"}
ok(hand == {"A": (259, 104024, 1059, 0, 1, 4), "B": (1, 400, 300, 1, 1, 1),
            "C": (2, 200, 200, 1, 0, 0)},
   "stats: figures by hand (unmatched ENDs on both threads, too deep) %r"
   % (hand,))

# The table says the same as the JSON.
table = {}
for line in open(d + "/stats.txt"):
    f = line.split()
    if len(f) == 6 and f[0] in ("A", "B", "C"):
        table[f[0]] = (int(f[2]), ns(f[3]), ns(f[4]))
ok(table == {k: v[:3] for k, v in hand.items()},
   "stats table: count, total_s and exclusive_s as in the JSON")
ok("(4 starts nested deeper than 256, not counted)" in
   open(d + "/stats.txt").read(), "stats table: the too-deep starts")

# Chrome JSON: "X" slices and "b"/"e" pairs (instances that do not nest).
doc = json.load(open(d + "/iv.json"))["traceEvents"]
def us(x):
    return round(x * 1000)
# pid and tid are offset (no pid or tid 0); thread_name says which.
rt = {}
for e in doc:
    if e.get("ph") == "M" and e.get("name") == "thread_name":
        w = e["args"]["name"].split()
        if len(w) == 4 and w[0] == "rank" and w[2] == "thread":
            rt[(e["pid"], e["tid"])] = (int(w[1]), int(w[3]))
for e in doc:
    if "tid" in e and (e.get("pid"), e["tid"]) in rt:
        e["pid"], e["tid"] = rt[(e["pid"], e["tid"])]
inst, begins = [], {}
for e in doc:
    if e.get("cat") != "state":
        continue
    fin = not e.get("args", {}).get("unfinished", False)
    if e["ph"] == "X":
        inst.append((e["pid"], e["tid"], e["name"], us(e["ts"]),
                     us(e["ts"]) + us(e["dur"]), not fin))
    elif e["ph"] == "b":
        begins[e["id"]] = e
    elif e["ph"] == "e":
        b = begins.pop(e["id"])
        inst.append((b["pid"], b["tid"], b["name"], us(b["ts"]), us(e["ts"]),
                     b.get("args", {}).get("unfinished", False)))
mine = [(r[0], r[1], r[2], r[3], r[4], r[8]) for r in rows]
ok(Counter(inst) == Counter(mine) and not begins,
   "JSON export: the same %d instances (start, end, left open)" % len(mine))
# Slices on one thread nest, so Perfetto shows them as they are.
nests = True
for key in set((r[0], r[1]) for r in mine):
    xs = sorted(((us(e["ts"]), -us(e["dur"]), us(e["ts"]) + us(e["dur"]))
                 for e in doc
                 if e.get("ph") == "X" and (e["pid"], e["tid"]) == key))
    stack = []
    for ts, _, end in xs:
        while stack and stack[-1] <= ts:
            stack.pop()
        if stack and end > stack[-1]:
            nests = False
        stack.append(end)
ok(nests, "JSON export: the X slices of each thread nest")

# OTF2: Enter/Leave per location; a re-entry marked "continued" joins the
# piece left just before.
locs = {}
for line in open(d + "/otf2-defs.txt"):
    m = re.match(r'LOCATION\s+(\d+)\s+Name: "rank (\d+) thread (\d+)"', line)
    if m:
        locs[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
if locs:
    lines = open(d + "/otf2.txt").read().splitlines()
    stacks, out, left = {}, [], {}
    for i, line in enumerate(lines):
        m = re.match(r'(ENTER|LEAVE)\s+(\d+)\s+(\d+)\s+Region: "([^"]*)"',
                     line)
        if not m:
            continue
        kind, loc, t, reg = m.group(1), int(m.group(2)), int(m.group(3)), \
            m.group(4)
        st = stacks.setdefault(loc, [])
        cont = i + 1 < len(lines) and '"continued"' in lines[i + 1]
        if kind == "ENTER":
            if cont:
                piece = left[(loc, reg, t)].pop()
                out.remove(piece)
                st.append((reg, piece[3]))
            else:
                st.append((reg, t))
        else:
            r_, t0 = st.pop()
            assert r_ == reg, "OTF2 regions do not nest"
            piece = locs[loc] + (reg, t0, t)
            out.append(piece)
            left.setdefault((loc, reg, t), []).append(piece)
    ok(Counter(out) == Counter(m_[:5] for m_ in mine),
       "OTF2 export: the same %d instances (pieces joined)" % len(mine))
PY
ok $? "the cross-consumer checks ran"
tab=$(printf '\t')
while IFS=$tab read -r status what; do
  ok "$status" "$what"
done <"$tap_tmp/checks"
[ -s "$tap_tmp/checks" ]
ok $? "cross-consumer checks were made"
sed 's/^/# /' "$tap_tmp/checks.err"
finish
