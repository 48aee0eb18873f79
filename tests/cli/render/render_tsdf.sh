#!/usr/bin/env bash
# voxen render of a TSDF map (issue 40, item 3): a generated depth walk mapped with voxen map
# --tsdf is drawn as its TSDF's surface mesh. From the top, the picture covers the mesh's
# projection: nearly every pixel drawn lies within a voxel of a vertex of the mesh voxen mesh
# writes, and nearly every pixel of a level face's vertex (floors, ceilings) is drawn (to a
# pixel); the GPU mesher's picture equals the CPU
# reference's; the perspective view draws it with its legend; --layer occupancy draws the
# occupied voxels instead (none in a depth run's map: the occupancy path's error, unchanged);
# --min-weight beyond every weight warns that nothing was drawn; a map with colour is drawn in
# its mesh's colours (--color height: the height ramp); flags for the other path are refused
# by name.
#   render_tsdf.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" render_tsdf "$@"

"$voxen" generate --depth-recording tum/ --frames 4 --depth-width 160 --depth-height 120 > gen.log
"$voxen" map --input tum --tsdf --resolution 0.05 --output tsdf.vxm --cpu --quiet
"$voxen" mesh tsdf.vxm --output mesh.ply --cpu --quiet > mesh.log

"$voxen" render tsdf.vxm --output top.png --view top --width 800 --height 700 --json > top.json 2> top.err ||
  fail "render --view top: $(cat top.err)"
no_validation top.err "render --view top"
python3 - top.png top.json mesh.ply <<'PY' || fail "the top view: $(cat top.json)"
import json, math, struct, sys, zlib
path, summary, ply = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
assert summary["layer"] == "tsdf" and summary["color"] == "height", summary
assert summary["drawn_triangles"] > 1000 and summary["warning"] is None, summary
data = open(path, 'rb').read()
width, height = struct.unpack('>II', data[16:24])
raw, pos = b'', 8
while pos < len(data):
    length, kind = struct.unpack('>I4s', data[pos:pos + 8])
    if kind == b'IDAT': raw += data[pos + 8:pos + 8 + length]
    pos += 12 + length
raw = zlib.decompress(raw)
stride, rows, prev = width * 4, [], bytearray(width * 4)
for y in range(height):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - 4] if i >= 4 else 0
        b, c = prev[i], prev[i - 4] if i >= 4 else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
background = (222, 228, 236)
plot = summary["framing"]["plot_height_px"]
assert plot < height, "no legend band"
left, top, mpp = summary["framing"]["plot_left_x"], summary["framing"]["plot_top_y"], summary["framing"]["metres_per_pixel"]
drawn = {(x, y) for y in range(plot) for x in range(width) if tuple(rows[y][x * 4:x * 4 + 3]) != background}
# The mesh's vertices (voxen mesh's PLY: float x y z nx ny nz) as pixels of the top view.
blob = open(ply, 'rb').read()
end = blob.index(b"end_header\n") + len(b"end_header\n")
count = int(next(l for l in blob[:end].decode().split("\n") if l.startswith("element vertex")).split()[2])
assert count == summary["vertices"], (count, summary["vertices"])
vertex_pixels, flat_pixels = set(), set()
for i in range(count):
    x, y, z, nx, ny, nz = struct.unpack_from("<6f", blob, end + 24 * i)
    pixel = (int((x - left) / mpp), int((top - y) / mpp))
    vertex_pixels.add(pixel)
    if abs(nz) > 0.5: flat_pixels.add(pixel)  # floors and ceilings: a wall seen edge-on covers no area
# Within a voxel (and a pixel) of a vertex: a face spans a voxel at most.
reach = int(math.ceil(0.05 / mpp)) + 1
near = {(x + dx, y + dy) for (x, y) in vertex_pixels for dx in range(-reach, reach + 1) for dy in range(-reach, reach + 1)}
stray = sum(1 for p in drawn if p not in near) / len(drawn)
# A vertex on the mesh's open edge may lie on the far side of its pixel's centre: a pixel of slack.
missed = sum(1 for (x, y) in flat_pixels if not any((x + dx, y + dy) in drawn for dx in (-1, 0, 1) for dy in (-1, 0, 1)))
missed /= len(flat_pixels)
print("top view: %d pixels drawn, %.4f beyond a voxel of a vertex; %d pixels of level faces' vertices, %.4f not drawn" %
      (len(drawn), stray, len(flat_pixels), missed))
