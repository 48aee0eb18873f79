#!/usr/bin/env bash
# voxen merge on the command line: two runs merged in both orders give the same bytes, a run's
# thirds merged in every grouping give the same bytes, a store
# output converts back to the same .vxm, a mix of store and map inputs, and the refusals
# (another resolution, one input, a missing input) with no output left behind.
#   merge.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" merge "$@"

"$voxen" generate --cloud a.ply --trajectory a.txt --rings 16 --columns 256 --scans 3 --seed 2 > generate-a.log
"$voxen" generate --cloud b.ply --trajectory b.txt --rings 16 --columns 256 --scans 3 --seed 5 --start-time 100 > generate-b.log
for run in a b; do
  "$voxen" map --cloud $run.ply --trajectory $run.txt --output $run.vxm --resolution 0.25 --quiet --cpu --voxel-mean --hit-miss \
    --traversal --touch-time > map-$run.log
done

# Both orders: the same bytes.
"$voxen" merge a.vxm b.vxm --output ab.vxm > ab.log 2> ab.err || fail "merge a b: $(cat ab.err)"
"$voxen" merge b.vxm a.vxm --output ba.vxm > ba.log 2> ba.err || fail "merge b a: $(cat ba.err)"
cmp ab.vxm ba.vxm || fail "merge a b and merge b a differ"
grep -q "merged 2 inputs -> ab.vxm (map file): [0-9]* regions ([1-9][0-9]* held by several inputs)" ab.log ||
  fail "merge did not report what it did: $(cat ab.log)"
# The merged map holds both runs' hits: more of them than either alone.
hits() { "$voxen" export "$1" --occupied-ply "$1.ply" > /dev/null && grep -a -m1 "^element vertex" "$1.ply" | awk '{print $3}'; }
[ "$(hits ab.vxm)" -gt "$(hits a.vxm)" ] && [ "$(hits ab.vxm)" -gt "$(hits b.vxm)" ] ||
  fail "the merge has $(hits ab.vxm) occupied voxels, a $(hits a.vxm), b $(hits b.vxm)"

# Associativity: one run cut in three thirds by time, merged in every grouping, gives the same
# bytes (each partial merge used to clamp what a later one still needed); the clamped-off rest
# is kept in occupancy_remainder, which --no-remainder leaves out (the same occupancy).
"$voxen" generate --recording run.mcap --rings 16 --columns 256 --scans 6 --rate 10 --seed 3 > generate-run.log
map_third() {
  "$voxen" map --input run.mcap --start "$2" --duration 0.2 --output "$1" --resolution 0.25 --quiet --cpu --voxel-mean \
    --hit-miss --traversal --touch-time > "map-$1.log" 2>&1 || fail "map $1: $(cat "map-$1.log")"
}
map_third t1.vxm 0
map_third t2.vxm 0.2
map_third t3.vxm 0.4
merge_into() {
  local out=$1
  shift
  "$voxen" merge "$@" --output "$out" > "$out.log" 2> "$out.err" || fail "merge $* into $out: $(cat "$out.err")"
}
merge_into t12.vxm t1.vxm t2.vxm
merge_into t23.vxm t2.vxm t3.vxm
merge_into t13.vxm t1.vxm t3.vxm
merge_into t123.vxm t1.vxm t2.vxm t3.vxm
grep -q "([1-9][0-9]* held by several inputs)" t123.vxm.log || fail "the thirds do not overlap: $(cat t123.vxm.log)"
merge_into t12_3.vxm t12.vxm t3.vxm
merge_into t1_23.vxm t1.vxm t23.vxm
merge_into t13_2.vxm t13.vxm t2.vxm
merge_into t3_12.vxs t3.vxm t12.vxm
"$voxen" convert t3_12.vxs t3_12.vxm > /dev/null
for grouping in t12_3 t1_23 t13_2 t3_12; do
  cmp t123.vxm $grouping.vxm || fail "merging the thirds as $grouping gives another map than merging them at once"
done
grep -q "layers .*occupancy_remainder" t123.vxm.log || fail "the merge keeps no occupancy_remainder: $(cat t123.vxm.log)"
"$voxen" merge t1.vxm t2.vxm t3.vxm --no-remainder --output plain.vxm > plain.log 2> plain.err || fail "--no-remainder: $(cat plain.err)"
grep -q "layers occupancy, voxel_mean, traversal, hit_miss, touch_time," plain.log || fail "--no-remainder kept a layer: $(cat plain.log)"
"$voxen" export t123.vxm --occupied-ply t123.ply > /dev/null
"$voxen" export plain.vxm --occupied-ply plain.ply > /dev/null
cmp t123.ply plain.ply || fail "the map without its remainder reads differently"

