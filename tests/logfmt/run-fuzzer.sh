#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds the libFuzzer reader target with clang (ASan+UBSan) and runs it.
#   tests/logfmt/run-fuzzer.sh [SECONDS] [JOBS]   (default 60 s, 1 job)
# New interesting inputs land in $WORK/corpus; crashes in $WORK.
set -e
secs=${1:-60}
jobs=${2:-1}
src=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${WORK:-/tmp/logfmt-fuzz}
mkdir -p "$WORK/corpus"
cp -n "$src"/tests/logfmt/corpus/* "$WORK/corpus/" 2>/dev/null || true
printf '#define HAVE_CONFIG_H 1\n' > "$WORK/config.h"
clang -O1 -g -fsanitize=fuzzer,address,undefined -std=gnu11 \
  -I"$WORK" -I"$src" -I"$src/logfmt/include" -I"$src/logfmt/src" \
  -D_GNU_SOURCE -DLOGFMT_BUILDING $(pkg-config --cflags libzstd) \
  "$src"/tests/logfmt/fuzz-reader.c "$src"/logfmt/src/logfmt-*.c \
  "$src"/logfmt/src/import-clog1.c "$src"/logfmt/src/import-clog2.c \
  $(pkg-config --libs libzstd) -lm -o "$WORK/fuzz-reader"
cd "$WORK"
./fuzz-reader -max_total_time="$secs" -jobs="$jobs" -workers="$jobs" \
  -max_len=65536 -rss_limit_mb=2048 corpus
