#!/usr/bin/env bash
# voxen map --decay-s S (issue 38, item 5): occupancy decay towards unknown. A generated run
# of 10 scans (1 s of ray time) mapped in batches of 8,192 rays with a 0.3 s decay forgets
# the voxels no ray touched in the last 0.3 s: fewer observed voxels than the full map, the
# same map file byte for byte on the GPU and the CPU reference, and a decay longer than the
# run forgets nothing (the map equals the full one with touch times). Bad values exit 2
# naming the flag without writing the output; a store run is refused.
#   decay.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" decay "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --scans 10 --speed 3 > gen.log 2>&1 || fail "generate: $(cat gen.log)"
map() {  # map OUTPUT ARGS...
  local out=$1
  shift
  "$voxen" map --cloud run.ply --trajectory run.txt --output "$out.vxm" --batch-size 8192 --quiet "$@" > "$out.log" 2>&1 ||
    fail "map $*: $(cat "$out.log")"
  no_validation "$out.log" "map $*"
}
map full --touch-time
map decay --decay-s 0.3
map decay-cpu --decay-s 0.3 --cpu
map long --decay-s 1000

observed() {  # observed LOG: occupied + free voxels from voxen map's summary line
  sed -n 's/.*occupied voxels \([0-9,]*\), free voxels \([0-9,]*\),.*/\1 \2/p' "$1" | tr -d , | awk '{ print $1 + $2 }'
}
full=$(observed full.log) decayed=$(observed decay.log)
[ -n "$full" ] || fail "no summary line: $(cat full.log)"
[ "$decayed" -gt 0 ] || fail "the decay forgot everything"
[ "$decayed" -lt "$full" ] || fail "the decay forgot nothing: $decayed of $full observed voxels"
cmp -s decay.vxm decay-cpu.vxm || fail "the GPU's map and the CPU reference's differ"
cmp -s long.vxm full.vxm || fail "a decay longer than the run changed the map"
info=$("$voxen" info decay.vxm)
grep -q "touch_time" <<< "$info" || fail "the map has no touch-time layer: $info"

for bad in -1 nan; do
  set +e
  "$voxen" map --cloud run.ply --trajectory run.txt --output bad.vxm --decay-s "$bad" > bad.log 2>&1; status=$?
  set -e
  [ $status = 2 ] || fail "--decay-s $bad: exit $status"
  grep -q -- "--decay-s" bad.log || fail "--decay-s $bad: the flag is not named: $(cat bad.log)"
done
[ ! -e bad.vxm ] || fail "a refused run wrote its output"
set +e
"$voxen" map --cloud run.ply --trajectory run.txt --store run.db --decay-s 1 > store.log 2>&1; status=$?
set -e
[ $status != 0 ] || fail "--decay-s with --store was taken"
grep -q -- "--decay-s" store.log || fail "--store: --decay-s is not named: $(cat store.log)"
echo "decay: ok ($decayed of $full voxels observed with a 0.3 s decay)"
