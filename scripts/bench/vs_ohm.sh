#!/usr/bin/env bash
# Voxen beside OHM (issue 26): the same rays through OHM's CPU mapper (ohmpopcpu), OHM's
# OpenCL mapper (ohmpopocl --accel cpu), voxen map in its default sequential order and in
# the two-phase order; wall time, CPU time (user+sys) and peak resident memory from
# /usr/bin/time, median of N runs taken alternating (so a busy spell on a shared machine
# falls on every tool alike), and each map's Jaccard index of occupied voxels against
# OHM CPU's map. Prints a markdown table on stdout; --json writes the same figures.
#
# Inputs:
#   run   the README's generated run (voxen generate --scans 100 --speed 3: 6.55 M rays)
#   scan  a real scan from one fixed sensor (--scan FILE.pcd), repeated 5 times; used in
#         BENCHMARKS.md: PCL's test/office1.pcd (github.com/PointCloudLibrary/pcl, BSD
#         licence of that repository; 1.9 MB, so not committed here). Get it with
#           curl -LO https://raw.githubusercontent.com/PointCloudLibrary/pcl/master/test/office1.pcd
#         scripts/bench/pcd_to_rays.py turns it into a timed cloud plus a trajectory that
#         holds the sensor at the PCD's VIEWPOINT, the whole scan moved by --scan-shift
#         (default 0.0123,0.0457,0.0311 m): at VIEWPOINT 0,0,0 every ray starts on a voxel
#         corner, where OHM's and Voxen's tie rules pick different first voxels (Jaccard
#         0.989 there, 1.0000 once moved); --scan-shift 0,0,0 keeps the PCD's own frame.
#   tiny  100 rays (the issue's start-up figure): the scan's first 100 rays when --scan is
#         given, else a 100-ray generated scan.
# OHM is not a Voxen dependency: build it apart (see BENCHMARKS.md, "Voxen beside OHM")
# and name its binaries' folder with --ohm-bin; without it the OHM columns are skipped.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: scripts/bench/vs_ohm.sh [--ohm-bin DIR] [--ohm-accel cpu|gpu] [--scan FILE.pcd] [--repeats N] [--json OUT]
                               [--scan-shift X,Y,Z] [--voxen PATH] [--work DIR] [--inputs run,scan,tiny]
  --ohm-bin DIR   folder holding ohmpopcpu, ohmpopocl and ohm2ply (OHM columns skipped without)
  --ohm-accel cpu|gpu  the OpenCL device ohmpopocl maps on (default cpu: pocl on a machine without a GPU)
  --scan FILE     a PCD scan from one fixed sensor (e.g. PCL's test/office1.pcd)
  --scan-shift X,Y,Z  moves the scan and its sensor (default 0.0123,0.0457,0.0311; 0,0,0: the PCD's frame)
  --repeats N     runs per tool and input, median reported (default 3)
  --json OUT      also write the results as JSON
  --voxen PATH    the voxen binary (default build/voxen)
  --work DIR      scratch folder for inputs and maps (default: a new folder under /tmp);
                  inputs already there are reused
  --inputs LIST   which inputs to run (default: run,scan,tiny; scan needs --scan)
USAGE
}

die_usage() { echo "vs_ohm.sh: $*" >&2; usage >&2; exit 2; }
die() { echo "vs_ohm.sh: $*" >&2; exit 1; }

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SHIFT=0.0123,0.0457,0.0311 OHM_BIN="" OHM_ACCEL=cpu SCAN="" REPEATS=3 JSON="" VOXEN="$ROOT/build/voxen" WORK="" INPUTS="run,scan,tiny"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ohm-bin|--ohm-accel|--scan|--scan-shift|--repeats|--json|--voxen|--work|--inputs)
      [[ $# -ge 2 ]] || die_usage "$1 needs a value"
      case "$1" in
        --ohm-bin) OHM_BIN=$2 ;; --ohm-accel) OHM_ACCEL=$2 ;; --scan) SCAN=$2 ;; --scan-shift) SHIFT=$2 ;; --repeats) REPEATS=$2 ;; --json) JSON=$2 ;;
        --voxen) VOXEN=$2 ;; --work) WORK=$2 ;; --inputs) INPUTS=$2 ;;
      esac
      shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
