#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds a libFuzzer target with clang (ASan+UBSan) and runs it.
#   tests/logfmt/run-fuzzer.sh [SECONDS] [JOBS] [TARGET]
# (default 60 s, 1 job, reader).  Targets:
#   reader         .clog images through the reader (fuzz-reader.c)
#   reader-fixcrc  the same, each input also with its checksums recomputed
#   chunk          one chunk of a sound template log at a time, checksums
#                  recomputed (fuzz-chunk.c): every chunk type's decoder
#   mpe2           the CLOG2 and CLOG v1 importers (tests/interop)
# New interesting inputs land in $WORK/corpus-TARGET; crashes in $WORK.
set -e
secs=${1:-60}
jobs=${2:-1}
target=${3:-reader}
src=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${WORK:-/tmp/logfmt-fuzz}
corpus=$WORK/corpus-$target
mkdir -p "$corpus"
fixcrc=0
extra=
case $target in
  reader|reader-fixcrc)
    main="$src/tests/logfmt/fuzz-reader.c"
    [ "$target" = reader-fixcrc ] && fixcrc=1
    cp -n "$src"/tests/logfmt/corpus/* "$src"/tests/tools/damaged/* \
      "$corpus/" 2>/dev/null || true ;;
  chunk)
    main="$src/tests/logfmt/fuzz-chunk.c"
    # Inputs cover a whole chunk payload at once, not a growing prefix.
    extra=-len_control=0
    cp -n "$src"/tests/logfmt/corpus/* "$corpus/" 2>/dev/null || true ;;
  mpe2)
    main="$src/tests/interop/fuzz-clog2.c"
    cp -n "$src"/tests/interop/corpus/* "$corpus/" 2>/dev/null || true ;;
  *) echo "run-fuzzer.sh: unknown target $target" >&2; exit 2 ;;
esac
printf '#define HAVE_CONFIG_H 1\n' > "$WORK/config.h"
clang -O1 -g -fsanitize=fuzzer,address,undefined -std=gnu11 \
  -I"$WORK" -I"$src" -I"$src/logfmt/include" -I"$src/logfmt/src" \
  -D_GNU_SOURCE -DLOGFMT_BUILDING $(pkg-config --cflags libzstd) \
  "$main" "$src"/tests/logfmt/fuzz-exercise.c \
  "$src"/tests/logfmt/fix-checksums.c "$src"/logfmt/src/logfmt-*.c \
  "$src"/logfmt/src/import-clog1.c "$src"/logfmt/src/import-clog2.c \
  "$src"/logfmt/src/export-clog2.c \
  $(pkg-config --libs libzstd) -lm -lpthread -o "$WORK/fuzz-$target"
cd "$WORK"
# One job runs in the foreground (its log on stderr); more write
# fuzz-N.log files here.
par=
[ "$jobs" -gt 1 ] && par="-jobs=$jobs -workers=$jobs"
LOGFMT_FUZZ_FIX_CHECKSUMS=$fixcrc ./fuzz-"$target" -max_total_time="$secs" \
  $par $extra -max_len=65536 -rss_limit_mb=2048 "$corpus"
