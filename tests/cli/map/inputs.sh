#!/usr/bin/env bash
# voxen map --input and voxen inspect over every format Voxen reads: the same generated run
# written as PLY + trajectory and as PCD files (with the trajectory, or each with its
# VIEWPOINT against the same rays as a PLY ray cloud) maps to the same map byte for byte, and
# so does a KITTI sequence against its rays as a PLY ray cloud; inspect names format, points,
# fields, times and what map would read; unknown files and flag mistakes are refused.
#   inputs.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" inputs "$@"
recordings="$(dirname "$0")/../support/recordings.py"

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

# A single scan as a plain PLY (x y z, no origins, no times) maps with --origin X Y Z: the
# same map byte for byte as the same rays written as a ray cloud. Before, such a cloud could
# not be mapped at all; without --origin the error names the flag.
ply_points() {  # ply_points FILE [ORIGIN]: the five points below, with "ox oy oz" columns when ORIGIN is given
  local file=$1 origin=${2:-}
  {
    printf 'ply\nformat ascii 1.0\nelement vertex 5\nproperty double x\nproperty double y\nproperty double z\n'
    [ -z "$origin" ] || printf 'property double ox\nproperty double oy\nproperty double oz\n'
    printf 'end_header\n'
    for p in "3 0 1" "0 3 1" "0.3 0 1" "-0.7 0 1" "2 2 0.5"; do echo "$p${origin:+ $origin}"; done
  } > "$file"
}
ply_points scan.ply
ply_points scan-rays.ply "0 0 1"
expect_status 1 "scan.ply: cannot tell where the sensor was.*give the sensor's position as --origin" map --cloud scan.ply --output bad.vxm --cpu --quiet
map_with_json scan --cloud scan.ply --origin 0 0 1 --cpu
map_with_json scan-rays --cloud scan-rays.ply --cpu
cmp -s scan.vxm scan-rays.vxm || fail "--origin 0 0 1 mapped another map than the same rays as a ray cloud"
[ "$(json_number rays scan.json)" = 5 ] || fail "--origin: rays: $(cat scan.json)"
expect_status 2 "--origin is for a single cloud without origins or poses" map --cloud scan-rays.ply --origin 0 0 1 --output bad.vxm --cpu --quiet
expect_status 2 "--origin is for a single cloud without origins or poses" map --cloud run.ply --trajectory run.txt --origin 0 0 1 --output bad.vxm --cpu --quiet

# Returns from the robot itself: --min-range drops (0.3, 0, 0) from the sensor, --exclude-box
# (here in the map's axes around the origin, the cloud carrying no orientation) drops
# (-0.7, 0, 0); both counted in the summary, and the map is that of the other three rays.
map_with_json near --cloud scan.ply --origin 0 0 1 --cpu --min-range 0.5 --exclude-box -1 -0.2 -0.2 -0.5 0.2 0.2
[ "$(json_number skipped_near_sensor near.json)" = 1 ] || fail "--min-range: not counted: $(cat near.json)"
[ "$(json_number skipped_in_box near.json)" = 1 ] || fail "--exclude-box: not counted: $(cat near.json)"
[ "$(json_number rays near.json)" = 3 ] || fail "--min-range and --exclude-box: rays: $(cat near.json)"
grep -v -e '^0.3 0 1' -e '^-0.7 0 1' scan-rays.ply | sed 's/element vertex 5/element vertex 3/' > far-rays.ply
map_with_json far-rays --cloud far-rays.ply --cpu
cmp -s near.vxm far-rays.vxm || fail "--min-range and --exclude-box mapped another map than the rays they keep"
"$voxen" map --cloud scan.ply --origin 0 0 1 --cpu --min-range 0.5 --exclude-box -1 -0.2 -0.2 -0.5 0.2 0.2 --output near-text.vxm > near.txt 2> /dev/null
grep -q "1 skipped inside the robot's box; 1 skipped nearer the sensor than the minimum range" near.txt ||
  fail "the summary does not count the returns from the robot: $(cat near.txt)"
expect_status 2 "--exclude-box: xmin 1 is greater than xmax -1" map --cloud scan.ply --origin 0 0 1 --exclude-box 1 0 0 -1 1 1 --output bad.vxm
[ ! -e bad.vxm ] || fail "a refused run wrote its output"
echo "inputs: ok"
