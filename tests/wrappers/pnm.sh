#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPE_LOG_RANK2PROCNAME: rank 0's true value makes MPI_Finalize write
# <log>.pnm, one "Rank r : processor name" line per rank; nothing without
# it; a value that is not a boolean is named in a warning and ignored.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
host=$(hostname)
MPE_LOG_RANK2PROCNAME=yes wrun 3 "$wb/wprog-log" ring; ok $? "ring runs with MPE_LOG_RANK2PROCNAME=yes"
f=$(ls "$tap_tmp"/log*.pnm 2>/dev/null | head -1)
test -n "$f"; ok $? "a .pnm file is written next to the log"
test "$f" = "$(ls "$tap_tmp"/log*.clog).pnm"; ok $? "named <log>.pnm"
printf 'Rank 0 : %s\nRank 1 : %s\nRank 2 : %s\n' "$host" "$host" "$host" > "$tap_tmp/want"
cmp -s "$tap_tmp/want" "$f"; ok $? "one line per rank with its processor name"
MPE_LOG_RANK2PROCNAME=false wrun 2 "$wb/wprog-log" ring; ok $? "runs with false"
! ls "$tap_tmp"/log*.pnm > /dev/null 2>&1; ok $? "false: no .pnm"
MPE_LOG_RANK2PROCNAME=maybe wrun 2 "$wb/wprog-log" ring; ok $? "runs with a bad value"
! ls "$tap_tmp"/log*.pnm > /dev/null 2>&1; ok $? "bad value: no .pnm"
grep -q "MPE_LOG_RANK2PROCNAME=maybe is not true/yes/false/no" "$tap_tmp/run.err"
ok $? "bad value: a warning names it"
finish
