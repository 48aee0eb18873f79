#!/usr/bin/env bash
# scripts/bundle.sh end to end: packs this build, unpacks the tarball into a fresh folder
# outside the source and build trees and runs the bundle's programs from there with both trees
# and the system's librosbag-storage plugin files hidden (as root: an empty tmpfs over each, in
# a private mount namespace), so that they can use only what the bundle holds (a ROS 1 bag is
# written and read back); every binary's and library's dependencies must resolve
# inside the bundle or to the base system (glibc, the vDSO, the Vulkan loader), and the
# tarball must be under 40 MB. Exits 77 (ctest: skipped) with the reason where no bundle can
# be made from this build: patchelf is missing, or the samples are not built.
#   bundle.sh VOXEN_BINARY BUILD_DIR SOURCE_DIR SAMPLES_BUILT(1|0) WORK_DIR
set -euo pipefail
source "$(dirname "$0")/../support/common.sh" bundle "$@"
build_dir=$(cd "$2" && pwd -P)
source_dir=$(cd "$3" && pwd -P)
samples_built=$4
skip() { echo "bundle: SKIPPED: $*"; exit 77; }

command -v patchelf > /dev/null || skip "patchelf is missing (apt-get install patchelf; scripts/setup.sh installs it)"
[ "$samples_built" = 1 ] || skip "this build has no samples (VOXEN_BUILD_SAMPLES=OFF), which the bundle holds"

version=$("$voxen" --version | awk '{ print $2 }')
[ -n "$version" ] || fail "voxen --version printed no version"
name=voxen-$version-linux-x86_64

# --- make it -------------------------------------------------------------------------------
bash "$source_dir/scripts/bundle.sh" --build-dir "$build_dir" --out "$work/dist" > bundle.log 2>&1 ||
  fail "scripts/bundle.sh failed: $(cat bundle.log)"
tarball=$work/dist/$name.tar.gz
[ -f "$tarball" ] || fail "scripts/bundle.sh wrote no $tarball: $(ls -A dist) $(cat bundle.log)"
[ "$(ls -A dist)" = "$name.tar.gz" ] || fail "scripts/bundle.sh left more than the tarball in its output folder: $(ls -A dist)"
size=$(stat -c %s "$tarball")
((size < 40 * 1000 * 1000)) || fail "the tarball is $size bytes, over 40 MB"
echo "bundle: $name.tar.gz is $size bytes"

