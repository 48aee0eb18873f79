#!/usr/bin/env bash
# A real-GPU run that is kept: on a lent GPU machine (the device tool's `run`, in the repo's
# root), the sequence BENCHMARKS.md's real-GPU section is made from. It unpacks the Vulkan
# loader's packages into / (dpkg -x, as the device guide says: the machine is bare), points the
# loader at the NVIDIA driver's ICD, unpacks the bundle, and runs
#   ./voxen info
#   ./voxen check --json                                       > $OUT/DATE-DEVICE-check.json
#   ./voxen bench all --budget-s 300 --json $OUT/DATE-DEVICE-all.json --markdown $OUT/DATE-DEVICE-all.md
# DATE is the day (UTC, YYYY-MM-DD) and DEVICE the GPU's name as voxen check reports it, in
# lower case with every run of other characters than letters and digits made one '-'
# ("nvidia-h100-80gb-hbm3"): the names benchmarks/results/ keeps them under.
#
# Here, before the run (once per session):
#   scripts/bundle.sh                    -> dist/voxen-<version>-linux-x86_64.tar.gz
#   the loader's packages in .gl/        (/work/.library/device/README.md: apt-get download
#                                         libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
# then run `bash scripts/device_run.sh` there with carry [".gl", "dist"] and a timeout of 600 s
# (voxen check takes about 50 s on an H100, bench all its 300 s budget). Afterwards, here:
#   cp <files_at>/*-check.json <files_at>/*-all.json <files_at>/*-extras.txt benchmarks/results/
#   python3 scripts/benchmarks_table.py          (rewrites BENCHMARKS.md's generated block)
# and commit the two JSON files with BENCHMARKS.md. Never write such a file by hand.
#
#   scripts/device_run.sh [BUNDLE.tar.gz]   (default: the one dist/voxen-*.tar.gz)
# Environment: OUT (required: where the results go), BUDGET_S (bench all's budget, default
# 300), DATE (default: today, UTC), SKIP_BENCH_ALL=1 (a quick rerun: check and the extras only).
set -euo pipefail

die() { echo "device_run.sh: $*" >&2; exit 1; }

[ -n "${OUT:-}" ] || die "OUT is not set: it names the folder the results go to (the device tool sets it)"
mkdir -p "$OUT"
repo=$(pwd)
bundle=${1:-}
if [ -z "$bundle" ]; then
  shopt -s nullglob
  bundles=("$repo"/dist/voxen-*.tar.gz)
  shopt -u nullglob
  [ ${#bundles[@]} -eq 1 ] || die "expected one dist/voxen-*.tar.gz, found ${#bundles[@]}: make it with scripts/bundle.sh (and carry dist)"
  bundle=${bundles[0]}
fi
[ -f "$bundle" ] || die "no bundle $bundle"

# The Vulkan loader and GL dispatch libraries: the machine comes without them.
shopt -s nullglob
debs=("$repo"/.gl/*.deb)
shopt -u nullglob
[ ${#debs[@]} -gt 0 ] || die "no .gl/*.deb: download the loader's packages into .gl (see the top of this script) and carry .gl"
for f in "${debs[@]}"; do dpkg -x "$f" /; done
ldconfig

# The NVIDIA driver's ICD, wherever this machine keeps it.
icd=$(find / \( -path /proc -o -path /sys \) -prune -o -name 'nvidia_icd*.json' -print 2>/dev/null | head -1)
[ -n "$icd" ] || die "no nvidia_icd*.json on this machine: is it a GPU machine?"
export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
echo "device_run.sh: Vulkan driver $icd"

work=$(mktemp -d)
tar -xzf "$bundle" -C "$work"
cd "$work"/voxen-*/

./voxen info | tee "$OUT/info.txt"
# The results' names: the date and the device as voxen check names it.
./voxen check --json > "$work/check.json" || echo "device_run.sh: voxen check exited with $? (its JSON is kept)"
# (No Python: the machine may have none. The JSON is one line: {"device":{"name":"...",...)
name=$(sed -n 's/^{"device":{"name":"\([^"]*\)".*/\1/p' "$work/check.json")
[ -n "$name" ] || die "voxen check wrote no JSON with a device name: $(head -c 400 "$work/check.json")"
device=$(printf '%s' "$name" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9][^a-z0-9]*/-/g; s/^-//; s/-$//')
stem=${DATE:-$(date -u +%F)}-$device
cp "$work/check.json" "$OUT/$stem-check.json"
if [ "${SKIP_BENCH_ALL:-0}" = 1 ]; then
  echo "device_run.sh: SKIP_BENCH_ALL=1: no bench all this time (a quick rerun: check and the extras)"
else
  ./voxen bench all --budget-s "${BUDGET_S:-300}" --json "$OUT/$stem-all.json" --markdown "$OUT/$stem-all.md" ||
    echo "device_run.sh: voxen bench all exited with $? (its JSON is kept)"
fi

# Issue 37's figures that bench all does not give, into one log ($stem-extras.txt):
# the exact maps and pictures without float64 (VOXEN_NO_FLOAT64=1 check core), the painter
# without float64 beside the plain one, the README's main job end to end (wall and summary
# line), and a 100-ray map with --device auto (start-up for small inputs).
{
  TIMEFORMAT='wall_s %R'
  echo "## VOXEN_NO_FLOAT64=1 voxen check --only core"
  VOXEN_NO_FLOAT64=1 ./voxen check --only core || echo "(exit $?)"
  echo "## voxen bench paint --json, plain then VOXEN_NO_FLOAT64=1"
  ./voxen bench paint --frames 200 --json || echo "(exit $?)"
  VOXEN_NO_FLOAT64=1 ./voxen bench paint --frames 200 --json || echo "(exit $?)"
  echo "## the README's main job: generate, then voxen map (timed)"
  ./voxen generate --cloud "$work/run.ply" --trajectory "$work/run.txt" --scans 100 --speed 3 >/dev/null
  time ./voxen map --cloud "$work/run.ply" --trajectory "$work/run.txt" --output "$work/run.vxm"
  echo "## a 100-ray map with --device auto (timed)"
  ./voxen generate --cloud "$work/small.ply" --trajectory "$work/small.txt" --rings 1 --columns 100 --scans 1 >/dev/null
  time ./voxen map --cloud "$work/small.ply" --trajectory "$work/small.txt" --output "$work/small.vxm"
  echo "## the heightmap (issue 39): a synthetic terrain of 20, 40 and 100 m at 0.1 m, then the README run's map"
  ./voxen bench heightmap --size 20 40 100 --json || echo "(exit $?)"
  ./voxen bench heightmap --live --json || echo "(exit $?)"
  ./voxen bench distance --size 1000 2000 --json || echo "(exit $?)"
  echo "## the TSDF (issue 40): 640 x 480 depth frames at 2 and 5 cm, GPU beside the CPU reference, and the mesh"
  ./voxen bench tsdf --frames 30 --json || echo "(exit $?)"
  echo "## live streams (issue 41): a 64 x 1024 lidar at 10 Hz through a local Foxglove server, latency to the map, serve cost"
  ./voxen bench live --repeat 3 --json || echo "(exit $?)"
  ./voxen heightmap "$work/run.vxm" --output "$work/run.vxh" --json || echo "(exit $?)"
} > "$OUT/$stem-extras.txt" 2>&1 || echo "device_run.sh: the extras stopped early (see $stem-extras.txt)"
echo "device_run.sh: kept $stem-check.json, $stem-all.json, $stem-all.md and $stem-extras.txt: copy the JSON files and the extras to benchmarks/results/ and run scripts/benchmarks_table.py"
