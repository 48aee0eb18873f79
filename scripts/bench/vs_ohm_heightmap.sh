#!/usr/bin/env bash
# Voxen's heightmap beside OHM's ohmheightmap (issue 39): the README's generated run mapped at
# 0.1 m by ohmpopcpu and by voxen map (the options vs_ohm.sh uses), then a heightmap of each map
# with the same clearance (robot height, default 0.8 m), N times taken alternating; the
# computation time as each tool reports it (OHM: "Heightmap generated in", map loading and saving
# excluded; Voxen: `voxen heightmap --json`'s compute_ms), median of N; and the ground heights
# compared cell by cell (scripts/bench/heightmap_compare.py: cells both report, the fraction
# within one voxel, median |dz|). Prints a markdown table on stdout; --json writes the figures.
#
# OHM runs in its default mode (fill: one surface per column, a flood fill from --seed, default
# the trajectory's first pose), no virtual surfaces, no floor or ceiling limit; Voxen with
# --levels 1 (its single-level ground). What each tool calls "the" ground, and where they may
# differ (OHM measures clearance centre to centre and lets only occupied voxels obstruct; it takes
# a column's topmost occupied voxel with clearance 0 when nothing is above it), is written up in
# BENCHMARKS.md, "Voxen's heightmap beside OHM".
#
# OHM is not a Voxen dependency: build it apart (BENCHMARKS.md, "Voxen beside OHM", plus
# -DOHM_FEATURE_HEIGHTMAP=ON and the target ohmheightmaputil) and name its binaries' folder with
# --ohm-bin (ohmpopcpu, ohmheightmap, ohm2ply).
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: scripts/bench/vs_ohm_heightmap.sh --ohm-bin DIR [--repeats N] [--json OUT] [--robot-height M]
                                         [--seed X,Y,Z] [--voxel-mean] [--voxen PATH] [--work DIR]
  --ohm-bin DIR       folder holding ohmpopcpu, ohmheightmap and ohm2ply
  --repeats N         heightmap runs per tool, median time reported (default 3)
  --json OUT          also write the results as JSON
  --robot-height M    OHM's --clearance and Voxen's --robot-height, metres (default 0.8)
  --seed X,Y,Z        OHM's seed (where its fill starts; default: the trajectory's first pose)
  --voxel-mean        map with voxel means in both tools (heights from means, not voxel centres)
  --voxen PATH        the voxen binary (default build/voxen)
  --work DIR          scratch folder for the input, maps and heightmaps (default: a new folder
                      under /tmp); an input and maps already there, made with the same
                      options, are reused
USAGE
}

die_usage() { echo "vs_ohm_heightmap.sh: $*" >&2; usage >&2; exit 2; }
die() { echo "vs_ohm_heightmap.sh: $*" >&2; exit 1; }

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OHM_BIN="" REPEATS=3 JSON="" ROBOT_HEIGHT=0.8 SEED="" VOXEL_MEAN=0 VOXEN="$ROOT/build/voxen" WORK=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ohm-bin|--repeats|--json|--robot-height|--seed|--voxen|--work)
      [[ $# -ge 2 ]] || die_usage "$1 needs a value"
      case "$1" in
        --ohm-bin) OHM_BIN=$2 ;; --repeats) REPEATS=$2 ;; --json) JSON=$2 ;; --robot-height) ROBOT_HEIGHT=$2 ;;
        --seed) SEED=$2 ;; --voxen) VOXEN=$2 ;; --work) WORK=$2 ;;
      esac
      shift 2 ;;
    --voxel-mean) VOXEL_MEAN=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
done
num='[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?'
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || die_usage "--repeats must be a whole number of at least 1, not '$REPEATS'"
[[ $ROBOT_HEIGHT =~ ^$num$ ]] && awk -v h="$ROBOT_HEIGHT" 'BEGIN { exit !(h > 0) }' \
  || die_usage "--robot-height must be a positive number of metres, not '$ROBOT_HEIGHT'"
[[ -z $SEED || $SEED =~ ^$num,$num,$num$ ]] || die_usage "--seed needs three numbers X,Y,Z, not '$SEED'"
[[ -n $OHM_BIN ]] || die_usage "--ohm-bin is needed (the folder of OHM's ohmpopcpu, ohmheightmap, ohm2ply)"
[[ -d $OHM_BIN ]] || die_usage "--ohm-bin: '$OHM_BIN' is not a folder"
for b in ohmpopcpu ohmheightmap ohm2ply; do
  [[ -x $OHM_BIN/$b ]] || die_usage "--ohm-bin: no executable '$OHM_BIN/$b' (build OHM with -DOHM_FEATURE_HEIGHTMAP=ON)"
