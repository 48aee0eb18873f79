#!/usr/bin/env bash
# Benchmark of mapping into a region store (issue 25): the README's run mapped into a map file
# (the reference), into a store with default settings, and into a store with --host-memory-mb at
# a quarter of the map's size, alternating, REPEATS times each; then a map of about 20,000
# regions (scripts/bench/long_corridor_rays.py, 8 km of track) into a store with a 256 MB host
# limit. Prints a table of medians (wall, ratio to the reference, peak resident memory,
# checkpoints) and writes the figures as JSON. Every store is checked to hold the reference's
# map (voxen convert, then cmp).
#   scripts/bench/store_mapping.sh [--voxen build/voxen] [--work DIR] [--repeats 3] [--json OUT.json] [--no-large]
set -euo pipefail
voxen=build/voxen work=build/bench-store repeats=3 json="" large=1
while [ $# -gt 0 ]; do
  case $1 in
    --voxen) voxen=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    --no-large) large=0; shift ;;
    *) echo "store_mapping.sh: unknown option $1 (see the top of this script)" >&2; exit 2 ;;
  esac
done
voxen=$(realpath "$voxen")
here=$(dirname "$(realpath "$0")")
mkdir -p "$work" && cd "$work"
[ -f run.ply ] || "$voxen" generate --cloud run.ply --trajectory run.txt --scans 100 --speed 3 > /dev/null
run=(--cloud run.ply --trajectory run.txt --quiet --json)
"$voxen" map "${run[@]}" --output ref.vxm > ref.json
map_mb=$("$voxen" info ref.vxm --json | python3 -c "import json,sys; print(json.load(sys.stdin)['memory_bytes'] / 2**20)")
quarter=$(python3 -c "import math; print(max(1, math.floor($map_mb / 4)))")

field() { python3 -c "import json,sys; d=json.load(open('$1')); print(eval('d' + ''.join('[\"%s\"]' % k for k in '$2'.split('.'))))"; }
declare -A walls rss ckpt
for ((i = 1; i <= repeats; i++)); do
  for kind in file store quarter; do
    rm -f out.vxm out.vxs out.vxs-wal out.vxs-shm
    case $kind in
      file) "$voxen" map "${run[@]}" --output out.vxm > $kind.json ;;
      store) "$voxen" map "${run[@]}" --store out.vxs > $kind.json ;;
      quarter) "$voxen" map "${run[@]}" --store out.vxs --host-memory-mb "$quarter" > $kind.json ;;
    esac
    if [ $kind != file ]; then
      "$voxen" convert out.vxs out.vxm > /dev/null
      ckpt[$kind]+="$(field $kind.json store.checkpoints) "
    fi
    cmp -s ref.vxm out.vxm || { echo "store_mapping.sh: the $kind run's map differs from the reference" >&2; exit 1; }
    walls[$kind]+="$(field $kind.json wall_s) "
    rss[$kind]+="$(field $kind.json peak_rss_mb) "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
ref_wall=$(echo "${walls[file]}" | median)
echo "README run (6.5 M rays, map $(printf %.1f "$map_mb") MB), median of $repeats, alternating; $("$voxen" info 2>/dev/null | head -1)"
printf "| %-44s | %8s | %8s | %13s | %11s |\n" "run" "wall s" "vs file" "peak RSS MB" "checkpoints"
printf "|%s|%s|%s|%s|%s|\n" "----------------------------------------------" "----------" "----------" "---------------" "-------------"
out="{\"map_mb\": $map_mb, \"quarter_mb\": $quarter, \"repeats\": $repeats"
for kind in file store quarter; do
  w=$(echo "${walls[$kind]}" | median) r=$(echo "${rss[$kind]}" | median)
  c=$([ $kind = file ] && echo "-" || echo "${ckpt[$kind]}" | median)
  label=$(case $kind in file) echo "--output run.vxm (reference)" ;; store) echo "--store (defaults: checkpoint every 30 s)" ;;
    quarter) echo "--store --host-memory-mb $quarter (a quarter)" ;; esac)
  ratio=$(python3 -c "print('%.2f' % ($w / $ref_wall))")
  printf "| %-44s | %8s | %8s | %13s | %11s |\n" "$label" "$w" "${ratio}x" "$r" "$c"
  out+=", \"$kind\": {\"wall_s\": $w, \"ratio\": $ratio, \"peak_rss_mb\": $r, \"walls\": \"${walls[$kind]% }\"}"
done
if [ $large = 1 ]; then
  [ -f long.ply ] || python3 "$here/long_corridor_rays.py" long.ply --length 8000 2> /dev/null
  rm -f long.vxs long.vxs-wal long.vxs-shm
  "$voxen" map --cloud long.ply --store long.vxs --host-memory-mb 256 --batch-size 16384 --quiet --json > long.json
  echo
  echo "A map of $(field long.json regions) regions ($(python3 -c "print(round($(field long.json regions) * 128 / 1024))") MB in memory) into a store, --host-memory-mb 256 --batch-size 16384:"
  echo "  wall $(field long.json wall_s) s, peak resident memory $(field long.json peak_rss_mb) MB, host map at most" \
    "$(field long.json store.host_map_peak_mb) MB, $(field long.json store.checkpoints) checkpoints" \
    "($(field long.json store.checkpoint_s) s), $(field long.json store.evictions) regions dropped, $(field long.json store.fetches) read back"
  out+=", \"large\": $(cat long.json)"
fi
out+="}"
[ -z "$json" ] || echo "$out" > "$json"
