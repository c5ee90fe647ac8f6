#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool query: the tables agree with clogtool stats on the same logs
# (states per name, events per kind, messages, processes, threads);
# rank, thread and time conditions read only the blocks they need
# (counted by clog_blocks); CSV, JSON, the shell on standard input, and
# clear errors.
. "$top_srcdir/tests/common/tap.sh"
# SQL_TEST_SHRINK=K: a generated log K times smaller (the sanitizer
# lanes, where each full scan is many times slower).
CLOGTOOL="$top_builddir/clogtool"
DATA="$top_srcdir/tests/interop/data"
T="$tap_tmp"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
CHECK="$PY $top_srcdir/tests/sql/check.py"

"$CLOGTOOL" convert -q "$DATA/srtest.clog2" "$T/srtest.clog" &&
"$CLOGTOOL" convert -q "$DATA/cpilog_pack.clog2" "$T/pack.clog" &&
"$CLOGTOOL" gen -o "$T/gen.clog" -p 4 -t 2 -n $((200000 / ${SQL_TEST_SHRINK:-1})) --seed 7 > /dev/null
ok $? "test logs written"

for f in srtest pack gen; do
  L="$T/$f.clog"
  "$CLOGTOOL" stats --json "$L" > "$T/stats.json" &&
  "$CLOGTOOL" query --json "$L" "
    SELECT name, count(*) AS n, sum(duration) AS total,
           sum(exclusive) AS excl FROM states WHERE open = 0 GROUP BY name;
    SELECT kind, count(*) AS n FROM events GROUP BY kind;
    SELECT count(*) AS n, sum(bytes) AS bytes,
           sum(send_time IS NULL OR recv_time IS NULL) AS unmatched
      FROM messages;
    SELECT count(*) AS n, sum(threads) AS threads, sum(events) AS events
      FROM processes;
    SELECT count(*) AS n, sum(events) AS events FROM threads;" \
    > "$T/q.json" 2> "$T/err"
  ok $? "$f: queries run"
  $CHECK stats "$T/stats.json" "$T/q.json"
  ok $? "$f: states, events, messages, processes and threads equal clogtool stats"
done

# Pushed-down conditions: blocks decoded, per query (one reader), on a
# log of 4 streams x 200 blocks.
"$top_builddir/tests/sql/mklog-blocks" "$T/blocks.clog"
ok $? "a log with small blocks"
L="$T/blocks.clog"
"$CLOGTOOL" query "$L" "
  SELECT min(time), max(time) FROM events;
  SELECT clog_blocks('$L');
  SELECT count(*) FROM events;
  SELECT clog_blocks('$L');" > "$T/b.csv" 2> "$T/err"
ok $? "full scan with block counts"
set -- $(tr ',\n' '  ' < "$T/b.csv")
# min(time),max(time) / lo hi / clog_blocks / b0 / count(*) / n / clog_blocks / b1
lo=$3 hi=$4 b0=$6 nev=$8 b1=${10}
all=$((b1 - b0))
diag "events $nev in $all blocks, times $lo..$hi"
[ "$all" = 800 ]; ok $? "a full scan decodes every block ($all)"
w0=$((lo + (hi - lo) / 2)) w1=$((lo + (hi - lo) / 2 + (hi - lo) / 100))
"$CLOGTOOL" query "$L" "
  SELECT clog_blocks('$L');
  SELECT count(*) FROM events WHERE time BETWEEN $w0 AND $w1;
  SELECT clog_blocks('$L');
  SELECT count(*) FROM events WHERE rank = 1 AND thread = 1;
  SELECT clog_blocks('$L');
  SELECT count(*) FROM states WHERE start >= $w0 AND start <= $w1;
  SELECT clog_blocks('$L');
  SELECT count(*) FROM states WHERE start >= $w0 AND start <= $w1;
  SELECT clog_blocks('$L');
  SELECT count(*) FROM events WHERE time > $hi;
  SELECT clog_blocks('$L');" | grep -v '^clog_blocks\|^count' > "$T/w.csv"
set -- $(cat "$T/w.csv")
win=$(($3 - $1)) rk=$(($5 - $3)) st2=$((${9} - ${7})) none=$((${11} - ${9}))
diag "1% window: $win blocks ($2 events); rank 1 thread 1: $rk blocks; states window (index made): $st2; past the end: $none"
[ "$win" -ge 4 ] && [ "$win" -le $((all / 100 + 4 * 2)) ]
ok $? "a 1% time window decodes about 1% of the blocks ($win of $all)"
[ "$rk" = $((all / 4)) ]
ok $? "rank and thread decode only that stream's blocks ($rk of $all)"
[ "$st2" -ge 4 ] && [ "$st2" -le $((all / 100 + 4 * 3)) ]
ok $? "a states window decodes about 1% once the interval index exists ($st2)"
[ "$none" = 0 ]; ok $? "a window past the end decodes nothing"
# Same rows with and without the pushed-down window.
a=$("$CLOGTOOL" query "$L" "SELECT count(*), sum(duration) FROM states WHERE start BETWEEN $w0 AND $w1")
b=$("$CLOGTOOL" query "$L" "SELECT count(*), sum(duration) FROM states WHERE start + 0 BETWEEN $w0 AND $w1")
[ "$a" = "$b" ]; ok $? "the pushed-down window gives the rows a full scan gives"
a=$("$CLOGTOOL" query "$L" "SELECT count(*) FROM events WHERE time >= $w0 AND time < $w1 AND rank = 1")
b=$("$CLOGTOOL" query "$L" "SELECT count(*) FROM events WHERE time + 0 >= $w0 AND time + 0 < $w1 AND rank + 0 = 1")
[ "$a" = "$b" ]; ok $? "events: pushed-down and full-scan counts agree"

