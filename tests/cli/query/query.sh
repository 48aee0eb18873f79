#!/usr/bin/env bash
# voxen query end to end, against values worked out here: a map of two rays along x (ten
# misses and a hit each at 0.1 m), so every voxel's log-odds and every ray's first hit is
# known; clearance with unknown space free, so the one obstacle sets the distances; the
# GPU's output equal to the CPU reference's; bad rows named by file and line; the output
# rules. Usage: query.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" query "$@"

near() {  # near ACTUAL EXPECTED WHAT
  awk -v a="$1" -v e="$2" 'BEGIN { d = a - e; if (d < 0) d = -d; exit !(a != "" && d < 1e-5) }' ||
    fail "$3: got '$1', expected $2"
}
field() {  # field FILE ROW COLUMN (row 1 is the header)
  awk -F, -v r="$2" -v c="$3" 'NR == r { print $c }' "$1"
}

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

# Two misses on voxels x = 0..9 and two hits on x = 10 (OHM's model: hit 0.9, miss 0.45,
# log-odds clamped at 3.511).
miss2=$(awk 'BEGIN { printf "%.9g", 2 * log(0.45 / 0.55) }')
hit2=$(awk 'BEGIN { h = 2 * log(0.9 / 0.1); printf "%.9g", h < 3.511 ? h : 3.511 }')

printf '0.55 0.05 0.05\n# a comment\n\n1.05 0.05 0.05\n5 5 5\n' > points.txt
"$voxen" query map.vxm --points points.txt --kind occupancy > occ.csv 2> occ.err || fail "occupancy: $(cat occ.err)"
no_validation occ.err occupancy
[ "$(head -1 occ.csv)" = "x,y,z,value,class,status" ] || fail "occupancy header: $(head -1 occ.csv)"
[ "$(wc -l < occ.csv)" = 4 ] || fail "occupancy: one row per point expected: $(cat occ.csv)"
near "$(field occ.csv 2 4)" "$miss2" "free voxel's log-odds"
[ "$(field occ.csv 2 5)" = free ] || fail "class of the free voxel: $(sed -n 2p occ.csv)"
[ "$(field occ.csv 2 6)" = observed ] || fail "status of the free voxel: $(sed -n 2p occ.csv)"
near "$(field occ.csv 3 4)" "$hit2" "occupied voxel's log-odds"
[ "$(field occ.csv 3 5)" = occupied ] || fail "class of the hit voxel: $(sed -n 3p occ.csv)"
# Outside every region of the map: unknown, and the status says why (not merely unobserved).
[ "$(sed -n 4p occ.csv)" = "5,5,5,,unknown,outside_map" ] || fail "unknown point: $(sed -n 4p occ.csv)"
grep -q "^query .* points/s" occ.err || fail "no progress line with a rate: $(cat occ.err)"
"$voxen" query map.vxm --points points.txt --kind occupancy --quiet > /dev/null 2> quiet.err
[ ! -s quiet.err ] || fail "--quiet still wrote: $(cat quiet.err)"
"$voxen" query map.vxm --points points.txt --kind occupancy --cpu > occ-cpu.csv 2> occ-cpu.err || fail "occupancy --cpu: $(cat occ-cpu.csv)"
cmp -s occ.csv occ-cpu.csv || fail "GPU and CPU occupancy differ: $(diff occ.csv occ-cpu.csv)"

# The same points from a PLY, as JSON.
printf 'ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nend_header\n1.05 0.05 0.05\n5 5 5\n' > points.ply
"$voxen" query map.vxm --points points.ply --kind occupancy --json > occ.json 2> occ-json.err || fail "json: $(cat occ-json.err)"
grep -q '"class":"occupied"' occ.json || fail "JSON occupied row: $(cat occ.json)"
grep -q '"value":null,"class":"unknown","status":"outside_map"' occ.json || fail "JSON unknown row: $(cat occ.json)"
[ "$(grep -c '^{' occ.json)" = 2 ] || fail "JSON: two objects expected: $(cat occ.json)"