# --- unpack it outside the two trees -----------------------------------------------------
inside() { [[ $1/ == "$2"/* ]]; }  # inside PATH DIR: PATH is DIR or below it
temp_root=$(cd "${TMPDIR:-/tmp}" && pwd -P)
if inside "$temp_root" "$source_dir" || inside "$temp_root" "$build_dir"; then temp_root=/tmp; fi
inside "$temp_root" "$source_dir" || inside "$temp_root" "$build_dir" &&
  fail "no temporary folder outside the source and build trees ($temp_root)"
temp=$(mktemp -d "$temp_root/voxen-bundle-test.XXXXXX")
trap 'rm -rf "$temp"' EXIT
tar -xzf "$tarball" -C "$temp" || fail "cannot unpack $tarball"
[ "$(ls -A "$temp")" = "$name" ] || fail "the tarball's top level is not the one folder $name: $(ls -A "$temp")"
bundle=$temp/$name

for file in voxen hello_compute transform_scene voxel_painter; do
  [ -x "$bundle/$file" ] || fail "the bundle has no program $file"
  readelf -S "$bundle/$file" | grep -q '\.symtab' && fail "$file is not stripped"
  rpath=$(readelf -d "$bundle/$file" | grep -E '\((RPATH|RUNPATH)\)' || true)
  [[ $rpath == *"(RPATH)"*"[\$ORIGIN/lib]"* ]] || fail "$file: the run path is not an RPATH of \$ORIGIN/lib: ${rpath:-none}"
done
[ ! -e "$bundle/voxel_painter_png_probe" ] || fail "the bundle holds the test-only voxel_painter_png_probe"
for lib in libstdc++.so.6 libgcc_s.so.1 libpng16.so.16 libz.so.1 libglfw.so.3 libX11.so.6; do
  [ -f "$bundle/lib/$lib" ] && [ ! -L "$bundle/lib/$lib" ] || fail "the bundle has no lib/$lib (a real file, not a link)"
done
[ -f "$bundle/README.txt" ] || fail "the bundle has no README.txt"
[ -d "$bundle/shaders/common" ] || fail "the bundle has no shaders/ (the GLSL sources, for hot reload)"
diff -r "$source_dir/shaders" "$bundle/shaders" > /dev/null || fail "the bundle's shaders/ differs from the source tree's"

# --- every dependency resolves inside the bundle or to the base system ------------------
# Without LD_LIBRARY_PATH: the bundle must not need it. ldd lists the dependencies
# transitively; those it resolves through the $ORIGIN run paths name files under lib/.
base_system='^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libresolv\.so\.2|libvulkan\.so\.1)$'
problems=()
for file in "$bundle"/* "$bundle"/lib/*; do
  [ -f "$file" ] && [ "${file##*/}" != README.txt ] || continue
  what=${file#"$bundle/"}
  env -u LD_LIBRARY_PATH -u LD_PRELOAD ldd "$file" > ldd.out 2>&1 || problems+=("$what: ldd failed: $(cat ldd.out)")
  while read -r line; do
    if [[ $line == *" => "* ]]; then
      soname=${line%% => *}
      path=${line#* => }
      path=${path%% (*}
    else
      path=${line%% (*}
      soname=${path##*/}
    fi
    if [[ $path == "not found" ]]; then
      problems+=("$what: $soname not found")
    elif [[ $path == /* ]] && inside "$(realpath "$path")" "$bundle"; then
      :
    elif [[ $soname =~ $base_system ]]; then
      :
    else
      problems+=("$what: $soname from ${path:-?}, outside the bundle and not a base-system library")
    fi
  done < <(grep -E '=>|\(0x' ldd.out)
done
((${#problems[@]} == 0)) || fail "dependencies the bundle does not hold:$(printf '\n  %s' "${problems[@]}")"

# --- run it with the source and build trees out of reach ---------------------------------
# Deepest first: a build folder inside the source tree must be covered before the source
# tree's tmpfs hides its mount point.
# The system's librosbag-storage plugin description and plugin library are hidden too: a bundle
# must open ROS 1 bags with its own (share/rosbag_storage, lib/), as on a machine without them.
ros_hidden=()
for dir in /usr/share/rosbag_storage /usr/lib/x86_64-linux-gnu/ros; do [ -d "$dir" ] && ros_hidden+=("$dir"); done
mapfile -t hidden < <(printf '%s\n' "$build_dir" "$source_dir" "${ros_hidden[@]}" | awk '{ print length, $0 }' | sort -rn | cut -d' ' -f2-)
hide() {  # hide COMMAND ARGS...: runs COMMAND with an empty tmpfs over each of the hidden trees
  unshare --mount --propagation private bash -c '
    count=$1; shift
    for ((i = 0; i < count; i++)); do mount -t tmpfs -o size=1m,mode=0755 voxen-hidden "$1" || exit 125; shift; done
    exec "$@"' hide "${#hidden[@]}" "${hidden[@]}" "$@"
}
hiding_skipped=""
if [ "$(id -u)" -ne 0 ]; then
  hiding_skipped="not root (mounting over the trees needs root)"
elif ! command -v unshare > /dev/null; then
  hiding_skipped="unshare is missing (util-linux)"
elif ! hide bash -c '[ ! -e "$0/CMakeLists.txt" ] && [ ! -e "$1/CMakeCache.txt" ]' "$source_dir" "$build_dir" 2> hide.err; then
  hiding_skipped="unshare --mount or mount -t tmpfs is not permitted here: $(tr '\n' ' ' < hide.err | sed 's/ *$//')"
fi
if [ -n "$hiding_skipped" ]; then
  echo "bundle: NOTE: the source and build trees stay visible while the bundle runs: hiding them was skipped: $hiding_skipped"
  hide() { "$@"; }
fi
# in_bundle NAME PROGRAM ARGS...: runs ./PROGRAM in the unpacked bundle without
# LD_LIBRARY_PATH; its output goes to NAME.out and NAME.err in the work folder, which is in
# the build tree: this shell opens them before the trees are hidden.
in_bundle() {
  local name=$1 status=0
  shift
  hide env -u LD_LIBRARY_PATH -u LD_PRELOAD bash -c 'cd "$0" && exec "./$@"' "$bundle" "$@" \
    > "$work/$name.out" 2> "$work/$name.err" || status=$?
  ((status == 0)) || fail "./$* in the bundle failed with status $status: $(cat "$work/$name.err") $(tail -20 "$work/$name.out")"
}

in_bundle version voxen --version
grep -q "^voxen $version" version.out || fail "./voxen --version in the bundle: $(cat version.out)"
in_bundle check voxen check --quick
no_validation check.err "./voxen check --quick"
in_bundle hello hello_compute
no_validation hello.err "./hello_compute"
# A ROS 1 bag written and read back (with PLY and MCAP beside it): librosbag-storage loads its
# encryption plugin at run time, which the bundle must carry.
in_bundle bags voxen bench input --scans 1 --rings 4 --columns 64 --repeat 1
grep -q "ROS 1" bags.out || fail "./voxen bench input in the bundle printed no ROS 1 bag row: $(cat bags.out)"
# The window samples' libraries (GLFW, X11) load: --help needs no display.
in_bundle painter_help voxel_painter --help
in_bundle scene_help transform_scene --help
echo "bundle: ok${hiding_skipped:+ (the trees were not hidden: $hiding_skipped)}"
