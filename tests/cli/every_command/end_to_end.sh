#!/usr/bin/env bash
# The voxen command line end to end, as the README uses it: generate a small lidar run,
# map it on the GPU and with the CPU reference, inspect and export the map, and check that
# bad input fails with a message naming the file instead of crashing; every command has
# --help, and an unknown flag or a bad value is a usage error that names the flag.
#   end_to_end.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
voxen=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cd "$work"

fail() { echo "end_to_end: $*" >&2; exit 1; }
json_number() {  # json_number KEY FILE
  grep -o "\"$1\":[0-9.e+-]*" "$2" | head -1 | cut -d: -f2
}

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 256 --scans 3 --seed 2 > generate.log
# --device gpu: the run is small enough for --device auto to take the CPU reference.
"$voxen" map --cloud run.ply --trajectory run.txt --output gpu.vxm --json --quiet --device gpu > gpu.json 2> gpu.err
# ctest runs this with VOXEN_VALIDATION=1: any validation message is a failure.
if grep -qi "validation" gpu.err; then fail "validation messages: $(cat gpu.err)"; fi
"$voxen" map --cloud run.ply --trajectory run.txt --output cpu.vxm --json --quiet --cpu > cpu.json
for key in rays voxel_updates dropped_updates cas_retries region_chunks occupied_voxels free_voxels wall_s rays_per_s; do
  [ -n "$(json_number $key gpu.json)" ] || fail "summary lacks $key: $(cat gpu.json)"
done
[ "$(json_number rays gpu.json)" = "$(json_number rays cpu.json)" ] || fail "GPU and CPU mapped different ray counts"
[ "$(json_number rays gpu.json)" -gt 10000 ] || fail "too few rays mapped"
[ "$(json_number dropped_updates gpu.json)" = 0 ] || fail "updates were dropped"
[ "$(json_number region_chunks gpu.json)" -ge 1 ] || fail "no region chunk reported: $(cat gpu.json)"
# The default order is sequential on both paths: the same map, whatever the batch size.
for key in occupied_voxels free_voxels voxel_updates; do
  [ "$(json_number $key gpu.json)" = "$(json_number $key cpu.json)" ] ||
    fail "GPU and CPU (sequential order) differ in $key: $(cat gpu.json) $(cat cpu.json)"
done
"$voxen" map --cloud run.ply --trajectory run.txt --output small.vxm --json --quiet --device gpu --batch-size 4096 > small.json
for key in occupied_voxels free_voxels voxel_updates; do
  [ "$(json_number $key small.json)" = "$(json_number $key gpu.json)" ] || fail "--batch-size 4096 changed $key"
done
# The two-phase order: GPU and CPU within 0.5 % of occupied voxels (their batches differ).
"$voxen" map --cloud run.ply --trajectory run.txt --output two.vxm --json --quiet --device gpu --update-order two-phase > two.json
"$voxen" map --cloud run.ply --trajectory run.txt --output cpu-two.vxm --json --quiet --cpu --update-order two-phase > cpu-two.json
gpu_occ=$(json_number occupied_voxels two.json)
cpu_occ=$(json_number occupied_voxels cpu-two.json)
diff=$(( gpu_occ > cpu_occ ? gpu_occ - cpu_occ : cpu_occ - gpu_occ ))
[ $(( diff * 200 )) -le "$cpu_occ" ] || fail "two-phase occupied voxels differ by more than 0.5%: GPU $gpu_occ, CPU $cpu_occ"
[ "$(json_number voxel_updates two.json)" = "$(json_number voxel_updates gpu.json)" ] || fail "two-phase: other update count"
# The one-pass order (OHM's GPU order): every update applied (the sequential count), occupied
# voxels within 1 % of the sequential map; refused where it would not run as asked.
"$voxen" map --cloud run.ply --trajectory run.txt --output one.vxm --json --quiet --update-order one-pass > one.json
grep -q '"update_order":"one-pass"' one.json || fail "one-pass summary: update_order: $(cat one.json)"
[ "$(json_number voxel_updates one.json)" = "$(json_number voxel_updates gpu.json)" ] || fail "one-pass: other update count"
one_occ=$(json_number occupied_voxels one.json)
seq_occ=$(json_number occupied_voxels gpu.json)
diff=$(( one_occ > seq_occ ? one_occ - seq_occ : seq_occ - one_occ ))
[ $(( diff * 100 )) -le "$seq_occ" ] || fail "one-pass occupied voxels differ by more than 1%: $one_occ, sequential $seq_occ"
if "$voxen" map --cloud run.ply --trajectory run.txt --output x.vxm --quiet --cpu --update-order one-pass 2> one-cpu.err; then
  fail "--cpu --update-order one-pass was accepted"
