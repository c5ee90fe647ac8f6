#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The Fortran bindings, compiled with $MPIFC against libmpe.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
$MPIFC -o ftest "$top_srcdir/tests/mpe/fortran.f90" \
  -I"$top_srcdir/mpe/include" -L"$B/mpe/.libs" -lmpe \
  -Wl,-rpath,"$B/mpe/.libs" -Wl,-rpath,"$B/logfmt/.libs" > cc.txt 2>&1
ok $? "fortran program builds"
run 2 ./ftest; ok $? "fortran program runs"
is "streams" "$(val fortran.clog streams)" 2
is "rank 1 state begins" "$(val fortran.clog count 1 0 600)" 25
is "rank 0 state ends" "$(val fortran.clog count 0 0 601)" 25
is "packed cargo" "$($LOGCHECK fortran.clog | grep '^cargo 5000 ')" "cargo 5000 value 42"
is "state name from Fortran" "$($LOGCHECK fortran.clog | grep '^state ')" \
  "state FortranState orange"
finish
