#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Programs of the kinds MPE2's collective checker was tested with: ranks
# that describe the same data with different but matching datatypes
# (pair types against structs, MPI_UB or resized extents) run clean, and
# a program with one mistake gets exactly one report, from the rank at
# fault, the others saying only that another process erred.
. "$top_srcdir/tests/common/tap.sh"
cb=$top_builddir/tests/collchk
run () {
  np=$1; shift
  (cd "$tap_tmp" && timeout 120 $MPIEXEC -n "$np" "$@") \
    < /dev/null > "$tap_tmp/out" 2> "$tap_tmp/err"
}
show () { sed 's/^/#   /' "$tap_tmp/err" | head -12; }

for np in 2 4; do
  run $np "$cb/composite"; r=$?
  ok $r "composite ($np ranks): pair types against structs run clean"
  ! grep -q "Collective Checking" "$tap_tmp/err"; ok $? "composite ($np): no report" || show
  test "$(grep -c 'No Errors' "$tap_tmp/out")" -eq $np; ok $? "composite ($np): every rank got the data"
done
for mode in ub resized; do
  run 4 "$cb/scatterv" $mode; r=$?
  ok $r "scatterv ($mode extent): runs clean"
  ! grep -q "Collective Checking" "$tap_tmp/err"; ok $? "scatterv ($mode): no report" || show
  grep -q "^ No Errors" "$tap_tmp/out"; ok $? "scatterv ($mode): the blocks arrived"
done

# one_error RC PATTERN: the job failed, one report names the mistake, the
# other np-1 ranks only say another process erred.
one_error () {
  test "$1" -ne 0 && test "$1" -ne 124; ok $? "$3: the job is aborted ($1)"
  n=$(grep -c -- '--> .*mismatch\|--> inconsistent' "$tap_tmp/err")
  test "$n" -eq 1; ok $? "$3: exactly one report ($n)" || show
  grep -q -- "$2" "$tap_tmp/err"; ok $? "$3: the report is the mistake" || show
}
run 4 "$cb/wrong_scatterv"; r=$?
one_error $r "MPI_Scatterv (Rank 3) --> datatype signature mismatch: this process receives 80 x MPI_2INT (160 basic elements), root 0 sends 1 x a derived datatype (80 basic elements) to it (sendcounts\[3\])" "wrong_scatterv"
test "$(grep -c 'Error on another process' "$tap_tmp/err")" -eq 3; ok $? "wrong_scatterv: the three others say another process erred" || show
run 4 "$cb/wrong_scatterv" resized; r=$?
one_error $r "MPI_Scatterv (Rank 3) --> datatype signature mismatch: this process receives 80 x MPI_2INT" "wrong_scatterv (resized)"
run 3 "$cb/composite" wrong; r=$?
one_error $r "MPI_Bcast (Rank 2) --> inconsistent datatype signature: 1 x a derived datatype (2 basic elements) here, 1 x MPI_FLOAT_INT (2 basic elements) at root 0" "wrong_composite"
finish