done
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || die_usage "--repeats must be a whole number of at least 1, not '$REPEATS'"
[[ -x $VOXEN ]] || die_usage "--voxen: '$VOXEN' is not an executable (build Voxen first)"
num='[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?'
[[ $SHIFT =~ ^$num,$num,$num$ ]] || die_usage "--scan-shift needs three numbers X,Y,Z, not '$SHIFT'"
[[ -z $SCAN || -r $SCAN ]] || die_usage "--scan: cannot read '$SCAN'"
[[ -z $OHM_BIN || -d $OHM_BIN ]] || die_usage "--ohm-bin: '$OHM_BIN' is not a folder"
[[ $OHM_ACCEL == cpu || $OHM_ACCEL == gpu ]] || die_usage "--ohm-accel must be cpu or gpu, not '$OHM_ACCEL'"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is needed for CPU time and peak memory (apt-get install time)"
IFS=, read -r -a INPUT_LIST <<<"$INPUTS"
for i in "${INPUT_LIST[@]}"; do
  case "$i" in run|tiny) ;; scan) [[ -n $SCAN ]] || die_usage "--inputs scan needs --scan FILE" ;;
    *) die_usage "--inputs: unknown input '$i' (run, scan, tiny)" ;; esac
done
if [[ -n $JSON ]]; then
  [[ -d $(dirname -- "$JSON") ]] || die_usage "--json: the folder of '$JSON' does not exist"
fi
if [[ -z $WORK ]]; then WORK=$(mktemp -d /tmp/vs_ohm.XXXXXX); fi
mkdir -p "$WORK" || die "cannot create --work folder '$WORK'"

TOOLS=()
if [[ -n $OHM_BIN ]]; then
  if [[ -x $OHM_BIN/ohmpopcpu ]]; then TOOLS+=(ohm_cpu); else echo "vs_ohm.sh: no $OHM_BIN/ohmpopcpu: OHM CPU skipped" >&2; fi
  if [[ -x $OHM_BIN/ohmpopocl ]]; then TOOLS+=(ohm_ocl); else echo "vs_ohm.sh: no $OHM_BIN/ohmpopocl: OHM OpenCL skipped" >&2; fi
else
  echo "vs_ohm.sh: no --ohm-bin: OHM columns skipped" >&2
fi
TOOLS+=(voxen_seq voxen_2p voxen_1p)

# --- inputs: a timed cloud and a trajectory each, read the same way by OHM and Voxen ---
prepare() {
  local in=$1 d="$WORK/$1" params
  mkdir -p "$d"
  params="$in ${SCAN:+$(realpath -- "$SCAN")} $SHIFT"
  [[ $in == run ]] && params=run
  # Reused only when made from the same scan and shift.
  [[ -s $d/cloud.ply && -s $d/traj.txt && "$(cat "$d/params" 2>/dev/null)" == "$params" ]] && return 0
  rm -f "$d/params"
  case "$in" in
    run) "$VOXEN" generate --cloud "$d/cloud.ply" --trajectory "$d/traj.txt" --scans 100 --speed 3 >&2 ;;
    scan) python3 "$HERE/pcd_to_rays.py" "$SCAN" --cloud "$d/cloud.ply" --trajectory "$d/traj.txt" --repeat 5 --shift "$SHIFT" ;;
    tiny)
      if [[ -n $SCAN ]]; then
        python3 "$HERE/pcd_to_rays.py" "$SCAN" --cloud "$d/cloud.ply" --trajectory "$d/traj.txt" --repeat 1 --limit 100 --shift "$SHIFT"
      else
        "$VOXEN" generate --cloud "$d/cloud.ply" --trajectory "$d/traj.txt" --scans 1 --rings 1 --columns 100 >&2
      fi ;;
  esac
  echo "$params" >"$d/params"
}
for i in "${INPUT_LIST[@]}"; do prepare "$i" || die "could not prepare input '$i'"; done

tool_cmd() {  # tool input outdir -> the command line, in CMD
  local t=$1 d="$WORK/$2" o=$3
  case "$t" in
    ohm_cpu) CMD=("$OHM_BIN/ohmpopcpu" --cloud "$d/cloud.ply" --trajectory "$d/traj.txt" --output "$o/map"
                  --resolution=0.1 --clamp=-2,3.511 --save-cloud=false --quiet) ;;
    ohm_ocl) CMD=("$OHM_BIN/ohmpopocl" --cloud "$d/cloud.ply" --trajectory "$d/traj.txt" --output "$o/map"
                  --resolution=0.1 --clamp=-2,3.511 --save-cloud=false --quiet --accel "$OHM_ACCEL") ;;
    voxen_seq) CMD=("$VOXEN" map --cloud "$d/cloud.ply" --trajectory "$d/traj.txt" --output "$o/map.vxm"
                    --resolution 0.1 --clamp -2 3.511) ;;
    voxen_2p) CMD=("$VOXEN" map --cloud "$d/cloud.ply" --trajectory "$d/traj.txt" --output "$o/map.vxm"
                   --resolution 0.1 --clamp -2 3.511 --update-order two-phase) ;;
    voxen_1p) CMD=("$VOXEN" map --cloud "$d/cloud.ply" --trajectory "$d/traj.txt" --output "$o/map.vxm"
                   --resolution 0.1 --clamp -2 3.511 --update-order one-pass) ;;
  esac
}

