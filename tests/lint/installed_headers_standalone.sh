#!/usr/bin/env bash
# Every installed header compiles on its own (g++ -fsyntax-only of a file that includes only
# it), with only what an installed program has on its include path: the installed include
# folders and the shared GPU headers (voxen/gpu/...), never a module's internal/ folder. The
# umbrella header holds only the facade (umbrella_header.sh), so a program that needs more
# includes module headers one by one: each must bring what it uses.
#   installed_headers_standalone.sh <repository root> <build folder> [compiler]
set -euo pipefail
root=$1 build=$2 cxx=${3:-c++}
cd "$root"
[ -d "$build/gpu-include/voxen/gpu" ] || { echo "$build/gpu-include/voxen/gpu is missing: configure the build first" >&2; exit 1; }
roots=(include host/include)
for module in engine/*/; do
  module=${module%/}
  [ -d "$module/include" ] || continue
  if grep -q "voxen_add_module([a-z_]* *BUILD_ONLY" "$module/CMakeLists.txt"; then continue; fi
  roots+=("$module/include")
done
flags=(-std=c++20 -fsyntax-only -Wall -Wextra -Wno-missing-field-initializers -I"$build/gpu-include")
for r in "${roots[@]}"; do flags+=(-I"$root/$r"); done
mapfile -t headers < <(for r in "${roots[@]}"; do (cd "$r" && find voxen -type f -name '*.hpp'); done | sort)
[ "${#headers[@]}" -gt 1 ] || { echo "no installed headers found under ${roots[*]}" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%s\n' "${flags[@]}" > "$work/flags"  # a response file: gcc and clang read @file
check() {  # header: prints the compiler's words about a file that includes only it, if any
  local header=$1 file out
  file="$work/$(echo "$header" | tr '/.' '__').cpp"
  printf '#include "%s"\n' "$header" > "$file"
  if ! out=$("$cxx" @"$work/flags" "$file" 2>&1) || [ -n "$out" ]; then
    printf '%s does not compile on its own:\n%s\n' "$header" "$out"
  fi
}
export -f check
export cxx work
failures=$(printf '%s\n' "${headers[@]}" | xargs -P "$(nproc)" -I{} bash -c 'check "$1"' _ {})
if [ -n "$failures" ]; then
  echo "$failures" >&2
  echo "$(grep -c 'does not compile on its own' <<<"$failures") installed header(s) do not compile on their own" >&2
  exit 1
fi
echo "all ${#headers[@]} installed headers compile on their own"
