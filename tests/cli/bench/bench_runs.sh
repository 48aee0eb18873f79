#!/usr/bin/env bash
# How bench map and bench ndt run, whatever they are given: a default run fits the memory
# budget (under a 4 GB address-space limit, and at budgets far below the default, where it
# shrinks its GPU cache or its rays and says so); no pipeline is compiled while timing (every
# timed configuration is warmed up); a run that will be long says so up front with an
# estimate, and shows progress with a rate and an ETA on stderr.
#   bench_runs.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" bench_runs "$@"

# 1. bench map's default rays under `ulimit -v 4194304` (4 GB) at the default budget.
status=0
(ulimit -v 4194304 && exec "$voxen" bench map --resolution 0.25 --repeat 1 --json) > limited.json 2> limited.err || status=$?
[ $status -eq 0 ] || fail "bench map under ulimit -v 4194304: exit status $status: $(cat limited.err)"
no_validation limited.err "bench map under ulimit -v"
[ "$(json_number rays limited.json)" = 1048576 ] || fail "bench map under ulimit -v: not the default rays: $(cat limited.json)"
[ "$(json_number pipelines_first_used_while_timing limited.json)" = 0 ] ||
  fail "bench map compiled pipelines while timing: $(cat limited.json)"
grep -q "bench map \[#*\] 100.0%  .* rays/s  ETA 0 s" limited.err || fail "bench map shows no progress: $(cat limited.err)"

# 2. A budget far below the default: a smaller GPU cache, then fewer rays, said on stderr.
"$voxen" bench map --resolution 0.25 --repeat 1 --memory-budget 100 --json > small.json 2> small.err ||
  fail "bench map --memory-budget 100: exit status $?: $(cat small.err)"
grep -q "a GPU region cache of .* instead of 512.0 MiB" small.err || fail "the smaller cache is not said: $(cat small.err)"
awk -v v="$(json_number gpu_cache_mb small.json)" 'BEGIN { exit !(v > 0 && v < 100) }' ||
  fail "bench map --memory-budget 100: gpu_cache_mb: $(cat small.json)"
"$voxen" bench map --resolution 0.25 --repeat 1 --memory-budget 40 --json > tiny.json 2> tiny.err ||
  fail "bench map --memory-budget 40: exit status $?: $(cat tiny.err)"
grep -q "rays instead of the default 1,048,576" tiny.err || fail "the fewer rays are not said: $(cat tiny.err)"
[ "$(json_number rays tiny.json)" -lt 1048576 ] || fail "bench map --memory-budget 40 kept every ray: $(cat tiny.json)"
# --rays given is never reduced: refused, naming it.
status=0
"$voxen" bench map --rays 1048576 --memory-budget 40 > given.out 2> given.err || status=$?
[ $status -eq 2 ] && grep -q -- "--rays 1048576 held in memory .* more than the memory budget of 40.0 MiB" given.err ||
  fail "bench map --rays 1048576 --memory-budget 40: status $status: $(cat given.err)"

# 3. bench ndt at a small budget, every variant warmed up.
"$voxen" bench ndt --resolution 0.25 --repeat 1 --memory-budget 200 --json > ndt.json 2> ndt.err ||
  fail "bench ndt --memory-budget 200: exit status $?: $(cat ndt.err)"
no_validation ndt.err "bench ndt"
grep -q "a GPU region cache of .* instead of 512.0 MiB" ndt.err || fail "bench ndt: the smaller cache is not said: $(cat ndt.err)"
[ "$(json_number pipelines_first_used_while_timing ndt.json)" = 0 ] ||
  fail "bench ndt compiled pipelines while timing: $(cat ndt.json)"
grep -q "bench ndt \[#*\] 100.0%" ndt.err || fail "bench ndt shows no progress: $(cat ndt.err)"

