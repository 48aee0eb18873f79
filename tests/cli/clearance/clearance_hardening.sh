#!/usr/bin/env bash
# voxen clearance and map --clearance, what round 2 of the hardening fixed: tiny axis scales
# refused by flag and limit; the output required (--output or --in-place), an --output that
# is the map itself meaning in place, and the input byte-identical after a failure; the GPU
# cache grown to a region's neighbourhood (voxen clearance --gpu-cache-mb, map --clearance
# with a small --gpu-cache-mb); the mapped map saved when its clearance fails; the default
# technique (exact) and the measured figures in --help; progress, the summary's fields and a
# note before a technique whose work explodes with the range;
# --ignore-below / --ignore-above; the settings shown by voxen info.
#   clearance_hardening.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" clearance_hardening "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 256 --scans 3 --seed 2 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --resolution 0.25 --quiet > map.log
cp map.vxm original.vxm

# Tiny, denormal and zero-like axis scales: a usage error naming the flags and the limit, never a crash.
for scale in "1e-10 1 1" "1 1 1e-9 --technique exact" "4.9e-324 1 1 --cpu" "1 1e-300 1 --technique roi" "1e-12 1 1 --technique neighbour"; do
  set +e
  "$voxen" clearance map.vxm --range 1 --axis-scale $scale --output bad.vxm > scale.out 2> scale.err
  status=$?
  set -e
  [ $status -eq 2 ] || fail "--axis-scale $scale: exit status $status (want 2): $(cat scale.err)"
  grep -q -- "--range/--axis-scale" scale.err && grep -q "limit of 240 voxels" scale.err ||
    { grep -q -- "--axis-scale" scale.err && grep -q "expected a number" scale.err; } ||
    fail "--axis-scale $scale: unclear error: $(cat scale.err)"
done
[ ! -e bad.vxm ] || fail "a refused run wrote its output"

# The output is required; --in-place replaces the map; --output naming the map itself is in place.
set +e
"$voxen" clearance map.vxm --range 1 > none.out 2> none.err
status=$?
set -e
[ $status -eq 2 ] || fail "no --output: exit status $status (want 2)"
grep -q -- "--output" none.err && grep -q -- "--in-place" none.err || fail "no --output: unclear error: $(cat none.err)"
cmp -s map.vxm original.vxm || fail "a refused run changed the map"
if "$voxen" clearance map.vxm --in-place --output other.vxm 2> both.err; then fail "--in-place with another --output was accepted"; fi
cp map.vxm same.vxm
"$voxen" clearance same.vxm --output ./same.vxm --range 1 --json > same.json 2> same.err
grep -q '"in_place":true' same.json || fail "--output ./same.vxm is not in place: $(cat same.json) $(cat same.err)"
"$voxen" info same.vxm | grep -q "^clearance: *range 1 m" || fail "--output ./same.vxm did not store the layer"
cp map.vxm linked.vxm
ln -sf linked.vxm link.vxm
"$voxen" clearance linked.vxm --output link.vxm --range 1 --quiet > linked.log
[ -L link.vxm ] || fail "the link to the map was replaced by a file"
"$voxen" info linked.vxm | grep -q "^clearance:" || fail "--output through a link to the map did not store the layer in it"

# A failure after the map is read leaves it byte-identical, and no temporary file behind:
# saving cut short by a file size limit, and a memory budget too small for the GPU blocks.
cp map.vxm victim.vxm
set +e
( trap '' XFSZ; ulimit -f 8; exec "$voxen" clearance victim.vxm --in-place --range 1 --quiet ) > cut.out 2> cut.err
status=$?
set -e
[ $status -eq 1 ] || fail "a save cut short: exit status $status (want 1): $(cat cut.err)"
cmp -s victim.vxm original.vxm || fail "a save cut short changed the map"
[ -z "$(ls -A | grep -v -e '\.vxm$' -e '\.ply$' -e '\.txt$' -e '\.log$' -e '\.err$' -e '\.out$' -e '\.json$')" ] ||
  fail "files left behind: $(ls -A)"
set +e
"$voxen" clearance victim.vxm --in-place --range 20 --technique neighbour --memory-budget 64 > budget.out 2> budget.err
status=$?
set -e
[ $status -eq 1 ] || fail "a block past the budget: exit status $status (want 1): $(cat budget.err)"
grep -q -- "--memory-budget" budget.err && grep -q "exact technique" budget.err || fail "unclear error: $(cat budget.err)"
cmp -s victim.vxm original.vxm || fail "a failed run changed the map"

