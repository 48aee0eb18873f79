#!/usr/bin/env bash
# `pip install .` as a user runs it (no network, no build isolation) into a fresh virtual
# environment, then the installed package used from outside the tree: its files (extension,
# stubs, py.typed), its version (CMakeLists.txt's), a small map equal to the build tree's.
# The build is the test's own CMake tree (VOXEN_BUILD_DIR), so nothing is compiled again;
# the package sources are copied so the test writes nothing into the source tree.
# pip hides a build's output unless given -v (pypa/pip#2688); the README tells users to pass
# it, so the install runs with -v and its log must show the build as it runs: setup.py's
# lines and CMake's own progress.
# Also: a build tree configured without Python is refused with a message saying so.
# Usage: pip_install.sh PYTHON SOURCE_DIR BUILD_DIR
set -euo pipefail
python=$1 source=$2 build=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work/src/python"
cp "$source"/{pyproject.toml,setup.py,README.md,CMakeLists.txt} "$work/src/"
cp -r "$source/python/voxen" "$work/src/python/"
"$python" -m venv --system-site-packages "$work/venv"
(cd "$work/src" && VOXEN_BUILD_DIR="$build" "$work/venv/bin/pip" install -v --no-build-isolation --no-index . \
  >"$work/install.log" 2>&1) || { cat "$work/install.log"; fail "pip install . failed"; }
grep -qF "voxen: building the extension _voxen with CMake in $build" "$work/install.log" \
  || { cat "$work/install.log"; fail "pip install -v did not show setup.py's build line"; }
grep -q "voxen: cmake --build" "$work/install.log" && grep -q "Built target _voxen" "$work/install.log" \
  || { cat "$work/install.log"; fail "pip install -v did not show CMake's build progress"; }

installed=$(cd "$work" && "$work/venv/bin/python" -c 'import os, voxen; print(os.path.dirname(voxen.__file__))')
case "$installed" in "$work/venv/"*) ;; *) fail "voxen imported from $installed, not the virtual environment";; esac
for f in __init__.py __init__.pyi py.typed; do [ -f "$installed/$f" ] || fail "$f was not installed"; done
ls "$installed"/_voxen*.so >/dev/null || fail "the extension was not installed"
want=$(sed -n 's/^project(voxen VERSION \([0-9.]*\).*/\1/p' "$source/CMakeLists.txt")
got=$("$work/venv/bin/python" -c 'from importlib.metadata import version; print(version("voxen"))')
[ "$got" = "$want" ] || fail "installed version $got, CMakeLists.txt says $want"

# The same rays mapped by the installed package and by the build tree's: the same map file.
cat >"$work/map.py" <<'PY'
import sys, numpy as np, voxen
rng = np.random.default_rng(3)
origins = rng.uniform(-1, 1, size=(500, 3))
ends = origins + rng.normal(size=(500, 3))
mapper = voxen.Mapper(resolution=0.1)
mapper.integrate_rays(origins, ends)
mapper.save(sys.argv[1])
PY
(cd "$work" && "$work/venv/bin/python" map.py installed.vxm)
(cd "$work" && PYTHONPATH="$build/python" "$python" map.py build_tree.vxm)
cmp "$work/installed.vxm" "$work/build_tree.vxm" || fail "the installed package made another map"

# A build tree configured without Python: refused, naming the tree.
mkdir -p "$work/nopython"
echo "CMAKE_BUILD_TYPE:STRING=Release" >"$work/nopython/CMakeCache.txt"
if (cd "$work/src" && VOXEN_BUILD_DIR="$work/nopython" "$work/venv/bin/pip" install -q --no-build-isolation \
      --no-index . >"$work/refused.log" 2>&1); then
  fail "a build tree without Python was accepted"
fi
grep -q "configured without Python" "$work/refused.log" || { cat "$work/refused.log"; fail "no message naming the cause"; }
echo "pip install: installed $got into a virtual environment; same map as the build tree"
