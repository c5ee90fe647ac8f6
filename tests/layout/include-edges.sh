#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The tree keeps the include edges of docs/design.md (and the two link
# rules of include-edges.py); and the checker catches bad includes and
# links planted in a copy of the tree (so it can fail).
. "$top_srcdir/tests/common/tap.sh"

python=$(command -v /usr/bin/python3 || command -v python3) \
  || bail "python3 is needed"
check="$python $top_srcdir/tests/layout/include-edges.py"

$check "$top_srcdir" > "$tap_tmp/out" 2>&1
rc=$?
while IFS= read -r line; do diag "$line"; done < "$tap_tmp/out"
ok $rc "every #include follows an edge of docs/design.md; link rules kept"

# A copy of what the checker scans, plus the table.
copy=$tap_tmp/tree
$check --files "$top_srcdir" > "$tap_tmp/files" || bail "cannot list files"
test -s "$tap_tmp/files"; ok $? "the checker finds the source files"
mkdir -p "$copy/docs" &&
  (cd "$top_srcdir" && tar cf - -T "$tap_tmp/files") | (cd "$copy" && tar xf -) &&
  cp "$top_srcdir/docs/design.md" "$copy/docs/" || bail "cannot copy the tree"
$check "$copy" > /dev/null 2>&1; ok $? "the copy passes as the tree does"

# plant FILE LINE EXPECTED DESCRIPTION: adds LINE to FILE (created if
# missing), expects the checker to fail naming EXPECTED, then undoes it.
plant () {
  f=$copy/$1
  mkdir -p "$(dirname "$f")"
  if [ -f "$f" ]; then cp "$f" "$tap_tmp/saved"; else rm -f "$tap_tmp/saved"; fi
  printf '%s\n' "$2" >> "$f"
  $check "$copy" > "$tap_tmp/planted" 2>&1
  rc=$?
  [ $rc = 1 ] && grep -q -F -- "$3" "$tap_tmp/planted"
  r=$?
  [ $r = 0 ] || { diag "exit $rc, output:"; while IFS= read -r l; do diag "$l"; done < "$tap_tmp/planted"; }
  ok $r "planted: $4"
  if [ -f "$tap_tmp/saved" ]; then cp "$tap_tmp/saved" "$f"; else rm -f "$f"; fi
}

plant tools/util.c '#include "logfmt/src/logfmt-internal.h"' \
  "includes logfmt/src/logfmt-internal.h: tools -> logfmt is not" \
  "clogtool includes a liblogfmt internal header"
plant tools/util.c '#include "mv-timeline.h"' \
  "includes viewer/widgets/mv-timeline.h: tools -> viewer-widgets" \
  "a header found through an unknown -I (by its name)"
plant anim/client/anim-client.c '#include "mpe/src/mpe-wrap-internal.h"' \
  "anim-client -> mpe-wrap-api" "the anim client includes libmpe's side"
plant mpe/src/mpe-log.c '#include "anim/client/anim-client.h"' \
  "mpe -> anim-client-api" "libmpe includes the anim client"
plant mpe/wrappers/wrap-core.c '#include "anim/client/anim-client.h"' \
  "wrappers -> anim-client-api" "a wrapper file other than wrap-anim.c"
plant logfmt/src/logfmt-util.c '#include <mpe.h>' \
  "logfmt -> mpe-api" "liblogfmt includes the MPE API"
plant viewer/model/mv-planted.h '#include "../widgets/mv-timeline.h"' \
  "viewer-model -> viewer-widgets" "the viewer model includes a widget"
# bench/ is a leaf: not even the tests include from it.
echo '/* a benchmark helper */' > "$copy/bench/planted.h"
plant tests/logfmt/test-roundtrip.c '#include "bench/planted.h"' \
  "tests -> bench" "a test includes from bench/"
plant synth/logfmt-synth.c '#include "bench/planted.h"' \
  "synth -> bench" "the generator includes from bench/"
plant tests/logfmt/Makefile.inc.am 'tests_logfmt_x_LDADD = bench/libhelper.la' \
  "names a file of bench/ (bench/ is a leaf)" "a test program links from bench/"
plant tools/Makefile.inc.am 'clogtool_LDADD += logfmt/liblogfmt-internal.la' \
  "tools/ links liblogfmt-internal.la" "clogtool links the internal liblogfmt"
plant newlib/new.c '#include <logfmt/logfmt.h>' \
  "newlib/new.c: belongs to no component" "a folder the table does not know"
finish
