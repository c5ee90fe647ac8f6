#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Communicators made by Comm_split_type and Comm_split while logging is
# off, then used: arrows between the right world ranks.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/wrappers/wlib.sh"
wrun 4 "$wb/wprog-log" splittype; ok $? "splittype runs on 4 ranks"
wlog; ok $? "log reads back"
# half = parity, ordered by descending world rank: {2,0} and {3,1}.
has "send 0 2 7 4 1" "even half: local 1 (world 0) -> local 0 (world 2)"
has "recv 2 0 7 4 1"
has "send 1 3 7 4 1" "odd half: world 1 -> world 3"
has "recv 3 1 7 4 1"
# node = everyone, local rank = world rank.
has "send 1 0 8 8 1" "node comm: world 1 -> world 0"
has "recv 0 1 8 8 1" "wildcard on the node comm resolved to world 1"
has "send 0 2 9 4 1" "dup of the half: world 0 -> world 2"
has "send 2 0 9 4 1"
has "send 1 3 9 4 1"
has "send 3 1 9 4 1"
hasnt "^state MPI_Comm_split_type" "split_type itself not logged (off)"
hasnt "^state MPI_Comm_split " "split not logged (off)"
has "total MPI_Comm_dup 4"
has "total MPI_Comm_free 12"
has "messages 7 0"
# Every communicator defined, with its members in local-rank order, though
# only the lowest member of one that every member made sends it: world
# and the node communicator (both everyone), the halves (their dups share
# their ids: the id comes from the members).
n=$(count '^commdef 1 4 0 1 2 3$'); test "$n" = 2
ok $? "world and the node communicator defined ($n)"
has "commdef 1 2 2 0" "even half defined: world 2, 0"
has "commdef 1 2 3 1" "odd half defined: world 3, 1"
nesting_ok
finish
