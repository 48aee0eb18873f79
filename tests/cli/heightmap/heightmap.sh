#!/usr/bin/env bash
# voxen heightmap end to end: a generated run mapped, its heightmap on the GPU and on the CPU
# reference (the same file, byte for byte), the JSON summary, --npy arrays, a box, the bench,
# and bad input named by flag without touching an existing output.
#   heightmap.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" heightmap "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 256 --scans 3 --seed 2 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --quiet > map.log
"$voxen" heightmap map.vxm --output gpu.vxh --json --npy arrays --device gpu > gpu.json 2> gpu.err
if grep -qi "validation" gpu.err; then fail "validation messages: $(cat gpu.err)"; fi
for key in width height levels cells_with_a_level compute_ms gpu_ms; do
  [ -n "$(json_number $key gpu.json)" ] || fail "the summary lacks $key: $(cat gpu.json)"
done
[ "$(json_number cells_with_a_level gpu.json)" -gt 500 ] || fail "too few cells with a level: $(cat gpu.json)"
"$voxen" heightmap map.vxm --output cpu.vxh --cpu --quiet > cpu.log
cmp gpu.vxh cpu.vxh || fail "the GPU's heightmap file differs from the CPU reference's"
grep -q "CPU reference" cpu.log || fail "--cpu: the summary does not say the CPU reference: $(cat cpu.log)"
grep -q '"path":"gpu"' gpu.json || fail "--device gpu: not on the GPU: $(cat gpu.json)"
# --device auto (the default): the GPU, except on a CPU driver, where the CPU reference is faster.
"$voxen" heightmap map.vxm --output auto.vxh --json > auto.json
cmp auto.vxh cpu.vxh || fail "--device auto: another heightmap"
if grep -q '"device":"CPU reference (--device auto: llvmpipe' auto.json; then
  grep -q '"path":"cpu (device auto)"' auto.json || fail "--device auto on lavapipe: $(cat auto.json)"
else
  grep -q '"path":"gpu"' auto.json || fail "--device auto on a GPU: not on the GPU: $(cat auto.json)"
fi
for a in height clearance slope cost; do
  head -c 6 arrays-$a.npy | grep -aq "NUMPY" || fail "--npy: arrays-$a.npy is not a NumPy file"
done
grep -q '"resolution": 0.1' arrays.json || fail "--npy: arrays.json: $(cat arrays.json)"
# A box keeps the columns inside it; several levels and virtual surfaces are options.
"$voxen" heightmap map.vxm --output boxed.vxh --bbox -2 -2 -1 2 2 3 --levels 2 --virtual-surfaces --json > boxed.json
# (y -2..2 is inside the map: 40 rows; x starts at the map's edge, 0: 20 columns)
[ "$(json_number height boxed.json)" -eq 40 ] && [ "$(json_number width boxed.json)" -eq 20 ] ||
  fail "--bbox -2 -2 .. 2 2: not 20 x 40 columns: $(cat boxed.json)"
# Bad input: the flag is named, nothing is written, an existing output stays as it was.
cp gpu.vxh kept.vxh
expect_refusal() {  # expect_refusal WORDS ARGS...: the run fails naming WORDS, kept.vxh unchanged
  local words=$1; shift
  if "$voxen" heightmap "$@" --output kept.vxh 2> refusal.err; then fail "accepted: $*"; fi
  grep -q -- "$words" refusal.err || fail "$*: the error does not say '$words': $(cat refusal.err)"
  cmp -s kept.vxh gpu.vxh || fail "$*: a refused run changed the existing output"
}
expect_refusal "--levels" map.vxm --levels 0
expect_refusal "--robot-height" map.vxm --robot-height 0.05
expect_refusal "--max-slope" map.vxm --max-slope 95
expect_refusal "--bbox" map.vxm --bbox 500 500 0 510 510 1
expect_refusal "no-such.vxm" no-such.vxm
# voxen map --heightmap: the same heightmap straight after mapping; refused with a store.
"$voxen" map --cloud run.ply --trajectory run.txt --output mapped.vxm --heightmap mapped.vxh --quiet > mapped.log
"$voxen" heightmap mapped.vxm --output again.vxh --quiet > again.log
cmp mapped.vxh again.vxh || fail "voxen map --heightmap differs from voxen heightmap of the same map"
if "$voxen" map --cloud run.ply --trajectory run.txt --store s.db --heightmap s.vxh --quiet 2> store.err; then
  fail "--heightmap with --store was accepted"
fi
grep -q -- "--heightmap does not go with --store" store.err || fail "--heightmap --store: unclear error: $(cat store.err)"
"$voxen" bench heightmap --size 5 --repeat 1 --json > bench.json
grep -q '"exact":true' bench.json || fail "bench heightmap: the GPU's cells differ from the CPU's: $(cat bench.json)"
# --live: the heightmap kept scan by scan over a short README run equals the whole one.
"$voxen" bench heightmap --live --scans 4 --probes 2 --json > live.json
python3 - live.json <<'PY' || fail "bench heightmap --live: $(cat live.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["exact"] is True and r["probes"] == 2 and len(r["per_probe"]) == 2, r
assert all(p["exact"] and p["region_columns"] >= 1 for p in r["per_probe"]), r
PY
"$voxen" bench heightmap --live --size 20 > /dev/null 2>err.txt && fail "bench heightmap --live --size: accepted"
grep -q -- "--size" err.txt || fail "bench heightmap --live --size: $(cat err.txt)"
echo "heightmap: ok"
