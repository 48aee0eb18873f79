#!/usr/bin/env bash
# voxen mesh end to end: the analytic scene's TSDF (written by voxen_tests' case "A TSDF map saved
# and loaded meshes the same") meshed on the GPU and by the CPU reference (the same file, byte
# for byte) into a binary PLY that python3 reads back (header, sizes,
# indices in range, unit normals, the box, the weight threshold), the JSON summary, and bad
# input named (the flag, the map without a tsdf layer) without touching an existing output; and a
# generated depth recording mapped with voxen map --tsdf, meshed on the GPU and the CPU alike.
#   mesh.sh VOXEN_BINARY VOXEN_TESTS_BINARY WORK_DIR
set -euo pipefail
tests_binary=$2
source "$(dirname "$0")/../support/common.sh" mesh "$@"

VOXEN_TSDF_MESH_MAPS=$PWD "$tests_binary" "A TSDF map saved and loaded meshes the same" > maps.log 2>&1 ||
  fail "voxen_tests could not write the TSDF map: $(cat maps.log)"
[ -f scene.vxm ] && [ -f plain.vxm ] || fail "voxen_tests wrote no maps: $(cat maps.log)"
"$voxen" mesh scene.vxm --output scene.ply --json > scene.json
for key in vertices faces compute_ms; do
  [ -n "$(json_number $key scene.json)" ] || fail "the summary lacks $key: $(cat scene.json)"
done
[ "$(json_number faces scene.json)" -gt 1000 ] || fail "too few faces: $(cat scene.json)"
"$voxen" mesh scene.vxm --output again.ply --cpu --quiet > again.log
cmp scene.ply again.ply || fail "--cpu wrote another mesh than the default"
grep -q "triangles" again.log || fail "no summary: $(cat again.log)"
grep -q "CPU reference" again.log || fail "--cpu: the summary does not say the CPU reference: $(cat again.log)"
"$voxen" mesh scene.vxm --output gpu.ply --device gpu --json > gpu.json 2> gpu.err
no_validation gpu.err "--device gpu"
grep -q '"path":"gpu"' gpu.json || fail "--device gpu: not on the GPU: $(cat gpu.json)"
cmp scene.ply gpu.ply || fail "the GPU's mesh differs from the CPU reference's"
"$voxen" mesh scene.vxm --output boxed.ply --bbox 1.5 0 0.2 2.5 1 1.1 --json > boxed.json
"$voxen" mesh scene.vxm --output heavy.ply --min-weight 2 --json > heavy.json
python3 - scene.json scene.ply boxed.json boxed.ply heavy.json heavy.ply <<'PY' || fail "the PLY files do not read back"
import json, math, struct, sys
def read(path):
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode().split("\n")
    assert header[0] == "ply" and header[1] == "format binary_little_endian 1.0", header
    v = int(next(l for l in header if l.startswith("element vertex")).split()[2])
    f = int(next(l for l in header if l.startswith("element face")).split()[2])
    props = [l.split()[-1] for l in header if l.startswith("property float")]
    assert props == ["x", "y", "z", "nx", "ny", "nz"], props
    assert "property list uchar uint vertex_indices" in header, header
    assert len(data) == end + 24 * v + 13 * f, (len(data), end, v, f)
    verts = [struct.unpack_from("<6f", data, end + 24 * i) for i in range(v)]
    faces = []
    base = end + 24 * v
    for i in range(f):
        n, a, b, c = struct.unpack_from("<BIII", data, base + 13 * i)
        assert n == 3 and max(a, b, c) < v and len({a, b, c}) == 3, (n, a, b, c)
        faces.append((a, b, c))
    for p in verts:
        assert abs(math.sqrt(p[3] ** 2 + p[4] ** 2 + p[5] ** 2) - 1) < 1e-5, p
    assert len({p[:3] for p in verts}) == v, "two vertices at one position"
    return verts, faces
scene, boxed, heavy = [(json.load(open(sys.argv[i])), read(sys.argv[i + 1])) for i in (1, 3, 5)]
for summary, (verts, faces) in (scene, boxed, heavy):
    assert summary["vertices"] == len(verts) and summary["faces"] == len(faces), summary
assert 0 < len(boxed[1][1]) < len(scene[1][1]), "the box kept every face or none"
for p in boxed[1][0]:
    assert 1.5 - 1e-6 <= p[0] <= 2.5 + 1e-6 and 0 <= p[1] <= 1 + 1e-6 and 0.2 - 1e-6 <= p[2] <= 1.1 + 1e-6, p
assert len(heavy[1][1]) < len(scene[1][1]), "--min-weight 2 kept every face"
# The box's vertices are the whole mesh's, normals too (the read box reaches their neighbours).
whole = {p[:3]: p[3:] for p in scene[1][0]}
for p in boxed[1][0]:
    assert whole.get(p[:3]) == p[3:], ("a boxed vertex differs from the whole mesh's", p, whole.get(p[:3]))
PY
# End to end from a depth recording: voxen generate --depth-recording, voxen map --tsdf, voxen
# mesh on the GPU and by the CPU reference: the same PLY.
"$voxen" generate --depth-recording tum/ --frames 4 --depth-width 160 --depth-height 120 > gen.log
"$voxen" map --input tum --tsdf --resolution 0.05 --output walk.vxm --quiet > walk.log
"$voxen" mesh walk.vxm --output walk-cpu.ply --cpu --json > walk-cpu.json
"$voxen" mesh walk.vxm --output walk-gpu.ply --device gpu --quiet > walk-gpu.log 2> walk-gpu.err
no_validation walk-gpu.err "mesh --device gpu of a mapped recording"
cmp walk-cpu.ply walk-gpu.ply || fail "a mapped recording: the GPU's mesh differs from the CPU reference's"
[ "$(json_number faces walk-cpu.json)" -gt 10000 ] || fail "a mapped recording: too few faces: $(cat walk-cpu.json)"
# Bad input: named, nothing written, an existing output kept.
cp scene.ply kept.ply
expect_refusal() {  # expect_refusal WORDS ARGS...: the run fails naming WORDS, kept.ply unchanged
  local words=$1; shift
  if "$voxen" mesh "$@" --output kept.ply 2> refusal.err; then fail "accepted: $*"; fi
  grep -q -- "$words" refusal.err || fail "$*: the error does not say '$words': $(cat refusal.err)"
  cmp -s kept.ply scene.ply || fail "$*: a refused run changed the existing output"
}
expect_refusal "--min-weight" scene.vxm --min-weight -1
expect_refusal "--bbox" scene.vxm --bbox 2 0 0 1 1 1
expect_refusal "plain.vxm: the map has no 'tsdf' layer" plain.vxm
expect_refusal "no-such.vxm" no-such.vxm
expect_refusal "--cpu" scene.vxm --cpu --device gpu
echo "mesh: ok"
