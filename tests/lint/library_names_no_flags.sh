#!/usr/bin/env bash
# Fails when a library message tells the reader to change a setting by a command-line flag
# ("raise --gpu-cache-mb", "(--batch-size)", "or --device") or a voxen command ("`voxen map
# --ndt om`"): the library does not know which program runs
# it or what that program calls its settings. Such an error is a voxen::SettingError naming
# the field (voxen/host/setting_error.hpp), which the voxen tool words with its own flag
# (tools/voxen/setting_flags.cpp). Names file and line; comments are ignored.
#   library_names_no_flags.sh <repository root>
set -euo pipefail
cd "$1"
mapfile -d '' files < <(find host/src host/include engine/*/src engine/*/include -type f \( -name '*.cpp' -o -name '*.hpp' \) -print0 | sort -z)
report=$(awk '
  {
    code = $0
    sub(/\/\/.*$/, "", code)
    if (code ~ /^[ \t]*(\/\*|\*)/) next
    if (code ~ /"[^"]*(^|[^-a-zA-Z0-9_])--[a-z]/)
      printf "%s:%d: a library message names a command-line flag; throw voxen::SettingError naming the field: %s\n", FILENAME, FNR, $0
    else if (code ~ /"[^"]*`voxen [a-z]/)
      printf "%s:%d: a library message names a voxen command; name the API function or field (voxen::SettingError): %s\n", FILENAME, FNR, $0
  }' "${files[@]}")
if [ -n "$report" ]; then
  echo "$report" >&2
  exit 1
fi
echo "checked ${#files[@]} library sources"
