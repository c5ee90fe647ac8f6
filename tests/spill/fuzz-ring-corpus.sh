#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Replays the committed ring file corpus through the fuzz target.
exec "$top_builddir/tests/spill/fuzz-ring-replay" \
  "$top_srcdir/tests/spill/corpus-ring"
