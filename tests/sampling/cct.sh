#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool cct on a program with a known profile (tests/sampling/hot.c:
# hot_loop, called through via_helper, does 4/5 of the compute): the tree
# puts it on top with its share, function, file and line, with frame
# pointers and without (libunwind); a stripped binary degrades to
# module+offset with a note; MPI time in the tree is the wrappers'; the
# exports are read by their consumers (gprof for gmon.out).
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
. "$top_srcdir/tests/sampling/common.sh"
hotline=$(grep -n 'hot line' "$top_srcdir/tests/sampling/hot.c" | cut -d: -f1)

# srun WHAT N PROG ARGS...: a sampled job as one TAP line; the log of an
# earlier job is removed first (checks must not pass on it), and a
# failure shows the exit status and the job's stderr (a sanitizer's
# report is there).
srun () {
  what=$1; shift
  rm -f hot.clog
  run "$@"; r=$?
  ok $r "$what"
  if [ $r -ne 0 ]; then
    diag "exit status $r; stderr:"
    grep -v '^ *$' err.txt | head -40 | sed 's/^/#   /'
  fi
  return $r
}

# check JSON EXE: hot_loop's share of the compute, its parent, file, line.
check () {
  python3 - "$1" "$hotline" <<'PY'
import json, sys
t = json.load(open("tree.json"))
found = {}
def walk(n, parent):
    found.setdefault(n["name"], []).append((n, parent))
    for c in n["children"]:
        walk(c, n["name"])
walk(t, None)
hot = sum(n["self"] for n, p in found.get("hot_loop", []))
warm = sum(n["self"] for n, p in found.get("warm_loop", []))
parents = sorted(set(p for n, p in found.get("hot_loop", [])))
n = found["hot_loop"][0][0] if "hot_loop" in found else {}
share = hot / (hot + warm) if hot + warm else 0
print("share %.3f samples %d parents %s file %s line %s" % (
    share, hot + warm, ",".join(parents),
    (n.get("file") or "").split("/")[-1], n.get("line")))
PY
}

MPE_SAMPLE_HZ=1000 srun "hot runs sampled at 1000 Hz" 2 $HOT 30 12
$CLOGTOOL cct --json hot.clog > tree.json 2> notes.txt
ok $? "cct --json"
out=$(check); diag "$out"
share=$(echo "$out" | awk '{ print $2 }')
awk -v s="$share" 'BEGIN { exit !(s >= 0.74 && s <= 0.86) }'
ok $? "hot_loop has 80% of the compute, within 6 points ($share)"
is "hot_loop is called through via_helper" \
  "$(echo "$out" | awk '{ print $6 }')" via_helper
is "hot_loop's file and line" "$(echo "$out" | awk '{ print $8 ":" $10 }')" \
  "hot.c:$hotline"
top=$($CLOGTOOL cct --min 0 hot.clog 2>/dev/null | awk '$2 + 0 > 0 { print $2, $NF, $(NF-2) }' | sort -rn | head -1)
case $top in *" hot_loop") ok 0 "hot_loop is the top self entry" ;;
  *) ok 1 "hot_loop is the top self entry"; diag "$top" ;; esac

# Without frame pointers: libunwind (auto falls back to it).
MPE_SAMPLE_HZ=1000 srun "hot-nofp runs sampled" 2 $HOTNOFP 30 12
$CLOGTOOL cct --json hot.clog > tree.json 2>/dev/null
out=$(check); diag "no frame pointers: $out"
share=$(echo "$out" | awk '{ print $2 }')
awk -v s="$share" 'BEGIN { exit !(s >= 0.74 && s <= 0.86) }'
ok $? "without frame pointers: hot_loop's share ($share)"
is "without frame pointers: through via_helper" \
  "$(echo "$out" | awk '{ print $6 }')" via_helper

