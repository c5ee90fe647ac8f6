#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ThreadSanitizer: the threads example and libmpe (with logfmt), built
# by a --enable-sanitizers=thread build (the only one that runs this
# test), 3 threads per rank logging at once on 2 ranks, with a 1 MiB
# buffer so the background spill thread works throughout (packing and
# writing, or writing what the loggers packed).  Any TSan report
# fails (TSAN_OPTIONS from the Makefile).
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
# The library under test is instrumented (else this would pass unseen).
nm -D --undefined-only "$B/mpe/.libs/libmpe.so" | grep -q ' __tsan_func_entry'
ok $? "libmpe is built with -fsanitize=thread"
# The spill thread packing and writing, then only writing what the
# loggers packed (write-behind).
for th in yes write; do
MPE_BUFFER_MB=1 MPE_SPILL_THREAD=$th run 2 $B/examples/threads/threads tt 3 20000
r=$?; ok $r "spill thread $th: runs on 2 ranks under TSan (exit $r)"
grep -q ThreadSanitizer err.txt; [ $? -ne 0 ]; r=$?
ok $r "spill thread $th: no ThreadSanitizer report"
[ $r -eq 0 ] || sed 's/^/#   /' err.txt | head -40
is "streams" "$(val tt.clog streams)" 8
for rk in 0 1; do
  for t in 1 2 3; do
    is "rank $rk thread $t: begins" "$(val tt.clog count $rk $t 600)" 20000
    is "rank $rk thread $t: ends" "$(val tt.clog count $rk $t 601)" 20000
  done
done
f=$(val tt.clog count 0 1 560)
[ "$f" != none ] && [ "$f" -ge 2 ]; ok $? "spill thread $th: it ran ($f flushes)"
is "nothing lost" "$(val tt.clog lost)" 0
is "matched" "$(val tt.clog matched)" 6
is "nesting" "$(val tt.clog badnest)" 0
is "spill files removed" "$(ls "$MPE_TMPDIR" | wc -l)" 0
done
finish
