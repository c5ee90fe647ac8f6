#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Replays the committed fuzz corpus through the chunk target: each file
# laid over one chunk of a sound template log (TAP from the driver).
exec "$top_builddir/tests/logfmt/fuzz-chunk-driver" \
  "$top_srcdir/tests/logfmt/corpus"
