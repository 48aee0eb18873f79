#!/usr/bin/env bash
# voxen merge of NDT maps: two NDT-TM runs merge in both orders to the same bytes, the merged
# map keeps the inputs' recorded NDT settings, a store output converts back to the same .vxm,
# and maps made with other NDT settings (or before the settings were recorded) are refused by
# name with no output left behind.
#   merge_ndt.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" merge_ndt "$@"

"$voxen" generate --cloud a.ply --trajectory a.txt --rings 16 --columns 256 --scans 2 --seed 2 > generate-a.log
"$voxen" generate --cloud b.ply --trajectory b.txt --rings 16 --columns 256 --scans 2 --seed 5 --start-time 100 > generate-b.log
ndtmap() { "$voxen" map --cloud $1.ply --trajectory $1.txt --output $2 --resolution 0.25 --quiet --cpu --ndt tm "${@:3}" > map-$2.log; }
ndtmap a a.vxm
ndtmap b b.vxm
ndtmap b b-wide.vxm --ndt-initial-deviation 0.3

"$voxen" merge a.vxm b.vxm --output ab.vxm > ab.log 2> ab.err || fail "merge of two NDT maps: $(cat ab.err)"
"$voxen" merge b.vxm a.vxm --output ba.vxm > ba.log 2> ba.err || fail "merge b a: $(cat ba.err)"
cmp ab.vxm ba.vxm || fail "merging NDT maps a b and b a differ"
grep -q "held by several inputs), layers .*ndt_covariance.*ndt_intensity" ab.log || fail "merge did not report the NDT layers: $(cat ab.log)"
# The merged map holds the Gaussians of both runs: more than either alone.
gaussians() { "$voxen" info --verify "$1" | awk '/^gaussians:/ {gsub(",", "", $2); print $2}'; }  # "1,363"
[ "$(gaussians ab.vxm)" -gt "$(gaussians a.vxm)" ] && [ "$(gaussians ab.vxm)" -gt "$(gaussians b.vxm)" ] ||
  fail "the merge has $(gaussians ab.vxm) Gaussians, a $(gaussians a.vxm), b $(gaussians b.vxm)"
"$voxen" merge a.vxm b.vxm --output ab.vxs > ab-store.log 2> ab-store.err || fail "NDT merge into a store: $(cat ab-store.err)"
"$voxen" convert ab.vxs ab-back.vxm > /dev/null
cmp ab.vxm ab-back.vxm || fail "the merged NDT store converts back to another map than the merged .vxm"

# Other NDT settings: refused naming both files and both values.
set +e
"$voxen" merge a.vxm b-wide.vxm --output bad.vxm 2> wide.err; status=$?
set -e
[ $status -eq 1 ] && grep -q "a.vxm.*b-wide.vxm.*NDT initial_deviation 0.1 vs 0.3" wide.err ||
  fail "other NDT settings: status $status: $(cat wide.err)"
[ ! -e bad.vxm ] || fail "a refused NDT merge left its output"
echo ok
