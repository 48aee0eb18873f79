#!/usr/bin/env bash
# A heightmap's surface mesh (issue 39, item 4): voxen export HM.vxh --mesh-ply writes a
# binary PLY whose vertex and face counts are the squares and risers it reports (every level,
# or --level K), readable as PLY (the header's counts are the body's bytes, every index a
# vertex); voxen render HM.vxh draws it coloured by cost (lethal cells black: none by height)
# with the legend; the refusals name their flag (a level the heightmap lacks, --color without
# --mesh-ply, a map's --crop) and a failed export leaves an existing file as it was.
#   render_heightmap.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" render_heightmap "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 32 --columns 512 --scans 3 --seed 2 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --resolution 0.1 --quiet > map.log
"$voxen" heightmap map.vxm --output hm.vxh --levels 2 > heightmap.log 2> heightmap.err || fail "heightmap: $(cat heightmap.err)"

# PLY_CHECK FILE: the header's counts against the body, and every face a triangle of vertices.
ply_check() {
  python3 - "$1" << 'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
end = data.index(b'end_header\n') + len(b'end_header\n')
header = data[:end].decode()
if not header.startswith('ply\nformat binary_little_endian 1.0\n'): sys.exit('not a binary little-endian PLY')
counts = {l.split()[1]: int(l.split()[2]) for l in header.splitlines() if l.startswith('element ')}
v, f = counts['vertex'], counts['face']
for prop in ('property float x', 'property uchar red', 'property uchar green', 'property uchar blue',
             'property list uchar int vertex_indices'):
    if prop not in header: sys.exit('no "%s" in the header' % prop)
if len(data) != end + 15 * v + 13 * f: sys.exit('%d bytes, the header says %d' % (len(data), end + 15 * v + 13 * f))
faces = data[end + 15 * v:]
for i in range(f):
    n, a, b, c = struct.unpack_from('<Biii', faces, 13 * i)
    if n != 3 or not all(0 <= k < v for k in (a, b, c)): sys.exit('face %d is %d: %d %d %d' % (i, n, a, b, c))
print(v, f)
PY
}
counts() {  # counts LOG: "CELLS RISERS VERTICES TRIANGLES" from the export's line
  sed -n 's/.*; \([0-9]*\) vertices, \([0-9]*\) triangles: \([0-9]*\) cells ([0-9]* lethal), [0-9]* joins, \([0-9]*\) risers$/\3 \4 \1 \2/p' "$1"
}

# Every level, by cost: 4 vertices and 2 triangles per square and per riser.
"$voxen" export hm.vxh --mesh-ply mesh.ply > mesh.log 2> mesh.err || fail "export --mesh-ply: $(cat mesh.err)"
read -r cells risers vertices triangles <<< "$(counts mesh.log)"
[ -n "${cells:-}" ] || fail "no counts in: $(cat mesh.log)"
[ "$cells" -gt 100 ] || fail "only $cells cells: $(cat mesh.log)"
[ "$risers" -gt 0 ] || fail "no riser joins the terrain: $(cat mesh.log)"
[ "$vertices" -eq $((4 * (cells + risers))) ] || fail "$vertices vertices for $cells cells and $risers risers"
[ "$triangles" -eq $((2 * (cells + risers))) ] || fail "$triangles triangles for $cells cells and $risers risers"
[ "$(ply_check mesh.ply)" = "$vertices $triangles" ] || fail "mesh.ply: $(ply_check mesh.ply)"
grep -q "every level coloured by cost" mesh.log || fail "$(cat mesh.log)"
# The ground level alone: fewer cells (the generated scene has tables or shelves: level 1), by height.
"$voxen" export hm.vxh --mesh-ply ground.ply --level 0 --color height > ground.log || fail "--level 0"
read -r groundCells _ groundVertices groundTriangles <<< "$(counts ground.log)"
[ "$groundCells" -le "$cells" ] || fail "level 0 has $groundCells cells, every level $cells"
[ "$(ply_check ground.ply)" = "$groundVertices $groundTriangles" ] || fail "ground.ply"
grep -q "level 0 coloured by height" ground.log || fail "$(cat ground.log)"

