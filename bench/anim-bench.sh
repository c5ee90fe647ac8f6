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
  xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" sh "$tmp/live.sh" "$anim" "$feed" "$tmp" --ranks 1 --msgs 250000
  sed -n 's/.*, \([0-9.]*\) ns\/record/\1/p' "$tmp/feed.out"
done | median

echo "== latency send -> first frame showing it, 16 ranks x 625 msg/s (10,000/s), 5 s"
for i in 1 2 3; do
  rm -f "$tmp/addr" "$tmp/stats"
  timeout 120 xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" sh "$tmp/live.sh" "$anim" "$feed" "$tmp" \
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
echo "window attached (Xvfb):             $(xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" sh "$tmp/ring.sh" "$anim" "$ring" "$tmp" "$mpx" | median)"

echo "== window CPU (getrusage) at about 150,000 updates/s: 4 ranks x 9,375 msg/s x 4 records, 4 s"
for i in 1 2 3; do
  rm -f "$tmp/addr" "$tmp/stats"
  timeout 120 xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" sh "$tmp/live.sh" "$anim" "$feed" "$tmp" \
    --ranks 4 --msgs 37500 --rate 9375 2>/dev/null
  secs=$(sed -n 's/.*records in \([0-9.]*\) s.*/\1/p' "$tmp/feed.out" | sort -n | tail -1)
  cpu=$(sed -n 's/^cpu_s=//p' "$tmp/stats")
  rec=$(sed -n 's/^records=//p' "$tmp/stats")
  drop=$(sed -n 's/^dropped=//p' "$tmp/stats")
  fr=$(sed -n 's/^frames=//p' "$tmp/stats")
  echo "$cpu $secs $rec $drop $fr" | awk '{printf "window CPU %.2f s over %.2f s of job = %.1f%% of a core; %d records (%.0f/s), %d dropped, %d frames\n", $1, $2, 100 * $1 / $2, $3, $3 / $2, $4, $5}'
done

echo "== mpetop window CPU at 10 samples/s of 256 ranks, 10 s (a fake job)"
top=$b/top/mpetop
cat > "$tmp/fakejob.py" <<'EOS'
import socket, sys, time
addr = open(sys.argv[1]).read().strip()
hostport, token = addr[len("tcp://"):].rsplit("/", 1)
host, port = hostport.rsplit(":", 1)
s = socket.create_connection((host, int(port)))
s.sendall(("hello 1 %s 256 16 10\nmetric 4294901760 events records\n" % token).encode())
s.sendall("".join("node %d %d n%d\n" % (r, r // 16, r // 16) for r in range(256)).encode())
t0 = time.monotonic()
for k in range(100):
    slots = " ".join("%d:%d:%d:%d:%d:%d:1" % (r, k * (r + 1), k * (r + 1), k * (r + 1), r, r) for r in range(256))
    s.sendall(("sample %d %d 1000000 1 -1 4294901760 256 256 %s\n" % (k, int((time.monotonic() - t0) * 1e9), slots)).encode())
    time.sleep(max(0, t0 + (k + 1) * 0.1 - time.monotonic()))
s.sendall(b"stats 100 100 0 0\nbye\n")
s.close()
EOS
cat > "$tmp/top.sh" <<'EOS'
top=$1 tmp=$2
rm -f "$tmp/taddr"
/usr/bin/time -f "%U %S %e" -o "$tmp/ttime" "$top" --exit-after-job --addr-file "$tmp/taddr" > /dev/null 2>&1 &
j=0; while [ ! -s "$tmp/taddr" ] && [ $j -lt 100 ]; do sleep 0.1; j=$((j+1)); done
python3 "$tmp/fakejob.py" "$tmp/taddr"
wait
EOS
if [ -x "$top" ]; then
  for i in 1 2 3; do
    timeout 60 xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" sh "$tmp/top.sh" "$top" "$tmp"
    awk '{printf "mpetop window CPU %.2f s over %.1f s = %.1f%% of a core\n", $1 + $2, $3, 100 * ($1 + $2) / $3}' "$tmp/ttime"
  done
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
