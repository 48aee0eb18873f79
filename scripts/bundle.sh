#!/usr/bin/env bash
# Packs a build of Voxen into a portable tarball that runs on another Linux x86-64 machine
# without the source or build tree: dist/voxen-<version>-linux-x86_64.tar.gz, one folder
# voxen-<version>-linux-x86_64/ holding
#   voxen and the samples (hello_compute, transform_scene, voxel_painter), stripped;
#   lib/       every shared library they load except glibc's and the Vulkan loader, found
#              through an $ORIGIN run path (no LD_LIBRARY_PATH);
#   shaders/   the GLSL sources, for hot reload (--hot-reload finds them beside the executable);
#   share/     librosbag-storage's plugin description, which ROS 1 bags need at run time;
#   README.txt what is in it and how to run it.
#
#   scripts/bundle.sh                             runs scripts/setup.sh (which builds build/), packs build/ into dist/
#   scripts/bundle.sh --build-dir DIR --out DIR   packs an existing build into DIR, building nothing
#   (either option alone: the other takes its default, and --build-dir alone builds nothing)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "bundle.sh: $*" >&2; exit 1; }
usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }

build_dir="" out_dir=""
while (($#)); do
  case $1 in
    --build-dir|--out)
      (($# >= 2)) && [ -n "$2" ] || die "$1 needs a folder (run with --help for the usage)"
      if [ "$1" = --build-dir ]; then build_dir=$2; else out_dir=$2; fi
      shift 2 ;;
    --build-dir=*) build_dir=${1#*=}; shift ;;
    --out=*) out_dir=${1#*=}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (run with --help for the usage)" ;;
  esac
done
if [ -z "$build_dir" ]; then
  bash "$repo/scripts/setup.sh"
  build_dir=$repo/build
fi
[ -n "$out_dir" ] || out_dir=$repo/dist

# patchelf sets the run paths of the copies; the rest comes with binutils and glibc.
for tool in patchelf strip ldd objdump tar gzip; do
  command -v "$tool" > /dev/null ||
    die "$tool is missing$([ "$tool" = patchelf ] && echo ' (apt-get install patchelf; scripts/setup.sh installs it)')"
done

[ -d "$build_dir" ] || die "build folder $build_dir does not exist"
build_dir=$(cd "$build_dir" && pwd -P)
cache=$build_dir/CMakeCache.txt
[ -f "$cache" ] || die "$build_dir is not a configured build: no CMakeCache.txt (run scripts/setup.sh)"
# (No "| head": with pipefail, a reader that stops early can kill the writer with SIGPIPE and
# fail the script without a word; sed stops itself at the first match.)
cache_value() { sed -n "/^$1:/{s/^$1:[A-Z]*=//p;q}" "$cache"; }
version=$(cache_value CMAKE_PROJECT_VERSION)
source_dir=$(cache_value CMAKE_HOME_DIRECTORY)  # the tree this build came from: its shaders/ match the binaries
[ -n "$version" ] || die "$cache names no CMAKE_PROJECT_VERSION: is $build_dir a Voxen build?"
[ -d "$source_dir/shaders" ] || die "the build's source folder has no shaders/: $source_dir/shaders"

# The programs, as name=path in the build. voxel_painter_png_probe and the test programs are
# left out: only the tests use them.
programs=(voxen="$build_dir/voxen"
          hello_compute="$build_dir/samples/hello_compute/hello_compute"
          transform_scene="$build_dir/samples/transform_scene/transform_scene"
          voxel_painter="$build_dir/samples/voxel_painter/voxel_painter")
for entry in "${programs[@]}"; do
  [ -x "${entry#*=}" ] || die "missing program ${entry%%=*}: ${entry#*=} does not exist or is not executable (build it first; the samples need VOXEN_BUILD_SAMPLES=ON)"
done

# What the bundle does not carry: glibc (the dynamic loader must be the system's, and its
# libraries come with it), the kernel's vDSO, and the Vulkan loader, which Voxen opens with
# dlopen (volk) and which must come from the target system together with its driver.
base_system='^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libresolv\.so\.2|libvulkan\.so\.1)$'
# GLFW (the samples' windows) opens its optional X11 extensions with dlopen, which ldd does not
# see: carried beside libX11 when this machine has them, so that a window works the same.
# (libGL, libEGL and libvulkan, which GLFW opens too, belong to the system's drivers.)
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)  # /sbin is not on a user's PATH on Debian
glfw_dlopened=(libXcursor.so.1 libXi.so.6 libXrandr.so.2 libXinerama.so.1 libXxf86vm.so.1 libX11-xcb.so.1 libXrender.so.1)

name=voxen-$version-linux-x86_64
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd -P)  # physical: ldd names bundle files by their real paths
# Built in a scratch folder beside the result (the same file system, so the final rename is
# atomic) and removed however the script ends: a failed run leaves no half-written bundle.
stage=$(mktemp -d "$out_dir/.bundle.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root=$stage/$name
mkdir -p "$root/lib"

# "soname path" for each shared library that $1 loads (ldd lists them transitively), or
# "soname not found"; the base system's are left out. (ENVIRON: awk -v would eat the \. escapes.)
dependencies() {
  env -u LD_LIBRARY_PATH -u LD_PRELOAD ldd "$1" |
    base=$base_system awk '$2 == "=>" && $1 !~ ENVIRON["base"] { print $1, ($3 == "not" ? "not found" : $3) }'
}

declare -A library_source=()  # soname -> the file it resolved to in the build's environment
add_dependencies() {
  local soname path
  while read -r soname path; do
    [ "$path" != "not found" ] || die "$1 needs $soname, which is not found on this machine"
    library_source[$soname]=$path
  done < <(dependencies "$1")
}

for entry in "${programs[@]}"; do
  add_dependencies "${entry#*=}"
  cp "${entry#*=}" "$root/${entry%%=*}"
done
for soname in "${glfw_dlopened[@]}"; do
  [ -n "${library_source[libglfw.so.3]:-}" ] || break
  # awk reads to the end: exiting at the match could kill ldconfig with SIGPIPE mid-write,
  # which pipefail turns into a silent exit of this script (seen in CI).
  path=$("$ldconfig" -p | awk -v n="$soname" '!found && $1 == n && /x86-64/ { print $NF; found = 1 }')
  [ -n "$path" ] || continue
  library_source[$soname]=$path
  add_dependencies "$path"
done

# librosbag-storage finds its encryption plugin (the "no encryption" one every bag opens with)
# through pluginlib at run time: the package's description files under share/rosbag_storage
# and the plugin library, which ldd does not see. Carried so that ROS 1 bags open on a machine
# without ROS or Debian's librosbag-storage package; voxen points ROS_PACKAGE_PATH and
# CMAKE_PREFIX_PATH at the bundle when it finds share/rosbag_storage beside itself.
rosbag_share="" rosbag_plugin=""
if [ -n "${library_source[librosbag_storage.so.4d]:-}" ]; then
  for prefix in ${CMAKE_PREFIX_PATH:+${CMAKE_PREFIX_PATH//:/ }} /usr; do
    [ -f "$prefix/share/rosbag_storage/package.xml" ] && { rosbag_share=$prefix/share/rosbag_storage; break; }
  done
  [ -n "$rosbag_share" ] || die "voxen links librosbag-storage, but no share/rosbag_storage/package.xml is under /usr or \$CMAKE_PREFIX_PATH (Debian: librosbag-storage4d)"
  plugin_name=$(sed -n 's/.*<library path="\([^"]*\)".*/\1/p' "$rosbag_share/encryptor_plugins.xml")
  [ -n "$plugin_name" ] || die "$rosbag_share/encryptor_plugins.xml names no plugin library"
  for dir in "${rosbag_share%/share/rosbag_storage}"/lib/*/ros "${rosbag_share%/share/rosbag_storage}"/lib; do
    [ -f "$dir/$plugin_name.so" ] && { rosbag_plugin=$dir/$plugin_name.so; break; }
  done
  [ -n "$rosbag_plugin" ] || die "librosbag-storage's plugin library $plugin_name.so is not under ${rosbag_share%/share/rosbag_storage}/lib"
  library_source[$plugin_name.so]=$rosbag_plugin
  add_dependencies "$rosbag_plugin"
  mkdir -p "$root/share/rosbag_storage"
  cp "$rosbag_share/package.xml" "$rosbag_share/encryptor_plugins.xml" "$root/share/rosbag_storage/"
fi

# The real files under the names the programs ask for (their sonames), not the symbolic links.
for soname in "${!library_source[@]}"; do
  cp -L "${library_source[$soname]}" "$root/lib/$soname"
  chmod 0644 "$root/lib/$soname"
done

# Stripped, then the run paths: DT_RPATH (--force-rpath), not DT_RUNPATH, because RUNPATH
# applies only to an object's own dependencies, while RPATH also serves the libraries it loads
# (libstdc++ -> libgcc_s, libX11 -> libxcb, and GLFW's dlopen): each library gets $ORIGIN too.
for entry in "${programs[@]}"; do
  strip --strip-all "$root/${entry%%=*}"
  patchelf --force-rpath --set-rpath '$ORIGIN/lib' "$root/${entry%%=*}"
done
for lib in "$root"/lib/*; do
  strip --strip-unneeded "$lib"
  patchelf --force-rpath --set-rpath '$ORIGIN' "$lib"
done

cp -R "$source_dir/shaders" "$root/shaders"

# Every dependency of every file must now resolve inside the bundle or to the base system,
# without LD_LIBRARY_PATH: otherwise the bundle would only work on this machine.
for file in "$root"/* "$root"/lib/*; do
  [ -f "$file" ] && [ "$file" != "$root/README.txt" ] || continue
  while read -r soname path; do
    [ "$path" != "not found" ] || die "in the bundle, ${file#"$stage/"} needs $soname, which is not found"
    [[ $path == "$root/lib/"* ]] || die "in the bundle, ${file#"$stage/"} loads $soname from $path, outside the bundle"
  done < <(dependencies "$file")
done

# The oldest glibc the bundle runs on: the newest GLIBC_ symbol version any file needs.
glibc=$(for file in "$root"/* "$root"/lib/*; do [ -f "$file" ] && objdump -T "$file" 2> /dev/null; done |
        grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)
commit=$("$build_dir/voxen" --version 2> /dev/null | sed -n 's/.*(git \(.*\))$/\1/p' || true)

cat > "$root/README.txt" <<EOF
Voxen $version for Linux x86-64${commit:+ (git $commit)}

Voxen is a Vulkan compute engine for voxel mapping: occupancy maps from sensor rays,
clearance, a voxel painter and a transform tree, on any Vulkan 1.2 GPU.

What is in this folder
  voxen            the command-line tool; ./voxen --help lists its commands
  hello_compute    sample: the smallest Voxen program (one buffer, one pass, one readback)
  transform_scene  sample: thousands of animated arms through the GPU transform tree
  voxel_painter    sample: paint a voxel grid in a window, or replay strokes headless
  lib/             the shared libraries these programs load (libstdc++, libgcc_s, libpng, zlib,
                   GLFW, X11...); the programs find them by themselves, no LD_LIBRARY_PATH
  shaders/         the GLSL sources: ./voxen COMMAND --hot-reload compiles the shaders from
                   this folder and reloads one when you edit it (--hot-reload=DIR: another copy)
  share/           librosbag-storage's plugin description (ROS 1 bags open without a ROS
                   installation; voxen finds it beside itself)

What must come from the system
  glibc ${glibc:-2.31} or newer, the Vulkan loader (libvulkan.so.1, Debian/Ubuntu: libvulkan1) and
  a Vulkan driver for your GPU (the vendor's, or Mesa's: mesa-vulkan-drivers, whose lavapipe
  runs on the CPU). The samples' windows need an X server; they also run headless.

First steps, from this folder
  ./voxen --version
  ./voxen info          the Vulkan device Voxen picks, its features and limits, and the others
  ./voxen check         every subsystem against its CPU reference on this device
  ./voxen bench all     the benchmarks, sized for this device
  ./hello_compute
  (--device SEL or VOXEN_DEVICE=SEL picks another device; see ./voxen info.)

If a Vulkan driver fails to load with "version GLIBCXX_... not found", the system's C++
library is newer than the one in lib/: remove lib/libstdc++.so.6 and lib/libgcc_s.so.1 to
use the system's.
EOF

# Written under a temporary name and renamed at the end, so that a failed or interrupted run
# never replaces a good tarball with a partial one.
tarball=$out_dir/$name.tar.gz
partial=$stage/$name.tar.gz
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner -cf - "$name" | gzip -9 > "$partial"
size=$(stat -c %s "$partial")
limit=$((40 * 1000 * 1000))
size_mb=$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1e6 }')
((size < limit)) || die "the tarball is $size_mb MB ($size bytes), over the 40 MB limit; not written"
mv -f "$partial" "$tarball"
echo "bundle.sh: wrote $tarball ($size_mb MB, $size bytes; $(find "$root" -type f | wc -l) files, ${#library_source[@]} libraries)"
