#!/usr/bin/env bash
# voxen map --tsdf on point clouds (ray integration, voxen/tsdf/tsdf_rays.hpp): a generated lidar
# recording (voxen generate --recording, two scans' worth of 65,536 rays) mapped into the TSDF on
# the GPU and with the CPU reference: the same map file byte for byte, for the bag and for the PLY
# cloud with its trajectory, and whatever --threads reads it; voxen mesh meshes it (the same mesh
# from either map); voxen info lists the tsdf layer; occupancy flags refused by name.
#   tsdf_rays.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" map_tsdf_rays "$@"

"$voxen" generate --recording run.bag --cloud run.ply --trajectory run.txt --rings 16 --columns 512 --scans 12 \
  --max-range 12 > gen.log
"$voxen" map --input run.bag --tsdf --resolution 0.1 --max-range 12 --output gpu.vxm --device gpu --json > gpu.json 2> gpu.err
no_validation gpu.err "map --tsdf (clouds)"
"$voxen" map --input run.bag --tsdf --resolution 0.1 --max-range 12 --output cpu.vxm --cpu --quiet
cmp gpu.vxm cpu.vxm || fail "map --tsdf (clouds): the GPU's map differs from the CPU reference's"
python3 - gpu.json <<'PY' || fail "map --tsdf (clouds) --json: $(cat gpu.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["scans"] >= 2 and r["rays"] > 65536 and r["blocks"] > 100 and r["regions"] > 0 and r["path"] == "gpu", r
assert "truncation_voxels=4" in r["tsdf_settings"], r
PY
# The PLY cloud with its trajectory holds the bag's very points: the same map, at any --threads.
"$voxen" map --cloud run.ply --trajectory run.txt --tsdf --resolution 0.1 --max-range 12 --output ply.vxm --cpu --threads 3 --quiet
cmp ply.vxm cpu.vxm || fail "map --tsdf (PLY + trajectory): another map than the bag's"
"$voxen" map --cloud run.ply --trajectory run.txt --tsdf --resolution 0.1 --max-range 12 --output ply-gpu.vxm --device gpu \
  --threads 1 --quiet 2> ply.err
no_validation ply.err "map --tsdf (PLY)"
cmp ply-gpu.vxm cpu.vxm || fail "map --tsdf (PLY, GPU, one thread): another map than the CPU reference's"
"$voxen" info gpu.vxm --json > info.json
grep -q '"tsdf"' info.json || fail "voxen info does not list the tsdf layer: $(cat info.json)"

# The surface as a mesh, the same from either map.
"$voxen" mesh gpu.vxm --output gpu.ply --device gpu > mesh-gpu.log 2> mesh.err
no_validation mesh.err "mesh of a ray TSDF"
"$voxen" mesh cpu.vxm --output cpu.ply --cpu > mesh-cpu.log
cmp gpu.ply cpu.ply || fail "voxen mesh: another mesh from the GPU's ray TSDF than from the CPU's"
python3 - gpu.ply <<'PY' || fail "voxen mesh of a ray TSDF: $(head -c 300 gpu.ply)"
import sys
head = open(sys.argv[1], "rb").read(400).split(b"end_header")[0].decode()
vertices = int(head.split("element vertex ")[1].split()[0])
assert vertices > 1000, head
PY

# Flags about occupancy are refused by name.
if "$voxen" map --input run.bag --tsdf --output x.vxm --hit 0.7 > refuse.out 2> refuse.err; then fail "--hit with --tsdf accepted"; fi
grep -q -- "--hit does not go with --tsdf on a point cloud" refuse.err || fail "--hit with --tsdf: $(cat refuse.err)"
[ ! -e x.vxm ] || fail "a refused run wrote x.vxm"
echo "map --tsdf (clouds): ok"
