#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One clock correction: the log `clogtool recover` rebuilds from a run's
# kept local files (MPE_DELETE_LOCALFILE=no) has exactly the finished
# log's events and timestamps, with clocks skewed per rank (rank x 30 ms)
# and corrected over two sync segments; the logger spilling itself and
# write-behind.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
# The logger spilling itself, and write-behind (frames written with
# direct I/O at block boundaries, PAD frames around them).
for th in no write; do
rm -rf "$MPE_TMPDIR"/*
MPE_TEST_CLOCK_SKEW_NS=30000000 MPE_DELETE_LOCALFILE=no MPE_BUFFER_MB=1 \
  MPE_SPILL_THREAD=$th run 3 $B/tests/mpe/syncstates 60000
ok $? "$th: 3 ranks with skewed clocks, local files kept"
is "$th: finished log: every begin of rank 2" "$(val syncstates.clog count 2 0 600)" 60000
is "$th: three spill files kept" "$(ls "$MPE_TMPDIR" | grep -c '\.spill$')" 3
$CLOGTOOL recover "$MPE_TMPDIR" -o rec.clog > rec.txt 2>&1
ok $? "$th: clogtool recover on the kept files"
is "$th: recover: every rank finished normally" \
  "$(grep -c 'finished normally' rec.txt)" 3
grep -q 'damaged' rec.txt; [ $? -ne 0 ]; ok $? "$th: no damaged frame"
# The run spilled (PACKED frames) and kept its last records in memory (RAW
# frames written at the end): both paths of recovery are compared.
grep -q 'in-memory events saved' rec.txt; ok $? "$th: memory records in the kept files"
$CLOGTOOL print --tsv syncstates.clog > fin.tsv 2>&1; ok $? "$th: print the finished log"
$CLOGTOOL print --tsv rec.clog > rec.tsv 2>&1; ok $? "$th: print the recovered log"
is "$th: same number of events" "$(wc -l < rec.tsv)" "$(wc -l < fin.tsv)"
cmp -s fin.tsv rec.tsv; r=$?
ok $r "$th: same events with the same timestamps"
[ $r -eq 0 ] || diff fin.tsv rec.tsv | head -10 | sed 's/^/#   /'
done
finish
