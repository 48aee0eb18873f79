#!/usr/bin/env bash
# The umbrella header voxen/voxen.hpp is the front door (issue 36): it includes the facade
# (context, mapper, render_map, mapping_run) and the types their signatures use, not every
# module header. Fails when
#   - a facade header is missing from it,
#   - it includes a header that is not installed (a module's internal/ header, a BUILD_ONLY
#     module's such as voxen/check/..., or one that does not exist), so an installed program
#     could not compile it.
# Installed headers are host/include and the include/ folders of engine modules that are not
# BUILD_ONLY (cmake/VoxenModule.cmake). That each of them also compiles on its own, for the
# programs that include module headers one by one, is installed_headers_standalone.sh's check.
#   umbrella_header.sh <repository root>
set -euo pipefail
cd "$1"
umbrella=include/voxen/voxen.hpp
facade=(voxen/context.hpp voxen/map_snapshot.hpp voxen/mapper.hpp voxen/render_map.hpp voxen/mapping_run.hpp)
roots=(host/include)
for module in engine/*/; do
  module=${module%/}
  [ -d "$module/include" ] || continue
  if grep -q "voxen_add_module([a-z_]* *BUILD_ONLY" "$module/CMakeLists.txt"; then continue; fi
  roots+=("$module/include")
done
mapfile -t installed < <(for root in "${roots[@]}"; do (cd "$root" && find voxen -type f -name '*.hpp'); done | sort)
[ "${#installed[@]}" -gt 0 ] || { echo "no installed headers found under ${roots[*]}" >&2; exit 1; }
mapfile -t included < <(sed -n 's/^#include "\(voxen\/[^"]*\)".*/\1/p' "$umbrella")
# Membership through associative arrays, not `printf | grep -q`: grep -q exits at its first
# match, printf may then die of SIGPIPE, and under pipefail that read as "not found" (a CI run
# failed so on an installed header).
declare -A isIncluded isInstalled
for header in "${included[@]}"; do isIncluded[$header]=1; done
for header in "${installed[@]}"; do isInstalled[$header]=1; done
failed=0
for header in "${facade[@]}"; do
  if [ -z "${isIncluded[$header]:-}" ]; then
    echo "$umbrella: does not include the facade header \"$header\"" >&2
    failed=$((failed + 1))
  fi
done
for header in "${included[@]}"; do
  if [ -z "${isInstalled[$header]:-}" ]; then
    echo "$umbrella: includes \"$header\", which is not an installed header (installed from: ${roots[*]})" >&2
    failed=$((failed + 1))
  fi
done
if [ "$failed" -gt 0 ]; then
  echo "$failed problem(s) with $umbrella" >&2
  exit 1
fi
echo "$umbrella includes the ${#facade[@]} facade headers and ${#included[@]} installed headers in all (of ${#installed[@]} installed)"
