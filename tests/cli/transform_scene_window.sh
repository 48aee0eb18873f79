#!/usr/bin/env bash
# transform_scene in a window under Xvfb, with the validation layer on (ctest sets
# VOXEN_VALIDATION=1): a few frames presented through samples/common's swapchain and
# presenter, and a screenshot of the last that must show the arms over the background.
#   transform_scene_window.sh TRANSFORM_SCENE PNG_PROBE WORK_DIR
set -euo pipefail
scene=$1
probe=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work"

fail() { echo "transform_scene_window: $*" >&2; exit 1; }
command -v xvfb-run > /dev/null ||
  fail "xvfb-run is missing: this test needs a virtual X server (apt-get install xvfb xauth; scripts/setup.sh installs them)"
command -v xauth > /dev/null || fail "xauth is missing: xvfb-run needs it (apt-get install xauth)"

status=0
xvfb-run -a -s "-screen 0 640x480x24" "$scene" --arms 300 --width 320 --height 240 --exit-after 4 --screenshot shot.png \
  > window.out 2> window.err || status=$?
[ $status -eq 0 ] || fail "exit status $status: $(cat window.err)"
if grep -qi "validation message\|validation error\|validation warning" window.err; then fail "validation: $(cat window.err)"; fi
grep -q "screenshot shot.png (320x240)" window.out || fail "no screenshot reported: $(cat window.out)"
total=$((320 * 240))
bg=$("$probe" count shot.png color 141d2a 2)
[ "$bg" -lt $((total * 9 / 10)) ] || fail "the screenshot is (almost) all background: $bg of $total pixels"
[ "$bg" -gt $((total / 20)) ] || fail "the screenshot has almost no background ($bg of $total)"
echo "transform_scene_window: ok"
