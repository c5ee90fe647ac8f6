#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The default unwinder keeps every frame of a thread whose hot leaf sets
# up no frame pointer (tests/sampling/leaf.c: start_thread -> worker ->
# light_kernel, built with frame pointers but without one in leaves): a
# frame-pointer walk from the leaf skips worker, call-frame information
# does not.  MPE_SAMPLE_UNWIND=fp keeps to frame pointers when asked.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
. "$top_srcdir/tests/sampling/common.sh"
LEAF=$S/leaf
[ -x "$S/.libs/leaf" ] && LEAF=$S/.libs/leaf
export MPE_LOGFILE_PREFIX=$PWD/leaf
grep -q '^#define HAVE_LIBUNWIND 1' "$top_builddir/config.h" ||
  skip_all "built without libunwind: frame pointers are all there is"
grep -q '^#define HAVE_LIBDW 1' "$top_builddir/config.h" ||
  skip_all "built without libdw: frames are not named"

# frames: "WITH ALL" for the samples whose leaf is light_kernel: how
# many have worker as its caller, and how many there are.
frames () {
  $CLOGTOOL cct --collapsed stacks.txt leaf.clog > /dev/null 2>&1
  awk '{ n = $NF; $NF = ""; sub(/ $/, "") }
       $0 ~ /;light_kernel$/ { all += n; if ($0 ~ /;worker;light_kernel$/) w += n }
       END { print w + 0, all + 0 }' stacks.txt
}

MPE_SAMPLE_HZ=1000 run 1 "$LEAF" 300; r=$?
ok $r "leaf runs sampled (rc $r)"
[ $r -eq 0 ] || diag "$(cat err.txt)"
set -- $(frames)
diag "default: $1 of $2 light_kernel samples under worker"
[ "$2" -ge 100 ] && [ $(($1 * 100)) -ge $(($2 * 98)) ]
ok $? "default unwinder: light_kernel's samples keep worker ($1 of $2)"
grep -q "start_thread;worker;light_kernel " stacks.txt
ok $? "  as start_thread;worker;light_kernel"

MPE_SAMPLE_UNWIND=libunwind MPE_SAMPLE_HZ=1000 run 1 "$LEAF" 100; r=$?
set -- $(frames)
[ "$2" -gt 0 ] && [ $(($1 * 100)) -ge $(($2 * 98)) ]
ok $? "MPE_SAMPLE_UNWIND=libunwind: the same ($1 of $2)"

# Frame pointers alone cannot see the leaf has no frame: worker is lost
# (what the default did before).
MPE_SAMPLE_UNWIND=fp MPE_SAMPLE_HZ=1000 run 1 "$LEAF" 100; r=$?
ok $r "MPE_SAMPLE_UNWIND=fp runs (rc $r)"
set -- $(frames)
diag "fp: $1 of $2 light_kernel samples under worker"
[ "$2" -gt 0 ] && [ $(($1 * 2)) -lt "$2" ]
ok $? "MPE_SAMPLE_UNWIND=fp walks frame pointers only ($1 of $2 keep worker)"
finish
