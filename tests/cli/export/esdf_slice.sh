#!/usr/bin/env bash
# voxen export MAP --esdf-slice (issue 39 item 2): a generated run, mapped, then the 2D distance
# to the obstacles of a height band as a PGM with its map_server YAML and --npy arrays; the
# distances checked against a brute-force distance over the obstacle cells (pure Python: numpy
# is not on every interpreter), the PGM's pixels against the distances, the GPU's files equal to
# the CPU reference's byte for byte (--device gpu against --device auto, which takes the CPU
# reference on lavapipe), the same for a heightmap's --costmap inflation; --esdf-png;
# --unknown-as-obstacle;
# a band without obstacles (a note, not an error); voxen bench distance; and the refusals, each
# naming its flag.
#   esdf_slice.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" esdf_slice "$@"
python=$(command -v python3 || command -v python) || fail "no python3"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 32 --columns 512 --scans 10 --speed 3 --seed 2 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --resolution 0.1 --quiet > map.log
yaml_field() { grep "^$1: " "$2" | cut -d' ' -f2-; }

# The slice, arrays and all, under --device auto (the CPU reference on a CPU driver).
"$voxen" export map.vxm --esdf-slice slice.pgm --z-min 0.5 --z-max 1.5 --npy esdf > slice.log 2> slice.err ||
  fail "export: $(cat slice.err)"
no_validation slice.err "export --esdf-slice"
for f in slice.pgm slice.yaml esdf-distance.npy esdf-obstacle.npy esdf.json; do [ -s "$f" ] || fail "no $f: $(cat slice.log)"; done
grep -q "ESDF slice of z 0.5..1.5 m" slice.log || fail "no summary: $(cat slice.log)"
[ "$(yaml_field image slice.yaml)" = slice.pgm ] || fail "slice.yaml image: $(cat slice.yaml)"
[ "$(yaml_field mode slice.yaml)" = scale ] || fail "slice.yaml mode"
[ "$(yaml_field resolution slice.yaml)" = 0.1 ] || fail "slice.yaml resolution"
[ "$(yaml_field max_distance slice.yaml)" = 2 ] || fail "slice.yaml max_distance"
[ "$(yaml_field z_min slice.yaml)" = 0.5 ] && [ "$(yaml_field z_max slice.yaml)" = 1.5 ] || fail "slice.yaml band"
[ "$(yaml_field unknown_as_obstacle slice.yaml)" = false ] || fail "slice.yaml unknown_as_obstacle"
grep -q '^origin: \[-\?[0-9.e-]*, -\?[0-9.e-]*, 0.0\]$' slice.yaml || fail "slice.yaml origin: $(cat slice.yaml)"

# The distances against brute force, and the PGM against the distances (rows top first).
"$python" - slice.yaml slice.pgm esdf > check.log 2>&1 <<'EOF' || fail "distances: $(cat check.log)"
import json, math, random, struct, sys
from array import array

def npy(path, code):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", path
    length = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + length].decode()
    shape = tuple(int(v) for v in header.split("'shape': (")[1].split(")")[0].split(",") if v.strip())
    values = array(code)
    values.frombytes(data[10 + length:])
    assert len(values) == shape[0] * shape[1], (path, shape, len(values))
    return shape, values

