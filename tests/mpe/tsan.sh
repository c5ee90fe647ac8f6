#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ThreadSanitizer: the threads example and the libmpe sources (with
# logfmt) built with -fsanitize=thread, 3 threads per rank logging at
# once on 2 ranks, with a 1 MiB buffer so the background spill thread
# works throughout.  Any TSan report fails.  Builds its own binary, so it
# runs the same in the plain and the ASan builds.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
S=$top_srcdir
# UCX's malloc hooks crash under TSan's allocator.
UCX_MEM_EVENTS=no UCX_MEM_MALLOC_HOOKS=no
export UCX_MEM_EVENTS UCX_MEM_MALLOC_HOOKS
${MPICC:-mpicc} -std=gnu11 -fsanitize=thread -O1 -g -pthread -I"$B" -I"$S" \
  -I"$S/logfmt/include" -I"$S/mpe/include" -I"$S/mpe/src" -I"$S/spill" \
  -o threads-tsan "$S/examples/threads/threads.c" \
  $(ls "$S"/mpe/src/mpe-*.c | grep -v -e mpe-null.c -e mpe-fortran.c -e mpe-callstack.c) \
  "$S"/spill/*.c "$S"/logfmt/src/*.c -lzstd -lm > cc.txt 2>&1
r=$?; ok $r "threads example builds with -fsanitize=thread"
[ $r -eq 0 ] || sed 's/^/#   /' cc.txt | head -20
TSAN_OPTIONS="halt_on_error=1 exitcode=66" MPE_BUFFER_MB=1 MPE_SPILL_THREAD=yes \
  run 2 ./threads-tsan tt 3 20000
r=$?; ok $r "runs on 2 ranks under TSan (exit $r)"
grep -q ThreadSanitizer err.txt; [ $? -ne 0 ]; r=$?
ok $r "no ThreadSanitizer report"
[ $r -eq 0 ] || sed 's/^/#   /' err.txt | head -40
is "streams" "$(val tt.clog streams)" 8
for rk in 0 1; do
  for t in 1 2 3; do
    is "rank $rk thread $t: begins" "$(val tt.clog count $rk $t 600)" 20000
    is "rank $rk thread $t: ends" "$(val tt.clog count $rk $t 601)" 20000
  done
done
f=$(val tt.clog count 0 1 560)
[ "$f" != none ] && [ "$f" -ge 2 ]; ok $? "the spill thread ran ($f flushes)"
is "nothing lost" "$(val tt.clog lost)" 0
is "matched" "$(val tt.clog matched)" 6
is "nesting" "$(val tt.clog badnest)" 0
is "spill files removed" "$(ls "$MPE_TMPDIR" | wc -l)" 0
finish
