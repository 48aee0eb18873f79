#!/usr/bin/env bash
# voxen bench tsdf end to end on tiny sizes: two frames at two resolutions, the GPU's tsdf
# layer equal to the CPU reference's byte for byte (the JSON's exact flags, and no voxel
# differing), the meshes equal, per-frame times for both, the table, and bad flags named.
#   bench_tsdf.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" bench_tsdf "$@"

"$voxen" bench tsdf --frames 2 --resolution 0.05 0.1 --json > bench.json 2> bench.err ||
  fail "bench tsdf failed: $(cat bench.json bench.err)"
no_validation bench.err "bench tsdf"
grep -q '"device":' bench.json || fail "no device: $(cat bench.json)"
# The summary's flag first, then each resolution's and each mesh's: every one true.
[ "$(grep -o '"exact":true' bench.json | wc -l)" -eq 5 ] || fail "not 5 exact flags true (summary, 2 runs, 2 meshes): $(cat bench.json)"
grep -q '"exact":false' bench.json && fail "a run differs from the CPU reference: $(cat bench.json)"
[ "$(grep -o '"differing_voxels":0,' bench.json | wc -l)" -eq 2 ] || fail "voxels differ: $(cat bench.json)"
for key in gpu_ms_per_frame cpu_ms_per_frame gpu_frames_per_s cpu_frames_per_s blocks_per_frame observed_voxels; do
  value=$(json_number $key bench.json)
  awk -v v="$value" 'BEGIN { exit !(v > 0) }' || fail "$key is not positive ($value): $(cat bench.json)"
done
grep -q '"frames":2,' bench.json || fail "not 2 frames: $(cat bench.json)"
grep -q '"gpu_ms":\[[0-9.]*,[0-9.]*\]' bench.json || fail "not 2 GPU frame times: $(cat bench.json)"
grep -q '"vertices":[1-9]' bench.json || fail "no mesh vertices: $(cat bench.json)"

# The table, without meshes.
"$voxen" bench tsdf --frames 1 --resolution 0.1 --no-mesh > table.txt 2> table.err || fail "bench tsdf table: $(cat table.txt table.err)"
grep -q "^ *0.10 m .* yes$" table.txt || fail "no exact row at 0.10 m: $(cat table.txt)"
grep -q "final map's mesh" table.txt && fail "--no-mesh meshed: $(cat table.txt)"

# Bad flags are named.
for bad in "--frames 0" "--resolution 0" "--resolution x"; do
  set +e
  # shellcheck disable=SC2086
  "$voxen" bench tsdf $bad > bad.txt 2>&1
  status=$?
  set -e
  [ $status -ne 0 ] || fail "bench tsdf $bad: accepted"
  grep -q -- "${bad%% *}" bad.txt || fail "bench tsdf $bad: the flag is not named: $(cat bad.txt)"
done
echo "bench_tsdf: ok"
