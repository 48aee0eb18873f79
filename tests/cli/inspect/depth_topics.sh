#!/usr/bin/env bash
# voxen inspect on depth recordings (issue 40 item 1): a generated MCAP file, ROS 1 bag (where
# this build reads bags) and TUM RGB-D folder; the depth topic with its message type,
# encoding, size and count, and its camera_info's intrinsics; --json's depth_topics.
#   depth_topics.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" depth_topics "$@"

gen() { "$voxen" generate --depth-recording "$1" --frames 3 --depth-width 40 --depth-height 30 > "gen-$2.log" 2>&1 ||
  fail "generate $1: $(cat "gen-$2.log")"; }
gen walk.mcap mcap
"$voxen" inspect walk.mcap > mcap.out 2>&1 || fail "inspect walk.mcap: $(cat mcap.out)"
grep -q "^depth images /camera/depth/image_rect_raw: sensor_msgs/msg/Image 16UC1, 40 x 30, 3 images; camera /camera/depth/camera_info: 40 x 30, K fx .* fy .* cx 19.5 cy 14.5, no distortion$" mcap.out ||
  fail "inspect walk.mcap does not list the depth topic and its camera: $(cat mcap.out)"
"$voxen" inspect walk.mcap --json > mcap.json || fail "inspect --json failed"
grep -q '"depth_topics":\[{"name":"/camera/depth/image_rect_raw","type":"sensor_msgs/msg/Image","encoding":"16UC1","width":40,"height":30,"messages":3,"camera_info":"/camera/depth/camera_info: 40 x 30, K fx ' mcap.json ||
  fail "--json has no depth_topics entry with its camera: $(cat mcap.json)"

# A build without ROS 1 bag support refuses to write one: then only MCAP and TUM are checked.
if "$voxen" generate --depth-recording walk.bag --frames 3 --depth-width 40 --depth-height 30 > gen-bag.log 2>&1; then
  "$voxen" inspect walk.bag > bag.out 2>&1 || fail "inspect walk.bag: $(cat bag.out)"
  grep -q "^depth images /camera/depth/image_rect_raw: sensor_msgs/Image 16UC1, 40 x 30, 3 images; camera /camera/depth/camera_info: 40 x 30" bag.out ||
    fail "inspect walk.bag does not list the depth topic: $(cat bag.out)"
fi

gen tum/ tum
"$voxen" inspect tum > tum.out 2>&1 || fail "inspect tum: $(cat tum.out)"
grep -q "^tum: TUM RGB-D folder (3 depth images), 0 points$" tum.out || fail "inspect tum's first line: $(cat tum.out)"
grep -q "^depth images depth.txt: TUM RGB-D depth images 16-bit PNG, 1/5000 m, 40 x 30, 3 images; camera camera_info.yaml: 40 x 30, K fx" tum.out ||
  fail "inspect tum does not show its depth images and camera: $(cat tum.out)"
grep -q "^groundtruth.txt: 3 poses from 0 to 0.2 s$" tum.out || fail "inspect tum's ground truth: $(cat tum.out)"
echo "depth_topics: passed"
