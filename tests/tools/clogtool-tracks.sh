#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A file with extension tracks (FORMAT.md section 14) is still a sound
# .clog to every tool: verify passes and the state statistics equal those
# of the same events written without tracks.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"

"$top_builddir/tests/logfmt/test-tracks" "$tap_tmp" \
  || bail "test-tracks could not write the logs"
with=$tap_tmp/tracks.clog
without=$tap_tmp/notracks.clog
[ "$(wc -c <"$with")" -gt "$(wc -c <"$without")" ]
ok $? "the tracks take room in the file"

run 0 "verify a file with tracks" "$clogtool" verify "$with"
grep -qx "$with: OK" "$tap_tmp/out"; ok $? "says OK"

for fmt in "" --json; do
  "$clogtool" stats $fmt "$with" 2>&1 | sed "s|$with|F|g" >"$tap_tmp/a"
  "$clogtool" stats $fmt "$without" 2>&1 | sed "s|$without|F|g" \
    | sed -e 's/"file_size": [0-9]*/"file_size": X/' -e 's/, [0-9]* bytes$/, N bytes/' >"$tap_tmp/b"
  sed -i -e 's/"file_size": [0-9]*/"file_size": X/' -e 's/, [0-9]* bytes$/, N bytes/' "$tap_tmp/a"
  grep -q Compute "$tap_tmp/a"; ok $? "stats $fmt lists the state"
  if cmp -s "$tap_tmp/a" "$tap_tmp/b"; then ok 0 "stats $fmt: identical"
  else ok 1 "stats $fmt: identical"; diff "$tap_tmp/a" "$tap_tmp/b" | sed 's/^/# /'
  fi
done
finish
