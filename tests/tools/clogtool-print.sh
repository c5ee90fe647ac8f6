#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool print: every filter gives exactly the matching subset of the
# full, time-ordered output.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"

log=$tap_tmp/synth.clog
gen_log "$log" 3 2 2000 7
all=$tap_tmp/all.tsv
run 0 "print everything" "$clogtool" print --tsv "$log"
cp "$tap_tmp/out" "$all"
[ "$(wc -l <"$all")" -eq 12000 ]; ok $? "12000 lines (3 x 2 x 2000)"

# Time order: merged across streams, never decreasing.
awk -F'\t' 'NR > 1 && $1 + 0 < prev + 0 { bad = 1 } { prev = $1 }
            END { exit bad }' "$all"
ok $? "times never decrease"
awk -F'\t' 'NF != 6 || $1 !~ /^[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]$/ { exit 1 }' "$all"
ok $? "six columns, time with 9 decimals"

# subset DESCRIPTION AWK-CONDITION PRINT-OPTIONS...
subset () {
  what=$1; cond=$2; shift 2
  awk -F'\t' "$cond" "$all" >"$tap_tmp/want"
  "$clogtool" print --tsv "$@" "$log" >"$tap_tmp/got" 2>"$tap_tmp/err"
  ok $? "print $* succeeds"
  [ -s "$tap_tmp/want" ]; ok $? "$what: expected subset is not empty"
  cmp -s "$tap_tmp/want" "$tap_tmp/got"
  ok $? "$what: exactly the subset ($(wc -l <"$tap_tmp/got") lines)"
}
subset "rank 1" '$2 == 1' --rank 1
subset "ranks 0,2" '$2 == 0 || $2 == 2' --rank 0,2
subset "thread 1" '$3 == 1' --thread 1
subset "rank 2 thread 0" '$2 == 2 && $3 == 0' -r 2 -t 0
subset "sends and receives" '$4 == "send" || $4 == "recv"' --kind send,recv
subset "kind msg" '$4 == "send" || $4 == "recv"' --kind msg
subset "begins" '$4 == "begin"' --kind begin
subset "kind state" '$4 == "begin" || $4 == "end"' --kind state
subset "solo" '$4 == "solo"' -k solo

# A window in the middle, bounds taken from real event times so both ends
# are inclusive: from the 3000th to the 6000th line.
lo=$(sed -n 3000p "$all" | cut -f1)
hi=$(sed -n 6000p "$all" | cut -f1)
to_ns () { echo "$1" | sed 's/\.//; s/^0*//; s/^$/0/'; }
lo_ns=$(to_ns "$lo")
hi_ns=$(to_ns "$hi")
awk -F'\t' -v lo="$lo_ns" -v hi="$hi_ns" \
  '{ t = $1; sub(/\./, "", t) } t + 0 >= lo + 0 && t + 0 <= hi + 0' \
  "$all" >"$tap_tmp/want"
"$clogtool" print --tsv --from "$lo" --to "$hi" "$log" >"$tap_tmp/got"
ok $? "print --from $lo --to $hi"
cmp -s "$tap_tmp/want" "$tap_tmp/got"
ok $? "window [$lo, $hi] gives exactly its events ($(wc -l <"$tap_tmp/got"))"
[ "$(wc -l <"$tap_tmp/got")" -ge 3001 ]; ok $? "window holds at least 3001 events"

# The same window in nanoseconds and microseconds (with a unit).
"$clogtool" print --tsv --from "${lo_ns}ns" --to "${hi_ns}ns" "$log" \
  | cmp -s - "$tap_tmp/got"
ok $? "--from/--to in ns give the same window"
lo_us=$((lo_ns / 1000)).$(printf %03d $((lo_ns % 1000)))
hi_us=$((hi_ns / 1000)).$(printf %03d $((hi_ns % 1000)))
"$clogtool" print --tsv --from "${lo_us}us" --to "${hi_us}us" "$log" \
  | cmp -s - "$tap_tmp/got"
ok $? "--from/--to in us give the same window"

# Filters combine.
awk -F'\t' -v lo="$lo_ns" -v hi="$hi_ns" \
  '{ t = $1; sub(/\./, "", t) } t + 0 >= lo + 0 && t + 0 <= hi + 0 && $2 == 1 && $4 == "send"' \
  "$all" >"$tap_tmp/want"
"$clogtool" print --tsv --rank 1 --kind send --from "$lo" --to "$hi" "$log" \
  >"$tap_tmp/got"
cmp -s "$tap_tmp/want" "$tap_tmp/got"
ok $? "rank + kind + window combined ($(wc -l <"$tap_tmp/got") lines)"

# --limit keeps the first N.
head -n 25 "$all" >"$tap_tmp/want"
"$clogtool" print --tsv --limit 25 "$log" | cmp -s - "$tap_tmp/want"
ok $? "--limit 25 gives the first 25 events"

# After the last event: nothing, exit 0.
last_ns=$(to_ns "$(tail -n 1 "$all" | cut -f1)")
run 0 "empty window" "$clogtool" print --tsv --from "$((last_ns + 1))ns" "$log"
[ ! -s "$tap_tmp/out" ]; ok $? "empty window prints nothing"
run 1 "no stream for rank 99999" "$clogtool" print --rank 99999 "$log"
grep -q "no stream matches" "$tap_tmp/err"; ok $? "says why"

# Message details: a send names its partner, tag, size and comm.
grep -m1 -P '\tsend\t' "$all" | grep -qE '	to=[0-9]+ tag=-?[0-9]+ size=[0-9]+ comm=[0-9]+'
ok $? "send details: to, tag, size, comm"
grep -m1 -P '\trecv\t' "$all" | grep -qE '	from=[0-9]+ tag=-?[0-9]+ size=[0-9]+ comm=[0-9]+'
ok $? "recv details: from, tag, size, comm"

# Human format: same events, padded columns.
"$clogtool" print "$log" >"$tap_tmp/human"
ok $? "print (human format)"
[ "$(wc -l <"$tap_tmp/human")" -eq 12000 ]; ok $? "human format: 12000 lines"
paste "$all" "$tap_tmp/human" | awk -F'\t' '{ split($7, h, / +/);
  if (h[1] != $1 || h[2] != $2 || h[3] != $3 || h[4] != $4) exit 1 }'
ok $? "human format: same time, rank, thread, kind columns"
finish
