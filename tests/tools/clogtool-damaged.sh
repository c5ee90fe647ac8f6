#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Damaged files (tests/tools/damaged, written by mkdamaged): every command
# ends with an error or a result, never a signal, a hang or endless
# output; verify rejects every one of them (odd-*: sound but extreme,
# verify passes them); what repair writes verifies.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"

corpus=$top_srcdir/tests/tools/damaged
out=$tap_tmp/o

# sane WHAT CMD...: exit 0 or 1 within bounds (a hang or a flood of output
# is a failure too, caught by generous limits rather than timed).
sane () {
  what=$1; shift
  ( ulimit -f 40000; exec timeout 120 "$@" ) >"$tap_tmp/out" 2>"$tap_tmp/err"
  got=$?
  [ "$got" -le 1 ]
  ok $? "$what (exit $got)" || sed 's/^/#   /' "$tap_tmp/err" | head -5
}

for f in "$corpus"/*.clog; do
  b=$(basename "$f" .clog)
  for cmd in "stats" "stats --tolerant" "stats --json" "print" \
             "print --tolerant" "print --intervals" "metrics" "matrix" \
             "profile" "threads" "cpus" "memory" "cct"; do
    sane "$b: $cmd" "$clogtool" $cmd "$f"
  done
  for ext in clog clog2 json otf2; do
    rm -rf "$out".*
    sane "$b: convert to $ext" "$clogtool" convert -q "$f" "$out.$ext"
  done
  "$clogtool" verify "$f" >"$tap_tmp/out" 2>&1
  got=$?
  case $b in
    odd-*) [ $got -eq 0 ]; ok $? "$b: verify passes a sound, odd file" ;;
    *) [ $got -eq 1 ]; ok $? "$b: verify finds the damage" ;;
  esac || sed 's/^/#   /' "$tap_tmp/out" | head -5
  rm -f "$out.rep.clog"
  sane "$b: repair" "$clogtool" repair "$f" -o "$out.rep.clog"
  if [ -s "$out.rep.clog" ]; then
    "$clogtool" verify "$out.rep.clog" >"$tap_tmp/out" 2>&1
    ok $? "$b: the repaired file verifies" \
      || sed 's/^/#   /' "$tap_tmp/out" | head -5
  fi
done

# A file cut after its first message run: repair rebuilds the whole
# message table from the events, and says the input was partial.
f=$corpus/cut-after-msgs.clog
run 0 "repair a cut file" "$clogtool" repair "$f" -o "$out.cut.clog"
grep -q "partial" "$tap_tmp/out"; ok $? "repair says the input was partial"
n=$("$clogtool" stats --json "$out.cut.clog" | $python -c \
  'import json,sys; print(json.load(sys.stdin)["messages"]["count"])')
[ "$n" = 5000 ]; ok $? "all 5000 messages re-matched (got $n)"
run 0 "stats --tolerant on the cut file" "$clogtool" stats --tolerant "$f"
grep -qi "partial" "$tap_tmp/out"; ok $? "stats --tolerant says partial"

# A cut file whose definitions are lost too (the early DEFS chunk fails
# its checksum): streams beyond the stated world keep their own index as
# rank, the world size becomes unknown, and the repaired file reads.
gen_log "$tap_tmp/g.clog" 2 2 100000 5
$python - "$tap_tmp/g.clog" "$tap_tmp/nodefs.clog" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
d = d[:len(d) * 2 // 3]
off = struct.unpack_from("<I", d, 12)[0]
assert struct.unpack_from("<I", d, off)[0] == 4   # the early DEFS
d[off + 16 + 4] ^= 0x40
open(sys.argv[2], "wb").write(d)
PY
run 0 "repair a cut file without definitions" \
  "$clogtool" repair "$tap_tmp/nodefs.clog" -o "$out.nodefs.clog"
run 0 "and the result verifies" "$clogtool" verify "$out.nodefs.clog"
n=$("$clogtool" stats --json "$out.nodefs.clog" | $python -c \
  'import json,sys; print(json.load(sys.stdin)["streams"])')
[ "$n" = 4 ]; ok $? "with its 4 streams (got $n)"

# A FIFO is refused at once, not waited on.
mkfifo "$tap_tmp/fifo.clog"
sane "a FIFO as the log: stats" "$clogtool" stats "$tap_tmp/fifo.clog"
grep -q "regular file" "$tap_tmp/err"; ok $? "says it is not a regular file"
finish
