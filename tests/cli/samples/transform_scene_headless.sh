#!/usr/bin/env bash
# transform_scene --headless end to end, with the validation layer on (ctest sets
# VOXEN_VALIDATION=1; any validation message fails): a few frames of the animated arms with
# a still camera and --verify, which checks on the CPU that every frame's GPU culling equals
# TransformTree::cullCpu on the GPU's world matrices, that the triangle list holds exactly
# the visible nodes' boxes, and that every pixel (triangle-id image, and the shaded one's
# coverage) belongs to a visible node. Then: the view culls part of the forest, the PNG
# frames show the scene and change from frame to frame (the animation alone: the camera is
# still), the summaries carry their fields, --hot-reload=DIR swaps an edited shader while the
# frames run with one message for the edit, and bad flags fail naming the flag.
#   transform_scene_headless.sh TRANSFORM_SCENE PNG_PROBE WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" transform_scene_headless "$@"
scene=$1
probe=$2
json_list() {  # json_list KEY FILE: the numbers of a JSON array, one per line
  grep -o "\"$1\":\[[0-9.,e+-]*\]" "$2" | sed 's/.*\[//; s/\]//' | tr ',' '\n'
}
background=141d2a  # the scene's background 0xff2a1d14 (red in the low byte) as RRGGBB

# 1. Verified frames, as JSON.
"$scene" --headless --arms 400 --depth 5 --fingers 3 --frames 4 --orbit-speed 0 --width 160 --height 120 \
  --output frames --verify --json > run.json 2> run.err || fail "exit status $?: $(cat run.err)"
no_validation run.err
grep -q '"verified":true' run.json || fail "the run was not verified: $(cat run.json)"
grep -q '"nodes":2800' run.json || fail "400 arms of 7 nodes should be 2800 nodes: $(cat run.json)"
for key in device frames mean_ms median_ms p95_ms frames_per_s visible_nodes culled_nodes frame_ms drawn_nodes gpu_ms_per_frame; do
  grep -q "\"$key\":" run.json || fail "the JSON summary lacks $key: $(cat run.json)"
done
json_list culled_nodes run.json > culled.txt
json_list visible_nodes run.json > visible.txt
json_list drawn_nodes run.json > drawn.txt
[ "$(wc -l < culled.txt)" -eq 4 ] || fail "expected 4 frames of culled counts: $(cat run.json)"
while read -r n; do [ "$n" -ge 100 ] || fail "the view culls only $n nodes: culling is not exercised"; done < culled.txt
while read -r n; do [ "$n" -ge 500 ] || fail "only $n nodes visible"; done < visible.txt
while read -r n; do [ "$n" -ge 100 ] || fail "only $n visible nodes cover a pixel"; done < drawn.txt
grep -q '"box instances":' run.json || fail "no GPU time for the box expansion: $(cat run.json)"
grep -q '"painter raster small":' run.json || fail "no GPU time for the rasterizer: $(cat run.json)"

# 2. The frames: four PNGs that show the scene and change although the camera is still.
count=$(ls frames/frame_*.png | wc -l)
[ "$count" -eq 4 ] || fail "expected 4 PNG frames, found $count"
[ "$("$probe" size frames/frame_00000.png)" = "160 120" ] || fail "frame size is not 160x120"
total=$((160 * 120))
for f in frames/frame_0000[0-3].png; do
  bg=$("$probe" count "$f" color $background)
  [ "$bg" -lt $((total * 9 / 10)) ] || fail "$f is (almost) all background: $bg of $total pixels"
  [ "$bg" -gt $((total / 20)) ] || fail "$f has almost no background ($bg of $total)"
done
for pair in "0 1" "1 2" "2 3"; do
  set -- $pair
  changed=$("$probe" diff frames/frame_0000$1.png frames/frame_0000$2.png)
  [ "$changed" -ge 50 ] || fail "frames $1 and $2 differ in only $changed pixels: is the animation running?"
done

# 3. The text summary, --every, and a moving camera.
"$scene" --headless --arms 100 --frames 5 --every 2 --width 64 --height 48 --output every > run.txt 2> run-text.err ||
  fail "text run: exit status $?: $(cat run-text.err)"
no_validation run-text.err
for key in "scene: 100 arms" "frames: 5" "frame ms: mean" "visible nodes per frame:" "PNG frames written: 3" "GPU time per pass"; do
  grep -q "$key" run.txt || fail "the summary lacks '$key': $(cat run.txt)"
done
[ "$(ls every | tr '\n' ' ')" = "frame_00000.png frame_00002.png frame_00004.png " ] || fail "--every 2 wrote: $(ls every | tr '\n' ' ')"

# 4. --hot-reload=DIR (a relative folder, a copy of shaders/): an edit of the rasterizer's
# include, which ten pipeline variants of the painter's frame use, is reloaded while the
# frames run and reported in one line.
cp -r "$(dirname "$0")/../../../shaders" shaders-copy
"$scene" --headless --hot-reload=shaders-copy --arms 100 --frames 1000000 --every 1000000 --width 64 --height 48 \
  --output reload-frames > reload.out 2> reload.err &
pid=$!
wait_for() {  # wait_for SECONDS COMMAND...: until the command succeeds, or fail
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    kill -0 $pid 2> /dev/null || fail "--hot-reload: the run ended early: $(cat reload.err)"
    [ $SECONDS -lt $deadline ] || { kill $pid; fail "--hot-reload: timed out waiting for: $* ($(cat reload.err))"; }
    sleep 0.2
  done
}
wait_for 120 test -s reload-frames/frame_00000.png  # the first frame: every pipeline is built
echo "// edited by transform_scene_headless.sh" >> shaders-copy/painter/raster.glsl
wait_for 60 grep -q "reloaded" reload.err
sleep 1  # time for any further message of the same edit
kill $pid
wait $pid 2> /dev/null || true
no_validation reload.err "--hot-reload"
grep -q "hot reload on: watching .*shaders-copy" reload.err || fail "--hot-reload: not watching the folder: $(cat reload.err)"
[ "$(grep -c "reloaded" reload.err)" = 1 ] || fail "--hot-reload: one edit, several messages: $(cat reload.err)"
grep -q "reloaded painter/raster.glsl: painter/frame.comp" reload.err || fail "--hot-reload: the message does not name the file: $(cat reload.err)"

# 5. Bad flags: exit status 2 and a message naming the flag.
bad() {  # bad FLAG-IN-MESSAGE ARGS...
  local expect=$1 status=0
  shift
  "$scene" "$@" > bad.out 2> bad.err || status=$?
  [ $status -eq 2 ] || fail "'$*' exited with $status, not 2: $(cat bad.err)"
  grep -q -- "$expect" bad.err || fail "'$*' does not name $expect: $(cat bad.err)"
}
bad --arms --headless --arms 0
bad --arms --headless --arms many
bad --depth --headless --depth 1
bad --frames --headless --frames 0
bad --width --headless --width 8
bad --arms --headless --arms 1000000 --depth 64
bad --frames --frames 3
bad --verify --verify
bad --exit-after --headless --exit-after 3
bad --screenshot --screenshot shot.png
bad --bogus --headless --bogus
bad --hot-reload --headless --hot-reload=no-such-folder
# An --output that is a file: a clear error naming it, before any work.
touch not-a-folder
status=0
"$scene" --headless --frames 1 --output not-a-folder > out.txt 2> out.err || status=$?
[ $status -eq 1 ] || fail "--output onto a file exited with $status: $(cat out.err)"
grep -q -- "--output not-a-folder" out.err || fail "the --output error does not name it: $(cat out.err)"
echo "transform_scene_headless: ok"
