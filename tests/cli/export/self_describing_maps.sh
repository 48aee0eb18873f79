#!/usr/bin/env bash
# Maps that describe themselves: a process that registered no layer type (voxen_map_probe
# links only the map module) loads maps with clearance and NDT layers, and a map holding a
# layer type it has never heard of, and saves each back byte for byte; voxen lists the
# unknown layer as opaque, keeps it through voxen clearance and refuses to export it.
#   self_describing_maps.sh VOXEN_BINARY PROBE_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" self_describing_maps "$@"
probe=$2

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 128 --scans 2 --seed 3 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output plain.vxm --resolution 0.25 --cpu --quiet > plain.log
"$voxen" map --cloud run.ply --trajectory run.txt --output tm.vxm --resolution 0.25 --ndt tm --cpu --quiet > tm.log
"$voxen" clearance plain.vxm --range 1 --cpu --quiet --output clearance.vxm > clearance.log

# Built-in layers of other modules load in a fresh process without any registration call.
for map in clearance tm; do
  "$probe" resave $map.vxm $map-again.vxm > $map-probe.log 2>&1 || fail "a fresh process cannot load $map.vxm: $(cat $map-probe.log)"
  cmp -s $map.vxm $map-again.vxm || fail "$map.vxm loaded and saved again differs from the original"
done
grep -q "^layers: occupancy, clearance$" clearance-probe.log || fail "clearance map's layers: $(cat clearance-probe.log)"
grep -q "^layers: occupancy, voxel_mean, ndt_covariance, hit_miss, ndt_intensity$" tm-probe.log || fail "NDT-TM layers: $(cat tm-probe.log)"

# A layer type no other process knows: loaded as opaque bytes and saved back unchanged.
"$probe" write-custom custom.vxm > write.log 2>&1 || fail "write-custom: $(cat write.log)"
"$probe" resave custom.vxm custom-again.vxm > custom-probe.log 2>&1 || fail "a map with an unknown layer does not load: $(cat custom-probe.log)"
grep -q "^layers: occupancy, probe_made_up$" custom-probe.log || fail "unknown layer's name: $(cat custom-probe.log)"
cmp -s custom.vxm custom-again.vxm || fail "the map with an unknown layer changed on load and save"

"$voxen" info custom.vxm > info.log
grep -q "^  probe_made_up .*version 7, 6 bytes per voxel: opaque" info.log || fail "info: the unknown layer: $(cat info.log)"
"$voxen" info custom.vxm --verify > verify.log || fail "info --verify on a map with an opaque layer: $(cat verify.log)"
"$voxen" info custom.vxm --json > info.json
grep -q '"name":"probe_made_up","bytes_per_voxel":6,"version":7,.*"opaque":true' info.json || fail "info --json: $(cat info.json)"

# Exports of other layers work; the opaque one is refused by name.
"$voxen" export custom.vxm --occupied-ply occupied.ply > export.log 2> export.err || fail "export beside an opaque layer: $(cat export.err)"
grep -q "layer 'probe_made_up' is opaque to this build .*not exported" export.err || fail "export: no note about the opaque layer: $(cat export.err)"
status=0
"$voxen" export custom.vxm --layer probe_made_up --voxels-ply x.ply > /dev/null 2> layer.err || status=$?
[ $status -eq 1 ] && grep -q "layer 'probe_made_up' is opaque to this build" layer.err || fail "export --layer of an opaque layer: $status $(cat layer.err)"
[ ! -e x.ply ] || fail "a refused export wrote its output"

# A command that rewrites the map keeps the opaque layer's bytes.
"$voxen" clearance custom.vxm --range 0.5 --cpu --quiet --output custom-clearance.vxm > custom-clearance.log
"$probe" resave custom-clearance.vxm kept.vxm > kept.log 2>&1 || fail "clearance output: $(cat kept.log)"
grep -q "^layers: occupancy, probe_made_up, clearance$" kept.log || fail "clearance dropped the opaque layer: $(cat kept.log)"
echo "self_describing_maps: ok"
