#!/usr/bin/env bash
# How the voxen tool and the samples answer a command line they cannot act on as given:
#   - a mistyped flag or command names the closest known ones ("did you mean --resolution?");
#   - a common flag a command does not act on (--json without a JSON output, --profile with
#     nothing to profile), and a flag that has no effect with another (--technique roi with
#     --cpu), is refused with exit status 2 naming them, never silently ignored;
#   - an error that asks for another value of a setting names the flag that sets it and its
#     value now, and a setting's stated range is the range the command accepts.
#   usage_errors.sh VOXEN TRANSFORM_SCENE VOXEL_PAINTER HELLO_COMPUTE WORK_DIR
# (the samples may be given as "-" where they are not built).
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" cli_usage_errors "$@"
transform_scene=$2 voxel_painter=$3 hello_compute=$4

# expect STATUS COMMAND... -- TEXT...: exits with STATUS and says every TEXT (stderr or stdout).
expect() {
  local want=$1 args=() texts=() status text
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  texts=("$@")
  set +e
  "${args[@]}" > run.out 2>&1
  status=$?
  set -e
  [ $status -eq "$want" ] || fail "${args[*]}: exit status $status (want $want): $(head -c 800 run.out)"
  for text in "${texts[@]}"; do
    grep -qF -- "$text" run.out || fail "${args[*]}: the message lacks '$text': $(head -c 800 run.out)"
  done
}

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 8 --columns 128 --scans 2 --seed 3 > /dev/null
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --cpu --quiet > /dev/null

# Mistyped flags and commands.
expect 2 "$voxen" map --resoltion 0.1 -- "unknown option --resoltion; did you mean --resolution?"
expect 2 "$voxen" map --cloud run.ply --output typo.vxm --hti 0.7 -- "unknown option --hti; did you mean --hit?"
expect 2 "$voxen" export map.vxm --occupid-ply=x.ply -- "unknown option --occupid-ply; did you mean --occupied-ply?"
expect 2 "$voxen" render map.vxm --output x.png --widht 64 -- "did you mean --width?"
expect 2 "$voxen" mpa -- "unknown command 'mpa'; did you mean 'map'?"
expect 2 "$voxen" bench mpa -- "unknown command 'bench mpa'; did you mean 'bench map'?"
expect 2 "$voxen" map --zzzzzzzz 1 -- "unknown option --zzzzzzzz"
if grep -q "did you mean" run.out; then fail "voxen map --zzzzzzzz: a suggestion for a word like no flag: $(cat run.out)"; fi
[ ! -e typo.vxm ] || fail "a mistyped flag still wrote the map"

# Common flags a command does not act on: refused while parsing, before any other check.
expect 2 "$voxen" export --json -- "--json" "voxen export has no JSON output"
expect 2 "$voxen" export map.vxm --occupied-ply x.ply --profile -- "--profile" "does not report GPU time per pass"
expect 2 "$voxen" generate --cloud x.ply --device 0 -- "--device" "opens no Vulkan device"
expect 2 "$voxen" import-octomap x.bt --output x.vxm --hot-reload -- "--hot-reload" "compiles no shaders"
expect 2 "$voxen" selftest --memory-budget 64 -- "--memory-budget"
expect 2 "$voxen" selftest --json -- "--json" "no JSON output"
expect 2 "$voxen" bench map --profile -- "--profile" "always reports its GPU time per pass"
expect 2 "$voxen" info --json -- "--json" "goes with a map file"
expect 2 "$voxen" info map.vxm --device 0 -- "--device has no effect with a map file"
# Whatever a command's help leaves out of the common flags is refused by name, with a reason.
commands=$("$voxen" --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' | grep -vx bench)
benches=$("$voxen" bench --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z-]*\) .*/bench \1/p')
refused=0
while read -r line; do
  read -r -a words <<< "$line"
  help=$("$voxen" "${words[@]}" --help)
  for flag in --device --validation --profile --json --hot-reload --memory-budget; do
    if grep -q -- "^  $flag" <<< "$help"; then continue; fi
    value=(); case $flag in --device) value=(0) ;; --memory-budget) value=(64) ;; esac
    expect 2 "$voxen" "${words[@]}" "$flag" "${value[@]}" -- "$flag: voxen ${words[*]} "
    if grep -q "unknown option" run.out; then fail "voxen ${words[*]} $flag: refused as unknown, without the reason"; fi
    refused=$((refused + 1))
  done
done <<< "$commands"$'\n'"$benches"
[ $refused -ge 15 ] || fail "only $refused common flags are left out of the commands' help: the help lists what they ignore"

