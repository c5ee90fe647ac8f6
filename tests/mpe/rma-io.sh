#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One-sided and MPI-IO data calls (tests/mpe/rma-io.c) under the
# automatic wrappers: each has a colour of its own (not MPI_Reduce's),
# and its end event carries the target rank and the bytes put and got
# (RMA), or the bytes asked to be written or read (MPI-IO).
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
PROG=$B/tests/mpe/rma-io
export MPE_LOGFILE_PREFIX=$PWD/rma

run 2 "$PROG" "$PWD/rma-io.dat"; r=$?
ok $r "the job ran (rc $r)"
[ $r -eq 0 ] || diag "$(cat err.txt)"
# info FUNCTION: rank 0's end event's cargo, as the log's format reads it.
info () {
  $CLOGTOOL query rma.clog "SELECT info FROM events WHERE rank = 0 AND \
kind = 'end' AND name = '$1'" | sed -n 2p
}
is "MPI_Put: 10 doubles to rank 1" "$(info MPI_Put)" "target=1 sent=80 recv=0"
is "MPI_Get: 4 ints from rank 1" "$(info MPI_Get)" "target=1 sent=0 recv=16"
is "MPI_Accumulate: 3 doubles to rank 1" "$(info MPI_Accumulate)" \
  "target=1 sent=24 recv=0"
is "MPI_File_write_at: 1000 bytes" "$(info MPI_File_write_at)" "bytes=1000"
is "MPI_File_read_at: 250 ints" "$(info MPI_File_read_at)" "bytes=1000"
$CLOGTOOL stats --json rma.clog > s.json
colours=$(python3 -c "
import json
s = {d['name']: d['color'] for d in json.load(open('s.json'))['states']}
names = ['MPI_Put', 'MPI_Get', 'MPI_Accumulate', 'MPI_Win_fence',
         'MPI_Win_create', 'MPI_Win_free']
c = [s.get(n) for n in names]
red = s.get('MPI_Reduce', 'MediumPurple')
print(len(set(c)) == len(c) and None not in c and red not in c)")
is "RMA functions: a colour each, none MPI_Reduce's" "$colours" True
# clogtool profile counts them (both ranks: sent, received).
$CLOGTOOL profile --json rma.clog > p.json
bytes () {
  python3 -c "
import json
f = [f for f in json.load(open('p.json'))['functions'] if f['name'] == '$1']
print(f[0]['bytes_sent'], f[0]['bytes_recv']) if f else print('none')"
}
is "profile: MPI_Put's bytes" "$(bytes MPI_Put)" "160 0"
is "profile: MPI_Get's bytes" "$(bytes MPI_Get)" "0 32"
is "profile: MPI_File_write_at's bytes" "$(bytes MPI_File_write_at)" "2000 0"
is "profile: MPI_File_read_at's bytes" "$(bytes MPI_File_read_at)" "0 2000"
finish
