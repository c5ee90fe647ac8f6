#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Call-site capture cost of two builds of libmpe, interleaved in one run so
# that both see the same load: callsite-cost.c is built once, then each
# round runs it against OLD and NEW with MPE_CALLSITE=off and =caller.
# Prints each configuration's median over the rounds (of the per-run
# medians, thread CPU time) and what capture adds (caller - off).
# Usage: bench/callsite-cost.sh OLD_LIBDIR NEW_LIBDIR [RUNS [N]]
#   LIBDIR: a directory with liblmpe.so, libmpe.so and liblogfmt.so (e.g.
#   a build's mpe/.libs and logfmt/.libs copied together).
set -eu
old=$1 new=$2 runs=${3:-15} n=${4:-200000}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc -O2 "$here/callsite-cost.c" -o "$tmp/cs" -L"$new" -llmpe -lmpe
export MPE_LOGFILE_PREFIX="$tmp/cs"
for r in $(seq "$runs"); do
  for lib in old new; do
    eval dir=\$$lib
    for mode in off caller; do
      LD_LIBRARY_PATH=$dir MPE_CALLSITE=$mode "$tmp/cs" "$n" 5 2>/dev/null |
        awk -v l=$lib '{ print l, $1, $3 }' >> "$tmp/all"
    done
  done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
sort "$tmp/all" | awk '
  { k = $1 " " $2; v[k, ++c[k]] = $3 }
  END {
    for (k in c) {
      # median of c[k] values (insertion sort, small)
      m = c[k]
      for (i = 1; i <= m; i++) a[i] = v[k, i]
      for (i = 2; i <= m; i++) { x = a[i]; j = i - 1
        while (j > 0 && a[j] > x) { a[j + 1] = a[j]; j-- } a[j + 1] = x }
      med[k] = (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
      printf "%s: %.1f ns CPU per call (median of %d runs)\n", k, med[k], m
    }
    printf "capture adds: old %.1f ns, new %.1f ns per call\n",
      med["old caller"] - med["old off"], med["new caller"] - med["new off"]
  }'
