#!/usr/bin/env bash
# voxel_painter --headless end to end: replay a short stroke script into PNG frames and
# check that the frames exist, show the scene (not only background), change where the
# script paints, and that the frame-time summary is printed (as text and as JSON). Bad
# script lines must fail with file:line, not crash.
#   painter_headless.sh VOXEL_PAINTER PNG_PROBE TESTDATA_DIR WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" painter_headless "$@"
painter=$1
probe=$2
data=$3
background=182430  # PainterOptions::backgroundColor 0xff302418 (red in the low byte) as RRGGBB

"$painter" --headless --script "$data/headless_short.txt" --frames-dir frames --width 160 --height 120 \
  > summary.txt 2> stderr.txt || fail "exit status $?: $(cat stderr.txt)"
# ctest runs this with VOXEN_VALIDATION=1: any validation message is a failure.
no_validation stderr.txt
for key in "frames: 10" "frame ms: mean" "median" "p95" "frames/s:" "triangles:" "GPU time per phase"; do
  grep -q "$key" summary.txt || fail "the summary lacks '$key': $(cat summary.txt)"
done
grep -q "painter mesh" summary.txt || fail "the summary has no per-phase GPU time: $(cat summary.txt)"

count=$(ls frames/frame_*.png | wc -l)
[ "$count" -eq 10 ] || fail "expected 10 PNG frames, found $count"
[ "$("$probe" size frames/frame_00000.png)" = "160 120" ] || fail "frame size is not 160x120"
total=$((160 * 120))
for f in frames/frame_00000.png frames/frame_00009.png; do
  bg=$("$probe" count "$f" color $background)
  [ "$bg" -lt $((total * 9 / 10)) ] || fail "$f is (almost) all background: $bg of $total pixels"
  [ "$bg" -gt $((total / 10)) ] || fail "$f has almost no background ($bg of $total): is the camera inside the scene?"
done
# The first frame shows no green (the scene has none); after the green strokes there is.
green0=$("$probe" count frames/frame_00000.png dominant green)
green5=$("$probe" count frames/frame_00005.png dominant green)
[ "$green0" -lt 10 ] || fail "the unpainted first frame already has $green0 green pixels"
[ "$green5" -ge 40 ] || fail "frame 5 shows only $green5 green pixels after the green strokes"
changed=$("$probe" diff frames/frame_00000.png frames/frame_00005.png)
[ "$changed" -ge 40 ] || fail "painting changed only $changed pixels"
# Frames 4 and 5 paint through the middle of the frame (a ray hit); the camera stays put.
ray=$("$probe" diff frames/frame_00003.png frames/frame_00005.png)
[ "$ray" -ge 10 ] || fail "the strokes through a screen position (ray hits) changed only $ray pixels"
grep -Eq "strokes: 6 changing [1-9][0-9]* samples" summary.txt || fail "the strokes changed no samples: $(cat summary.txt)"

# --every 4 writes frames 0, 4, 8 and the last; --json gives one object.
"$painter" --headless --script "$data/headless_short.txt" --frames-dir every --every 4 --width 160 --height 120 --json \
  > summary.json 2> stderr-json.txt || fail "--json run failed: $(cat stderr-json.txt)"
[ "$(ls every | tr '\n' ' ')" = "frame_00000.png frame_00004.png frame_00008.png frame_00009.png " ] ||
  fail "--every 4 wrote: $(ls every | tr '\n' ' ')"
for key in frames mean_ms median_ms p95_ms frames_per_s triangles gpu_ms_per_frame; do
  grep -q "\"$key\":" summary.json || fail "the JSON summary lacks $key: $(cat summary.json)"
done

# Bad scripts: an error naming file:line and the problem, exit status 2, no crash.
printf '1 idle\n2 add pixel 10\n' > bad.txt
set +e
"$painter" --headless --script bad.txt --width 160 --height 120 2> bad.err
status=$?
set -e
[ $status -eq 2 ] || fail "a bad script line gave exit status $status (want 2): $(cat bad.err)"
grep -q "bad.txt:2:" bad.err || fail "the error does not name bad.txt:2: $(cat bad.err)"
printf '3 spin 10\n' > bad2.txt
"$painter" --headless --script bad2.txt 2> bad2.err && fail "an unknown action was accepted"
grep -q "bad2.txt:1: unknown action 'spin'" bad2.err || fail "unknown action: $(cat bad2.err)"
printf '1 add pixel 500 20\n' > bad3.txt
"$painter" --headless --script bad3.txt --width 160 --height 120 2> bad3.err && fail "a pixel outside the frame was accepted"
grep -q "bad3.txt:1: pixel (500, 20) lies outside the 160x120 frame" bad3.err || fail "pixel outside: $(cat bad3.err)"
echo "painter_headless: ok ($(grep 'frames/s' summary.txt))"
