#!/usr/bin/env bash
# voxen map's device memory figures (issue 26): --json's "memory" object gives the most
# device memory the run held, split by the memory types its buffers came from
# (device-local, host-visible), beside peak_rss_mb; --profile's memory table names each
# buffer's memory type. On lavapipe one memory type is both, and the figures say so.
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" map_memory "$@"

"$voxen" generate --cloud small.ply --trajectory small.txt --scans 2 --rings 4 --columns 64 > /dev/null
"$voxen" map --cloud small.ply --trajectory small.txt --output gpu.vxm --json --quiet --device gpu > gpu.json 2> gpu.err ||
  fail "map --json: $(cat gpu.err)"
no_validation gpu.err "map --json"
grep -q '"memory":{' gpu.json || fail "no memory object in --json: $(cat gpu.json)"
device_local=$(grep -o '"device_local_mb":[0-9.e+-]*' gpu.json | cut -d: -f2)
host_visible=$(grep -o '"host_visible_mb":[0-9.e+-]*' gpu.json | cut -d: -f2)
rss=$(json_number peak_rss_mb gpu.json)
[[ -n "$device_local" && -n "$host_visible" && -n "$rss" ]] || fail "memory figures missing: $(cat gpu.json)"
# Something was allocated (at least the region cache holds one region of 128 KiB), and no
# more than the memory budget this machine allows (2 GiB at most by default).
awk -v d="$device_local" -v h="$host_visible" 'BEGIN { exit !(d > 0.1 && d < 2048 && h > 0 && h < 2048) }' ||
  fail "device_local_mb $device_local, host_visible_mb $host_visible are not sane: $(cat gpu.json)"
device=$(grep -o '"device":"[^"]*"' gpu.json)
if [[ "$device" == *llvmpipe* ]]; then
  # lavapipe: one memory type, device-local and host-visible at once.
  grep -q '"unified":true' gpu.json || fail "lavapipe's memory is not reported as unified: $(cat gpu.json)"
  [[ "$device_local" == "$host_visible" ]] || fail "unified memory counted differently: $device_local vs $host_visible MB"
fi

# The CPU reference holds no device memory: the object is null, not zeros that look measured.
"$voxen" map --cloud small.ply --trajectory small.txt --output cpu.vxm --cpu --json --quiet > cpu.json 2> cpu.err ||
  fail "map --cpu --json: $(cat cpu.err)"
grep -q '"memory":null' cpu.json || fail "--cpu reports device memory: $(cat cpu.json)"

"$voxen" map --cloud small.ply --trajectory small.txt --output profile.vxm --quiet --profile --device gpu > profile.log 2> profile.err ||
  fail "map --profile: $(cat profile.err)"
grep -q "^region cache occupancy .*device-local" profile.log || fail "--profile names no memory type: $(cat profile.log)"
grep -q "^device-local .*(peak .*), host-visible .*(peak " profile.log || fail "--profile has no device-local/host-visible totals: $(cat profile.log)"
