#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The viewer on logs written with MPE_SCHED=1 by tests/mpe/sched-prog:
# on/off-CPU shading (mpeview --export --sched) marks the row of the
# thread that was off its CPU, at the time clogtool cpus --runs says,
# blocked and preempted in their own colours, in a strip that leaves the
# states under it as they are; the CPU view (--export
# --cpus) shows two ranks pinned to one CPU in turn on that CPU's row;
# the threads and CPUs tables (--export-tables) hold clogtool's numbers.
# Pixels are found from the exports' layouts (mv_layout_compute: ruler
# 30 px, labels 96 px, or 118 with threads; default rows 22 px, the
# strip the top 4 px of a row; mv_cpu_layout: labels 190 px, rows 22).
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
PROG=$B/tests/mpe/sched-prog
MV=$B/mpeview
PNGPIX=$B/tests/viewer/pngpix
BLOCKED=3c4678      # MV_OFFCPU_BLOCKED_RGB
PREEMPTED=e0641e    # MV_OFFCPU_PREEMPTED_RGB
export MPE_SCHED=1
W=1000

# py FILE.json EXPR: a Python expression over j (the JSON file), with
# rows (the streams' (rank, thread) in the viewer's row order) and
# runs(rank, thread) (a thread's runs on CPUs in time order).
py () {
  f=$1; shift
  python3 -c "
import json
j = json.load(open('$f'))
def runs(rk, th):
    return sorted((r for r in j['runs'] if r['rank'] == rk and r['thread'] == th), key=lambda r: r['t0'])
$*"
}

