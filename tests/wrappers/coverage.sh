#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The function list against mpi.h: every listed function is exported by
# liblmpe and libtmpe, and the generator refuses a list that misses or
# invents a function.
. "$top_srcdir/tests/common/tap.sh"
gen=$top_srcdir/mpe/wrappers/gen-wrappers.py
def=$top_srcdir/mpe/wrappers/mpi-funcs.def
exc=$top_srcdir/mpe/wrappers/mpi-funcs-excluded.def
hdr=$top_builddir/mpe/wrappers/mpi-h.i
list=$top_builddir/mpe/wrappers/mpi-funcs.txt
n=$(grep -c . "$list")
test "$n" -ge 600; ok $? "list has $n functions (MPICH 4 with large-count variants)"
grep -q '^MPI_Send_c MSG send ' "$list"; ok $? "large-count MPI_Send_c is wrapped as a send"
grep -q '^MPI_Psend_init MSG_INIT psend_init ' "$list"; ok $? "partitioned send is wrapped"
for lib in lmpe tmpe; do
  nm -D --defined-only "$top_builddir/mpe/.libs/lib$lib.so" | awk '$2 == "T" {print $3}' | sort > "$tap_tmp/$lib.syms"
  # libtmpe leaves the clock reads alone.
  cut -d' ' -f1 "$list" | sort \
    | if [ $lib = tmpe ]; then grep -vx -e MPI_Wtime -e MPI_Wtick; else cat; fi \
    > "$tap_tmp/want"
  missing=$(comm -23 "$tap_tmp/want" "$tap_tmp/$lib.syms" | head -5)
  test -z "$missing"; ok $? "lib$lib.so defines every listed function"
  [ -z "$missing" ] || diag "missing: $missing"
done
grep -qx MPI_Pcontrol "$tap_tmp/lmpe.syms"; ok $? "liblmpe defines MPI_Pcontrol"
! grep -qx MPI_Pcontrol "$tap_tmp/tmpe.syms"; ok $? "libtmpe leaves MPI_Pcontrol alone"
! grep -qx -e MPI_Wtime -e MPI_Wtick "$tap_tmp/tmpe.syms"; ok $? "libtmpe leaves MPI_Wtime and MPI_Wtick alone"
nm -D --defined-only "$top_builddir/mpe/.libs/libmpe_collchk.so" | awk '$2 == "T" {print $3}' > "$tap_tmp/cc.syms"
for f in MPI_Bcast MPI_Bcast_c MPI_Scatterv MPI_Alltoallw_c MPI_Comm_split MPI_Cart_create MPI_File_set_view MPI_Win_fence MPI_File_close; do
  grep -qx "$f" "$tap_tmp/cc.syms" || echo "$f"
done > "$tap_tmp/ccmiss"
test ! -s "$tap_tmp/ccmiss"; ok $? "libmpe_collchk checks collectives (both count forms), constructors, files and windows"
! grep -qx -e MPI_Send -e MPI_Bcast_init -e MPI_Ineighbor_alltoall "$tap_tmp/cc.syms"; ok $? "libmpe_collchk leaves point-to-point, persistent and neighborhood nonblocking calls alone"
for f in MPI_Ibcast MPI_Ibcast_c MPI_Ialltoallw MPI_Ibarrier MPI_Wait MPI_Testsome; do
  grep -qx "$f" "$tap_tmp/cc.syms" || echo "$f"
done > "$tap_tmp/ccmiss"
test ! -s "$tap_tmp/ccmiss"; ok $? "libmpe_collchk checks nonblocking collectives and finishes them in the wait and test calls ($(tr '\n' ' ' < "$tap_tmp/ccmiss"))"
mkdir "$tap_tmp/out"
python3 "$gen" "$def" "$exc" "$hdr" "$tap_tmp/out"; ok $? "generator accepts the list"
grep -v '^MPI_Ineighbor_alltoallw ' "$def" > "$tap_tmp/less.def"
python3 "$gen" "$tap_tmp/less.def" "$exc" "$hdr" "$tap_tmp/out" 2> "$tap_tmp/err"
test $? -ne 0; ok $? "a function missing from the list fails the build"
grep -q "MPI_Ineighbor_alltoallw is declared in mpi.h but neither" "$tap_tmp/err"; ok $? "and names it"
{ cat "$def"; echo "MPI_Not_a_function MSG plain 999 red"; } > "$tap_tmp/more.def"
python3 "$gen" "$tap_tmp/more.def" "$exc" "$hdr" "$tap_tmp/out" 2> "$tap_tmp/err"
test $? -ne 0; ok $? "a function mpi.h does not declare fails the build"
grep -q "MPI_Not_a_function is not declared" "$tap_tmp/err"; ok $? "and names it"
finish