# GROUP BY name and DISTINCT name: the states table delivers the rows
# grouped itself (no sort); every column must come through as the plain
# scan gives it, also with the kept rows spilled to a file.
L="$T/gen.clog"
"$CLOGTOOL" query "$L" "EXPLAIN QUERY PLAN
  SELECT name, count(*), sum(duration) FROM states GROUP BY name" > "$T/plan"
! grep -q "B-TREE" "$T/plan"
ok $? "GROUP BY name needs no sort ($(tail -1 "$T/plan"))"
all="count(*), sum(duration), sum(start), sum(\"end\"), sum(exclusive),
  sum(depth), sum(open), sum(rank * 100 + thread), sum(stream), sum(state),
  count(cargo), count(DISTINCT hex(cargo)), count(DISTINCT info)"
for f in srtest pack gen; do
  "$CLOGTOOL" query "$T/$f.clog" "SELECT name, $all FROM states GROUP BY +name" |
    LC_ALL=C sort > "$T/g-sort.csv" &&
  "$CLOGTOOL" query "$T/$f.clog" "SELECT name, $all FROM states GROUP BY name" |
    LC_ALL=C sort > "$T/g-own.csv" &&
  CLOGSQL_GROUP_MEM=1 "$CLOGTOOL" query "$T/$f.clog" "SELECT name, $all
    FROM states GROUP BY name" | LC_ALL=C sort > "$T/g-spill.csv"
  ok $? "$f: grouped queries run"
  cmp -s "$T/g-own.csv" "$T/g-sort.csv"
  ok $? "$f: GROUP BY name: every column equals the sorted path's ($(wc -l < "$T/g-sort.csv") lines)"
  cmp -s "$T/g-spill.csv" "$T/g-sort.csv"
  ok $? "$f: GROUP BY name with the kept rows spilled to a file: the same"
