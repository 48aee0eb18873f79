#!/usr/bin/env bash
# voxen bench all end to end on a small budget: every section filled with a row that ran,
# the JSON naming each workload's size, the markdown tables, the run ending within its
# budget and a margin, no validation message from any workload (run with VOXEN_VALIDATION=1),
# a crashing and a hanging workload reported while the others go on, bad flags named, and
# output files never left half written.
#   bench_all.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" bench_all "$@"

budget=40
echo "old report" > all.json
start=$(date +%s.%N)
"$voxen" bench all --budget-s $budget --json all.json --markdown all.md > table.txt 2> all.err ||
  fail "bench all failed: $(cat table.txt all.err)"
elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
no_validation all.err "bench all"
# The smallest sizes run whatever the budget (every section filled): on a busy machine they
# alone may take longer, and then nothing grows.
first=$(grep -o '"smallest_sizes_s": [0-9.]*' all.json | cut -d" " -f2)
awk -v t="$elapsed" -v b=$budget -v f="$first" 'BEGIN { if (f > b) b = f; exit !(t <= b * 1.2 + 5) }' ||
  fail "bench all took $elapsed s on a $budget s budget (the smallest sizes: $first s)"
ls -a | grep -q "\.tmp-" && fail "temporary files left: $(ls -a)"

# Every section has a row that ran (a number in the GPU column), in the table and the markdown.
sections=("engine core" "occupancy map" "map layers" "lidar frames" "NDT" "clearance" "queries" "frame loop" "transform tree" "TSDF" "recordings to rays" "voxel painter")
for section in "${sections[@]}"; do
  grep -q "^| $section | [^|]* | [^|]* | [0-9]" all.md || fail "markdown: no row of '$section' that ran: $(cat all.md)"
  grep -q "^$section  " table.txt || fail "table: no '$section' row: $(cat table.txt)"
done
grep -q "FAILED\|CUT OFF" all.md table.txt && fail "a workload failed: $(cat table.txt)"
grep -q "^| section | workload | size | Voxen GPU | CPU reference | GPU/CPU | unit |$" all.md || fail "markdown: no table header"
# Rows that do no GPU work (recordings to rays) stand under heads that say so, never under
# "Voxen GPU", in the markdown, the table and the JSON.
host_head="| section | workload (no GPU work) | size | Voxen host | host reference | Voxen/reference | unit |"
grep -qxF "$host_head" all.md || fail "markdown: no table for the workloads without GPU work: $(cat all.md)"
awk -v h="$host_head" '$0 == h { host = 1 } /^\| recordings to rays / && !host { bad = 1 } END { exit bad }' all.md ||
  fail "markdown: a recordings row under the GPU heads: $(cat all.md)"
awk '/^section +workload \(no GPU work\)/ { host = 1 } /^recordings to rays  / && !host { bad = 1 } END { exit bad }' table.txt ||
  fail "table: a recordings row under the GPU heads: $(cat table.txt)"
grep -A2 '"section": "recordings to rays"' all.json | grep -q '"gpu_work": false' ||
  fail "JSON: recordings to rays not marked as doing no GPU work"
grep -q "^| resolution | GPU ms/frame | CPU ms/frame |$" all.md || fail "markdown: no lidar-frame table: $(cat all.md)"
for resolution in 0.05 0.1 0.2; do
  grep -q "^| $resolution m | [0-9.]* | [0-9.]* |$" all.md || fail "markdown: no lidar frame row at $resolution m: $(cat all.md)"
done
grep -q "^Device: .*Command: \`voxen bench all --budget-s $budget" all.md || fail "markdown: no device and command line"

# The JSON: one entry per workload (18), each ok and naming its size; the lidar frames.
[ "$(grep -c '"section": ' all.json)" -eq 18 ] || fail "JSON: not 18 workloads: $(head -c 2000 all.json)"
[ "$(grep -c '^      "status": "ok",$' all.json)" -eq "$(grep -c '^      "section": ' all.json)" ] ||
  fail "JSON: not every workload ok: $(grep '"status"' all.json)"
[ "$(grep -c '^        "label": "' all.json)" -eq "$(grep -c '^      "section": ' all.json)" ] ||
  fail "JSON: not every workload names its size: $(grep -A3 '"size": {' all.json)"
grep -q '"budget_s": 40' all.json && grep -q '"elapsed_s": ' all.json && grep -q '"api_version": ' all.json ||
  fail "JSON: no budget, elapsed time or device"
grep -q '"gpu_ms_per_frame": [0-9]' all.json || fail "JSON: no lidar frames"
grep -q '"summary": {' all.json || fail "JSON: the children's summaries are missing"

# A workload that crashes is a FAILED row with its message; one that hangs is cut off at the
# budget's end plus the margin (5 s here); the others go on; the exit status is 1.
set +e
VOXEN_TEST_HOOK_ABORT_COMMAND="bench transform" "$voxen" bench all --budget-s 3 --only "transform tree" "engine core" \
  --json crash.json > crash.txt 2> crash.err
status=$?
set -e
[ $status -eq 1 ] || fail "a crashed workload: exit status $status, not 1: $(cat crash.txt crash.err)"
grep -q "FAILED: transform tree / .*signal 6" crash.txt || fail "the crash is not reported: $(cat crash.txt)"
grep "^engine core" crash.txt | grep -qv "FAILED\|CUT OFF" || fail "the other workload did not run: $(cat crash.txt)"
grep -q '"status": "failed"' crash.json || fail "JSON: the crash is not a failure"
start=$(date +%s.%N)
set +e
VOXEN_TEST_HOOK_HANG_COMMAND="bench core" "$voxen" bench all --budget-s 3 --only "engine core" > hang.txt 2> hang.err
status=$?
set -e
elapsed=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')
[ $status -eq 1 ] || fail "a hung workload: exit status $status, not 1"
grep -q "CUT OFF: engine core" hang.txt || fail "the hang is not reported as cut off: $(cat hang.txt)"
awk -v t="$elapsed" 'BEGIN { exit !(t < 20) }' || fail "the hung workload was killed after $elapsed s"

# Bad flags are named, and leave an existing report as it was.
echo "old report" > keep.json
for bad in 0 -5 nan inf; do
  if "$voxen" bench all --budget-s "$bad" --json keep.json 2> bad.err; then fail "--budget-s $bad was accepted"; fi
  grep -q -- "--budget-s" bad.err || fail "--budget-s $bad: unclear error: $(cat bad.err)"
done
[ "$(cat keep.json)" = "old report" ] || fail "a refused run changed the report"
if "$voxen" bench all --budget-s 1 --json missing/all.json 2> path.err; then fail "--json into a missing folder was accepted"; fi
grep -q -- "--json" path.err || fail "--json missing/all.json: unclear error: $(cat path.err)"
if "$voxen" bench all --budget-s 1 --markdown . 2> dir.err; then fail "--markdown . was accepted"; fi
grep -q -- "--markdown" dir.err || fail "--markdown .: unclear error: $(cat dir.err)"
if "$voxen" bench all --only nothing 2> only.err; then fail "--only nothing was accepted"; fi
grep -q -- "--only" only.err || fail "--only nothing: unclear error: $(cat only.err)"
echo "bench_all: ok ($elapsed s for the hang)"