# Refusals, by flag; a failed export leaves the file there as it was.
cp mesh.ply kept.ply
if "$voxen" export hm.vxh --mesh-ply kept.ply --level 5 > bad.log 2> bad.err; then fail "--level 5 of 2 levels was accepted"; fi
grep -q -- "--level 5" bad.err || fail "the error does not name --level: $(cat bad.err)"
cmp -s kept.ply mesh.ply || fail "a failed export changed the existing PLY"
if "$voxen" export hm.vxh --cost-png c.png --color height > bad.log 2> bad.err; then fail "--color without --mesh-ply was accepted"; fi
grep -q -- "--color goes with --mesh-ply" bad.err || fail "$(cat bad.err)"

# voxen render HM.vxh: top view without the legend, by cost and by height.
# PICTURE PNG: "BLACK RAMP" pixel counts of the top half-rows: black, and neither black, grey,
# nor the background (the cost ramp's colours, shaded).
picture() {
  python3 - "$1" << 'PY'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
width, height = struct.unpack('>II', data[16:24])
raw, pos = b'', 8
while pos < len(data):
    length, kind = struct.unpack('>I4s', data[pos:pos + 8])
    if kind == b'IDAT': raw += data[pos + 8:pos + 8 + length]
    pos += 12 + length
raw = zlib.decompress(raw)
stride, prev, black, ramp = width * 4, bytearray(width * 4), 0, 0
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
    prev = line
    for x in range(width):
        r, g, b = line[4 * x:4 * x + 3]
        if (r, g, b) == (0, 0, 0): black += 1
        elif (r, g, b) != (222, 228, 236) and not (r == g == b): ramp += 1
print(black, ramp)
PY
}
"$voxen" render hm.vxh --output cost.png --view top --no-legend --width 400 --height 300 --json > cost.json 2> cost.err ||
  fail "render: $(cat cost.err)"
no_validation cost.err render
lethal=$(json_number lethal_cells cost.json)
[ "$(json_number cells cost.json)" = "$cells" ] || fail "render drew $(json_number cells cost.json) cells, the mesh has $cells"
[ "${lethal:-0}" -gt 0 ] || fail "the generated heightmap has no lethal cell to draw: $(cat cost.json)"
read -r black ramp <<< "$(picture cost.png)"
[ "$black" -gt 0 ] || fail "no black (lethal) pixel by cost"
[ "$ramp" -gt 0 ] || fail "no pixel on the cost ramp"
"$voxen" render hm.vxh --output height.png --view top --no-legend --width 400 --height 300 --color height > height.log 2> height.err ||
  fail "render --color height: $(cat height.err)"
read -r black ramp <<< "$(picture height.png)"
[ "$black" -eq 0 ] || fail "$black black pixels by height (lethal is a cost colour)"
# The default: perspective, with the legend.
"$voxen" render hm.vxh --output perspective.png > perspective.log 2> perspective.err || fail "render: $(cat perspective.err)"
no_validation perspective.err render
grep -q "coloured by cost" perspective.log || fail "$(cat perspective.log)"
if "$voxen" render hm.vxh --output bad.png --level 5 > bad.log 2> bad.err; then fail "render --level 5 was accepted"; fi
grep -q -- "--level 5" bad.err || fail "render: the error does not name --level: $(cat bad.err)"
if "$voxen" render hm.vxh --output bad.png --crop 0,0,0,1,1,1 > bad.log 2> bad.err; then fail "render --crop was accepted"; fi
grep -q -- "--crop" bad.err || fail "$(cat bad.err)"
if "$voxen" render map.vxm --output bad.png --color height > bad.log 2> bad.err; then fail "a map took --color"; fi
grep -q -- "--color is for a heightmap" bad.err || fail "$(cat bad.err)"
[ ! -e bad.png ] || fail "a refused render wrote bad.png"
echo "render_heightmap: ok ($cells cells, $risers risers, $lethal lethal)"