# A frame-pointer function called with rbp zero (hot.c zero-fp): the
# walk from it ends in a zero after two frames, at none of the thread's
# outermost frames, so the sampler must not trust it (libunwind then
# finds the callers).  The vDSO's clock_gettime called from code built
# without frame pointers is this case.
MPE_SAMPLE_HZ=1000 srun "hot zero-fp runs sampled" 2 $HOT 30 12 zero-fp
$CLOGTOOL cct --json hot.clog > tree.json 2>/dev/null
out=$(python3 - <<'PY'
import json
t = json.load(open("tree.json"))
def under(n, name, parent=None):
    if n["name"] == name:
        return n["total"], parent
    got, par = 0, None
    for c in n["children"]:
        g, p = under(c, name, n["name"])
        got += g
        par = par or p
    return got, par
hot, par = under(t, "hot_loop")
warm, _ = under(t, "warm_loop")
# A sample neither walk could unwind hangs under its MPI call's node
# (module "[MPI]"), or "[unknown]": a root of its own when the call had
# no call site yet, rare (a loaded CI run had one, in state 5).  Every
# other path starts at _start.
def made_root(c):
    return c["name"].startswith("[") or c.get("module") == "[MPI]"
top = ",".join(sorted(c["name"] for c in t["children"]
                      if c["total"] and not made_root(c)))
made = sum(c["total"] for c in t["children"] if made_root(c))
print("share %.3f parent %s roots %s constructed %.3f"
      % (hot / (hot + warm) if hot + warm else 0, par, top,
         made / t["total"] if t["total"] else 1))
PY
)
diag "zero-fp: $out"
share=$(echo "$out" | awk '{ print $2 }')
awk -v s="$share" 'BEGIN { exit !(s >= 0.74 && s <= 0.86) }'
ok $? "rbp zero: hot_loop's samples keep their callers ($share)"
is "rbp zero: every unwound path starts at _start" \
  "$(echo "$out" | awk '{ print $6 }')" _start
made=$(echo "$out" | awk '{ print $8 }')
awk -v m="$made" 'BEGIN { exit !(m < 0.02) }'
ok $? "rbp zero: under 2% of the samples not unwound ($made)"

# A stripped copy: offsets and a note.
cp "$HOT" hot-stripped && strip hot-stripped
MPE_SAMPLE_HZ=1000 srun "the stripped copy runs" 1 ./hot-stripped 10 4
$CLOGTOOL cct --min 0 hot.clog > text.txt 2> notes.txt; ok $? "cct reads it"
grep -q "hot-stripped: stripped (no symbol table, no debug information)" \
  notes.txt; ok $? "the note names the stripped binary"
grep -q "hot-stripped+0x" text.txt; ok $? "its frames are module+offset"
grep -q "hot_loop" text.txt; ok $((! $?)) "no made-up function names"

