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
exp="cc -I/I1 -I/I2 a.c -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -lmpe_collchk -Wl,--pop-state"; t -mpicheck -show a.c
exp="cc -I/I1 -I/I2 a.c -L/L -Wl,--push-state,--no-as-needed -llmpe -lmpe -pthread -Wl,--pop-state"; t -norpath -mpilog -show a.c
# A library directory the loader searches anyway gets no run-time path.
out=$(MPECC_LIBDIR=/usr/lib/x86_64-linux-gnu MPECC_INCDIR=/I MPECC_CC=cc sh "$top_builddir/mpe/mpecc" -log -show a.c)
test "$out" = "cc -I/I a.c -L/usr/lib/x86_64-linux-gnu -Wl,--push-state,--no-as-needed -lmpe -Wl,--pop-state"
r=$?; ok $r "no run-path for a system library directory"; [ $r -eq 0 ] || diag "got: $out"
# Installed (non-system prefix): the run-path is there without MPECC_LIBDIR.
out=$(MPECC_INCDIR=/I MPECC_CC=cc sh "$top_builddir/mpe/mpecc" -log -show a.c)
case $out in *"-Wl,-rpath,"*) r=0 ;; *) r=1 ;; esac
ok $r "the configured prefix's library directory is a run-path"; [ $r -eq 0 ] || diag "got: $out"
exp="cc -I/I1 -I/I2 -DMPE_GRAPHICS a.c -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -lmpe -pthread -Wl,--pop-state"; t -graphics -show a.c
exp="cc -I/I1 -I/I2 -DMPE_GRAPHICS a.c -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -llmpe -lmpe -pthread -Wl,--pop-state"; t -mpilog -graphics -show a.c
exp="cc -I/I1 -I/I2 -DMPE_GRAPHICS a.c -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -ltmpe -lmpe -pthread -Wl,--pop-state"; t -graphics -mpitrace -show a.c
exp="cc -I/I1 -I/I2 -DMPE_GRAPHICS -c a.c"; t -graphics -show -c a.c
out=$(MPECC_LIBDIR=/L MPECC_INCDIR=/I MPEFC_FC=gfc sh "$top_builddir/mpe/mpefc" -mpilog -show a.f)
test "$out" = "gfc -I/I a.f -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -llmpe -lmpe -pthread -Wl,--pop-state"
r=$?; ok $r "mpefc runs mpecc with the Fortran compiler"; [ $r -eq 0 ] || diag "got: $out"
MPECC_LIBDIR=/L sh "$top_builddir/mpe/mpefc" -show a.f 2>&1 >/dev/null | grep -q "^mpefc: warning"
ok $? "mpefc names itself in its messages"
m -show a.c 2> "$tap_tmp/err" > /dev/null
grep -q "warning: no profiling option" "$tap_tmp/err"; ok $? "warns without a profiling option"
m -h | grep -q -- "-mpilog"; ok $? "-h prints the options"
# A second PMPI layer would be linked and never called: refused, not
# dropped in silence.
for pair in "-mpilog -mpicheck" "-mpicheck -mpilog" "-mpitrace -mpilog" "-mpianim -mpicheck"; do
  m $pair -show a.c > "$tap_tmp/out" 2> "$tap_tmp/err"; r=$?
  test $r -eq 2 && test ! -s "$tap_tmp/out" && grep -q "cannot be combined" "$tap_tmp/err"
  ok $? "mpecc $pair is refused ($r)" || sed 's/^/#   /' "$tap_tmp/err"
done
m -nolog -mpilog -show a.c > /dev/null 2>&1; test $? -eq 2; ok $? "-nolog under -mpilog is refused"
m -log -nolog -show a.c > /dev/null 2>&1; test $? -eq 2; ok $? "-log with -nolog is refused"
exp="cc -I/I1 -I/I2 a.c -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -lmpe_collchk -lmpe -Wl,--pop-state"; t -mpicheck -log -show a.c
exp="cc -I/I1 -I/I2 a.c -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -ltmpe -lmpe_null -Wl,--pop-state"; t -nolog -mpitrace -show a.c
exp="cc -I/I1 -I/I2 a.c -o a -Wl,-rpath,/L -L/L -Wl,--push-state,--no-as-needed -llmpe -lmpe -pthread -Wl,--pop-state"; t -mpilog -log -mpilog -show a.c -o a
# Questions to the compiler build nothing and warn about nothing.
m --version > "$tap_tmp/out" 2> "$tap_tmp/err"; r=$?
test $r -eq 0 && test ! -s "$tap_tmp/err" && grep -q "^mpecc (mpetools " "$tap_tmp/out"
ok $? "--version: mpecc's and the compiler's, no warning ($r)" || sed 's/^/#   /' "$tap_tmp/err" "$tap_tmp/out"
# ... and reach it alone: MPICH's mpicc answers -v only as its sole argument.
exp="cc -v"; t -show -v
exp="cc --version"; t --version -show
for q in -v -dumpversion; do
  m $q > /dev/null 2> "$tap_tmp/err"; r=$?
  test $r -eq 0 && ! grep -q warning "$tap_tmp/err"; ok $? "$q: no warning ($r)"
done
m > /dev/null 2>&1; test $? -eq 1; ok $? "no arguments is an error"
finish
