"""Builds voxen's extension module with the project's own CMake build (`pip install .`).

The extension (_voxen, pybind11) links the engine's static libraries, which carry the
shaders, so the installed package needs nothing from this tree at run time.

Progress: pip hides a build backend's output unless it runs with -v (pypa/pip#2688; without
it a build of minutes shows a spinner only), so `pip install -v .` is the way to watch it:
this script streams CMake's own progress lines ("[ 45%] Building CXX object ...") and says
what it runs, line by line as they come.

Environment:
  VOXEN_BUILD_DIR  the CMake build tree to use (default: build/pip in this tree). An
                   existing, configured tree (such as the README's build/) is only built,
                   never reconfigured, and must have been configured for this interpreter.
  CMAKE_ARGS       more arguments for a first configure (e.g. -DCMAKE_CXX_COMPILER_LAUNCHER=ccache).
  CMAKE_BUILD_PARALLEL_LEVEL  build jobs (default: every CPU).
"""
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def cmake_project_version():
    """The version has one home, CMakeLists.txt's project(); pyproject.toml declares it dynamic."""
    text = (ROOT / "CMakeLists.txt").read_text()
    match = re.search(r"project\(voxen VERSION ([0-9.]+)", text)
    if not match:
        sys.exit("voxen: no 'project(voxen VERSION x.y.z' in CMakeLists.txt")
    return match.group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = pathlib.Path(os.environ.get("VOXEN_BUILD_DIR", ROOT / "build" / "pip")).resolve()
        cache = build_dir / "CMakeCache.txt"
        print(f"voxen: building the extension _voxen with CMake in {build_dir} "
              f"({'configured: only what changed' if cache.exists() else 'a first build: minutes'})", flush=True)
        if not cache.exists():
            self.configure(build_dir)
        else:
            self.check_interpreter(cache)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        self.run_cmake(["cmake", "--build", str(build_dir), "--target", "_voxen", "-j", jobs])
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = build_dir / "python" / "voxen" / ("_voxen" + suffix)
        if not built.exists():
            sys.exit(f"voxen: the build did not make {built} (was {build_dir} configured with VOXEN_PYTHON=ON "
                     f"for {sys.executable}?)")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)

    def configure(self, build_dir):
        args = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                "-DVOXEN_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"]
        args += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        self.run_cmake(args)

    def check_interpreter(self, cache):
        """A configured tree is not reconfigured (it may be the user's own build): its Python
        must build a module this interpreter can import."""
        for line in cache.read_text().splitlines():
            if line.startswith("Python3_EXECUTABLE:"):
                configured = line.split("=", 1)[1]
                probe = [configured, "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"]
                theirs = subprocess.run(probe, capture_output=True, text=True).stdout.strip()
                if theirs != sysconfig.get_config_var("EXT_SUFFIX"):
                    sys.exit(f"voxen: {cache.parent} was configured for {configured} (modules {theirs or '?'}), "
                             f"not for {sys.executable}; set VOXEN_BUILD_DIR to another folder")
                return
        sys.exit(f"voxen: {cache.parent} was configured without Python (no Python3_EXECUTABLE in {cache}); "
                 "set VOXEN_BUILD_DIR to another folder")

    @staticmethod
    def run_cmake(args):
        print("voxen:", " ".join(shlex.quote(a) for a in args), flush=True)
        try:
            subprocess.run(args, check=True)
        except FileNotFoundError:
            sys.exit("voxen: cmake is not installed (apt-get install cmake, or run scripts/setup.sh)")
        except subprocess.CalledProcessError as error:
            sys.exit(f"voxen: {args[0]} {args[1]} failed with status {error.returncode} (its output is above)")


(ROOT / "build" / "setuptools").mkdir(parents=True, exist_ok=True)
setup(
    version=cmake_project_version(),
    packages=["voxen"],
    package_dir={"voxen": "python/voxen"},
    package_data={"voxen": ["*.pyi", "py.typed"]},
    ext_modules=[CMakeExtension("voxen._voxen")],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own scratch space, away from CMake's trees in build/.
    options={"build": {"build_base": "build/setuptools"}, "egg_info": {"egg_base": "build/setuptools"}},
    zip_safe=False,
)