# Rays: along x the hit voxel is entered at x = 1.0 (0.95 m on); up y nothing is hit unless
# unknown space blocks (entered at y = 0.1).
printf '0.05 0.05 0.05 2 0 0\n0.05 0.05 0.05 0 3 0\n1.05 0.05 0.05 0 0 1\n' > rays.txt
"$voxen" query map.vxm --rays rays.txt --kind raycast > rays.csv 2> rays.err || fail "raycast: $(cat rays.err)"
[ "$(head -1 rays.csv)" = "hit,distance,px,py,pz,vx,vy,vz,status" ] || fail "raycast header: $(head -1 rays.csv)"
[ "$(field rays.csv 2 1)" = 1 ] || fail "ray along x: $(sed -n 2p rays.csv)"
near "$(field rays.csv 2 2)" 0.95 "distance along x"
near "$(field rays.csv 2 3)" 1.0 "hit point x"
[ "$(cut -d, -f6- rays.csv | sed -n 2p)" = "10,0,0,observed" ] || fail "hit voxel: $(sed -n 2p rays.csv)"
[ "$(sed -n 3p rays.csv)" = "0,,,,,,,,out_of_range" ] || fail "ray into unknown space: $(sed -n 3p rays.csv)"
[ "$(sed -n 4p rays.csv)" = "1,0,1.05,0.05,0.05,10,0,0,observed" ] || fail "ray starting in the obstacle: $(sed -n 4p rays.csv)"
"$voxen" query map.vxm --rays rays.txt --kind raycast --unknown-blocks --max-range 2 > rays-u.csv 2> rays-u.err || fail "$(cat rays-u.csv)"
near "$(field rays-u.csv 3 2)" 0.05 "unknown blocks: distance"
[ "$(cut -d, -f6- rays-u.csv | sed -n 3p)" = "0,1,0,unobserved" ] || fail "unknown blocks: voxel $(sed -n 3p rays-u.csv)"
"$voxen" query map.vxm --rays rays.txt --kind raycast --unknown-blocks --max-range 2 --cpu > rays-u-cpu.csv 2> rays-u-cpu.err
cmp -s rays-u.csv rays-u-cpu.csv || fail "GPU and CPU ray casts differ: $(diff rays-u.csv rays-u-cpu.csv)"
"$voxen" query map.vxm --rays rays.txt --kind raycast --max-range 0.5 > short.csv 2> short.err
[ "$(sed -n 2p short.csv)" = "0,,,,,,,,out_of_range" ] || fail "ray shorter than the way to the obstacle: $(sed -n 2p short.csv)"

# The same rays from a PLY (ox oy oz dx dy dz), as JSON.
printf 'ply\nformat ascii 1.0\nelement vertex 2\nproperty double ox\nproperty double oy\nproperty double oz\nproperty double dx\nproperty double dy\nproperty double dz\nend_header\n0.05 0.05 0.05 2 0 0\n0.05 0.05 0.05 0 3 0\n' > rays-in.ply
"$voxen" query map.vxm --rays rays-in.ply --kind raycast --json > rays.json 2> rays-json.err || fail "rays PLY: $(cat rays-json.err)"
grep -q '{"hit":1,"distance":0.9[0-9]*,"px":[01][.0-9]*,"py":0.05,"pz":0.05,"vx":10,"vy":0,"vz":0,"status":"observed"}' rays.json || fail "rays PLY hit: $(cat rays.json)"
grep -q '{"hit":0,"distance":null,"px":null,"py":null,"pz":null,"vx":null,"vy":null,"vz":null,"status":"out_of_range"}' rays.json ||
  fail "rays PLY miss: $(cat rays.json)"

# Clearance with unknown space free: the only obstacle is voxel (10,0,0), so a voxel's
# clearance is 0.1 m times its distance in voxels from there; the expected samples are the
# trilinear blend of those values between the voxel centres around each point (and its
# partial derivatives), worked out here in awk.
"$voxen" clearance map.vxm --output clear.vxm --range 1 --unknown-free --quiet > clear.log 2>&1 || fail "clearance: $(cat clear.log)"
printf '0.56 0.1 0.1\n0.63 0.12 0.17\n' > cpoints.txt
"$voxen" query clear.vxm --points cpoints.txt --kind clearance --output clear.csv 2> clear.err || fail "clearance query: $(cat clear.err)"
[ "$(head -1 clear.csv)" = "x,y,z,clearance,gx,gy,gz,status" ] || fail "clearance header: $(head -1 clear.csv)"
expected() {  # expected X Y Z COLUMN (4: clearance, 5-7: gradient)
  awk -v px="$1" -v py="$2" -v pz="$3" -v col="$4" '
    function c(i, j, k) { return sqrt((10 - i) ^ 2 + j ^ 2 + k ^ 2) * 0.1 }
    BEGIN {
      ux = px / 0.1 - 0.5; uy = py / 0.1 - 0.5; uz = pz / 0.1 - 0.5
      i = int(ux); j = int(uy); k = int(uz); fx = ux - i; fy = uy - j; fz = uz - k
      v = 0; gx = 0; gy = 0; gz = 0
      for (a = 0; a < 2; a++) for (b = 0; b < 2; b++) for (d = 0; d < 2; d++) {
        wx = a ? fx : 1 - fx; wy = b ? fy : 1 - fy; wz = d ? fz : 1 - fz; cv = c(i + a, j + b, k + d)
        v += wx * wy * wz * cv
        gx += (a ? 1 : -1) * wy * wz * cv; gy += wx * (b ? 1 : -1) * wz * cv; gz += wx * wy * (d ? 1 : -1) * cv
      }
      out[4] = v; out[5] = gx / 0.1; out[6] = gy / 0.1; out[7] = gz / 0.1
      printf "%.9g", out[col]
    }'
}
row=2
while read -r x y z; do
  for col in 4 5 6 7; do
    near "$(field clear.csv $row $col)" "$(expected "$x" "$y" "$z" $col)" "clearance at $x $y $z, column $col"
  done
  [ "$(field clear.csv $row 8)" = observed ] || fail "clearance status at $x $y $z: $(sed -n ${row}p clear.csv)"
  row=$((row + 1))
