#!/usr/bin/env bash
# The plain shader flavour (exact_math_plain.glsl: division and square root settled in
# integers, no Float64 capability) on a device that pretends to lack shaderFloat64
# (VOXEN_NO_FLOAT64=1): with the validation layer on, no module of the float64 flavour may
# reach the device, and every bit-for-bit row still passes (the plain flavour rounds
# correctly on every device). `voxen info` names the fact either way.
#   check_without_float64.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" check_without_float64 "$@"

"$voxen" info > info.txt 2> info.err || fail "info failed: $(cat info.err)"
grep -q "shaderFloat64 (exact division, sqrt) *yes" info.txt || fail "info: lavapipe's shaderFloat64 not reported: $(cat info.txt)"
VOXEN_NO_FLOAT64=1 "$voxen" info > info_without.txt 2> info_without.err || fail "info failed: $(cat info_without.err)"
grep -q "shaderFloat64 (exact division, sqrt) *no" info_without.txt ||
  fail "info with VOXEN_NO_FLOAT64=1: shaderFloat64 not reported absent: $(cat info_without.txt)"

set +e
VOXEN_NO_FLOAT64=1 "$voxen" check --quick --only occupancy --only clearance --only query --only painter --json \
  > without.json 2> without.err
status=$?
set -e
no_validation without.err "check without float64"
[ $status -eq 0 ] || fail "check without float64 failed (exit $status): $(cat without.json without.err)"
grep -q '"shader_float64":false' without.json || fail "check without float64: the device facts do not say so: $(head -c 600 without.json)"
if grep -q '"passed":false' without.json; then fail "check without float64: a row failed: $(cat without.json)"; fi
for subsystem in occupancy clearance query painter; do
  grep -q "\"subsystem\":\"$subsystem\"" without.json || fail "check without float64: no $subsystem rows"
done
