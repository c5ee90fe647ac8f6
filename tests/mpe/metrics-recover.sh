#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Metric definitions survive a crash: every rank of metricrash defines its
# metrics, moves them to known values and is killed (SIGKILL: no handler
# runs; SIGSEGV: the crash handler saves its buffers); `clogtool recover`
# reads the definitions back from the spill files, so the recovered log's
# samples have their names, kinds and values.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
: > lines.txt
for sig in 9 11; do
  rm -rf "$MPE_TMPDIR"/*
  run 2 $B/tests/mpe/metricrash $sig
  fails $?; ok $? "signal $sig: the job fails (every rank killed)"
  is "signal $sig: both ranks moved their cells" \
    "$(grep '^rank ' out.txt | sort | tr '\n' ,)" \
    "$(printf 'rank 0: work 10 depth 3 busy %s,rank 1: work 20 depth 4 busy %s,' \
      "$(sed -n 's/^rank 0: .* busy //p' out.txt)" \
      "$(sed -n 's/^rank 1: .* busy //p' out.txt)")"
  $CLOGTOOL recover --clean "$MPE_TMPDIR" -o rec.clog > rec.txt 2>&1
  ok $? "signal $sig: clogtool recover"
  $CLOGTOOL metrics --json rec.clog > m.json 2> m.err
  ok $? "signal $sig: clogtool metrics --json on the recovered log"
  python3 - m.json out.txt <<'PY' | sed "s/^/signal $sig: /" >> lines.txt
import json, re, sys
m = {x["name"]: x for x in json.load(open(sys.argv[1]))["metrics"]}
busy = {}
for line in open(sys.argv[2]):
    r = re.match(r"rank (\d+): .* busy (\d+)", line)
    if r:
        busy[int(r.group(1))] = int(r.group(2))
def show(name, key):
    return str(m.get(name, {}).get(key))
print("work", show("work", "kind"), show("work", "unit"), show("work", "per_rank"))
print("depth", show("depth", "kind"), show("depth", "per_rank"))
print("busy", show("busy", "kind"), show("busy", "unit"),
      m.get("busy", {}).get("per_rank") == [busy.get(0), busy.get(1)]
      and min(busy.values()) >= 2000000)
print("unnamed", sorted(n for n in m if not re.match(r"[a-zA-Z]", n)))
PY
done
for sig in 9 11; do
  is "signal $sig: counter 'work' named, with its values" \
    "$(grep "^signal $sig: work " lines.txt)" "signal $sig: work counter 1 [10, 20]"
  is "signal $sig: 'depth' is a level (set after it was defined)" \
    "$(grep "^signal $sig: depth " lines.txt)" "signal $sig: depth level [3, 4]"
  is "signal $sig: timer 'busy' holds each rank's ns" \
    "$(grep "^signal $sig: busy " lines.txt)" "signal $sig: busy timer ns True"
  is "signal $sig: no metric without a name" \
    "$(grep "^signal $sig: unnamed " lines.txt)" "signal $sig: unnamed []"
done
finish