done < cpoints.txt
# Without a value: no obstacle within the layer's 1 m at 2.5 m from it (out_of_range), and a
# point whose cell reaches a region the map does not hold (outside_map): -1, the gradient
# undefined (empty cells).
printf '3.0 0.1 0.1\n-0.02 0.1 0.1\n' > far.txt
"$voxen" query clear.vxm --points far.txt --kind clearance > far.csv 2> far.err || fail "far clearance: $(cat far.err)"
[ "$(sed -n 2p far.csv)" = "3,0.1,0.1,-1,,,,out_of_range" ] || fail "no obstacle in range: $(sed -n 2p far.csv)"
[ "$(sed -n 3p far.csv)" = "-0.02,0.1,0.1,-1,,,,outside_map" ] || fail "cell outside the map: $(sed -n 3p far.csv)"
"$voxen" query clear.vxm --points cpoints.txt --kind clearance --cpu > clear-cpu.csv 2> clear-cpu.err
cmp -s clear.csv clear-cpu.csv || fail "GPU and CPU clearance differ: $(diff clear.csv clear-cpu.csv)"
"$voxen" query map.vxm --points cpoints.txt --kind clearance > /dev/null 2> noclear.err && fail "clearance of a map without the layer"
grep -q "no clearance layer" noclear.err || fail "no clearance layer: $(cat noclear.err)"

# Bad input: named by file and line (exit 1); flags that do not fit (exit 2).
printf '1 2 3\n4 five 6\n' > bad.txt
set +e
"$voxen" query map.vxm --points bad.txt --kind occupancy > /dev/null 2> bad.err; status=$?
set -e
[ $status = 1 ] || fail "bad number: exit $status"
grep -q "bad.txt:2: 'five' is not a finite number" bad.err || fail "bad number: $(cat bad.err)"
printf '1 2 3\n4 5\n' > short.txt
"$voxen" query map.vxm --points short.txt --kind occupancy > /dev/null 2> short.err && fail "short row accepted"
grep -q "short.txt:2: 2 numbers, expected 3" short.err || fail "short row: $(cat short.err)"
printf '0 0 0 1 0 0\n\n0 0 0 0 0 0\n' > zero.txt
"$voxen" query map.vxm --rays zero.txt --kind raycast > /dev/null 2> zero.err && fail "zero direction accepted"
grep -q "zero.txt:3: ray direction is zero" zero.err || fail "zero direction: $(cat zero.err)"
printf 'nan 0 0\n' > nan.txt
"$voxen" query map.vxm --points nan.txt --kind occupancy > /dev/null 2> nan.err && fail "NaN point accepted"
grep -q "nan.txt:1:" nan.err || fail "NaN point: $(cat nan.err)"
for args in "--points points.txt --kind raycast" "--rays rays.txt --kind occupancy" "--points points.txt --kind occupancy --max-range 3" \
            "--rays rays.txt --kind raycast --max-range nan" "--points points.txt --kind occupancy --csv --json" \
            "--points points.txt --kind volume"; do
  set +e
  "$voxen" query map.vxm $args > /dev/null 2> usage.err; status=$?
  set -e
  [ $status = 2 ] || fail "'$args': exit $status, expected 2: $(cat usage.err)"
done

# A failed run leaves an existing output as it was; the output may not be an input.
echo keep > out.csv
"$voxen" query map.vxm --points bad.txt --kind occupancy --output out.csv 2> /dev/null && fail "bad input succeeded"
[ "$(cat out.csv)" = keep ] || fail "a failed run changed its output"
"$voxen" query map.vxm --points points.txt --kind occupancy --output points.txt 2> same.err && fail "output over its input"
grep -q -- "--output" same.err || fail "output over its input: $(cat same.err)"
echo ok
