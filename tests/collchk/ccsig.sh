#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The collective checker's datatype signatures follow the MPI standard's
# type-matching rules on every predefined type, pair type, marker and
# derived-type combiner, MPI_BYTE and MPI_PACKED (the program prints TAP).
cd "${TMPDIR:-/tmp}" || exit 1
exec timeout 120 $MPIEXEC -n 1 "$top_builddir/tests/collchk/ccsig" < /dev/null
