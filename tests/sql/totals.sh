#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool query answers GROUP BY name totals over states from the
# state_totals table (sql/shape.c, sql/totals.c): the same bytes out
# (rows, order, column names, CSV and JSON) as SQLite computing them from
# a row per instance (CLOGSQL_TOTALS=0), on one thread and on two; the
# statements it must leave to SQLite are left; errors are SQLite's.
. "$top_srcdir/tests/common/tap.sh"
# SQL_TEST_SHRINK=K: a generated log K times smaller (the sanitizer
# lanes, where each full scan is many times slower).
CLOGTOOL="$top_builddir/clogtool"
DATA="$top_srcdir/tests/interop/data"
T="$tap_tmp"

"$CLOGTOOL" convert -q "$DATA/srtest.clog2" "$T/srtest.clog" &&
"$CLOGTOOL" gen -o "$T/gen.clog" -p 4 -t 2 -n $((100000 / ${SQL_TEST_SHRINK:-1})) --seed 3 > /dev/null &&
"$top_builddir/tests/sql/mklog-names" "$T/names.clog"
ok $? "test logs written"

# Taken: CLOGSQL_TOTALS=show names the state_totals query on stderr.
taken () {   # taken LOG SQL [json]: same output both ways, fast path used
  CLOGSQL_TOTALS=0 "$CLOGTOOL" query $3 "$1" "$2" > "$T/slow" 2> "$T/slow.err" &&
  CLOGSQL_TOTALS=show "$CLOGTOOL" query $3 "$1" "$2" > "$T/fast" 2> "$T/fast.err" &&
  CLOGSQL_TOTALS=show CLOGSQL_AHEAD=1 "$CLOGTOOL" query $3 "$1" "$2" > "$T/fast1" 2> "$T/fast1.err" &&
  CLOGSQL_TOTALS=show CLOGSQL_AHEAD=0 "$CLOGTOOL" query $3 "$1" "$2" > "$T/fast0" 2> "$T/fast0.err" &&
  [ -s "$T/slow" ] && cmp -s "$T/slow" "$T/fast" && cmp -s "$T/slow" "$T/fast1" &&
  cmp -s "$T/slow" "$T/fast0" && [ ! -s "$T/slow.err" ] &&
  grep -q "answered as: .*state_totals" "$T/fast.err" &&
  grep -q "answered as: .*state_totals" "$T/fast0.err" &&
  grep -q "answered as: .*state_totals" "$T/fast1.err"
}
for f in srtest gen names; do
  L="$T/$f.clog"
  for q in "SELECT name, count(*), sum(duration) FROM states GROUP BY name" \
           "select NAME, Count( * ) as n, SUM(exclusive) total, sum(duration)
              FROM temp.states -- totals
              group by name order by 1 desc limit 3 offset 1;" \
           "SELECT count(*), name AS \"the name\" FROM states GROUP BY name
              ORDER BY \"the name\"" \
           "SELECT sum(duration), sum(exclusive) FROM states GROUP BY name" \
           "SELECT name, count(*) FROM states GROUP BY name ORDER BY name ASC LIMIT 4"; do
    taken "$L" "$q"
    ok $? "$f: from state_totals, the same bytes: $(echo "$q" | tr -s ' \n' ' ' | cut -c1-70) ($(wc -l < "$T/fast") lines)"
  done
  taken "$L" "SELECT name, count(*) AS n, sum(duration) AS d FROM states GROUP BY name" --json
  ok $? "$f: --json, the same bytes"
