#!/usr/bin/env python3
"""Every command block of the README, run at a small size, so that the README stays true.

    readme_commands.py VOXEN_BINARY WORK_DIR SOURCE_DIR

Each ```sh / ```bash block of README.md is read line by line:
- a synopsis line (`voxen CMD ...` and its indented continuation lines): every --flag it names
  must be in `voxen CMD --help` (the README's flags match the tool);
- a command line (`./build/...`, `PYTHONPATH=...`, ...): run with bash in WORK_DIR, in README
  order, after the shrinking substitutions below (a smaller run, never another command), with
  optional parts written as `[...]` left out; it must exit 0, without a validation message;
- unless the line matches a SKIPPED entry, which says why it does not run here (and which other
  test covers it). A line that is neither a synopsis, a comment nor a known command is an
  error: a new kind of README line needs a decision here, not silence.
WORK_DIR gets build/voxen (the binary under test), build/samples and build/python (the build's),
shaders/, examples/, scripts/ and samples/ (the source's), and fixture maps for the merge examples.
"""
import os
import re
import shutil
import subprocess
import sys
import time

voxen, work, source = (os.path.abspath(a) for a in sys.argv[1:4])
build = os.path.dirname(voxen)

# Lines that do not run here, by a piece of their text, and why.
SKIPPED = [
    ("./scripts/test.sh", "the test suite itself, of which this test is a part"),
    ("postgresql://mapper@mapserver", "needs a server named mapserver: cli_pg_store and cli_pg_map_sessions run these commands against a local one"),
    ("voxel_painter/voxel_painter  ", "opens a window: painter_window runs it under Xvfb"),
    ("voxel_painter/voxel_painter                      #", "opens a window: painter_window runs it under Xvfb"),
    ("transform_scene --arms", "opens a window: transform_scene_window runs it under Xvfb"),
    ("./build/voxen check            #", "minutes on lavapipe: cli_check runs voxen check --quick and --json"),
    ("./build/voxen check --quick", "about three minutes on lavapipe: cli_check runs it"),
    ("./build/voxen check --json", "minutes on lavapipe: cli_check runs voxen check --quick --json"),
    ("VOXEN_DEVICE=1 ./build/voxen check", "a second device this machine may not have"),
    ("bench all --budget-s 300", "five minutes: cli_bench_all runs it on a 40 s budget"),
    ("tar -xzf dist/voxen-", "needs scripts/bundle.sh's tarball: cli_bundle builds and runs it"),
    ("cmake --install build", "installs into /opt: install_consumer installs the build and builds against it"),
    ("python3 -m venv", "a virtual environment and a pip build (minutes): python_pip_install does it"),
    ("/bin/pip install ", "a pip build (minutes): python_pip_install does it"),
    ("--store build/live.vxs --resume",
     "continues a killed run, and the run before it here ended: cli_store_mapping kills runs and resumes them"),
    ("VOXEN_SHADER_DIR=$PWD/shaders ./build/samples/hello_compute/hello_compute",
     "watches the shaders for a minute: test_hot_reload covers hot reload from a folder"),
    ("hello_compute --hot-reload", "waits for shader edits until stopped: test_hot_reload covers hot reload"),
]

# Smaller runs of the same commands: (pattern, replacement), applied in order.
SHRINK = [
    (r"^\./scripts/setup\.sh && ", ""),  # the build is there already: this test runs from it
    (r"--scans 100\b", "--scans 3"),
    # The live example (README "On a robot"): the stream of 3 scans is mapped in a few seconds,
    # and the finished map served for two.
    (r"(--live ws://\S+ .*)--duration 20\b", r"\1--duration 8"),
    (r"(voxen serve \S+ .*)--duration 60\b", r"\1--duration 2"),
    (r"(\./build/voxen bench ndt)(?=\s|$)", r"\1 --rays 65536 --repeat 1"),
    (r"(plan_with_clearance\.py)", r"\1 --scans 30 --beams 10000"),
]

COMMAND_START = re.compile(r"^(\./build/|\./scripts/|PYTHONPATH=|VOXEN_SHADER_DIR=|VOXEN_BUILD_DIR=|mkdir |cmake |python3 |~/)")
SYNOPSIS_START = re.compile(r"^voxen (\S+)(?: (\S+))?")


