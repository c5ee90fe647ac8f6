# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the viewer's tests under Xvfb.
# find_window NAME: polls (60 s: a loaded machine is slow, nothing here
# asserts how fast) for a visible window of that name and prints its id; a
# transient failure to reach the X server ("Can't open display") is
# retried too, where `xdotool search --sync` gives up.
find_window () {
  i=0
  while [ $i -lt 300 ]; do
    w=$(xdotool search --onlyvisible --name "$1" 2>/dev/null | head -n 1)
    [ -n "$w" ] && { echo "$w"; return 0; }
    sleep 0.2; i=$((i + 1))
  done
  return 1
}
