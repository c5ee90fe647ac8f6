#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Replays the committed fuzz corpus through the reader (TAP from the driver).
exec "$top_builddir/tests/logfmt/fuzz-driver" "$top_srcdir/tests/logfmt/corpus"
