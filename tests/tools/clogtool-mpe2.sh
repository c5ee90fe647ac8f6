#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# clogtool on real MPE2 logs: counts as MPE2's own clog2_print gave them
# (see tests/interop/data and the MPE2 log notes).
. "$top_srcdir/tests/common/tap.sh"
. "$top_srcdir/tests/tools/common.sh"
data=$top_srcdir/tests/interop/data

# expect FILE KEY=VALUE...: stats --json of FILE has these figures; keys
# "state:NAME" / "solo:NAME" are instance counts by name.
expect () {
  f=$1; shift
  "$clogtool" stats --json "$data/$f" >"$tap_tmp/s.json" 2>"$tap_tmp/err"
  ok $? "stats --json $f"
  $python - "$tap_tmp/s.json" "$@" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
states = {x["name"]: x["count"] for x in s["states"]}
solos = {x["name"]: x["count"] for x in s["solo_events"]}
bad = 0
for arg in sys.argv[2:]:
    key, want = arg.rsplit("=", 1)
    if key.startswith("state:"):
        got = states.get(key[6:])
    elif key.startswith("solo:"):
        got = solos.get(key[5:])
    else:
        got = s
        for part in key.split("."):
            got = got[part]
    if got != int(want):
        print("# %s: got %r, want %s" % (key, got, want))
        bad += 1
sys.exit(1 if bad else 0)
PY
  ok $? "$f: $*"
}

expect cpilog.clog2 ranks=4 threads=4 events=348 \
  state:Broadcast=20 state:Compute=20 state:Reduce=20 state:Sync=20 \
  state:MPI_Barrier=20 state:MPI_Bcast=20 state:MPI_Reduce=20 \
  "solo:Broadcast Post=20" "solo:Compute Start=20" "solo:Compute End=20" \
  solo:MPE_Comm_init=4 solo:MPE_Comm_finalize=4 messages.count=0
expect srtest.clog2 ranks=4 \
  state:MPI_Send=5000 state:MPI_Recv=7000 state:MPI_Comm_rank=4 \
  state:MPI_Comm_size=4 solo:MPE_Comm_init=4 solo:MPE_Comm_finalize=4 \
  messages.sends=4000 messages.recvs=4000 messages.count=4000 \
  messages.unmatched=0
expect cpilog_pack.clog2 ranks=4 state:Compute=20 state:Sync=20 \
  solo:MPE_Comm_init=4
# The old CLOG v1 sample (fpilog.clog: 39 sends, 39 receives) is not
# here: .gitignore's *.clog keeps it out of the repository for now.

# Cargo decoded through the state's info format string.
"$clogtool" print --rank 0 --kind end "$data/cpilog_pack.clog2" >"$tap_tmp/out"
ok $? "print cpilog_pack.clog2"
grep -q "end   Compute  *id=[0-9]* info=\"mypi = 0.785399 computed at iteration 0.\"" \
  "$tap_tmp/out"
ok $? "Compute's cargo decoded"
[ "$(grep -c ' end   Compute ' "$tap_tmp/out")" -eq 5 ]
ok $? "rank 0 ends Compute 5 times"
finish
