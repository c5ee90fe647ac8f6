#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Memory and NIC tracks drawn as counter tracks (mpeview --export
# --track memory|network) on real logs: tests/mpe/memory-prog under the
# allocator wrappers (MPE_MEMORY=1) and tests/mpe/sched-prog net
# (MPE_NETWORK=1).  The step line (the counter tracks' colour) appears
# under the rows that hold the track, and nowhere without --track; a
# log without the records is an error that says how to record them.
# The programs log no states: the window is given (their first 3 s).
# The memory table (mpeview --export-tables) equals clogtool memory
# --json on the same log, with memory-prog's known leak in it.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
MV=$B/mpeview
PNGPIX=$B/tests/viewer/pngpix
line=1a4099   # the counter step line (MV_COUNTER_RGB, mv-draw.h)

run 2 env MPE_MEMORY=1 LD_PRELOAD="$B/mpe/.libs/libmpe_memory.so" \
  "$B/tests/mpe/memory-prog"; r=$?
ok $r "memory: the job ran under the wrappers (rc $r)"
"$MV" --export m0.png --width 800 --from 0 --to 3 memory.clog
ok $? "memory: export without --track"
is "  no step line" "$("$PNGPIX" m0.png --count $line)" 0
"$MV" --export m1.png --width 800 --from 0 --to 3 --track memory memory.clog
ok $? "memory: export --track memory"
n=$("$PNGPIX" m1.png --count $line)
[ "$n" -gt 300 ]; ok $? "  a step line of the live bytes ($n pixels)"
# Both ranks' processes: the line in rank 0's rows and in rank 1's.
set -- $("$PNGPIX" m1.png --rows $line)
[ "$#" = 2 ] && [ $(($2 - $1)) -gt 15 ]
ok $? "  under more than one row ($1 .. $2)"
"$MV" --export-tables tab.json memory.clog
ok $? "memory: export-tables"
$CLOGTOOL memory --json memory.clog > cm.json
is "  the memory table equals clogtool memory --json" "$(python3 -c "
import json
v = json.load(open('tab.json')); c = json.load(open('cm.json'))
print(v['threads'] == [] and v['cpus'] == [] and len(c['per_rank']) == 2
      and v['memory'] == c)")" True
is "  rank 1's table has alloc_leak's 1000 bytes live at the end" \
  "$(python3 -c "
import json
v = json.load(open('tab.json'))['memory']
print([s['live_bytes_at_end'] for r in v['per_rank'] if r['rank'] == 1
       for s in r['sites'] if s['function'] == 'alloc_leak'])")" "[1000]"

MPE_SCHED=1 MPE_NETWORK=1 run 1 "$B/tests/mpe/sched-prog" net; r=$?
ok $r "network: the job ran (rc $r)"
"$MV" --export n1.png --width 800 --from 0 --to 3 --track network \
  sched.clog
ok $? "network: export --track network"
n=$("$PNGPIX" n1.png --count $line)
[ "$n" -gt 100 ]; ok $? "  a step line of the NIC bytes/s ($n pixels)"
"$MV" --export x.png --track memory sched.clog 2>err.txt
[ $? = 1 ]; ok $? "--track memory of a log without memory records: exit 1"
grep -q "MPE_MEMORY=1" err.txt; ok $? "  and says how to record them"
$CLOGTOOL gen -o plain.clog -p 2 -n 100
"$MV" --export-tables tab.json plain.clog 2>err.txt
[ $? = 1 ]; ok $? "--export-tables of a log with neither switch nor memory records: exit 1"
grep -q "MPE_MEMORY=1" err.txt; ok $? "  and says how to record them"
"$MV" --export x.png --track disk sched.clog 2>err.txt
[ $? = 1 ]; ok $? "--track disk: exit 1"
finish
