# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the mpe shell tests (sourced after tests/common/tap.sh).
B=$top_builddir
LOGCHECK=$B/tests/mpe/logcheck
CLOGTOOL=$B/clogtool
export MPE_TMPDIR="$tap_tmp/spill"
mkdir -p "$MPE_TMPDIR"
cd "$tap_tmp" || bail "no scratch dir"
# run N PROG ARGS...: an MPI job with a time limit; stderr to err.txt.
run () {
  n=$1; shift
  timeout 120 $MPIEXEC -n "$n" "$@" > out.txt 2> err.txt
}
# fails RC: a job's status says it failed by itself: not 0, and not 124,
# run's timeout stopping a job that hung.
fails () { test "$1" -ne 0 && test "$1" -ne 124; }
# val FILE KEY...: the value of a logcheck line (e.g. val x.clog matched).
# logcheck reads the whole log (1.2 s for 3M events under ThreadSanitizer,
# and a test asks it a dozen things): its output is kept for the file as
# it is (path, size, inode, modification time in ns), read again only
# once the file changes.
val () {
  f=$1; shift
  vk=$(stat -c '%n %s %i %.9Y' "$f" 2>/dev/null)
  if [ -z "$vk" ] || [ "$vk" != "$(cat "$tap_tmp/val.key" 2>/dev/null)" ]; then
    rm -f "$tap_tmp/val.key"
    $LOGCHECK "$f" > "$tap_tmp/val.out"
    [ -n "$vk" ] && echo "$vk" > "$tap_tmp/val.key"
  fi
  awk -v k="$*" '{ v = $NF; $NF = ""; sub(/ $/, "");
    if ($0 == k) { print v; found = 1 } } END { if (!found) print "none" }' \
    "$tap_tmp/val.out"
}
# is WHAT GOT WANT: an exact comparison as one TAP line.  Its status
# has a name of its own: callers loop over r, n and f.
is () {
  [ "$2" = "$3" ]; is_rc=$?
  ok $is_rc "$1"
  [ $is_rc -eq 0 ] || diag "  got '$2', want '$3'"
}
# in_mount_ns CMD...: CMD in a private mount namespace (a tmpfs mounted
# there disappears with it, whatever happens to the test).
if [ "$(id -u)" = 0 ]; then MOUNT_NS="unshare -m"; else MOUNT_NS="unshare -rm"; fi
in_mount_ns () { $MOUNT_NS "$@"; }
