#!/usr/bin/env bash
# The umbrella header refuses an older standard with one line that names the fix, before
# any other error (include/voxen/voxen.hpp's #error): a consumer built with -std=c++17 must
# see "Voxen needs C++20" as its first error. The control: the same program with -std=c++20
# compiles warning-free (-Wall -Wextra -Werror), so the guard does not fire where it must not.
#   cxx20_guard.sh CXX FLAGS_FILE WORK_DIR
set -uo pipefail
cxx=$1 flags=$2 work=$3
mkdir -p "$work"
source=$work/consumer.cpp
printf '#include <voxen/voxen.hpp>\nint main() { return 0; }\n' > "$source"
compile() { "$cxx" "$1" -Wall -Wextra -Werror -fsyntax-only @"$flags" "$source" 2>&1; }
if ! out=$(compile -std=c++20); then echo "cxx20_guard: the control (-std=c++20) does not compile:"; echo "$out"; exit 1; fi
if out=$(compile -std=c++17); then echo "cxx20_guard: -std=c++17 compiles; the #error did not fire"; exit 1; fi
first=$(printf '%s\n' "$out" | grep -m1 'error' || true)
case "$first" in
  *'Voxen needs C++20: set CMAKE_CXX_STANDARD 20'*) ;;
  *) echo "cxx20_guard: with -std=c++17 the first error is not the guard's:"; printf '%s\n' "$out" | head -20; exit 1 ;;
esac
echo "cxx20_guard: -std=c++20 compiles; -std=c++17 stops first at: ${first#*error: }"
