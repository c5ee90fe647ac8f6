#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# OTF2 in (otf2in/): an archive written through the OTF2 writer API
# (mkotf2: two processes on two nodes, two threads each, a metric-only
# location, nested regions, blocking and non-blocking messages, a
# collective, a microsecond clock with an offset) reads with the exact
# figures; `clogtool convert` makes the same .clog; MPE2's logs go
# .clog -> .otf2 -> .clog with the same statistics; damaged archives give
# a clear error.
. "$top_srcdir/tests/common/tap.sh"
CLOGTOOL="$top_builddir/clogtool"
MKOTF2="$top_builddir/tests/interop/mkotf2"
DATA="$top_srcdir/tests/interop/data"
T="$tap_tmp"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
export TMPDIR="$T"

"$MKOTF2" "$T" m; ok $? "mkotf2 writes an archive"
A="$T/m.otf2"

"$CLOGTOOL" stats --json "$A" > "$T/m.json" 2> "$T/err"
ok $? "clogtool stats reads the OTF2 archive"
"$PY" - "$T/m.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
want = {"main": (2, 400), "compute": (3, 170), "inner": (2, 30),
        "MPI_Send": (1, 10), "MPI_Recv": (1, 35), "MPI_Allreduce": (2, 40)}
got = {d["name"]: (d["count"], round(d["total_s"] * 1e6))
       for d in s["states"]}
bad = []
if got != want: bad.append("states %r" % got)
if (s["ranks"], s["streams"], s["world_size"]) != (2, 4, 2):
    bad.append("ranks/streams %r" % ((s["ranks"], s["streams"]),))
m = s["messages"]
if (m["count"], m["bytes"], m["unmatched"]) != (2, 164, 0):
    bad.append("messages %r" % m)
if (s["t_first"], round(s["t_last"] * 1e6)) != (0, 200):
    bad.append("times %r" % ((s["t_first"], s["t_last"]),))
if s["kinds"] != {"begin": 11, "end": 11, "solo": 0, "send": 2,
                  "recv": 2, "loss": 0}:
    bad.append("kinds %r" % s["kinds"])
if [r["events"] for r in s["per_rank"]] != [14, 12]:
    bad.append("per rank %r" % s["per_rank"])
for b in bad: print("# " + b)
sys.exit(1 if bad else 0)
PY
ok $? "states, durations (clock offset and us ticks), messages, ranks exact"
[ -z "$(ls "$T" | grep otf2in-)" ]; ok $? "the temporary .clog is gone"

"$CLOGTOOL" print "$A" > "$T/print.txt"
ok $? "clogtool print reads the archive"
n=$(grep -c 'end   MPI_Allreduce.*info="comm=ffffffff np=2 root=-1 sent=8 recv=16"' \
      "$T/print.txt")
