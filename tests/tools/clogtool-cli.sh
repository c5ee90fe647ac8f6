#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool's command line: help, version, usage errors, missing files.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"

run 0 "clogtool --help" "$clogtool" --help
grep -q '^Usage: clogtool COMMAND' "$tap_tmp/out"; ok $? "global help has usage"
for c in print stats verify repair convert recover gen; do
  grep -q "^  $c " "$tap_tmp/out"; ok $? "global help lists $c"
done
run 0 "clogtool --version" "$clogtool" --version
grep -q '^clogtool (mpetools) [0-9]' "$tap_tmp/out"; ok $? "version line"

for c in print stats verify repair gen convert recover; do
  run 0 "clogtool $c --help" "$clogtool" $c --help
  grep -qi 'usage' "$tap_tmp/out"; ok $? "$c --help prints a usage"
done
run 0 "clogtool help stats" "$clogtool" help stats
grep -q '^Usage: clogtool stats' "$tap_tmp/out"; ok $? "help stats = stats --help"

# Usage errors: exit 2 and a message naming the problem.
usage_err () {
  pat=$1; shift
  run 2 "usage error: $*" "$clogtool" "$@"
  grep -q -- "$pat" "$tap_tmp/err"; ok $? "message mentions '$pat'"
}
usage_err "unknown command 'frobnicate'" frobnicate
usage_err "COMMAND"
usage_err "unknown option '--bogus'" stats --bogus x.clog
usage_err "no FILE given" print
usage_err "too many FILEs" stats a.clog b.clog
usage_err "bad time '1.5x'" print --from 1.5x x.clog
usage_err "bad time '-1'" print --to -1 x.clog
usage_err "bad --kind 'begin,bogus'" print --kind begin,bogus x.clog
usage_err "bad --rank 'one'" print --rank one x.clog
usage_err "bad --limit '-3'" print --limit -3 x.clog
usage_err "needs a value" print x.clog --rank
usage_err "from is after" print --from 2s --to 1s x.clog
usage_err "no output given" gen -p 2
usage_err "bad --procs '0'" gen -o x.clog -p 0
usage_err "bad --events 'many'" gen -o x.clog -n many
usage_err "unexpected argument 'y.clog'" gen x.clog y.clog
usage_err "unexpected argument 'y.clog'" gen -o x.clog y.clog
usage_err "no output given" repair in.clog
usage_err "no input FILE" repair -o out.clog
usage_err "no FILE given" verify

# A missing file: exit 1 and a message naming it, for every reader.
missing=$tap_tmp/does-not-exist.clog
for c in print stats verify; do
  run 1 "$c of a missing file" "$clogtool" $c "$missing"
  grep -q "^clogtool: .*does-not-exist.clog" "$tap_tmp/err"
  ok $? "$c names the missing file"
done
run 1 "repair of a missing file" "$clogtool" repair "$missing" -o "$tap_tmp/o.clog"
grep -q "^clogtool: .*does-not-exist.clog" "$tap_tmp/err"
ok $? "repair names the missing file"
[ ! -e "$tap_tmp/o.clog" ]; ok $? "repair wrote no output"

# Not a log at all.
printf 'hello, this is not a log\n' >"$tap_tmp/text.clog"
run 1 "stats of a text file" "$clogtool" stats "$tap_tmp/text.clog"
grep -q "^clogtool: .*text.clog" "$tap_tmp/err"; ok $? "names the bad file"
: >"$tap_tmp/empty.clog"
run 1 "print of an empty file" "$clogtool" print "$tap_tmp/empty.clog"
run 1 "verify of an empty file" "$clogtool" verify "$tap_tmp/empty.clog"

# gen refuses an unwritable path.
run 1 "gen into a missing directory" "$clogtool" gen -o "$tap_tmp/no/dir/x.clog" -n 10
grep -q "^clogtool: " "$tap_tmp/err"; ok $? "gen error message"
# gen takes its file as the operand too: the same bytes as with -o.
"$clogtool" gen -o "$tap_tmp/g-opt.clog" -p 3 -n 200 >/dev/null 2>&1
run 0 "gen with the file as operand" "$clogtool" gen -p 3 "$tap_tmp/g-arg.clog" -n 200
cmp -s "$tap_tmp/g-opt.clog" "$tap_tmp/g-arg.clog"; ok $? "gen FILE writes what gen -o FILE does"
# A full disk on output: exit 1 with a message, not a silent loss.
"$clogtool" gen -o "$tap_tmp/small.clog" -n 100 >/dev/null 2>&1
for c in "print" "stats --json" "--help"; do
  if [ "$c" = --help ]; then set -- --help; else set -- $c "$tap_tmp/small.clog"; fi
  "$clogtool" "$@" >/dev/full 2>"$tap_tmp/err"
  [ $? -eq 1 ]; ok $? "$c to a full disk exits 1"
  grep -q "^clogtool: error writing output: " "$tap_tmp/err"
  ok $? "$c to a full disk says so"
done
finish
