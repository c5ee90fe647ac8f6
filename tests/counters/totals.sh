#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Counter totals per state (clogtool profile) and per calling context
# (clogtool cct --metric COUNTER) on a program with known counts
# (ctr-prog states N): "Sleep" holds N voluntary context switches and
# little CPU, "Touch" at least N * 64 minor faults, "Fault" the major
# faults the kernel counted in it (a page each of a file dropped from
# the page cache, ctr-prog prints the count), "Spin" N * 2 ms of
# CPU time, all of it inside the function spin().  ctr-prog times its
# spin by the task clock itself (the thread CPU clock was 12% off it in
# a loaded CI run), so the state's total is checked within 5%.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
. "$top_srcdir/tests/counters/common.sh"
N=40
export MPE_COUNTERS=task-clock,context-switches,minor-faults,major-faults
export MPE_SAMPLE_HZ=1000

run 2 "$PROG" states $N; r=$?
ok $r "states: the job ran (rc $r)"
[ $r -eq 0 ] || diag "$(cat err.txt)"
$CLOGTOOL profile --json ctr.clog > p.json; r=$?
ok $r "clogtool profile --json reads it"
# pc STATE COUNTER: a state's counter increase over both ranks.
pc () {
  python3 -c "import json; j=json.load(open('p.json')); print(int([s for s in j['states'] if s['name']=='$1'][0]['counters']['$2']))"
}
is "the counters are listed" \
  "$(python3 -c "import json; print(','.join(c['name'] for c in json.load(open('p.json'))['counters']))")" \
  "task-clock,context-switches,minor-faults,major-faults"
cs=$(pc Sleep context-switches)
[ "$cs" -ge $((2 * N)) ] && [ "$cs" -le $((2 * N * 3)) ]
ok $? "Sleep: $cs context switches, one per sleep on each rank ($((2 * N)))"
mf=$(pc Touch minor-faults)
# Upper bound: the pages, 400 for the rest of the state, and one more
# page in eight where AddressSanitizer's shadow memory is touched too.
[ "$mf" -ge $((2 * N * 64)) ] && [ "$mf" -le $((2 * N * 64 * 9 / 8 + 400)) ]
ok $? "Touch: $mf minor faults for the $((2 * N * 64)) pages touched"
mj=$(pc Fault major-faults)
st=$(awk '$1 == "ctr-prog:" && $4 == "fault" { n += $6 } END { print n + 0 }' out.txt)
{ [ $DISK_FAULTS = no ] || [ "$st" -ge $((2 * N * 8)) ]; } &&
  [ "$mj" -ge "$st" ] && [ "$mj" -le $((st + 8)) ]
ok $? "Fault: $mj major faults, the kernel's count in the state ($st, for $((2 * N * 16)) pages dropped)"
tc=$(pc Spin task-clock)
within "$tc" $((2 * N * 2000000)) 5
ok $? "Spin: $tc ns of task clock for the $((2 * N * 2)) ms spun"
ts=$(pc Sleep task-clock)
[ "$ts" -lt $((N * 2000000 / 2)) ]
ok $? "Sleep: little task clock ($ts ns)"
$CLOGTOOL profile ctr.clog > p.txt; r=$?
ok $r "clogtool profile prints its table"
grep -q "^Counters" p.txt; ok $? "  with the counters section"

# Per calling context: the spin loop's samples carry its CPU time.
$CLOGTOOL cct --json --metric task-clock ctr.clog > c.json 2>/dev/null; r=$?
ok $r "clogtool cct --metric task-clock (rc $r)"
sp=$(python3 -c "
import json
def walk(n):
    if n['name'] == 'spin':
        return n['counter']['total']
    return sum(walk(c) for c in n['children'])
print(int(walk(json.load(open('c.json')))))")
within "$sp" $((2 * N * 2000000)) 15
ok $? "spin(): $sp ns of task clock in its contexts (spun $((2 * N * 2)) ms)"
root=$(python3 -c "import json; print(int(json.load(open('c.json'))['counter']['total']))")
[ "$root" -ge "$sp" ]; ok $? "the root holds every context's ($root ns)"
$CLOGTOOL cct --metric task-clock ctr.clog > c.txt 2>/dev/null
grep -q "count  context (by task-clock" c.txt; ok $? "text: a count column"
$CLOGTOOL cct --metric no-such ctr.clog > /dev/null 2> e.txt
is "an unknown counter is a usage error" "$?" 2
grep -q "bad metric 'no-such'" e.txt; ok $? "  that names it"
finish
