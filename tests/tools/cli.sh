#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Flags that mean the same in every clogtool command: --csv, -o FILE,
# '-' for standard output, the exit codes, --progress; query's floats.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"

log=$tap_tmp/run.clog
gen_log "$log" 2 1 300
cd "$tap_tmp" || bail "no $tap_tmp"

# --csv: query's CSV is its default, and --csv says so explicitly.
if "$clogtool" query --help 2>/dev/null | grep -q 'without SQLite'; then
  have_sql=0
else
  have_sql=1
fi
if [ $have_sql = 1 ]; then
  q='SELECT rank, count(*) FROM events GROUP BY rank ORDER BY rank'
  run 0 "query --csv" "$clogtool" query --csv "$log" "$q"
  cp "$tap_tmp/out" csv.out
  "$clogtool" query "$log" "$q" >default.out 2>/dev/null
  cmp -s csv.out default.out; ok $? "query --csv prints what query prints"
  run 2 "query --csv --json" "$clogtool" query --csv --json "$log" "$q"

  # Floats as the sqlite3 shell prints them.
  run 0 "query a float" "$clogtool" query "$log" \
    "SELECT 2.491761765 AS a, 0.1 AS b, 1.0 AS c, 1e300 AS d"
  [ "$(sed -n 2p "$tap_tmp/out")" = "2.491761765,0.1,1.0,1.0e+300" ]
  ok $? "CSV floats have 15 digits: $(sed -n 2p "$tap_tmp/out")"
  run 0 "query --json a float" "$clogtool" query --json "$log" \
    "SELECT 2.491761765 AS a"
  grep -q '"a": *2.491761765[^0-9]' "$tap_tmp/out"
  ok $? "JSON floats have 15 digits: $(cat "$tap_tmp/out")"
fi

# stats --csv: the state and solo tables, the figures of --json.
run 0 "stats --csv" "$clogtool" stats --csv "$log"
cp "$tap_tmp/out" stats.csv
"$clogtool" stats --json "$log" >stats.json 2>/dev/null
"$python" - stats.csv stats.json <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
j = json.load(open(sys.argv[2]))
want = [("state", s["name"], str(s["start_id"]), str(s["count"]),
         s["total_s"], s["exclusive_s"]) for s in j["states"]]
want += [("solo", e["name"], str(e["id"]), str(e["count"]), "", "")
         for e in j["solo_events"]]
got = [(r["kind"], r["name"], r["id"], r["count"],
        r["total_s"] and float(r["total_s"]),
        r["exclusive_s"] and float(r["exclusive_s"])) for r in rows]
sys.exit(0 if got == want and len(got) > 2 else 1)
PY
ok $? "stats --csv rows match stats --json ($(wc -l <stats.csv) lines)"
run 2 "stats --csv --json" "$clogtool" stats --csv --json "$log"

# print --csv: the --tsv columns as CSV fields, under a header line.
for i in "" "--intervals"; do
  run 0 "print --csv $i" "$clogtool" print --csv $i "$log"
  cp "$tap_tmp/out" print.csv
  "$clogtool" print --tsv $i "$log" >print.tsv 2>/dev/null
  "$python" - print.csv print.tsv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
tsv = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
ok = rows[0][0] in ("time", "start") and rows[1:] == tsv and len(tsv) > 100
ok = ok and any('"' in r[-1] for r in tsv) if rows[0][0] == "time" else ok
sys.exit(0 if ok else 1)
PY
  ok $? "print --csv $i holds the --tsv fields ($(wc -l <print.tsv) rows)"
done
run 2 "print --csv --tsv" "$clogtool" print --csv --tsv "$log"

# -o FILE: every report goes where -o says, '-' is standard output.
for c in stats "stats --json" print profile matrix "metrics --csv"; do
  "$clogtool" $c "$log" >want.out 2>/dev/null
  rm -f got.out
  run 0 "$c -o FILE" "$clogtool" $c -o got.out "$log"
  cmp -s want.out got.out && [ ! -s "$tap_tmp/out" ]
  ok $? "$c -o FILE writes the report to FILE only"
  run 0 "$c --output=FILE" "$clogtool" $c "$log" --output=got2.out
  cmp -s want.out got2.out; ok $? "$c --output=FILE writes FILE"
  run 0 "$c -o -" "$clogtool" $c -o - "$log"
  cmp -s want.out "$tap_tmp/out"; ok $? "$c -o - writes standard output"
