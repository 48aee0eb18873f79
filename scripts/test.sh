#!/usr/bin/env bash
# Sets up and builds Voxen (scripts/setup.sh), then runs the whole test suite on whatever
# Vulkan device is present (lavapipe on a machine without a GPU) with validation on: one
# ctest test per Catch2 case, two at a time (pass ctest options through, e.g. -L gpu).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j2 "$@"