fi
grep -q -- "--update-order one-pass has no effect with --cpu" one-cpu.err || fail "--cpu one-pass: $(cat one-cpu.err)"
if "$voxen" map --cloud run.ply --trajectory run.txt --output x.vxm --quiet --ndt om --update-order one-pass 2> one-ndt.err; then
  fail "--ndt om --update-order one-pass was accepted"
fi
grep -q -- "--ndt with --update-order one-pass" one-ndt.err || fail "--ndt one-pass: $(cat one-ndt.err)"
# --cpu-sequential is --cpu --update-order sequential; the summaries say which batch size and order ran.
"$voxen" map --cloud run.ply --trajectory run.txt --output seq.vxm --json --quiet --cpu-sequential --batch-size 5000 > seq.json
[ "$(json_number rays seq.json)" = "$(json_number rays cpu.json)" ] || fail "--cpu-sequential mapped another ray count"
[ "$(json_number voxel_updates seq.json)" = "$(json_number voxel_updates cpu.json)" ] || fail "--cpu-sequential: other update count"
[ "$(json_number occupied_voxels seq.json)" = "$(json_number occupied_voxels cpu.json)" ] || fail "--cpu-sequential: another map"
[ "$(json_number batch_size gpu.json)" = 131072 ] || fail "GPU summary: batch_size: $(cat gpu.json)"
[ "$(json_number batch_size small.json)" = 4096 ] || fail "GPU summary: batch_size: $(cat small.json)"
grep -q '"update_order":"sequential"' seq.json || fail "sequential summary: update_order: $(cat seq.json)"
grep -q '"update_order":"sequential"' gpu.json || fail "GPU summary: update_order: $(cat gpu.json)"
grep -q '"update_order":"two-phase"' cpu-two.json || fail "CPU summary: update_order: $(cat cpu-two.json)"
if "$voxen" map --cloud run.ply --trajectory run.txt --output seq.vxm --quiet --cpu --cpu-sequential 2> both.err; then
  fail "--cpu with --cpu-sequential was accepted"
fi
if "$voxen" map --cloud run.ply --trajectory run.txt --output seq.vxm --quiet --update-order random 2> order.err; then
  fail "--update-order random was accepted"
fi
grep -q -- "--update-order" order.err || fail "--update-order random: the error does not name the flag: $(cat order.err)"
# bench map compares the GPU map with the sequential order: its Jaccard index is in the summary
# (1 in the sequential order, below 1 in the two-phase order on this run).
"$voxen" bench map --rays 65536 --resolution 0.25 --repeat 1 --json > bench.json
for key in class_agreement occupied_jaccard_vs_sequential occupied_union_vs_sequential sequential_rays_per_s batch_size; do
  [ -n "$(json_number $key bench.json)" ] || fail "bench map summary lacks $key: $(cat bench.json)"
done
awk -v j="$(json_number occupied_jaccard_vs_sequential bench.json)" 'BEGIN { exit !(j == 1) }' ||
  fail "bench map: sequential order, Jaccard index not 1: $(cat bench.json)"
# The host thread's CPU time per ray, by stage (issue 14), and the GPU pass times: positive
# numbers, in the summary and in the run.
for key in host_cpu_ns_per_ray host_prepare_ns_per_ray host_discovery_ns_per_ray host_residency_ns_per_ray \
  host_upload_ns_per_ray host_readback_ns_per_ray gpu_pass_total_ms; do
  value=$(json_number $key bench.json)
  awk -v v="$value" 'BEGIN { exit !(v != "" && v + 0 > 0) }' || fail "bench map: $key is not a positive number: $(cat bench.json)"
done
[ "$(grep -o '"host_cpu_ns_per_ray"' bench.json | wc -l)" -eq 2 ] || fail "bench map: host_cpu_ns_per_ray not in summary and run: $(cat bench.json)"
grep -q '"gpu_pass_ms":{"' bench.json || fail "bench map: gpu_pass_ms lists no pass: $(cat bench.json)"
# voxen map --profile: the same split plus file reading and origin interpolation per ray;
# with --json as fields of the summary, stdout staying one JSON line.
"$voxen" map --cloud run.ply --trajectory run.txt --output profiled.vxm --json --quiet --device gpu --profile > profiled.json
[ "$(wc -l < profiled.json)" -eq 1 ] || fail "map --profile --json printed more than the summary: $(cat profiled.json)"
for key in host_read_ns_per_ray host_origin_ns_per_ray host_cpu_ns_per_ray host_prepare_ns_per_ray \
  host_discovery_ns_per_ray host_residency_ns_per_ray host_upload_ns_per_ray host_readback_ns_per_ray; do
  value=$(json_number $key profiled.json)
  awk -v v="$value" 'BEGIN { exit !(v != "" && v + 0 > 0) }' || fail "map --profile: $key is not a positive number: $(cat profiled.json)"
