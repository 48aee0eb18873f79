#!/usr/bin/env bash
# voxen map --device auto (the default): a small input whose ray count the reader knows is
# mapped on the CPU reference without opening a device, and the summary says so; a larger
# one, a recording (count unknown) and the settings whose GPU map the CPU reference does not
# reproduce bit for bit go to the GPU; --device gpu (any case) forces the GPU; the map is the
# same bytes either way; --device with --cpu or --cpu-sequential is refused, naming both.
#   device_auto.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" device_auto "$@"

json_text() {  # json_text KEY FILE: the first string value of KEY
  grep -o "\"$1\":\"[^\"]*\"" "$2" | head -1 | cut -d'"' -f4
}
ran() {  # ran FILE.json: cpu or gpu, as the JSON's backend says
  grep -o '"backend":{"asked":"[a-z]*","ran":"[a-z]*"' "$1" | sed 's/.*"ran":"//; s/"//'
}
map_json() {  # map_json OUT INPUT.ply ARGS...: INPUT (with its trajectory) to OUT.vxm, JSON in OUT.json
  local out=$1 in=$2
  shift 2
  "$voxen" map --cloud "$in" --trajectory "${in%.ply}.txt" --output "$out.vxm" --json --quiet "$@" > "$out.json" 2> "$out.err" ||
    fail "map $in $*: $(cat "$out.err")"
  no_validation "$out.err" "map $in $*"
}
expect_ran() {  # expect_ran OUT cpu|gpu WHAT
  [ "$(ran "$1.json")" = "$2" ] || fail "$3: expected the $2, got: $(cat "$1.json")"
}

"$voxen" generate --cloud tiny.ply --trajectory tiny.txt --rings 4 --columns 25 --scans 1 > /dev/null
# 6 scans of 16 x 256: 24,576 rays less the no-returns, past auto's 20,000.
"$voxen" generate --cloud big.ply --trajectory big.txt --rings 16 --columns 256 --scans 6 > /dev/null

# A tiny input: the CPU reference, said in the summary line, with the reason.
"$voxen" map --cloud tiny.ply --trajectory tiny.txt --output auto.vxm --quiet > auto.out 2> auto.err || fail "auto: $(cat auto.err)"
grep -q "^wall .* -> auto.vxm; --device auto mapped on the CPU reference: 100 rays, at most 20,000 map faster on the CPU reference than the GPU starts (the same map)$" auto.out ||
  fail "auto on 100 rays: the summary line does not say it mapped on the CPU reference: $(cat auto.out)"
map_json auto tiny.ply
expect_ran auto cpu "auto, 100 rays"
grep -q '"asked":"auto"' auto.json || fail "auto: the JSON does not say auto was asked: $(cat auto.json)"
[ "$(json_text device auto.json)" = "CPU reference (sequential)" ] || fail "auto: device: $(cat auto.json)"
grep -q '"memory":null' auto.json || fail "auto on the CPU reference reports device memory: $(cat auto.json)"

# It opens no device: with no Vulkan driver to be found it still maps, where --device gpu cannot.
export VK_DRIVER_FILES=/nonexistent/icd.json VK_ICD_FILENAMES=/nonexistent/icd.json
map_json no-driver tiny.ply
cmp auto.vxm no-driver.vxm || fail "auto without a driver: another map"
if "$voxen" map --cloud tiny.ply --trajectory tiny.txt --output no-driver-gpu.vxm --quiet --device gpu 2> no-driver-gpu.err; then
  fail "--device gpu mapped without a Vulkan driver: it did not open the device"
fi
[ ! -e no-driver-gpu.vxm ] || fail "--device gpu without a driver wrote a map"
unset VK_DRIVER_FILES VK_ICD_FILENAMES

