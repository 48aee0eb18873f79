#!/usr/bin/env bash
# Installs what Voxen needs from Debian bookworm's packages (when missing), then configures
# and builds everything into build/. Safe to run again: it only does what is left to do.
set -euo pipefail
cd "$(dirname "$0")/.."

# libglfw3-dev: the voxel_painter window; xvfb and xauth (which xvfb-run needs and xvfb only
# recommends): the painter's window test runs under a virtual X server. libpng-dev: PNG
# writing (voxen_export) and reading (the painter tests' probe); libcli11-dev and
# nlohmann-json3-dev: the command lines and --json output of the voxen tool and the samples.
# patchelf: scripts/bundle.sh gives the bundle's copies of the programs and libraries their
# $ORIGIN run paths (the build itself does not use it). python3-dev, python3-numpy and
# python3-pybind11: the Python package (VOXEN_PYTHON); python3-pytest: its tests;
# liblzf-dev: PCD files' binary_compressed bodies (voxen_input); librosbag-storage-dev: ROS 1
# bags (voxen_rosbag, optional: VOXEN_ROSBAG; no ROS installation); libzstd-dev and liblz4-dev: MCAP's compressed chunks
# (zstd also compresses region stores' rows); libsqlite3-dev: region stores (voxen_store);
# libpq-dev: the PostgreSQL store (optional in the build) and postgresql: the server its tests
# start in a temporary folder (tests/cli/support/pg_cluster.sh; no service is used).
# python3-venv, python3-pip, python3-setuptools and python3-wheel: `pip install .` into a
# virtual environment without network; python3-matplotlib: examples/python's figure.
# The ROS 1 node voxen_ros (optional: VOXEN_ROS1, cmake/Ros1.cmake): libroscpp-dev and the message
# headers it publishes and reads (libsensor-msgs-dev, libnav-msgs-dev, libvisualization-msgs-dev,
# libtf2-msgs-dev), ros-geometry-msgs and ros-std-msgs (the .msg files its services name) with
# python3-gencpp and python3-genpy (its services' C++ headers and the tests' Python classes); its
# test (tests/ros1) starts python3-roslaunch's roscore (with rosout), plays the bag with
# python3-rosbag and listens with python3-rospy and the python3-*-msgs classes.
# Live streams (voxen_live, optional: VOXEN_LIVE): libwebsocketpp-dev and libasio-dev, the
# header-only WebSocket server and client of the Foxglove protocol (voxen serve, voxen play,
# voxen map --live/--serve); python3-websockets: the live tests' stand-in servers and clients
# (tests/cli/live); chromium: the browser page's test (tests/web, headless).
packages=(cmake make g++ pkg-config libvulkan-dev libvulkan-volk-dev glslang-dev glslang-tools spirv-tools
          libglm-dev catch2 mesa-vulkan-drivers vulkan-validationlayers zlib1g-dev libpng-dev libcli11-dev
          nlohmann-json3-dev libglfw3-dev xvfb xauth patchelf liblzf-dev
          librosbag-storage-dev libzstd-dev liblz4-dev libsqlite3-dev libpq-dev postgresql
          python3-dev python3-numpy python3-pybind11 python3-pytest python3-venv python3-pip python3-setuptools
          python3-wheel python3-matplotlib
          libroscpp-dev libsensor-msgs-dev libnav-msgs-dev libvisualization-msgs-dev libtf2-msgs-dev
          ros-geometry-msgs ros-std-msgs python3-gencpp python3-genpy python3-roslaunch rosout python3-rosbag
          python3-rospy python3-sensor-msgs python3-nav-msgs python3-visualization-msgs python3-std-msgs
          libwebsocketpp-dev libasio-dev python3-websockets chromium)
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

# The browser page (web/, which voxen serve serves) bundles three.js from npm at build time, and
# its test drives chromium with puppeteer-core: `npm ci` installs both from web/package-lock.json
# before cmake looks for them (without them the build has no page, and says so). Debian's nodejs
# and npm only where there is no node at all: a node installed otherwise (nodesource, nvm)
# brings its own npm, which Debian's npm package would conflict with.
if ! command -v node > /dev/null; then
  echo "setup: installing nodejs npm (the browser page's packages)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends nodejs npm
fi
# npm writes node_modules/.package-lock.json as it installs: newer than the lock, nothing to do.
# A failed install (no registry) leaves a build without the page, as without npm, not no build.
if command -v npm > /dev/null && ! [ web/node_modules/.package-lock.json -nt web/package-lock.json ]; then
  npm ci --prefix web --no-audit --no-fund ||
    echo "setup: npm ci --prefix web failed: this build will have no browser page and skip its tests" >&2
fi

# VOXEN_PYTHON=ON: the packages above are there, so a Python package that cannot be built
# is an error here, not a silently skipped part of the tests.
# VOXEN_WERROR=ON (as .ci/run sets it): a warning in Voxen's own code fails the build.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DVOXEN_PYTHON=ON -DVOXEN_WERROR="${VOXEN_WERROR:-OFF}"
cmake --build build -j"$(nproc)"
