#!/usr/bin/env bash
# voxel_painter in a window under Xvfb, with the validation layer on (ctest sets
# VOXEN_VALIDATION=1): first the presentation path alone (a synthetic test pattern whose
# corners must arrive unswizzled), then the painter with no input, with scripted camera
# input, and with scripted paint strokes over the sphere. The screenshots must show the
# scene, and the painted one the brush's green where the unpainted one has none.
#   painter_window.sh VOXEL_PAINTER PNG_PROBE TESTDATA_DIR WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" painter_window "$@"
painter=$1
probe=$2
data=$3
require_xvfb

# run NAME ARGS...: the painter in a fresh virtual display; output in NAME.out / NAME.err.
# SIZE=WxH before `run`: the screenshot size to expect (320x240 unless the window is resized).
run() {
  local name=$1 size=${SIZE:-320x240}
  shift
  local status=0
  in_xvfb "$painter" --width 320 --height 240 "$@" > "$name.out" 2> "$name.err" || status=$?
  [ $status -eq 0 ] || fail "$name: exit status $status: $(cat "$name.err")"
  no_validation "$name.err" "$name"
  grep -q "screenshot $name.png ($size)" "$name.out" || fail "$name: no screenshot reported: $(cat "$name.out")"
}

# 1. The presentation path alone: red grows to the right, green downwards, blue is 64.
run pattern --test-pattern --no-hot-reload --screenshot pattern.png --exit-after 3
[ "$("$probe" pixel pattern.png 0 0)" = "0 0 64 255" ] || fail "test pattern top-left: $("$probe" pixel pattern.png 0 0)"
[ "$("$probe" pixel pattern.png 319 0)" = "255 0 64 255" ] || fail "test pattern top-right (red/blue swapped?): $("$probe" pixel pattern.png 319 0)"
[ "$("$probe" pixel pattern.png 0 239)" = "0 255 64 255" ] || fail "test pattern bottom-left (upside down?): $("$probe" pixel pattern.png 0 239)"

# The same after a resize: the swapchain is recreated and the blit stretches the frame.
SIZE=400x300 run resized --test-pattern --no-hot-reload --input-script "$data/window_resize.txt" --screenshot resized.png \
  --exit-after 6
[ "$("$probe" size resized.png)" = "400 300" ] || fail "after a resize to 400x300 the screenshot is $("$probe" size resized.png)"
read -r r g b a <<< "$("$probe" pixel resized.png 399 0)"
[ "$r" -ge 240 ] && [ "$g" -le 8 ] && [ "$b" = 64 ] || fail "resized test pattern top-right: $r $g $b"
read -r r g b a <<< "$("$probe" pixel resized.png 0 299)"
[ "$r" -le 8 ] && [ "$g" -ge 240 ] && [ "$b" = 64 ] || fail "resized test pattern bottom-left: $r $g $b"

# 2. The painter without input (hot reload on, the window's default).
run still --screenshot still.png --exit-after 3
total=$((320 * 240))
background=182430  # PainterOptions::backgroundColor 0xff302418 (red in the low byte) as RRGGBB
bg=$("$probe" count still.png color $background)
[ "$bg" -lt $((total * 9 / 10)) ] || fail "the unpainted screenshot is (almost) all background: $bg of $total"
[ "$bg" -gt $((total / 10)) ] || fail "the unpainted screenshot has almost no background: $bg of $total"
green_still=$("$probe" count still.png dominant green)
[ "$green_still" -lt 20 ] || fail "the unpainted screenshot already has $green_still green pixels"

# 3. Camera input only: the view changes, nothing is painted.
run view --no-hot-reload --input-script "$data/window_view.txt" --screenshot view.png --exit-after 10
moved=$("$probe" diff still.png view.png)
[ "$moved" -ge 1000 ] || fail "orbit and zoom changed only $moved pixels"
[ "$("$probe" count view.png dominant green)" -lt 20 ] || fail "camera input painted green"

# 4. Paint strokes over the sphere (same camera as 'still').
run painted --no-hot-reload --input-script "$data/window_paint.txt" --screenshot painted.png --exit-after 28
green=$("$probe" count painted.png dominant green)
[ "$green" -ge 500 ] || fail "the painted screenshot shows only $green green pixels (unpainted: $green_still)"
changed=$("$probe" diff still.png painted.png)
[ "$changed" -ge 500 ] || fail "painting changed only $changed pixels"
# 5. Hot reload in the running window: the painter watches a copy of the shader folder;
# while it runs, the resolve phase is edited to paint empty pixels yellow. Frames after the
# edit must show it without a restart (and with no validation message).
shaders=$(cd "$(dirname "$0")/../../../shaders" && pwd)
rm -rf shaders-copy
cp -r "$shaders" shaders-copy
grep -q "f.rasterMode == kRasterTriangleId ? 0xFFFFFFFFu : f.backgroundColor;" shaders-copy/painter/raster.glsl ||
  fail "hot reload: the line this test edits is gone from shaders/painter/raster.glsl; update the test"
in_xvfb "$painter" --width 320 --height 240 --hot-reload="$PWD/shaders-copy" \
  --screenshot reloaded.png --exit-after 300 > reloaded.out 2> reloaded.err &
app=$!
sleep 2
# sed -i writes a new file and renames it over the old one, as editors do.
sed -i 's/f.rasterMode == kRasterTriangleId ? 0xFFFFFFFFu : f.backgroundColor;/f.rasterMode == kRasterTriangleId ? 0xFFFFFFFFu : 0xff00ffffu;/' \
  shaders-copy/painter/raster.glsl
status=0
wait $app || status=$?
[ $status -eq 0 ] || fail "reloaded: exit status $status: $(cat reloaded.err)"
no_validation reloaded.err reloaded
yellow=$("$probe" count reloaded.png color ffff00)
[ "$yellow" -gt $((total / 10)) ] ||
  fail "after editing raster.glsl the running window shows only $yellow yellow background pixels: $(cat reloaded.out reloaded.err)"
[ "$("$probe" count reloaded.png color $background)" -lt 100 ] || fail "after the edit the old background is still shown"

echo "painter_window: ok (green pixels: $green_still unpainted, $green painted; $yellow yellow after the hot reload; $(tail -1 painted.out))"
