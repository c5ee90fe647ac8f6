#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Queries are reads.  clogtool query refuses what would write a file or
# open another one (ATTACH, VACUUM INTO, CREATE, pragmas that set,
# load_extension) and still answers reads; a FIFO named as a log is
# refused, not waited on; and a database file received from someone,
# opened with the extension loaded, cannot make it open a path of its
# choosing (a clog table stored in its schema, behind a view or a
# trigger) nor call clog_blocks from a view.
. "$top_srcdir/tests/common/tap.sh"
CLOGTOOL="$top_builddir/clogtool"
T="$tap_tmp"
EXT="$top_builddir/sql/.libs/clogsql"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
san=$(ldd "$EXT.so" 2>/dev/null | awk '/lib(asan|ubsan|tsan)/ { printf "%s ", $3 }')
if [ -n "$san" ]; then
  LD_PRELOAD="$san"; export LD_PRELOAD
  ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"; export ASAN_OPTIONS
fi
cd "$T" || bail "no scratch directory"
"$CLOGTOOL" gen -o gen.clog -p 2 -t 1 -n 2000 > /dev/null || bail "gen failed"
mkfifo fifo || bail "mkfifo failed"

# refused NAME FILE SQL: the query fails, says why, and FILE (if any)
# does not appear.
refused () {
  timeout 20 "$CLOGTOOL" query gen.clog "$3" > out.txt 2> err.txt
  rc=$?
  test $rc = 1 && test -s err.txt && { test -z "$2" || test ! -e "$2"; }
  ok $? "$1 is refused (exit $rc: $(head -c 120 err.txt))"
}
refused "ATTACH" att.db "ATTACH 'att.db' AS a; CREATE TABLE a.t(x)"
refused "VACUUM INTO" vac.db "VACUUM INTO 'vac.db'"
refused "CREATE TABLE" "" "CREATE TABLE t(x)"
refused "CREATE TEMP TABLE ... AS" "" "CREATE TEMP TABLE t AS SELECT 1"
refused "DROP TABLE" "" "DROP TABLE states"
refused "a pragma that sets" "" "PRAGMA writable_schema = 1"
refused "load_extension" "" "SELECT load_extension('$EXT')"
refused "a clog table over a FIFO" "" \
  "CREATE VIRTUAL TABLE temp.f USING clog('$T/fifo', threads)"
timeout 20 "$CLOGTOOL" query fifo "SELECT 1" > out.txt 2> err.txt
rc=$?
test $rc = 1 && grep -q "not a regular file" err.txt
ok $? "a FIFO given as the log is refused at once (exit $rc)"
n=$(timeout 20 "$CLOGTOOL" query gen.clog \
  "BEGIN; SELECT count(*) FROM threads; COMMIT" | tail -1)
is_rc=1; [ "$n" = 2 ] && is_rc=0
ok $is_rc "reads still run ($n threads)"
timeout 20 "$CLOGTOOL" query gen.clog "PRAGMA table_info(states)" \
  | grep -q '^0,rank,'
ok $? "reading pragmas still run"

# Hostile databases, written without the extension.
"$PY" - "$T" <<'EOP' || bail "cannot write the hostile databases"
import sqlite3, sys
T = sys.argv[1]
def hostile(name, objs):
    db = sqlite3.connect(f"{T}/{name}")
    db.execute("CREATE TABLE t(a)")
    db.execute("PRAGMA writable_schema = ON")
    for typ, nm, sql in objs:
        db.execute("INSERT INTO sqlite_master VALUES (?, ?, ?, 0, ?)",
                   (typ, nm, nm if typ != 'trigger' else 't', sql))
    db.commit()
    db.close()
hostile("fifo-view.db", [
    ("table", "x", f"CREATE VIRTUAL TABLE x USING clog('{T}/fifo', threads)"),
    ("view", "v", "CREATE VIEW v AS SELECT * FROM x")])
hostile("log-trigger.db", [
    ("table", "x", f"CREATE VIRTUAL TABLE x USING clog('{T}/gen.clog', threads)"),
    ("trigger", "tr", "CREATE TRIGGER tr AFTER INSERT ON t BEGIN "
                      "SELECT count(*) FROM x; END")])
hostile("blocks-view.db", [
    ("view", "w", f"CREATE VIEW w AS SELECT clog_blocks('{T}/gen.clog')")])
EOP
# usedb DB SQL: opens DB with the extension and runs SQL; prints
# "error: ..." or the rows.
usedb () {
  timeout 20 "$PY" - "$EXT" "$T/$1" "$2" <<'EOP'
import sqlite3, sys
db = sqlite3.connect(sys.argv[2])
db.enable_load_extension(True)
db.load_extension(sys.argv[1])
try:
    print(db.execute(sys.argv[3]).fetchall())
except sqlite3.Error as e:
    print("error:", e)
EOP
}
out=$(usedb fifo-view.db "SELECT * FROM v"); rc=$?
diag "$out"
test $rc = 0 && case $out in error:*stored\ in\ the\ database*) true ;; *) false ;; esac
ok $? "a view over a stored clog table on a FIFO: refused, no hang"
out=$(usedb log-trigger.db "INSERT INTO t VALUES (1)"); rc=$?
diag "$out"
test $rc = 0 && case $out in error:*) true ;; *) false ;; esac
ok $? "a trigger reading a stored clog table: refused"
out=$(usedb log-trigger.db "SELECT count(*) FROM x"); rc=$?
test $rc = 0 && case $out in error:*stored\ in\ the\ database*) true ;; *) false ;; esac
ok $? "a stored clog table read directly: refused"
out=$(usedb blocks-view.db "SELECT * FROM w"); rc=$?
diag "$out"
test $rc = 0 && case $out in error:*unsafe*) true ;; *) false ;; esac
ok $? "clog_blocks from a stored view: refused"
out=$(usedb log-trigger.db "CREATE VIRTUAL TABLE temp.f USING clog('$T/fifo', threads)"); rc=$?
diag "$out"
test $rc = 0 && case $out in error:*not\ a\ regular\ file*) true ;; *) false ;; esac
ok $? "the extension refuses a FIFO at once"
out=$(timeout 20 "$PY" - "$EXT" "$T/gen.clog" <<'EOP'
import sqlite3, sys
db = sqlite3.connect(":memory:")
db.enable_load_extension(True)
db.load_extension(sys.argv[1])
db.execute(f"CREATE VIRTUAL TABLE temp.th USING clog('{sys.argv[2]}', threads)")
db.execute("CREATE TEMP VIEW tv AS SELECT count(*) FROM th")
print(db.execute("SELECT * FROM tv").fetchall())
EOP
)
is_rc=1; [ "$out" = "[(2,)]" ] && is_rc=0
ok $is_rc "tables and views the user makes in temp still work ($out)"
finish