done
[[ -x $VOXEN ]] || die_usage "--voxen: '$VOXEN' is not an executable (build Voxen first)"
if [[ -n $JSON ]]; then
  [[ -d $(dirname -- "$JSON") ]] || die_usage "--json: the folder of '$JSON' does not exist"
fi
HAVE_VOXEN_HM=1
if ! "$VOXEN" heightmap --help >/dev/null 2>&1; then
  HAVE_VOXEN_HM=0
  echo "vs_ohm_heightmap.sh: '$VOXEN heightmap' is not there (a Voxen without issue 39's heightmap): OHM only" >&2
fi
if [[ -z $WORK ]]; then WORK=$(mktemp -d /tmp/vs_ohm_heightmap.XXXXXX); fi
mkdir -p "$WORK" || die "cannot create --work folder '$WORK'"
export LC_ALL=C  # OHM imbues std::cout with the user's locale: no thousands separators in its times

# --- input: the README's generated run, as vs_ohm.sh makes it ---
IN="$WORK/run"
mkdir -p "$IN"
if [[ ! -s $IN/cloud.ply || ! -s $IN/traj.txt || "$(cat "$IN/params" 2>/dev/null)" != run ]]; then
  rm -f "$IN/params"
  "$VOXEN" generate --cloud "$IN/cloud.ply" --trajectory "$IN/traj.txt" --scans 100 --speed 3 >&2 \
    || die "voxen generate failed"
  echo run >"$IN/params"
fi
if [[ -z $SEED ]]; then
  SEED=$(awk '!/^#/ && NF >= 4 { printf "%s,%s,%s", $2, $3, $4; exit }' "$IN/traj.txt")
  [[ -n $SEED ]] || die "no pose in '$IN/traj.txt' to seed OHM's heightmap"
fi

# --- maps: once each (mapping is vs_ohm.sh's benchmark, not this one's) ---
MEAN_ARGS_OHM=() MEAN_ARGS_VOXEN=()
if [[ $VOXEL_MEAN == 1 ]]; then MEAN_ARGS_OHM=(--voxel-mean); MEAN_ARGS_VOXEN=(--voxel-mean); fi
MAP_PARAMS="resolution 0.1 clamp -2 3.511 voxel-mean $VOXEL_MEAN"
OHM_DIR="$WORK/ohm" VOX_DIR="$WORK/voxen"
mkdir -p "$OHM_DIR" "$VOX_DIR"
if [[ ! -s $OHM_DIR/map.ohm || "$(cat "$OHM_DIR/map.params" 2>/dev/null)" != "$MAP_PARAMS" ]]; then
  rm -f "$OHM_DIR/map.ohm" "$OHM_DIR/map.params"
  echo "vs_ohm_heightmap.sh: mapping with ohmpopcpu" >&2
  "$OHM_BIN/ohmpopcpu" --cloud "$IN/cloud.ply" --trajectory "$IN/traj.txt" --output "$OHM_DIR/map" \
    --resolution=0.1 --clamp=-2,3.511 --save-cloud=false --quiet "${MEAN_ARGS_OHM[@]}" >"$OHM_DIR/map.log" 2>&1 \
    || { tail -n 5 "$OHM_DIR/map.log" >&2; die "ohmpopcpu failed (see $OHM_DIR/map.log)"; }
  echo "$MAP_PARAMS" >"$OHM_DIR/map.params"
fi
if [[ $HAVE_VOXEN_HM == 1 ]] && [[ ! -s $VOX_DIR/map.vxm || "$(cat "$VOX_DIR/map.params" 2>/dev/null)" != "$MAP_PARAMS" ]]; then
  rm -f "$VOX_DIR/map.vxm" "$VOX_DIR/map.params"
  echo "vs_ohm_heightmap.sh: mapping with voxen map" >&2
  "$VOXEN" map --cloud "$IN/cloud.ply" --trajectory "$IN/traj.txt" --output "$VOX_DIR/map.vxm" \
    --resolution 0.1 --clamp -2 3.511 "${MEAN_ARGS_VOXEN[@]}" >"$VOX_DIR/map.log" 2>&1 \
    || { tail -n 5 "$VOX_DIR/map.log" >&2; die "voxen map failed (see $VOX_DIR/map.log)"; }
  echo "$MAP_PARAMS" >"$VOX_DIR/map.params"
