#!/usr/bin/env bash
# Coloured TSDF meshes end to end: a generated depth camera walk with colour images (voxen
# generate --depth-recording --color) as a TUM RGB-D folder and as an MCAP file, mapped with
# voxen map --tsdf --color on the GPU and with the CPU reference (the same map file byte for
# byte), voxen info listing the tsdf_colour layer, voxen mesh writing property uchar red, green,
# blue per vertex (the GPU's PLY equal to the CPU reference's byte for byte), the vertices
# taking the generator's surface colours (no black vertex, a few colours covering most), and a
# map made without --color meshing without colours, two coloured maps merged (voxen merge) and
# meshed; --color without --tsdf and an unknown --color-topic refused by name.
#   mesh_colour.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" mesh_colour "$@"

"$voxen" generate --depth-recording tum/ --color --frames 4 --depth-width 160 --depth-height 120 > gen.log
"$voxen" generate --depth-recording walk.mcap --color --frames 4 --depth-width 160 --depth-height 120 > gen-mcap.log
"$voxen" map --input tum --tsdf --color --resolution 0.05 --output gpu.vxm --device gpu --json > gpu.json 2> gpu.err
no_validation gpu.err "map --tsdf --color"
"$voxen" map --input tum --tsdf --color --resolution 0.05 --output cpu.vxm --cpu --quiet
cmp gpu.vxm cpu.vxm || fail "map --tsdf --color: the GPU's map differs from the CPU reference's"
python3 - gpu.json <<'PY' || fail "map --tsdf --color --json: $(cat gpu.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["frames"] == 4 and r["frames_with_color"] == 4 and r["frames_without_color"] == 0, r
PY
"$voxen" info gpu.vxm --json > info.json
grep -q '"tsdf_colour"' info.json || fail "voxen info does not list the tsdf_colour layer: $(cat info.json)"
# The MCAP file's colour topic, named.
"$voxen" map --input walk.mcap --tsdf --color-topic /camera/color/image_raw --resolution 0.05 --output mcap.vxm --device gpu \
  --quiet 2> mcap.err
no_validation mcap.err "map --tsdf --color-topic (MCAP)"
"$voxen" map --input walk.mcap --tsdf --color --resolution 0.05 --output mcap-cpu.vxm --cpu --quiet
cmp mcap.vxm mcap-cpu.vxm || fail "map --tsdf --color (MCAP): the GPU's map differs from the CPU reference's"

"$voxen" mesh gpu.vxm --output gpu.ply --device gpu --quiet 2> mesh.err
no_validation mesh.err "mesh of a coloured map"
"$voxen" mesh gpu.vxm --output cpu.ply --cpu --quiet
cmp gpu.ply cpu.ply || fail "the GPU's coloured mesh differs from the CPU reference's"
"$voxen" map --input tum --tsdf --resolution 0.05 --output plain.vxm --cpu --quiet
"$voxen" mesh plain.vxm --output plain.ply --cpu --quiet
python3 - gpu.ply plain.ply <<'PY' || fail "the coloured PLY does not read back"
import collections, struct, sys
def read(path):
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode().split("\n")
    v = int(next(l for l in header if l.startswith("element vertex")).split()[2])
    f = int(next(l for l in header if l.startswith("element face")).split()[2])
    props = [l.split()[1:] for l in header if l.startswith("property") and "list" not in l]
    return data, end, v, f, props
data, end, v, f, props = read(sys.argv[1])
assert props == [["float", p] for p in ("x", "y", "z", "nx", "ny", "nz")] + [["uchar", c] for c in ("red", "green", "blue")], props
assert len(data) == end + 27 * v + 13 * f and v > 1000, (len(data), end, v, f)
colours = collections.Counter(struct.unpack_from("<3B", data, end + 27 * i + 24) for i in range(v))
assert colours[(0, 0, 0)] == 0, "black vertices: %d" % colours[(0, 0, 0)]
top = sum(n for _, n in colours.most_common(8))
assert top > 0.45 * v, (top, v, colours.most_common(8))  # 53% here: the surfaces' colours and their checker's darker squares
_, _, pv, _, plain = read(sys.argv[2])
assert pv == v and ["uchar", "red"] not in plain, plain  # the same surface, no colours
PY
# Two coloured maps merged (the weighted mean colour, tests/tsdf/test_tsdf_colour.cpp checks the
# values): the layer kept, every value possible, the merged map's mesh coloured.
"$voxen" merge cpu.vxm mcap.vxm --output merged.vxm > merge.log 2>&1 || fail "merge of coloured maps: $(cat merge.log)"
"$voxen" info merged.vxm --verify > merged.info || fail "info --verify of the merged map: $(cat merged.info)"
grep -q "tsdf_colour" merged.info || fail "the merged map lost tsdf_colour: $(cat merged.info)"
"$voxen" mesh merged.vxm --output merged.ply --cpu --quiet > /dev/null
grep -aq "property uchar red" merged.ply || fail "the merged map's mesh has no colours"
# --color without --tsdf, and a colour topic the recording lacks, refused by name.
if "$voxen" map --input tum --color --output x.vxm > refused.out 2> refused.err; then fail "accepted --color without --tsdf"; fi
grep -q -- "--color goes with --tsdf" refused.err || fail "--color without --tsdf: $(cat refused.err)"
if "$voxen" map --input walk.mcap --tsdf --color-topic /nope --output x.vxm > refused.out 2> refused.err; then
  fail "accepted --color-topic /nope"
fi
grep -q -- "--color-topic /nope" refused.err || fail "--color-topic /nope: $(cat refused.err)"
[ ! -e x.vxm ] || fail "a refused run wrote x.vxm"
echo "mesh_colour: ok"
