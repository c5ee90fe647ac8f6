#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool on a hand-made log (mklog-odd.c) whose every figure is known:
# awkward names, cargo, lost events, unpaired starts/ends, an unmatched
# message, two threads in one process.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"

log=$tap_tmp/odd.clog
"$top_builddir/tests/tools/mklog-odd" "$log" || bail "mklog-odd failed"
run 0 "verify" "$clogtool" verify "$log"
run 0 "stats --json" "$clogtool" stats --json "$log"
$python - "$tap_tmp/out" <<'PY'
import json, sys
raw = open(sys.argv[1], "rb").read()
s = json.loads(raw)
del s["file"]
want = {
  "format": "clog3", "version": "1.1", "partial": False,
  "creator": "mklog-odd",
  "world_size": 2, "ranks": 2, "threads": 3, "streams": 3, "events": 15,
  "lost_events": 7, "t_first": 1e-07, "t_last": 1.3e-06, "duration": 1.2e-06,
  "kinds": {"begin": 4, "end": 4, "solo": 2, "send": 2, "recv": 1, "loss": 2},
  "states": [
    {"name": "quote\"back\\slash", "color": "red", "rgb": "#ff0000",
     "start_id": 10, "end_id": 11, "count": 2, "total_s": 1.3e-06,
     "exclusive_s": 1.2e-06, "unmatched_begins": 0, "unmatched_ends": 0,
     "too_deep": 0},
    {"name": "tab\there\nnl", "color": "#00ff00", "rgb": "#00ff00",
     "start_id": 20, "end_id": 21, "count": 1, "total_s": 1e-07,
     "exclusive_s": 1e-07, "unmatched_begins": 0, "unmatched_ends": 0,
     "too_deep": 0},
    {"name": "caf\u00e9 lat\u00e9", "color": "blue", "rgb": "#0000ff",
     "start_id": 30, "end_id": 31, "count": 0, "total_s": 0.0,
     "exclusive_s": 0.0, "unmatched_begins": 1, "unmatched_ends": 1,
     "too_deep": 0}],
  "solo_events": [{"name": "mark\u0001er", "id": 40, "count": 1},
                  {"name": "event99", "id": 99, "count": 1}],
  "messages": {"count": 2, "bytes": 74, "unmatched": 1, "sends": 2,
               "recvs": 1},
  "per_rank": [{"rank": 0, "threads": 2, "events": 11, "lost": 5},
               {"rank": 1, "threads": 1, "events": 4, "lost": 2}]}
bad = 0
for k in sorted(set(want) | set(s)):
    if s.get(k) != want.get(k):
        print("# %s: got %r want %r" % (k, s.get(k), want.get(k)))
        bad = 1
sys.exit(bad)
PY
ok $? "stats --json: every figure exact (names escaped)"

run 0 "print --tsv" "$clogtool" print --tsv "$log"
$python - "$tap_tmp/out" <<'PY'
import sys
got = open(sys.argv[1], "rb").read()
want = b"".join(l + b"\n" for l in [
  b"0.000000100\t0\t0\tbegin\tquote\"back\\slash\tid=10",
  b"0.000000150\t1\t0\tsend\t-\tto=0 tag=3 size=64 comm=0 (MPI_COMM_WORLD)",
  b"0.000000200\t0\t0\tbegin\ttab?here?nl\tid=20 info=\"x=7\"",
  b"0.000000250\t1\t0\tbegin\tquote\"back\\slash\tid=10",
  b"0.000000300\t0\t0\tend\ttab?here?nl\tid=21",
  b"0.000000350\t0\t1\trecv\t-\tfrom=1 tag=3 size=64 comm=0 (MPI_COMM_WORLD)",
  b"0.000000360\t0\t1\tsend\t-\tto=1 tag=9 size=10 comm=0 (MPI_COMM_WORLD)",
  b"0.000000400\t0\t0\tend\tquote\"back\\slash\tid=11",
  b"0.000000500\t0\t0\tsolo\tmark?er\tid=40 cargo=abcd",
  b"0.000000600\t0\t0\tsolo\tevent99\tid=99",
  b"0.000000700\t0\t0\tloss\t-\tlost=5",
  b"0.000000800\t0\t0\tend\tcaf\xc3\xa9 lat\xe9\tid=31",
  b"0.000000900\t0\t0\tbegin\tcaf\xc3\xa9 lat\xe9\tid=30",
  b"0.000001250\t1\t0\tend\tquote\"back\\slash\tid=11",
  b"0.000001300\t1\t0\tloss\t-\tlost=2"])
if got != want:
    for g, w in zip(got.split(b"\n"), want.split(b"\n")):
        if g != w:
            print("# got  %r\n# want %r" % (g, w))
    sys.exit(1)
PY
ok $? "print --tsv: exact lines (control bytes shown as ?)"

# Same-time ties and kinds: loss only, rank 0 thread 1 only.
"$clogtool" print --tsv --kind loss "$log" | cut -f1,2,6 >"$tap_tmp/got"
printf '0.000000700\t0\tlost=5\n0.000001300\t1\tlost=2\n' | cmp -s - "$tap_tmp/got"
ok $? "--kind loss"
[ "$("$clogtool" print --tsv -r 0 -t 1 "$log" | cut -f4 | tr '\n' ,)" = "recv,send," ]
ok $? "--rank 0 --thread 1"
[ "$("$clogtool" print --tsv --from 300ns --to 0.4us "$log" | cut -f1 | tr '\n' ,)" \
  = "0.000000300,0.000000350,0.000000360,0.000000400," ]
ok $? "--from 300ns --to 0.4us, both ends inclusive"

# The table shows the unpaired starts and ends.
run 0 "stats (table)" "$clogtool" stats "$log"
grep -q "(1 starts and 1 ends without a partner)" "$tap_tmp/out"
ok $? "table: unpaired starts and ends"
grep -q '^lost events 7$' "$tap_tmp/out"; ok $? "table: lost events"
grep -q '^tab?here?nl  *#00ff00  *1 ' "$tap_tmp/out"; ok $? "table: names cleaned"
LC_ALL=C grep -q '[[:cntrl:]]' "$tap_tmp/out"
[ $? -eq 1 ]; ok $? "table: no control bytes from the file reach the terminal"
finish
