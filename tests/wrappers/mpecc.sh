#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpecc: command shapes of each option (-show), help, errors.
. "$top_srcdir/tests/common/tap.sh"
m () { MPECC_LIBDIR=/L MPECC_INCDIR=/I1:/I2 MPECC_CC=cc sh "$top_builddir/mpe/mpecc" "$@"; }
t () { out=$(m "$@" 2>/dev/null); test "$out" = "$exp"; r=$?; ok $r "mpecc $*"; [ $r -eq 0 ] || diag "got: $out"; }
exp="cc -I/I1 -I/I2 a.c -o a -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -llmpe -lmpe -pthread -Wl,--pop-state"; t -mpilog -show a.c -o a
exp="cc -I/I1 -I/I2 a.c -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -ltmpe -Wl,--pop-state"; t -show -mpitrace a.c
exp="cc -I/I1 -I/I2 a.o -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -lampe -lmpe -pthread -Wl,--pop-state"; t -mpianim a.o -show
exp="cc -I/I1 -I/I2 a.c -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -lmpe -Wl,--pop-state"; t -log -show a.c
exp="cc -I/I1 -I/I2 a.c -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -lmpe_null -Wl,--pop-state"; t -nolog -show a.c
exp="cc -I/I1 -I/I2 -c a.c"; t -mpilog -show -c a.c
exp="f90 -I/I1 -I/I2 a.f90 -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -llmpe -lmpe -pthread -Wl,--pop-state"; t -mpicc=f90 -mpilog -show a.f90
m -show a.c 2> "$tap_tmp/err" > /dev/null
grep -q "warning: no profiling option" "$tap_tmp/err"; ok $? "warns without a profiling option"
m -h | grep -q -- "-mpilog"; ok $? "-h prints the options"
m > /dev/null 2>&1; test $? -eq 1; ok $? "no arguments is an error"
finish
