#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool stats against counts computed independently from print output.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"

log=$tap_tmp/synth.clog
gen_log "$log" 3 2 3000 42

run 0 "stats --json" "$clogtool" stats --json "$log"
cp "$tap_tmp/out" "$tap_tmp/stats.json"
$python -c 'import json,sys; json.load(open(sys.argv[1]))' "$tap_tmp/stats.json"
ok $? "stats --json is valid JSON"
run 0 "print --tsv" "$clogtool" print --tsv "$log"
cp "$tap_tmp/out" "$tap_tmp/all.tsv"

# Exact comparisons, done by the Python helper (which emits TAP lines),
# plus figures fixed by the generator's parameters: 3 processes x 2
# threads x 3000 events.
$python "$top_srcdir/tests/tools/check-stats.py" "$tap_tmp/stats.json" \
  "$tap_tmp/all.tsv" $((tap_n + 1)) ranks=3 threads=6 events=18000 \
  lost_events=0 messages.unmatched=0 >"$tap_tmp/py.out" 2>&1
ok $? "stats comparison ran"
sed '$d' "$tap_tmp/py.out"
tap_failed=$((tap_failed + $(grep -c '^not ok' "$tap_tmp/py.out")))
tap_n=$(tail -n 1 "$tap_tmp/py.out")
case $tap_n in *[!0-9]*|'') bail "check-stats.py failed: $(cat "$tap_tmp/py.out")";; esac

# The table names the same figures.
run 0 "stats (table)" "$clogtool" stats "$log"
grep -q '^events      18000 ' "$tap_tmp/out"; ok $? "table: events"
grep -q '^processes   3 ' "$tap_tmp/out"; ok $? "table: processes"

# Same seed, same log; another seed, another one.
gen_log "$tap_tmp/again.clog" 3 2 3000 42
"$clogtool" stats --json "$tap_tmp/again.clog" | sed 1,2d >"$tap_tmp/again.json"
sed 1,2d "$tap_tmp/stats.json" | cmp -s - "$tap_tmp/again.json"
ok $? "gen is deterministic for a seed"
gen_log "$tap_tmp/other.clog" 3 2 3000 43
"$clogtool" print --tsv "$tap_tmp/other.clog" | cmp -s - "$tap_tmp/all.tsv"
[ $? -ne 0 ]; ok $? "another seed gives other events"
finish
