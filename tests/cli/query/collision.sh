#!/usr/bin/env bash
# voxen query --kind sphere|path|box|nearest end to end, against answers worked out here on
# a map of two rays along x at 0.1 m (voxels x = 0..9 free, x = 10, metres [1.0, 1.1] x
# [0, 0.1]^2, occupied; the rest of region (0,0,0) unobserved; nothing at negative
# coordinates): each kind's columns and statuses, the --unknown policy, the GPU's output
# equal to the CPU twins', and bad rows named by file and line.
# Usage: collision.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" query-collision "$@"

near() {  # near ACTUAL EXPECTED WHAT
  awk -v a="$1" -v e="$2" 'BEGIN { d = a - e; if (d < 0) d = -d; exit !(a != "" && d < 1e-5) }' ||
    fail "$3: got '$1', expected $2"
}
field() {  # field FILE ROW COLUMN (row 1 is the header)
  awk -F, -v r="$2" -v c="$3" 'NR == r { print $c }' "$1"
}
both() {  # both NAME ARGS...: the query on the GPU into NAME.csv and on the CPU, equal
  "$voxen" query map.vxm "${@:2}" --quiet > "$1.csv" 2> "$1.err" || fail "$1: $(cat "$1.err")"
  no_validation "$1.err" "$1"
  "$voxen" query map.vxm "${@:2}" --quiet --cpu > "$1-cpu.csv" 2> "$1-cpu.err" || fail "$1 --cpu: $(cat "$1-cpu.err")"
  cmp -s "$1.csv" "$1-cpu.csv" || fail "$1: GPU and CPU differ: $(diff "$1.csv" "$1-cpu.csv")"
}

printf '1.05 0.05 0.05 0.05 0.05 0.05\n1.05 0.05 0.05 0.05 0.05 0.05\n' > rays.txt
cat > rays.ply <<'PLY'
ply
format ascii 1.0
element vertex 2
property double x
property double y
property double z
property double ox
property double oy
property double oz
end_header
1.05 0.05 0.05 0.05 0.05 0.05
1.05 0.05 0.05 0.05 0.05 0.05
PLY
"$voxen" map --cloud rays.ply --output map.vxm --resolution 0.1 --cpu > map.log 2>&1 || fail "map: $(cat map.log)"

# Spheres: 0.049 m from the occupied voxel's +x face with radius 0.05 (touches); inside a
# free voxel; in unobserved space of the map; outside the map.
printf '1.149 0.05 0.05\n0.55 0.05 0.05 \n0.55 0.55 0.05\n-5 -5 -5\n' > spheres.txt
both sphere --kind sphere --points spheres.txt --radius 0.05
[ "$(head -1 sphere.csv)" = "x,y,z,collides,status" ] || fail "sphere header: $(head -1 sphere.csv)"
[ "$(sed -n 2p sphere.csv)" = "1.149,0.05,0.05,1,observed" ] || fail "touching sphere: $(sed -n 2p sphere.csv)"
both sphere-small --kind sphere --points spheres.txt --radius 0.01
[ "$(sed -n 3p sphere-small.csv)" = "0.55,0.05,0.05,0,observed" ] || fail "free sphere: $(sed -n 3p sphere-small.csv)"
[ "$(sed -n 4p sphere-small.csv)" = "0.55,0.55,0.05,1,unobserved" ] || fail "unknown sphere: $(sed -n 4p sphere-small.csv)"
[ "$(sed -n 5p sphere-small.csv)" = "-5,-5,-5,1,outside_map" ] || fail "outside sphere: $(sed -n 5p sphere-small.csv)"
both sphere-free --kind sphere --points spheres.txt --radius 0.01 --unknown free
[ "$(sed -n 4p sphere-free.csv)" = "0.55,0.55,0.05,0,unobserved" ] || fail "--unknown free: $(sed -n 4p sphere-free.csv)"
[ "$(sed -n 5p sphere-free.csv)" = "-5,-5,-5,0,outside_map" ] || fail "--unknown free outside: $(sed -n 5p sphere-free.csv)"

# Paths: the second segment (x 0.55 -> 1.55) touches the voxel's face x = 1.0 with radius
# 0.04 at x = 0.96, t = 0.41; a path in unobserved space collides at once unless free.
printf '# x1 y1 z1 x2 y2 z2 ...\n0.05 0.05 0.05 0.55 0.05 0.05 1.55 0.05 0.05\n\n0.05 0.55 0.05 0.05 0.95 0.05\n' > paths.txt
both path --kind path --paths paths.txt --radius 0.04
[ "$(head -1 path.csv)" = "path,collides,segment,t,status" ] || fail "path header: $(head -1 path.csv)"
[ "$(field path.csv 2 1),$(field path.csv 2 2),$(field path.csv 2 3)" = "0,1,1" ] || fail "path 0: $(sed -n 2p path.csv)"
near "$(field path.csv 2 4)" 0.41 "path 0's t"
[ "$(field path.csv 2 5)" = observed ] || fail "path 0's status: $(sed -n 2p path.csv)"
[ "$(sed -n 3p path.csv)" = "1,1,0,0,unobserved" ] || fail "path 1: $(sed -n 3p path.csv)"
both path-free --kind path --paths paths.txt --radius 0.04 --unknown free
[ "$(sed -n 3p path-free.csv)" = "1,0,-1,-1,unobserved" ] || fail "path 1, --unknown free: $(sed -n 3p path-free.csv)"

