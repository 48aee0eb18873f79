#!/usr/bin/env bash
# voxen map --threads: the map file is byte for byte the same whatever the number of threads
# reading the cloud (GPU, and the CPU reference in the two-phase order, whose map depends on
# the batches); --profile reports the input threads and the integration thread's wait; a
# thread count below 1 is a usage error naming --threads.
#   input_threads.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" input_threads "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 256 --scans 6 --seed 4 > generate.log
for threads in 1 2 8; do
  "$voxen" map --cloud run.ply --trajectory run.txt --output gpu-$threads.vxm --json --quiet --threads $threads \
    > gpu-$threads.json 2> gpu-$threads.err
  no_validation gpu-$threads.err "--threads $threads"
  "$voxen" map --cloud run.ply --trajectory run.txt --output cpu-$threads.vxm --json --quiet --threads $threads \
    --cpu --update-order two-phase --batch-size 5000 > cpu-$threads.json
done
[ "$(json_number rays gpu-1.json)" -gt 20000 ] || fail "too few rays mapped: $(cat gpu-1.json)"
for threads in 2 8; do
  cmp -s gpu-1.vxm gpu-$threads.vxm || fail "GPU: --threads $threads wrote another map than --threads 1"
  cmp -s cpu-1.vxm cpu-$threads.vxm || fail "CPU two-phase: --threads $threads wrote another map than --threads 1"
  for key in rays samples skipped_non_finite skipped_outside_trajectory voxel_updates; do
    [ "$(json_number $key gpu-$threads.json)" = "$(json_number $key gpu-1.json)" ] ||
      fail "--threads $threads: $key differs from --threads 1"
  done
done

# --profile: the input threads, their CPU time per ray and the integration thread's wait.
"$voxen" map --cloud run.ply --trajectory run.txt --output profiled.vxm --json --quiet --profile --threads 2 > profiled.json
[ "$(json_number input_threads profiled.json)" = 2 ] || fail "--profile --threads 2: input_threads: $(cat profiled.json)"
for key in host_read_ns_per_ray host_origin_ns_per_ray; do
  value=$(json_number $key profiled.json)
  awk -v v="$value" 'BEGIN { exit !(v != "" && v + 0 > 0) }' || fail "--threads 2 --profile: $key is not positive: $(cat profiled.json)"
done
[ -n "$(json_number host_input_wait_ns_per_ray profiled.json)" ] || fail "--profile: no host_input_wait_ns_per_ray: $(cat profiled.json)"
"$voxen" map --cloud run.ply --trajectory run.txt --output profiled.vxm --quiet --profile --threads 2 > profiled.log
grep -q "input (2 worker threads): file reading .*, origin interpolation" profiled.log || fail "--profile: no input line: $(cat profiled.log)"
grep -q "waited for input" profiled.log || fail "--profile: no input wait: $(cat profiled.log)"
"$voxen" map --cloud run.ply --trajectory run.txt --output profiled.vxm --quiet --profile --threads 1 > profiled-1.log
grep -q "input (the integration thread)" profiled-1.log || fail "--profile --threads 1: $(cat profiled-1.log)"
"$voxen" map --help > help.log
grep -q -- "--threads" help.log || fail "map --help does not list --threads"

# More threads than the system grants (2 GB of address space holds about 200 stacks of 8 MB,
# and --threads 1000 asks for 500 preparing workers): the run goes on with the threads it
# got, says so once, and writes the same map; it never aborts.
status=0
(ulimit -v 2097152 && exec "$voxen" map --cloud run.ply --trajectory run.txt --output many.vxm --json --quiet \
  --threads 1000) > many.json 2> many.err || status=$?
[ $status -eq 0 ] || fail "--threads 1000 under ulimit -v 2097152: exit status $status: $(cat many.err)"
no_validation many.err "--threads 1000"
[ "$(grep -c "started only [0-9]* of 500 ray preparing threads: .*; running with" many.err)" = 1 ] ||
  fail "--threads 1000 under ulimit -v: not one message about the threads that could not start: $(cat many.err)"
cmp -s gpu-1.vxm many.vxm || fail "--threads 1000 under ulimit -v wrote another map than --threads 1"

# Below 1 (or not a number): a usage error (exit 2) naming the flag, before any work.
for bad in 0 -1 two; do
  set +e
  "$voxen" map --cloud run.ply --trajectory run.txt --output bad.vxm --threads "$bad" > /dev/null 2> bad.err
  status=$?
  set -e
  [ $status -eq 2 ] || fail "--threads $bad: exit status $status (want 2): $(cat bad.err)"
  grep -q -- "--threads" bad.err || fail "--threads $bad: the error does not name the flag: $(cat bad.err)"
  [ ! -e bad.vxm ] || fail "--threads $bad: a map was written"
done
echo "input_threads: ok"
