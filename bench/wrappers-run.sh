#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: wrappers-run.sh MPIEXEC PINGPONG LIBLMPE_SO [ROUNDTRIPS] [RUNS]
# Median round-trip time of an 8-byte ping-pong plain, with liblmpe
# preloaded, and preloaded after MPI_Pcontrol(0); added ns per MPI call =
# (round trip difference) / 2, as each rank makes 2 calls per round trip.
mpiexec=$1 prog=$2 lib=$3 n=${4:-1000000} runs=${5:-5}
libdirs=$(dirname "$lib")
for d in ../../logfmt/.libs ../../anim/client/.libs; do
  [ -d "$libdirs/$d" ] && libdirs="$libdirs:$libdirs/$d"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
median () { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
run () {  # label, env...
  label=$1; shift
  i=0
  while [ $i -lt "$runs" ]; do
    env "$@" MPE_LOGFILE_PREFIX="$tmp/bench" timeout 600 \
      "$mpiexec" -n 2 "$prog" "$n" | awk '/ns_per_roundtrip/ {print $2}'
    i=$((i + 1))
  done > "$tmp/$label"
  median < "$tmp/$label"
}
plain=$(run plain X=1)
wrap=$(run wrap LD_LIBRARY_PATH="$libdirs" LD_PRELOAD="$lib")
off=$(run off LD_LIBRARY_PATH="$libdirs" LD_PRELOAD="$lib" MPE_BENCH_PCONTROL=0)
echo "round trips: $n, runs: $runs (medians), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "plain:            $plain ns/roundtrip"
echo "liblmpe:          $wrap ns/roundtrip  (+$(echo "$wrap $plain" | awk '{printf "%.1f", ($1-$2)/2}') ns/call)"
echo "liblmpe+Pcontrol0: $off ns/roundtrip  (+$(echo "$off $plain" | awk '{printf "%.1f", ($1-$2)/2}') ns/call)"
