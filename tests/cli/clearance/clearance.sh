#!/usr/bin/env bash
# voxen clearance end to end: every technique on a generated map (the layer saved in the
# map, the summary's fields), map --clearance, the exports, and bad settings named by flag.
#   clearance.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" clearance "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 256 --scans 3 --seed 2 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --resolution 0.25 --quiet > map.log
for technique in roi neighbour openlist exact; do
  "$voxen" clearance map.vxm --range 1.5 --technique $technique --output $technique.vxm --json > $technique.json 2> $technique.err
  if grep -qi "validation" $technique.err; then fail "validation messages: $(cat $technique.err)"; fi
  for key in regions total_s ms_per_region range; do
    [ -n "$(json_number $key $technique.json)" ] || fail "$technique: the summary lacks $key: $(cat $technique.json)"
  done
  grep -q "\"technique\":\"$technique\"" $technique.json || fail "$technique: summary: $(cat $technique.json)"
  [ "$(json_number regions $technique.json)" -gt 5 ] || fail "$technique: too few regions: $(cat $technique.json)"
  "$voxen" info $technique.vxm > info-$technique.log
  grep -q "clearance" info-$technique.log || fail "$technique: the map file lacks the clearance layer"
done
"$voxen" clearance map.vxm --range 1.5 --cpu --output cpu.vxm --json > cpu.json
grep -q '"technique":"exact"' cpu.json || fail "--cpu: not the exact reference: $(cat cpu.json)"
# In place (--in-place): the map itself gains the layer.
cp map.vxm inplace.vxm
"$voxen" clearance inplace.vxm --in-place --range 1 --unknown-free --axis-scale 1 1 0.5 > inplace.log
"$voxen" info inplace.vxm | grep -q clearance || fail "clearance in place did not store the layer"
# voxen map --clearance computes it after mapping.
"$voxen" map --cloud run.ply --trajectory run.txt --output mapped.vxm --resolution 0.25 --clearance 1.5 --json --quiet > mapped.json
[ "$(json_number clearance_regions mapped.json)" -gt 5 ] || fail "map --clearance: $(cat mapped.json)"
# Exports: the PLY with its property, the heat map.
"$voxen" export exact.vxm --clearance-ply clearance.ply --clearance-png clearance.png --z 1.0 --scale 2 > export.log
head -c 1000 clearance.ply | grep -aq "property float clearance" || fail "--clearance-ply: no clearance property"
[ -s clearance.png ] || fail "--clearance-png wrote nothing"
if "$voxen" export map.vxm --clearance-ply x.ply 2> noclearance.err; then fail "--clearance-ply accepted a map without the layer"; fi
grep -q "map.vxm" noclearance.err && grep -q "voxen clearance" noclearance.err || fail "unclear error: $(cat noclearance.err)"
[ ! -e x.ply ] || fail "a refused export wrote its output"
# Bad settings name their flag or limit.
if "$voxen" clearance map.vxm --range 61 --output bad.vxm 2> range.err; then fail "--range 61 at 0.25 m was accepted"; fi
grep -q "past the limit of 240 voxels" range.err || fail "--range 61: unclear error: $(cat range.err)"
if "$voxen" clearance map.vxm --technique fast --output bad.vxm 2> technique.err; then fail "--technique fast was accepted"; fi
grep -q -- "--technique" technique.err || fail "--technique fast: the error does not name the flag: $(cat technique.err)"
if "$voxen" clearance map.vxm --axis-scale 1 1 0 --output bad.vxm 2> scale.err; then fail "--axis-scale 0 was accepted"; fi
grep -q -- "--axis-scale" scale.err || fail "--axis-scale 0: unclear error: $(cat scale.err)"
[ ! -e bad.vxm ] || fail "a refused run wrote its output"
"$voxen" bench clearance --range 1 --scans 2 --repeat 1 --json > bench.json
grep -q '"technique":"roi"' bench.json && grep -q "within_one_voxel" bench.json || fail "bench clearance: $(cat bench.json)"
echo "clearance: ok"
