#!/usr/bin/env bash
# voxen generate --depth-recording ... --color (issue 40: colour for the TSDF): a colour image
# registered to each depth frame, as rgb8 images on /camera/color/image_raw in MCAP (and a bag
# where the build has bags) and as rgb/*.png with rgb.txt in a TUM RGB-D folder; voxen inspect
# lists the colour topic (encoding, size, count) beside the depth topic, in text and --json; the
# same bytes on any thread count; --help documents the flag; the truth mesh's vertex colours;
# --color alone is refused.
#   depth_colour.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" depth_colour "$@"

cam=(--frames 4 --depth-width 48 --depth-height 36 --seed 2)
"$voxen" generate --help > help.out
grep -q -- "--color" help.out || fail "generate --help does not document --color"

"$voxen" generate --depth-recording walk.mcap --color "${cam[@]}" > gen-mcap.log || fail "generate mcap: $(cat gen-mcap.log)"
grep -q "wrote walk.mcap (MCAP): 4 depth frames of 48 x 36 with colour" gen-mcap.log || fail "generate mcap: $(cat gen-mcap.log)"
"$voxen" generate --depth-recording again.mcap --color "${cam[@]}" --threads 3 > /dev/null
cmp -s walk.mcap again.mcap || fail "3 threads wrote another colour MCAP file than one per core"
"$voxen" inspect walk.mcap > inspect-mcap.out
grep -q "^topic /camera/color/image_raw: sensor_msgs/msg/Image (cdr), 4 messages$" inspect-mcap.out ||
  fail "inspect mcap colour topic: $(cat inspect-mcap.out)"
grep -q "^colour images /camera/color/image_raw: sensor_msgs/msg/Image rgb8, 48 x 36, 4 images$" inspect-mcap.out ||
  fail "inspect mcap does not list the colour images: $(cat inspect-mcap.out)"
grep -q "^depth images /camera/depth/image_rect_raw: sensor_msgs/msg/Image 16UC1, 48 x 36, 4 images" inspect-mcap.out ||
  fail "inspect mcap depth topic: $(cat inspect-mcap.out)"
"$voxen" inspect walk.mcap --json > inspect-mcap.json
grep -q '"color_topics":\[{"name":"/camera/color/image_raw","type":"sensor_msgs/msg/Image","encoding":"rgb8","width":48,"height":36,"messages":4,"note":null}\]' inspect-mcap.json ||
  fail "inspect --json has no color_topics entry: $(cat inspect-mcap.json)"
# Without --color: no colour topic (the TUM folder below checks the depth bytes).
"$voxen" generate --depth-recording plain.mcap "${cam[@]}" > /dev/null
"$voxen" inspect plain.mcap > inspect-plain.out
! grep -q "colour images\|/camera/color" inspect-plain.out || fail "a recording without --color has colour: $(cat inspect-plain.out)"

if "$voxen" generate --depth-recording walk.bag --color "${cam[@]}" > gen-bag.log 2> gen-bag.err; then
  "$voxen" inspect walk.bag > inspect-bag.out
  grep -q "^colour images /camera/color/image_raw: sensor_msgs/Image rgb8, 48 x 36, 4 images$" inspect-bag.out ||
    fail "inspect bag does not list the colour images: $(cat inspect-bag.out)"
else
  grep -q "no ROS 1 bag support" gen-bag.err || fail "generate bag: $(cat gen-bag.err)"
fi

# The TUM folder: rgb.txt beside depth.txt, the same timestamps, 8-bit RGB PNGs of the depth size.
"$voxen" generate --depth-recording tum/ --color "${cam[@]}" --json > gen-tum.json
[ "$(json_number color_images gen-tum.json)" = 4 ] || fail "generate tum json: $(cat gen-tum.json)"
python3 - <<'PY' || fail "the TUM folder's colour does not read back"
import os, struct
lines = lambda name: [l.split() for l in open(os.path.join("tum", name)) if l.strip() and not l.startswith("#")]
depth, rgb = lines("depth.txt"), lines("rgb.txt")
assert [d[0] for d in depth] == [r[0] for r in rgb], (depth, rgb)
for stamp, name in rgb:
    assert name == "rgb/%s.png" % stamp, name
    head = open(os.path.join("tum", name), "rb").read(33)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    width, height, bits, colour = struct.unpack(">IIBB", head[16:26])
    assert (width, height, bits, colour) == (48, 36, 8, 2), (width, height, bits, colour)
PY
# Without --color the same depth images, list, poses and camera, byte for byte (the colour is
# drawn beside the depth, never into it), and no rgb/ or rgb.txt.
mkdir -p plain
"$voxen" generate --depth-recording plain/tum/ "${cam[@]}" > /dev/null
diff -r tum/depth plain/tum/depth > /dev/null || fail "--color changed the TUM folder's depth images"
for f in depth.txt groundtruth.txt camera_info.yaml; do
  cmp -s "tum/$f" "plain/tum/$f" || fail "--color changed the TUM folder's $f"
done
[ ! -e plain/tum/rgb.txt ] && [ ! -e plain/tum/rgb ] || fail "a TUM folder without --color has colour images"
"$voxen" inspect tum > inspect-tum.out
grep -q "^colour images rgb.txt: TUM RGB-D colour images 8-bit RGB PNG, 48 x 36, 4 images$" inspect-tum.out ||
  fail "inspect tum does not list its colour images: $(cat inspect-tum.out)"

# The truth mesh with --color: red, green, blue per vertex; without, x y z only (as before).
"$voxen" generate --truth-mesh truth.ply --color > mesh.log || fail "generate --truth-mesh --color: $(cat mesh.log)"
grep -q "wrote truth.ply: the scene's true surface, .* triangles with vertex colours" mesh.log || fail "mesh summary: $(cat mesh.log)"
"$voxen" generate --truth-mesh plain.ply > /dev/null
python3 - <<'PY' || fail "the coloured truth mesh does not read back"
import struct
def header(name):
    data = open(name, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    return data[:end].decode().split("\n"), data[end:]
lines, body = header("truth.ply")
assert "property uchar red" in lines and "property uchar blue" in lines, lines
plain, plain_body = header("plain.ply")
assert not any("red" in l for l in plain), plain
vertices = int([l for l in lines if l.startswith("element vertex")][0].split()[2])
colours = {body[i * 15 + 12:i * 15 + 15] for i in range(vertices)}
assert (200, 170, 120) in {tuple(c) for c in colours}, colours  # the floor's sand
assert len(colours) >= 4, colours
PY
# --color alone names what it needs.
if "$voxen" generate --color > refused.out 2>&1; then fail "--color without an output was accepted"; fi
grep -q -- "need --depth-recording" refused.out || fail "--color refusal: $(cat refused.out)"
echo "depth_colour: passed"
