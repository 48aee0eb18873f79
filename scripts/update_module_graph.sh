#!/usr/bin/env bash
# Refreshes the module diagram in docs/architecture.md from the build's module targets:
#   scripts/update_module_graph.sh [BUILD_DIR]     (default: build)
# Re-runs the configure step of BUILD_DIR, which draws <BUILD_DIR>/module_graph.md
# (cmake/ModuleGraph.cmake), and copies that graph between the document's module-graph markers.
# The test docs_module_graph fails until the document and the build agree.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-$source_dir/build}
[ -f "$build_dir/CMakeCache.txt" ] ||
  { echo "update_module_graph.sh: $build_dir is not a configured build (run cmake -S . -B $build_dir first)" >&2; exit 1; }
cmake -S "$source_dir" -B "$build_dir" > /dev/null
# A build without ROS 1 bag support (or live streaming) cannot draw voxen_rosbag (voxen_live): the update refuses rather than drop it.
complete=0
grep -q '^VOXEN_ROSBAG_FOUND:INTERNAL=\(1\|ON\|TRUE\)$' "$build_dir/CMakeCache.txt" &&
  grep -q '^VOXEN_LIVE_FOUND:INTERNAL=\(1\|ON\|TRUE\)$' "$build_dir/CMakeCache.txt" && complete=1
cmake -DDOC="$source_dir/docs/architecture.md" -DGRAPH="$build_dir/module_graph.md" -DCOMPLETE=$complete -DUPDATE=ON \
  -P "$source_dir/cmake/ModuleGraphCheck.cmake"