done
"$voxen" map --cloud run.ply --trajectory run.txt --output profiled.vxm --quiet --device gpu --profile > profiled.log
grep -q "file reading .*, origin interpolation" profiled.log || fail "map --profile: no input times: $(cat profiled.log)"
grep -q "integration: prepare .* ns per ray" profiled.log || fail "map --profile: no host stages: $(cat profiled.log)"
"$voxen" bench map --rays 65536 --resolution 0.25 --repeat 1 --update-order two-phase --json > bench-two.json
awk -v j="$(json_number occupied_jaccard_vs_sequential bench-two.json)" 'BEGIN { exit !(j > 0.5 && j < 1) }' ||
  fail "bench map: two-phase order, implausible Jaccard index: $(cat bench-two.json)"
# A fixed sensor (--speed 0) with optional layers: the GPU map equals the CPU reference's,
# no update is dropped, and the compare-and-swap retries are reported; a layer that does not
# exist is refused by name.
"$voxen" bench map --rays 65536 --resolution 0.2 --repeat 1 --speed 0 --layer voxel_mean --layer traversal --json > bench-fixed.json
grep -q '"layers":\["voxel_mean","traversal"\]' bench-fixed.json || fail "bench map --layer: layers not reported: $(cat bench-fixed.json)"
grep -q '"speed":0' bench-fixed.json || fail "bench map --speed 0: speed not reported: $(cat bench-fixed.json)"
# The layers are pipeline variants: the warm-up runs them too, so none compiles while timing.
[ "$(json_number pipelines_first_used_while_timing bench-fixed.json)" = 0 ] ||
  fail "bench map --layer: pipelines compiled while timing: $(cat bench-fixed.json)"
[ "$(json_number dropped_updates bench-fixed.json)" = 0 ] || fail "bench map --speed 0: dropped updates: $(cat bench-fixed.json)"
[ -n "$(json_number cas_retries_per_update bench-fixed.json)" ] || fail "bench map: no cas_retries_per_update: $(cat bench-fixed.json)"
awk -v a="$(json_number class_agreement bench-fixed.json)" 'BEGIN { exit !(a == 1) }' ||
  fail "bench map --speed 0 with layers: GPU and CPU maps differ: $(cat bench-fixed.json)"
status=0
"$voxen" bench map --layer colour > bad-layer.out 2> bad-layer.err || status=$?
[ $status -eq 2 ] && grep -q -- "--layer" bad-layer.err || fail "bench map --layer colour: status $status: $(cat bad-layer.err)"

# Model and layer flags reach the map file; a maximum range clips rays.
"$voxen" map --cloud run.ply --trajectory run.txt --output layers.vxm --json --quiet --model octomap --clamp -1.5 3 \
  --voxel-mean --hit-miss --max-range 5 > layers.json
[ "$(json_number clipped_rays layers.json)" -gt 0 ] || fail "--max-range 5 clipped no ray: $(cat layers.json)"
"$voxen" info layers.vxm > layers-info.log
grep -q "voxel_mean" layers-info.log || fail "layers missing from the map file: $(cat layers-info.log)"
grep -q "0.7" layers-info.log || fail "octomap hit probability missing from the map file: $(cat layers-info.log)"
grep -q "\-1.5" layers-info.log || fail "clamp missing from the map file: $(cat layers-info.log)"
# The layer table names each layer the map holds, in text and in JSON.
grep -q "^  hit_miss " layers-info.log || fail "the layer table does not list hit_miss: $(cat layers-info.log)"
"$voxen" info layers.vxm --json > layers-info.json
grep -q '"name":"hit_miss"' layers-info.json || fail "layer_table lacks hit_miss: $(cat layers-info.json)"
set +e
"$voxen" map --cloud run.ply --trajectory run.txt --output bad.vxm --hit 0.3 2> badhit.err
status=$?
set -e
[ $status -eq 2 ] || fail "--hit 0.3: exit status $status (want 2, a usage error)"
grep -q -- "--hit" badhit.err || fail "--hit 0.3: the error does not name the flag: $(cat badhit.err)"

