#!/usr/bin/env bash
# Proves the module diagram's generator and check (cmake/ModuleGraph.cmake,
# cmake/ModuleGraphCheck.cmake) on fixtures, so that docs_module_graph cannot pass by
# drawing or comparing nothing: a tiny project's links become the expected edges (public,
# private, through an alias; outside targets left out; build-only modules dashed), a document
# that matches passes, one that differs by one link or lacks its markers fails saying how to
# refresh, the update rewrites only the text between the markers, and a build without an
# optional module is skipped.
set -uo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "module_graph_selftest: $*" >&2; exit 1; }

cmake -S "$source_dir/tests/lint/fixture_module_graph" -B "$work/build" -DVOXEN_SOURCE_DIR="$source_dir" \
  > "$work/configure.log" 2>&1 || fail "the fixture project does not configure: $(cat "$work/configure.log")"
graph="$work/build/module_graph.md"
[ -f "$graph" ] || fail "the configure step wrote no module_graph.md"
expected_edges="  voxen_host
  voxen_map --> voxen_host
  voxen_occupancy --> voxen_map
  voxen_occupancy -.-> voxen_prims
  voxen_prims --> voxen_host
  voxen_testdata --> voxen_map
  classDef outside stroke-dasharray: 5 5
  class voxen_testdata outside"
edges=$(sed -n '/^graph TD$/,/^```$/p' "$graph" | sed '1d;$d' | grep -v '^  %%')
[ "$edges" = "$expected_edges" ] || fail "the fixture's graph is not the expected one:
$edges
expected:
$expected_edges"

check() {  # check DOC [extra -D arguments]: runs the check, its output in $work/out
  local doc=$1
  shift
  cmake -DDOC="$doc" -DGRAPH="$graph" "$@" -P "$source_dir/cmake/ModuleGraphCheck.cmake" > "$work/out" 2>&1
}
begin="<!-- module-graph:begin: generated from CMake, refresh with scripts/update_module_graph.sh -->"
end="<!-- module-graph:end -->"
{ echo "# Before"; echo "$begin"; cat "$graph"; echo "$end"; echo "After."; } > "$work/same.md"
check "$work/same.md" -DCOMPLETE=1 || fail "a document holding the graph fails: $(cat "$work/out")"

sed 's/voxen_occupancy -.-> voxen_prims/voxen_occupancy --> voxen_prims/' "$work/same.md" > "$work/stale.md"
cmp -s "$work/same.md" "$work/stale.md" && fail "the fixture edit changed nothing"
check "$work/stale.md" -DCOMPLETE=1 && fail "a document with a changed link passes"
grep -q "documented:   voxen_occupancy --> voxen_prims" "$work/out" &&
  grep -q "update_module_graph.sh" "$work/out" ||
  fail "the failure does not name the differing line and the refresh: $(cat "$work/out")"

grep -v "module-graph:end" "$work/same.md" > "$work/no_markers.md"
check "$work/no_markers.md" && fail "a document without the end marker passes"
grep -q "lacks the module diagram's markers" "$work/out" || fail "a missing marker is not named: $(cat "$work/out")"

check "$work/stale.md" -DCOMPLETE=1 -DUPDATE=ON || fail "the update fails: $(cat "$work/out")"
cmp -s "$work/same.md" "$work/stale.md" || fail "the update did not restore the document: $(diff "$work/same.md" "$work/stale.md")"

check "$work/stale.md" -DCOMPLETE=0 && grep -q "^SKIP: " "$work/out" || fail "a build without an optional module is not skipped: $(cat "$work/out")"
check "$work/stale.md" -DCOMPLETE=0 -DUPDATE=ON && fail "a build without an optional module updates the document"
echo "module_graph_selftest: ok"
