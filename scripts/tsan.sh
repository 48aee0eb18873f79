#!/usr/bin/env bash
# The thread-safety tests under ThreadSanitizer (CI runs this after scripts/test.sh, see .ci/run).
# Configures build-tsan with VOXEN_SANITIZE=thread (cmake/VoxenSanitize.cmake), builds only
# voxen_thread_tests (tests/api/test_mapper_threads.cpp with the suite's main and fixture), and
# runs it on whatever Vulkan device is present (lavapipe without a GPU) with the validation
# layer on, as the suite does. TSan stops at the first report (halt_on_error) and the run fails;
# tests/tsan.supp silences only what happens inside uninstrumented system libraries (the
# Vulkan loader, Mesa, LLVM, the validation layer), never Voxen's own code.
# Arguments go to the test binary (Catch2 options, e.g. a test case name).
# To keep the compile short, only what the tests need is built: no samples, Python, ROS 1
# bags, PostgreSQL or run-time shader compiler (glslang), and -j2 (CI's two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVOXEN_SANITIZE=thread \
  -DVOXEN_BUILD_SAMPLES=OFF -DVOXEN_PYTHON=OFF -DVOXEN_ROSBAG=OFF -DVOXEN_POSTGRES=OFF -DVOXEN_HOT_RELOAD=OFF \
  -DVOXEN_WERROR="${VOXEN_WERROR:-OFF}" >/dev/null
cmake --build build-tsan -j2 --target voxen_thread_tests
built=$(date +%s)
echo "tsan: built voxen_thread_tests in $((built - start)) s"

# second_deadlock_stack: a lock-order report shows where both locks were taken;
# print_suppressions: the log says which suppressions matched and how often.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 print_suppressions=1 suppressions=$PWD/tests/tsan.supp ${TSAN_OPTIONS:-}"
export VOXEN_VALIDATION=1
unset VK_LOADER_DEBUG
status=0
build-tsan/tests/voxen_thread_tests "$@" || status=$?
end=$(date +%s)
echo "tsan: tests ran in $((end - built)) s; $((end - start)) s in all (exit status $status)"
exit "$status"
