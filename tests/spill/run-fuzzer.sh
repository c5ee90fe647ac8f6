#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds one of the recovery / live-window fuzz targets with clang's
# libFuzzer (ASan+UBSan) and runs it from its committed corpus.
#   tests/spill/run-fuzzer.sh spill|ring|wire [SECONDS]   (default 60 s)
# New inputs land in $WORK/corpus, crashes in $WORK; fuzzer.log has the
# figures (execs, coverage).
set -e
what=${1:?spill, ring or wire}
secs=${2:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${WORK:-/tmp/fuzz-$what}
mkdir -p "$WORK/corpus"
printf '#define HAVE_CONFIG_H 1\n' > "$WORK/config.h"
CC="${CLANG:-clang} -O1 -g -fsanitize=fuzzer,address,undefined
  -fno-sanitize-recover=undefined -std=gnu11 -D_GNU_SOURCE -I$WORK -I$src"
case $what in
  spill|ring)
    cp -n "$src"/tests/spill/corpus-$what/* "$WORK/corpus/" 2>/dev/null || :
    $CC -I"$src/spill" -I"$src/logfmt/include" -I"$src/logfmt/src" \
      -DLOGFMT_BUILDING $(pkg-config --cflags libzstd) \
      "$src/tests/spill/fuzz-$what.c" "$src"/spill/*.c \
      "$src"/logfmt/src/logfmt-*.c "$src"/logfmt/src/import-clog1.c \
      "$src"/logfmt/src/import-clog2.c $(pkg-config --libs libzstd) -lm \
      -o "$WORK/fuzz-$what"
    max=65536 ;;
  wire)
    cp -n "$src"/tests/anim/corpus-wire/* "$WORK/corpus/" 2>/dev/null || :
    $CC "$src/tests/anim/fuzz-wire.c" "$src/anim/src/anim-wire.c" \
      -o "$WORK/fuzz-$what"
    max=8192 ;;
  *) echo "run-fuzzer.sh: spill, ring or wire" >&2; exit 2 ;;
esac
cd "$WORK"
./fuzz-$what -max_total_time="$secs" -max_len=$max -rss_limit_mb=2048 \
  -print_final_stats=1 corpus 2>&1 | tee fuzzer.log | grep -v '^#[0-9]*.*pulse'