done
# The awkward names: "b" twice, a NULL name, "B", "a": in byte order,
# NULL first, as SQLite sorts them itself (GROUP BY +name).
"$CLOGTOOL" query "$T/names.clog" "SELECT name, count(*) FROM states GROUP BY name" > "$T/n.csv"
printf 'name,count(*)\n,150\nB,151\na,900\nb,300\n' | cmp -s - "$T/n.csv"
ok $? "shared, NULL and case-differing names group as SQLite groups them ($(tr '\n' ' ' < "$T/n.csv"))"
# The table itself: the totals of every name, as GROUP BY gives them.
for f in srtest gen names; do
  a=$("$CLOGTOOL" query "$T/$f.clog" "SELECT * FROM state_totals")
  b=$(CLOGSQL_TOTALS=0 "$CLOGTOOL" query "$T/$f.clog" "SELECT name, count(*) AS count,
        sum(duration) AS duration, sum(exclusive) AS exclusive FROM states GROUP BY name")
  [ -n "$a" ] && [ "$a" = "$b" ]
  ok $? "$f: SELECT * FROM state_totals equals the grouped states"
done

# Not taken: anything the totals do not hold, or where states is not the
# log's table; SQLite's own answer comes out.
L="$T/gen.clog"
for q in "SELECT name, count(*), sum(duration) FROM states WHERE rank = 1 GROUP BY name" \
         "SELECT name, count(*), sum(duration) FROM states WHERE open = 0 GROUP BY name" \
         "SELECT name, count(*) FROM states GROUP BY name HAVING count(*) > 1000" \
         "SELECT name, count(*), sum(duration) FROM states GROUP BY +name" \
         "SELECT name, count(*) FROM states GROUP BY name ORDER BY 2 DESC" \
         "SELECT name, count(*) FROM states GROUP BY name ORDER BY count(*)" \
         "SELECT name, sum(duration) + 0 FROM states GROUP BY name" \
         "SELECT name, avg(duration), max(duration) FROM states GROUP BY name" \
         "SELECT name, count(name) FROM states GROUP BY name" \
         "SELECT DISTINCT name, count(*) FROM states GROUP BY name" \
         "SELECT count(*) AS name, sum(duration) FROM states GROUP BY name ORDER BY name" \
         "SELECT name, count(*) FROM states GROUP BY name, rank" \
         "SELECT name, count(*) FROM main.states GROUP BY name" \
         "SELECT s.name, count(*) FROM states s GROUP BY name" \
         "SELECT name, count(*) FROM states GROUP BY name LIMIT 2 + 1" \
         "SELECT name, count(*) FROM states GROUP BY name ORDER BY name COLLATE nocase"; do
  CLOGSQL_TOTALS=0 "$CLOGTOOL" query "$L" "$q" > "$T/slow" 2>&1
  s=$?
  CLOGSQL_TOTALS=show "$CLOGTOOL" query "$L" "$q" > "$T/fast" 2> "$T/fast.err"
  [ $? = $s ] && ! grep -q "answered as" "$T/fast.err" &&
    cat "$T/fast.err" >> "$T/fast" && cmp -s "$T/slow" "$T/fast"
  ok $? "left to SQLite: $(echo "$q" | cut -c1-75)"
done
# states shadowed by the user's own (a WITH: queries are reads, so
# tables cannot be replaced): its rows, not the log's.
"$CLOGTOOL" query "$T/gen.clog" "WITH states AS (SELECT 'x' AS name, 5 AS duration)
  SELECT name, count(*), sum(duration) FROM states GROUP BY name" > "$T/u.csv" 2>&1
printf 'name,count(*),sum(duration)\nx,1,5\n' | cmp -s - "$T/u.csv"
ok $? "a user's own states (WITH) is queried, not the log ($(tail -1 "$T/u.csv"))"
"$CLOGTOOL" query "$T/gen.clog" "DROP TABLE temp.states;
  CREATE VIRTUAL TABLE temp.states USING clog('$T/names.clog', states);
  SELECT name, count(*) FROM states GROUP BY name" > "$T/o.csv" 2>&1
test $? = 1 && grep -q "not authorized" "$T/o.csv"
ok $? "replacing states by another file's is refused (queries are reads)"

# A damaged block: the same rows and error as SQLite over states.
cp "$L" "$T/bad.clog"
size=$(wc -c < "$T/bad.clog")
printf '\377\377\377\377\377\377\377\377' |
  dd of="$T/bad.clog" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
for a in 0 show; do
  CLOGSQL_TOTALS=$a "$CLOGTOOL" query "$T/bad.clog" \
    "SELECT name, count(*) FROM states GROUP BY name" > "$T/bad$a.out" 2> "$T/bad$a.err"
  echo "exit $?" >> "$T/bad$a.err"
done
grep -q "exit 1" "$T/bad0.err" && cmp -s "$T/bad0.out" "$T/badshow.out" &&
  cmp -s "$T/bad0.err" "$T/badshow.err"
ok $? "a damaged block: SQLite's own error ($(head -1 "$T/bad0.err"))"
"$CLOGTOOL" query "$T/bad.clog" "SELECT * FROM state_totals" > /dev/null 2> "$T/err"
[ $? = 1 ] && [ -s "$T/err" ]; ok $? "state_totals over it: exit 1 ($(head -1 "$T/err"))"
finish
