#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The live monitor's checks (tests/mpe/monitor.sh) with the requests
# going down and up a tree instead of round the ring: 4 ranks, fan-out 2,
# so rank 0 has children 1 and 3 and rank 1 has child 2: answers are
# appended or folded on two levels, the manager merges two subtrees, and
# the STOP drains through an inner rank.
NP=4 MPE_MONITOR_SHAPE=tree MPE_MONITOR_FANOUT=2
export NP MPE_MONITOR_SHAPE MPE_MONITOR_FANOUT
exec sh "$top_srcdir/tests/mpe/monitor.sh"
