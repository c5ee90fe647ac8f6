#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A monitor window that stops reading never stalls the job: a fake
# window (a small receive buffer and segment size, so the job's socket
# fills after some 50 KB) takes the hello, answers "ready", asks
# for samples as fast as they come, then reads nothing more and keeps
# the connection open.  The job ends by itself, says how many lines the
# window missed, and its log is whole.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
PROG=$B/tests/mpe/monitor-prog
export MPE_LOGFILE_PREFIX=stalled
command -v python3 > /dev/null || skip_all "python3 is needed"

python3 - > win.txt 2>&1 <<'EOP' &
import os, socket, time
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
# The job's send buffer is sized from the segment size (64 KB segments
# on loopback give it megabytes): small segments keep it small.
l.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
l.bind(('127.0.0.1', 0))
l.listen(1)
tok = os.urandom(16).hex()
with open('addr.tmp', 'w') as f:
    f.write('tcp://127.0.0.1:%d/%s\n' % (l.getsockname()[1], tok))
os.rename('addr.tmp', 'addr')
l.settimeout(120)
s, _ = l.accept()
s.settimeout(120)
got = b''
while b'\n' not in got:
    got += s.recv(1)
s.sendall(b'want 0 -1 4294901760\nhz 2000\nready\n')
print('hello' if got.startswith(b'hello 1 ' + tok.encode()) else 'bad')
for _ in range(1500):          # holds on, reading nothing, until told
    if os.path.exists('done'):
        break
    time.sleep(0.1)
EOP
win=$!
i=0; while [ ! -s addr ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
test -s addr || bail "the fake window wrote no address"
MPE_MONITOR=2000 MPE_MONITOR_POLL_US=1 MPE_MONITOR_ADDR=$(cat addr) \
  run 4 $PROG steady 600
rc=$?
touch done
wait $win
is "the job ends by itself with the window stalled" "$rc" 0
is "the window got the job's hello" "$(head -1 win.txt)" hello
grep "lines were not sent" err.txt > dropped.txt
ok $? "the job says the window missed lines: $(cat dropped.txt)"
$CLOGTOOL verify stalled.clog > verify.txt 2>&1
ok $? "the log is written and verifies"
finish