def fail(message):
    print(f"readme_commands: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def blocks(readme):
    """(first line number, lines) of each sh/bash block."""
    out, current, start = [], None, 0
    for number, line in enumerate(readme.splitlines(), 1):
        if current is None and re.match(r"^```(sh|bash)\s*$", line):
            current, start = [], number + 1
        elif current is not None and line.startswith("```"):
            out.append((start, current))
            current = None
        elif current is not None:
            current.append(line)
    return out


def help_of(command, cache={}):
    if command not in cache:
        words = command.split()
        result = subprocess.run([voxen, *words, "--help"], capture_output=True, text=True)
        if result.returncode != 0:
            fail(f"voxen {command} --help failed: {result.stderr}")
        cache[command] = result.stdout
    return cache[command]


def check_synopsis(line_number, lines):
    """The flags a synopsis names are the command's flags."""
    first = SYNOPSIS_START.match(lines[0])
    command = first.group(1)
    if first.group(2) and not first.group(2).startswith(("-", "[", "(")) and command == "bench":
        command += " " + first.group(2)
    if command == "--version":
        return 0
    text = " ".join(l.split("#", 1)[0] for l in lines)
    flags = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text)))
    known = help_of(command)
    missing = [f for f in flags if not re.search(re.escape(f) + r"(?![a-z0-9-])", known)]
    if missing:
        fail(f"README line {line_number}: `voxen {command}` names {', '.join(missing)}, which `voxen {command} --help` does not list")
    return len(flags)


def without_optional_parts(command):
    """`--z 1.0 [--field F]` -> `--z 1.0`: optional parts are the reader's choice."""
    previous = None
    while previous != command:
        previous, command = command, re.sub(r"\s*\[[^\[\]]*\]", "", command)
    return command


def run(line_number, command, env):
    for pattern, replacement in SHRINK:
        command = re.sub(pattern, replacement, command)
    command = without_optional_parts(command)
    start = time.monotonic()
    result = subprocess.run(["bash", "-c", "set -eo pipefail; " + command], cwd=work, env=env, capture_output=True,
                            text=True, timeout=600)
    seconds = time.monotonic() - start
    output = result.stdout + result.stderr
    if result.returncode != 0:
        fail(f"README line {line_number} failed (exit {result.returncode}): {command}\n{output[-4000:]}")
    if "Validation Error" in output or "VUID-" in output:
        fail(f"README line {line_number}: a validation message: {command}\n{output[-4000:]}")
    print(f"ran    line {line_number} ({seconds:.1f} s): {command}")


def link(target, name):
    path = os.path.join(work, name)
    if os.path.lexists(path):
        os.remove(path)
    os.symlink(target, path)


def main():
    shutil.rmtree(work, ignore_errors=True)  # every run starts from nothing, as a reader would
    os.makedirs(os.path.join(work, "build"))
    link(voxen, "build/voxen")
    for name in ("samples", "python"):
        if os.path.isdir(os.path.join(build, name)):
            link(os.path.join(build, name), "build/" + name)
    for name in ("shaders", "examples", "scripts", "samples"):
        link(os.path.join(source, name), name)
    env = dict(os.environ)
    # The README's `python3` is the interpreter this test runs under (the one CMake found, with
    # NumPy), whatever else stands first on PATH.
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")

    # The merge examples' inputs: two small runs of the same place (other seeds), as maps and stores.
    fixtures = [
        "./build/voxen generate --cloud day1.ply --trajectory day1.txt --scans 2 --seed 11",
        "./build/voxen generate --cloud day2.ply --trajectory day2.txt --scans 2 --seed 12",
        "./build/voxen map --cloud day1.ply --trajectory day1.txt --output monday.vxm --quiet",
        "./build/voxen map --cloud day2.ply --trajectory day2.txt --output tuesday.vxm --quiet",
        "./build/voxen convert monday.vxm monday.vxs --quiet",
        "./build/voxen convert tuesday.vxm tuesday.vxs --quiet",
    ]
    for command in fixtures:
        run(0, command, env)

    with open(os.path.join(source, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    ran = synopses = skipped = 0
    for start, lines in blocks(readme):
        i = 0
        while i < len(lines):
            line, number = lines[i], start + i
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                i += 1
                continue
            if SYNOPSIS_START.match(line):
                j = i + 1
                while j < len(lines) and lines[j].startswith(" ") and lines[j].strip():
                    j += 1
                check_synopsis(number, lines[i:j])
                synopses += 1
                i = j
                continue
            skip = next((why for piece, why in SKIPPED if piece in line), None)
            if skip:
                print(f"skip   line {number}: {stripped[:100]}: {skip}")
                skipped += 1
            elif COMMAND_START.match(line):
                run(number, line, env)
                ran += 1
            else:
                fail(f"README line {number} is neither a command this test knows how to run, a synopsis nor a comment: "
                     f"{line!r} (add it to tests/cli/every_command/readme_commands.py: run it, shrink it or say why it is skipped)")
            i += 1
    if ran < 10 or synopses < 10:
        fail(f"only {ran} commands and {synopses} synopses found in README.md: is the block syntax still ```sh?")
    print(f"{ran} README commands ran, {synopses} synopses matched the tool's flags, {skipped} lines skipped (reasons above)")


main()
