#!/usr/bin/env bash
# transform_scene in a window under Xvfb, with the validation layer on (ctest sets
# VOXEN_VALIDATION=1): a few frames presented through samples/common's swapchain and
# presenter, and a screenshot of the last that must show the arms over the background.
#   transform_scene_window.sh TRANSFORM_SCENE PNG_PROBE WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" transform_scene_window "$@"
scene=$1
probe=$2
require_xvfb

status=0
in_xvfb "$scene" --arms 300 --width 320 --height 240 --exit-after 4 --screenshot shot.png > window.out 2> window.err ||
  status=$?
[ $status -eq 0 ] || fail "exit status $status: $(cat window.err)"
no_validation window.err
grep -q "screenshot shot.png (320x240)" window.out || fail "no screenshot reported: $(cat window.out)"
total=$((320 * 240))
bg=$("$probe" count shot.png color 141d2a 2)
[ "$bg" -lt $((total * 9 / 10)) ] || fail "the screenshot is (almost) all background: $bg of $total pixels"
[ "$bg" -gt $((total / 20)) ] || fail "the screenshot has almost no background ($bg of $total)"
echo "transform_scene_window: ok"
