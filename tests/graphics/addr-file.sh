#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpegraph's --addr-file holds the token: it is its owner's alone (mode
# 0600) from the start, under a umask that would give 0644, also when it
# replaces an older file.
. "$top_srcdir/tests/common/tap.sh"
G=$top_builddir/anim/src/mpegraph
cd "$tap_tmp" || bail "no scratch directory"
umask 022
echo old > addr
chmod 644 addr
timeout 60 "$G" --headless --addr-file addr > out.txt 2> err.txt &
pid=$!
i=0; while ! grep -q MPE_GRAPHICS_ADDR addr 2>/dev/null && [ $i -lt 300 ]; do
  sleep 0.1; i=$((i+1)); done
grep -q "export MPE_GRAPHICS_ADDR=" addr; ok $? "the address is written"
mode=$(stat -c %a addr)
test "$mode" = 600; ok $? "the file is mode 600 (got $mode)"
ls -a | grep -v '^\.\{1,2\}$' | grep -v -x -e addr -e out.txt -e err.txt -e extra.txt \
  > extra.txt
test ! -s extra.txt; ok $? "no temporary file is left beside it" ||
  diag "beside it: $(ls -la | tr '\n' ' ')"
kill $pid
wait $pid
finish
