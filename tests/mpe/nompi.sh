#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libmpe_nompi: a serial program compiled without mpi.h (-DCLOG_NOMPI)
# and linked without an MPI library logs with the ordinary MPE calls and
# gets a complete .clog; no MPI library is loaded.
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/mpe/common.sh"
prog=$B/tests/mpe/nompi
real=$B/tests/mpe/.libs/nompi
[ -x "$real" ] || real=$prog
timeout 60 "$prog" "$tap_tmp/serial" > out.txt 2> err.txt; r=$?
ok $r "the serial program runs without mpiexec and exits 0"
[ $r -eq 0 ] || sed 's/^/#   /' err.txt | head
grep -q "^bad 0$" out.txt; ok $? "every MPE call returned MPE_LOG_OK"
is "one stream" "$(val serial.clog streams)" 1
is "3000 events" "$(val serial.clog events)" 3000
is "the state is described" "$(val serial.clog state work)" red
is "1000 solo events" "$($LOGCHECK serial.clog | grep -c '^count 0 0 5000 1000$')" 1
! readelf -d "$real" "$B/mpe/.libs/libmpe_nompi.so" | grep NEEDED | grep -Eq "libmpi|libmpich|libpmpi"
ok $? "neither the program nor libmpe_nompi needs an MPI library"
! ls "$MPE_TMPDIR" | grep -q spill; ok $? "no local file is left"
finish
