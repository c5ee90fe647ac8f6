#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool verify on good, bit-flipped and truncated files; repair of a
# truncated file gives a file that verifies.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"

log=$tap_tmp/synth.clog
# Enough events for several blocks per stream.
gen_log "$log" 2 1 200000 3
size=$(wc -c <"$log")
events=$("$clogtool" stats --json "$log" | $python -c 'import json,sys; print(json.load(sys.stdin)["events"])')
[ "$events" = 400000 ]; ok $? "generated 400000 events"

run 0 "verify a good file" "$clogtool" verify "$log"
grep -qx "$log: OK" "$tap_tmp/out"; ok $? "says OK"
run 0 "verify -q a good file" "$clogtool" verify -q "$log"
[ ! -s "$tap_tmp/out" ]; ok $? "-q prints nothing"

# flip FILE OFFSET: inverts one bit.
flip () {
  $python - "$1" "$2" <<'PY'
import sys
path, off = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    f.seek(off)
    b = f.read(1)[0]
    f.seek(off)
    f.write(bytes([b ^ 0x10]))
PY
}

# A bit flipped in the middle of the file lands in an event block.
cp "$log" "$tap_tmp/flip.clog"
flip "$tap_tmp/flip.clog" $((size / 2))
run 1 "verify a bit-flipped file" "$clogtool" verify "$tap_tmp/flip.clog"
grep -q "flip.clog: offset [0-9][0-9]*: " "$tap_tmp/out"
ok $? "the problem names the file and an offset"
grep -q "flip.clog: [1-9][0-9]* problems*$" "$tap_tmp/out"
ok $? "closing line counts the problems"
diag "$(head -n 3 "$tap_tmp/out")"
# Reading through the damaged block fails cleanly, naming the offset.
run 1 "stats of the bit-flipped file" "$clogtool" stats "$tap_tmp/flip.clog"
grep -q "^clogtool: .*flip.clog.*offset [0-9]" "$tap_tmp/err"
ok $? "stats reports the damaged block's offset"

# Truncated: no trailer any more.
head -c $((size * 6 / 10)) "$log" >"$tap_tmp/trunc.clog"
run 1 "verify a truncated file" "$clogtool" verify "$tap_tmp/trunc.clog"
run 1 "stats of a truncated file" "$clogtool" stats "$tap_tmp/trunc.clog"
grep -q "^clogtool: .*trunc.clog" "$tap_tmp/err"; ok $? "names the truncated file"
grep -q "^clogtool: hint: --tolerant" "$tap_tmp/err"; ok $? "hints at --tolerant"
run 0 "stats --tolerant of the truncated file" \
  "$clogtool" stats --json --tolerant "$tap_tmp/trunc.clog"
tol=$($python -c 'import json,sys; print(json.load(sys.stdin)["events"])' <"$tap_tmp/out")
[ "$tol" -gt 0 ] && [ "$tol" -lt 400000 ]
ok $? "--tolerant reads part of the events ($tol)"
run 0 "stats --tolerant (table)" "$clogtool" stats --tolerant "$tap_tmp/trunc.clog"
grep -q "the message table is missing: [1-9][0-9]* sends and [1-9][0-9]* receives" "$tap_tmp/out"
ok $? "--tolerant says the message table was lost"
"$clogtool" print --tsv --tolerant --rank 0 "$tap_tmp/trunc.clog" >"$tap_tmp/tol.0"
n=$(wc -l <"$tap_tmp/tol.0")
"$clogtool" print --tsv --rank 0 --limit "$n" "$log" | cmp -s - "$tap_tmp/tol.0"
ok $? "print --tolerant: rank 0's first $n events, as in the original"

run 0 "repair the truncated file" "$clogtool" repair "$tap_tmp/trunc.clog" -o "$tap_tmp/fixed.clog"
grep -q "fixed.clog: kept [1-9][0-9]* blocks*, lost [0-9][0-9]* damaged blocks*" "$tap_tmp/out"
ok $? "repair reports kept and lost blocks"
diag "$(cat "$tap_tmp/out")"
run 0 "the repaired file verifies" "$clogtool" verify "$tap_tmp/fixed.clog"
kept=$("$clogtool" stats --json "$tap_tmp/fixed.clog" | $python -c 'import json,sys; print(json.load(sys.stdin)["events"])')
[ "$kept" -gt 0 ] && [ "$kept" -lt 400000 ]
ok $? "the repaired file keeps part of the events ($kept)"
# What was kept is exactly the start of each stream.
for r in 0 1; do
  "$clogtool" print --tsv --rank $r "$tap_tmp/fixed.clog" >"$tap_tmp/fixed.$r"
  n=$(wc -l <"$tap_tmp/fixed.$r")
  "$clogtool" print --tsv --rank $r --limit "$n" "$log" | cmp -s - "$tap_tmp/fixed.$r"
  ok $? "rank $r: repaired events are the original's first $n"
done

# repair of the bit-flipped file drops the damaged block only.
run 0 "repair the bit-flipped file" "$clogtool" repair "$tap_tmp/flip.clog" -o "$tap_tmp/fixed2.clog"
grep -q "lost [1-9]" "$tap_tmp/out"; ok $? "one or more blocks lost"
run 0 "which verifies" "$clogtool" verify "$tap_tmp/fixed2.clog"

sum=$(cksum <"$log")
run 2 "repair onto itself" "$clogtool" repair "$log" -o "$log"
[ "$(cksum <"$log")" = "$sum" ]; ok $? "the input was left alone"
finish
