#!/usr/bin/env bash
# Fails when a library source writes to stderr or stdout itself instead of going through the
# log sink (voxen/host/log.hpp), which an embedding program redirects; names file and line.
#
# Usage: no_direct_stderr.sh <repository root> [folder...]
# Without folders it checks host/src and every engine/*/src. host/src/log.cpp, the default
# sink, is the one file allowed to write to stderr. Comments are ignored; snprintf and
# fprintf/fputs to a FILE* other than stderr are fine.
set -euo pipefail
root=$1
shift
cd "$root"
if (($#)); then
  folders=("$@")
else
  folders=(host/src engine/*/src)
fi

files=()
while IFS= read -r -d '' file; do
  [ "$file" = host/src/log.cpp ] || files+=("$file")
done < <(find "${folders[@]}" -type f \( -name '*.cpp' -o -name '*.cc' -o -name '*.c' -o -name '*.hpp' -o -name '*.h' \) -print0 | sort -z)

# One line per offending source line. Comments are removed first: a // comment, and lines
# that start with /* or * (inside a block comment).
report=$(awk '
  {
    code = $0
    sub(/\/\/.*$/, "", code)
    if (code ~ /^[ \t]*(\/\*|\*)/) next
    what = ""
    if (code ~ /(^|[^A-Za-z0-9_])stderr([^A-Za-z0-9_]|$)/) what = "stderr"
    else if (code ~ /(^|[^A-Za-z0-9_])(cerr|clog)([^A-Za-z0-9_]|$)/) what = "stderr (std::cerr/std::clog)"
    else if (code ~ /(^|[^A-Za-z0-9_])perror[ \t]*\(/) what = "stderr (perror)"
    else if (code ~ /(^|[^A-Za-z0-9_])cout([^A-Za-z0-9_]|$)/) what = "stdout (std::cout)"
    else if (code ~ /(^|[^A-Za-z0-9_])v?printf[ \t]*\(/) what = "stdout (printf)"
    else if (code ~ /(^|[^A-Za-z0-9_])puts[ \t]*\(/) what = "stdout (puts)"
    if (what != "") printf "%s:%d: writes to %s directly; use voxen::logMessage: %s\n", FILENAME, FNR, what, $0
  }' "${files[@]}")

if [ -n "$report" ]; then
  echo "$report"
  echo "no_direct_stderr: the library code above bypasses the log sink (voxen/host/log.hpp)" >&2
  exit 1
fi
echo "no_direct_stderr: none of the ${#files[@]} library sources under ${folders[*]} writes to stderr or stdout directly"
