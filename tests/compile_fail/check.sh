#!/usr/bin/env bash
# Compiles layer_types.cpp once per case: case 0 (the control) must compile, every other
# case must be refused by the compiler.
#   check.sh CXX FLAGS_FILE CASES
set -uo pipefail
cxx=$1 flags=$2 cases=$3
source=$(dirname "$0")/layer_types.cpp
compile() { "$cxx" -std=c++20 -fsyntax-only @"$flags" -DVOXEN_CASE="$1" "$source" 2>&1; }
if ! out=$(compile 0); then echo "compile_fail: the control case does not compile:"; echo "$out"; exit 1; fi
for n in $(seq 1 "$cases"); do
  if compile "$n" > /dev/null; then
    echo "compile_fail: case $n compiles: $(sed -n "/VOXEN_CASE == $n\$/,/^#/p" "$source" | sed -n 2p)"
    exit 1
  fi
done
echo "compile_fail: the control compiles and all $cases cases are refused"
