#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libmpe_collchk: a correct program of every checked collective runs
# unchanged (same output, exit 0); each kind of mistake is caught with the
# right message, the call stack of the call and an aborted job; Fortran
# programs relinked by hand with mpif77/mpif90 -lmpe_collchk are checked.
. "$top_srcdir/tests/common/tap.sh"
cb=$top_builddir/tests/collchk
libs=$top_builddir/mpe/.libs
# run NP PROG ARGS...: output in $tap_tmp/out, $tap_tmp/err (stdin from
# /dev/null: mpiexec would read the list of mistakes below).
run () {
  np=$1; shift
  (cd "$tap_tmp" && timeout 120 $MPIEXEC -n "$np" "$@") \
    < /dev/null > "$tap_tmp/out" 2> "$tap_tmp/err"
}
# fails RC: the job failed by itself: not 0, and not 124, the timeout
# stopping a job that hung (an abort on the checker's communicator did).
fails () { test "$1" -ne 0 && test "$1" -ne 124; }
has_err () {   # "Rank ?": any rank (an intercommunicator's merged rank)
  pat=$(printf '%s' "$1" | sed 's/[][\\.*^$/]/\\&/g; s/(Rank ?)/(Rank [0-9]*)/')
  grep -q -- "$pat" "$tap_tmp/err"; r=$?
  ok $r "$2"
  [ $r -eq 0 ] || { diag "missing: $1"; sed 's/^/#   /' "$tap_tmp/err" | head -12; }
}

for np in 1 3 4; do
  run $np "$cb/ccgood-plain" "$tap_tmp/f.dat"; ok $? "correct program, $np ranks, without the checker"
  cp "$tap_tmp/out" "$tap_tmp/plain.out"; rm -f "$tap_tmp/f.dat"
  run $np "$cb/ccgood-check" "$tap_tmp/f.dat"; r=$?
  ok $r "correct program, $np ranks, checked: exit 0"
  [ $r -eq 0 ] || sed 's/^/#   /' "$tap_tmp/err" | head
  cmp -s "$tap_tmp/plain.out" "$tap_tmp/out"; ok $? "checked run prints the same results ($np ranks)"
  test "$(grep -c checksum "$tap_tmp/out")" -eq $np; ok $? "one checksum per rank ($np)"
  ! grep -q "Collective Checking" "$tap_tmp/err"; ok $? "no report for a correct program ($np)"
  rm -f "$tap_tmp/f.dat"
done

# mode | rank 2's message
while IFS='|' read -r mode msg; do
  run 3 "$cb/ccbad" "$mode"; r=$?
  fails $r; ok $? "$mode: the job is aborted (not hung: $r)"
  has_err "Collective Checking: $msg" "$mode: reported as '$msg'"
  # A nonblocking v-collective's per-peer mismatch is found by the rank
  # at fault alone (no agreement step): rank 0 may run on to the end.
  [ "$mode" = nb-scatterv ] || ! grep -q "not caught" "$tap_tmp/out"
  ok $? "$mode: the collective was not run"
  grep -q "^Collective Checking: .* --> called at main+0x[0-9a-f]* (ccbad.c:[0-9]*)" "$tap_tmp/err"
  ok $? "$mode: the call site is named (function, file and line)"
  grep -q '^\[[0-9]\]   \[0\] main+0x[0-9a-f]* (ccbad.c:[0-9]*)' "$tap_tmp/err"
  ok $? "$mode: the call stack starts at the user's call, with file and line"
  case $mode in
    bytes|nb-*|inter-nb-*|inter-type) ;;   # the one at fault may abort first
    *) has_err "--> Error on another process" "$mode: the other ranks say so" ;;
  esac
