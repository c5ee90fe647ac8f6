#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool convert: MPE2 logs -> .clog (stats agree with the direct read),
# .clog -> CLOG2 (strict layout, MPE2's record counts, same stats),
# -> OTF2 (otf2-print accepts it, exact event counts), -> Chrome JSON
# (parses, exact slice/instant/flow counts); plus a multi-block synthetic
# CLOG2 and clear failures.
. "$top_srcdir/tests/common/tap.sh"
CLOGTOOL="$top_builddir/clogtool"
UTIL="$top_builddir/tests/interop/clog2-util"
DATA="$top_srcdir/tests/interop/data"
T="$tap_tmp"
# A plain interpreter starts much faster than a version-manager shim.
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

# Stats of two files, minus what names the file itself.
same_stats () {
  "$CLOGTOOL" stats --json "$1" > "$T/a.json" &&
  "$CLOGTOOL" stats --json "$2" > "$T/b.json" &&
  "$PY" - "$T/a.json" "$T/b.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    for k in ("file", "path", "format", "version", "creator", "file_size",
              "size"):
        d.pop(k, None)
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print("# differs:", k, a.get(k), "vs", b.get(k))
    sys.exit(1)
PY
}

for f in cpilog.clog2 cpilog_pack.clog2 srtest.clog2 fpilog.clog; do
  base=${f%.*}
  "$CLOGTOOL" convert "$DATA/$f" "$T/$base.clog" > "$T/report" 2>&1
  ok $? "convert $f to .clog"
  grep -q 'MB/s.*events/s' "$T/report"; ok $? "$f: speed reported"
  same_stats "$DATA/$f" "$T/$base.clog"
  ok $? "$f: stats of the original and the .clog agree"
done

# OTF2: otf2-print must accept the archive; count its records.
otf2_counts () {
  otf2-print "$1" > "$T/otf2.txt" 2> "$T/otf2.err" || return 1
  awk '{ n[$1]++ } END { printf "ENTER=%d LEAVE=%d MPI_SEND=%d MPI_RECV=%d METRIC=%d\n",
       n["ENTER"], n["LEAVE"], n["MPI_SEND"], n["MPI_RECV"], n["METRIC"] }' \
      "$T/otf2.txt"
}
check_otf2 () {  # input, expected counts, regions
  name=$(basename "$1"); name=${name%.*}
  "$CLOGTOOL" convert -q "$1" "$T/otf2-$name/$name.otf2" 2> "$T/err"
  ok $? "convert $name to OTF2"
  test -f "$T/otf2-$name/$name.otf2" && test -d "$T/otf2-$name/$name"
  ok $? "$name: anchor file and archive directory written"
  got=$(otf2_counts "$T/otf2-$name/$name.otf2")
  ok $? "$name: otf2-print accepts the archive"
  [ "$got" = "$2" ]; ok $? "$name: OTF2 event counts ($got)"
  [ "$got" = "$2" ] || diag "want $2"
  regions=$(otf2-print -G "$T/otf2-$name/$name.otf2" | grep -c '^REGION ')
  [ "$regions" = "$3" ]; ok $? "$name: $regions regions (one per state)"
}
mkdir -p "$T/otf2-cpilog" "$T/otf2-srtest" "$T/otf2-fpilog"
if grep -q '^#define HAVE_OTF2 1' "$top_builddir/config.h"; then
check_otf2 "$DATA/cpilog.clog2" \
  "ENTER=140 LEAVE=140 MPI_SEND=0 MPI_RECV=0 METRIC=68" 8
check_otf2 "$DATA/srtest.clog2" \
  "ENTER=12008 LEAVE=12008 MPI_SEND=4000 MPI_RECV=4000 METRIC=8" 5
check_otf2 "$T/fpilog.clog" \
  "ENTER=114 LEAVE=114 MPI_SEND=39 MPI_RECV=39 METRIC=0" 10