# Every command explains itself: `voxen --help` lists it, `voxen <command> --help` exits 0
# and lists one of its flags. An unknown flag and a bad value are usage errors (exit 2) whose
# message names the flag; they are caught before any work starts. Table: command|flag|bad value.
"$voxen" --help > help.log || fail "voxen --help: exit status $?"
while IFS='|' read -r command flag bad_value; do
  read -r -a words <<< "$command"  # "bench map" is two words
  grep -q "^  ${words[0]} " help.log || fail "voxen --help does not list '${words[0]}': $(cat help.log)"
  "$voxen" "${words[@]}" --help > command-help.log || fail "voxen $command --help: exit status $?"
  grep -q -- "$flag" command-help.log || fail "voxen $command --help does not list $flag: $(cat command-help.log)"
  set +e
  "$voxen" "${words[@]}" --no-such-flag > /dev/null 2> unknown-flag.err
  status=$?
  set -e
  [ $status -eq 2 ] || fail "voxen $command --no-such-flag: exit status $status (want 2)"
  grep -q -- "--no-such-flag" unknown-flag.err || fail "voxen $command --no-such-flag: the error does not name it: $(cat unknown-flag.err)"
  [ -n "$bad_value" ] || continue
  set +e
  "$voxen" "${words[@]}" "$flag" "$bad_value" > /dev/null 2> bad-value.err
  status=$?
  set -e
  [ $status -eq 2 ] || fail "voxen $command $flag $bad_value: exit status $status (want 2): $(cat bad-value.err)"
  grep -q -- "$flag" bad-value.err || fail "voxen $command $flag $bad_value: the error does not name the flag: $(cat bad-value.err)"
done << 'COMMANDS'
generate|--rings|0
map|--resolution|-1
info|--verify|
export|--scale|0
import-octomap|--region-size|12px
render|--width|5
selftest|--device|
bench core|--mb|0
bench map|--repeat|many
bench paint|--frames|0
COMMANDS

"$voxen" info gpu.vxm > info.log
grep -qi "region" info.log || fail "voxen info MAP.vxm printed no regions: $(cat info.log)"
# Without --verify, info says that it did not read the voxels; with it, that it checked them.
grep -q "^verified: *no: only the header" info.log || fail "voxen info does not say it did not verify: $(cat info.log)"
"$voxen" info gpu.vxm --json | grep -q '"verified":false' || fail "voxen info --json lacks \"verified\":false"
"$voxen" info gpu.vxm --verify | grep -q "^verified: *every region decompressed" || fail "voxen info --verify did not verify"
"$voxen" export gpu.vxm --slice-png slice.png --z 1.0 > /dev/null
head -c 8 slice.png | od -An -c | grep -q "P   N   G" || fail "slice.png is not a PNG"
"$voxen" export gpu.vxm --occupied-ply occupied.ply > /dev/null
head -1 occupied.ply | grep -q "^ply" || fail "occupied.ply is not a PLY"
if "$voxen" help | grep -q "import-octomap"; then
  "$voxen" export gpu.vxm --octomap map.bt > /dev/null
  "$voxen" import-octomap map.bt --output back.vxm > /dev/null
  "$voxen" info back.vxm > /dev/null
fi

# The map drawn by the painter's renderer: a PNG of the asked size showing geometry.
"$voxen" render gpu.vxm --output render.png --width 320 --height 200 --json > render.json
head -c 8 render.png | od -An -c | grep -q "P   N   G" || fail "render.png is not a PNG"
# PNG width and height: bytes 16-23, big-endian.
size=$(od -An -tu1 -j16 -N8 render.png | tr -s ' ' | sed 's/^ //')
[ "$size" = "0 0 1 64 0 0 0 200" ] || fail "render.png is not 320 x 200: header bytes $size"
[ "$(json_number triangles render.json)" -gt 1000 ] || fail "render meshed too few triangles: $(cat render.json)"
[ "$(json_number drawn_triangles render.json)" -gt 100 ] || fail "render drew too few triangles: $(cat render.json)"
"$voxen" render gpu.vxm --output render-crop.png --width 160 --height 100 --crop -50,-50,0,50,50,1.2 \
  --camera 0,-12,8,0,0,0 > /dev/null || fail "render with --crop and --camera failed"
