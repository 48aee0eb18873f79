# Sourced by the CLI test scripts: the shared start (a fresh work folder) and helpers.
#   source "$(dirname "$0")/../support/common.sh" NAME "$@"
# NAME prefixes failures; "$@" are the script's own arguments: the program under test first
# (also $voxen, for the voxen tool's scripts: VOXEN_BINARY WORK_DIR), the work folder last.
# The work folder is emptied and becomes the current directory.
script_name=$1
# voxen's pipeline cache goes to a folder of the tests', never the user's ~/.cache/voxen.
export VOXEN_PIPELINE_CACHE="${TMPDIR:-/tmp}/voxen-tests-pipeline-cache"
voxen=$2
work=${!#}
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fail() { echo "$script_name: $*" >&2; exit 1; }
json_number() {  # json_number KEY FILE
  grep -o "\"$1\":[0-9.e+-]*" "$2" | head -1 | cut -d: -f2
}
no_validation() {  # no_validation STDERR_FILE [WHAT]: fails when the validation layer said anything
  if grep -qi "validation message\|validation error\|validation warning" "$1"; then fail "${2:+$2: }validation: $(cat "$1")"; fi
}
# The window tests: require_xvfb first, then in_xvfb PROGRAM ARGS... runs a program in a
# fresh virtual display.
require_xvfb() {
  command -v xvfb-run > /dev/null ||
    fail "xvfb-run is missing: this test needs a virtual X server (apt-get install xvfb xauth; scripts/setup.sh installs them)"
  command -v xauth > /dev/null || fail "xauth is missing: xvfb-run needs it (apt-get install xauth)"
}
in_xvfb() { xvfb-run -a -s "-screen 0 640x480x24" "$@"; }
map_with_json() {  # map_with_json OUTPUT ARGS...: voxen map ARGS to OUTPUT.vxm (touch times on), JSON in OUTPUT.json, validation checked
  local out=$1
  shift
  "$voxen" map "$@" --output "$out.vxm" --json --quiet --touch-time > "$out.json" 2> "$out.err" ||
    fail "map $*: $(cat "$out.err")"
  no_validation "$out.err" "map $*"
}