# Into a store (told by the name), back to the same .vxm; a store among the inputs.
"$voxen" merge a.vxm b.vxm --output ab.vxs > ab-store.log 2> ab-store.err || fail "merge into a store: $(cat ab-store.err)"
head -c 16 ab.vxs | grep -aq "SQLite format 3" || fail "ab.vxs is not a store"
grep -q "(region store)" ab-store.log || fail "merge did not say it wrote a store: $(cat ab-store.log)"
"$voxen" convert ab.vxs ab-back.vxm > /dev/null
cmp ab.vxm ab-back.vxm || fail "the merged store converts back to another map than the merged .vxm"
"$voxen" convert b.vxm b.vxs > /dev/null
"$voxen" merge b.vxs a.vxm --output mixed.vxm > mixed.log 2> mixed.err || fail "merge of a store and a map: $(cat mixed.err)"
cmp ab.vxm mixed.vxm || fail "a store input merges to another map than its .vxm"

# Clearance is derived from occupancy: recomputed on the merge with the inputs' settings, the
# same map as computing it on the merge of the inputs without it; inputs with different
# settings leave it out, saying so.
"$voxen" clearance a.vxm --output ca.vxm --range 1 --cpu --quiet > /dev/null
"$voxen" clearance b.vxm --output cb.vxm --range 1 --cpu --quiet > /dev/null
"$voxen" merge ca.vxm cb.vxm --output cab.vxm > cab.log 2> cab.err || fail "merge with clearance: $(cat cab.err)"
grep -q "clearance recomputed for [0-9]* regions (range 1 m" cab.log || fail "merge did not recompute clearance: $(cat cab.log)"
"$voxen" clearance ab.vxm --output ab-clear.vxm --range 1 --cpu --quiet > /dev/null
cmp cab.vxm ab-clear.vxm || fail "the merge's clearance differs from clearance computed on the merged map"
"$voxen" merge ca.vxm cb.vxm --output cab.vxs > cab-store.log 2> cab-store.err || fail "merge with clearance into a store: $(cat cab-store.err)"
"$voxen" convert cab.vxs cab-back.vxm > /dev/null
cmp cab.vxm cab-back.vxm || fail "the merged store's clearance differs from the merged map file's"
"$voxen" clearance b.vxm --output cb2.vxm --range 2 --cpu --quiet > /dev/null
"$voxen" merge ca.vxm cb2.vxm --output cab2.vxm > cab2.log 2> cab2.err || fail "merge with different clearances: $(cat cab2.err)"
grep -q "clearance is left out of cab2.vxm: .*different settings" cab2.log || fail "no note on the left-out clearance: $(cat cab2.log)"
"$voxen" info cab2.vxm | grep -q "^clearance:" && fail "clearance kept although the inputs' settings differ"

# Refusals: exit status 2 for usage errors, 1 for failed runs, and no output left behind.
"$voxen" map --cloud b.ply --trajectory b.txt --output coarse.vxm --resolution 0.5 --quiet --cpu --voxel-mean --hit-miss \
  --traversal --touch-time > map-coarse.log
set +e
"$voxen" merge a.vxm coarse.vxm --output bad.vxm 2> resolution.err; status=$?
set -e
[ $status -eq 1 ] && grep -q "a.vxm.*coarse.vxm.*resolution 0.25 vs 0.5" resolution.err ||
  fail "another resolution: status $status: $(cat resolution.err)"
[ ! -e bad.vxm ] || fail "a refused merge left its output"
set +e
"$voxen" merge a.vxm --output bad.vxm 2> one.err; status=$?
set -e
[ $status -eq 2 ] && grep -q "at least two" one.err || fail "one input: status $status: $(cat one.err)"
set +e
"$voxen" merge a.vxm missing.vxm --output bad.vxs 2> missing.err; status=$?
set -e
[ $status -eq 1 ] && grep -q "missing.vxm" missing.err || fail "a missing input: status $status: $(cat missing.err)"
[ ! -e bad.vxm ] && [ ! -e bad.vxs ] || fail "a failed merge left its output"
echo keep > old.vxm
set +e
"$voxen" merge a.vxm coarse.vxm --output old.vxm 2> keep.err; status=$?
set -e
[ $status -eq 1 ] && [ "$(cat old.vxm)" == keep ] || fail "a failed merge replaced its output: status $status"
set +e
"$voxen" merge a.vxm b.vxm --output a.vxm 2> self.err; status=$?
set -e
[ $status -eq 2 ] || fail "a merge onto its input: status $status: $(cat self.err)"
set +e
"$voxen" merge a.vxm ./a.vxm --output twice.vxm 2> twice.err; status=$?
set -e
[ $status -eq 1 ] && grep -q "same file" twice.err && [ ! -e twice.vxm ] || fail "the same input twice: status $status: $(cat twice.err)"
echo "merge: ok"
