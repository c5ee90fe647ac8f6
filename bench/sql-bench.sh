#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# SQL over a log against the tools (docs/BENCHMARKS.md, "SQL over logs"):
#  - SELECT name, count(*), sum(duration) FROM states GROUP BY name vs
#    clogtool stats (the same figures, one pass), and GROUP BY +name
#    (SQLite's own sort);
#  - a 1% time window through the events and states tables vs the
#    reader's own window reads (clogtool print --from/--to, --intervals);
# CPU seconds (user + sys) and wall seconds, best of RUNS each, and the
# blocks each query decoded.  The states table decodes in a second thread
# (CLOGSQL_AHEAD, docs/SQL.md): its CPU time is both threads', its wall
# time what a user waits; the one-thread line is CLOGSQL_AHEAD=0.
# clogtool query answers GROUP BY name from state_totals (docs/SQL.md);
# CLOGSQL_TOTALS=0 is SQLite aggregating a row per instance.
# Usage: sql-bench.sh [LOG] (default: a 2 x 50M-event log from clogtool gen
# in $TMPDIR, made once).  Environment: top_builddir, RUNS (default 3).
set -e
B=${top_builddir:-.}
CT="$B/clogtool"
RUNS=${RUNS:-3}
LOG=${1:-${TMPDIR:-/tmp}/sql-bench-100m.clog}
if [ ! -f "$LOG" ]; then
  echo "writing $LOG (2 x 50M events)"
  "$CT" gen -o "$LOG" -p 2 -n 50000000 > /dev/null
fi
TF=$(mktemp)
trap 'rm -f "$TF"' EXIT
cpu () {  # "CPU (wall)": the best of RUNS runs of "$@" (output discarded)
  best= bestw=
  for i in $(seq "$RUNS"); do
    /usr/bin/time -f '%U %S %e' -o "$TF" "$@" > /dev/null 2>&1
    t=$(tail -1 "$TF" | awk '{ printf "%.2f", $1 + $2 }')
    w=$(tail -1 "$TF" | awk '{ printf "%.2f", $3 }')
    best=$(echo "$best $t" | awk '{ if (NF == 1 || $2 < $1) print $NF; else print $1 }')
    bestw=$(echo "$bestw $w" | awk '{ if (NF == 1 || $2 < $1) print $NF; else print $1 }')
  done
  echo "$best ($bestw)"
}
set -- $("$CT" query "$LOG" "SELECT min(time), max(time) FROM events WHERE stream = 0" | tail -1 | tr ',' ' ')
echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M) UTC"
lo=$1 hi=$2
w0=$((lo + (hi - lo) / 2)) w1=$((lo + (hi - lo) / 2 + (hi - lo) / 100))
s0=$(awk -v t=$w0 'BEGIN { printf "%.9f", t / 1e9 }')
s1=$(awk -v t=$w1 'BEGIN { printf "%.9f", t / 1e9 }')
echo "log $LOG, window [$w0, $w1] ns (1% of the run), CPU s best of $RUNS"
st=$(cpu "$CT" stats "$LOG")
gq=$(cpu "$CT" query "$LOG" "SELECT name, count(*), sum(duration) FROM states GROUP BY name")
g1=$(export CLOGSQL_AHEAD=0; cpu "$CT" query "$LOG" "SELECT name, count(*), sum(duration) FROM states GROUP BY name")
gr=$(export CLOGSQL_TOTALS=0; cpu "$CT" query "$LOG" "SELECT name, count(*), sum(duration) FROM states GROUP BY name")
aq=$(cpu "$CT" query "$LOG" "SELECT count(*), sum(duration) FROM states")
# GROUP BY +name: an expression, so SQLite sorts (what GROUP BY name cost
# before the states table grouped its rows itself).
runs=$RUNS RUNS=1
sq=$(cpu "$CT" query "$LOG" "SELECT name, count(*), sum(duration) FROM states GROUP BY +name")
RUNS=$runs
echo "CPU s (wall s)"
echo "clogtool stats                         $st"
echo "query GROUP BY name over states        $gq"
echo "  the same on one thread               $g1 (CLOGSQL_AHEAD=0)"
echo "  through SQLite's rows                $gr (CLOGSQL_TOTALS=0)"
echo "query count, sum(duration) over states $aq (no GROUP BY)"
echo "query GROUP BY +name (SQLite sorts)    $sq (one run)"
pe=$(cpu "$CT" print --from "$s0" --to "$s1" "$LOG")
qe=$(cpu "$CT" query "$LOG" "SELECT count(*) FROM events WHERE time BETWEEN $w0 AND $w1")
pi=$(cpu "$CT" print --intervals --from "$s0" --to "$s1" "$LOG")
qi=$(cpu "$CT" query "$LOG" "SELECT count(*), sum(duration) FROM states WHERE start BETWEEN $w0 AND $w1")
echo "1% window, events: print $pe, query $qe"
echo "1% window, states: print --intervals $pi, query $qi"
"$CT" query "$LOG" "SELECT clog_blocks('$LOG');
  SELECT count(*) FROM events WHERE time BETWEEN $w0 AND $w1;
  SELECT clog_blocks('$LOG');
  SELECT count(*) FROM events;
  SELECT clog_blocks('$LOG');" | grep -v '^c' | tr '\n' ' ' |
  awk '{ printf "blocks: 1%% events window %d (%d events), whole log %d\n",
         $3 - $1, $2, $5 - $3 }'