# Straight down and straight up (views along the camera's up vector) draw the map; a view
# that looks away draws nothing and says so (the picture is still written, exit status 0).
for camera in 15,6,40,15,6,0 15,6,-40,15,6,0; do
  "$voxen" render gpu.vxm --output render-pole.png --width 160 --height 100 --camera $camera --json \
    > pole.json 2> pole.err || fail "render --camera $camera: $(cat pole.err)"
  [ "$(json_number drawn_triangles pole.json)" -gt 100 ] || fail "render --camera $camera drew nothing: $(cat pole.json)"
  ! grep -q "nothing drawn" pole.err || fail "render --camera $camera warned: $(cat pole.err)"
done
"$voxen" render gpu.vxm --output render-away.png --width 160 --height 100 --camera 15,6,40,15,6,80 \
  > away.txt 2> away.err || fail "render looking away: exit status $?: $(cat away.err)"
grep -q "warning: nothing drawn: none of the .* triangles .* in view of the camera at (15, 6, 40)" away.err ||
  fail "a render that draws nothing does not say so: $(cat away.txt away.err)"
set +e
"$voxen" render gpu.vxm --output bad.png --camera 1,2,3 2> badcamera.err
status=$?
"$voxen" render missing.vxm --output bad.png 2> missing.err
missing_status=$?
set -e
[ $status -eq 2 ] || fail "render --camera with 3 numbers: exit status $status (want 2)"
grep -q -- "--camera" badcamera.err || fail "render --camera: the error does not name the flag: $(cat badcamera.err)"
[ $missing_status -eq 1 ] || fail "render of a missing map: exit status $missing_status (want 1)"
grep -q "missing.vxm" missing.err || fail "render of a missing map: the error does not name the file: $(cat missing.err)"

# Bad input: a clear error that names the file, a non-zero exit, never a crash.
head -c 2000 run.ply > truncated.ply
set +e
"$voxen" map --cloud truncated.ply --trajectory run.txt --output bad.vxm --quiet 2> truncated.err
status=$?
set -e
[ $status -eq 1 ] || fail "truncated PLY: exit status $status (want 1): $(cat truncated.err)"
grep -q "truncated.ply" truncated.err || fail "truncated PLY: error does not name the file: $(cat truncated.err)"
set +e
"$voxen" map --cloud run.ply --output bad.vxm --quiet 2> notraj.err
status=$?
set -e
[ $status -ne 0 ] || fail "a cloud without origins and no trajectory was accepted"
printf 'VOXENMAP garbage' > corrupt.vxm
set +e
"$voxen" info corrupt.vxm 2> corrupt.err
status=$?
set -e
[ $status -eq 1 ] || fail "corrupt map: exit status $status (want 1)"
grep -q "corrupt.vxm" corrupt.err || fail "corrupt map: error does not name the file: $(cat corrupt.err)"
# Numbers that would overflow a voxel index or mean nothing are usage errors naming the flag,
# never a false result ("no occupied voxels inside the crop box").
while IFS='|' read -r flag value rest; do
  read -r -a words <<< "$rest"
  set +e
  "$voxen" "${words[@]}" "$flag" "$value" > /dev/null 2> range.err
  status=$?
  set -e
  [ $status -eq 2 ] || fail "voxen ${words[*]} $flag $value: exit status $status (want 2): $(cat range.err)"
  grep -q -- "$flag" range.err || fail "voxen ${words[*]} $flag $value: the error does not name the flag: $(cat range.err)"
done << 'RANGES'
--crop|0,0,0,1e30,1,1|render gpu.vxm --output range.png
--crop|0,0,0,nan,1,1|render gpu.vxm --output range.png
--camera|0,-1e30,8,0,0,0|render gpu.vxm --output range.png
--z|nan|export gpu.vxm --slice-png range.png
--z|inf|export gpu.vxm --slice-png range.png
--z|1e12|export gpu.vxm --slice-png range.png
--z|-1e12|export gpu.vxm --slice-png range.png
--z-voxel|3000000000|export gpu.vxm --slice-png range.png
--max-range|1e300|map --cloud run.ply --trajectory run.txt --output range.vxm
--resolution|inf|map --cloud run.ply --trajectory run.txt --output range.vxm
--batch-size|99999999999999999999|map --cloud run.ply --trajectory run.txt --output range.vxm
--start-time|1e300|generate --cloud range.ply
--rays|4294967296|bench map
RANGES

