#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Exports of a log with every layer on (tests/interop/layers-prog under
# the wrappers, sampled, with counters, scheduling, memory and NIC
# records), read by their consumers: OTF2 by otf2-print -Werror and
# otf2-snapshots, and back through our importer with the same `clogtool
# stats`, `profile` and `matrix` (collectives with their communicator,
# root and bytes); Chrome JSON by a strict trace-event checker
# (tefcheck.py): counter tracks, stack samples, thread-state slices,
# every flow bound to a slice, no pid or tid 0, one name per state.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
TEF="$PY $top_srcdir/tests/interop/tefcheck.py"
PROG=$B/tests/interop/layers-prog
[ -x "$B/tests/interop/.libs/layers-prog" ] && PROG=$B/tests/interop/.libs/layers-prog
LD_LIBRARY_PATH=$B/mpe/.libs:$B/logfmt/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
export MPE_LOGFILE_PREFIX=$PWD/layers
ROUNDS=12
ccn=

MPE_SAMPLE_HZ=500 MPE_COUNTERS=task-clock,context-switches MPE_SCHED=1 \
MPE_NETWORK=1 run 2 env MPE_MEMORY=1 LD_PRELOAD="$B/mpe/.libs/libmpe_memory.so" \
  "$PROG" $ROUNDS; r=$?
ok $r "the job ran with every layer on (rc $r)"
[ $r = 0 ] || { sed 's/^/#   /' err.txt | head -20; finish; }
L=layers.clog
# Which layers the machine let us record (perf may be closed to us).
layers=memory
"$CLOGTOOL" cct --json $L 2> /dev/null | $PY -c "
import json, sys; sys.exit(json.load(sys.stdin)['total'] == 0)" &&
  layers="$layers callpath"
"$CLOGTOOL" threads --json $L 2> /dev/null | $PY -c "
import json, sys; sys.exit(sum(t['switches'] for t in json.load(sys.stdin)) == 0)" &&
  layers="$layers switch"
"$CLOGTOOL" profile --json $L 2> /dev/null | $PY -c "
import json, sys; sys.exit(not json.load(sys.stdin)['counters'])" &&
  layers="$layers metric"
diag "tracks in the log: $layers"

"$CLOGTOOL" matrix --json $L > m0.json 2> /dev/null
is "the log has the Allreduce collectives" "$($PY -c "
import json
m = json.load(open('m0.json'))
print(sum(f['calls'] for c in m.get('collectives', []) for f in c['functions']
          if f['name'] == 'MPI_Allreduce'))")" $((2 * ROUNDS))

# ---- OTF2 ------------------------------------------------------------
if ! "$CLOGTOOL" convert -q $L x.otf2 2> err.txt; then
  if grep -q "without OTF2" err.txt; then diag "no OTF2: skipped"; else
    ok 1 "convert to OTF2"; sed 's/^/#   /' err.txt; fi
else
  ok 0 "convert to OTF2"
  otf2-print -Werror x.otf2 > p.txt 2> perr.txt
  ok $? "otf2-print -Werror accepts it"
  n=$(grep -c '^MPI_COLLECTIVE_END' p.txt)
  b=$(grep -c '^MPI_COLLECTIVE_BEGIN' p.txt)
  [ "$n" -ge $((2 * ROUNDS)) ] && [ "$n" = "$b" ]
  ok $? "a MpiCollectiveBegin/End pair per collective ($b/$n)"
  n=$(grep '^MPI_COLLECTIVE_END' p.txt | grep -c 'Operation: ALLREDUCE.*Sent: 8, Received: 8')
  is "  each Allreduce with its operation and bytes" "$n" $((2 * ROUNDS))
  otf2-print -G x.otf2 > g.txt 2>&1
  is "MPI_COMM_WORLD is defined once" \
    "$(grep '^COMM ' g.txt | grep -c '"MPI_COMM_WORLD"')" 1
  host=$(hostname)
  grep -q "^SYSTEM_TREE_NODE .*Name: \"$host\"" g.txt
  ok $? "a system tree node named after the host ($host)"
  case " $layers " in *" callpath "*)
    otf2-print -Werror --unwind-calling-context x.otf2 > u.txt 2>&1
    ok $? "  the call-path samples unwind through their calling contexts"
    ccn=$(grep -c '^CALLING_CONTEXT_SAMPLE' p.txt)
    [ "$ccn" -gt 0 ]; ok $? "  calling-context samples ($ccn)" ;;
  esac
  mkdir snap && cp -r x.otf2 x.def x snap/ &&
  otf2-snapshots snap/x.otf2 > snap.txt 2>&1
  ok $? "otf2-snapshots reads it and adds snapshots"
  otf2-print -Werror snap/x.otf2 > /dev/null 2>&1
  ok $? "  and the result passes otf2-print -Werror"

  "$CLOGTOOL" convert -q x.otf2 back.clog
  ok $? "the archive converts back to .clog"
  for what in stats profile matrix metrics threads cpus memory cct; do
    "$CLOGTOOL" $what --json $L > a.json 2> /dev/null
    "$CLOGTOOL" $what --json back.clog > b.json 2> /dev/null
    $PY - a.json b.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def strip(d):
    if isinstance(d, dict):
        return {k: strip(v) for k, v in d.items()
                if k not in ("file", "path", "format", "version", "creator",
                             "file_size", "size_bytes", "files")}
    if isinstance(d, list):
        return [strip(x) for x in d]
    return d
