#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The scheduling layer (MPE_SCHED=1) through MPE_Finish_log and clogtool
# threads/cpus.  Exact facts only, none that a loaded machine can change:
# a sleeper blocks once per sleep and never inside its spinning sibling's
# state; ranks pinned to one CPU ran only there; a thread moved with
# sched_setaffinity ran on A before the call, on B after, and switched
# CPUs inside it; a wait in MPI_Recv spins (MPICH polls: never blocked,
# on a CPU or preempted) while its sender's sleep blocks.  Times are
# bounded generously.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
PROG=$B/tests/mpe/sched-prog
export MPE_SCHED=1
N=12

# js EXPR: evaluates a Python expression over the JSON list j in t.json.
js () {
  python3 -c "import json,sys; j=json.load(open('t.json')); print($1)"
}
# st RANK STATE KEY: a per-state value of clogtool threads --json, summed
# over the rank's threads.
st () {
  js "sum(s['$3'] for t in j if t['rank']==$1 for s in t['states'] if s['name']=='$2')"
}

run 2 "$PROG" threads $N; r=$?
ok $r "threads: the job ran (rc $r)"
[ $r -eq 0 ] || diag "$(cat err.txt)"
$CLOGTOOL threads --json sched.clog > t.json; r=$?
ok $r "clogtool threads --json reads it"
for rk in 0 1; do
  is "rank $rk: the sleeper logged $N sleeps" "$(st $rk Sleep count)" $N
  is "rank $rk: it blocked exactly once per sleep" "$(st $rk Sleep blocks)" $N
  is "rank $rk: the spinner never blocked while spinning" \
    "$(st $rk Spin blocks)" 0
  is "rank $rk: the sleeper was on a CPU under half its sleeping time" \
    "$(js "int(sum(s['cpu_s'] for t in j if t['rank']==$rk for s in t['states'] if s['name']=='Sleep') * 2 < sum(s['time_s'] for t in j if t['rank']==$rk for s in t['states'] if s['name']=='Sleep'))")" 1
  is "rank $rk: on + off CPU = its window, for every thread" \
    "$(js "all(abs(t['cpu_s'] + t['offcpu_s'] - t['window_s']) < 1e-6 for t in j if t['rank']==$rk)")" True
done
is "every thread has the documented keys" \
  "$(js "all(set(['rank','thread','cpu_s','offcpu_s','switches','migrations','cpus']) <= set(t) for t in j)")" True
$CLOGTOOL threads sched.clog > t.txt; r=$?
ok $r "clogtool threads prints its table"
grep -q "Sleep" t.txt; ok $? "  with the per-state part"

# Two ranks pinned to one CPU share it.
cpus=$(python3 -c "import os; print(' '.join(map(str, sorted(os.sched_getaffinity(0)))))")
set -- $cpus
A=$1; Bc=${2:-$1}
run 2 "$PROG" pin "$A"; r=$?
ok $r "pin: the job ran (rc $r)"
$CLOGTOOL threads --json sched.clog > t.json
for rk in 0 1; do
  is "pin: rank $rk worked on CPU $A only" \
    "$(js "sorted(set(c for t in j if t['rank']==$rk for s in t['states'] if s['name']=='Work' for c in s['cpus']))")" "[$A]"
done
$CLOGTOOL cpus --json sched.clog > c.json; r=$?
ok $r "clogtool cpus --json reads it"
is "pin: CPU $A is shared by both ranks" \
  "$(python3 -c "import json; j=json.load(open('c.json')); print(sorted(set(t['rank'] for h in j['hosts'] for c in h['cpus'] if c['cpu']==$A for t in c['threads'])))")" "[0, 1]"
is "pin: the topology lists every CPU of the host" \
  "$(python3 -c "import json,os; j=json.load(open('c.json')); print(len(j['hosts'][0]['cpus']) >= len(os.sched_getaffinity(0)))")" True

# A thread moved between CPUs.
if [ "$A" != "$Bc" ]; then
  run 2 "$PROG" move "$A" "$Bc"; r=$?
  ok $r "move: the job ran (rc $r)"
  $CLOGTOOL threads --json sched.clog > t.json
  is "move: before the move it ran on CPU $A only" \
    "$(js "[s['cpus'] for t in j if t['rank']==0 and t['thread']==0 for s in t['states'] if s['name']=='OnA']")" "[[$A]]"
  is "move: after it, on CPU $Bc only" \
    "$(js "[s['cpus'] for t in j if t['rank']==0 and t['thread']==0 for s in t['states'] if s['name']=='OnB']")" "[[$Bc]]"
  is "move: the migration is inside sched_setaffinity" \
    "$(js "[s['migrations'] for t in j if t['rank']==0 and t['thread']==0 for s in t['states'] if s['name']=='Move']")" "[1]"
