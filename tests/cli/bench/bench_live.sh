#!/usr/bin/env bash
# voxen bench live end to end on a tiny stream (issue 41's numbers): 5 scans of a 64 x 1024
# lidar played through a local Foxglove server at 10 Hz, with and without serving to 10
# clients: every cloud received and mapped (none dropped), latencies and rates positive, the
# joining client complete, the table printed.
#   bench_live.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" bench_live "$@"

"$voxen" bench live --scans 5 --repeat 1 --joins 1 --json > bench.json 2> bench.err || fail "bench live: $(cat bench.json bench.err)"
no_validation bench.err "bench live"
"${PYTHON:-python3}" - bench.json <<'PY' || fail "bench live's JSON: $(head -c 1500 bench.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["dropped"] == 0, d["dropped"]
for run in (d["pace"], d["pace_served"]):
    assert run["played"] == run["received"] == run["mapped"] == 5, run
    assert run["latency_ms"]["median"] > 0, run
assert d["pace_served"]["clients"] == 10 and d["pace_served"]["client_messages"] > 0, d["pace_served"]
for key in ("file_rays_per_s", "live_rays_per_s", "live_served_rays_per_s"):
    assert d[key] > 0, key
assert d["join"]["complete"] and d["join"]["regions"] >= 100, d["join"]
PY
"$voxen" bench live --scans 3 --repeat 1 --joins 1 --clients 2 > table.txt 2> table.err || fail "bench live table: $(cat table.txt table.err)"
grep -qi "latency" table.txt || fail "no latency in the table: $(cat table.txt)"
echo "bench_live: ok"
