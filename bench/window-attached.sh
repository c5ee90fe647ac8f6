#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: window-attached.sh [NP] [MESSAGES] [SLEEP_US] [ROUNDS]
# `make bench-window` (run under xvfb-run): a job's run time with a live
# window attached against the same job without it (issue 17: within 10%
# when the ranks leave a core free).  tests/anim/anim-mpi-ring (libampe)
# on NP ranks (default 2), MESSAGES ring steps (default 4000) with
# SLEEP_US microseconds of sleep after each (default 500), in rounds of
# four interleaved runs:
#   absent   no window, no monitor
#   mpeanim  mpeanim attached (MPEANIM_ADDR): every message drawn
#   monitor  the live monitor at 10 Hz, no window
#   mpetop   the monitor at 10 Hz with mpetop attached (MPE_MONITOR_ADDR)
# MPEANIM=PATH runs another mpeanim (an older build, to compare).
# Prints each case's median loop time (rank 0, MPI_Init to MPI_Finalize)
# and the median over rounds of its slow-down against `absent` (and of
# mpetop against `monitor`), with the windows' CPU time (getrusage).
b=${top_builddir:-.}
mpx=${MPIEXEC:-mpiexec}
np=${1:-2} msgs=${2:-4000} us=${3:-500} rounds=${4:-5}
ring=$b/tests/anim/anim-mpi-ring anim=${MPEANIM:-$b/anim/src/mpeanim}
top=$b/top/mpetop
tmp=$(mktemp -d "${TMPDIR:-/tmp}/winbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
median () { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
job () {  # case: one run of the ring, its loop time appended to $tmp/case
  MPE_LOGFILE_PREFIX=$tmp/ring timeout 600 $mpx -n "$np" "$ring" "$msgs" "$us" \
    2>/dev/null | sed -n 's/^loop_s=//p' >> "$tmp/$1"
}
# wait_file FILE: until the window wrote its address.
wait_file () {
  j=0; while [ ! -s "$1" ] && [ $j -lt 200 ]; do sleep 0.05; j=$((j+1)); done
}
# The X server's CPU seconds so far (it draws what the window sends),
# or 0 when it cannot be found.
xpid=$(pgrep -f "^Xvfb ${DISPLAY:-none}( |\$)" | head -1)
xcpu () {
  if [ -n "$xpid" ] && [ -r "/proc/$xpid/stat" ]; then
    awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' \
      "/proc/$xpid/stat"
  else
    echo 0
  fi
}
with_mpeanim () {
  rm -f "$tmp/addr" "$tmp/stats"
  x0=$(xcpu)
  "$anim" --exit-after-job --addr-file "$tmp/addr" --stats-out "$tmp/stats" \
    > /dev/null 2>&1 &
  wait_file "$tmp/addr"
  (. "$tmp/addr"; export MPEANIM_ADDR; job mpeanim)
  wait
  sed -n 's/^cpu_s=//p' "$tmp/stats" >> "$tmp/mpeanim.cpu"
  sed -n 's/^frames=//p' "$tmp/stats" >> "$tmp/mpeanim.frames"
  echo "$x0 $(xcpu)" | awk '{ print $2 - $1 }' >> "$tmp/mpeanim.xcpu"
}
with_mpetop () {
  rm -f "$tmp/taddr"
  /usr/bin/time -f "%U %S" -o "$tmp/ttime" "$top" --exit-after-job \
    --addr-file "$tmp/taddr" > /dev/null 2>&1 &
  wait_file "$tmp/taddr"
  (MPE_MONITOR_ADDR=$(cat "$tmp/taddr"); export MPE_MONITOR_ADDR; job mpetop)
  wait
  awk '{print $1 + $2}' "$tmp/ttime" >> "$tmp/mpetop.cpu"
}
unset MPEANIM_ADDR MPE_MONITOR MPE_MONITOR_ADDR
echo "$np ranks, $msgs steps, ${us} us sleep per step, $rounds rounds; $(nproc) cores, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ $i -lt "$rounds" ]; do
  job absent
  with_mpeanim
  (MPE_MONITOR=10; export MPE_MONITOR; job monitor)
  with_mpetop
  i=$((i + 1))
done
for c in absent mpeanim monitor mpetop; do
  echo "$c: loop $(median < "$tmp/$c") s (runs: $(tr '\n' ' ' < "$tmp/$c"))"
done
slow () {  # CASE BASE: median over rounds of CASE / BASE - 1, in %
  paste "$tmp/$1" "$tmp/$2" | awk '{print ($1 / $2 - 1) * 100}' | median
}
cpu () { median < "$tmp/$1.cpu"; }
printf "mpeanim attached vs absent: %+.1f %% (window CPU %s s, X server %s s, %s frames per run)\n" \
  "$(slow mpeanim absent)" "$(cpu mpeanim)" \
  "$(median < "$tmp/mpeanim.xcpu")" "$(median < "$tmp/mpeanim.frames" 2>/dev/null)"
printf "mpetop attached vs monitor without a window: %+.1f %% (window CPU %s s per run)\n" \
  "$(slow mpetop monitor)" "$(cpu mpetop)"
printf "monitor at 10 Hz vs absent: %+.1f %%; mpetop attached vs absent: %+.1f %%\n" \
  "$(slow monitor absent)" "$(slow mpetop absent)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