# --- blocked: the sleeper of sched-prog threads ---
run 2 "$PROG" threads 8; r=$?
ok $r "threads: the job ran (rc $r)"
mv sched.clog threads.clog
$CLOGTOOL cpus --json --runs threads.clog > c.json; r=$?
ok $r "clogtool cpus --runs reads it"
$CLOGTOOL threads --json threads.clog > t.json
# The sleeper of rank 0 (the thread with Sleep states), its row, and its
# longest stretch off the CPU between two runs that begins in one of its
# sleeps (under load a wait for the CPU can be longer: that is shaded
# preempted).
sl=$(python3 -c "
import json
j = json.load(open('t.json'))
print([t['thread'] for t in j if t['rank'] == 0 and any(s['name'] == 'Sleep' for s in t['states'])][0])")
rows=$(python3 -c "
import json
j = json.load(open('t.json'))
print(' '.join('%d.%d' % (t['rank'], t['thread']) for t in sorted(j, key=lambda t: (t['rank'], t['thread']))))")
row=$(echo $rows | tr ' ' '\n' | grep -n "^0\.$sl\$" | cut -d: -f1)
$CLOGTOOL query threads.clog "SELECT start, \"end\" FROM states WHERE name = 'Sleep' AND rank = 0 AND thread = $sl" |
  tail -n +2 > sleeps.csv
set -- $(py c.json "
rs = runs(0, $sl)
sleeps = [tuple(int(x) * 1e-9 for x in l.split(',')) for l in open('sleeps.csv')]
g = max((rs[i + 1]['t0'] - rs[i]['t1'], rs[i]['t1'], rs[i + 1]['t0']) for i in range(len(rs) - 1)
        if any(s <= rs[i]['t1'] <= e for s, e in sleeps))
print('%.9f %.9f' % (g[1], g[2]))")
g0=$1; g1=$2
diag "sleeper 0.$sl (row $row of: $rows), off from $g0 to $g1 s"
# Window: the gap and as much again on both sides.
set -- $(python3 -c "d = ($g1 - $g0); print('%.9f %.9f' % (max($g0 - d, 0), $g1 + d))")
f=$1; t=$2
"$MV" --export sh.png --sched --width $W --from $f --to $t threads.clog
ok $? "export --sched of the sleeper's gap"
"$MV" --export no.png --width $W --from $f --to $t threads.clog
ok $? "the same without --sched"
# Its row's strip at a quarter, the middle and three quarters of the
# gap (the plot spans [f, t] over W - 118 - 12 px from x = 118).
xs=$(python3 -c "
pw = $W - 130
print(' '.join(str(int(118 + (($g0 + k * ($g1 - $g0)) - $f) / ($t - $f) * pw)) for k in (0.25, 0.5, 0.75)))")
y=$((30 + (row - 1) * 22 + 1))
for x in $xs; do
  is "the sleeper's row is shaded blocked at x=$x" \
    "$("$PNGPIX" sh.png $x $y)" $BLOCKED
  c=$("$PNGPIX" no.png $x $y)
  [ -n "$c" ] && [ "$c" != $BLOCKED ]; ok $? "  and not without --sched ($c)"
  # Under the strip the row is as without shading: no veil recolours
  # the states (the legend's colours stay true).
  is "  under the strip, the same pixel as without --sched" \
    "$("$PNGPIX" sh.png $x $((y + 10)))" "$("$PNGPIX" no.png $x $((y + 10)))"
done
# Just above and below its row: not its strip (another row's, or none).
is "the row above the sleeper's strip is not shaded blocked there" \
  "$(c=$("$PNGPIX" sh.png $(echo $xs | cut -d' ' -f2) $((y - 2)))
     [ -n "$c" ] && [ "$c" != $BLOCKED ] && echo no)" no

# --- preempted: two ranks pinned to one CPU ---
A=$(python3 -c "import os; print(min(os.sched_getaffinity(0)))")
run 2 "$PROG" pin "$A"; r=$?
ok $r "pin: the job ran (rc $r)"
mv sched.clog pin.clog
$CLOGTOOL cpus --json --runs pin.clog > p.json
# Rank 0's longest run and the longest stretch it was off between runs
# while it worked (preempted: it spins, it never blocks in Work).
$CLOGTOOL print --intervals --rank 0 pin.clog | awk '$5 == "Work"' > work.txt
set -- $(py p.json "
w = [tuple(map(float, l.split()[:2])) for l in open('work.txt')]
a, b = min(x[0] for x in w), max(x[1] for x in w)
rs = runs(0, 0)
r = max(rs, key=lambda r: r['t1'] - r['t0'])
g = max((min(rs[i + 1]['t0'], b) - max(rs[i]['t1'], a), max(rs[i]['t1'], a), min(rs[i + 1]['t0'], b)) for i in range(len(rs) - 1))
lo = min(r['t0'] for r in j['runs']); hi = max(r['t1'] for r in j['runs'])
print('%.9f %.9f %.9f %.9f %.9f %.9f' % (r['t0'], r['t1'], g[1], g[2], lo, hi))")
r0=$1; r1=$2; p0=$3; p1=$4; f=$5; t=$6
diag "rank 0 ran from $r0 to $r1, was off from $p0 to $p1 (window $f .. $t)"
"$MV" --export pin.png --sched --width $W --from $f --to $t pin.clog
ok $? "export --sched of the pinned ranks"
xr=$(python3 -c "print(int(96 + (($r0 + $r1) / 2 - $f) / ($t - $f) * ($W - 108)))")
xp=$(python3 -c "print(int(96 + (($p0 + $p1) / 2 - $f) / ($t - $f) * ($W - 108)))")
c=$("$PNGPIX" pin.png $xr 31)
[ -n "$c" ] && [ "$c" != $BLOCKED ] && [ "$c" != $PREEMPTED ]
ok $? "rank 0 is not shaded in the middle of its longest run ($c at x=$xr)"
is "rank 0 is shaded preempted in the middle of its longest wait (x=$xp)" \
  "$("$PNGPIX" pin.png $xp 31)" $PREEMPTED

# --- the CPU view: both ranks in turn on CPU A's row ---
"$MV" --export cpus.png --cpus --width $W --from $f --to $t pin.clog
ok $? "export --cpus of the pinned ranks"
$CLOGTOOL cpus --json pin.clog > pc.json
idx=$(python3 -c "
import json
j = json.load(open('pc.json'))
print([c['cpu'] for c in j['hosts'][0]['cpus']].index($A))")
y=$((30 + idx * 22 + 11))
for rk in 0 1; do
  x=$(py p.json "
rs = [r for r in runs($rk, 0) if r['cpu'] == $A]
r = max(rs, key=lambda r: r['t1'] - r['t0'])
print(int(190 + ((r['t0'] + r['t1']) / 2 - $f) / ($t - $f) * ($W - 202)))")
  want=$([ $rk = 0 ] && echo 1f77b4 || echo d62728)  # MV_CPUVIEW_RANK*_RGB
  is "CPU $A's row shows rank $rk in the middle of its longest run there (x=$x)" \
    "$("$PNGPIX" cpus.png $x $y)" $want
done
"$MV" --export cpus.png --cpus threads.clog 2>/dev/null
ok $? "export --cpus of the threads log too"
"$MV" --export x.png --cpus "$top_srcdir/tests/viewer/sched.sh" 2>err.txt
[ $? = 1 ]; ok $? "--cpus of something else: exit 1"

# --- the tables hold clogtool's numbers ---
for log in threads pin; do
  "$MV" --export-tables tab.json $log.clog
  ok $? "$log: export-tables"
  $CLOGTOOL threads --json $log.clog > ct.json
  $CLOGTOOL cpus --json $log.clog > cc.json
  is "$log: the threads table equals clogtool threads --json" "$(python3 -c "
import json
v = json.load(open('tab.json')); c = json.load(open('ct.json'))
keys = ['rank', 'thread', 'window_s', 'cpu_s', 'offcpu_s', 'blocked_s', 'preempted_s', 'switches', 'migrations', 'cpus']
print(len(c) > 0 and [[t[k] for k in keys] for t in v['threads']] == [[t[k] for k in keys] for t in c])")" True
  is "$log: the CPUs table equals clogtool cpus --json" "$(python3 -c "
import json
v = json.load(open('tab.json')); c = json.load(open('cc.json'))
keys = ['cpu', 'core', 'socket', 'numa', 'smt', 'on_s']
cv = [[x[k] for k in keys] + [[(u['rank'], u['thread'], u['on_s']) for u in x['threads']]] for x in v['cpus']]
cc = [[x[k] for k in keys] + [[(u['rank'], u['thread'], u['on_s']) for u in x['threads']]] for h in c['hosts'] for x in h['cpus']]
print(len(cc) > 0 and cv == cc)")" True
done
finish