# The GPU cache grows to what a region and its neighbours need.
"$voxen" clearance map.vxm --range 10 --gpu-cache-mb 1 --output grown.vxm --json > grown.json 2> grown.err
no_validation grown.err
[ "$(json_number cache_regions grown.json)" -ge 9 ] || fail "--gpu-cache-mb 1: $(cat grown.json)"
"$voxen" clearance map.vxm --range 10 --cpu --output grown-cpu.vxm --quiet > /dev/null
"$voxen" export grown.vxm --clearance-ply grown.ply > /dev/null
"$voxen" export grown-cpu.vxm --clearance-ply grown-cpu.ply > /dev/null
cmp -s grown.ply grown-cpu.ply || fail "the GPU's exact clearance with a grown cache differs from the CPU reference"

# voxen map --clearance: a small mapping cache does not stop the clearance, and a clearance
# that fails after mapping leaves the mapped map saved, with an error saying so.
"$voxen" map --cloud run.ply --trajectory run.txt --output mapped.vxm --resolution 0.25 --gpu-cache-mb 1 --clearance 10 \
  --json --quiet > mapped.json 2> mapped.err
[ "$(json_number clearance_regions mapped.json)" -gt 5 ] || fail "map --gpu-cache-mb 1 --clearance 10: $(cat mapped.json) $(cat mapped.err)"
set +e
"$voxen" map --cloud run.ply --trajectory run.txt --output kept.vxm --resolution 0.25 --gpu-cache-mb 16 --memory-budget 40 \
  --clearance 60 --quiet > kept.out 2> kept.err
status=$?
set -e
[ $status -eq 1 ] || fail "map --clearance failing after mapping: exit status $status (want 1): $(cat kept.err)"
grep -q "saved without its clearance in kept.vxm" kept.err || fail "the error does not say the map was saved: $(cat kept.err)"
"$voxen" info kept.vxm --verify > kept.info || fail "the mapped map was not saved"
if "$voxen" map --cloud run.ply --trajectory run.txt --output early.vxm --resolution 0.25 --clearance 61 2> early.err; then
  fail "--clearance 61 at 0.25 m was accepted"
fi
grep -q -- "--clearance" early.err && grep -q "limit of 240" early.err || fail "--clearance 61: $(cat early.err)"
if grep -q "mapping" early.err; then fail "--clearance 61 was refused after mapping, not before: $(cat early.err)"; fi

# The default technique is exact; --help states the measured figures and the range's limit.
"$voxen" clearance map.vxm --output default.vxm --range 1 --json > default.json 2> default.err
grep -q '"technique":"exact"' default.json || fail "the default technique is not exact: $(cat default.json)"
for key in regions ms_per_region regions_per_s batches cache_regions total_s; do
  [ -n "$(json_number $key default.json)" ] || fail "the summary lacks $key: $(cat default.json)"
done
grep -q "regions/s" default.err && grep -q "ETA" default.err || fail "no progress on stderr: $(cat default.err)"
"$voxen" clearance --help > help.txt
grep -q "exact (the default)" help.txt && grep -q "ms per region" help.txt && grep -q "24 m at 0.1 m" help.txt ||
  fail "--help lacks the default, the figures or the range's limit"
grep -q -- "--ignore-below" help.txt && ! grep -q "nearly ignores height" help.txt || fail "--help: the axis scale's example"
# A technique whose work explodes with the range says so before it starts.
"$voxen" clearance map.vxm --output slow.vxm --range 3 --technique neighbour > slow.out 2> slow.err
grep -q "note: the neighbour technique at a range of 3 m" slow.err || fail "no note before a slow technique: $(cat slow.err)"
if grep -q "note:" default.err; then fail "a note for the exact technique: $(cat default.err)"; fi
"$voxen" clearance map.vxm --output quiet.vxm --range 1 --quiet > quiet.out 2> quiet.err
[ ! -s quiet.err ] || fail "--quiet printed on stderr: $(cat quiet.err)"

# --ignore-below / --ignore-above: in the summary and in voxen info; bad heights by flag.
"$voxen" clearance map.vxm --output band.vxm --range 2 --ignore-below 0.3 --ignore-above 2.5 --json > band.json 2> band.err
grep -q '"ignore_below":0.3' band.json && grep -q '"ignore_above":2.5' band.json || fail "band: $(cat band.json)"
"$voxen" info band.vxm > band.info
grep -q "obstacles below 0.3 m ignored, obstacles above 2.5 m ignored" band.info || fail "voxen info: $(cat band.info)"
"$voxen" info band.vxm --json | grep -q '"clearance":"range 2 m, exact technique' || fail "voxen info --json lacks the settings"
if "$voxen" clearance map.vxm --output bad.vxm --ignore-below 1 --ignore-above 1.1 2> band.err; then fail "an empty band was accepted"; fi
grep -q -- "--ignore-below/--ignore-above" band.err || fail "empty band: $(cat band.err)"
if "$voxen" clearance map.vxm --output bad.vxm --ignore-below nan 2> nan.err; then fail "--ignore-below nan was accepted"; fi
echo "clearance_hardening: ok"