otf2-print -G "$T/otf2-srtest/srtest.otf2" > "$T/defs.txt"
grep -q '^CLOCK_PROPERTIES .*Ticks per Seconds: 1000000000' "$T/defs.txt"
ok $? "OTF2 clock runs in nanoseconds"
[ "$(grep -c '^LOCATION ' "$T/defs.txt")" = 4 ]
ok $? "OTF2 has one location per stream"
grep -q '^COMM .*"MPI_COMM_WORLD"' "$T/defs.txt"
ok $? "OTF2 defines MPI_COMM_WORLD"
"$CLOGTOOL" convert -q "$DATA/cpilog.clog2" "$T/otf2-cpilog/cpilog.otf2" \
  2> "$T/err"
[ $? -eq 1 ] && grep -q 'exists already; remove it first' "$T/err"
ok $? "an existing OTF2 archive is not overwritten, with a clear message"
else
# Built --without-otf2: the request fails clearly.
"$CLOGTOOL" convert -q "$DATA/cpilog.clog2" "$T/otf2-cpilog/cpilog.otf2" \
  2> "$T/err"
[ $? -eq 1 ] && grep -q 'built without OTF2' "$T/err"
ok $? "without OTF2, .otf2 output is refused with a clear message"
fi

# JSON (Chrome trace event format).
check_json () {  # file, python expectations
  name=$(basename "$1"); name=${name%.*}
  "$CLOGTOOL" convert -q "$1" "$T/$name.json"
  ok $? "convert $name to JSON"
  "$PY" - "$T/$name.json" "$2" <<'PY'
import json, sys, collections
doc = json.load(open(sys.argv[1]))
want = json.loads(sys.argv[2])
ev = doc["traceEvents"]
c = collections.Counter()
for e in ev:
    if e["ph"] == "X":
        assert e["dur"] >= 0 and e["ts"] >= 0
        c["X:" + e["name"]] += 1
    elif e["ph"] == "i":
        c["i:" + e["name"]] += 1
    elif e["ph"] in "sf":
        c[e["ph"]] += 1
    elif e["ph"] == "M":
        c["M"] += 1
got = {k: c[k] for k in want}
ids_s = sorted(e["id"] for e in ev if e["ph"] == "s")
ids_f = sorted(e["id"] for e in ev if e["ph"] == "f")
if got != want or ids_s != ids_f:
    print("# got", dict(c))
    sys.exit(1)
PY
  ok $? "$name: JSON parses and its counts match"
}
check_json "$DATA/cpilog_pack.clog2" '{"X:Compute": 20, "X:Broadcast": 20,
  "X:Reduce": 20, "X:Sync": 20, "X:MPI_Barrier": 20, "X:MPI_Bcast": 20,
  "X:MPI_Reduce": 20, "i:MPE_Comm_init": 4, "i:MPE_Comm_finalize": 4,
  "s": 0, "f": 0, "M": 12}'
check_json "$DATA/srtest.clog2" '{"X:MPI_Send": 5000, "X:MPI_Recv": 7000,
  "X:MPI_Comm_rank": 4, "X:MPI_Comm_size": 4, "s": 4000, "f": 4000}'
"$PY" - "$T/cpilog_pack.json" <<'PY'
import json, re, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
info = [e["args"]["info"] for e in ev if e.get("name") == "Compute"
        and "args" in e]
pat = re.compile(r"mypi = 0\.78[0-9]* computed at iteration [0-4]\.$")
sys.exit(0 if len(info) == 20 and all(pat.match(i) for i in info) else 1)
PY
ok $? "JSON slices carry the decoded info text"

# A synthetic multi-block CLOG2 (8 ranks x 2000 iterations).
"$UTIL" gen "$T/big.clog2" 8 2000 && "$CLOGTOOL" convert -q --progress \
  "$T/big.clog2" "$T/big.clog" 2> "$T/progress"
