#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The memory layer: a known allocation pattern (tests/mpe/memory-prog.c)
# under LD_PRELOAD=libmpe_memory.so and MPE_MEMORY=1 gives, per call site
# (named by the function that called the allocator), exact calls, peak
# and live bytes at the end, the one leak, and a massif export that
# ms_print reads; the same linked with -lmpe_memory instead of
# preloaded; without MPE_MEMORY=1 nothing is recorded.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
PROG=$B/tests/mpe/memory-prog
LIB=$B/mpe/.libs/libmpe_memory.so

run 2 env MPE_MEMORY=1 LD_PRELOAD="$LIB" "$PROG"; r=$?
ok $r "the job ran under the wrappers (rc $r)"
[ $r -eq 0 ] || diag "$(cat err.txt)"
$CLOGTOOL memory --json memory.clog > m.json; r=$?
ok $r "clogtool memory --json reads it"
# site RANK FUNCTION KEY: a value of that rank's site, "none" if absent.
site () {
  python3 -c "
import json; j=json.load(open('m.json'))
v=[s['$3'] for r in j['per_rank'] if r['rank']==$1 for s in r['sites'] if s['function']=='$2']
print(v[0] if len(v)==1 else 'none' if not v else v)"
}
for rk in 0 1; do
  is "rank $rk: alloc_early (before MPI_Init): 1 call" "$(site $rk alloc_early calls)" 1
  is "rank $rk: alloc_early: peak 777" "$(site $rk alloc_early peak_bytes)" 777
  is "rank $rk: alloc_early: freed" "$(site $rk alloc_early live_bytes_at_end)" 0
  is "rank $rk: alloc_many: 10 calls" "$(site $rk alloc_many calls)" 10
  is "rank $rk: alloc_many: peak 10000" "$(site $rk alloc_many peak_bytes)" 10000
  is "rank $rk: alloc_many: freed" "$(site $rk alloc_many live_bytes_at_end)" 0
  is "rank $rk: alloc_leak: peak 1000" "$(site $rk alloc_leak peak_bytes)" 1000
  is "rank $rk: alloc_leak: 1000 bytes leaked" "$(site $rk alloc_leak live_bytes_at_end)" 1000
  is "rank $rk: alloc_aligned: peak 4096" "$(site $rk alloc_aligned peak_bytes)" 4096
  is "rank $rk: alloc_grow: malloc and realloc, two sites (lines)" \
    "$(site $rk alloc_grow peak_bytes)" "[5000, 100]"
  is "rank $rk: alloc_grow: one call each" "$(site $rk alloc_grow calls)" "[1, 1]"
  is "rank $rk: alloc_map: an mmap site of 65536" "$(site $rk alloc_map peak_bytes)" 65536
  is "rank $rk: alloc_map: unmapped" "$(site $rk alloc_map live_bytes_at_end)" 0
  is "rank $rk: the one leak of the program's own functions" \
    "$(python3 -c "
import json; j=json.load(open('m.json'))
print([s['function'] for r in j['per_rank'] if r['rank']==$rk for s in r['sites'] if s['function'].startswith('alloc_') and s['live_bytes_at_end']>0])")" \
    "['alloc_leak']"
  is "rank $rk: the sites carry their source file" \
    "$(python3 -c "
import json; j=json.load(open('m.json'))
print(all(s['file'].endswith('memory-prog.c') and s['line']>0 for r in j['per_rank'] if r['rank']==$rk for s in r['sites'] if s['function'].startswith('alloc_')))")" True
  is "rank $rk: the peak holds alloc_many's 10000 bytes at least" \
    "$(python3 -c "
import json; j=json.load(open('m.json'))
print([r['peak_bytes']>=10000 for r in j['per_rank'] if r['rank']==$rk])")" "[True]"
done
$CLOGTOOL memory memory.clog > m.txt; r=$?
ok $r "clogtool memory prints its table"
grep -q "alloc_leak.*LEAK" m.txt; ok $? "  marking the leak"

$CLOGTOOL memory --massif massif.out --rank 1 memory.clog; r=$?
ok $r "clogtool memory --massif writes rank 1's profile"
ms_print --threshold=0.1 massif.out > ms.txt 2> ms.err; r=$?
ok $r "ms_print reads it"
[ $r -eq 0 ] || diag "$(head -5 ms.err)"
grep -q "alloc_many (.*memory-prog.c" ms.txt; ok $? "  and shows alloc_many at its source line"
$CLOGTOOL memory --hp mem.hp memory.clog; r=$?
ok $r "clogtool memory --hp writes a heap profile"
# hp2ps's grammar (GHC user guide, "Heap profile file format"): a header
# of JOB/DATE/SAMPLE_UNIT/VALUE_UNIT, then BEGIN_SAMPLE t ... END_SAMPLE t
# blocks of "name<TAB>value" lines with non-decreasing t; hp2ps's lexer
# ends a name at white space, so names have none (checked by hand with
# hp2ps: docs/benchmarks/HISTORY.md).
is "the heap profile follows hp2ps's grammar" "$(python3 -c "
import re
L=open('mem.hp').read().split('\n')
assert L[0].startswith('JOB \"') and L[1].startswith('DATE \"')
assert L[2]=='SAMPLE_UNIT \"seconds\"' and L[3]=='VALUE_UNIT \"bytes\"'
t=-1; inside=False; n=0
for x in L[4:]:
  if not x: continue
  m=re.match(r'(BEGIN|END)_SAMPLE (\d+\.\d+)$', x)
  if m:
    v=float(m.group(2))
    if m.group(1)=='BEGIN': assert not inside and v>=t; inside=True; t=v; n+=1
    else: assert inside and v==t; inside=False
  else:
    assert inside; name,val=x.split('\t'); int(val)
    assert name and not re.search(r'\s', name), name
assert not inside and n>2
print('ok')")" ok

# Linked with -lmpe_memory (no LD_PRELOAD): the same sites and leak.
run 2 env MPE_MEMORY=1 "$B/tests/mpe/memory-prog-linked"; r=$?
ok $r "linked with -lmpe_memory: the job ran (rc $r)"
$CLOGTOOL memory --json memory.clog > l.json; r=$?
ok $r "linked: clogtool memory --json reads it"
is "linked: per rank alloc_leak leaks 1000 bytes, alloc_many made 10 calls" \
  "$(python3 -c "
import json; j=json.load(open('l.json'))
v = lambda r, f, k: [s[k] for s in r['sites'] if s['function'] == f]
print([v(r, 'alloc_leak', 'live_bytes_at_end') + v(r, 'alloc_many', 'calls') for r in j['per_rank']])")" \
  "[[1000, 10], [1000, 10]]"

# Off: the wrappers loaded but MPE_MEMORY unset record nothing.
run 2 env LD_PRELOAD="$LIB" "$PROG"; r=$?
ok $r "off: the job runs under the wrappers (rc $r)"
$CLOGTOOL memory memory.clog > /dev/null 2> e.txt; r=$?
is "off: clogtool memory finds no memory records" $r 1
# Asked for without the wrappers: one clear message, and the log is made.
run 2 env MPE_MEMORY=1 "$PROG"; r=$?
ok $r "no wrappers: the job runs (rc $r)"
grep -q "not loaded" err.txt; ok $? "  and says the wrappers are not loaded"
finish
