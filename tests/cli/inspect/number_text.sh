#!/usr/bin/env bash
# Numbers for people (issue 35, item 16): voxen map's human-readable summary and settings
# carry thousands separators on every count and the shortest exact decimal for what the user
# typed (no "0.10000000000000001", no "0.100000", no rate as "8.27e+04"); a summary whose rays
# and samples differ says why. voxen inspect says what a time span is in both readings of a
# unitless time field and what voxen map does with it, counts in the singular or plural, and
# why a map's rays can be fewer than the points.
#   number_text.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" number_text "$@"

# No run of 5 or more digits without separators (a count such as 130964), no decimal with 15
# or more significant digits (0.10000000000000001), no exponent on a rate (8.27e+04 rays/s).
# Stamps (formatTime, 15 digits) and file names are left out of the check: none is printed here.
check_numbers() {  # check_numbers FILE WHAT
  local bad
  bad=$(grep -oE '(^|[^0-9.,e+-])[0-9]{5,}([^0-9]|$)' "$1" | grep -vE '^.?[0-9]{5,}\.(ply|txt|vxm)' || true)
  [ -z "$bad" ] || fail "$2: numbers without thousands separators ($bad): $(cat "$1")"
  bad=$(grep -oE '[0-9]*\.[0-9]{14,}' "$1" || true)
  [ -z "$bad" ] || fail "$2: decimals of 15+ digits ($bad): $(cat "$1")"
  bad=$(grep -oE '[0-9.]+e[+-][0-9]+ (rays|voxel updates|bytes)/s' "$1" || true)
  [ -z "$bad" ] || fail "$2: a rate with an exponent ($bad): $(cat "$1")"
}

# A run of tens of thousands of rays, its resolution typed as 0.1 (a double that %.17g prints
# as 0.10000000000000001), a hit probability 0.7 (a float that %.17g prints as
# 0.69999998807907104); one point is NaN (a lidar's no-return) and --max-range clips some rays.
"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 512 --scans 4 --seed 3 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output run.vxm --cpu --resolution 0.1 --hit 0.7 \
  --max-range 8 > map.out 2> map.err
cat map.out map.err > map.txt
check_numbers map.txt "voxen map's summary"
grep -q "resolution 0.1 m" map.err || fail "settings line: resolution not as typed: $(cat map.err)"
grep -q "hit 0.7," map.err || fail "settings line: hit probability not as typed: $(cat map.err)"
grep -qE "^run.ply: [0-9]{1,3}(,[0-9]{3})+ of [0-9]{1,3}(,[0-9]{3})+ points read, [0-9]{1,3}(,[0-9]{3})+ rays" map.out ||
  fail "reader summary counts without separators: $(cat map.out)"
grep -qE ", [0-9]{1,3}(,[0-9]{3})* rays/s, " map.out || fail "rays/s not a separated count: $(cat map.out)"
grep -qE "rays? longer than --max-range clipped there: free space to the clip, no hit at the sample" map.out ||
  fail "the summary does not say what --max-range did to the rays: $(cat map.out)"

# A cloud of 3 points, one of them NaN: rays and samples differ, and the summary says why.
{
  printf 'ply\nformat ascii 1.0\nelement vertex 3\nproperty double x\nproperty double y\nproperty double z\n'
  printf 'property double ox\nproperty double oy\nproperty double oz\nend_header\n'
  printf '1 0 0 0 0 0\n0 1 0 0 0 0\nnan 0 0 0 0 0\n'
} > nan.ply
"$voxen" map --cloud nan.ply --output nan.vxm --cpu > nan.out 2> nan.err
grep -q "rays 2, samples 3," nan.out || fail "the NaN run: $(cat nan.out)"
grep -q "rays and samples differ (each point read is a sample; a ray is one integrated): 1 point skipped for NaN/inf values" nan.out ||
  fail "the summary does not say why rays and samples differ: $(cat nan.out)"

# voxen inspect: the time field's span in both readings and what voxen map does with it.
"$voxen" inspect run.ply > inspect.out
check_numbers inspect.out "voxen inspect"
grep -qE "^times: 0 to 0\.[0-9]+ in field 'time', which names no unit: a span of [0-9.]+ ms if in seconds, [0-9.]+ ns if in nanoseconds; voxen map compares them with the trajectory's times" inspect.out ||
  fail "inspect's time line: $(cat inspect.out)"
grep -q "(s if in seconds)" inspect.out && fail "inspect still prints the unclear time line: $(cat inspect.out)"
grep -qE "^rays: voxen map makes one ray per point; of these [0-9,]+ points, it skips those with NaN/inf coordinates" inspect.out ||
  fail "inspect does not say why rays can be fewer than points: $(cat inspect.out)"

# Singular and plural.
{
  printf 'ply\nformat ascii 1.0\nelement vertex 1\nproperty double x\nproperty double y\nproperty double z\n'
  printf 'property double ox\nproperty double oy\nproperty double oz\nend_header\n1 0 0 0 0 0\n'
} > one.ply
"$voxen" inspect one.ply > one.out
grep -q "one.ply: PLY (ascii), 1 point$" one.out || fail "inspect of 1 point: $(cat one.out)"
grep -q "of these 1 point," one.out || fail "inspect's rays line of 1 point: $(cat one.out)"
mkdir -p pcd1
python3 "$(dirname "$0")/../support/recordings.py" pcd run.ply pcd1 1
"$voxen" inspect pcd1 > pcd1.out
grep -q "(1 file, " pcd1.out || fail "inspect of a folder of 1 PCD file: $(cat pcd1.out)"
echo "number_text: ok"
