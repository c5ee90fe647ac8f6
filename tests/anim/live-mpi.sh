#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A real MPI job (mpiexec -n 4, linked with libampe) animated live under
# Xvfb: the window sees every message the ranks sent and the log is
# complete; then the window is killed mid-run and the job still finishes
# with a complete log.
. "$top_srcdir/tests/common/tap.sh"

anim=$top_builddir/anim/src/mpeanim
ring=$top_builddir/tests/anim/anim-mpi-ring
T=$tap_tmp

cat > "$T/scenario.sh" <<'EOS'
#!/bin/sh
anim=$1 ring=$2 T=$3
wait_file () {
  i=0
  while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
timeout 90 "$anim" --addr-file "$T/addr1" --stats-out "$T/stats1" \
  --exit-after-job --select 0 --text-out "$T/text1" \
  > /dev/null 2> "$T/anim1.err" &
W=$!
wait_file "$T/addr1"
. "$T/addr1"
export MPEANIM_ADDR
MPE_LOGFILE_PREFIX=$T/run1 timeout 120 ${MPIEXEC:-mpiexec} -n 4 "$ring" 500 \
  > "$T/ring1.out" 2> "$T/ring1.err"
echo $? > "$T/ring1.rc"
wait $W
echo $? > "$T/anim1.rc"

timeout 90 "$anim" --addr-file "$T/addr2" > /dev/null 2> "$T/anim2.err" &
W=$!
wait_file "$T/addr2"
. "$T/addr2"
MPE_LOGFILE_PREFIX=$T/run2 timeout 120 ${MPIEXEC:-mpiexec} -n 4 "$ring" 1500 2000 \
  > "$T/ring2.out" 2> "$T/ring2.err" &
R=$!
# Kill the window once the ranks are connected and sending.
i=0
while ! grep -q connecting "$T/anim2.err" && [ $i -lt 300 ]; do
  sleep 0.1; i=$((i + 1))
done
sleep 0.5
kill -9 $W
wait $R
echo $? > "$T/ring2.rc"
EOS

timeout 300 xvfb-run -a -s "-screen 0 1024x768x24 -noreset" \
  sh "$T/scenario.sh" "$anim" "$ring" "$T"
diag "xvfb-run exit status $?"

get () { sed -n "s/^$1=//p" "$2"; }
test "$(cat "$T/ring1.rc")" = 0; ok $? "mpiexec -n 4 with the window exits 0"
test "$(cat "$T/anim1.rc")" = 0; ok $? "window exits 0 after the job"
test "$(get sent "$T/ring1.out")" = 2000; ok $? "the ring sent 2000 messages"
test "$(get messages "$T/stats1")" = 2000; ok $? "window saw 2000 messages ($(get messages "$T/stats1"))"
test "$(get matched "$T/stats1")" = 2000; ok $? "window matched 2000 receives ($(get matched "$T/stats1"))"
test "$(get clients "$T/stats1")" = 4; ok $? "four ranks connected"
test "$(get ranks_complete "$T/stats1")" = 4; ok $? "every rank's END count matches"
test "$(get dropped "$T/stats1")" = 0; ok $? "no updates dropped"
test "$(get log_sends "$T/ring1.out")" = 2000; ok $? "log holds 2000 sends ($(get log_sends "$T/ring1.out"))"
sed 's/^/text1: /' "$T/text1" | while read -r l; do diag "$l"; done
grep -q '^info: [0-9.]*  begin MPI_' "$T/text1"
ok $? "rank 0's history names the MPI calls"
! grep -q '^info: [0-9.]*  event -*[0-9][0-9]*$' "$T/text1"
ok $? "... and no event by its number"
test "$(cat "$T/ring2.rc")" = 0; ok $? "window killed mid-run: job exits 0"
test "$(get log_sends "$T/ring2.out")" = 6000; ok $? "window killed: log complete, 6000 sends ($(get log_sends "$T/ring2.out"))"
test "$(get log_recvs "$T/ring2.out")" = 6000; ok $? "window killed: 6000 receives in the log"
if [ $tap_failed -ne 0 ]; then
  for f in "$T"/*.err "$T"/*.out; do diag "$f:"; sed 's/^/#   /' "$f" | head -20; done
fi
finish
