#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPE_CONFIG and the plugin ABI: the example plugin sees every wrapped
# call (pre and post), the instrumentation points and the timer samples;
# the configuration file sets what the environment does not.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
. "$top_srcdir/tests/sampling/common.sh"

cat > mpe.conf <<CONF
# a comment, then settings in both spellings
plugin = $PLUGIN
sample_hz = 400
MPE_COUNT_ONLY = MPI_Barrier
not a setting
CONF
MPE_CONFIG=$PWD/mpe.conf run 2 $HOT 5 7; ok $? "hot runs with the plugin"
for rk in 0 1; do
  line=$(grep "^plugin-count: rank $rk:" err.txt)
  case $line in *" MPI_Barrier=7"*) ok 0 "rank $rk: 7 barriers" ;;
    *) ok 1 "rank $rk: 7 barriers"; diag "$line" ;; esac
  calls=$(echo "$line" | sed 's/.* calls \([0-9]*\) .*/\1/')
  posts=$(echo "$line" | sed 's/.* posts \([0-9]*\) .*/\1/')
  points=$(echo "$line" | sed 's/.* points \([0-9]*\).*/\1/')
  timer=$(echo "$line" | sed 's/.* timer \([0-9]*\) .*/\1/')
  is "rank $rk: a post per pre" "$posts" "$calls"
  is "rank $rk: a trigger per instrumentation point" "$points" "$calls"
  [ "$timer" -gt 0 ] 2>/dev/null; ok $? "rank $rk: timer triggers ($timer)"
done
grep -q "mpe.conf:5: not \"key = value\"; ignored" err.txt
ok $? "a bad line is reported with its number"

# The environment wins over the file: no sampling, so no timer triggers.
MPE_SAMPLE_HZ=0 MPE_CONFIG=$PWD/mpe.conf run 2 $HOT 5 3
ok $? "hot runs with MPE_SAMPLE_HZ=0 in the environment"
is "environment wins: no timer triggers" \
  "$(grep -c '^plugin-count: rank .*timer 0 ' err.txt)" 2

# MPE_PLUGINS alone, and a plugin that is not there.
MPE_PLUGINS=$PLUGIN:/nonexistent/x.so run 1 $HOT 1 2
ok $? "a missing plugin does not stop the program"
grep -q "cannot load plugin /nonexistent/x.so" err.txt
ok $? "the missing plugin is named"
grep -q "MPI_Barrier=2" err.txt; ok $? "MPE_PLUGINS loads the plugin"
finish