fi

# --- heightmaps: alternating, every tool once per round ---
OHM_LOGS=() VOX_JSONS=()
for ((r = 1; r <= REPEATS; r++)); do
  rm -f "$OHM_DIR/hm.ohm"
  if ! "$OHM_BIN/ohmheightmap" "$OHM_DIR/map.ohm" "$OHM_DIR/hm.ohm" --clearance "$ROBOT_HEIGHT" --seed "$SEED" \
       >"$OHM_DIR/hm.$r.log" 2>&1 || [[ ! -s $OHM_DIR/hm.ohm ]]; then
    tail -n 5 "$OHM_DIR/hm.$r.log" >&2
    die "ohmheightmap failed on run $r (see $OHM_DIR/hm.$r.log)"
  fi
  OHM_LOGS+=("$OHM_DIR/hm.$r.log")
  t=$(grep -o 'Heightmap generated in .*' "$OHM_DIR/hm.$r.log" | tail -n 1)
  echo "vs_ohm_heightmap.sh: run $r: OHM ${t:-(no time printed)}" >&2
  if [[ $HAVE_VOXEN_HM == 1 ]]; then
    rm -f "$VOX_DIR/hm.vxh"
    if ! "$VOXEN" heightmap "$VOX_DIR/map.vxm" --output "$VOX_DIR/hm.vxh" --robot-height "$ROBOT_HEIGHT" --levels 1 --json \
         >"$VOX_DIR/hm.$r.json" 2>"$VOX_DIR/hm.$r.err"; then
      tail -n 5 "$VOX_DIR/hm.$r.err" >&2
      die "voxen heightmap failed on run $r (see $VOX_DIR/hm.$r.err)"
    fi
    VOX_JSONS+=("$VOX_DIR/hm.$r.json")
    t=$(grep -o '"compute_ms"[^,}]*' "$VOX_DIR/hm.$r.json" | head -n 1)
    echo "vs_ohm_heightmap.sh: run $r: Voxen ${t:-(no compute_ms)}" >&2
  fi
done

# --- per-cell heights out of each tool ---
"$OHM_BIN/ohm2ply" --map "$OHM_DIR/hm.ohm" --cloud "$OHM_DIR/hm.ply" --mode heightmap --colour type \
  >"$OHM_DIR/export.log" 2>&1 || die "ohm2ply failed on $OHM_DIR/hm.ohm (see $OHM_DIR/export.log)"
COMPARE=(python3 "$HERE/heightmap_compare.py" --ohm "$OHM_DIR/hm.ply" --ohm-log "${OHM_LOGS[@]}")
if [[ $HAVE_VOXEN_HM == 1 ]]; then
  rm -f "$VOX_DIR/hm-height.npy" "$VOX_DIR/hm.json"
  # The arrays: `voxen export HM --npy` where export has it, else `voxen heightmap --npy` in one
  # more run, not timed (the timed runs write no arrays).
  if "$VOXEN" export --help 2>&1 | grep -q -- '--npy'; then
    "$VOXEN" export "$VOX_DIR/hm.vxh" --npy "$VOX_DIR/hm" >"$VOX_DIR/export.log" 2>&1 \
      || die "voxen export --npy failed on $VOX_DIR/hm.vxh (see $VOX_DIR/export.log)"
  else
    "$VOXEN" heightmap "$VOX_DIR/map.vxm" --output "$VOX_DIR/hm-npy.vxh" --robot-height "$ROBOT_HEIGHT" --levels 1 \
      --npy "$VOX_DIR/hm" >"$VOX_DIR/export.log" 2>&1 \
      || die "voxen heightmap --npy failed on $VOX_DIR/map.vxm (see $VOX_DIR/export.log)"
  fi
  COMPARE+=(--voxen "$VOX_DIR/hm" --voxen-json "${VOX_JSONS[@]}")
else
  COMPARE+=(--resolution 0.1)
fi
echo "OHM: ohmheightmap --clearance $ROBOT_HEIGHT --seed $SEED (mode fill, no virtual surfaces); maps at 0.1 m," \
  "voxel mean $([[ $VOXEL_MEAN == 1 ]] && echo on || echo off); $REPEATS run(s) each"
"${COMPARE[@]}" ${JSON:+--json "$JSON"}
echo "vs_ohm_heightmap.sh: maps, heightmaps and logs in $WORK" >&2
