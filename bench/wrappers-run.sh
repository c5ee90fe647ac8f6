#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: wrappers-run.sh MPIEXEC PINGPONG LIBLMPE_SO [ROUNDTRIPS] [RUNS]
# Medians over RUNS of: the 8-byte ping-pong on 2 ranks (round trip; added
# ns per MPI call = round-trip difference / 2, each rank making 2 calls per
# round trip) and the 1-rank Irecv/Send/Wait-to-self loop (ns per call),
# each plain, with liblmpe preloaded, and preloaded after MPI_Pcontrol(0).
mpiexec=$1 prog=$2 lib=$3 n=${4:-1000000} runs=${5:-5}
libdirs=$(dirname "$lib")
for d in ../../logfmt/.libs; do
  [ -d "$libdirs/$d" ] && libdirs="$libdirs:$libdirs/$d"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
median () { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
once () {  # label np mode env...: one run, appended to $tmp/label
  label=$1 np=$2 mode=$3; shift 3
  env "$@" MPE_LOGFILE_PREFIX="$tmp/bench" timeout 900 \
    "$mpiexec" -n "$np" "$prog" "$n" $mode 2>/dev/null \
    | awk '/^ns_per/ {print $2}' >> "$tmp/$label"
}
result () {  # label: prints the median, lists the runs on stderr
  echo "# $1: $(tr '\n' ' ' < "$tmp/$1")" >&2
  median < "$tmp/$1"
}
add () { echo "$1 $2 $3" | awk '{printf "%+.1f", ($1 - $2) / $3}'; }
pre="LD_LIBRARY_PATH=$libdirs"
echo "round trips/loops: $n, runs: $runs (medians), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# Interleaved: the VM's speed drifts over minutes, so each round runs
# every configuration once.
i=0
while [ $i -lt "$runs" ]; do
  once pp-plain 2 "" X=1
  once pp-lmpe 2 "" "$pre" LD_PRELOAD="$lib"
  once pp-off 2 "" "$pre" LD_PRELOAD="$lib" MPE_BENCH_PCONTROL=0
  once self-plain 1 self X=1
  once self-lmpe 1 self "$pre" LD_PRELOAD="$lib"
  once self-off 1 self "$pre" LD_PRELOAD="$lib" MPE_BENCH_PCONTROL=0
  i=$((i + 1))
done
p0=$(result pp-plain); p1=$(result pp-lmpe); p2=$(result pp-off)
s0=$(result self-plain); s1=$(result self-lmpe); s2=$(result self-off)
# Median of the per-round differences: the round trip is bimodal on some
# VMs (it can switch between rounds), and a round's runs share a mode far
# more often than the medians of whole columns do.
paired () {  # label base divisor
  paste "$tmp/$1" "$tmp/$2" | awk -v d="$3" '{print ($1 - $2) / d}' \
    | median | awk '{printf "%+.1f", $1}'
}
echo "ping-pong plain          $p0 ns/round trip"
echo "ping-pong liblmpe        $p1 ns/round trip ($(add "$p1" "$p0" 2) ns/call; paired $(paired pp-lmpe pp-plain 2))"
echo "ping-pong Pcontrol(0)    $p2 ns/round trip ($(add "$p2" "$p0" 2) ns/call; paired $(paired pp-off pp-plain 2))"
echo "self loop plain          $s0 ns/call"
echo "self loop liblmpe        $s1 ns/call ($(add "$s1" "$s0" 1) ns/call; paired $(paired self-lmpe self-plain 1))"
echo "self loop Pcontrol(0)    $s2 ns/call ($(add "$s2" "$s0" 1) ns/call; paired $(paired self-off self-plain 1))"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
