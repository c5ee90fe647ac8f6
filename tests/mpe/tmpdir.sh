#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPE_SAME_TMPDIR: by default every rank spills into rank 0's directory
# (MPE2's default); with MPE_SAME_TMPDIR=no on rank 0 each rank uses its
# own MPE_TMPDIR.  The local files are kept (MPE_DELETE_LOCALFILE=no) to
# see where they went.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
EX=$B/examples
d0=$tap_tmp/d0 d1=$tap_tmp/d1
# job: rank 0 with MPE_TMPDIR=d0, rank 1 with d1 (MPE_SAME_TMPDIR=$1).
job () {
  rm -rf "$d0" "$d1"; mkdir -p "$d0" "$d1"
  MPE_DELETE_LOCALFILE=no timeout 120 $MPIEXEC \
    -n 1 -env MPE_TMPDIR "$d0" -env MPE_SAME_TMPDIR "$1" $EX/ring/ring "$2" 3 : \
    -n 1 -env MPE_TMPDIR "$d1" -env MPE_SAME_TMPDIR "$1" $EX/ring/ring "$2" 3 \
    > out.txt 2> err.txt
}
n () { ls "$1" | grep -c '\.spill$'; }
job yes same; ok $? "MPE_SAME_TMPDIR=yes: the job runs"
is "both ranks' spill files are in rank 0's directory" "$(n "$d0") $(n "$d1")" "2 0"
is "the log is complete" "$(val same.clog matched)" 6
job no own; ok $? "MPE_SAME_TMPDIR=no: the job runs"
is "each rank's spill file is in its own directory" "$(n "$d0") $(n "$d1")" "1 1"
is "the log is complete" "$(val own.clog matched)" 6
finish
