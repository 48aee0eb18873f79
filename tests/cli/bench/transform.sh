#!/usr/bin/env bash
# voxen bench transform end to end: every product variant on a small forest, dense and
# sparse updates, the JSON fields the issue asks for, the GPU's worlds equal to the CPU
# reference's, and bad settings named by flag.
#   transform.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" transform "$@"

"$voxen" bench transform --nodes 4096 --depth 2 300 --dirty 1 0.01 --product matrix quad-shuffle quad-shared \
  --repeat 1 --json > bench.json 2> bench.err
if grep -qi "validation" bench.err; then fail "validation messages: $(cat bench.err)"; fi
for key in nodes depth dirty_fraction gpu_transforms_per_s cpu_transforms_per_s upload_ms process_ms download_ms \
  max_relative_error; do
  [ -n "$(json_number $key bench.json)" ] || fail "bench transform: no $key: $(cat bench.json)"
done
grep -q '"device":' bench.json || fail "bench transform: no device: $(cat bench.json)"
# 2 depths x 2 fractions x 3 variants, each checked against the CPU reference.
[ "$(grep -o '"product":' bench.json | wc -l)" -eq 12 ] || fail "bench transform: not 12 configurations: $(cat bench.json)"
for product in matrix quad-shuffle quad-shared; do
  grep -q "\"product\":\"$product\"" bench.json || fail "bench transform: no $product run: $(cat bench.json)"
done
grep -q '"gpu_update":"sparse"' bench.json && grep -q '"gpu_update":"dense"' bench.json ||
  fail "bench transform: not both update kinds: $(cat bench.json)"
grep -o '"max_relative_error":[0-9.e+-]*' bench.json | cut -d: -f2 > errors.txt
while read -r error; do
  awk -v e="$error" 'BEGIN { exit !(e < 1e-4) }' || fail "bench transform: GPU worlds differ from the CPU's by $error"
done < errors.txt
# The table.
"$voxen" bench transform --nodes 1024 --depth 4 --dirty 0.5 --repeat 1 > table.txt
grep -q "Mtf/s" table.txt || fail "bench transform: no table: $(cat table.txt)"
# Bad settings name their flag.
if "$voxen" bench transform --product fastest 2> product.err; then fail "--product fastest was accepted"; fi
grep -q -- "--product" product.err || fail "--product fastest: unclear error: $(cat product.err)"
if "$voxen" bench transform --nodes 10 2> nodes.err; then fail "--nodes 10 was accepted"; fi
grep -q -- "--nodes" nodes.err || fail "--nodes 10: unclear error: $(cat nodes.err)"
if "$voxen" bench transform --dirty 0 2> dirty.err; then fail "--dirty 0 was accepted"; fi
grep -q -- "--dirty" dirty.err || fail "--dirty 0: unclear error: $(cat dirty.err)"
echo "transform: ok"
