#!/usr/bin/env bash
# voxen map --input and voxen inspect over every format Voxen reads: the same generated run
# written as PLY + trajectory and as PCD files (with the trajectory, or each with its
# VIEWPOINT against the same rays as a PLY ray cloud) maps to the same map byte for byte, and
# so does a KITTI sequence against its rays as a PLY ray cloud; inspect names format, points,
# fields, times and what map would read; unknown files and flag mistakes are refused.
#   inputs.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/common.sh" inputs "$@"
recordings="$(dirname "$0")/recordings.py"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 256 --scans 3 --seed 4 > generate.log
python3 "$recordings" pcd run.ply pcd 3
python3 "$recordings" pcd-viewpoint run.ply run.txt pcd-viewpoint rays-viewpoint.ply
python3 "$recordings" kitti run.ply kitti rays-kitti.ply

map_with_json ply --cloud run.ply --trajectory run.txt
map_with_json ply-input --input run.ply --trajectory run.txt
map_with_json pcd --input pcd --trajectory run.txt --threads 3
map_with_json ray-viewpoint --cloud rays-viewpoint.ply
map_with_json pcd-viewpoint --input pcd-viewpoint
map_with_json ray-kitti --input rays-kitti.ply
map_with_json kitti --input kitti --threads 2
[ "$(json_number rays ply.json)" -gt 10000 ] || fail "too few rays mapped: $(cat ply.json)"
cmp -s ply.vxm ply-input.vxm || fail "--input run.ply wrote another map than --cloud run.ply"
cmp -s ply.vxm pcd.vxm || fail "PCD files + trajectory wrote another map than the PLY + trajectory"
cmp -s ray-viewpoint.vxm pcd-viewpoint.vxm || fail "PCD files with VIEWPOINT wrote another map than their ray cloud"
cmp -s ray-kitti.vxm kitti.vxm || fail "the KITTI sequence wrote another map than its ray cloud"
[ "$(json_number rays kitti.json)" = "$(json_number rays ray-kitti.json)" ] || fail "KITTI: other ray count"
cmp -s ply.vxm ray-viewpoint.vxm && fail "the VIEWPOINT run maps as the trajectory run: the test compares nothing"

# voxen inspect: format, points, fields, times and what map would read, as text and JSON.
"$voxen" inspect run.ply > inspect-ply.out
grep -q "run.ply: PLY (binary_little_endian), 12,252 points" inspect-ply.out || fail "inspect PLY: $(cat inspect-ply.out)"
grep -q "fields: x double, y double, z double, time double, intensity float" inspect-ply.out ||
  fail "inspect PLY fields: $(cat inspect-ply.out)"
grep -q "times: 0 to 0.29" inspect-ply.out || fail "inspect PLY times: $(cat inspect-ply.out)"
grep -q "origins need --trajectory" inspect-ply.out || fail "inspect PLY default: $(cat inspect-ply.out)"
"$voxen" inspect pcd-viewpoint --json > inspect-pcd.json
grep -q '"format":"PCD folder","layout":"3 files, ascii and binary","points":12252' inspect-pcd.json ||
  fail "inspect PCD: $(cat inspect-pcd.json)"
grep -q '"origins":"VIEWPOINT"' inspect-pcd.json || fail "inspect PCD origins: $(cat inspect-pcd.json)"
"$voxen" inspect kitti > inspect-kitti.out
grep -q "KITTI odometry sequence (3 scans), 12,252 points" inspect-kitti.out || fail "inspect KITTI: $(cat inspect-kitti.out)"
grep -q "times: 0 to 0.25" inspect-kitti.out || fail "inspect KITTI times: $(cat inspect-kitti.out)"

# Refusals: unknown content names the file (a failed run, 1); flags misused are usage errors (2).
printf '1 2 3\n' > mystery.xyz
expect_status() {  # expect_status STATUS PATTERN ARGS...
  local want=$1 pattern=$2
  shift 2
  set +e
  "$voxen" "$@" > refusal.out 2> refusal.err
  local status=$?
  set -e
  [ $status -eq "$want" ] || fail "$*: exit status $status (want $want): $(cat refusal.err)"
  grep -q -- "$pattern" refusal.err || fail "$*: the error does not say '$pattern': $(cat refusal.err)"
}
expect_status 1 "mystery.xyz: unknown recording format" map --input mystery.xyz --output bad.vxm --quiet
expect_status 1 "mystery.xyz: unknown recording format" inspect mystery.xyz
printf 'VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 2\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 2\nDATA ascii\n1 2 3\n4 5\n' > short.pcd
expect_status 1 "short.pcd:10: 2 values, a point has 3" inspect short.pcd
expect_status 2 "excludes" map --input run.ply --cloud run.ply --trajectory run.txt --output bad.vxm
expect_status 2 "--input FILE_OR_FOLDER (or --cloud CLOUD.ply) is required" map --output bad.vxm
expect_status 1 "carries its own poses" map --input kitti --trajectory run.txt --output bad.vxm --quiet
[ ! -e bad.vxm ] || fail "a refused run wrote its output"
echo "inputs: ok"
