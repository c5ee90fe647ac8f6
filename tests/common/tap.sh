# SPDX-License-Identifier: BSD-3-Clause
# TAP helpers for shell tests: source this file.
#   ok COND-EXIT-STATUS "description"   e.g.  test -s out; ok $? "out written"
#   finish                              prints the plan, exits 0/1
tap_n=0
tap_failed=0
ok () {  # ok STATUS DESCRIPTION; returns STATUS's verdict, for diagnostics
  tap_n=$((tap_n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"
  else echo "not ok $tap_n - $2"; tap_failed=$((tap_failed + 1)); fi
  [ "$1" -eq 0 ]
}
diag () { echo "# $*"; }
skip_all () { echo "1..0 # SKIP $*"; exit 0; }
bail () { echo "Bail out! $*"; exit 1; }
finish () { echo "1..$tap_n"; [ $tap_failed -eq 0 ]; exit $?; }
# A scratch directory removed at exit.
tap_tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpetest.XXXXXX")
trap 'rm -rf "$tap_tmp"' EXIT
