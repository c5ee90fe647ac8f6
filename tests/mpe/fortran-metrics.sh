#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The Fortran bindings of mpe_metrics.h (mpe_metricsf.h), fixed form with
# mpif77 and free form with mpif90: fmetrics defines a counter, a level, a
# timer and a guarded counter and timer, and the log holds exactly what
# each rank read back (clogtool metrics --json); the guard let only the
# calls made while its flag was raised through.  Linked with -lmpe_null
# instead, the same programs run and write no log.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
fdir=$(dirname "$MPIFC")
for form in f77 f90; do
  if [ $form = f77 ]; then fc=$fdir/mpif77 src=fmetrics.f
  else fc=$MPIFC src=fmetrics.f90; fi
  for lib in mpe mpe_null; do
    $fc -Wall -o fm-$form-$lib "$top_srcdir/tests/mpe/$src" \
      -I"$top_srcdir/mpe/include" -L"$B/mpe/.libs" -l$lib \
      -Wl,-rpath,"$B/mpe/.libs" -Wl,-rpath,"$B/logfmt/.libs" > cc.txt 2>&1
    r=$?; ok $r "$form: $(basename "$fc") $src -l$lib builds"
    [ $r -eq 0 ] || sed 's/^/#   /' cc.txt | head
    rm -f fmetrics.clog
    run 2 ./fm-$form-$lib; ok $? "$form: runs on 2 ranks (-l$lib)"
    grep '^rank ' out.txt | sort > read-$form-$lib.txt
    if [ $lib = mpe ]; then
      mv fmetrics.clog fm-$form.clog
    else
      test ! -e fmetrics.clog; ok $? "$form: -lmpe_null writes no log"
    fi
  done
  $CLOGTOOL metrics --json fm-$form.clog > m-$form.json 2> m.err
  ok $? "$form: clogtool metrics --json"
  python3 - m-$form.json read-$form-mpe.txt read-$form-mpe_null.txt \
    > res-$form.txt <<'PY'
import json, re, sys
m = {x["name"]: x for x in json.load(open(sys.argv[1]))["metrics"]}
read, find, null, nfind = {}, {}, {}, {}
for path, vals, fnd in ((sys.argv[2], read, find), (sys.argv[3], null, nfind)):
    for line in open(path):
        w = line.split()
        r = int(w[1])
        if w[2] == "find":
            fnd[r] = (int(w[3]), w[4])
        else:
            vals[r] = {w[i]: int(w[i + 1]) for i in range(2, len(w), 2)}
names = ("work", "depth", "busy", "in_foo", "foo_count", "foo_time")
def col(vals, n):
    return [vals.get(r, {}).get(n) for r in (0, 1)]
print("read", col(read, "work"), col(read, "depth"), col(read, "in_foo"),
      col(read, "foo_count"))
print("log equals read", all(m.get(n, {}).get("per_rank") == col(read, n)
                             for n in names))
print("kinds", [m.get(n, {}).get("kind") for n in ("work", "depth", "busy",
                                                   "foo_time")])
# Each spin lasts at least 1 ms; busy brackets all three, the guarded
# timer only the one inside foo.
print("guarded timer", all(read[r]["foo_time"] >= 1000000
                           and read[r]["busy"] >= read[r]["foo_time"] + 2000000
                           for r in (0, 1)))
print("find", find.get(0), find.get(1))
print("null", [col(null, n) for n in names] == [[0, 0]] * 6, nfind.get(0))
PY
  is "$form: values read back (counter, level, flag, guarded counter)" \
    "$(grep '^read ' res-$form.txt)" "read [10, 20] [3, 4] [0, 0] [1, 1]"
  is "$form: the log's final values are the ones read" \
    "$(grep '^log ' res-$form.txt)" "log equals read True"
  is "$form: kinds counter, level (set), timer (ns), timer" \
    "$(grep '^kinds ' res-$form.txt)" \
    "kinds ['counter', 'level', 'timer', 'timer']"
  is "$form: the guarded timer counts only the time inside foo" \
    "$(grep '^guarded ' res-$form.txt)" "guarded timer True"
  is "$form: MPE_METRIC_FIND finds the cell by name" \
    "$(grep '^find ' res-$form.txt)" "find (0, 'T') (0, 'T')"
  is "$form: -lmpe_null: every cell reads 0, find says not found" \
    "$(grep '^null ' res-$form.txt)" "null True (5, 'F')"
done
finish