assert stray < 0.001, stray
assert missed < 0.01, missed
# Framed to fill: the drawn pixels reach across most of the picture on one axis.
xs, ys = [p[0] for p in drawn], [p[1] for p in drawn]
assert max((max(xs) - min(xs)) / width, (max(ys) - min(ys)) / plot) > 0.85, "not framed to fill"
PY

# The GPU's mesh is the CPU reference's: the same picture.
"$voxen" render tsdf.vxm --output top-gpu.png --view top --width 800 --height 700 --device gpu --json > top-gpu.json 2> top-gpu.err ||
  fail "render --device gpu: $(cat top-gpu.err)"
no_validation top-gpu.err "render --device gpu"
grep -q '"mesh":"gpu"' top-gpu.json || fail "--device gpu: not meshed on the GPU: $(cat top-gpu.json)"
cmp top.png top-gpu.png || fail "the GPU mesher's picture differs from the CPU reference's"

# The default perspective view, with a text summary.
"$voxen" render tsdf.vxm --output persp.png > persp.log 2> persp.err || fail "render: $(cat persp.err)"
grep -q "TSDF mesh (.*): [0-9,]* vertices, [0-9,]* triangles" persp.log || fail "no mesh summary: $(cat persp.log)"
grep -q "coloured by height" persp.log || fail "no colouring said: $(cat persp.log)"
[ -s persp.png ] || fail "no perspective picture"

# A map with colour (voxen map --tsdf --color) is drawn in its mesh's colours, --color height
# draws the height ramp instead; --color cost is a heightmap's.
"$voxen" generate --depth-recording ctum/ --color --frames 2 --depth-width 160 --depth-height 120 > gen-colour.log
"$voxen" map --input ctum --tsdf --color --resolution 0.05 --output colour.vxm --cpu --quiet > map-colour.log
"$voxen" render colour.vxm --output colour.png --json > colour.json 2> colour.err || fail "render of a coloured map: $(cat colour.err)"
grep -q '"color":"mesh"' colour.json || fail "a coloured map not drawn in its colours: $(cat colour.json)"
"$voxen" render colour.vxm --output colour-height.png --color height --json > colour-height.json
grep -q '"color":"height"' colour-height.json || fail "--color height: $(cat colour-height.json)"
if "$voxen" render colour.vxm --output bad.png --color cost > cost.log 2>&1; then fail "--color cost drew a map"; fi
grep -q -- "--color is for a heightmap" cost.log || fail "--color cost: $(cat cost.log)"
rm -f bad.png

# --layer occupancy: the occupancy path, which finds no occupied voxel in a depth run's map.
if "$voxen" render tsdf.vxm --output occ.png --layer occupancy > occ.log 2> occ.err; then fail "--layer occupancy drew an empty occupancy"; fi
grep -q "no occupied voxels" occ.err || fail "--layer occupancy: $(cat occ.err)"
# Nothing above the weight: a picture of nothing, and a warning saying why.
"$voxen" render tsdf.vxm --output heavy.png --min-weight 100000 --json > heavy.json 2> heavy.err
grep -q "no surface with --min-weight" heavy.err || fail "--min-weight beyond every weight: $(cat heavy.err)"

expect_refusal() {  # expect_refusal WORDS ARGS...: a usage error with WORDS in the message, no picture
  local words=$1
  shift
  if "$voxen" "$@" > refused.out 2> refused.err; then fail "accepted: $*"; fi
  grep -q -- "$words" refused.err || fail "$*: the error does not say '$words': $(cat refused.err)"
  [ ! -e bad.png ] || fail "a refused render wrote a picture: $*"
}
"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 128 --scans 2 > gen-cloud.log
"$voxen" map --cloud run.ply --trajectory run.txt --output occupancy.vxm --resolution 0.2 --quiet --cpu > map-cloud.log
expect_refusal "--max-samples sizes the density grid" render tsdf.vxm --output bad.png --max-samples 100000
expect_refusal "has no tsdf layer" render occupancy.vxm --output bad.png --layer tsdf
expect_refusal "--min-weight is for a TSDF's mesh" render occupancy.vxm --output bad.png --min-weight 2
expect_refusal "--layer" render tsdf.vxm --output bad.png --layer ndt
# The occupancy map still draws its occupied voxels (the grid path, unchanged).
"$voxen" render occupancy.vxm --output occ-map.png --json > occ-map.json
grep -q '"occupied_voxels":[1-9]' occ-map.json || fail "the occupancy map's render: $(cat occ-map.json)"
echo "render tsdf: ok"
