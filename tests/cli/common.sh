# Sourced by the CLI test scripts: the shared start (a fresh work folder) and helpers.
#   source "$(dirname "$0")/common.sh" NAME "$@"   (NAME prefixes failures; $@: VOXEN_BINARY WORK_DIR)
name=$1
voxen=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fail() { echo "$name: $*" >&2; exit 1; }
json_number() {  # json_number KEY FILE
  grep -o "\"$1\":[0-9.e+-]*" "$2" | head -1 | cut -d: -f2
}
