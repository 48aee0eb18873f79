#!/usr/bin/env bash
# Fails when an installed public header is missing from the umbrella header voxen/voxen.hpp:
# an embedder that includes only the umbrella must reach every installed name (issue 22 found
# voxen::exportClearancePng unreachable through it). Installed headers are host/include and
# the include/ folders of engine modules that are not BUILD_ONLY (cmake/VoxenModule.cmake).
#   umbrella_header_complete.sh <repository root>
set -euo pipefail
cd "$1"
umbrella=include/voxen/voxen.hpp
roots=(host/include)
for module in engine/*/; do
  module=${module%/}
  [ -d "$module/include" ] || continue
  # BUILD_ONLY modules (test-data generators, the check driver) are never installed.
  if grep -q "voxen_add_module([a-z_]* *BUILD_ONLY" "$module/CMakeLists.txt"; then continue; fi
  roots+=("$module/include")
done
mapfile -t headers < <(for root in "${roots[@]}"; do (cd "$root" && find voxen -type f -name '*.hpp'); done | sort)
[ "${#headers[@]}" -gt 0 ] || { echo "no installed headers found under ${roots[*]}" >&2; exit 1; }
missing=0
for header in "${headers[@]}"; do
  if ! grep -q "^#include \"$header\"" "$umbrella"; then
    echo "$umbrella: does not include \"$header\", an installed header" >&2
    missing=$((missing + 1))
  fi
done
if [ "$missing" -gt 0 ]; then
  echo "$missing installed header(s) missing from $umbrella (installed from: ${roots[*]})" >&2
  exit 1
fi
echo "all ${#headers[@]} installed headers are in $umbrella"
