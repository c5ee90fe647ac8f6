#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# `make bench-anim`: mpeanim's benchmarks (docs/benchmarks/anim.md).
# Needs Xvfb (xvfb-run) for the latency run.
b=${top_builddir:-.}
anim=$b/anim/src/mpeanim
feed=$b/tests/anim/anim-feed
tmp=$(mktemp -d "${TMPDIR:-/tmp}/animbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

echo "== frame rate, 256 processes, 10,000 messages in flight"
"$b/bench/anim-render" --procs 256 --inflight 10000 --frames 300 --runs 5

median () { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ns_per_record () {
  # One rank, one thread, 1,000,000 records as fast as possible.
  for i in 1 2 3 4 5; do
    "$feed" --ranks 1 --msgs 250000 "$@" | sed -n 's/.*, \([0-9.]*\) ns\/record/\1/p'
  done | median
}
echo "== cost per record on the rank (median of 5, ns)"
echo "no client (tap unset):          $(ns_per_record --no-client)"
echo "client, window gone (refused):  $(ns_per_record --addr tcp://127.0.0.1:9/00000000000000000000000000000000 2>/dev/null)"

cat > "$tmp/live.sh" <<'EOS'
anim=$1 feed=$2 tmp=$3; shift 3
"$anim" --latency --exit-after-job --addr-file "$tmp/addr" \
  --stats-out "$tmp/stats" > /dev/null 2>&1 &
i=0; while [ ! -s "$tmp/addr" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
. "$tmp/addr"
"$feed" --addr "$MPEANIM_ADDR" "$@" > "$tmp/feed.out"
wait
EOS
echo "== client, window attached (median of 5, ns per record)"
for i in 1 2 3 4 5; do
  rm -f "$tmp/addr"
  xvfb-run -a sh "$tmp/live.sh" "$anim" "$feed" "$tmp" --ranks 1 --msgs 250000
  sed -n 's/.*, \([0-9.]*\) ns\/record/\1/p' "$tmp/feed.out"
done | median

echo "== latency send -> first frame showing it, 16 ranks x 625 msg/s (10,000/s), 5 s"
for i in 1 2 3; do
  rm -f "$tmp/addr" "$tmp/stats"
  timeout 120 xvfb-run -a sh "$tmp/live.sh" "$anim" "$feed" "$tmp" \
    --ranks 16 --msgs 3125 --rate 625 --quiet
  tr '\n' ' ' < "$tmp/stats" | sed 's/.*messages=\([0-9]*\).*dropped=\([0-9]*\).*frames=\([0-9]*\).*latency_n=\([0-9]*\) latency_p50_ms=\([0-9.]*\) latency_p99_ms=\([0-9.]*\) latency_max_ms=\([0-9.]*\).*/messages \1, dropped \2, frames \3, dots timed \4: p50 \5 ms, p99 \6 ms, max \7 ms/'
  echo
done

echo "== MPI ring, mpiexec -n 4, libampe, 1000 messages per rank (median of 3 loop times, s)"
ring=$b/tests/anim/anim-mpi-ring
mpx=${MPIEXEC:-mpiexec}
ring_run () {
  for i in 1 2 3; do
    MPE_LOGFILE_PREFIX=$tmp/ring timeout 300 $mpx -n 4 "$ring" 1000 2>/dev/null |
      sed -n 's/^loop_s=//p'
  done | median
}
unset MPEANIM_ADDR
echo "window absent (MPEANIM_ADDR unset): $(ring_run)"
export MPEANIM_ADDR=tcp://127.0.0.1:9/00000000000000000000000000000000
echo "window gone (refused address):      $(ring_run)"
unset MPEANIM_ADDR
cat > "$tmp/ring.sh" <<'EOS'
anim=$1 ring=$2 tmp=$3 mpx=$4
for i in 1 2 3; do
  rm -f "$tmp/addr"
  "$anim" --exit-after-job --addr-file "$tmp/addr" > /dev/null 2>&1 &
  j=0; while [ ! -s "$tmp/addr" ] && [ $j -lt 100 ]; do sleep 0.1; j=$((j+1)); done
  . "$tmp/addr"; export MPEANIM_ADDR
  MPE_LOGFILE_PREFIX=$tmp/ring timeout 300 $mpx -n 4 "$ring" 1000 2>/dev/null |
    sed -n 's/^loop_s=//p'
  wait
done
EOS
echo "window attached (Xvfb):             $(xvfb-run -a sh "$tmp/ring.sh" "$anim" "$ring" "$tmp" "$mpx" | median)"
