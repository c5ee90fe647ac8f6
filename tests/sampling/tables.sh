#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Call-path tables: every sampled rank stores its binaries (with build-id)
# and one tree; a sample that lands while the tree is being changed (forced
# by MPE_TEST_SAMPLE_REENTER) is constructed, not a corrupt tree.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
. "$top_srcdir/tests/sampling/common.sh"

MPE_SAMPLE_HZ=1000 run 2 $HOT 5 5; ok $? "hot runs sampled"
out=$($CPCHECK hot.clog); ok $? "the tables read back"
is "two ranks have tables" "$(echo "$out" | grep -c '^rank .* exe hot build-id yes')" 2
n=$(echo "$out" | awk '/^rank 0 / { print $6 }')
[ "$n" -gt 3 ] 2>/dev/null; ok $? "rank 0's tree has paths ($n nodes)"

# Without sampling or call sites there are no tables.
run 1 $HOT 1 1; ok $? "hot runs unsampled"
is "no tables unsampled" "$($CPCHECK hot.clog | head -1)" "ranks 0"

# Reentry: a sample in the middle of every call-site capture.
MPE_SAMPLE_HZ=1 MPE_TEST_SAMPLE_REENTER=1 run 2 $HOT 1 20
ok $? "hot runs with a sample inside every capture"
out=$($CPCHECK hot.clog); ok $? "the tree is intact"
p=$(echo "$out" | awk '/^rank 0 / { print $12 }')
[ "$p" -ge 1 ] 2>/dev/null; ok $? "constructed contexts recorded ($p)"
c=$($CLOGTOOL cct hot.clog 2>/dev/null | head -1 | sed 's/.*ranks, \([0-9]*\) constructed.*/\1/')
[ "$c" -ge 20 ] 2>/dev/null
ok $? "every capture's sample is a constructed one ($c of 20+ calls)"
$CLOGTOOL cct --json hot.clog 2>/dev/null | python3 -c "
import json, sys
def walk(n):
    own = n['name'] == 'MPI_Barrier' and n['module'] == '[MPI]' and n['self'] > 0
    return own or any(walk(c) for c in n['children'])
sys.exit(0 if walk(json.load(sys.stdin)) else 1)"
ok $? "a constructed context ends in the MPI call in progress (its node)"
finish
