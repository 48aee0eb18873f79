#!/usr/bin/env bash
# voxen map --input over robot recordings: one generated run written as a ROS 1 bag (lz4),
# as MCAP (zstd) and as PLY + trajectory holding the recording's very points maps to the same
# map byte for byte, with any thread count; the bag mapped with the trajectory file instead
# of tf, --start/--duration and --no-deskew take effect; voxen inspect lists topics, types,
# counts, the tf tree and the cloud's fields; bad recordings and options are refused by name
# and never leave a map behind.
#   ros_recordings.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" ros_recordings "$@"

gen=(--rings 16 --columns 256 --scans 4 --seed 4)
"$voxen" generate --recording run.bag --recording-compression lz4 --cloud run.ply --trajectory run.txt "${gen[@]}" > gen-bag.log
"$voxen" generate --recording run.mcap --recording-compression zstd "${gen[@]}" > gen-mcap.log
"$voxen" generate --recording plain.mcap "${gen[@]}" > gen-plain.log

map_with_json ply --input run.ply --trajectory run.txt
map_with_json bag --input run.bag
map_with_json bag3 --input run.bag --threads 3
map_with_json mcap --input run.mcap --threads 2
map_with_json plain --input plain.mcap
map_with_json bag-traj --input run.bag --trajectory run.txt
map_with_json nodeskew --input run.bag --no-deskew
map_with_json window --input run.bag --start 0.15 --duration 0.2
[ "$(json_number rays ply.json)" -gt 5000 ] || fail "too few rays mapped: $(cat ply.json)"
cmp -s ply.vxm bag.vxm || fail "the bag (tf) wrote another map than its PLY + trajectory"
cmp -s bag.vxm bag3.vxm || fail "the bag read by 3 threads wrote another map than by 1"
cmp -s bag.vxm mcap.vxm || fail "the MCAP file (zstd) wrote another map than the bag"
cmp -s bag.vxm plain.vxm || fail "the uncompressed MCAP file wrote another map than the bag"
[ "$(json_number rays bag-traj.json)" = "$(json_number rays bag.json)" ] || fail "bag + trajectory: other ray count"
cmp -s bag.vxm nodeskew.vxm && fail "--no-deskew changed nothing"
[ "$(json_number rays window.json)" -lt "$(json_number rays bag.json)" ] || fail "--start/--duration kept every cloud"
[ "$(json_number skipped_non_finite bag.json)" -gt 0 ] || fail "no-return (NaN) points were not counted"

# voxen inspect: topics, types, counts, tf, fields, and what map would read.
"$voxen" inspect run.bag > inspect-bag.out
grep -q "run.bag: ROS 1 bag (3 topics" inspect-bag.out || fail "inspect bag: $(cat inspect-bag.out)"
grep -q "topic /points: sensor_msgs/PointCloud2 (ros1), 4 messages" inspect-bag.out || fail "inspect bag topics: $(cat inspect-bag.out)"
grep -q "tf map -> odom (static)" inspect-bag.out || fail "inspect bag tf: $(cat inspect-bag.out)"
grep -q "tf odom -> lidar (moving" inspect-bag.out || fail "inspect bag tf: $(cat inspect-bag.out)"
grep -q "fields: x float32, y float32, z float32, intensity float32, t uint32, ring uint16" inspect-bag.out ||
  fail "inspect bag fields: $(cat inspect-bag.out)"
grep -q "posed in frame map" inspect-bag.out || fail "inspect bag default: $(cat inspect-bag.out)"
"$voxen" inspect run.mcap --json > inspect-mcap.json
grep -q '"format":"MCAP"' inspect-mcap.json || fail "inspect MCAP: $(cat inspect-mcap.json)"
grep -q '"cloud_topic":"/points"' inspect-mcap.json || fail "inspect MCAP topic: $(cat inspect-mcap.json)"
grep -q '"type":"sensor_msgs/msg/PointCloud2"' inspect-mcap.json || fail "inspect MCAP types: $(cat inspect-mcap.json)"

# Refusals: each names what is wrong, exits non-zero, and writes no map.
refuse() {  # refuse PATTERN ARGS...: voxen map ARGS must fail naming PATTERN and leave no output
  local pattern=$1
  shift
  rm -f refused.vxm
  if "$voxen" map "$@" --output refused.vxm --quiet > refused.out 2> refused.err; then fail "map $* succeeded"; fi
  grep -q -- "$pattern" refused.err || fail "map $*: expected '$pattern' in: $(cat refused.err)"
  [ ! -e refused.vxm ] || fail "map $* left a map behind"
}
refuse "no such topic; its topics: " --input run.bag --cloud-topic /nope
refuse "holds tf2_msgs/TFMessage, not sensor_msgs/PointCloud2" --input run.bag --cloud-topic /tf
refuse "apply to ROS 1 bags and MCAP files only" --input run.ply --trajectory run.txt --cloud-topic /points
refuse "base_link" --input run.bag --fixed-frame base_link
refuse "no cloud was recorded between 5 s and the end" --input run.bag --start 5
head -c 20000 run.bag > short.bag
refuse "short.bag" --input short.bag
head -c 30000 run.mcap > short.mcap
refuse "short.mcap" --input short.mcap
# A byte flipped inside the MCAP file's compressed data: a CRC or decompression error, never a crash.
python3 - run.mcap bad.mcap <<'PY'
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
data[len(data) // 2] ^= 0xFF
open(sys.argv[2], 'wb').write(data)
PY
refuse "bad.mcap" --input bad.mcap
echo "ros_recordings: ok"
