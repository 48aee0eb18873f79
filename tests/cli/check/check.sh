#!/usr/bin/env bash
# voxen check end to end: the quick check passes on this device with the validation layer on
# (every subsystem's rows, the device facts in the JSON); with the test-only switch that
# perturbs every CPU reference, every row fails (so each comparison can fail) and the exit
# status says so; the table; bad options named.
#   check.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" check "$@"

start=$(date +%s)
"$voxen" check --quick --json > quick.json 2> quick.err || fail "check --quick failed (exit $?): $(cat quick.json quick.err)"
echo "check --quick took $(( $(date +%s) - start )) s (the goal on lavapipe: under 180 s)"
no_validation quick.err "check --quick"
grep -q '"passed":true' quick.json || fail "check --quick: not passed: $(cat quick.json)"
grep -q '"scale":"quick"' quick.json || fail "check --quick: the scale is not named"
for subsystem in core occupancy primitives clearance heightmap tsdf query transform painter; do
  grep -q "\"subsystem\":\"$subsystem\"" quick.json || fail "check --quick: no $subsystem rows"
done
for key in name driver api_version subgroup_size shader_float64 max_workgroup_count max_memory_allocation_bytes loop_cap; do
  grep -q "\"$key\":" quick.json || fail "check --quick: the device facts lack $key"
done
rows=$(grep -o '"subsystem":' quick.json | wc -l)
[ "$rows" -ge 30 ] || fail "check --quick: only $rows rows"
[ "$(grep -o '"passed":true' quick.json | wc -l)" -eq $(( rows + 1 )) ] || fail "check --quick: a row failed: $(cat quick.json)"
# Each row names its figures; the occupancy rows report dropped updates, 0 of them.
grep -q '"dropped_updates":0' quick.json || fail "check --quick: no dropped-update figure"
if grep -q '"dropped_updates":[1-9]' quick.json; then fail "check --quick: updates were dropped"; fi

# Every CPU reference perturbed: every row must fail, and the exit status is 1.
set +e
"$voxen" check --quick --json --break-references > broken.json 2> broken.err
status=$?
set -e
[ $status -eq 1 ] || fail "check --break-references: exit status $status, not 1"
no_validation broken.err "check --break-references"
[ "$(grep -o '"subsystem":' broken.json | wc -l)" -eq "$rows" ] || fail "check --break-references: another number of rows"
if grep -q '"passed":true' broken.json; then
  fail "check --break-references: a row passed with a broken reference: $(grep -o '"check":"[^"]*","passed":true' broken.json)"
fi

# The table, for one subsystem.
"$voxen" check --quick --only core > table.txt 2> table.err
grep -q "^voxen check on " table.txt || fail "check: no device line: $(cat table.txt)"
grep -q "^PASS  core" table.txt || fail "check: no PASS rows: $(cat table.txt)"
grep -q "checks: .* passed, 0 failed" table.txt || fail "check: no summary: $(cat table.txt)"

# Bad options are named.
set +e
"$voxen" check --only nothing > bad.txt 2>&1
status=$?
set -e
[ $status -eq 2 ] || fail "check --only nothing: exit status $status, not 2"
grep -q -- "--only" bad.txt || fail "check --only nothing: the flag is not named: $(cat bad.txt)"
echo "check: ok"
