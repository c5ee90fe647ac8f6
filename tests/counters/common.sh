# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the counter tests (sourced after tests/common/tap.sh and
# tests/mpe/common.sh).
C=$B/tests/counters
PROG=$C/ctr-prog
[ -x "$C/.libs/ctr-prog" ] && PROG=$C/.libs/ctr-prog
FAKE=$C/.libs/fake-counters.so
LD_LIBRARY_PATH=$B/mpe/.libs:$B/logfmt/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
export MPE_LOGFILE_PREFIX=$PWD/ctr
# mv FILE METRIC RANK: a thread-0 metric's final value (clogtool
# metrics), "none" when the log has no such metric.
mval () {
  $CLOGTOOL metrics --csv --level thread "$1" | awk -F, -v m="\"$2\"" \
    -v o="\"rank $3 thread 0\"" '$1 == m && $4 == o { v = $5 }
    END { print v == "" ? "none" : v }'
}
# within A B PCT: |A - B| <= PCT % of B (integers or decimals).
within () {
  python3 -c "import sys; a, b, p = map(float, sys.argv[1:]); \
sys.exit(0 if abs(a - b) <= p / 100 * abs(b) else 1)" "$1" "$2" "$3"
}
# The file system of the working directory, where ctr-prog's Fault state
# drops its file's pages: on tmpfs or ramfs a page is never read back
# from a disk, so there are no major faults to count.
case $(stat -f -c %T . 2>/dev/null) in
  tmpfs|ramfs) DISK_FAULTS=no ;;
  *) DISK_FAULTS=yes ;;
esac
