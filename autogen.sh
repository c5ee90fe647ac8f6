#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Regenerates configure and the Makefile.in files.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
am=$(automake --version | sed -n '1s/.* //p')
al=$(aclocal --version | sed -n '1s/.* //p')
if [ "$am" != "$al" ]; then
  echo "autogen.sh: automake $am and aclocal $al differ; install matching versions" >&2
  exit 1
fi
autoreconf -fi
