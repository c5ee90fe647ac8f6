#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Replays the committed fuzz corpus and the damaged-file corpus through
# the reader target, as they are and with their checksums recomputed
# (TAP from the driver).
LOGFMT_FUZZ_FIX_CHECKSUMS=1 exec "$top_builddir/tests/logfmt/fuzz-driver" \
  "$top_srcdir/tests/logfmt/corpus" "$top_srcdir/tests/tools/damaged"
