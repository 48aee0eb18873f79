#!/usr/bin/env python3
"""ctest python_bench_smoke: bench_python.py runs at tiny sizes and its JSON has every row
(each measure from Python and its C++ reference, both positive), or says why one is missing.
No timing is judged: the machine that runs the tests is shared."""
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_python  # noqa: E402

KINDS = ("occupancy", "classify", "raycast", "clearance")


def main():
    with tempfile.TemporaryDirectory(prefix="voxen-bench-smoke-") as work:
        out = os.path.join(work, "bench.json")
        bench_python.main(["--rays", "5000", "--points", "300", "--cast-rays", "200", "--repeat", "1", "--calls", "3",
                           "--json", out, "--workdir", os.path.join(work, "files")])
        with open(out) as f:
            result = json.load(f)
    names = [r["name"] for r in result["rows"]]
    expected = ["integrate_rays"] + [f"{k}_{size}" for size in ("1", "batch") for k in KINDS]
    problems = []
    for name in expected:
        kind = name.rsplit("_", 1)[0]
        if name not in names and not any(s.startswith(kind + " ") for s in result["skipped"]):
            problems.append(f"row {name} is missing and not listed as skipped")
    for r in result["rows"]:
        for field in ("python_s", "cpp_s", "python_over_cpp"):
            if not isinstance(r.get(field), (int, float)) or not r[field] > 0:
                problems.append(f"row {r['name']}: {field} is {r.get(field)!r}")
        if not isinstance(r.get("meets_goal"), bool):
            problems.append(f"row {r['name']}: meets_goal is {r.get('meets_goal')!r}")
    if result["validation_messages"]:
        problems.append(f"validation messages: {result['validation_messages']}")
    if len(set(names)) != len(names):
        problems.append(f"rows repeat: {names}")
    for p in problems:
        print(f"python_bench_smoke: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
