#!/usr/bin/env bash
# A heightmap's 2D outputs through voxen export (issue 39 item 2): a generated run, mapped,
# made a heightmap, then --nav2 (map_server trinary pair), --costmap --inflation (raw pair),
# --height-png, --cost-png, --level and --npy; and the refusals: a map flag on a heightmap, a
# heightmap flag on a map, --inflation without --costmap, a missing file, an output that is a
# folder, a level the heightmap lacks; a failed export leaves existing outputs as they were.
#   heightmap_export.sh VOXEN_BINARY WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" heightmap_export "$@"

"$voxen" generate --cloud run.ply --trajectory run.txt --rings 32 --columns 512 --scans 3 --seed 2 > generate.log
"$voxen" map --cloud run.ply --trajectory run.txt --output map.vxm --resolution 0.1 --quiet > map.log
"$voxen" heightmap map.vxm --output hm.vxh --levels 2 > heightmap.log 2> heightmap.err || fail "heightmap: $(cat heightmap.err)"
no_validation heightmap.err heightmap
yaml_field() { grep "^$1: " "$2" | cut -d' ' -f2-; }
png_width() { od -An -tu1 -j16 -N4 "$1" | awk '{ print ($1 * 16777216) + ($2 * 65536) + ($3 * 256) + $4 }'; }

# Every output in one run.
"$voxen" export hm.vxh --nav2 site.yaml --costmap cost.yaml --inflation 0.5 --height-png height.png --cost-png costs.png \
  --npy arrays > export.log 2> export.err || fail "export: $(cat export.err)"
for f in site.yaml site.pgm cost.yaml cost.pgm height.png height.yaml costs.png costs.yaml arrays-height.npy arrays-cost.npy \
  arrays.json; do
  [ -s "$f" ] || fail "no $f: $(cat export.log)"
done

# The Nav2 pair: map_server's fields, a P5 PGM of the heightmap's size, and the three values.
[ "$(yaml_field image site.yaml)" = site.pgm ] || fail "site.yaml image: $(cat site.yaml)"
[ "$(yaml_field mode site.yaml)" = trinary ] || fail "site.yaml mode: $(cat site.yaml)"
[ "$(yaml_field resolution site.yaml)" = 0.1 ] || fail "site.yaml resolution: $(cat site.yaml)"
[ "$(yaml_field negate site.yaml)" = 0 ] || fail "site.yaml negate"
[ "$(yaml_field occupied_thresh site.yaml)" = 0.65 ] || fail "site.yaml occupied_thresh"
[ "$(yaml_field free_thresh site.yaml)" = 0.196 ] || fail "site.yaml free_thresh (205 must stay unknown)"
grep -q '^origin: \[-\?[0-9.e-]*, -\?[0-9.e-]*, 0.0\]$' site.yaml || fail "site.yaml origin: $(cat site.yaml)"
[ "$(head -n 1 site.pgm)" = P5 ] || fail "site.pgm is not a binary PGM"
size=$(sed -n 3p site.pgm)
width=$(grep -o '"width": *[0-9]*' arrays.json | grep -o '[0-9]*$')
height=$(grep -o '"height": *[0-9]*' arrays.json | grep -o '[0-9]*$')
[ "$size" = "$width $height" ] || fail "site.pgm is $size, the heightmap $width x $height"
values=$(tail -c $((width * height)) site.pgm | od -An -tu1 -v | tr -s ' ' '\n' | grep -v '^$' | sort -un | tr '\n' ' ')
for v in $values; do case $v in 0|205|254) ;; *) fail "site.pgm holds $v (values: $values)";; esac; done
case " $values" in *" 254 "*) ;; *) fail "site.pgm has no free cell: $values";; esac
grep -q "free, [0-9]* occupied, [0-9]* unknown" export.log || fail "no counts: $(cat export.log)"
# The costmap: raw, values 0..100 and 255.
[ "$(yaml_field mode cost.yaml)" = raw ] || fail "cost.yaml mode: $(cat cost.yaml)"
[ "$(yaml_field image cost.yaml)" = cost.pgm ] || fail "cost.yaml image"
tail -c $((width * height)) cost.pgm | od -An -tu1 -v | tr -s ' ' '\n' | grep -v '^$' | sort -un |
  awk '$1 > 100 && $1 != 255 { bad = 1 } END { exit bad }' || fail "cost.pgm holds a value outside 0..100 and 255"
