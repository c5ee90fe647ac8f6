#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool recover matches messages as the merge does, at any size: a run
# of 1.1 million messages on 4 keys (275,000 waiting on each, far above
# any bounded queue) keeps its local files; the log recover rebuilds
# from them has the finished log's message table, and both verify.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
N=1100000
rm -rf "$MPE_TMPDIR"/*
MPE_DELETE_LOCALFILE=no run 2 $B/tests/mpe/msgmany $N
ok $? "msgmany: $N messages, local files kept"
is "finished: every message matched" "$(val msgmany.clog matched)" $N
is "finished: none unmatched" "$(val msgmany.clog unmatched)" 0
$CLOGTOOL recover "$MPE_TMPDIR" -o rec.clog > rec.txt 2>&1; ok $? "recover"
is "recovered: every message matched" "$(val rec.clog matched)" $N
is "recovered: none unmatched" "$(val rec.clog unmatched)" 0
is "recovered: as many messages" "$(val rec.clog messages)" "$(val msgmany.clog messages)"
$CLOGTOOL verify msgmany.clog > v1.txt 2>&1; ok $? "finished log verifies"
$CLOGTOOL verify rec.clog > v2.txt 2>&1; ok $? "recovered log verifies"
sed 's/^/#   /' v2.txt | head -5
finish