# Boxes 0.5 x 0.1 x 0.1 m at (1.05, 0.25): along x they span y 0.2 .. 0.3 (unobserved
# voxels only); turned 90 degrees y 0 .. 0.5, over the occupied voxel.
printf '1.05 0.25 0.05 0\n1.05 0.25 0.05 1.5707963267948966\n' > poses.txt
both box --kind box --poses poses.txt --size 0.5 0.1 0.1 --unknown free
[ "$(head -1 box.csv)" = "x,y,z,yaw,collides,status" ] || fail "box header: $(head -1 box.csv)"
[ "$(sed -n 2p box.csv)" = "1.05,0.25,0.05,0,0,unobserved" ] || fail "box at 0: $(sed -n 2p box.csv)"
[ "$(sed -n 3p box.csv)" = "1.05,0.25,0.05,1.5707963267948966,1,observed" ] || fail "box at 90: $(sed -n 3p box.csv)"

# Nearest: 0.5 m to the voxel's centre (unobserved voxels are nearer: status unobserved);
# nothing within 0.5 m of (3, 3, 3) (in the map's region); outside the map.
printf '0.55 0.05 0.05\n3 3 3\n-5 -5 -5\n' > near.txt
both nearest --kind nearest --points near.txt --max-range 1
[ "$(head -1 nearest.csv)" = "x,y,z,distance,ox,oy,oz,status" ] || fail "nearest header: $(head -1 nearest.csv)"
near "$(field nearest.csv 2 4)" 0.5 "nearest distance"
near "$(field nearest.csv 2 5)" 1.05 "nearest obstacle x"
[ "$(field nearest.csv 2 8)" = unobserved ] || fail "nearest status: $(sed -n 2p nearest.csv)"
both nearest-short --kind nearest --points near.txt --max-range 0.5
[ "$(sed -n 3p nearest-short.csv)" = "3,3,3,-1,,,,out_of_range" ] || fail "out of range: $(sed -n 3p nearest-short.csv)"
[ "$(sed -n 4p nearest-short.csv)" = "-5,-5,-5,-1,,,,outside_map" ] || fail "outside: $(sed -n 4p nearest-short.csv)"
"$voxen" query map.vxm --kind nearest --points near.txt --json --quiet > nearest.json 2> nearest-json.err ||
  fail "nearest --json: $(cat nearest-json.err)"
grep -q '"distance":-1,"ox":null,"oy":null,"oz":null,"status":"outside_map"' nearest.json || fail "JSON: $(cat nearest.json)"

# Bad rows and flags, named.
printf '0 0 0 1 1 1\n1 2 3\n' > badpaths.txt
"$voxen" query map.vxm --kind path --paths badpaths.txt --radius 0.1 > /dev/null 2> badpaths.err && fail "a one-point path"
grep -q "badpaths.txt:2: 1 point(s): a path needs at least two" badpaths.err || fail "one-point path: $(cat badpaths.err)"
printf '0 0 0 1 1\n' > oddpath.txt
"$voxen" query map.vxm --kind path --paths oddpath.txt --radius 0.1 > /dev/null 2> oddpath.err && fail "5 numbers"
grep -q "oddpath.txt:1: 5 numbers, not a whole number of points" oddpath.err || fail "5 numbers: $(cat oddpath.err)"
printf '0 0 0 0\n1 2 3\n' > badposes.txt
"$voxen" query map.vxm --kind box --poses badposes.txt --size 1 1 1 > /dev/null 2> badposes.err && fail "a 3-number pose"
grep -q "badposes.txt:2: 3 numbers, expected 4 (x y z yaw)" badposes.err || fail "3-number pose: $(cat badposes.err)"
"$voxen" query map.vxm --kind sphere --points spheres.txt > /dev/null 2> norad.err && fail "sphere without --radius"
grep -q -- "--kind sphere needs --radius" norad.err || fail "no radius: $(cat norad.err)"
"$voxen" query map.vxm --kind sphere --points spheres.txt --radius 100 > /dev/null 2> bigrad.err && fail "radius 100 m"
grep -q -- "--radius: radius 100 m is more than 60 voxels" bigrad.err || fail "radius 100: $(cat bigrad.err)"
"$voxen" query map.vxm --kind occupancy --points spheres.txt --unknown free > /dev/null 2> unk.err && fail "--unknown on occupancy"
grep -q -- "--unknown has no effect with --kind occupancy" unk.err || fail "--unknown: $(cat unk.err)"
echo "$script_name: ok"