# --device gpu (in any case) forces the GPU on the same input: the same map, byte for byte.
map_json gpu tiny.ply --device gpu
expect_ran gpu gpu "--device gpu"
grep -q '"asked":"gpu"' gpu.json || fail "--device gpu: asked: $(cat gpu.json)"
grep -q '"memory":{' gpu.json || fail "--device gpu: no device memory reported: $(cat gpu.json)"
cmp auto.vxm gpu.vxm || fail "auto (CPU reference) and --device gpu wrote different maps"
map_json gpu-upper tiny.ply --device GPU
expect_ran gpu-upper gpu "--device GPU"
# A device's index asks for the GPU too, as does a flag only the GPU acts on.
map_json index tiny.ply --device 0
expect_ran index gpu "--device 0"
map_json validation tiny.ply --validation
expect_ran validation gpu "--validation"
map_json explicit-auto tiny.ply --device auto
expect_ran explicit-auto cpu "--device auto"

# Past 20,000 rays: the GPU, and the CPU reference's map is the same.
"$voxen" map --cloud big.ply --trajectory big.txt --output big.vxm --quiet > big.out 2> big.err || fail "auto big: $(cat big.err)"
grep -q "; --device auto mapped on the GPU: 24,[0-9]* rays, more than 20,000 start faster on the GPU$" big.out ||
  fail "auto on 24,5xx rays: the summary does not say it mapped on the GPU: $(cat big.out)"
map_json big-cpu big.ply --cpu
cmp big.vxm big-cpu.vxm || fail "24,5xx rays: the GPU's map (auto) and the CPU reference's differ"

# The two-phase order in one batch: the CPU reference, the GPU's bytes.
map_json two-phase tiny.ply --update-order two-phase
expect_ran two-phase cpu "two-phase, 100 rays in one batch"
map_json two-phase-gpu tiny.ply --update-order two-phase --device gpu
cmp two-phase.vxm two-phase-gpu.vxm || fail "two-phase: auto (CPU reference) and --device gpu differ"

# Where the CPU reference would not give the GPU's map bit for bit: the GPU, saying why.
check_gpu_because() {  # check_gpu_because NAME REASON ARGS...
  local name=$1 reason=$2
  shift 2
  map_json "$name" tiny.ply "$@"
  expect_ran "$name" gpu "$*"
  grep -q "\"reason\":\"100 rays, but with $reason the CPU reference does not give the GPU's map bit for bit\"" "$name.json" ||
    fail "$*: reason: $(cat "$name.json")"
}
check_gpu_because one-pass "the one-pass order" --update-order one-pass
check_gpu_because batches "the two-phase order over more than one batch" --update-order two-phase --batch-size 50
check_gpu_because stop "stop-on-occupied in the sequential order" --stop-on-occupied
check_gpu_because ndt "NDT" --ndt om
check_gpu_because clearance "the clearance" --clearance 0.5

# A recording counts bytes, not rays, before it is read: the GPU.
"$voxen" generate --recording tiny.mcap --rings 4 --columns 25 --scans 1 > /dev/null
"$voxen" map --input tiny.mcap --output mcap.vxm --json --quiet > mcap.json 2> mcap.err || fail "auto mcap: $(cat mcap.err)"
expect_ran mcap gpu "a recording"
grep -q '"reason":"the input.s ray count is not known before it is read"' mcap.json || fail "mcap: reason: $(cat mcap.json)"

# --device with --cpu or --cpu-sequential: refused (status 2), naming both.
refused() {  # refused EXPECTED ARGS...
  local expected=$1
  shift
  set +e
  "$voxen" map --cloud tiny.ply --trajectory tiny.txt --output refused.vxm --quiet "$@" 2> refused.err
  local rc=$?
  set -e
  [ $rc = 2 ] || fail "$*: exit status $rc, expected 2: $(cat refused.err)"
  grep -qF -- "$expected" refused.err || fail "$*: unclear error: $(cat refused.err)"
  [ ! -e refused.vxm ] || fail "$*: wrote a map"
}
refused "--device gpu and --cpu contradict each other: --cpu maps with the CPU reference, which opens no device; --device gpu maps on the GPU: give one of them" --device gpu --cpu
refused "--device auto and --cpu-sequential contradict each other" --device auto --cpu-sequential
refused "--device 0 and --cpu contradict each other" --device 0 --cpu
echo "device_auto: ok"
