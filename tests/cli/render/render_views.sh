#!/usr/bin/env bash
# voxen render's views and legend (issue 35, item 12): the default perspective view and
# --view top frame the map to fill the picture; the top view reports its exact metres per
# pixel and corner; a legend band under the map holds the height colour bar (the painter's
# height colours, in metres) and a round scale bar; bad flags are named.
#   render_views.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" render_views "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 32 --columns 512 --scans 6 --seed 2 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --resolution 0.1 --quiet > map.log

# Reads an RGBA8 PNG (the kind voxen writes) and checks it: picture_check PNG JSON MODE.
picture_check() {
  python3 - "$@" << 'PY'
import json, struct, sys, zlib
path, summary, mode = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
data = open(path, 'rb').read()
width, height = struct.unpack('>II', data[16:24])
raw, pos = b'', 8
while pos < len(data):
    length, kind = struct.unpack('>I4s', data[pos:pos + 8])
    if kind == b'IDAT': raw += data[pos + 8:pos + 8 + length]
    pos += 12 + length
raw = zlib.decompress(raw)
stride, rows, prev = width * 4, [], bytearray(width * 4)
for y in range(height):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - 4] if i >= 4 else 0
        b, c = prev[i], prev[i - 4] if i >= 4 else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
def px(x, y): return tuple(rows[y][x * 4:x * 4 + 3])
def fail(text): sys.exit('%s: %s' % (path, text))
background = px(1, 1)
plot = summary['framing']['plot_height_px']
xs = [x for y in range(0, plot, 2) for x in range(width) if px(x, y) != background]
ys = [y for y in range(0, plot, 2) for x in range(0, width, 2) if px(x, y) != background]
if not xs: fail('no map drawn')
spanX, spanY = (max(xs) - min(xs) + 1) / width, (max(ys) - min(ys) + 1) / plot
# Framed to fill: the map reaches across 85 % of the picture on at least one axis.
if max(spanX, spanY) < 0.85: fail('the map fills only %.0f %% x %.0f %% of the picture' % (100 * spanX, 100 * spanY))
if mode == 'legend':
    if plot >= height: fail('no legend band')
    # Text size 2 at 1280 x 720: the bar 13 pixels in, 18 high, 400 wide, the painter's heights.
    row = plot + 13 + 9
    if px(13, row) != (51, 77, 217): fail('the colour bar does not start at the lowest height colour: %s' % (px(13, row),))
    if px(13 + 399, row) != (230, 77, 51): fail('the colour bar does not end at the highest height colour: %s' % (px(412, row),))
    # The scale bar: black, its length the round metres at the picture's metres per pixel.
    length = round(summary['scale_bar_m'] / summary['framing']['metres_per_pixel'])
    black = sum(1 for x in range(width // 2, width) if px(x, plot + 13 + 9 - 2) == (0, 0, 0))
    if black != length: fail('the scale bar is %d pixels, not %d' % (black, length))
elif plot != height: fail('a band without the legend')
PY
}

# The default: a perspective view framed to fill the picture, with the legend.
"$voxen" render map.vxm --output perspective.png --json > perspective.json 2> perspective.err || fail "render: $(cat perspective.err)"
no_validation perspective.err
grep -q '"view":"perspective"' perspective.json || fail "no perspective view in $(cat perspective.json)"
grep -q '"metres_per_pixel_at":"target depth"' perspective.json || fail "the scale's depth is not said: $(cat perspective.json)"
grep -q '"legend":true' perspective.json || fail "no legend: $(cat perspective.json)"
grep -q '"height_range_m":\[' perspective.json || fail "no height range: $(cat perspective.json)"
picture_check perspective.png perspective.json legend || fail "the perspective picture"

# --view top: an orthographic plan, its mapping in the JSON and the text summary.
"$voxen" render map.vxm --output top.png --view top --json > top.json 2> top.err || fail "render --view top: $(cat top.err)"
no_validation top.err
grep -q '"view":"top"' top.json || fail "no top view in $(cat top.json)"
grep -q '"metres_per_pixel_at":"everywhere"' top.json || fail "$(cat top.json)"
grep -q '"plot_left_x":' top.json && grep -q '"plot_top_y":' top.json || fail "no corner in $(cat top.json)"
picture_check top.png top.json legend || fail "the top picture"
"$voxen" render map.vxm --output top2.png --view top > top.txt
grep -q "top view: .* m per pixel, x .* m left to right, y .* m top to bottom; heights" top.txt || fail "$(cat top.txt)"
cmp -s top.png top2.png || fail "the top view differs between two runs"

# --no-legend: the map takes every row.
"$voxen" render map.vxm --output bare.png --view top --no-legend --json > bare.json
grep -q '"legend":false' bare.json && grep -q '"scale_bar_m":null' bare.json || fail "$(cat bare.json)"
picture_check bare.png bare.json none || fail "the picture without a legend"
# A picture too small for the legend is drawn without it, and says so.
"$voxen" render map.vxm --output small.png --width 160 --height 100 --json > small.json 2> small.err
grep -q "too small for the legend" small.err || fail "no note for a picture too small for the legend: $(cat small.err)"
grep -q '"legend":false' small.json || fail "$(cat small.json)"

# Bad flags are named, and leave no picture.
set +e
"$voxen" render map.vxm --output bad.png --view side 2> side.err
status=$?
set -e
[ $status -eq 2 ] || fail "--view side: exit status $status (want 2)"
grep -q -- "--view" side.err || fail "--view side is not named: $(cat side.err)"
set +e
"$voxen" render map.vxm --output bad.png --view top --camera 0,0,10,0,0,0 2> topcamera.err
status=$?
set -e
[ $status -eq 2 ] || fail "--view top with --camera: exit status $status (want 2)"
grep -q -- "--camera" topcamera.err || fail "--view top with --camera does not name it: $(cat topcamera.err)"
set +e
"$voxen" render map.vxm --output bad.png --view top --fov 30 2> topfov.err
status=$?
set -e
[ $status -eq 2 ] || fail "--view top with --fov: exit status $status (want 2)"
grep -q -- "--fov" topfov.err || fail "--view top with --fov does not name it: $(cat topfov.err)"
[ ! -e bad.png ] || fail "a refused render wrote a picture"
echo "render_views: ok"