ok $? "convert a multi-block synthetic CLOG2 with --progress"
# Drawn on a terminal only (tests/tools/dash-output.sh runs one).
[ ! -s "$T/progress" ]; ok $? "progress is quiet off a terminal"
"$CLOGTOOL" stats --json "$T/big.clog" | "$PY" -c '
import json, sys
s = json.load(sys.stdin)
sys.exit(0 if s["events"] == 8 * 2000 * 8 + 8 * 200
         and s["messages"]["count"] == 16000 else 1)'
ok $? "all 129600 records and 16000 messages converted"

"$CLOGTOOL" convert -q --format json "$DATA/cpilog.clog2" "$T/cpi.out" &&
  "$PY" -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/cpi.out"
ok $? "--format json overrides the extension"

# CLOG2 out (MPE2's tools): each .clog made above -> .clog2.  The file
# passes the strict layout check, holds as many event, message and
# communicator records as MPE2's original, and reads back with the same
# stats.
for f in cpilog.clog2 cpilog_pack.clog2 srtest.clog2; do
  base=${f%.*}
  "$CLOGTOOL" convert "$T/$base.clog" "$T/$base-out.clog2" > "$T/report" \
    2>&1
  ok $? "convert $base.clog to CLOG2"
  grep -q "(clog2): .* events, .* messages" "$T/report"
  ok $? "$base: CLOG2 conversion reported"
  orig=$("$UTIL" check "$DATA/$f" | sed 's/ timeshift.*//')
  got=$("$UTIL" check "$T/$base-out.clog2" | sed 's/ timeshift.*//')
  ok $? "$base: the CLOG2 passes the layout check"
  # Definitions may differ (the import makes up states for undefined
  # ids); the records must not.
  [ "${got#* bare}" = "${orig#* bare}" ]
  ok $? "$base: same records as MPE2's file (bare${got#* bare})"
  same_stats "$T/$base.clog" "$T/$base-out.clog2"
  ok $? "$base: stats of the .clog and of its CLOG2 agree"
done
"$UTIL" gen-comm "$T/comm.clog2" &&
  "$CLOGTOOL" convert -q "$T/comm.clog2" "$T/comm.clog" &&
  "$CLOGTOOL" convert -q "$T/comm.clog" "$T/comm-out.clog2" &&
  "$UTIL" check "$T/comm-out.clog2" > /dev/null
ok $? "split, dup and intercomms: .clog2 -> .clog -> .clog2, layout check"
"$CLOGTOOL" stats --json "$T/comm-out.clog2" | "$PY" -c '
import json, sys
s = json.load(sys.stdin)
m = s["messages"]
sys.exit(0 if m["count"] == 9 and m["unmatched"] == 0 else 1)'
ok $? "split, dup and intercomms: 9 messages, none unmatched"
"$CLOGTOOL" convert -q "$T/comm.clog" "$T/nodir/x.clog2" 2> "$T/err"
[ $? -eq 1 ] && grep -q 'x.clog2: cannot create the file' "$T/err"
ok $? "CLOG2 to an unwritable path: exit 1 and a clear message"

# Failures are clear.
head -c 5000 "$DATA/srtest.clog2" > "$T/cut.clog2"
"$CLOGTOOL" convert "$T/cut.clog2" "$T/cut.clog" 2> "$T/err"
[ $? -eq 1 ] && grep -q 'cut.clog2: offset 5000: file is truncated' "$T/err"
ok $? "truncated input: exit 1 and a clear message"
[ ! -e "$T/cut.clog" ]; ok $? "no partial output left behind"
"$CLOGTOOL" convert "$DATA/srtest.clog2" "$T/x.txt" 2> "$T/err"
[ $? -eq 2 ]; ok $? "unknown output extension is a usage error"
cp "$T/srtest.clog" "$T/same.clog"
"$CLOGTOOL" convert "$T/same.clog" "$T/same.clog" 2> "$T/err"
[ $? -eq 2 ] && cmp -s "$T/srtest.clog" "$T/same.clog"
ok $? "converting a file onto itself is refused and leaves it intact"
finish
