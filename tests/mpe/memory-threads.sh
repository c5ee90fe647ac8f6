#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A call site's peak is what was live there at once over its threads
# (tests/mpe/memory-threads.c: 4,000,000 bytes on one thread, then
# 2,000,000 on another), not the sum of the threads' own peaks
# (6,000,000, more than was ever live).
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
PROG=$B/tests/mpe/memory-threads
LIB=$B/mpe/.libs/libmpe_memory.so


run 1 env MPE_MEMORY=1 LD_PRELOAD="$LIB" "$PROG"; r=$?
ok $r "the job ran under the wrappers (rc $r)"
[ $r -eq 0 ] || diag "$(cat err.txt)"
$CLOGTOOL memory --json mt.clog > m.json; r=$?
ok $r "clogtool memory --json reads it"
v=$(python3 -c "
import json; j=json.load(open('m.json'))
s=[s for r in j['per_rank'] for s in r['sites'] if s['function']=='alloc_turn']
print(len(s), s[0]['calls'] if s else 0, s[0]['peak_bytes'] if s else 0,
      s[0].get('peak_bytes_threads', 0) if s else 0,
      ','.join(str(t['peak_bytes']) for t in sorted(s[0].get('threads', []),
                                                    key=lambda t: t['thread']))
      if s else '-')")
set -- $v
is "alloc_turn is one site" "$1" 1
is "  with both threads' calls" "$2" 2
is "  its peak: the 4000000 bytes live at once" "$3" 4000000
is "  the threads' own peaks add up to more" "$4" 6000000
is "  split by thread: 4000000 on the first, 2000000 on the second" "$5" \
  "4000000,2000000"
# libmpe's own allocations (mpe-memprof.c's sample buffer, perf's rings)
# are the logger's, not the program's.
python3 -c "
import json, sys; j=json.load(open('m.json'))
bad=[s['function'] + ' ' + s['file'] for r in j['per_rank'] for s in r['sites']
     if '/mpe/src/' in s['file'] or s['file'].split('/')[-1].startswith('mpe-')]
print(bad); sys.exit(1 if bad else 0)" > bad.txt
ok $? "no site inside libmpe (mpe-memprof.c, mpe-perf.c, ...)"
[ -s bad.txt ] && diag "$(cat bad.txt)"
finish