done <<'MODES'
root|MPI_Bcast (Rank 2) --> inconsistent root: 1 here, 0 at rank 0
op|MPI_Reduce (Rank 2) --> inconsistent operator: MPI_MAX here, MPI_SUM at rank 0
inplace|MPI_Allreduce (Rank 2) --> inconsistent use of MPI_IN_PLACE: passed here, not passed at rank 0
type|MPI_Bcast (Rank 2) --> inconsistent datatype signature: 1 x MPI_FLOAT (1 basic element) here, 1 x MPI_INT (1 basic element) at root 0
scatterv|MPI_Scatterv (Rank 2) --> datatype signature mismatch: this process receives 4 x MPI_INT (4 basic elements), root 0 sends 3 x MPI_INT (3 basic elements) to it (sendcounts[2])
call|MPI_Reduce (Rank 2) --> inconsistent collective calls: this process calls MPI_Reduce, rank 0 calls MPI_Bcast
bytes|MPI_Gather (Rank 1) --> datatype signature mismatch: this process sends 1 x MPI_INT (1 basic element), root 0 receives 4 x MPI_BYTE (4 basic elements) from each process
nb-root|MPI_Ibcast (Rank 2) --> inconsistent root: 1 here, 0 at rank 0
nb-op|MPI_Iallreduce (Rank 2) --> inconsistent operator: MPI_MAX here, MPI_SUM at rank 0
nb-type|MPI_Ireduce (Rank 2) --> inconsistent datatype signature: 1 x MPI_FLOAT (1 basic element) here, 1 x MPI_INT (1 basic element) at rank 0
nb-inplace|MPI_Iallreduce (Rank 2) --> inconsistent use of MPI_IN_PLACE: passed here, not passed at rank 0
nb-scatterv|MPI_Iscatterv (Rank 2) --> datatype signature mismatch: this process receives 4 x MPI_INT (4 basic elements), root 0 sends 3 x MPI_INT (3 basic elements) to it (sendcounts[2])
inter-root|MPI_Bcast (Rank ?) --> inconsistent root: 0 here, but in the root's group all other processes pass MPI_PROC_NULL (-1)
inter-op|MPI_Allreduce (Rank ?) --> inconsistent operator: MPI_MAX here, MPI_SUM at rank 0 of group
inter-type|MPI_Bcast (Rank ?) --> inconsistent datatype signature: 1 x MPI_FLOAT (1 basic element) here, 1 x MPI_INT (1 basic element) at the root
inter-inplace|MPI_Allreduce (Rank ?) --> MPI_IN_PLACE passed on an intercommunicator, where it is not allowed
inter-nb-root|MPI_Ibcast (Rank ?) --> inconsistent root: 1 here, the root is rank 0 of the remote group (it passes MPI_ROOT)
MODES
# Built the MPE2 way: mpecc -mpicheck.
(cd "$tap_tmp" && MPECC_LIBDIR=$libs MPECC_INCDIR=$top_srcdir/mpe/include \
   sh "$top_builddir/mpe/mpecc" -mpicheck "$top_srcdir/tests/collchk/ccbad.c" \
   -o ccbad-mpecc) 2> "$tap_tmp/cc.err"
ok $? "mpecc -mpicheck builds a program"
run 3 ./ccbad-mpecc op; fails $?; ok $? "mpecc -mpicheck: the mistake aborts the job"
has_err "Collective Checking: MPI_Reduce (Rank 2) --> inconsistent operator" "mpecc -mpicheck: reported"
# Run without mpiexec: the process dies before MPI_Init, and hydra may
# drop what it wrote to stderr when it tears the job down (seen once
# under load in distcheck, 2026-11-28: an empty stderr).
(cd "$tap_tmp" && timeout 120 "$cb/ccbad" noinit) \
  < /dev/null > "$tap_tmp/out" 2> "$tap_tmp/err"
fails $?; ok $? "a collective before MPI_Init fails"
has_err "Collective Checking: MPI_Barrier --> MPI_Init() has not been called!" \
  "a collective before MPI_Init is named"
run 3 "$cb/ccbad" none; ok $? "no mistake: exit 0"
grep -q "not caught: none" "$tap_tmp/out"; ok $? "no mistake: runs to the end"

# Fortran, relinked by hand: the checker is kept although no Fortran
# object names a C MPI function.
fdir=$(dirname "$MPIFC")
cp "$top_srcdir/tests/collchk/ccreal.f" "$top_srcdir/tests/collchk/ccgoodf.f90" "$tap_tmp/"
(cd "$tap_tmp" && "$fdir/mpif77" -g ccreal.f -o ccreal -L"$libs" -Wl,-rpath,"$libs" -lmpe_collchk) 2> "$tap_tmp/cc.err"
ok $? "mpif77 ccreal.f -lmpe_collchk links"
run 3 ./ccreal; r=$?
fails $r; ok $? "Fortran REAL vs DOUBLE PRECISION: the job is aborted"
has_err "Collective Checking: MPI_Allreduce (Rank 2) --> inconsistent datatype signature: 1 x MPI_REAL (1 basic element) here, 1 x MPI_DOUBLE_PRECISION (1 basic element) at rank 0" \
  "Fortran REAL vs DOUBLE PRECISION reported"
grep -q '(ccreal.f:1[45])' "$tap_tmp/err"; ok $? "the call stack names the Fortran source line"
(cd "$tap_tmp" && "$MPIFC" -g ccgoodf.f90 -o good-plain && \
  "$MPIFC" -g ccgoodf.f90 -o good-check -L"$libs" -Wl,-rpath,"$libs" -lmpe_collchk) 2> "$tap_tmp/cc.err"
ok $? "mpif90 builds the correct Fortran program with and without -lmpe_collchk"
readelf -d "$tap_tmp/good-check" | grep -q 'NEEDED.*libmpe_collchk'; ok $? "mpif90 ... -lmpe_collchk keeps the library"
run 3 ./good-plain; cp "$tap_tmp/out" "$tap_tmp/plain.out"
run 3 ./good-check; ok $? "correct Fortran program checked: exit 0"
cmp -s "$tap_tmp/plain.out" "$tap_tmp/out"; ok $? "same output checked and unchecked"
grep -Eq "sum +6\.0 +6\.0 +6\.0 max +3\.0" "$tap_tmp/out"; ok $? "Fortran results are right"
finish
