#!/usr/bin/env bash
# voxen generate --depth-recording (issue 40): a depth camera's walk written as a ROS 1 bag
# (where the build has bags), as MCAP and as a TUM RGB-D folder, with the truth mesh as PLY:
# voxen inspect lists the image, camera info and tf topics with one message per frame; the
# TUM folder's text files and a PNG's header read back; the same seed gives the same bytes
# on any thread count; bad flags are refused by name and leave nothing behind.
#   depth_recording.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" depth_recording "$@"

cam=(--frames 5 --depth-width 80 --depth-height 60 --seed 3)
"$voxen" generate --depth-recording walk.mcap --truth-mesh truth.ply "${cam[@]}" > gen-mcap.log
grep -q "wrote walk.mcap (MCAP): 5 depth frames of 80 x 60" gen-mcap.log || fail "generate mcap: $(cat gen-mcap.log)"
grep -q "wrote truth.ply: the scene's true surface" gen-mcap.log || fail "generate mesh: $(cat gen-mcap.log)"
"$voxen" generate --depth-recording again.mcap "${cam[@]}" --threads 3 > /dev/null
cmp -s walk.mcap again.mcap || fail "3 threads wrote another MCAP file than one per core"

"$voxen" inspect walk.mcap > inspect-mcap.out
grep -q "topic /camera/depth/image_rect_raw: sensor_msgs/msg/Image (cdr), 5 messages" inspect-mcap.out ||
  fail "inspect mcap image topic: $(cat inspect-mcap.out)"
grep -q "topic /camera/depth/camera_info: sensor_msgs/msg/CameraInfo (cdr), 5 messages" inspect-mcap.out ||
  fail "inspect mcap camera info topic: $(cat inspect-mcap.out)"
grep -q "tf odom -> base_link (moving" inspect-mcap.out || fail "inspect mcap tf: $(cat inspect-mcap.out)"
grep -q "tf base_link -> camera_depth_optical_frame (static)" inspect-mcap.out || fail "inspect mcap tf_static: $(cat inspect-mcap.out)"

if "$voxen" generate --depth-recording walk.bag "${cam[@]}" > gen-bag.log 2> gen-bag.err; then
  "$voxen" inspect walk.bag > inspect-bag.out
  grep -q "topic /camera/depth/image_rect_raw: sensor_msgs/Image (ros1), 5 messages" inspect-bag.out ||
    fail "inspect bag image topic: $(cat inspect-bag.out)"
  grep -q "topic /camera/depth/camera_info: sensor_msgs/CameraInfo (ros1), 5 messages" inspect-bag.out ||
    fail "inspect bag camera info topic: $(cat inspect-bag.out)"
  grep -q "tf map -> odom (static)" inspect-bag.out || fail "inspect bag tf: $(cat inspect-bag.out)"
else
  grep -q "no ROS 1 bag support" gen-bag.err || fail "generate bag: $(cat gen-bag.err)"
  [ ! -e walk.bag ] || fail "a refused bag was left behind"
fi

# The TUM RGB-D folder: one PNG per frame, listed in depth.txt, posed in groundtruth.txt.
"$voxen" generate --depth-recording tum/ "${cam[@]}" --depth-noise 0.01 --json > gen-tum.json
[ "$(json_number frames gen-tum.json)" = 5 ] || fail "generate tum json: $(cat gen-tum.json)"
python3 - <<'PY' || fail "the TUM folder does not read back"
import os, struct, sys
tum = "tum"
lines = lambda name: [l.split() for l in open(os.path.join(tum, name)) if l.strip() and not l.startswith("#")]
depth, truth = lines("depth.txt"), lines("groundtruth.txt")
assert len(depth) == 5 and len(truth) == 5, (depth, truth)
assert [d[0] for d in depth] == [t[0] for t in truth]
assert all(len(t) == 8 for t in truth)
for stamp, name in depth:
    assert name == "depth/%s.png" % stamp, name
    png = open(os.path.join(tum, name), "rb").read()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, bits, colour = struct.unpack(">IIBB", png[16:26])
    assert (width, height, bits, colour) == (80, 60, 16, 0), (width, height, bits, colour)
for t in truth:
    q = [float(v) for v in t[4:8]]
    assert abs(sum(v * v for v in q) - 1) < 1e-6, q
yaml = open(os.path.join(tum, "camera_info.yaml")).read()
for key in ("image_width: 80", "image_height: 60", "distortion_model: plumb_bob", "camera_matrix:", "projection_matrix:"):
    assert key in yaml, key
PY
python3 - <<'PY' || fail "truth.ply is not a binary PLY mesh of the right size"
import os
data = open("truth.ply", "rb").read()
end = data.index(b"end_header\n") + len(b"end_header\n")
header = data[:end].decode().split("\n")
vertices = int([l for l in header if l.startswith("element vertex")][0].split()[2])
faces = int([l for l in header if l.startswith("element face")][0].split()[2])
assert faces > 1000 and len(data) == end + 12 * vertices + 13 * faces, (vertices, faces, len(data))
PY

# Refusals: named, and nothing written.
refuse() {  # refuse PATTERN ARGS...: voxen generate ARGS must fail (status 2) naming PATTERN and leave no out.*
  local pattern=$1
  shift
  set +e
  "$voxen" generate "$@" > refused.out 2> refused.err
  local status=$?
  set -e
  [ "$status" = 2 ] || fail "generate $* exited $status: $(cat refused.err)"
  grep -q -- "$pattern" refused.err || fail "generate $*: expected '$pattern' in: $(cat refused.err)"
  ! ls out.* out > /dev/null 2>&1 || fail "generate $* left output behind"
}
refuse "--rings is a lidar run's" --depth-recording out.mcap --rings 4
refuse "--cloud is a lidar run's" --depth-recording out.mcap --cloud out.ply
refuse "need --depth-recording" --frames 3
refuse "--frames" --depth-recording out.mcap --frames 0
refuse "--depth-width" --depth-recording out.mcap --depth-width nan
refuse "--hfov" --depth-recording out.mcap --hfov 180
refuse "a TUM RGB-D folder is not compressed" --depth-recording out --recording-compression zstd
refuse "MCAP file takes zstd or lz4" --depth-recording out.mcap --recording-compression bz2
refuse "ceiling" --depth-recording out.mcap --height 3.5
mkdir full && touch full/x
set +e
"$voxen" generate --depth-recording full "${cam[@]}" > /dev/null 2> full.err
status=$?
set -e
[ "$status" != 0 ] || fail "a non-empty folder was written over"
grep -q "not empty" full.err || fail "non-empty folder: $(cat full.err)"
[ "$(ls full)" = x ] || fail "the non-empty folder was changed: $(ls full)"
[ -z "$(ls -A | grep '^\.')" ] || fail "temporary files left behind: $(ls -A)"
echo "depth_recording: ok"
