#!/usr/bin/env bash
# Map layers on the command line: voxen info describes every layer of a map (built-in, NDT,
# clearance) in text and JSON, info --verify counts every layer's impossible values (a
# fixture with valid checksums), and voxen export --layer writes every layer as a PLY cloud
# and a heat-map PNG; the occupancy slice has a legend and a default scale.
#   layers.sh VOXEN_BINARY WORK_DIR   (the fixture is found beside this script)
set -euo pipefail
fixture="$(cd "$(dirname "$0")/../../data/map_layers" && pwd)/impossible-values.vxm"
source "$(dirname "$0")/../support/common.sh" layers "$@"

png_width() { od -An -tu1 -j16 -N4 "$1" | awk '{ print ($1 * 16777216) + ($2 * 65536) + ($3 * 256) + $4 }'; }
png_height() { od -An -tu1 -j20 -N4 "$1" | awk '{ print ($1 * 16777216) + ($2 * 65536) + ($3 * 256) + $4 }'; }

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 128 --scans 2 --seed 3 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output all.vxm --resolution 0.25 --voxel-mean --traversal --hit-miss \
  --touch-time --cpu --quiet > all.log
"$voxen" map --cloud run.ply --trajectory run.txt --output tm.vxm --resolution 0.25 --ndt tm --cpu --quiet > tm.log
"$voxen" map --cloud run.ply --trajectory run.txt --output plain.vxm --resolution 0.25 --cpu --quiet > plain.log
"$voxen" clearance plain.vxm --range 1 --cpu --output clearance.vxm > clearance.log

# info: every layer, named, described and versioned; none called "occupancy only".
"$voxen" info clearance.vxm > info-clearance.log
grep -q "^layers: *2 (occupancy, clearance)" info-clearance.log || fail "info: clearance map's layers: $(cat info-clearance.log)"
grep -q "^  clearance .*version 1, 4 bytes per voxel: distance (m) to the nearest obstacle" info-clearance.log ||
  fail "info: the clearance layer is not described: $(cat info-clearance.log)"
grep -q "distance f32 m: finite, at least 0 or -1" info-clearance.log || fail "info: clearance's field: $(cat info-clearance.log)"
if grep -q "occupancy only\|mask 0x" info-clearance.log; then fail "info: layers described by the built-in mask: $(cat info-clearance.log)"; fi
"$voxen" info tm.vxm --json > info-tm.json
grep -q '"layer_names":\["occupancy","voxel_mean","ndt_covariance","hit_miss","ndt_intensity"\]' info-tm.json ||
  fail "info --json: NDT-TM layer_names: $(cat info-tm.json)"
grep -q '"name":"ndt_covariance","bytes_per_voxel":24,"version":1,"description":"NDT covariance' info-tm.json ||
  fail "info --json: the covariance's table entry: $(cat info-tm.json)"
grep -q '"name":"variance","type":"f32","unit":"","min":0' info-tm.json || fail "info --json: intensity's fields: $(cat info-tm.json)"
"$voxen" info tm.vxm > info-tm.log
grep -q "^layers: *5 (occupancy, voxel_mean, ndt_covariance, hit_miss, ndt_intensity)" info-tm.log ||
  fail "info: NDT-TM layers: $(cat info-tm.log)"
"$voxen" info all.vxm --verify > verify.log
grep -q "every layer's values are possible" verify.log || fail "info --verify on a good map: $(cat verify.log)"

# info --verify on valid checksums around impossible values: each layer's count, first region and voxel.
status=0
"$voxen" info "$fixture" --verify > bad.out 2> bad.err || status=$?
[ $status -eq 1 ] || fail "info --verify on impossible values: exit status $status: $(cat bad.out bad.err)"
grep -q "impossible contents" bad.err || fail "info --verify: $(cat bad.err)"
grep -q "layer 'touch_time': 1 voxel in 1 region, the first region (1,0,0) voxel 4 (4,1,0): time nan is not finite" bad.err ||
  fail "info --verify: the touch_time count: $(cat bad.err)"
grep -q "layer 'clearance': 3 voxels in 2 regions, the first region (0,0,0) voxel 5 (1,1,0): distance -3 is below 0" bad.err ||
  fail "info --verify: the clearance count: $(cat bad.err)"
