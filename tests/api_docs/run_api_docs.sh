#!/usr/bin/env bash
# The `api_docs` test: docs/api.md's code blocks are the files under docs/api/ (each block
# after a "<!-- snippet: PATH -->" line equals PATH, and every file there is shown), and
# those files, built out of tree against the installed package as the tutorial says (with
# -Wall -Wextra -Werror), run in the tutorial's order with the validation layer on and no
# validation message.
# Usage: run_api_docs.sh SOURCE_DIR BUILD_DIR WORK_DIR [BUILD_TYPE]
set -euo pipefail
source_dir=$1 build_dir=$2 work=$3 build_type=${4:-Release}
doc="$source_dir/docs/api.md"
fail() { echo "api_docs: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/blocks" "$work/run"

# 1. Every marked block, written out, equals its file.
awk -v out="$work/blocks" '
  /^<!-- snippet: .* -->$/ { path = $3; want = 1; next }
  want && /^```/ { inside = 1; want = 0; file = out "/" NR; print path > (out "/index"); print NR >> (out "/index"); next }
  inside && /^```$/ { inside = 0; close(file); next }
  inside { print > file }
' "$doc"
[ -s "$work/blocks/index" ] || fail "$doc has no <!-- snippet: PATH --> block"
declare -A shown  # a set: printf | grep -q under pipefail can fail on SIGPIPE when grep stops early
while read -r path && read -r line; do
  [ -f "$source_dir/$path" ] || fail "$doc line $line shows $path, which does not exist"
  touch "$work/blocks/$line"
  diff -u "$source_dir/$path" "$work/blocks/$line" > "$work/diff" ||
    fail "$doc: the block at line $line differs from $path (update the block):"$'\n'"$(cat "$work/diff")"
  shown[$path]=1
done < "$work/blocks/index"
for file in "$source_dir"/docs/api/*; do
  path=docs/api/$(basename "$file")
  [ -n "${shown[$path]:-}" ] || fail "$path is not shown in $doc"
done

# 2. The tutorial's project against the installed package.
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log" || fail "install failed: $(tail "$work/install.log")"
# With the warnings a careful consumer turns on, as errors: the designated initializers the
# tutorial shows must not draw -Wmissing-field-initializers (-Wextra) from the options structs.
cmake -S "$source_dir/docs/api" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE="$build_type" \
  -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" > "$work/configure.log" 2>&1 || fail "configuring docs/api failed: $(tail -20 "$work/configure.log")"
grep -q "voxen_DIR:PATH=$work/prefix" "$work/build/CMakeCache.txt" || fail "find_package(voxen) did not use the installed package"
cmake --build "$work/build" > "$work/build.log" 2>&1 || fail "building docs/api failed: $(tail -30 "$work/build.log")"

# 3. The programs in the tutorial's order, each on what the one before wrote.
cd "$work/run"
for program in map_rays map_cloud clearance queries render mapping_run planning depth_camera live_stream; do
  # The live example exists where the installed package has voxen::live (VOXEN_LIVE).
  if [ "$program" = live_stream ] && ! [ -x "$work/build/$program" ]; then echo "$program: not built (no voxen::live)"; continue; fi
  VOXEN_VALIDATION=1 "$work/build/$program" > "$program.out" 2> "$program.err" ||
    fail "$program failed (exit $?): $(cat "$program.out" "$program.err")"
  if grep -qi "validation" "$program.err"; then fail "$program: validation messages: $(cat "$program.err")"; fi
  echo "$program: $(cat "$program.out")"
done
[ -s room.png ] || fail "render wrote no room.png"
[ -s wall.ply ] || fail "depth_camera wrote no wall.ply"