# With --json an error is JSON on stdout too, naming the file.
is_json() {  # is_json FILE: parses as JSON (python3 when there is one, else the shape)
  if command -v python3 > /dev/null 2>&1; then python3 -c 'import json,sys; json.load(sys.stdin)' < "$1"
  else grep -q '^{"error":' "$1"; fi
}
set +e
"$voxen" info missing.vxm --json > missing-json.out 2> /dev/null
status=$?
"$voxen" export gpu.vxm --slice-png range.png --z nan --json > usage-json.out 2> /dev/null
usage_status=$?
set -e
[ $status -eq 1 ] || fail "info missing.vxm --json: exit status $status (want 1)"
is_json missing-json.out || fail "info missing.vxm --json: the error is not JSON: $(cat missing-json.out)"
grep -q '"error":' missing-json.out || fail "--json error lacks \"error\": $(cat missing-json.out)"
grep -q '"file":"missing.vxm"' missing-json.out || fail "--json error lacks the file: $(cat missing-json.out)"
[ $usage_status -eq 2 ] || fail "export --z nan --json: exit status $usage_status (want 2)"
is_json usage-json.out || fail "export --z nan --json: the usage error is not JSON: $(cat usage-json.out)"
grep -q -- '--z' usage-json.out || fail "export --z nan --json: the error does not name the flag: $(cat usage-json.out)"
# A PLY holding more than its header declares: the JSON error names the file and the line.
printf 'ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nproperty float time\nend_header\n1 2 3 0.1\n2 3 4 0.2\n' > extra.ply
set +e
"$voxen" map --cloud extra.ply --trajectory run.txt --output bad.vxm --json > extra-json.out 2> /dev/null
status=$?
set -e
[ $status -eq 1 ] || fail "a PLY with undeclared vertices: exit status $status (want 1): $(cat extra-json.out)"
is_json extra-json.out || fail "a PLY with undeclared vertices: the --json error is not JSON: $(cat extra-json.out)"
grep -q '"file":"extra.ply","line":10' extra-json.out || fail "the --json error lacks the file and line: $(cat extra-json.out)"

# A directory, a pipe or a path through a regular file is not "no such file".
mkdir -p cloud-dir.ply
rm -f cloud-pipe.ply
mkfifo cloud-pipe.ply
while IFS='|' read -r cloud want; do
  set +e
  "$voxen" map --cloud "$cloud" --trajectory run.txt --output bad.vxm --quiet 2> input.err
  status=$?
  set -e
  [ $status -eq 1 ] || fail "map --cloud $cloud: exit status $status (want 1): $(cat input.err)"
  grep -q -- "$cloud" input.err || fail "map --cloud $cloud: the error does not name the file: $(cat input.err)"
  grep -qi -- "$want" input.err || fail "map --cloud $cloud: the error does not say '$want': $(cat input.err)"
done << 'INPUTS'
cloud-dir.ply|is a directory
cloud-pipe.ply|is a pipe
run.ply/inside.ply|not a directory
absent.ply|no such file
INPUTS
if [ "$(id -u)" != 0 ]; then  # root reads anything: permissions cannot be provoked
  cp run.txt locked.txt
  chmod 000 locked.txt
  set +e
  "$voxen" map --cloud run.ply --trajectory locked.txt --output bad.vxm --quiet 2> locked.err
  set -e
  grep -qi "permission denied" locked.err || fail "unreadable trajectory: the error does not say why: $(cat locked.err)"
fi

# A run that maps no ray (every point non-finite) fails, saying so, unless --allow-empty asks
# for the empty map.
{
  printf 'ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\n'
  printf 'property float ox\nproperty float oy\nproperty float oz\nend_header\nnan 0 0 0 0 0\n1 inf 0 0 0 0\n'
} > nothing.ply
set +e
"$voxen" map --cloud nothing.ply --output empty.vxm --quiet --cpu > /dev/null 2> empty.err
status=$?
set -e
[ $status -eq 1 ] || fail "a map of 0 rays: exit status $status (want 1): $(cat empty.err)"
grep -q "no voxel was updated: 2 points read, 0 rays; 2 points skipped for NaN/inf values" empty.err || fail "a map of 0 rays: the error does not say so: $(cat empty.err)"
[ ! -e empty.vxm ] || fail "a map of 0 rays was written without --allow-empty"
"$voxen" map --cloud nothing.ply --output empty.vxm --quiet --cpu --allow-empty > /dev/null \
  || fail "map --allow-empty of 0 rays failed"
[ -s empty.vxm ] || fail "map --allow-empty wrote no map"

