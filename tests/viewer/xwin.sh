# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the viewer's tests under Xvfb.  The tests start Xvfb with
# -noreset: by default an X server resets when its last client leaves,
# and a window started during the reset cannot open the display (a test
# that closes its windows and opens the next one hit it).
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
# wait_stable FN OP VALUE: polls (60 s) until FN prints the same value
# twice in a row and that value satisfies `test "$n" OP VALUE` (a redraw
# still on its way is not taken for the result); prints it.
wait_stable () {
  f=$1; shift
  i=0; prev=""
  while [ $i -lt 300 ]; do
    n=$($f)
    if [ -n "$n" ] && [ "$n" "$1" "$2" ] && [ "$n" = "$prev" ]; then
      echo "$n"; return 0
    fi
    prev=$n
    sleep 0.2; i=$((i + 1))
  done
  echo "${n:-none}"; return 1
}
