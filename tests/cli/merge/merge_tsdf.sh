#!/usr/bin/env bash
# TSDF maps in the layered map (issue 40, item 2): voxen merge of two depth runs over the same
# walk (exact depths, and 2 cm depth noise) holds in every voxel the weighted mean of the two
# distances (integers, rounded to nearest, halves away from zero) and the sum of the weights,
# read back through voxen export --layer tsdf --voxels-ply; either order gives the same bytes;
# the merged map keeps the TSDF settings its inputs record, and maps made with others are
# refused by name; voxen info gives the TSDF settings (band in voxels and metres, weight, weighting); voxen export --layer tsdf --slice-png draws
# a slice of the signed distance (a colour bar in metres, unobserved voxels "no data") placed
# in the world by its YAML.
#   merge_tsdf.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" merge_tsdf "$@"

"$voxen" generate --depth-recording clean/ --frames 4 --depth-width 160 --depth-height 120 > gen-clean.log
"$voxen" generate --depth-recording noisy/ --frames 4 --depth-width 160 --depth-height 120 --depth-noise 0.02 > gen-noisy.log
"$voxen" map --input clean --tsdf --resolution 0.05 --output a.vxm --cpu --quiet
"$voxen" map --input noisy --tsdf --resolution 0.05 --output b.vxm --cpu --quiet
"$voxen" merge a.vxm b.vxm --output ab.vxm > merge-ab.log 2> merge-ab.err || fail "merge: $(cat merge-ab.err)"
"$voxen" merge b.vxm a.vxm --output ba.vxm > merge-ba.log
cmp ab.vxm ba.vxm || fail "merge a b and merge b a differ"
for map in a b ab; do
  "$voxen" export $map.vxm --layer tsdf --voxels-ply $map.ply > export-$map.log 2> export-$map.err || fail "export $map: $(cat export-$map.err)"
done
python3 - a.ply b.ply ab.ply <<'PY' || fail "the merged TSDF is not the weighted mean of the inputs'"
import struct, sys
def read(path):
    # voxen export --voxels-ply: float x y z, then the layer's fields as doubles (metres, weight units).
    blob = open(path, "rb").read()
    end = blob.index(b"end_header\n") + len(b"end_header\n")
    header = blob[:end].decode().split("\n")
    count = int(next(l for l in header if l.startswith("element vertex")).split()[2])
    props = [l.split()[1:] for l in header if l.startswith("property")]
    assert props == [["float", "x"], ["float", "y"], ["float", "z"], ["double", "distance"], ["double", "weight"]], props
    voxels = {}
    for i in range(count):
        x, y, z, d, w = struct.unpack_from("<3f2d", blob, end + 28 * i)
        # Back to the layer's integers: distance in 1/65536 voxel (0.05 m), weight in 1/16.
        key = (round(x / 0.05 - 0.5), round(y / 0.05 - 0.5), round(z / 0.05 - 0.5))
        voxels[key] = (round(d / 0.05 * 65536), round(w * 16))
    return voxels
a, b, ab = (read(p) for p in sys.argv[1:4])
def mean(pairs):
    num, den = sum(d * w for d, w in pairs), sum(w for d, w in pairs)
    q = (abs(num) * 2 + den) // (2 * den)  # to nearest, halves away from zero
    return (q if num >= 0 else -q), den
both = set(a) & set(b)
assert len(both) > 10000, len(both)
assert set(ab) == set(a) | set(b), "the merged map's observed voxels are not the union of the inputs'"
wrong = [k for k in both if ab[k] != mean([a[k], b[k]])]
assert not wrong, [(k, a[k], b[k], ab[k]) for k in wrong[:5]]
differ = sum(1 for k in both if a[k][0] != b[k][0])
assert differ > 1000, differ  # the noise changed the distances: the mean is tested, not a copy
only = [k for k in set(a) ^ set(b) if ab[k] != (a.get(k) or b.get(k))]
assert not only, only[:5]
print("merge: %d voxels in both (%d with other distances), all the weighted mean" % (len(both), differ))
PY

# The merged map keeps its inputs' TSDF settings; maps made with others do not merge.
"$voxen" info ab.vxm --json > info.json
grep -q '"tsdf":"truncation_voxels=4;max_weight=64;weighting=constant"' info.json ||
  fail "voxen info does not give the merged map's TSDF settings: $(cat info.json)"
"$voxen" info ab.vxm > info.txt
grep -q "^tsdf: *truncation 4 voxels (0.2 m), largest weight 64, constant weighting" info.txt ||
  fail "voxen info (text) does not give the TSDF settings: $(cat info.txt)"
"$voxen" map --input clean --tsdf --resolution 0.05 --tsdf-truncation 0.1 --output narrow.vxm --cpu --quiet
if "$voxen" merge a.vxm narrow.vxm --output bad.vxm > bad.log 2>&1; then fail "maps with other TSDF settings merged"; fi
grep -q "TSDF settings .*truncation_voxels=4.* vs .*truncation_voxels=2" bad.log || fail "other settings: $(cat bad.log)"
# The merged map takes more frames with its settings (voxen mesh reads it as any TSDF map).
"$voxen" mesh ab.vxm --output ab-mesh.ply --cpu --quiet > mesh.log || fail "mesh of the merged map"

# A slice of the signed distance as a picture: the colour bar in metres, the axes in world
# metres, unobserved voxels "no data"; the YAML places it.
"$voxen" export ab.vxm --layer tsdf --slice-png slice.png --z 1.0 > slice.log 2> slice.err || fail "--slice-png: $(cat slice.err)"
grep -q "layer tsdf, field distance" slice.log || fail "the slice's summary: $(cat slice.log)"
[ -s slice.png ] && [ -s slice.yaml ] || fail "no slice picture or YAML"
"$voxen" export ab.vxm --layer tsdf --field weight --slice-png weight.png --z 1.0 > weight.log || fail "--field weight"
python3 - slice.png <<'PY' || fail "the slice picture"
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n'
width, height, depth, kind = struct.unpack('>IIBB', data[16:26])
assert width >= 400 and height >= 300, (width, height)
PY
echo "merge tsdf: ok"