# Clocks that do not match: a trajectory whose times do not overlap the cloud's, and one in
# nanoseconds against the cloud's seconds (both from 0, so every point falls in its first
# microsecond), fail naming both files and both time ranges, whatever --allow-empty says.
printf 'time x y z\n100000 0 0 0\n100001 1 0 0\n' > late.txt
awk '/^#/ { print; next } { $1 = sprintf("%.0f", $1 * 1e9); print }' run.txt > run-ns.txt
for traj in late.txt run-ns.txt; do
  set +e
  "$voxen" map --cloud run.ply --trajectory $traj --output clocks.vxm --quiet --allow-empty > /dev/null 2> clocks.err
  status=$?
  set -e
  [ $status -eq 1 ] || fail "a trajectory ($traj) out of the cloud's clock: exit status $status (want 1): $(cat clocks.err)"
  grep -q "run.ply: .*point times (field 'time', 0 to 0.29.*trajectory $traj (" clocks.err ||
    fail "the error for $traj does not name both files and both time ranges: $(cat clocks.err)"
  [ ! -e clocks.vxm ] || fail "a map was written from a trajectory ($traj) out of the cloud's clock"
done
grep -q "nanoseconds" clocks.err || fail "a trajectory in nanoseconds is not named as such: $(cat clocks.err)"


# Far or huge values end fast (each under `timeout 20`) with a message naming the point, the
# flag or the file, or are skipped and counted; memory is checked against a stated budget.
far_cloud() {  # far_cloud FILE X: a ray cloud of 200 short rays and one to (X, 0, 0) as its 101st
  {
    printf 'ply\nformat ascii 1.0\nelement vertex 201\nproperty double x\nproperty double y\nproperty double z\n'
    printf 'property double ox\nproperty double oy\nproperty double oz\nend_header\n'
    for i in $(seq 0 99); do echo "1.$i 0.5 0.2 0 0 1"; done
    echo "$2 0 0 0 0 1"
    for i in $(seq 0 99); do echo "0.5 1.$i 0.2 0 0 1"; done
  } > "$1"
}
run_fast() {  # run_fast COMMAND...: runs it under timeout 20 and 4 GB of address space ($name: output files)
  set +e
  ( ulimit -v 4000000; timeout 20 "$@" ) > "$name.out" 2> "$name.err"
  status=$?
  set -e
}
run_fast_gpu() {  # the same without the address-space limit, which a GPU driver's reservations can exceed
  set +e
  timeout 20 "$@" > "$name.out" 2> "$name.err"
  status=$?
  set -e
}
for far in 3e9 1e30; do
  far_cloud "far-$far.ply" "$far"
  for where in gpu cpu; do
    name="far-$far-$where"
    flag="--device gpu"; run=run_fast_gpu
    if [ $where = cpu ]; then flag=--cpu; run=run_fast; fi
    $run "$voxen" map --cloud "far-$far.ply" --output "$name.vxm" --json --quiet $flag
    [ $status -eq 0 ] || fail "map with a point at $far m ($where): exit status $status: $(cat $name.err)"
    [ "$(json_number rejected_rays $name.out)" = 1 ] || fail "map with a point at $far m ($where): not counted: $(cat $name.out)"
    grep -q "ray 100, origin (0, 0, 1), sample (" "$name.out" || fail "map ($where): the rejected ray is not named: $(cat $name.out)"
    [ "$(json_number rays $name.out)" = 200 ] || fail "map with a point at $far m ($where): rays: $(cat $name.out)"
  done
done
# A point 1e7 m away fits int32 voxels but crosses millions of regions: an error naming it
# and the flags that help, at once.
far_cloud far-1e7.ply 1e7
name=long-gpu; run_fast_gpu "$voxen" map --cloud far-1e7.ply --output long.vxm --quiet --device gpu
[ $status -eq 1 ] || fail "map of a 1e7 m ray (GPU): exit status $status (want 1): $(cat $name.err)"
grep -q "ray 100 .*regions but the GPU walks at most 4096: set --max-range" $name.err ||
  fail "map of a 1e7 m ray (GPU): $(cat $name.err)"