grep -q "inflated" export.log || fail "no costmap summary: $(cat export.log)"
# The pictures: framed (wider than the grid), each with its YAML.
[ "$(png_width height.png)" -gt "$width" ] || fail "height.png is not framed"
[ "$(yaml_field image height.yaml)" = height.png ] || fail "height.yaml image"
# A larger inflation inflates more.
"$voxen" export hm.vxh --costmap wide.yaml --inflation 1.5 > wide.log
narrow=$(grep -o '[0-9]* inflated' export.log | cut -d' ' -f1)
wide=$(grep -o '[0-9]* inflated' wide.log | cut -d' ' -f1)
[ "$wide" -gt "$narrow" ] || fail "inflation 1.5 m inflated $wide cells, 0.5 m $narrow"
# --nav2-max-cost: more occupied, never fewer.
"$voxen" export hm.vxh --nav2 strict.yaml --nav2-max-cost 0 > strict.log
occ() { grep -o '[0-9]* occupied' "$1" | cut -d' ' -f1; }
[ "$(occ strict.log)" -ge "$(occ export.log)" ] || fail "--nav2-max-cost 0 has fewer occupied cells"
# --level 1 (the heightmap keeps 2).
"$voxen" export hm.vxh --nav2 upper.yaml --level 1 > upper.log || fail "--level 1"

# Refusals, each naming the flag, and nothing written.
expect_error() {  # expect_error PATTERN ARGS...
  local pattern=$1
  shift
  if "$voxen" export "$@" > err.out 2> err.log; then fail "export $* succeeded"; fi
  grep -q -- "$pattern" err.log || fail "export $*: no '$pattern' in: $(cat err.log)"
}
expect_error "--occupied-ply" hm.vxh --occupied-ply x.ply
expect_error "--slice-png" hm.vxh --nav2 n.yaml --slice-png x.png --z 1
[ ! -e n.yaml ] || fail "a refused export wrote n.yaml"
expect_error "--nav2" map.vxm --nav2 n.yaml
expect_error "--height-png" map.vxm --occupied-ply x.ply --height-png h.png
[ ! -e x.ply ] || fail "a refused export wrote x.ply"
expect_error "--inflation goes with --costmap" hm.vxh --nav2 n.yaml --inflation 0.5
expect_error "--costmap needs --inflation" hm.vxh --costmap c.yaml
expect_error "--level" hm.vxh --nav2 n.yaml --level 3
expect_error "missing.vxh" missing.vxh --nav2 n.yaml
mkdir folder.yaml
expect_error "--nav2" hm.vxh --nav2 folder.yaml
mkdir other.pgm
expect_error "--nav2's PGM" hm.vxh --nav2 other.yaml
[ ! -e other.yaml ] || fail "a refused export wrote other.yaml"
# A failed export never destroys an existing output: the pair as it was.
cp site.yaml keep.yaml && cp site.pgm keep.pgm
mkdir costs-blocked.png
expect_error "--cost-png" hm.vxh --nav2 site.yaml --cost-png costs-blocked.png
cmp -s site.yaml keep.yaml && cmp -s site.pgm keep.pgm || fail "a failed export changed site.yaml/site.pgm"
# A heightmap file that is cut short is named.
head -c 100 hm.vxh > short.vxh
expect_error "short.vxh" short.vxh --nav2 n.yaml
# --help documents the heightmap outputs.
"$voxen" export --help > help.txt
for flag in --nav2 --nav2-max-cost --costmap --inflation --height-png --cost-png --level --npy; do
  grep -q -- "$flag" help.txt || fail "export --help lacks $flag"
done
echo "heightmap_export: ok"
