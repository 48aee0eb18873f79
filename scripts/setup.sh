#!/usr/bin/env bash
# Installs what Voxen needs from Debian bookworm's packages (when missing), then configures
# and builds everything into build/. Safe to run again: it only does what is left to do.
set -euo pipefail
cd "$(dirname "$0")/.."

# libglfw3-dev: the voxel_painter window; xvfb and xauth (which xvfb-run needs and xvfb only
# recommends): the painter's window test runs under a virtual X server. libpng-dev: PNG
# writing (voxen_io) and reading (the painter tests' probe); libcli11-dev and
# nlohmann-json3-dev: the command lines and --json output of the voxen tool and the samples.
# patchelf: scripts/bundle.sh gives the bundle's copies of the programs and libraries their
# $ORIGIN run paths (the build itself does not use it).
packages=(cmake make g++ pkg-config libvulkan-dev libvulkan-volk-dev glslang-dev glslang-tools spirv-tools
          libglm-dev catch2 mesa-vulkan-drivers vulkan-validationlayers zlib1g-dev libpng-dev libcli11-dev
          nlohmann-json3-dev libglfw3-dev xvfb xauth patchelf)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
