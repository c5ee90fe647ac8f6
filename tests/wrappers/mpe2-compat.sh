#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# What MPE2 users did still works: a CLOG2 written from a log whose
# colours are MPE1 "colour:pattern" keeps them.
. "$top_srcdir/tests/common/tap.sh"
clogtool=$top_builddir/clogtool
data=$top_srcdir/tests/interop/data

# Colour patterns: MPE2's fpilog.clog has "green:light_gray".
patterns () { grep -a -o -e 'green:light_gray' -e 'yellow:dimple3' "$1" | sort -u | wc -l; }
"$clogtool" convert -q "$data/fpilog.clog" "$tap_tmp/f.clog2" 2> "$tap_tmp/err"
ok $? "convert fpilog.clog to CLOG2"
test "$(patterns "$tap_tmp/f.clog2")" -eq 2; ok $? "CLOG2 keeps the colour patterns as written"
"$clogtool" convert -q "$data/fpilog.clog" "$tap_tmp/f.clog" 2> "$tap_tmp/err" &&
  "$clogtool" convert -q "$tap_tmp/f.clog" "$tap_tmp/g.clog2" 2>> "$tap_tmp/err"
ok $? "convert fpilog.clog to .clog, then to CLOG2"
test "$(patterns "$tap_tmp/g.clog2")" -eq 2; ok $? "the patterns survive a .clog in between"

finish
