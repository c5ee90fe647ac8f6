#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The fault matrix (docs/FAULTS.md): every fault of the run's environment
# (none, MPE_TMPDIR missing, read-only, or filling up) against every way
# a run ends (it finishes; a rank killed by SIGKILL, by SIGSEGV) keeps
# the same promise: the log, merged or recovered, verifies, and for every
# rank the events it holds plus those its LOSS records count are exactly
# the events the rank logged; the messages still pair.
# Each run is in a mount namespace of its own, with its own /dev/shm
# (another job's start would take a killed job's ring files there for
# leftovers) and the tmpfs its fault needs.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
L=$B/tests/mpe/logmany
n=200000                    # states a rank logs: 2n events
export MPE_BUFFER_MB=1      # so that the ranks spill
# No records of the logger's own flushes: a lost frame's LOSS record
# counts them too, and kept + lost is then more than the program logged.
export MPE_LOG_OVERHEAD=no
mkdir -p fallback ro small

for fault in none missing read-only full; do
  case $fault in
    none) dir=$tap_tmp/spill mnt=: ;;
    missing) dir=$tap_tmp/missing mnt=: ;;
    read-only) dir=$tap_tmp/ro mnt="mount -t tmpfs -o ro,size=64k tmpfs ro" ;;
    full) dir=$tap_tmp/small mnt="mount -t tmpfs -o size=512k tmpfs small" ;;
  esac
  # Where the spill files go: the fallback when MPE_TMPDIR takes none.
  case $fault in missing|read-only) used=$tap_tmp/fallback ;; *) used=$dir ;; esac
  for end in finish SIGKILL SIGSEGV; do
    case $end in
      finish) args="$n" out=logmany.clog ;;
      SIGKILL) args="$n 1 1 9 100" out=rec.clog ;;
      SIGSEGV) args="$n 1 1 11 100" out=rec.clog ;;
    esac
    what="$fault, $end"
    rm -f logmany*.clog rec.clog
    rm -rf "$used"/* 2> /dev/null
    MPE_TMPDIR=$dir TMPDIR=$tap_tmp/fallback in_mount_ns sh -c \
      "$mnt && mount -t tmpfs tmpfs /dev/shm \
       && timeout 120 $MPIEXEC -n 2 $L $args > out.txt 2> err.txt; \
       if [ $end != finish ]; then \
         $CLOGTOOL recover --clean -o rec.clog $used > rec.txt 2>&1; fi"
    if [ ! -s $out ]; then
      ok 1 "$what: a log"; diag "$(cat err.txt rec.txt 2> /dev/null | head -20)"
      continue
    fi
    $CLOGTOOL verify $out > verify.txt 2>&1
    ok $? "$what: the log verifies" || diag "$(head -5 verify.txt)"
    kept=0
    for r in 0 1; do
      kept=$((kept + $(val $out count $r 0 600) + $(val $out count $r 0 601)))
    done
    is "$what: kept + lost = logged" $((kept + $(val $out lost))) $((4 * n))
    is "$what: both messages paired" "$(val $out matched)" 2
  done
done
finish
