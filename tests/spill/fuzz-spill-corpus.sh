#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Replays the committed spill file corpus through the fuzz target.
exec "$top_builddir/tests/spill/fuzz-spill-replay" \
  "$top_srcdir/tests/spill/corpus-spill"
