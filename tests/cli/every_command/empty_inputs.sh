#!/usr/bin/env bash
# Empty and truncated inputs of import-octomap and of the commands that load a map: each is
# an error naming the file and saying what is wrong (empty, cut short, a directory, a
# device), exit status 1, and nothing is written; an OctoMap tree with no voxel (a valid
# file, as OctoMap writes for an empty map) is refused like a mapping run without rays,
# unless --allow-empty. No GPU work: seconds.
#   empty_inputs.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" empty_inputs "$@"

refused() {  # refused TEXT ARGS...: exit status 1, TEXT in the message, no out.vxm
  local expect=$1 status=0
  shift
  rm -f out.vxm
  "$voxen" "$@" > refused.out 2> refused.err || status=$?
  [ $status -eq 1 ] || fail "'$*' exited with $status, not 1: $(cat refused.out refused.err)"
  grep -q -- "$expect" refused.err || fail "'$*' does not say '$expect': $(cat refused.err)"
  [ ! -e out.vxm ] || fail "'$*' wrote out.vxm"
}

: > zero.bt
refused "zero.bt: the file is empty (0 bytes)" import-octomap zero.bt --output out.vxm
printf '# Octomap OcTree binary file\nid OcTree\nsize 0\nres 0.1\ndata\n' > no-voxels.bt
refused "no-voxels.bt: the tree holds no known voxel" import-octomap no-voxels.bt --output out.vxm
grep -q -- "--allow-empty" refused.err || fail "the empty tree's error does not name --allow-empty: $(cat refused.err)"
"$voxen" import-octomap no-voxels.bt --output out.vxm --allow-empty > allowed.out || fail "--allow-empty: exit status $?"
[ -s out.vxm ] || fail "import-octomap --allow-empty wrote no map"
mv out.vxm empty.vxm
printf '# Octomap OcTree binary file\nid OcTree\nsize 3\nres 0.1\ndata\n' > cut.bt
refused "cut.bt: truncated data" import-octomap cut.bt --output out.vxm
printf '# Octomap OcTree binary file\nid OcTree\nsize 3\nres 0.1\n' > no-data.bt
refused "no-data.bt: bad header: no \"data\" line" import-octomap no-data.bt --output out.vxm
mkdir -p folder.bt
refused "folder.bt: is a directory" import-octomap folder.bt --output out.vxm
refused "/dev/null: is a character device" import-octomap /dev/null --output out.vxm

# Maps: empty, and cut inside the header, for each command that loads one.
: > zero.vxm
head -c 20 empty.vxm > short.vxm
for command in "info" "info --verify" "render --output x.png" "export --occupied-ply x.ply" "clearance --range 1 --output x.vxm"; do
  read -r -a words <<< "$command"
  refused "zero.vxm': truncated header: the file is empty (0 bytes)" "${words[0]}" zero.vxm "${words[@]:1}"
  refused "short.vxm': truncated header: the file has 20 bytes, a version 2 header needs 68" "${words[0]}" short.vxm "${words[@]:1}"
done
# voxen map: a run whose every ray is rejected (points at 1e300: too far from the map's
# origin for its voxel coordinates) updates no voxel, and is refused as an empty map like a
# run of no rays, on the CPU and the GPU: the error counts the points read and why each was
# dropped, names --allow-empty, and the existing output stays as it was. --allow-empty writes
# the empty map. (Before, only a run of no rays at all was refused: this one wrote an empty
# map with exit status 0.)
{
  printf 'ply\nformat ascii 1.0\nelement vertex 3\nproperty double x\nproperty double y\nproperty double z\n'
  printf 'property double ox\nproperty double oy\nproperty double oz\nend_header\n'
  printf '1e300 0 0 0 0 0\n0 -1e300 0 0 0 0\nnan 0 0 0 0 0\n'
} > far.ply
echo "an earlier map" > kept.vxm
for backend in --cpu --validation; do
  status=0
  "$voxen" map --cloud far.ply --output kept.vxm --quiet $backend > far.out 2> far.err || status=$?
  [ $status -eq 1 ] || fail "map of rays all too far ($backend): exit status $status, not 1: $(cat far.out far.err)"
  grep -q "no voxel was updated: 3 points read, 2 rays; 1 point skipped for NaN/inf values, 2 rays rejected as too far" far.err ||
    fail "map of rays all too far ($backend): the error does not count them by reason: $(cat far.err)"
  grep -q -- "--allow-empty" far.err || fail "map of rays all too far ($backend): the error does not name --allow-empty: $(cat far.err)"
  [ "$(cat kept.vxm)" = "an earlier map" ] || fail "map of rays all too far ($backend) replaced the existing output"
  no_validation far.err "map of rays all too far"
done
"$voxen" map --cloud far.ply --output allowed.vxm --quiet --cpu --allow-empty --json > allowed.json ||
  fail "map --allow-empty of rays all too far: exit status $?"
[ -s allowed.vxm ] || fail "map --allow-empty of rays all too far wrote no map"
[ "$(json_number rejected_too_far allowed.json)" = 2 ] || fail "rejected_too_far is not 2: $(cat allowed.json)"
[ "$(json_number rejected_rays allowed.json)" = 2 ] || fail "rejected_rays is not 2: $(cat allowed.json)"

# A cloud of no points at all, in another input kind (a lone KITTI scan of 0 bytes): the same
# refusal, and --allow-empty writes the empty map.
mkdir -p kitti
: > kitti/000000.bin
refused "no voxel was updated: 0 points read, 0 rays (the input holds no points)" map --input kitti/000000.bin --output out.vxm --cpu --quiet
"$voxen" map --input kitti/000000.bin --output out.vxm --cpu --quiet --allow-empty > /dev/null ||
  fail "map --allow-empty of an empty KITTI scan: exit status $?"
[ -s out.vxm ] || fail "map --allow-empty of an empty KITTI scan wrote no map"
echo "empty_inputs: ok"