# Flags that have no effect with another.
expect 2 "$voxen" clearance map.vxm --range 0.5 --cpu --technique roi -- "--technique roi has no effect with --cpu"
expect 2 "$voxen" clearance map.vxm --range 0.5 --cpu --profile -- "--profile has no effect with --cpu"
expect 2 "$voxen" clearance map.vxm --range 0.5 --cpu --gpu-cache-mb 64 -- "--gpu-cache-mb has no effect with --cpu"
expect 0 "$voxen" clearance map.vxm --range 0.5 --cpu --technique exact --output exact.vxm --
expect 2 "$voxen" map --cloud run.ply --trajectory run.txt --output x.vxm --cpu --gpu-cache-mb 64 -- \
  "--gpu-cache-mb has no effect with --cpu"
expect 2 "$voxen" map --cloud run.ply --trajectory run.txt --output x.vxm --cpu-sequential --device 0 -- \
  "--device 0 and --cpu-sequential contradict each other"
expect 2 "$voxen" map --cloud run.ply --trajectory run.txt --output x.vxm --ndt-sensor-noise 0.1 -- \
  "--ndt-sensor-noise has no effect without --ndt"
expect 2 "$voxen" generate --cloud x.ply --trajectory-rate 50 -- "--trajectory-rate has no effect without --trajectory"
expect 2 "$voxen" export map.vxm --octomap x.bt --scale 1 -- "--scale go with --slice-png"
[ ! -e x.vxm ] && [ ! -e x.ply ] && [ ! -e x.bt ] || fail "a refused command line wrote an output"
if [ "$transform_scene" != - ]; then
  expect 2 "$transform_scene" --frmaes 3 -- "unknown option --frmaes; did you mean --frames?"
  expect 2 "$transform_scene" --headless --every 2 -- "--every has no effect without --output"
fi
if [ "$voxel_painter" != - ]; then
  expect 2 "$voxel_painter" --hedless -- "unknown option --hedless; did you mean --headless?"
  expect 2 "$voxel_painter" --headless --script none.txt --every 2 -- "--every has no effect without --frames-dir"
  expect 2 "$voxel_painter" --headless --script none.txt --no-hot-reload -- "--no-hot-reload has no effect with --headless"
fi
if [ "$hello_compute" != - ]; then
  expect 2 "$hello_compute" --hot-relaod -- "unknown option --hot-relaod; did you mean --hot-reload?"
fi

# A setting's stated range is the one the command accepts, and an error about a setting
# names its flag (and, where another value is needed, the value now).
"$voxen" export map.vxm --octomap tree.bt > /dev/null
for size in 4 128; do
  expect 0 "$voxen" import-octomap tree.bt --output "region-$size.vxm" --region-size $size --
done
for size in 0 3 129; do
  expect 2 "$voxen" import-octomap tree.bt --output bad.vxm --region-size $size -- "--region-size" "from 4 to 128"
done
for size in 4 128; do
  expect 0 "$voxen" map --cloud run.ply --trajectory run.txt --output "region-$size.vxm" --cpu --quiet --region $size --
done
expect 0 "$voxen" map --cloud run.ply --trajectory run.txt --output ndt.vxm --cpu --quiet --ndt om --ndt-reset-probability 0.999 --
expect 2 "$voxen" map --cloud run.ply --trajectory run.txt --output bad.vxm --ndt om --ndt-reset-probability 1 -- \
  "--ndt-reset-probability"
expect 2 "$voxen" map --cloud run.ply --trajectory run.txt --output bad.vxm --miss 0.5 -- "--miss"
expect 2 "$voxen" map --cloud run.ply --trajectory run.txt --output bad.vxm --clamp 0 0 -- \
  "occupancy model: --clamp must be finite with min < max (got 0 and 0)"
expect 1 "$voxen" map --cloud run.ply --trajectory run.txt --output bad.vxm --region 128 --gpu-cache-mb 1 -- \
  "raise --gpu-cache-mb (now 1.0 MiB)"
# The clearance cache grows to what one region's neighbourhood needs (issue 21): what cannot
# grow is the memory budget.
expect 1 "$voxen" clearance map.vxm --range 20 --memory-budget 16 --output bad.vxm -- "raise --memory-budget (now 16 MB)"
expect 1 "$voxen" generate --cloud bad.ply --trajectory bad.txt --rings 1 --columns 1 --scans 1 --rate 0.0001 \
  --trajectory-rate 1000000 -- "lower --trajectory-rate (now 1e+06 Hz)"
expect 1 "$voxen" export map.vxm --slice-png bad.png --z 1 --scale 1024 -- "too large an image" "lower --scale (now 1024)"
[ ! -e bad.vxm ] && [ ! -e bad.ply ] && [ ! -e bad.png ] || fail "a refused or failed run wrote its output"
no_validation run.out
