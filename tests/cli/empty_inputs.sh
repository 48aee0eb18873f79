#!/usr/bin/env bash
# Empty and truncated inputs of import-octomap and of the commands that load a map: each is
# an error naming the file and saying what is wrong (empty, cut short, a directory, a
# device), exit status 1, and nothing is written; an OctoMap tree with no voxel (a valid
# file, as OctoMap writes for an empty map) is refused like a mapping run without rays,
# unless --allow-empty. No GPU work: seconds.
#   empty_inputs.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/common.sh" empty_inputs "$@"

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
echo "empty_inputs: ok"