yaml_path, pgm_path, prefix = sys.argv[1:]
meta = json.load(open(prefix + ".json"))
(rows, cols), dist = npy(prefix + "-distance.npy", "f")
_, obstacle = npy(prefix + "-obstacle.npy", "B")
assert (rows, cols) == (meta["height"], meta["width"]), meta
res = meta["resolution"]
cells = [(i % cols, i // cols) for i in range(rows * cols) if obstacle[i]]
assert cells and len(cells) == meta["obstacles"], (len(cells), meta["obstacles"])
yaml = dict(line.split(": ", 1) for line in open(yaml_path).read().splitlines() if ": " in line and not line.startswith("#"))
top = float(yaml["max_distance"])
pgm = open(pgm_path, "rb").read()
parts = pgm.split(b"\n", 4)
assert parts[0] == b"P5" and parts[2] == b"%d %d" % (cols, rows) and parts[3] == b"255", parts[:4]
pixels = parts[4]
assert len(pixels) == rows * cols
random.seed(5)
sample = random.sample(range(rows * cols), min(400, rows * cols)) + [i for i in range(rows * cols) if obstacle[i]][:50]
worst = 0.0
for i in sample:
    x, y = i % cols, i // cols
    brute = min(math.hypot(x - ox, y - oy) for ox, oy in cells) * res
    worst = max(worst, abs(dist[i] - brute))
    assert abs(dist[i] - brute) <= 1e-5 * max(1.0, brute), (x, y, dist[i], brute)
    want = 0 if obstacle[i] else round(254 * min(dist[i], top) / top)
    got = pixels[(rows - 1 - y) * cols + x]
    assert abs(got - want) <= 1 and (got == 0) == bool(obstacle[i]), (x, y, got, want)
print("cells %d x %d, obstacles %d, sampled %d, worst |d - brute| %.2g m" % (cols, rows, len(cells), len(sample), worst))
EOF

# The GPU's slice (lavapipe here) equals the CPU reference's, byte for byte.
"$voxen" export map.vxm --esdf-slice gpu.yaml --z-min 0.5 --z-max 1.5 --npy gpu --device gpu > gpu.log 2> gpu.err ||
  fail "export --device gpu: $(cat gpu.err)"
no_validation gpu.err "export --esdf-slice --device gpu"
grep -q "distance transform on the GPU" gpu.log || fail "--device gpu did not run the GPU: $(cat gpu.log)"
cmp -s slice.pgm gpu.pgm || fail "the GPU's slice PGM differs from the CPU reference's"
cmp -s esdf-distance.npy gpu-distance.npy || fail "the GPU's distances differ from the CPU reference's"
diff <(grep -v '^image:' slice.yaml) <(grep -v '^image:' gpu.yaml) > /dev/null || fail "the YAMLs differ beyond the image"

# A heightmap's costmap inflation: the same bytes on the GPU and the CPU reference.
"$voxen" heightmap map.vxm --output hm.vxh > heightmap.log 2> heightmap.err || fail "heightmap: $(cat heightmap.err)"
"$voxen" export hm.vxh --costmap cpu-cost.yaml --inflation 0.6 --inscribed-radius 0.2 > cpu-cost.log
"$voxen" export hm.vxh --costmap gpu-cost.yaml --inflation 0.6 --inscribed-radius 0.2 --device gpu > gpu-cost.log 2> gpu-cost.err ||
  fail "costmap --device gpu: $(cat gpu-cost.err)"
no_validation gpu-cost.err "export --costmap --device gpu"
grep -q "distance transform on the GPU" gpu-cost.log || fail "costmap: --device gpu did not run the GPU: $(cat gpu-cost.log)"
cmp -s cpu-cost.pgm gpu-cost.pgm || fail "the GPU's costmap differs from the CPU reference's"
"$voxen" export hm.vxh --costmap flat-cost.yaml --inflation 0 --device gpu > flat-cost.log
grep -q "no distance transform (no radius" flat-cost.log || fail "costmap --inflation 0: $(cat flat-cost.log)"

# --esdf-png: the picture with a colour bar and the YAML that places it.
"$voxen" export map.vxm --esdf-png picture.png --z-min 0.5 --z-max 1.5 --scale 2 > picture.log 2> picture.err ||
  fail "--esdf-png: $(cat picture.err)"
[ "$(head -c 4 picture.png | tail -c 3)" = PNG ] || fail "picture.png is not a PNG"
[ "$(yaml_field image picture.yaml)" = picture.png ] || fail "picture.yaml: $(cat picture.yaml 2>/dev/null)"
grep -q "2 pixels per cell, a colour bar" picture.log || fail "--esdf-png summary: $(cat picture.log)"

# Unknown as obstacle: never fewer obstacles.
"$voxen" export map.vxm --esdf-slice unknown.yaml --z-min 0.5 --z-max 1.5 --unknown-as-obstacle --max-distance 1 > unknown.log
count() { grep -o '; [0-9]* obstacle cells' "$1" | grep -o '[0-9]*'; }
[ "$(count unknown.log)" -ge "$(count slice.log)" ] || fail "--unknown-as-obstacle found fewer obstacles"
[ "$(yaml_field unknown_as_obstacle unknown.yaml)" = true ] || fail "unknown.yaml unknown_as_obstacle"
[ "$(yaml_field max_distance unknown.yaml)" = 1 ] || fail "unknown.yaml max_distance"

# --bbox around the trajectory's middle pose (observed free space), half as wide as its distance
# to the nearest obstacle: no obstacle in the band inside it, which is a note (every pixel 254),
# not an error.
box=$("$python" - esdf run.txt <<'EOF'
import json, struct, sys
from array import array
prefix, trajectory = sys.argv[1:]
meta = json.load(open(prefix + ".json"))
data = open(prefix + "-distance.npy", "rb").read()
length = struct.unpack("<H", data[8:10])[0]
dist = array("f")
dist.frombytes(data[10 + length:])
poses = [line.split() for line in open(trajectory) if line.strip() and not line.startswith("#")]
x, y = float(poses[len(poses) // 2][1]), float(poses[len(poses) // 2][2])
res, cols = meta["resolution"], meta["width"]
i = int((y - meta["origin_y"]) / res) * cols + int((x - meta["origin_x"]) / res)
half = dist[i] / 2
assert 0.2 < half < 100, (x, y, dist[i])
print("%.3f %.3f -5 %.3f %.3f 10" % (x - half, y - half, x + half, y + half))
EOF
)
"$voxen" export map.vxm --esdf-slice empty.yaml --z-min 0.5 --z-max 1.5 --bbox $box > empty.log 2> empty.err ||
  fail "an empty band (--bbox $box): $(cat empty.err)"
grep -q "no occupied voxel is centred in z 0.5..1.5 m" empty.err || fail "no note for an empty band: $(cat empty.log empty.err)"
grep -q "; 0 obstacle cells" empty.log || fail "an empty band's obstacles: $(cat empty.log)"
"$python" -c "
import sys
data = open('empty.pgm', 'rb').read().split(b'\\n', 4)[4]
sys.exit(0 if data and set(data) == {254} else 1)" || fail "an empty band's PGM is not all 254"

# Refusals, each naming its flag, and nothing written.
expect_error() {  # expect_error PATTERN ARGS...
  local pattern=$1
  shift
  if "$voxen" export "$@" > err.out 2> err.log; then fail "export $* succeeded"; fi
  grep -q -- "$pattern" err.log || fail "export $*: no '$pattern' in: $(cat err.log)"
}
expect_error "--z-min" map.vxm --esdf-slice bad.yaml --z-min 2 --z-max 1
expect_error "--z-min" map.vxm --esdf-slice bad.yaml --z-max 1
expect_error "--z-min" map.vxm --esdf-slice bad.yaml --z-min 500 --z-max 501
expect_error "--z-max" map.vxm --esdf-slice bad.yaml --z-min -501 --z-max -500
expect_error "--z-max" map.vxm --esdf-slice bad.yaml --z-min 0.51 --z-max 0.54
expect_error "--max-distance" map.vxm --esdf-slice bad.yaml --z-min 0.5 --z-max 1 --max-distance 0
expect_error "go with --esdf-slice" map.vxm --occupied-ply bad.ply --z-min 0.5
expect_error "--npy goes with --esdf-slice" map.vxm --occupied-ply bad.ply --npy bad
expect_error "--device" map.vxm --occupied-ply bad.ply --device gpu
expect_error "--device" hm.vxh --nav2 bad.yaml --device gpu
expect_error "--esdf-slice" hm.vxh --esdf-slice bad.yaml --z-min 0 --z-max 1
expect_error "--esdf-png needs --z-min" map.vxm --esdf-png bad.png
expect_error "--scale go" map.vxm --esdf-slice bad.yaml --z-min 0.5 --z-max 1 --scale 2
for f in bad.yaml bad.pgm bad.ply bad.png bad-distance.npy; do [ ! -e "$f" ] || fail "a refused export wrote $f"; done
mkdir folder.pgm
expect_error "--esdf-slice's PGM" map.vxm --esdf-slice folder.yaml --z-min 0.5 --z-max 1.5

# voxen bench distance: the GPU equal to the CPU reference (exit 0, "exact": true).
"$voxen" bench distance --size 65 130 --repeat 1 --json > bench.json 2> bench.err || fail "bench distance: $(cat bench.err)"
no_validation bench.err "bench distance"
grep -q '"exact":true' bench.json || fail "bench distance: $(cat bench.json)"

# --help documents the flags.
"$voxen" export --help > help.txt
for flag in --esdf-slice --esdf-png --z-min --z-max --max-distance --unknown-as-obstacle --npy --device; do
  grep -q -- "$flag" help.txt || fail "export --help lacks $flag"
done
echo "esdf_slice: ok ($(cat check.log))"