a, b = strip(a), strip(b)
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print("# %s: %s != %s" % (k, str(a.get(k))[:300], str(b.get(k))[:300]))
    sys.exit(1)
PY
    ok $? "round trip: clogtool $what --json is the same"
  done
  "$CLOGTOOL" print $L 2> /dev/null | grep -v '^#' > pa.txt
  "$CLOGTOOL" print back.clog 2> /dev/null | grep -v '^#' > pb.txt
  cmp -s pa.txt pb.txt
  ok $? "round trip: clogtool print is the same, info text included ($(wc -l < pa.txt) lines)"
fi

# ---- Chrome / Perfetto JSON -------------------------------------------
"$CLOGTOOL" convert -q $L x.json
ok $? "convert to JSON"
$TEF x.json > tef.json 2> tef.err
ok $? "the strict trace-event checker accepts it"
sed 's/^/#   /' tef.err | head -10
q () { $PY -c "import json; t = json.load(open('tef.json')); print($1)"; }
$PY - <<'PY'
import json, sys
t = json.load(open("tef.json"))
want = 'H"q" \\ \t caf\u00e9 \u20ac'
sys.exit(0 if want in t["state_names"] else 1)
PY
ok $? "  the hostile state name, escaped (its Latin-1 byte as U+00E9)"
is "  pids start at 1 (rank + 1)" "$(q "t['pids']")" "[1, 2]"
is "  one name for all Compute instances" \
  "$(q "[n for n in t['state_names'] if 'Compute' in n]")" "['Compute']"
msgs=$("$CLOGTOOL" stats --json $L | $PY -c "
import json, sys
m = json.load(sys.stdin)['messages']; print(m['count'] - m['unmatched'])")
is "  a flow per matched message" "$(q "t['flows']")" "$msgs"
is "  a counter track of the process's live heap bytes" \
  "$(q "int(any(k.startswith('memory live bytes') for k in t['counters']))")" 1
"$CLOGTOOL" memory --json $L > mem.json 2> /dev/null
$PY - <<'PY'
import json, sys
t = json.load(open("tef.json")); m = json.load(open("mem.json"))
funcs = {s["function"] for r in m["per_rank"] for s in r["sites"]}
# Resolved ones (unresolved ones are module+offset, spelt per module).
named = {k.split(": ", 1)[1].rsplit(" (site ", 1)[0]
         for k in t["counters"] if k.startswith("memory live bytes: ")}
named = {n for n in named if "+0x" not in n}
print("# %d sites named, e.g. %s" % (len(named), sorted(named)[:3]))
sys.exit(0 if named and named <= funcs else 1)
PY
ok $? "  memory call sites' tracks named by their functions, as in clogtool memory"
case " $layers " in *" callpath "*)
  is "  stack samples, each on a defined frame" \
    "$(q "int(t['samples'] > 0 and t['frames'] > 0)")" 1
  [ -z "$ccn" ] || is "  as many as OTF2's calling-context samples" \
    "$(q "t['samples']")" "$ccn" ;; esac
case " $layers " in *" switch "*)
  is "  thread state as slices" \
    "$(q "int('Running' in t['thread_state_names'])")" 1 ;; esac
case " $layers " in *" metric "*)
  is "  counter tracks of the metrics" \
    "$(q "int(any(k.startswith('task-clock') for k in t['counters']))")" 1 ;; esac
# The checker on MPE2's samples and a synthetic log with threads.
DATA=$top_srcdir/tests/interop/data
"$CLOGTOOL" gen -o gen.clog -p 3 -t 2 -n 3000 --seed 3 > /dev/null
for f in "$DATA/cpilog_pack.clog2" "$DATA/srtest.clog2" "$DATA/fpilog.clog" \
         gen.clog; do
  "$CLOGTOOL" convert -q "$f" o.json && $TEF o.json > /dev/null 2> tef.err
  ok $? "$(basename "$f") as JSON passes the strict checker"
  sed 's/^/#   /' tef.err | head -5
done

# ---- pprof -------------------------------------------------------------
case " $layers " in *" callpath "*)
  "$CLOGTOOL" cct --pprof p.pb.gz $L 2> /dev/null
  ok $? "cct --pprof writes a profile"
  "$CLOGTOOL" cct --json $L > cct.json 2> /dev/null
  "$CLOGTOOL" stats --json $L > st.json
  $PY "$top_srcdir/tests/interop/pprofcheck.py" p.pb.gz > pp.json
  ok $? "  it decodes as profile.proto"
  $PY - <<'PY'
import json, sys
p = json.load(open("pp.json")); c = json.load(open("cct.json"))
s = json.load(open("st.json"))
bad = []
if p["totals"][0] != c["total"]:
    bad.append("samples %r != cct's %r" % (p["totals"][0], c["total"]))
if p["labels"] != {"rank": [0, 1], "thread": [0]}:
    bad.append("labels %r" % p["labels"])
m = p["mappings"]
if not m or not m[0]["file"].endswith("layers-prog") or not m[0]["build_id"]:
    bad.append("first mapping %r" % (m[:1],))
if p["locations_mapped"] < p["locations"] // 2:
    bad.append("locations in a mapping: %d of %d" % (p["locations_mapped"],
                                                     p["locations"]))
if p["duration_nanos"] != round(s["duration"] * 1e9):
    bad.append("duration %r != %r" % (p["duration_nanos"], s["duration"]))
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
PY
  ok $? "  samples as cct counts them, labels rank and thread, the program as the first mapping with its build id, the duration" ;;
esac
finish
