# SPDX-License-Identifier: BSD-3-Clause
# Shared set-up of the clogtool tests: source after tests/common/tap.sh.
clogtool=$top_builddir/clogtool
[ -x "$clogtool" ] || bail "no $clogtool"
# Debian's python3 if there is one: it starts much faster than shims.
python=$(command -v /usr/bin/python3 || command -v python3) \
  || bail "python3 is needed"

# run EXPECTED-STATUS DESCRIPTION CMD...: output in $tap_tmp/out, $tap_tmp/err
run () {
  want=$1; what=$2; shift 2
  "$@" >"$tap_tmp/out" 2>"$tap_tmp/err"
  got=$?
  [ "$got" -eq "$want" ]
  ok $? "$what (exit $got, want $want)"
  [ "$got" -eq "$want" ] || { diag "stderr:"; sed 's/^/#   /' "$tap_tmp/err"; }
}

# Generates the deterministic log used by the tests, once per test.
gen_log () {
  "$clogtool" gen -o "$1" -p "${2:-3}" -t "${3:-2}" -n "${4:-3000}" \
    --seed "${5:-42}" >/dev/null 2>"$tap_tmp/gen.err" \
    || bail "clogtool gen failed: $(cat "$tap_tmp/gen.err")"
}
