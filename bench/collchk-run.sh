#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# usage: collchk-run.sh MPIEXEC PROG LIBMPE_COLLCHK_SO [NP] [LOOPS] [RUNS]
# Medians over RUNS of microseconds per call of small collectives on NP
# ranks, plain and with libmpe_collchk preloaded (interleaved runs).
mpiexec=$1 prog=$2 lib=$3 np=${4:-4} n=${5:-20000} runs=${6:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ccbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
once () {  # label env...
  label=$1; shift
  env "$@" timeout 900 "$mpiexec" -n "$np" "$prog" "$n" 2>/dev/null \
    | awk -v d="$tmp" -v l="$label" '/^us_per/ {print $3 >> (d "/" l "-" $2)}'
}
median () { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "ranks: $np, calls per loop: $n, runs: $runs (medians), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ $i -lt "$runs" ]; do
  once plain X=1
  once check LD_PRELOAD="$lib"
  i=$((i + 1))
done
printf '%-14s %10s %10s %10s\n' call plain_us checked_us added_us
for c in MPI_Barrier MPI_Bcast MPI_Allreduce MPI_Alltoallv MPI_Iallreduce; do
  p=$(median < "$tmp/plain-$c") k=$(median < "$tmp/check-$c")
  printf '%-14s %10s %10s %10s\n' "$c" "$p" "$k" \
    "$(echo "$k $p" | awk '{printf "%+.2f", $1 - $2}')"
done