# MPI time: the tree's MPI_Barrier time is the wrappers' (clogtool profile).
# A call site's interval encloses its state's (it is stamped before the
# state's start event is logged and after its end event), so the tree may
# hold more, by what logging two events costs: 0.14% in a gcc build,
# 1-5% in an ASan build stamping with clock_gettime under load (6 ms of
# 117 in CI).  Less than the wrappers' would be calls the tree lost.
MPE_SAMPLE_HZ=500 srun "hot runs for the MPI time" 2 $HOT 4 25
$CLOGTOOL cct --json hot.clog > tree.json 2>/dev/null
cctt=$(python3 -c '
import json
t = json.load(open("tree.json"))
def walk(n):
    s = n["comm_time_s"] if n["name"] == "MPI_Barrier" and n["module"] == "[MPI]" else 0
    return s + sum(walk(c) for c in n["children"])
print("%.6f" % walk(t))')
proft=$($CLOGTOOL profile --json hot.clog | python3 -c '
import json, sys
p = json.load(sys.stdin)
print("%.6f" % sum(float(f["time_s"]) for f in p["functions"] if f["name"] == "MPI_Barrier"))')
diag "MPI_Barrier: tree $cctt s, wrappers $proft s"
awk -v a="$cctt" -v b="$proft" 'BEGIN {
  exit !(b > 0 && a >= b - 0.001 && a <= 1.10 * b + 0.001) }'
ok $? "MPI time in the tree is the wrappers' (at most 10% + 1 ms more, 1 ms less)"
calls=$(python3 -c '
import json
t = json.load(open("tree.json"))
print(t["calls"])')
is "every wrapped call has its call site" "$calls" \
  "$($CLOGTOOL profile --json hot.clog | python3 -c '
import json, sys
p = json.load(sys.stdin)
print(sum(f["calls"] for f in p["functions"] if f["name"] == "MPI_Barrier"))')"

# One node per MPI call site, with the default call sites: the call's
# count, time and bytes and the samples taken inside it are on the same
# node, under the caller's sampled context (main), named as the MPI
# function; the wrapper's own frame (liblmpe, lmpe-gen.c) is not shown.
out=$(python3 -c '
import json
t = json.load(open("tree.json"))
bar, bad = [], []
def walk(n, path):
    if n["name"] == "MPI_Barrier":
        bar.append((n, path))
    if n["name"].startswith("MPI_") and ("mpe" in (n.get("module") or "")
                                         or "mpe-gen" in (n.get("file") or "")):
        bad.append(n["name"])
    for c in n["children"]:
        walk(c, path + [n["name"]])
walk(t, [])
n, path = bar[0] if bar else ({}, [])
pm = [c for c in n.get("children", []) if c["name"] == "PMPI_Barrier"]
print(len(bar), path[-1] if path else "-", n.get("module"), n.get("calls", 0),
      n.get("total", 0), sum(c["total"] for c in pm), len(bad))')
diag "MPI_Barrier nodes, parent, module, calls, samples, under PMPI_Barrier, wrapper frames: $out"
set -- $out
is "one MPI_Barrier node" "$1" 1
is "  under main, the sampled context of its caller" "$2" main
is "  named as the MPI function" "$3" "[MPI]"
is "  with every call" "$4" "$calls"
[ "$6" -le "$5" ]; ok $? "  samples in the call ($6 of $5 under PMPI_Barrier) are its own"
is "no MPI wrapper frame of its own (liblmpe, lmpe-gen.c)" "$7" 0

# Exports.
MPE_SAMPLE_HZ=1000 srun "hot runs for the exports" 2 $HOT 20 8
$CLOGTOOL cct --gmon gmon.out --collapsed stacks.txt --pprof prof.pb.gz \
  hot.clog 2> err2.txt; ok $? "cct writes the three exports"
gprof -b -p "$HOT" gmon.out > gprof.txt 2>&1; ok $? "gprof reads gmon.out"
is "gprof's top function" \
  "$(awk '/^ *[0-9.]+ +[0-9.]+ +[0-9.]+/ { print $NF; exit }' gprof.txt)" \
  hot_loop
grep -q "main;via_helper;hot_loop [0-9]*$" stacks.txt
ok $? "collapsed stacks: main;via_helper;hot_loop N"
python3 -c '
import gzip, sys
b = gzip.open("prof.pb.gz").read()
sys.exit(0 if b"hot_loop" in b and b"via_helper" in b and b[0] == 0x0a else 1)'
ok $? "pprof profile: gzip, a sample_type first, the functions named"

# Windows, ranks and comparing two runs.
is "--rank 1 only" "$($CLOGTOOL cct --rank 1 hot.clog 2>/dev/null | head -1 | sed 's/.*samples (.*), \([0-9]*\) ranks.*/\1/')" 1
is "an empty window has no samples" \
  "$($CLOGTOOL cct --from 100000s hot.clog 2>/dev/null | head -1 | sed 's/^# [^:]*: \([0-9]*\) samples.*/\1/')" 0
cp hot.clog a.clog
MPE_SAMPLE_HZ=1000 srun "a second run on one rank" 1 $HOT 20 8
$CLOGTOOL cct --diff a.clog hot.clog > diff.txt 2>/dev/null
ok $? "cct --diff"
grep -q "main;via_helper;hot_loop$" diff.txt; ok $? "the diff lists hot_loop's context"
$CLOGTOOL cct hot.clog nope.clog > /dev/null 2>&1
is "two files without --diff is a usage error" $? 2
$CLOGTOOL cct --metric nonsense hot.clog > /dev/null 2>&1
is "a bad metric is a usage error" $? 2
finish
