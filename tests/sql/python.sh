#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The loadable extension from Python's standard sqlite3 module: the same
# figures as clogtool stats, and a window query's rows.
. "$top_srcdir/tests/common/tap.sh"
CLOGTOOL="$top_builddir/clogtool"
T="$tap_tmp"
EXT="$top_builddir/sql/.libs/clogsql"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

test -f "$EXT.so"; ok $? "the extension is built ($EXT.so)"
# A sanitizer build's extension needs its runtime loaded first into the
# (uninstrumented) interpreter and shell; they leak by design.
san=$(ldd "$EXT.so" 2>/dev/null | awk '/lib(asan|ubsan|tsan)/ { printf "%s ", $3 }')
if [ -n "$san" ]; then
  LD_PRELOAD="$san"; export LD_PRELOAD
  ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"; export ASAN_OPTIONS
fi
"$PY" -c 'import sqlite3; sqlite3.connect(":memory:").enable_load_extension(True)'
ok $? "$PY's sqlite3 can load extensions"
"$CLOGTOOL" convert -q "$top_srcdir/tests/interop/data/srtest.clog2" "$T/sr.clog" &&
"$CLOGTOOL" gen -o "$T/gen.clog" -p 3 -t 2 -n 20000 > /dev/null
ok $? "test logs written"
for L in "$T/sr.clog" "$T/gen.clog"; do
  "$CLOGTOOL" stats --json "$L" > "$T/stats.json"
  "$PY" "$top_srcdir/tests/sql/check.py" python "$T/stats.json" "$EXT" "$L"
  ok $? "$(basename "$L"): Python + extension equal clogtool stats, also after an interrupted scan"
  CLOGSQL_AHEAD=1 "$PY" "$top_srcdir/tests/sql/check.py" python "$T/stats.json" "$EXT" "$L"
  ok $? "$(basename "$L"): the same with the read-ahead worker"
done
# The sqlite3 shell loads it too (scripts/setup installs it).
n=$(printf ".load %s\nCREATE VIRTUAL TABLE temp.threads USING clog('%s');\nSELECT count(*) FROM threads;\n" \
      "$EXT" "$T/gen.clog" | sqlite3)
[ "$n" = 6 ]; ok $? "the sqlite3 shell loads it ($n threads)"
finish
