# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the sampling tests (sourced after tests/common/tap.sh and
# tests/mpe/common.sh).
S=$B/tests/sampling
CPCHECK=$S/cpcheck
# The binaries libtool leaves in .libs (the wrapper scripts would be the
# modules of the log otherwise).
HOT=$S/hot
[ -x "$S/.libs/hot" ] && HOT=$S/.libs/hot
HOTNOFP=$S/hot-nofp
[ -x "$S/.libs/hot-nofp" ] && HOTNOFP=$S/.libs/hot-nofp
PLUGIN=$B/examples/plugin/.libs/plugin-count.so
# The libtool binaries in .libs need the build's libraries.
LD_LIBRARY_PATH=$B/mpe/.libs:$B/logfmt/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
export MPE_LOGFILE_PREFIX=$PWD/hot
