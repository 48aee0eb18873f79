#!/usr/bin/env bash
# voxen map and voxen inspect --pcd-viewpoint origin|pose. A PCD whose VIEWPOINT turns and
# moves the sensor maps, read as pose, to the map of the same rays written out by hand as a
# PLY ray cloud (the points turned and moved), and read as origin (the default) to the map of
# the points as stored; without the flag a warning names both readings and the flag, with it
# none; inspect says which reading it takes; other formats and other words are refused.
#   pcd_viewpoint.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" pcd_viewpoint "$@"

# Half a turn about z (qw qx qy qz = 0 0 0 1) at (1, 2, 3): as a pose, (x, y, z) becomes
# (-x, -y, z) + (1, 2, 3); the sensor is at (1, 2, 3) either way.
cat > turned.pcd <<'PCD'
# .PCD v0.7 - Point Cloud Data file format
VERSION 0.7
FIELDS x y z
SIZE 8 8 8
TYPE F F F
COUNT 1 1 1
WIDTH 4
HEIGHT 1
VIEWPOINT 1 2 3 0 0 0 1
POINTS 4
DATA ascii
3 0 0
0 3 0.5
-2 1 1
1.5 -2.5 0
PCD
ray_cloud() {  # ray_cloud FILE: x y z ox oy oz rows from stdin as an ascii PLY
  local rows
  rows=$(cat)
  { printf 'ply\nformat ascii 1.0\nelement vertex %s\n' "$(printf '%s\n' "$rows" | wc -l)"
    printf 'property double %s\n' x y z ox oy oz
    printf 'end_header\n%s\n' "$rows"; } > "$1"
}
ray_cloud as-stored.ply <<'ROWS'
3 0 0 1 2 3
0 3 0.5 1 2 3
-2 1 1 1 2 3
1.5 -2.5 0 1 2 3
ROWS
ray_cloud as-posed.ply <<'ROWS'
-2 2 3 1 2 3
1 -1 3.5 1 2 3
3 1 4 1 2 3
-0.5 4.5 3 1 2 3
ROWS

map() {  # map OUTPUT ARGS...: voxen map on the CPU reference, stderr in OUTPUT.err
  local out=$1
  shift
  "$voxen" map "$@" --output "$out.vxm" --cpu --quiet 2> "$out.err" || fail "map $*: $(cat "$out.err")"
}
map stored --cloud as-stored.ply
map posed --cloud as-posed.ply
map default --input turned.pcd
map origin --input turned.pcd --pcd-viewpoint origin
map pose --input turned.pcd --pcd-viewpoint pose
cmp -s stored.vxm posed.vxm && fail "the two readings' ray clouds map alike: the test compares nothing"
cmp -s origin.vxm stored.vxm || fail "--pcd-viewpoint origin: not the map of the points as stored"
cmp -s pose.vxm posed.vxm || fail "--pcd-viewpoint pose: not the map of the points moved by VIEWPOINT"
cmp -s default.vxm stored.vxm || fail "without --pcd-viewpoint: not read as origin"
grep -q "voxen map: warning: turned.pcd:9: VIEWPOINT 1 2 3 0 0 0 1 is not the identity" default.err ||
  fail "no warning without --pcd-viewpoint: $(cat default.err)"
grep -q "read as origin (taken now.*or as pose.*set --pcd-viewpoint to origin or pose to choose" default.err ||
  fail "the warning does not name both readings and the flag: $(cat default.err)"
for chosen in origin pose; do
  [ ! -s "$chosen.err" ] || fail "--pcd-viewpoint $chosen still warns: $(cat "$chosen.err")"
done

"$voxen" inspect turned.pcd > inspect.out 2> inspect.err
grep -q "voxen inspect: warning: turned.pcd:9: VIEWPOINT 1 2 3 0 0 0 1 is not the identity" inspect.err ||
  fail "inspect gives no warning: $(cat inspect.err)"
grep -q "voxen map would read: x, y, z; origins from VIEWPOINT$" inspect.out || fail "inspect default: $(cat inspect.out)"
"$voxen" inspect turned.pcd --pcd-viewpoint pose --json > inspect.json 2> inspect-pose.err
[ ! -s inspect-pose.err ] || fail "inspect --pcd-viewpoint pose still warns: $(cat inspect-pose.err)"
grep -q '"pcd_viewpoint":"pose"' inspect.json || fail "inspect --json: no pcd_viewpoint: $(cat inspect.json)"
grep -q "origins from VIEWPOINT (the sensor's pose, applied to the points)" inspect.json ||
  fail "inspect --pcd-viewpoint pose: $(cat inspect.json)"

# Refused: a reading for another format (nothing written), and a word that is no reading.
status=0
"$voxen" map --cloud as-stored.ply --pcd-viewpoint pose --output refused.vxm --cpu 2> refused.err || status=$?
[ "$status" = 2 ] || fail "--pcd-viewpoint with a PLY: exit $status: $(cat refused.err)"
grep -q "as-stored.ply: is a PLY: --pcd-viewpoint applies to PCD files only" refused.err || fail "$(cat refused.err)"
[ ! -e refused.vxm ] || fail "a refused run wrote its output"
status=0
"$voxen" inspect turned.pcd --pcd-viewpoint sideways 2> sideways.err || status=$?
[ "$status" = 2 ] || fail "--pcd-viewpoint sideways: exit $status"
grep -q "pcd-viewpoint" sideways.err || fail "$(cat sideways.err)"
echo "pcd_viewpoint: ok"
