#!/usr/bin/env bash
# voxen map --window R (issue 38, item 5): a moving robot's local map. A generated run of
# 10 scans (the sensor moves about 3 m) mapped with a 4 m window keeps only the regions near
# the sensor's last position, on the GPU and the CPU reference alike (the same regions);
# the voxels near the end, whose region was never outside the window, equal the full map's;
# a window that is not a positive number of metres is refused naming the flag.
#   window.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" window "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --scans 10 --speed 3 > gen.log 2>&1 || fail "generate: $(cat gen.log)"
"$voxen" map --cloud run.ply --trajectory run.txt --output full.vxm --quiet > full.log 2>&1 || fail "full map: $(cat full.log)"
"$voxen" map --cloud run.ply --trajectory run.txt --output win.vxm --window 4 --quiet > win.log 2>&1 || fail "window: $(cat win.log)"
no_validation win.log "map --window"
"$voxen" map --cloud run.ply --trajectory run.txt --output win-cpu.vxm --window 4 --cpu --quiet > win-cpu.log 2>&1 ||
  fail "window --cpu: $(cat win-cpu.log)"

regions() { "$voxen" info "$1" --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["regions"])'; }
full=$(regions full.vxm) win=$(regions win.vxm) wincpu=$(regions win-cpu.vxm)
[ "$win" -lt "$full" ] || fail "the window kept $win of $full regions"
[ "$win" -gt 0 ] || fail "the window kept nothing"
[ "$win" = "$wincpu" ] || fail "GPU kept $win regions, the CPU reference $wincpu"

# Every kept region's box lies within 4 m of the sensor's last position (trajectory's last row).
read -r _ lx ly lz _ < <(tail -1 run.txt)
"$voxen" info win.vxm --json | python3 -c '
import json, math, sys
info = json.load(sys.stdin)
lx, ly, lz = map(float, sys.argv[1:4])
edge = info["model"]["resolution"] * info["model"]["region_size"]
(lo, hi) = info["metre_bounds"]
# The box of the kept regions reaches at most window + edge past the sensor on each axis.
for a, p in enumerate((lx, ly, lz)):
    assert lo[a] >= p - 4 - edge - 1e-9 and hi[a] <= p + 4 + edge + 1e-9, (a, lo, hi, p)
' "$lx" "$ly" "$lz" || fail "a kept region lies beyond the window: $("$voxen" info win.vxm --json | head -c 400)"

# Near the end the windowed map is the full map.
python3 -c '
import sys
lx, ly, lz = map(float, sys.argv[1:4])
for i in range(-5, 6):
    for j in range(-5, 6):
        print(lx + 0.13 * i, ly + 0.11 * j, lz + 0.05 * (i % 3))
' "$lx" "$ly" "$lz" > near.txt
"$voxen" query full.vxm --points near.txt --kind occupancy --quiet > near-full.csv 2>/dev/null
"$voxen" query win.vxm --points near.txt --kind occupancy --quiet > near-win.csv 2>/dev/null
cmp -s near-full.csv near-win.csv || fail "voxels near the end differ: $(diff near-full.csv near-win.csv | head)"
grep -q ",observed$" near-win.csv || fail "no observed voxel near the end: $(head near-win.csv)"

for bad in 0 -1 nan; do
  set +e
  "$voxen" map --cloud run.ply --trajectory run.txt --output bad.vxm --window "$bad" > bad.log 2>&1; status=$?
  set -e
  [ $status = 2 ] || fail "--window $bad: exit $status"
  grep -q -- "--window" bad.log || fail "--window $bad: the flag is not named: $(cat bad.log)"
done
[ ! -e bad.vxm ] || fail "a refused run wrote its output"
echo "window: ok ($win of $full regions kept)"
