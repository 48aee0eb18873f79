#!/usr/bin/env bash
# Map pictures that can be read and placed (issue 35 items 11, 12, 13, 15): slices framed by
# metre axes with a map_server YAML beside them and the map's extent at every height, heights
# on voxel boundaries taken as written (--z 0.3 is layer 3 at 0.1 m, a query at z 1.2 lands
# in voxel 12), --bbox a crop, and clearance warning when the floor is the nearest obstacle.
#   map_pictures.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" map_pictures "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 32 --columns 512 --scans 6 --seed 2 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --resolution 0.1 --quiet > map.log
yaml_field() { grep "^$1: " "$2" | cut -d' ' -f2-; }
png_width() { od -An -tu1 -j16 -N4 "$1" | awk '{ print ($1 * 16777216) + ($2 * 65536) + ($3 * 256) + $4 }'; }
png_height() { od -An -tu1 -j20 -N4 "$1" | awk '{ print ($1 * 16777216) + ($2 * 65536) + ($3 * 256) + $4 }'; }

# Item 13: decimal heights on a voxel boundary pick the layer that holds them as written.
"$voxen" export map.vxm --slice-png z03.png --z 0.3 > z03.log
grep -q "layer z=3 (0.3..0.4 m)" z03.log || fail "--z 0.3 at 0.1 m is not layer 3: $(cat z03.log)"
"$voxen" export map.vxm --slice-png z12.png --z 1.2 > z12.log
grep -q "layer z=12 (1.2..1.3 m)" z12.log || fail "--z 1.2 at 0.1 m is not layer 12: $(cat z12.log)"
"$voxen" export map.vxm --slice-png z27.png --z 2.7 > z27.log
grep -q "layer z=27 " z27.log || fail "--z 2.7 at 0.1 m is not layer 27: $(cat z27.log)"
# A query at z = 1.2 m reads voxel 12: the same class as a point inside voxel 12, not voxel 11's.
printf '1.05 0.05 1.2\n1.05 0.05 1.25\n1.05 0.05 1.15\n' > points.txt
"$voxen" query map.vxm --points points.txt --kind occupancy --cpu --quiet > query.csv
[ "$(sed -n 2p query.csv | cut -d, -f4-)" = "$(sed -n 3p query.csv | cut -d, -f4-)" ] ||
  fail "a query at z 1.2 does not read voxel 12: $(cat query.csv)"

# Item 12: a picture with a YAML in map_server's form, the same extent at every height.
for f in z03 z12; do
  [ -s $f.yaml ] || fail "--slice-png $f.png wrote no YAML"
  [ "$(yaml_field image $f.yaml)" = "$f.png" ] || fail "$f.yaml: image: $(cat $f.yaml)"
  for key in resolution origin negate occupied_thresh free_thresh; do
    grep -q "^$key: " $f.yaml || fail "$f.yaml lacks $key: $(cat $f.yaml)"
  done
done
[ "$(yaml_field origin z03.yaml)" = "$(yaml_field origin z12.yaml)" ] || fail "the origin moves with the height"
[ "$(png_width z03.png)x$(png_height z03.png)" = "$(png_width z12.png)x$(png_height z12.png)" ] ||
  fail "the picture's size moves with the height"
[ "$(png_width z03.png)" -ge 700 ] || fail "default picture $(png_width z03.png) pixels wide"
grep -q "placed in the world by z03.yaml" z03.log || fail "the summary does not name the YAML: $(cat z03.log)"
# The clearance picture and the clearance layer's slice are one picture (one palette).
"$voxen" clearance map.vxm --range 1.5 --output floor.vxm --quiet
"$voxen" export floor.vxm --clearance-png heat.png --z 1.0 > heat.log 2> heat.err
"$voxen" export floor.vxm --layer clearance --slice-png layer.png --z 1.0 > layer.log 2> layer.err
cmp -s heat.png layer.png || fail "--clearance-png and --layer clearance --slice-png differ"
[ -s heat.yaml ] || fail "--clearance-png wrote no YAML"
# A failed write leaves the picture and its YAML as they were.
cp z03.png keep.png && cp z03.yaml keep.yaml
if "$voxen" export map.vxm --slice-png z03.png --z 40 2> none.err; then fail "a slice of an empty layer was written"; fi
cmp -s z03.png keep.png && cmp -s z03.yaml keep.yaml || fail "a failed export changed the picture or its YAML"

# Item 11: clearance says when the floor is the nearest obstacle, and not with --ignore-below.
"$voxen" clearance map.vxm --range 1.5 --output floor.vxm 2> floor.err > /dev/null
grep -q "warning: in .* the floor caps the clearance" floor.err ||
  fail "no floor warning: $(cat floor.err)"
[ "$(grep -c warning floor.err)" = 1 ] || fail "more than one warning line: $(cat floor.err)"
grep -q "the floor caps the clearance" heat.err || fail "--clearance-png of a floor-dominated slice: no warning: $(cat heat.err)"
"$voxen" clearance map.vxm --range 1.5 --ignore-below 0.2 --ignore-above 2.2 --output robot.vxm 2> robot.err > /dev/null
if grep -q "warning" robot.err; then fail "a warning with the floor left out: $(cat robot.err)"; fi

# Item 15: --bbox crops what is exported to the voxels whose centre lies in the box.
"$voxen" export map.vxm --bbox 1 0 0.5 4 2 2 --occupied-ply box.ply > box.log 2> /dev/null
python3 - box.ply <<'PY' || fail "--bbox wrote points outside the box"
import struct, sys
data = open(sys.argv[1], "rb").read()
end = data.index(b"end_header\n") + len(b"end_header\n")
count = int([l for l in data[:end].decode().splitlines() if l.startswith("element vertex")][0].split()[2])
assert count > 0, "no points in the box"
for i in range(count):
    x, y, z = struct.unpack_from("<3f", data, end + 12 * i)
    assert 1 <= x <= 4 and 0 <= y <= 2 and 0.5 <= z <= 2, (x, y, z)
PY
echo "map_pictures: ok"