[ "$n" = 2 ]; ok $? "collectives: communicator, root and bytes on both ranks ($n)"
n=$("$CLOGTOOL" matrix --json "$A" | python3 -c "
import json, sys
print(sum(f['calls'] for c in json.load(sys.stdin)['collectives']
          for f in c['functions'] if f['name'] == 'MPI_Allreduce'))")
[ "$n" = 2 ]; ok $? "  clogtool matrix counts them ($n)"
grep -q '^0.000051000 *0  0 send .*to=1 tag=7 size=100 comm=0 (MPI_COMM_WORLD)' \
  "$T/print.txt"
ok $? "rank order from the MPI location group (process 20 is rank 0)"
grep -q '^0.000150000 *1  0 send .*to=0 tag=9 size=64' "$T/print.txt" &&
grep -q '^0.000160000 *0  0 recv .*from=1 tag=9 size=64' "$T/print.txt"
ok $? "MpiIsend/MpiIrecv become send and receive"

"$CLOGTOOL" convert -q "$A" "$T/m.clog" 2> "$T/err"
ok $? "clogtool convert archive -> .clog"
"$CLOGTOOL" stats --json "$T/m.clog" | "$PY" -c '
import json, sys
a = json.load(sys.stdin); b = json.load(open(sys.argv[1]))
for d in (a, b):
    for k in ("file", "creator"): d.pop(k)
sys.exit(a != b)' "$T/m.json"
ok $? "the converted .clog has the same statistics"
"$CLOGTOOL" stats "$T/m.clog" | grep -q "^creator *OTF2 archive (mkotf2 test), via clogtool"
ok $? "its creator names the archive's creator"
"$CLOGTOOL" convert -q "$A" "$T/m.json" &&
grep -q '"rank 0 (nodeB)"' "$T/m.json" && grep -q '"rank 1 (nodeA)"' "$T/m.json"
ok $? "host names from the system tree"

# Round trip: .clog -> .otf2 -> .clog keeps the statistics.
same_stats () {
  "$CLOGTOOL" stats --json "$1" > "$T/a.json" &&
  "$CLOGTOOL" stats --json "$2" > "$T/b.json" &&
  "$PY" - "$T/a.json" "$T/b.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    for k in ("file", "format", "version", "creator"):
        d.pop(k, None)
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print("# differs:", k, a.get(k), "vs", b.get(k))
    sys.exit(1)
PY
}
for f in cpilog.clog2 cpilog_pack.clog2 srtest.clog2 fpilog.clog; do
  b=${f%.*}
  "$CLOGTOOL" convert -q "$DATA/$f" "$T/$b.clog" &&
  "$CLOGTOOL" convert -q "$T/$b.clog" "$T/rt-$b/$b.otf2" 2> /dev/null &&
  "$CLOGTOOL" convert -q "$T/rt-$b/$b.otf2" "$T/$b-back.clog"
  ok $? "$f: .clog -> .otf2 -> .clog"
  same_stats "$T/$b.clog" "$T/$b-back.clog"
  ok $? "$f: same statistics after the round trip"
  "$CLOGTOOL" print "$T/$b.clog" 2> /dev/null | grep -v '^#' > "$T/pa.txt"
  "$CLOGTOOL" print "$T/$b-back.clog" 2> /dev/null | grep -v '^#' > "$T/pb.txt"
  cmp -s "$T/pa.txt" "$T/pb.txt"
  ok $? "$f: the same events, info text included ($(grep -c 'info=' "$T/pa.txt") with info)"
done

# Damaged archives: a clear error naming the file, never a crash.
bad_archive () {  # description; the archive is $T/bad/m.*
  "$CLOGTOOL" stats "$T/bad/m.otf2" > /dev/null 2> "$T/err"
  rc=$?
  [ $rc = 1 ] && grep -q "m.otf2: " "$T/err"
  ok $? "$1: exit 1 with a message (rc $rc: $(head -c 150 "$T/err"))"
}
fresh () { rm -rf "$T/bad"; mkdir "$T/bad"; cp -r "$T/m.otf2" "$T/m.def" "$T/m" "$T/bad/"; }
fresh; evf=$(ls "$T/bad/m/" | grep evt | head -1)
size=$(wc -c < "$T/bad/m/$evf")
head -c $((size / 2)) "$T/m/$evf" > "$T/bad/m/$evf"
bad_archive "truncated event file"
fresh; rm "$T/bad/m/$evf"; bad_archive "missing event file"
fresh; size=$(wc -c < "$T/bad/m.def")
head -c $((size / 2)) "$T/m.def" > "$T/bad/m.def"; bad_archive "truncated definitions"
fresh; rm "$T/bad/m.def"; bad_archive "missing definitions"
fresh; head -c 20 "$T/m.otf2" > "$T/bad/m.otf2"; bad_archive "truncated anchor file"
fresh; "$PY" -c '
import sys
p = sys.argv[1]; d = bytearray(open(p, "rb").read())
for i in range(len(d) // 3, len(d), 7): d[i] ^= 0x5a
open(p, "wb").write(d)' "$T/bad/m/$evf"
"$CLOGTOOL" stats "$T/bad/m.otf2" > /dev/null 2> "$T/err"
rc=$?; [ $rc -le 1 ]; ok $? "scrambled event file: no crash (rc $rc)"
fresh; "$CLOGTOOL" convert -q "$T/bad/m.otf2" "$T/bad/out.clog" 2> /dev/null
rm "$T/bad/m/$evf"
"$CLOGTOOL" convert -q "$T/bad/m.otf2" "$T/bad/out2.clog" 2> "$T/err"
[ $? = 1 ] && [ ! -e "$T/bad/out2.clog" ]
ok $? "a failed conversion leaves no output"

# One timestamp near 2^64 ticks: read to the end (no bin-by-bin walk to
# 2^64 ns), and the .clog made from it verifies.
"$MKOTF2" "$T/huge" h huge; ok $? "mkotf2 writes an archive with a huge time"
timeout 120 "$CLOGTOOL" convert -q "$T/huge/h.otf2" "$T/huge.clog" 2> "$T/err"
ok $? "a huge timestamp converts (rc $?: $(head -c 150 "$T/err"))"
"$CLOGTOOL" verify -q "$T/huge.clog"; ok $? "and the result verifies"

# A FIFO as an archive member is refused, not waited on.
fresh; rm "$T/bad/m/$evf"; mkfifo "$T/bad/m/$evf"
timeout 120 "$CLOGTOOL" stats "$T/bad/m.otf2" > /dev/null 2> "$T/err"
rc=$?
[ $rc = 1 ] && grep -q "not a regular file" "$T/err"
ok $? "a FIFO member: exit 1, not a regular file (rc $rc)"

finish
