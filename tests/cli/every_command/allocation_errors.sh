#!/usr/bin/env bash
# No command ends with a bare std::bad_alloc (issue 35, item 1): crafted PCD headers (a row
# size times POINTS that wraps 2^64, sizes past 32 bits, a trillion points promised by a
# one-line body) are refused naming the file, line and field; `bench transform` under an
# address-space limit names the allocation, its size and the flag that sets it; and an
# allocation no site names still ends with a clear message, never "std::bad_alloc" alone.
#   allocation_errors.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" allocation_errors "$@"

bare() {  # bare FILE: fails when the error is an exception's bare text rather than a message
  if grep -q "^voxen[a-z ]*: error: \(std::bad_alloc\|vector::_M_default_append\|std::length_error\)$" "$1"; then
    fail "a bare exception: $(cat "$1")"
  fi
}
expect_failure() {  # expect_failure NAME TEXT COMMAND...: exit 1, stderr with TEXT (grep -F)
  local name=$1 text=$2 status=0
  shift 2
  "$@" > "$name.out" 2> "$name.err" || status=$?
  [ "$status" = 1 ] || fail "$name: exit $status (expected 1): $(cat "$name.err")"
  bare "$name.err"
  grep -qF -- "$text" "$name.err" || fail "$name: expected '$text' in: $(cat "$name.err")"
}

header() {  # header FIELDS SIZE TYPE COUNT POINTS DATA
  printf 'VERSION 0.7\nFIELDS %s\nSIZE %s\nTYPE %s\nCOUNT %s\nWIDTH %s\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS %s\nDATA %s\n' \
    "$1" "$2" "$3" "$4" "$5" "$5" "$6"
}
# 2^34 points of 2^30-byte rows: 2^64 bytes, which wrapped to 0 and matched the empty body.
header "x y z pad" "4 4 4 1" "F F F U" "1 1 1 1073741812" 17179869184 binary > wrap.pcd
header "x y z" "4294967300 4 4" "F F F" "1 1 1" 1 ascii > size.pcd
echo "1 2 3" >> size.pcd
header "x y z" "4 4 4" "F F F" "4294967297 1 1" 1 ascii > count.pcd
echo "1 2 3" >> count.pcd
header "x y z" "4 4 4" "F F F" "1 1 1" 1000000000000 ascii > trillion.pcd
echo "1 2 3" >> trillion.pcd
for command in inspect map; do
  args=()
  [ "$command" = map ] && args=(--output out.vxm --cpu --quiet)
  input() { if [ "$command" = map ]; then echo --input; fi; }
  expect_failure "$command-wrap" "wrap.pcd:5: COUNT of field pad 1073741812 is more than 1048576" \
    "$voxen" "$command" $(input) wrap.pcd "${args[@]}"
  expect_failure "$command-size" "size.pcd:3: SIZE of field x 4294967300 is more than 8" \
    "$voxen" "$command" $(input) size.pcd "${args[@]}"
  expect_failure "$command-count" "count.pcd:5: COUNT of field x 4294967297 is more than 1048576" \
    "$voxen" "$command" $(input) count.pcd "${args[@]}"
  expect_failure "$command-trillion" "trillion.pcd:11: the body ends after 1 of POINTS 1000000000000 points" \
    "$voxen" "$command" $(input) trillion.pcd "${args[@]}"
done
[ ! -e out.vxm ] || fail "a refused map wrote its output"

# The budget allows 16 GB, the address space 4 GB: the trees cannot be made.
expect_failure bench-transform "for the transform trees of 8,388,608 nodes" \
  bash -c 'ulimit -v 4000000 && exec "$0" bench transform --nodes 8388608 --depth 2 --memory-budget 16000 --repeat 1' "$voxen"
grep -qF "cannot allocate 7.0 GiB (7549747200 bytes)" bench-transform.err || fail "no size: $(cat bench-transform.err)"
grep -qF "set by --nodes 8388608" bench-transform.err || fail "no flag: $(cat bench-transform.err)"

# An allocation no site names (the test hook throws std::bad_alloc as the command starts).
expect_failure unnamed "out of memory: an allocation failed (std::bad_alloc) that this command does not name" \
  env VOXEN_TEST_HOOK_BAD_ALLOC_COMMAND=info "$voxen" info nothing.vxm
expect_failure unnamed-limit "of address space (ulimit -v)" \
  bash -c 'ulimit -v 8000000 && exec env VOXEN_TEST_HOOK_BAD_ALLOC_COMMAND=info "$0" info nothing.vxm' "$voxen"
status=0
VOXEN_TEST_HOOK_BAD_ALLOC_COMMAND=info "$voxen" info nothing.vxm --json > unnamed.json 2> /dev/null || status=$?
[ "$status" = 1 ] || fail "--json: exit $status"
grep -q '"error":"out of memory: an allocation failed' unnamed.json || fail "--json: $(cat unnamed.json)"
echo "allocation_errors: ok"
