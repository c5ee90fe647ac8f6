#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Bare events written at the call site (mpe_log.h, x86-64) and by libmpe
# (the same program built with MPE_NO_INLINE_CHECK) give the same log:
# the same records on every thread, across spills (a small buffer), none
# while the log is stopped, a metric sample at each event chosen with
# MPE_Metric_sample_on, the same return codes before MPE_Init_log,
# while stopped and after the finish (tests/mpe/inline.c).
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
N=50000
export MPE_BUFFER_MB=1 MPE_METRIC_PERIOD=0
for how in check call; do
  run 2 $B/tests/mpe/inline-$how $N; ok $? "inline-$how: the job succeeds"
  for r in 0 1; do
    is "inline-$how: rank $r: return codes" \
      "$(sed -n "s/^rank $r: rc //p" out.txt)" "4 4 0 4"
  done
  $LOGCHECK inline.clog > $how.txt
  is "inline-$how: nothing lost, no bad nesting, in time order" \
    "$(grep -E '^(lost|badnest|nonmonotonic) ' $how.txt | tr '\n' ' ')" \
    "lost 0 nonmonotonic 0 badnest 0 "
  for r in 0 1; do
    is "inline-$how: rank $r: every state" \
      "$(awk -v r=$r '$1 == "count" && $2 == r && $4 == 600 { s += $5 } END { print s }' $how.txt)" \
      $((3 * N))
    is "inline-$how: rank $r: a sample at each chosen event" \
      "$($CLOGTOOL query inline.clog "SELECT count(*) FROM metrics WHERE name='inline.marks' AND rank=$r" | tail -1)" \
      $N
  done
  rm -f inline.clog
done
# The ids are the program's own (600 on): the whole of logcheck's report
# but the streams' event totals, which count the flushes' own records.
diff -u check.txt call.txt > diff.txt
ok $? "the same log both ways"
[ -s diff.txt ] && sed 's/^/# /' diff.txt | head -20
case $(uname -m) in
  x86_64)
    # Not a test of the compiler: that the inline build really writes at
    # the call site, or the comparison above proves nothing.
    # (libtool's wrapper scripts, when shared, stand for .libs/.)
    bin () { [ -x $B/tests/mpe/.libs/$1 ] && echo $B/tests/mpe/.libs/$1 ||
             echo $B/tests/mpe/$1; }
    objdump -d "$(bin inline-check)" > check.s && grep -q rdtsc check.s
    ok $? "inline-check writes bare events itself (rdtsc at the call site)"
    objdump -d "$(bin inline-call)" > call.s && ! grep -q rdtsc call.s
    ok $? "inline-call leaves them to libmpe" ;;
esac
finish
