#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpetop's listener against silent neighbours: its --addr-file is its
# owner's alone from the start; a peer that never says hello is hung up
# on; and a job still gets in, and is watched, while more silent peers
# than mpetop keeps pending hold their connections open.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
TOP=$B/top/mpetop
PROG=$B/tests/mpe/monitor-prog
export MPE_LOGFILE_PREFIX=listener
command -v python3 > /dev/null || skip_all "python3 is needed"

umask 022
timeout 150 $TOP --batch 3 --level process --addr-file addr \
  --record rec.txt > top.txt 2> top.err &
top_pid=$!
i=0; while [ ! -s addr ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
test -s addr || bail "mpetop wrote no address"
is "--addr-file is mode 600 under umask 022" "$(stat -c %a addr)" 600
port=$(sed 's,.*:\([0-9]*\)/.*,\1,' addr)

# One silent peer: mpetop closes it (before, it waited for its hello
# for ever and took nobody else meanwhile).
python3 - "$port" > idle.txt 2>&1 <<'EOP'
import socket, sys
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
s.settimeout(60)
try:
    print('closed' if s.recv(1) == b'' else 'data')
except socket.timeout:
    print('open')
EOP
is "a silent peer is hung up on" "$(cat idle.txt)" closed
grep -q "no hello within" top.err; ok $? "... saying why"

# 40 silent peers hold on while the job starts.
python3 - "$port" > flood.txt 2>&1 <<'EOP' &
import os, socket, sys, time
conns = [socket.create_connection(('127.0.0.1', int(sys.argv[1])))
         for _ in range(40)]
open('flood.ready', 'w').close()
for _ in range(1500):
    if os.path.exists('flood.done'):
        break
    time.sleep(0.1)
print(len(conns))
EOP
flood=$!
i=0; while [ ! -e flood.ready ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
MPE_MONITOR=50 MPE_MONITOR_ADDR=$(cat addr) run 2 $PROG steady 300
ok $? "the job runs"
wait $top_pid
ok $? "mpetop printed its tables and ended"
touch flood.done
wait $flood
n=$(grep -c '^sample ' rec.txt)
test "$n" -ge 3; ok $? "mpetop watched the job ($n samples)"
grep -q "cannot reach the monitor window" err.txt; test $? -ne 0
ok $? "the job reached mpetop"
finish
