# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the wrapper tests (sourced after tests/common/tap.sh).
#   wrun NP PROG ARGS...   runs PROG under mpiexec in $tap_tmp with the log
#                          prefix $tap_tmp/log; output in $tap_tmp/run.out
#   wlog                   wcheck's summary of that log into $tap_tmp/sum
#   has "LINE" "what"      asserts the summary has exactly this line
#   hasnt "REGEX" "what"   asserts no summary line matches
#   count "REGEX"          prints the number of summary lines matching
wb=$top_builddir/tests/wrappers
LD_LIBRARY_PATH=$top_builddir/mpe/.libs:$top_builddir/logfmt/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
MPE_LOGFILE_PREFIX=$tap_tmp/log
export MPE_LOGFILE_PREFIX
wrun () {
  np=$1; shift
  rm -f "$tap_tmp"/log*
  (cd "$tap_tmp" && timeout 120 $MPIEXEC -n "$np" "$@") \
    > "$tap_tmp/run.out" 2> "$tap_tmp/run.err"
  rc=$?
  if [ $rc -ne 0 ]; then
    diag "mpiexec failed ($rc):"; sed 's/^/#   /' "$tap_tmp/run.err" | head -20
  fi
  return $rc
}
wlog () {
  f=$(ls "$tap_tmp"/log* 2>/dev/null | head -1)
  if [ -z "$f" ]; then diag "no log file written"; return 1; fi
  "$wb/wcheck" "$f" > "$tap_tmp/sum" 2> "$tap_tmp/sum.err"
  rc=$?
  [ $rc -eq 0 ] || sed 's/^/#   /' "$tap_tmp/sum.err"
  return $rc
}
has () {
  grep -qxF -- "$1" "$tap_tmp/sum"
  _r=$?
  ok $_r "${2:-$1}"
  [ $_r -eq 0 ] || { diag "missing: $1"; grep -F -- "$(echo "$1" | cut -d' ' -f1-2)" "$tap_tmp/sum" | head -8 | sed 's/^/#   have: /'; }
}
hasnt () {
  ! grep -qE -- "$1" "$tap_tmp/sum"
  _r=$?
  ok $_r "${2:-no line matches $1}"
  [ $_r -eq 0 ] || grep -E -- "$1" "$tap_tmp/sum" | head -5 | sed 's/^/#   found: /'
}
count () { grep -cE -- "$1" "$tap_tmp/sum"; }
nesting_ok () {
  hasnt '^nesting .* BAD$' "every state begin has its end"
}
