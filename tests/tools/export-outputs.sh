#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The exports of real runs: '-' is standard output for recover -o - (and
# --output), cct --gmon/--collapsed/--pprof - (never a file named '-');
# gmon.out describes the program unless --binary names another.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
. "$top_srcdir/tests/sampling/common.sh"
[ -n "$MPIEXEC" ] && [ -x "$B/tests/mpe/syncstates" ] && [ -x "$HOT" ] \
  || skip_all "no MPI build"

# recover: a finished run's kept local files.
run 2 env MPE_DELETE_LOCALFILE=no $B/tests/mpe/syncstates 200
ok $? "a run with its local files kept"
$CLOGTOOL recover "$MPE_TMPDIR" -o rec.clog >rec.txt 2>&1
ok $? "recover -o FILE"
$CLOGTOOL recover "$MPE_TMPDIR" -o - >rec-out.clog 2>rec-err.txt
ok $? "recover -o -"
$CLOGTOOL print --tsv rec.clog >want.tsv 2>/dev/null
$CLOGTOOL print --tsv rec-out.clog >got.tsv 2>/dev/null
cmp -s want.tsv got.tsv && [ -s want.tsv ]
ok $? "recover -o - writes the log to stdout"
grep -q "finished normally" rec-err.txt; ok $? "  the report on stderr"
$CLOGTOOL recover --output - "$MPE_TMPDIR" >rec-out2.clog 2>/dev/null
ok $? "recover --output -"
cmp -s rec-out.clog rec-out2.clog; ok $? "  writes the same"
[ ! -e ./- ]; ok $? "recover made no file named '-'"

# cct: the exports on stdout are the files' bytes.
run 2 env MPE_SAMPLE_HZ=1000 "$HOT" 20 8; ok $? "a sampled run"
$CLOGTOOL cct --gmon gmon.out --collapsed stacks.txt --pprof prof.pb.gz \
  hot.clog 2>gmon.err
ok $? "cct writes the three exports to files"
grep -q "for $HOT (" gmon.err; ok $? "gmon.out is the program's by default"
for x in "gmon gmon.out" "collapsed stacks.txt" "pprof prof.pb.gz"; do
  set -- $x
  $CLOGTOOL cct --$1 - hot.clog >"dash.$1" 2>/dev/null
  ok $? "cct --$1 -"
  if [ $1 = pprof ]; then
    gzip -dc "$2" >a.pb && gzip -dc "dash.$1" >b.pb && cmp -s a.pb b.pb
  else
    cmp -s "$2" "dash.$1"
  fi
  ok $? "  writes what cct --$1 FILE writes"
done
$CLOGTOOL cct --gmon - --collapsed - hot.clog >/dev/null 2>&1
is "two exports on stdout: bad usage" $? 2
[ ! -e ./- ]; ok $? "cct made no file named '-'"
$CLOGTOOL cct --gmon bin.out --binary "$HOT" hot.clog 2>/dev/null
ok $? "--binary the program's path"
cmp -s gmon.out bin.out; ok $? "  the default's gmon.out"
$CLOGTOOL cct --gmon base.out --binary "$(basename "$HOT")" hot.clog \
  2>/dev/null
cmp -s gmon.out base.out; ok $? "--binary by base name: the same"
$CLOGTOOL cct --gmon none.out --binary no-such-binary hot.clog 2>none.err
is "--binary of a binary not in the log fails" $? 1
grep -q "no binary 'no-such-binary'" none.err; ok $? "  and says so"
$CLOGTOOL cct --binary "$HOT" hot.clog >/dev/null 2>&1
is "--binary without --gmon: bad usage" $? 2

finish
