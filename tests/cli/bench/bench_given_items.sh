#!/bin/bash
# bench map --rays-file and bench query --points-file/--rays-file/--only/--mapper: the benchmarks run
# on given rays and items (what python/benchmarks/bench_python.py compares against), and bad
# files or flag combinations are refused with the file or flag named.
source "$(dirname "$0")/../support/common.sh" bench_given_items "$@"

# A ray cloud of 3 rays along x (ASCII PLY with origins) and 2 query points, 1 query ray.
cat > rays.ply <<'PLY'
ply
format ascii 1.0
element vertex 3
property double x
property double y
property double z
property double ox
property double oy
property double oz
end_header
2.05 0.05 0.05 0.05 0.05 0.05
2.05 0.15 0.05 0.05 0.15 0.05
2.05 0.25 0.05 0.05 0.25 0.05
PLY
printf '1.05 0.05 0.05\n9 9 9\n' > points.txt
printf '0.05 0.05 0.05 1 0 0\n' > cast.txt

"$voxen" bench map --rays-file rays.ply --resolution 0.1 --repeat 1 --json > map.json 2> map.err ||
  fail "bench map --rays-file: status $?: $(cat map.err)"
no_validation map.err "bench map --rays-file"
[ "$(json_number rays map.json)" = 3 ] || fail "bench map --rays-file: not the file's 3 rays: $(cat map.json)"
# 3 rays over 21 voxels each (x from 0.05 to 2.05 m): 20 misses and a hit per ray.
[ "$(json_number voxel_updates map.json)" = 63 ] || fail "bench map --rays-file: voxel updates: $(cat map.json)"
grep -q '"rays_file":"rays.ply"' map.json || fail "bench map --rays-file: the file is not reported: $(cat map.json)"

status=0
"$voxen" bench map --rays-file rays.ply --rays 65536 > both.out 2> both.err || status=$?
[ $status -eq 2 ] && grep -q -- "--rays excludes --rays-file" both.err || fail "--rays with --rays-file: status $status: $(cat both.err)"
status=0
"$voxen" bench map --rays-file points.txt > text.out 2> text.err || status=$?
[ $status -eq 1 ] && grep -q "points.txt" text.err || fail "bench map --rays-file of a text file: status $status: $(cat text.err)"
status=0
# A missing file is a failed run (status 1, naming it) as in voxen map, not a usage error.
"$voxen" bench map --rays-file missing.ply > missing.out 2> missing.err || status=$?
[ $status -eq 1 ] && grep -q "missing.ply" missing.err || fail "bench map --rays-file of no file: status $status: $(cat missing.err)"

"$voxen" bench query --scans 1 --points-file points.txt --rays-file cast.txt --only occupancy --only raycast --repeat 1 \
  --json > query.json 2> query.err || fail "bench query with given items: status $?: $(cat query.err)"
no_validation query.err "bench query with given items"
grep -q '"kind":"occupancy","items":2,' query.json || fail "bench query --points-file: not the file's 2 points: $(cat query.json)"
grep -q '"kind":"raycast","items":1,' query.json || fail "bench query --rays-file: not the file's ray: $(cat query.json)"
if grep -q '"kind":"\(clearance\|box_voxels\|raycast_unknown_blocks\)"' query.json; then
  fail "bench query --only ran other kinds: $(cat query.json)"
fi
grep -q '"gpu_equals_cpu":false' query.json && fail "bench query: GPU differs from CPU: $(cat query.json)"
# --mapper: the same queries through voxen::Mapper on a saved map (small batches on the CPU).
"$voxen" map --cloud rays.ply --output small.vxm --quiet 2> saved.err || fail "map of rays.ply: $(cat saved.err)"
"$voxen" bench query --map small.vxm --mapper --points-file points.txt --rays-file cast.txt --only occupancy \
  --only raycast --only clearance --repeat 1 --json > mapper.json 2> mapper.err ||
  fail "bench query --mapper: status $?: $(cat mapper.err)"
no_validation mapper.err "bench query --mapper"
grep -q '"path":"mapper"' mapper.json || fail "bench query --mapper: not through the Mapper: $(cat mapper.json)"
grep -q '"kind":"clearance","items":2,' mapper.json || fail "bench query --mapper: no clearance row: $(cat mapper.json)"
grep -q '"gpu_equals_cpu":false' mapper.json && fail "bench query --mapper: differs from the CPU: $(cat mapper.json)"
status=0
"$voxen" bench query --mapper --only occupancy > nomap.out 2> nomap.err || status=$?
[ $status -eq 2 ] && grep -q -- "--mapper requires --map" nomap.err || fail "--mapper without --map: status $status: $(cat nomap.err)"
status=0
"$voxen" bench query --points-file cast.txt --only occupancy > bad.out 2> bad.err || status=$?
[ $status -eq 1 ] && grep -q "cast.txt:1" bad.err || fail "bench query --points-file of rays: status $status: $(cat bad.err)"
status=0
"$voxen" bench query --points 5 --points-file points.txt > both.out 2> both.err || status=$?
[ $status -eq 2 ] || fail "--points with --points-file: status $status: $(cat both.err)"
exit 0