# 4. A tiny --batch-size: the estimate up front, naming the flag, then progress lines with an
# ETA (every 5 s off a terminal); stopped after a while, it is not waited for.
"$voxen" bench map --rays 65536 --resolution 0.25 --repeat 1 --batch-size 1 > slow.out 2> slow.err &
pid=$!
deadline=$((SECONDS + 60))
until grep -q "ETA" slow.err; do
  kill -0 $pid 2> /dev/null || fail "bench map --batch-size 1 ended early: $(cat slow.err)"
  [ $SECONDS -lt $deadline ] || { kill $pid; fail "bench map --batch-size 1: no progress line in 60 s: $(cat slow.err)"; }
  sleep 0.5
done
kill $pid
wait $pid 2> /dev/null || true
head -1 slow.err | grep -q "voxen bench map: this run will take about [0-9.]* \(min\|hours\): .*--batch-size 1" ||
  fail "bench map --batch-size 1 does not say up front that it is slow: $(cat slow.err)"
grep -q "bench map \[ *#* *\] *[0-9.]*%  [0-9.,]* rays/s  ETA [0-9,]* s" slow.err || fail "no progress line with an ETA: $(cat slow.err)"

# 6. bench frames says the host's share of a frame (issue 37, item 3): the frame's wall less
# its GPU passes, and the submissions, in the table and the JSON (with the host's stages).
"$voxen" bench frames --frames 2 --resolution 0.25 --json > frames.json 2> frames.err ||
  fail "bench frames --json: exit status $?: $(cat frames.err)"
no_validation frames.err "bench frames"
for key in host_overhead_ms_per_frame integrate_ms sync_ms prepare_cpu_ms discovery_cpu_ms residency_cpu_ms upload_cpu_ms \
  staging_waits; do
  [ -n "$(json_number $key frames.json)" ] || fail "bench frames --json: no $key: $(cat frames.json)"
done
awk -v v="$(json_number submissions frames.json)" 'BEGIN { exit !(v >= 1) }' ||
  fail "bench frames --json: no submissions per frame: $(cat frames.json)"
"$voxen" bench frames --frames 2 --resolution 0.25 > frames.out 2> frames.err || fail "bench frames: $(cat frames.err)"
grep -q "GPU passes ms *host ms *submits *agreement" frames.out || fail "bench frames: no host ms and submits columns: $(cat frames.out)"
grep -q "^0.25 .* [0-9.]*  *[0-9]  *100.0000%$" frames.out || fail "bench frames: no row with them: $(cat frames.out)"

# 7. bench loop (issue 38, item 5): scan, map back, clearance update, queries per frame, in the
# table and the JSON, with the regions the clearance recomputed (the first frame: every region).
"$voxen" bench loop --frames 2 --resolution 0.25 --queries 2000 --json > loop.json 2> loop.err ||
  fail "bench loop --json: exit status $?: $(cat loop.err)"
no_validation loop.err "bench loop"
for key in scan scan_alone sync clearance queries sync_clearance_queries median_regions_recomputed \
  median_regions_stale_by_log_odds regions_recomputed; do
  [ -n "$(json_number $key loop.json)" ] || fail "bench loop --json: no $key: $(cat loop.json)"
done
grep -o '"per_frame":\[{[^}]*}' loop.json > first_frame.json
[ "$(json_number regions_recomputed first_frame.json)" = "$(json_number regions first_frame.json)" ] ||
  fail "bench loop: the first frame did not compute every region: $(cat loop.json)"
"$voxen" bench loop --frames 2 --resolution 0.25 --queries 2000 --unknown-free > loop.out 2> loop.err ||
  fail "bench loop: $(cat loop.err)"
grep -q "unknown space free" loop.out || fail "bench loop --unknown-free: not said: $(cat loop.out)"
grep -q "^back + clearance + queries  *[0-9.]*  *[0-9.]*$" loop.out || fail "bench loop: no total row: $(cat loop.out)"
"$voxen" bench loop --range 1000 > /dev/null 2> range.err && fail "bench loop --range 1000 was accepted"
grep -q "range" range.err || fail "bench loop --range 1000: the error does not name the range: $(cat range.err)"
echo "bench_runs: ok"