else
  ok 1 "move: this machine needs two CPUs (has one)"
fi

# NIC counters: the loopback carried at least what the program sent.
MPE_NETWORK=1 run 2 "$PROG" net; r=$?
ok $r "net: the job ran (rc $r)"
$CLOGTOOL cpus --json sched.clog > c.json; r=$?
ok $r "net: clogtool cpus --json reads it"
is "net: lo received at least 100 datagrams of 1000 bytes" \
  "$(python3 -c "import json; j=json.load(open('c.json')); print([n['rx_packets']>=100 and n['rx_bytes']>=100000 for h in j['hosts'] for n in h['nics'] if n['name']=='lo'])")" "[True]"
# The NIC bytes exported as massif output (ms_print reads it) and as a
# heap profile: the last snapshot holds what clogtool cpus counts.
$CLOGTOOL memory --network --massif net.massif sched.clog; r=$?
ok $r "net: clogtool memory --network --massif writes rank 0's host's NICs"
ms_print net.massif > ms.txt 2> ms.err; r=$?
ok $r "net: ms_print reads it"
[ $r -eq 0 ] || diag "$(head -5 ms.err)"
grep -q "lo received bytes" ms.txt; ok $? "  and shows lo's received bytes"
is "net: the last snapshot's lo received bytes are clogtool cpus's" \
  "$(python3 -c "
import json, re
j = json.load(open('c.json'))
want = [n['rx_bytes'] for h in j['hosts'] for n in h['nics'] if n['name'] == 'lo']
last = None
for l in open('net.massif'):
    m = re.match(r' n0: (\d+) 0x0: lo received bytes$', l)
    if m: last = int(m.group(1))
print(want == [last] and last >= 100000)")" True
$CLOGTOOL memory --network --hp net.hp sched.clog; r=$?
ok $r "net: clogtool memory --network --hp writes a heap profile"
grep -q "^lo_sent_bytes	[0-9]" net.hp; ok $? "  with a band of lo's sent bytes (lo_sent_bytes: names without blanks)"
$CLOGTOOL memory --network --massif x.massif --rank 1 sched.clog 2> e.txt
[ $? = 1 ]; ok $? "net: rank 1 recorded no NIC counters: exit 1"
grep -q "MPE_NETWORK=1" e.txt; ok $? "  and says who records them"
$CLOGTOOL memory --network sched.clog 2> /dev/null
[ $? = 2 ]; ok $? "net: --network without --massif or --hp: bad usage"

# Spinning and blocked waits told apart: rank 0 waits 300 ms in
# MPI_Recv (state Wait) for rank 1, which sleeps (state Sleep).
run 2 "$PROG" wait; r=$?
ok $r "wait: the job ran (rc $r)"
$CLOGTOOL threads --json sched.clog > t.json; r=$?
ok $r "wait: clogtool threads --json reads it"
is "wait: rank 0 waited in MPI_Recv at least 250 ms" \
  "$(js "int(sum(s['time_s'] for t in j if t['rank']==0 for s in t['states'] if s['name']=='Wait') >= 0.25)")" 1
is "wait: the MPI wait spun: never blocked (on a CPU or preempted)" \
  "$(st 0 Wait blocks) $(st 0 Wait blocked_s)" "0 0.0"
is "wait: the sender's sleep blocked once" "$(st 1 Sleep blocks)" 1
is "wait: and was on a CPU under a tenth of it" \
  "$(js "int(sum(s['cpu_s'] for t in j if t['rank']==1 for s in t['states'] if s['name']=='Sleep') * 10 < sum(s['time_s'] for t in j if t['rank']==1 for s in t['states'] if s['name']=='Sleep'))")" 1

# Off by default: no switch records, and clogtool threads says so.
MPE_SCHED=0 run 2 "$PROG" threads 2; r=$?
ok $r "off: the job ran (rc $r)"
$CLOGTOOL threads sched.clog > t.txt 2> e.txt; r=$?
is "off: clogtool threads exits 1" $r 1
grep -q "MPE_SCHED=1" e.txt; ok $? "  and tells how to record them"
finish