done
a=$("$CLOGTOOL" query "$L" "SELECT name, count(*), sum(duration) FROM states
  WHERE rank = 2 AND start >= $((0)) GROUP BY name" | sort)
b=$("$CLOGTOOL" query "$L" "SELECT name, count(*), sum(duration) FROM states
  WHERE rank + 0 = 2 GROUP BY +name" | sort)
[ -n "$a" ] && [ "$a" = "$b" ]; ok $? "GROUP BY name with a rank filter"
# The groups come in name order: SQLite 3.40 takes them as sorted for
# GROUP BY name ORDER BY name (it said "grouped only" to the table).
for o in "" "ORDER BY name" "ORDER BY 1" "ORDER BY name DESC"; do
  a=$("$CLOGTOOL" query "$T/pack.clog" "SELECT name, count(*), sum(start) FROM states
    GROUP BY name $o")
  b=$("$CLOGTOOL" query "$T/pack.clog" "SELECT name, count(*), sum(start) FROM states
    GROUP BY +name $o")
  [ -n "$a" ] && [ "$a" = "$b" ]
  ok $? "GROUP BY name ${o:-alone}: SQLite's own sorted rows, in its order"
done
a=$("$CLOGTOOL" query "$L" "SELECT DISTINCT name FROM states ORDER BY name")
b=$("$CLOGTOOL" query "$L" "SELECT DISTINCT +name AS name FROM states ORDER BY 1")
[ "$a" = "$b" ]; ok $? "DISTINCT name ORDER BY name: the groups in name order"
a=$("$CLOGTOOL" query "$L" "SELECT DISTINCT name FROM states ORDER BY name DESC")
b=$("$CLOGTOOL" query "$L" "SELECT DISTINCT +name AS name FROM states ORDER BY 1 DESC")
[ "$a" = "$b" ]; ok $? "DISTINCT name ORDER BY name DESC"

# Read ahead in a worker thread (sql/ivahead.c): forced on and off, the
# same rows in the same order, also for a window, a rank, LIMIT (the
# worker stopped mid-scan), a join that filters the table once per
# stream, and the grouped pass.
L="$T/gen.clog"
for q in "SELECT * FROM states" \
         "SELECT * FROM states WHERE start BETWEEN $w0 AND $w1 OR rank = 3" \
         "SELECT rank, name, start FROM states WHERE rank = 2 AND start >= $w0" \
         "SELECT name, start, duration FROM states LIMIT 5" \
         "SELECT t.stream, count(*), sum(s.duration) FROM threads t JOIN states s ON s.stream = t.stream GROUP BY t.stream" \
         "SELECT name, $all FROM states GROUP BY name" \
         "SELECT DISTINCT name FROM states ORDER BY name" \
         "SELECT name, count(*), sum(duration) FROM states GROUP BY name LIMIT 2" \
         "SELECT DISTINCT name FROM states LIMIT 1"; do
  a=$(CLOGSQL_AHEAD=0 "$CLOGTOOL" query "$L" "$q" | cksum)
  b=$(CLOGSQL_AHEAD=1 "$CLOGTOOL" query "$L" "$q" | cksum)
  c=$(CLOGSQL_AHEAD=1 CLOGSQL_GROUP_MEM=1 "$CLOGTOOL" query "$L" "$q" | cksum)
  [ "$a" = "$b" ] && [ "$a" = "$c" ] && [ "${a%% *}" != 4294967295 ]
  ok $? "worker and plain scan agree: $(echo "$q" | cut -c1-60) ($a)"
done
# A damaged block: the rows before it, then the same error, both ways.
cp "$L" "$T/bad.clog"
size=$(wc -c < "$T/bad.clog")
printf '\377\377\377\377\377\377\377\377' |
  dd of="$T/bad.clog" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
for a in 0 1; do
  CLOGSQL_AHEAD=$a "$CLOGTOOL" query "$T/bad.clog" \
    "SELECT stream, start, duration FROM states;
     SELECT name, count(*) FROM states GROUP BY name" > "$T/bad$a.csv" 2> "$T/bad$a.err"
  echo "exit $?" >> "$T/bad$a.err"
  CLOGSQL_AHEAD=$a "$CLOGTOOL" query "$T/bad.clog" \
    "SELECT name, count(*) FROM states GROUP BY name" >> "$T/bad$a.csv" 2>> "$T/bad$a.err"
  echo "exit $?" >> "$T/bad$a.err"
done
[ "$(grep -c "exit 1" "$T/bad1.err")" = 2 ] && cmp -s "$T/bad0.csv" "$T/bad1.csv" &&
  cmp -s "$T/bad0.err" "$T/bad1.err"
ok $? "a damaged block, plain and grouped: the worker gives the plain scan's rows ($(wc -l < "$T/bad1.csv")) and error ($(head -1 "$T/bad1.err"))"

# Output forms, the shell, errors.
"$CLOGTOOL" query "$T/srtest.clog" "SELECT rank, host FROM processes ORDER BY rank LIMIT 2" > "$T/o.csv"
[ "$(head -1 "$T/o.csv")" = "rank,host" ] && [ "$(wc -l < "$T/o.csv")" = 3 ]
ok $? "CSV with a header line"
printf 'SELECT count(*) AS n\n  FROM threads;\n.tables\nSELECT 1;\n' |
  "$CLOGTOOL" query "$T/srtest.clog" > "$T/sh.out" 2>&1
ok $? "statements from standard input"
grep -q '^4$' "$T/sh.out" && grep -q '^states,' "$T/sh.out"
ok $? "the shell runs multi-line statements and .tables"
"$CLOGTOOL" query "$T/srtest.clog" "SELECT nosuch FROM states" 2> "$T/err"
[ $? = 1 ] && grep -q "no such column" "$T/err"; ok $? "bad SQL: exit 1 with SQLite's message"
"$CLOGTOOL" query "$T/missing.clog" "SELECT 1" 2> "$T/err"
[ $? = 1 ] && grep -q "missing.clog" "$T/err"; ok $? "missing file: exit 1 naming it"
"$CLOGTOOL" query 2> /dev/null; [ $? = 2 ]; ok $? "no FILE: usage error"
if [ -x "$top_builddir/tests/interop/mkotf2" ]; then
  "$top_builddir/tests/interop/mkotf2" "$T" m &&
  "$CLOGTOOL" query "$T/m.otf2" "SELECT rank, host FROM processes ORDER BY rank;
    SELECT info FROM states WHERE name = 'MPI_Allreduce' AND rank = 1" > "$T/m.csv"
  printf 'rank,host\n0,nodeB\n1,nodeA\ninfo\ncomm=ffffffff np=2 root=-1 sent=8 recv=16\n' |
    cmp -s - "$T/m.csv"
  ok $? "OTF2 archives are queried too (hosts, collective info)"
  "$CLOGTOOL" query "$T/m.otf2" "SELECT rank, thread, time, name, object, value, unit
    FROM metrics; SELECT count(*) FROM metrics WHERE time > 130000" > "$T/x.csv"
  printf 'rank,thread,time,name,object,value,unit\n1,0,130000,PAPI_TOT_CYC,,123456,#\ncount(*)\n0\n' |
    cmp -s - "$T/x.csv"
  ok $? "OTF2 metric samples become the metrics table's rows ($(tr '\n' ' ' < "$T/x.csv"))"
fi
finish