done
[ ! -e ./- ]; ok $? "no file named '-' was made"
run 2 "-o without a value" "$clogtool" stats "$log" -o
run 2 "-o with a bad option" "$clogtool" stats --bogus -o new.out "$log"
[ ! -e new.out ]; ok $? "a usage error leaves no new -o file"
run 1 "-o with a missing input" "$clogtool" stats -o new.out missing.clog
[ ! -e new.out ]; ok $? "a failure before any output leaves no new -o file"
printf 'x\n' >old.out
run 1 "-o over a file, missing input" "$clogtool" stats -o old.out missing.clog
[ -e old.out ]; ok $? "a file that was there is not removed"
run 1 "-o into a missing directory" "$clogtool" stats -o no/dir/x "$log"
grep -q "^clogtool: .*no/dir/x" "$tap_tmp/err"; ok $? "names the output"

# convert takes -o OUT as its OUT operand.
run 0 "convert IN -o OUT" "$clogtool" convert -q "$log" -o conv.json
"$clogtool" convert -q "$log" conv2.json >/dev/null 2>&1
cmp -s conv.json conv2.json; ok $? "convert -o OUT writes what OUT does"
run 0 "convert -o -" "$clogtool" convert -q "$log" -o - --format json
cmp -s conv.json "$tap_tmp/out"; ok $? "convert -o - writes OUT to stdout"
[ ! -e ./- ]; ok $? "convert -o - made no file named '-'"

# gen -o -: the log on standard output (through a temporary file).
"$clogtool" gen -o gen-file.clog -p 2 -n 100 >/dev/null 2>&1
run 0 "gen -o -" "$clogtool" gen -o - -p 2 -n 100
cmp -s gen-file.clog "$tap_tmp/out"; ok $? "gen -o - writes the log to stdout"
[ ! -e ./- ]; ok $? "gen -o - made no file named '-'"
"$clogtool" gen -o - -p 2 -n 100 2>/dev/null | cat >gen-pipe.clog
cmp -s gen-file.clog gen-pipe.clog; ok $? "gen -o - writes into a pipe"

# The same exit codes for the same failures: 2 bad usage, 1 a file that
# cannot be read.
for c in print stats verify matrix profile cct threads cpus memory metrics \
         query; do
  run 2 "$c --bogus" "$clogtool" $c --bogus "$log"
  run 1 "$c of a missing file" "$clogtool" $c "$tap_tmp/missing.clog"
  grep -q "missing.clog" "$tap_tmp/err"; ok $? "$c names the missing file"
done
run 2 "convert --bogus" "$clogtool" convert --bogus "$log" x.json
run 1 "convert of a missing file" "$clogtool" convert missing.clog x.json
run 2 "repair --bogus" "$clogtool" repair --bogus "$log" -o x.clog
run 1 "repair of a missing file" "$clogtool" repair missing.clog -o x.clog
run 2 "gen --bogus" "$clogtool" gen --bogus -o x.clog

# --progress: nothing when stderr is not a terminal ...
run 0 "gen --progress, stderr a file" "$clogtool" gen --progress -o p.clog \
  -p 4 -n 200000
[ ! -s "$tap_tmp/err" ]; ok $? "gen --progress is quiet off a terminal"
run 0 "stats --progress, stderr a file" "$clogtool" stats --progress \
  "$top_srcdir/tests/interop/data/srtest.clog2"
[ ! -s "$tap_tmp/err" ]; ok $? "stats --progress is quiet off a terminal"
# ... and on a terminal, percentages as the work advances: the first is
# drawn after the first stream's first part (65536 of 4 x 200000
# records), the last is 100%.
if script -qec true /dev/null >/dev/null 2>&1; then
  script -qec "'$clogtool' gen --progress -o p2.clog -p 4 -n 200000" \
    /dev/null </dev/null >tty.out 2>&1
  tr '\r' '\n' <tty.out | sed -n 's/^writing: *\([0-9]*\)%.*/\1/p' >pct.out
  first=$(head -n 1 pct.out); last=$(tail -n 1 pct.out)
  [ -n "$first" ] && [ "$first" -lt 50 ] && [ "$last" = 100 ]
  ok $? "gen --progress on a terminal: first ${first:-none}%, last ${last:-none}%"
  cmp -s p.clog p2.clog; ok $? "progress does not change the log"
  # Reading an MPE2 log (imported first) shows it too, up to 100%.
  mpe2=$top_srcdir/tests/interop/data/srtest.clog2
  script -qec "'$clogtool' stats --progress '$mpe2'" /dev/null </dev/null \
    >tty2.out 2>&1
  last=$(tr '\r' '\n' <tty2.out | sed -n 's/^reading: *\([0-9]*\)%.*/\1/p' \
         | tail -n 1)
  [ "$last" = 100 ]; ok $? "stats --progress on a terminal ends at ${last:-none}%"
  grep -q "^events" tty2.out; ok $? "and prints the table"
else
  diag "skipped: no script(1) for a terminal"
fi
finish
