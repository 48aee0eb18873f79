#!/usr/bin/env bash
# The README's heightmap pictures: a generated terrain (voxen generate --scene terrain: ramps,
# a bridge over a passage, a table, steps), mapped with voxel means, its heightmap for a 0.8 m
# robot with the default limits (30 degrees, 0.2 m steps), and level 0's height and cost as
# PNGs with their colour bars and metre axes.
#   scripts/readme_heightmap_pictures.sh [OUT_DIR]
# Run from the repository root after the build (./build/voxen, or $VOXEN); OUT_DIR defaults to
# docs/images and gets heightmap-terrain-height.png and heightmap-terrain-cost.png. About a
# minute on lavapipe.
set -euo pipefail
voxen=${VOXEN:-./build/voxen}
out=${1:-docs/images}
[ -x "$voxen" ] || { echo "readme_heightmap_pictures: no $voxen (build first, or set VOXEN)" >&2; exit 1; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One loop round the terrain (about 65 m at 3 m/s); the sensor 1.5 m up (the terrain's default).
"$voxen" generate --scene terrain --cloud "$work/terrain.ply" --trajectory "$work/terrain.txt" --scans 220 --speed 3 > "$work/generate.log"
"$voxen" map --cloud "$work/terrain.ply" --trajectory "$work/terrain.txt" --output "$work/terrain.vxm" --voxel-mean --quiet > "$work/map.log"
# The part round the features (the ground runs on to x -5..25, y -10..10).
"$voxen" heightmap "$work/terrain.vxm" --output "$work/terrain.vxh" --bbox 0.5 -4.5 -1 19.5 4.5 3 --quiet > "$work/heightmap.log"
# voxen export writes a YAML beside each PNG (its placement in the world): the README shows the PNGs only.
"$voxen" export "$work/terrain.vxh" --height-png "$work/height.png" --cost-png "$work/cost.png" > "$work/export.log"
cp "$work/height.png" "$out/heightmap-terrain-height.png"
cp "$work/cost.png" "$out/heightmap-terrain-cost.png"
cat "$work/heightmap.log"
echo "wrote $out/heightmap-terrain-height.png and $out/heightmap-terrain-cost.png"