RESULTS="$WORK/results.tsv"
: >"$RESULTS"
total=$(( ${#INPUT_LIST[@]} * ${#TOOLS[@]} * REPEATS )) done_runs=0 start=$(date +%s.%N)
for in in "${INPUT_LIST[@]}"; do
  for ((r = 1; r <= REPEATS; r++)); do
    for t in "${TOOLS[@]}"; do  # alternating: every tool once per round
      o="$WORK/$in/$t"
      mkdir -p "$o"
      rm -f "$o/map.ohm" "$o/map.vxm" "$o/time.txt"
      tool_cmd "$t" "$in" "$o"
      if ! /usr/bin/time -f "%e %U %S %M" -o "$o/time.txt" "${CMD[@]}" >"$o/log" 2>&1; then
        echo "vs_ohm.sh: $t on $in failed; its output ($o/log) ends:" >&2
        tail -n 5 "$o/log" >&2
        exit 1
      fi
      read -r wall user sys rss <"$o/time.txt"
      printf '%s\t%s\t%d\t%s\t%s\t%s\n' "$in" "$t" "$r" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$rss" >>"$RESULTS"
      done_runs=$((done_runs + 1))
      now=$(date +%s.%N)
      eta=$(awk -v n="$now" -v s="$start" -v d="$done_runs" -v t="$total" 'BEGIN { print (n - s) / d * (t - d) }')
      printf 'vs_ohm.sh: [%d/%d] %s %s run %d: %.2f s wall, %.0f MiB; ETA %.0f s\n' "$done_runs" "$total" "$in" "$t" \
        "$r" "$wall" "$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" "$eta" >&2
    done
  done
done

# --- agreement: occupied voxels of every map against OHM CPU's ---
JACC="$WORK/jaccard.tsv"
: >"$JACC"
for in in "${INPUT_LIST[@]}"; do
  for t in "${TOOLS[@]}"; do
    o="$WORK/$in/$t"
    case "$t" in
      ohm_*) "$OHM_BIN/ohm2ply" --map "$o/map.ohm" --cloud "$o/occupied.ply" --mode occupancy-centre >"$o/export.log" 2>&1 \
               || { echo "vs_ohm.sh: ohm2ply failed on $o/map.ohm (see $o/export.log)" >&2; continue; } ;;
      voxen_*) "$VOXEN" export "$o/map.vxm" --occupied-ply "$o/occupied.ply" >"$o/export.log" 2>&1 \
               || { echo "vs_ohm.sh: voxen export failed on $o/map.vxm (see $o/export.log)" >&2; continue; } ;;
    esac
  done
  ref="$WORK/$in/ohm_cpu/occupied.ply"
  [[ -f $ref ]] || ref="$WORK/$in/voxen_seq/occupied.ply"  # without OHM: against Voxen's default order
  refname=$([[ $ref == */ohm_cpu/* ]] && echo ohm_cpu || echo voxen_seq)
  for t in "${TOOLS[@]}"; do
    [[ $t == "$refname" || ! -f $WORK/$in/$t/occupied.ply ]] && continue
    j=$(python3 "$HERE/occupied_jaccard.py" "$ref" "$WORK/$in/$t/occupied.ply" --resolution 0.1) || continue
    printf '%s\t%s\t%s\t%s\n' "$in" "$t" "$refname" "$j" >>"$JACC"
  done
  # Voxen's other orders against its default, exact one as well.
  seq="$WORK/$in/voxen_seq/occupied.ply"
  [[ $refname == voxen_seq || ! -f $seq ]] && continue
  for t in voxen_2p voxen_1p; do
    [[ -f $WORK/$in/$t/occupied.ply ]] || continue
    j=$(python3 "$HERE/occupied_jaccard.py" "$seq" "$WORK/$in/$t/occupied.ply" --resolution 0.1) || continue
    printf '%s\t%s\t%s\t%s\n' "$in" "$t" voxen_seq "$j" >>"$JACC"
  done
done

python3 "$HERE/vs_ohm_report.py" "$RESULTS" "$JACC" --repeats "$REPEATS" --ohm-accel "$OHM_ACCEL" ${JSON:+--json "$JSON"}
echo "vs_ohm.sh: maps and logs in $WORK" >&2
