#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Renders the pictures of docs/TOUR.md with the viewer's own renderer
# (mpeview --export*, the code the window draws with) from the test
# suite's hand-built logs (tests/viewer/mklog).
# Usage: docs/tour/shots.sh BUILDDIR [OUTDIR]   (OUTDIR: docs/tour)
set -e
b=${1:?usage: shots.sh BUILDDIR [OUTDIR]}
out=${2:-$(dirname "$0")}
t=$(mktemp -d "${TMPDIR:-/tmp}/mvtour.XXXXXX")
trap 'rm -rf "$t"' EXIT
mklog=$b/tests/viewer/mklog
mv=$b/mpeview
# A state with its info, MPE's own markers and a loss record.
"$mklog" --info "$t/info.clog"
"$mv" --export "$out/timeline.png" --width 800 --height 260 "$t/info.clog"
# Two ranks, nested states, a message.
"$mklog" "$t/t.clog" 1000 4
"$mv" --export "$out/messages.png" --width 800 --height 300 "$t/t.clog"
"$mv" --export-matrix "$out/matrix.png" "$t/t.clog"
# Rows by node: a node's header row aggregates its processes.
"$mklog" --nodes "$t/n.clog"
"$mv" --export "$out/groups.png" --group node --width 800 --height 360 \
  "$t/n.clog"
# A counter track under each process.
"$mklog" --metric "$t/m.clog"
"$mv" --export "$out/counter.png" --counter queue --width 800 --height 260 \
  "$t/m.clog"
# Call-path samples: in the rows, and the flame graph.
"$mklog" --samples "$t/s.clog"
"$mv" --export "$out/samples.png" --samples --width 800 --height 260 \
  "$t/s.clog"
"$mv" --export-flame "$out/flame.png" "$t/s.clog"
