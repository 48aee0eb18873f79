#!/usr/bin/env bash
# voxen map --ndt end to end: NDT-OM and NDT-TM on the GPU against the CPU reference in the
# same (two-phase) order, the order rules, the NDT layers in the map file, bad NDT values
# named by their flag, and bench ndt's summary.
#   ndt.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" ndt "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 16 --columns 256 --scans 3 --seed 2 > generate.log
for mode in om tm; do
  "$voxen" map --cloud run.ply --trajectory run.txt --output $mode.vxm --json --quiet --ndt $mode > $mode.json 2> $mode.err
  if grep -qi "validation" $mode.err; then fail "validation messages: $(cat $mode.err)"; fi
  # --ndt defaults to the two-phase order, the GPU's NDT order, and the CPU reference follows it.
  grep -q '"update_order":"two-phase"' $mode.json || fail "--ndt $mode: not two-phase: $(cat $mode.json)"
  grep -q "\"ndt\":\"$mode\"" $mode.json || fail "--ndt $mode: the summary does not say so: $(cat $mode.json)"
  "$voxen" map --cloud run.ply --trajectory run.txt --output cpu-$mode.vxm --json --quiet --ndt $mode --cpu > cpu-$mode.json
  [ "$(json_number dropped_updates $mode.json)" = 0 ] || fail "--ndt $mode: updates were dropped"
  for key in rays voxel_updates; do
    [ "$(json_number $key $mode.json)" = "$(json_number $key cpu-$mode.json)" ] || fail "--ndt $mode: GPU and CPU differ in $key"
  done
  gpu_occ=$(json_number occupied_voxels $mode.json)
  cpu_occ=$(json_number occupied_voxels cpu-$mode.json)
  diff=$(( gpu_occ > cpu_occ ? gpu_occ - cpu_occ : cpu_occ - gpu_occ ))
  [ $(( diff * 200 )) -le "$cpu_occ" ] || fail "--ndt $mode: occupied voxels differ by more than 0.5%: GPU $gpu_occ, CPU $cpu_occ"
  # One fold invocation per distinct sample voxel, plus each batch's last partial workgroup.
  voxels=$(json_number ndt_sample_voxels $mode.json)
  invocations=$(json_number ndt_fold_invocations $mode.json)
  [ "$voxels" -gt 1000 ] || fail "--ndt $mode: too few sample voxels: $(cat $mode.json)"
  [ "$invocations" -ge "$voxels" ] && [ "$invocations" -lt $(( voxels + 64 )) ] ||
    fail "--ndt $mode: $invocations fold invocations for $voxels sample voxels"
  "$voxen" info $mode.vxm > info-$mode.log
  grep -q "ndt_covariance" info-$mode.log || fail "info does not show the NDT layers: $(cat info-$mode.log)"
done
grep -q "ndt_intensity" info-tm.log || fail "info does not show NDT-TM's intensity layer"
grep -q "NDT-TM layers" info-tm.log || fail "info does not name the NDT mode: $(cat info-tm.log)"
"$voxen" info om.vxm --verify --json > info-om.json
grep -q '"ndt":"om"' info-om.json || fail "info --json: ndt mode: $(cat info-om.json)"
[ "$(json_number with_3_or_more_samples info-om.json)" -gt 100 ] || fail "info --verify: too few Gaussians: $(cat info-om.json)"
# The Gaussians as ellipsoids; a map without them is refused, naming the file and the flag that makes them.
"$voxen" export om.vxm --ellipsoids-ply ellipsoids.ply --sigma 2 > export.log
head -c 2000 ellipsoids.ply | grep -aq "element face" || fail "--ellipsoids-ply: no faces: $(cat export.log)"
grep -q "NDT ellipsoids" export.log || fail "--ellipsoids-ply: no summary: $(cat export.log)"
"$voxen" map --cloud run.ply --trajectory run.txt --output plain.vxm --quiet > plain.log
if "$voxen" export plain.vxm --ellipsoids-ply plain-e.ply 2> plain.err; then fail "--ellipsoids-ply accepted a plain map"; fi
grep -q "plain.vxm" plain.err && grep -q -- "--ndt om" plain.err || fail "--ellipsoids-ply on a plain map: unclear error: $(cat plain.err)"
[ ! -e plain-e.ply ] || fail "a refused export wrote its output"
if "$voxen" export om.vxm --occupied-ply x.ply --sigma 3 2> sigma.err; then fail "--sigma without --ellipsoids-ply was accepted"; fi
# NDT maps render their occupied voxels.
"$voxen" render om.vxm --output om.png > render.log 2>&1 || fail "render of an NDT map failed: $(cat render.log)"
[ -s om.png ] || fail "render wrote no picture"
# The CPU reference runs NDT ray after ray too; the GPU refuses that order, naming the flags.
"$voxen" map --cloud run.ply --trajectory run.txt --output seq.vxm --json --quiet --ndt om --cpu --update-order sequential > seq.json
grep -q '"update_order":"sequential"' seq.json || fail "--cpu --update-order sequential --ndt om: $(cat seq.json)"
if "$voxen" map --cloud run.ply --trajectory run.txt --output x.vxm --quiet --ndt om --update-order sequential 2> order.err; then
  fail "the GPU accepted --ndt with --update-order sequential"
fi
grep -q -- "--update-order sequential needs --cpu" order.err || fail "sequential NDT on the GPU: unclear error: $(cat order.err)"
[ ! -e x.vxm ] || fail "a refused run wrote its output"
# Bad values name their flag.
for bad in "--ndt xm" "--ndt om --ndt-sensor-noise 0" "--ndt om --ndt-adaptation-rate 1.5" "--ndt om --ndt-sample-threshold 0"; do
  flag=$(echo "$bad" | awk '{print $(NF-1)}')
  if "$voxen" map --cloud run.ply --trajectory run.txt --output x.vxm --quiet $bad 2> bad.err; then fail "accepted: $bad"; fi
  grep -q -- "$flag" bad.err || fail "$bad: the error does not name $flag: $(cat bad.err)"
done
if "$voxen" map --cloud run.ply --trajectory run.txt --output x.vxm --quiet --ndt om --stop-on-occupied 2> stop.err; then
  fail "--ndt with --stop-on-occupied was accepted"
fi
# bench ndt reports the rates, the fold's invocations per voxel and the grazing wall.
"$voxen" bench ndt --rays 65536 --repeat 1 --json > bench.json
for key in ndt_om_over_plain_two_phase_median fold_invocations_per_sample_voxel plain_hit_pass_ms ndt_hit_passes_ms; do
  [ -n "$(json_number $key bench.json)" ] || fail "bench ndt summary lacks $key: $(cat bench.json)"
done
awk -v r="$(json_number fold_invocations_per_sample_voxel bench.json)" 'BEGIN { exit !(r >= 1 && r < 1.05) }' ||
  fail "bench ndt: fold invocations per sample voxel: $(cat bench.json)"
grep -q '"NDT-OM, GPU (two-phase)":0.9' bench.json || fail "bench ndt: the grazing wall lost NDT-OM voxels: $(cat bench.json)"
echo "ndt: ok"
