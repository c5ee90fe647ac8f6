#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Every header `make install` installs compiles on its own, twice in a row
# (include guard), as C and as C++, with warnings as errors: a user's
# program may include any one of them first.  A Fortran include file (one
# that starts with a "!" comment) compiles in fixed and in free form with
# $MPIFC (when there is one: it is installed for Fortran programs only).
# The list is the Makefile's INSTALLED_HEADER_FILES (as $installed_headers);
# the include path is the public include roots only, as after an install.
. "$top_srcdir/tests/common/tap.sh"
S=$top_srcdir
[ -n "$installed_headers" ] || bail "no header list from the Makefile"
inc="-I$S/logfmt/include -I$S/mpe/include $MPI_CFLAGS"

# Every header under the include roots of the listed ones (logfmt/include,
# mpe/include) is listed: nothing public is left uninstalled or unchecked.
roots=$(for h in $installed_headers; do echo "${h%%/include/*}/include"; done |
        sort -u)
for h in $(cd "$S" && find $roots -name '*.h' | sort); do
  case " $installed_headers " in
    *" $h "*) ;;
    *) ok 1 "$h is in an include root but not installed" ;;
  esac
done

# compile WHAT COMMAND...: one TAP line, the compiler's output on failure.
compile () {
  what=$1; shift
  "$@" > "$tap_tmp/err" 2>&1
  r=$?; ok $r "$what"
  [ $r -eq 0 ] || sed 's/^/#   /' "$tap_tmp/err" | head -10
}
t=$tap_tmp/t
for h in $installed_headers; do
  if [ "$(head -c 1 "$S/$h")" = "!" ]; then
    [ -n "$MPIFC" ] || continue
    # By its name on the include path, as users write it (a full path
    # may not fit in a fixed-form line).
    printf "      subroutine t\n      include '%s'\n      end\n" \
      "$(basename "$h")" > $t.f
    compile "$h compiles on its own (Fortran, fixed form)" \
      $MPIFC -Wall -Werror -I"$(dirname "$S/$h")" -c -o $t.o $t.f
    sed 's/^ *//' $t.f > $t.f90
    compile "$h compiles on its own (Fortran, free form)" \
      $MPIFC -Wall -Werror -I"$(dirname "$S/$h")" -c -o $t.o $t.f90
    continue
  fi
  printf '#include "%s"\n#include "%s"\nint mpetools_header_test;\n' \
    "$S/$h" "$S/$h" > $t.c
  cp $t.c $t.cc
  compile "$h compiles on its own (C99)" \
    ${CC:-cc} -std=c99 -Wall -Wextra -Werror $inc -c -o $t.o $t.c
  compile "$h compiles on its own (C++11)" \
    ${CXX:-c++} -std=c++11 -Wall -Wextra -Werror $inc -c -o $t.o $t.cc
done
finish
