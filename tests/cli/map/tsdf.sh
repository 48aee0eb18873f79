#!/usr/bin/env bash
# voxen map --tsdf: a generated depth camera walk (voxen generate --depth-recording) as a TUM
# RGB-D folder and as an MCAP file, mapped into the TSDF layer on the GPU and with the CPU
# reference (--cpu; --device auto on a CPU driver): the same map file byte for byte, for either
# recording; voxen clearance measures from the TSDF's surface; voxen info lists the
# tsdf layer; ray flags, a missing --input and a bad truncation refused by name, and a failed run
# leaves an existing output as it was.
#   tsdf.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" map_tsdf "$@"

"$voxen" generate --depth-recording tum/ --frames 4 --depth-width 160 --depth-height 120 > gen.log
"$voxen" generate --depth-recording walk.mcap --frames 4 --depth-width 160 --depth-height 120 > gen-mcap.log
"$voxen" map --input tum --tsdf --resolution 0.05 --output gpu.vxm --device gpu --json > gpu.json 2> gpu.err
no_validation gpu.err "map --tsdf"
"$voxen" map --input tum --tsdf --resolution 0.05 --output cpu.vxm --cpu --quiet
cmp gpu.vxm cpu.vxm || fail "map --tsdf: the GPU's map differs from the CPU reference's"
python3 - gpu.json <<'PY' || fail "map --tsdf --json: $(cat gpu.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["frames"] == 4 and r["blocks"] > 100 and r["regions"] > 0 and r["path"] == "gpu", r
assert "truncation_voxels=4" in r["tsdf_settings"], r
PY
# The MCAP file holds millimetres and tf (the TUM folder 1/5000 m and text poses): its own pair.
"$voxen" map --input walk.mcap --tsdf --resolution 0.05 --output mcap.vxm --device gpu --quiet 2> mcap.err
no_validation mcap.err "map --tsdf (MCAP)"
"$voxen" map --input walk.mcap --tsdf --resolution 0.05 --output mcap-cpu.vxm --cpu --quiet
cmp mcap.vxm mcap-cpu.vxm || fail "map --tsdf (MCAP): the GPU's map differs from the CPU reference's"
# --device auto (the default) takes the CPU reference on a CPU driver, and says so.
"$voxen" map --input tum --tsdf --resolution 0.05 --output auto.vxm --json > auto.json
cmp auto.vxm cpu.vxm || fail "map --tsdf --device auto: another map than the CPU reference's"
if python3 -c "import json,sys; sys.exit(0 if json.load(open('gpu.json'))['path'] == 'gpu' else 1)"; then
  grep -q '"path":"cpu (device auto)"\|"path":"gpu"' auto.json || fail "map --tsdf --device auto: $(cat auto.json)"
fi
"$voxen" info gpu.vxm --json > info.json
grep -q '"tsdf"' info.json || fail "voxen info does not list the tsdf layer: $(cat info.json)"

# The clearance of a TSDF map measures from its surface (occupied on and behind it).
"$voxen" clearance cpu.vxm --output clear.vxm --range 1 --json > clear.json 2> clear.err
no_validation clear.err "clearance of a TSDF map"
python3 - clear.json <<'PY' || fail "clearance of a TSDF map: $(cat clear.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["tsdf_surface"]["occupied"] > 1000 and r["tsdf_surface"]["free"] > 1000, r
PY

expect_refusal() {  # expect_refusal WORDS ARGS...: exit 2 (usage) with WORDS in the message
  local words=$1
  shift
  if "$voxen" "$@" > refused.out 2> refused.err; then fail "accepted: $*"; fi
  grep -q -- "$words" refused.err || fail "$*: the error does not say '$words': $(cat refused.err)"
}
expect_refusal "--voxel-mean does not go with --tsdf" map --input tum --tsdf --output x.vxm --voxel-mean
# --cloud with --tsdf is ray integration (tsdf_rays.sh): depth flags do not go with it.
expect_refusal "--depth-topic does not go with --tsdf on a point cloud" map --cloud x.ply --tsdf --output x.vxm --depth-topic /d
expect_refusal "--tsdf needs --input" map --tsdf --output x.vxm
expect_refusal "--tsdf-truncation" map --input tum --tsdf --output x.vxm --resolution 0.05 --tsdf-truncation 0.01
echo "keep" > kept.vxm
expect_refusal "depth" map --input gen.log --tsdf --output kept.vxm
[ "$(cat kept.vxm)" = keep ] || fail "a failed --tsdf run changed an existing output"
echo "map --tsdf: ok"