"$voxen" info "$fixture" > fixture-info.log || fail "info without --verify reads only the headers: $(cat fixture-info.log)"
status=0
"$voxen" info "$fixture" --verify --json > bad.json 2> /dev/null || status=$?
[ $status -eq 1 ] && grep -q '"error":.*impossible contents' bad.json || fail "info --verify --json: $status $(cat bad.json)"
# Every other command refuses to load it, naming the layer.
status=0
"$voxen" export "$fixture" --layer clearance --voxels-ply x.ply 2> load.err || status=$?
[ $status -eq 1 ] && grep -q "layer 'clearance', voxel 5 (1,1,0): distance -3 is below 0 (2 voxels of this layer" load.err ||
  fail "export of impossible values: $status $(cat load.err)"
[ ! -e x.ply ] || fail "a refused export wrote its output"

# export --layer: every layer as PLY (one property per field) and as a heat map with a legend.
for spec in all:occupancy all:voxel_mean all:traversal all:hit_miss all:touch_time tm:ndt_covariance tm:ndt_intensity \
            clearance:clearance; do
  map=${spec%%:*} layer=${spec#*:}
  "$voxen" export $map.vxm --layer $layer --voxels-ply $layer.ply --slice-png $layer.png --z 1.0 > export-$layer.log ||
    fail "export --layer $layer failed: $(cat export-$layer.log)"
  head -c 3000 $layer.ply | grep -aq "format binary_little_endian 1.0" || fail "--layer $layer: not binary PLY"
  head -c 3000 $layer.ply | grep -aq "comment written by voxen: layer $layer" || fail "--layer $layer: PLY header"
  [ "$(png_width $layer.png)" -ge 320 ] || fail "--layer $layer --slice-png: $(png_width $layer.png) pixels wide"
  grep -q "wrote $layer.png: layer $layer" export-$layer.log || fail "--layer $layer: summary: $(cat export-$layer.log)"
done
head -c 3000 hit_miss.ply | grep -aq "property uint hits" || fail "--layer hit_miss: property types"
head -c 3000 traversal.ply | grep -aq "property double length" || fail "--layer traversal: lengths in metres"
head -c 3000 ndt_covariance.ply | grep -aq "property float s22" || fail "--layer ndt_covariance: fields"
"$voxen" export tm.vxm --layer hit_miss --slice-png misses.png --z 1.0 --field misses --scale 3 > misses.log
grep -q "field misses" misses.log && grep -q "3 pixels per voxel" misses.log || fail "--field misses --scale 3: $(cat misses.log)"
# Bad combinations are usage errors; an unknown layer or field is named with what there is.
for bad in "--voxels-ply v.ply" "--layer hit_miss" "--field hits --slice-png f.png --z 1" "--layer hit_miss --voxels-ply v.ply --field hits"; do
  status=0
  "$voxen" export all.vxm $bad > /dev/null 2> usage.err || status=$?
  [ $status -eq 2 ] || fail "export $bad: exit status $status (want 2): $(cat usage.err)"
done
status=0
"$voxen" export all.vxm --layer clearance --voxels-ply v.ply 2> nolayer.err || status=$?
[ $status -eq 1 ] && grep -q "no layer 'clearance' (it has occupancy, voxel_mean, traversal, hit_miss, touch_time)" nolayer.err ||
  fail "an absent layer: $status $(cat nolayer.err)"
status=0
"$voxen" export all.vxm --layer hit_miss --slice-png f.png --z 1 --field nope 2> nofield.err || status=$?
[ $status -eq 1 ] && grep -q "has no field 'nope' (its fields: hits, misses)" nofield.err || fail "an unknown field: $status $(cat nofield.err)"

# The occupancy slice: a legend below the slice, and by default scaled up to about 800 pixels.
"$voxen" export all.vxm --slice-png slice.png --z 1.0 > slice.log
grep -q "with metre axes and a legend" slice.log || fail "--slice-png: $(cat slice.log)"
[ "$(png_width slice.png)" -ge 700 ] || fail "--slice-png: default scale gives $(png_width slice.png) pixels across"
"$voxen" export all.vxm --slice-png slice1.png --z 1.0 --scale 1 > slice1.log
grep -q "at 1 pixels per voxel" slice1.log || fail "--scale 1: $(cat slice1.log)"
[ "$(png_height slice1.png)" -lt "$(png_height slice.png)" ] || fail "--scale 1 does not override the default"
echo "layers: ok"