name=long-cpu; run_fast "$voxen" map --cloud far-1e7.ply --output long.vxm --quiet --cpu
[ $status -eq 1 ] || fail "map of a 1e7 m ray (CPU): exit status $status (want 1): $(cat $name.err)"
grep -q "ray 100 .*--memory-budget.*--max-range" $name.err || fail "map of a 1e7 m ray (CPU): $(cat $name.err)"
name=long-ranged; run_fast "$voxen" map --cloud far-1e7.ply --output long.vxm --quiet --cpu --max-range 50
[ $status -eq 0 ] || fail "map of a 1e7 m ray with --max-range: exit status $status: $(cat $name.err)"
# A resolution out of range is a usage error naming the flag.
name=res; run_fast "$voxen" map --cloud far-1e7.ply --output res.vxm --quiet --cpu --resolution 1e-9
[ $status -eq 2 ] && grep -q -- "--resolution" $name.err || fail "--resolution 1e-9: status $status: $(cat $name.err)"
# A PLY whose header says float over a body of doubles: refused before reading, naming the
# file and both sizes.
{
  printf 'ply\nformat binary_little_endian 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\n'
  printf 'property float ox\nproperty float oy\nproperty float oz\nend_header\n'
  head -c 96 /dev/zero
} > mismatch.ply
name=mismatch; run_fast "$voxen" map --cloud mismatch.ply --output mismatch.vxm --quiet --cpu
[ $status -eq 1 ] || fail "float header over doubles: exit status $status (want 1): $(cat $name.err)"
grep -q "mismatch.ply: .*the header implies a file of .* but the file has .* bytes" $name.err ||
  fail "float header over doubles: $(cat $name.err)"
# An OctoMap file of 71 bytes whose one leaf covers a billion voxels (4 GiB): refused by the
# budget before expanding; rendering a map past the budget is refused before loading it.
{
  printf '# Octomap OcTree binary file\nid OcTree\nsize 7\nres 0.1\ndata\n'
  printf '\003\000\003\000\003\000\003\000\003\000\001\000'
} > bomb.bt
[ "$(wc -c < bomb.bt)" -lt 100 ] || fail "bomb.bt is not tiny"
name=bomb; run_fast "$voxen" import-octomap bomb.bt --output bomb.vxm
[ $status -eq 1 ] || fail "OctoMap bomb: exit status $status (want 1): $(cat $name.err)"
grep -q "bomb.bt: the tree's 1 leaves cover 1073741824 known voxels, which expand to up to 32768 regions" $name.err &&
  grep -q -- "--memory-budget" $name.err || fail "OctoMap bomb: $(cat $name.err)"
# Three occupied voxels 100 m apart make a render grid of 16 million samples (128 MiB).
{
  printf 'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n'
  printf 'property float ox\nproperty float oy\nproperty float oz\nend_header\n'
  printf '100 0 0.2 0 0 1\n0 100 0.2 0 0 1\n1 1 0.2 0 0 1\n'
} > spread.ply
"$voxen" map --cloud spread.ply --output spread.vxm --quiet --cpu > /dev/null
name=render-budget; run_fast "$voxen" render spread.vxm --output budget.png --memory-budget 16
[ $status -eq 1 ] || fail "render past the budget: exit status $status (want 1): $(cat $name.err)"
grep -q "spread.vxm: a render grid of .* samples for 3 occupied voxels .* more than the memory budget of 16.0 MiB" \
  $name.err || fail "render past the budget: $(cat $name.err)"
name=load-budget; run_fast "$voxen" info gpu.vxm --verify --memory-budget 16
[ $status -eq 0 ] || fail "info --verify of a small map under the budget: exit status $status: $(cat $name.err)"
# Through a file: with pipefail, `grep -q` leaving early would fail the help's later writes (SIGPIPE).
"$voxen" map --help > map-help.txt
grep -q -- "--memory-budget" map-help.txt || fail "map --help does not state the memory budget"
name=generate-budget; run_fast "$voxen" generate --cloud huge.ply --rings 4096 --columns 1048576 --scans 1
[ $status -eq 2 ] || fail "generate of 4 billion rays per scan: exit status $status (want 2): $(cat $name.err)"
grep -q -- "one scan of --rings 4096 x --columns 1048576 rays needs .* more than the memory budget" $name.err ||
  fail "generate of 4 billion rays per scan: $(cat $name.err)"
[ ! -e huge.ply ] || fail "generate past the budget left huge.ply behind"
name=bench-map-budget; run_fast "$voxen" bench map --rays 268435456
[ $status -eq 2 ] && grep -q -- "--rays 268435456 .* more than the memory budget" $name.err ||
  fail "bench map --rays 2^28: status $status: $(cat $name.err)"
name=bench-core-budget; run_fast "$voxen" bench core --mb 16000 --memory-budget 1024
[ $status -eq 2 ] && grep -q -- "--mb 16000 .* more than the memory budget of 1024.0 MiB" $name.err ||
  fail "bench core --mb 16000: status $status: $(cat $name.err)"
echo "end_to_end: ok"
