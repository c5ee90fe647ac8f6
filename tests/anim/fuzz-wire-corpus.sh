#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Replays the committed wire corpus through the live window's parser.
exec "$top_builddir/tests/anim/fuzz-wire-replay" \
  "$top_srcdir/tests/anim/corpus-wire"
