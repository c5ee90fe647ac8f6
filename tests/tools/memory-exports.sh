#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool memory --massif/--hp of a real run: a rank not in the log
# fails (no file ms_print would reject), and the exported peak and end
# are the ones clogtool memory reports, libmpe's own allocations
# included (a band of their own).
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
[ -n "$MPIEXEC" ] && [ -x "$B/tests/mpe/memory-prog" ] \
  || skip_all "no MPI build"

run 2 env MPE_LOGFILE_PREFIX="$PWD/memory" MPE_MEMORY=1 \
  LD_PRELOAD="$B/mpe/.libs/libmpe_memory.so" $B/tests/mpe/memory-prog
r=$?; ok $r "a run with the memory layer"
[ $r -eq 0 ] || diag "$(head -5 err.txt)"
for o in massif hp; do
  $CLOGTOOL memory --$o nope.$o --rank 7 memory.clog 2>nope.err
  is "--$o --rank 7 of 2 ranks fails" $? 1
  grep -q "rank 7 has no memory records" nope.err
  ok $? "  and says so" || diag "$(cat nope.err)"
  [ ! -e nope.$o ]; ok $? "  and writes no file"
done
$CLOGTOOL memory memory.clog 2>/dev/null >m.txt
for rk in 0 1; do
  want=$(sed -n "s/^rank $rk: peak \([0-9]*\) bytes, \([0-9]*\) bytes \
live at the end$/\1 \2/p" m.txt)
  want=${want:-no report}
  $CLOGTOOL memory --massif m$rk.out --rank $rk memory.clog 2>/dev/null
  got=$(python3 -c '
import re, sys
v = [int(x) for x in re.findall(r"^mem_heap_B=(\d+)$", open(sys.argv[1]).read(), re.M)]
print(max(v), v[-1])' m$rk.out)
  is "rank $rk: massif peak and end are clogtool memory's ($want)" "$got" "$want"
  $CLOGTOOL memory --hp m$rk.hp --rank $rk memory.clog 2>/dev/null
  got=$(python3 -c '
import sys
tot = []; cur = None
for l in open(sys.argv[1]):
    if l.startswith("BEGIN_SAMPLE"): cur = 0
    elif l.startswith("END_SAMPLE"): tot.append(cur)
    elif cur is not None and "\t" in l: cur += int(l.split("\t")[1])
print(max(tot), tot[-1])' m$rk.hp)
  is "rank $rk: heap profile peak and end are clogtool memory's" "$got" "$want"
done
if command -v ms_print >/dev/null 2>&1; then
  ms_print m1.out >/dev/null 2>&1; ok $? "ms_print reads the massif export"
fi
finish
