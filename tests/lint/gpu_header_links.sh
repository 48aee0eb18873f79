#!/usr/bin/env bash
# Fails when a module includes the shared GLSL/C++ headers of a module it does not link: a
# C++ file under engine/<m>/ or host/ that includes "voxen/gpu/<f>/...", or a shader under
# shaders/<m>/ that includes "../<f>/...", where shaders/<f> belongs to a module that <m>
# cannot see through its CMake links. Every module sees shaders/ in its include path (it
# comes with voxen_host), so the compiler cannot catch this; the layering says it is wrong.
#
# Usage: gpu_header_links.sh <repository root>
# What a module sees: itself, the modules it links (PUBLIC_DEPS and PRIVATE_DEPS of
# voxen_add_module, or target_link_libraries on voxen_<m>), and the PUBLIC links of those,
# transitively (a private link's headers do not travel). shaders/common belongs to host.
set -euo pipefail
root=$1
cd "$root"

# "module kind dep" lines (kind: public or private) from every module's CMakeLists.txt.
links() {
  local file
  for file in host/CMakeLists.txt engine/*/CMakeLists.txt; do
    [ -f "$file" ] || continue
    sed 's/#.*$//' "$file" | tr '\n' ' ' | awk '
      {
        text = $0
        while (match(text, /(voxen_add_module|target_link_libraries)[ \t]*\([^)]*\)/)) {
          call = substr(text, RSTART, RLENGTH)
          text = substr(text, RSTART + RLENGTH)
          sub(/^[a-z_]+[ \t]*\(/, "", call)
          sub(/\)$/, "", call)
          n = split(call, word, /[ \t]+/)
          first = 1
          while (first <= n && word[first] == "") ++first
          module = word[first]
          sub(/^voxen_/, "", module)
          kind = "public"
          for (i = first + 1; i <= n; ++i) {
            w = word[i]
            if (w == "PUBLIC_DEPS" || w == "PUBLIC" || w == "INTERFACE") kind = "public"
            else if (w == "PRIVATE_DEPS" || w == "PRIVATE") kind = "private"
            else if (w ~ /^voxen_[a-z_]+$/) { sub(/^voxen_/, "", w); print module, kind, w }
          }
        }
      }'
  done
}
link_table=$(links)

public_links() { awk -v m="$1" '$1 == m && $2 == "public" { print $3 }' <<<"$link_table"; }
all_links() { awk -v m="$1" '$1 == m { print $3 }' <<<"$link_table"; }

# The modules whose headers <m> sees.
visible() {
  local m=$1 queue=() seen=" $1 " d p
  for d in $(all_links "$m"); do queue+=("$d"); done
  while ((${#queue[@]})); do
    d=${queue[0]}
    queue=("${queue[@]:1}")
    [[ $seen == *" $d "* ]] && continue
    seen+="$d "
    for p in $(public_links "$d"); do queue+=("$p"); done
  done
  echo "$seen"
}

owner() { [ "$1" = common ] && echo host || echo "$1"; }

report=""
checked=0
check_file() {
  local file=$1 module=$2 pattern=$3 seen=$4 line folder
  checked=$((checked + 1))
  while IFS=: read -r line folder; do
    [ -n "$line" ] || continue
    local needed
    needed=$(owner "$folder")
    if [[ $seen != *" $needed "* ]]; then
      report+="$file:$line: voxen_$module includes the shared headers of shaders/$folder/ (voxen_$needed) without linking voxen_$needed"$'\n'
    fi
  done < <(grep -n '^[ \t]*#[ \t]*include' "$file" | sed -n "s|^\([0-9]*\):.*$pattern.*|\1:\2|p")
}

modules=()
[ -d host ] && modules+=(host)
for dir in engine/*/; do
  [ -f "${dir}CMakeLists.txt" ] && modules+=("$(basename "$dir")")
done
for module in "${modules[@]}"; do
  seen=$(visible "$module")
  if [ "$module" = host ]; then dir=host; else dir=engine/$module; fi
  while IFS= read -r -d '' file; do
    check_file "$file" "$module" '#[ \t]*include[ \t]*"voxen/gpu/\([a-z_]*\)/' "$seen"
  done < <(find "$dir" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print0 | sort -z)
  shader_dir=shaders/$module
  [ "$module" = host ] && shader_dir=shaders/common
  [ -d "$shader_dir" ] || continue
  while IFS= read -r -d '' file; do
    check_file "$file" "$module" '#[ \t]*include[ \t]*"\.\./\([a-z_]*\)/' "$seen"
  done < <(find "$shader_dir" -type f \( -name '*.comp' -o -name '*.glsl' -o -name '*.h' -o -name '*.vert' -o -name '*.frag' \) -print0 | sort -z)
done

if [ -n "$report" ]; then
  printf '%s' "$report"
  echo "gpu_header_links: the files above reach into another module's shared GPU headers: move the shared definitions to the module that owns the data, or link the module" >&2
  exit 1
fi
echo "gpu_header_links: the $checked sources of ${#modules[@]} modules include only the shared GPU headers of modules they link"
